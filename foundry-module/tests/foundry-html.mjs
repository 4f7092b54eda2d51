// A model of the cleaning Foundry gives HTML it stores and shows (foundry.utils.cleanHTML,
// https://foundryvtt.com/api/v14/functions/foundry.utils.cleanHTML.html: "Clean a provided HTML
// fragment, closing unbalanced tags and stripping some undesirable properties"), as far as a chat
// card needs it: a tag not in CONST.ALLOWED_HTML_TAGS goes (its text stays), an attribute not in
// CONST.ALLOWED_HTML_ATTRIBUTES for every tag ("*") or for its own tag goes, and an attribute
// validated as a URL (CONST.ALLOWED_URL_SCHEMES_APPLIED_TO_ATTRIBUTES) goes unless its scheme is
// one of CONST.ALLOWED_URL_SCHEMES. The lists are the API pages' for v13 and v14 (the same there):
//   https://foundryvtt.com/api/v14/variables/CONST.ALLOWED_HTML_TAGS.html
//   https://foundryvtt.com/api/v14/variables/CONST.ALLOWED_HTML_ATTRIBUTES.html
//   https://foundryvtt.com/api/v14/variables/CONST.ALLOWED_URL_SCHEMES.html
//   https://foundryvtt.com/api/v14/variables/CONST.ALLOWED_URL_SCHEMES_APPLIED_TO_ATTRIBUTES.html
//   https://foundryvtt.com/api/variables/CONST.ALLOWED_HTML_TAGS.html (v13, and likewise the others)
// Not modelled: closing unbalanced tags (the module's templates close theirs).

export const ALLOWED_HTML_TAGS = new Set([
  "header", "main", "section", "article", "aside", "nav", "footer", "div", "address",
  "h1", "h2", "h3", "h4", "h5", "h6", "hr", "br", "p", "blockquote", "summary", "details",
  "span", "code", "pre", "a", "label", "abbr", "cite", "mark", "q", "ruby", "rp", "rt", "small",
  "time", "var", "kbd", "samp", "dfn", "sub", "sup", "strong", "em", "b", "i", "u", "s", "del", "ins",
  "ol", "ul", "li", "dl", "dd", "dt", "menu",
  "table", "thead", "tbody", "tfoot", "tr", "th", "td", "col", "colgroup",
  "form", "input", "select", "option", "button", "datalist", "fieldset", "legend", "meter",
  "optgroup", "progress", "textarea", "output",
  "figure", "figcaption", "caption", "img", "video", "map", "area", "track", "picture", "source", "audio",
  "iframe",
  "color-picker", "code-mirror", "document-embed", "document-tags", "enriched-content", "file-picker",
  "hue-slider", "multi-select", "multi-checkbox", "range-picker", "secret-block", "string-tags", "prose-mirror",
]);

// Every tag's ("*"), and those of the tags a card uses or could (the page lists every allowed
// tag's; a tag not here keeps only the "*" ones).
export const ALLOWED_HTML_ATTRIBUTES = {
  "*": [
    "class", "data-*", "id", "title", "style", "draggable", "aria-*", "tabindex", "dir", "hidden", "inert",
    "role", "is", "lang", "popover", "autocapitalize", "autocorrect", "autofocus", "contenteditable",
    "spellcheck", "translate",
  ],
  a: ["href", "name", "target", "rel"],
  button: ["disabled", "name", "type", "value"],
  details: ["open"],
  img: ["height", "src", "width", "usemap", "sizes", "srcset", "alt"],
  li: ["value"],
  ol: ["reversed", "start", "type"],
  table: ["border"],
  td: ["colspan", "headers", "rowspan"],
  th: ["abbr", "colspan", "headers", "rowspan", "scope", "sorted"],
};

export const ALLOWED_URL_SCHEMES = ["http", "https", "data", "mailto", "obsidian", "syrinscape-online"];
export const ALLOWED_URL_SCHEMES_APPLIED_TO_ATTRIBUTES = ["href", "src", "cite"];

function attributeAllowed(tag, name) {
  const allowed = [...ALLOWED_HTML_ATTRIBUTES["*"], ...(ALLOWED_HTML_ATTRIBUTES[tag] ?? [])];
  return allowed.some((a) => (a.endsWith("-*") ? name.startsWith(a.slice(0, -1)) : a === name));
}

const decode = (value) => value.replace(/&#x([0-9a-f]+);/gi, (_, h) => String.fromCodePoint(parseInt(h, 16)))
  .replace(/&#(\d+);/g, (_, d) => String.fromCodePoint(Number(d))).replace(/&quot;/g, '"').replace(/&amp;/g, "&");

function urlAllowed(value) {
  // A relative URL has no scheme; one with a scheme must name an allowed one.
  const scheme = /^\s*([a-z][a-z0-9+.-]*):/i.exec(decode(value));
  return !scheme || ALLOWED_URL_SCHEMES.includes(scheme[1].toLowerCase());
}

const TAG = /<(\/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[^\s=/>]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+))?)*)\s*(\/?)>/g;
const ATTRIBUTE = /([^\s=/>]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s"'>]+))?/g;

/**
 * `html` as Foundry's cleaning leaves it (see above). A tag kept whole is kept as written, so a
 * fragment that loses nothing comes back the same string.
 */
export function cleanLikeFoundry(html) {
  return String(html).replace(/<!--[\s\S]*?-->/g, "").replace(TAG, (whole, closing, rawName, attributes, selfClosing) => {
    const tag = rawName.toLowerCase();
    if (!ALLOWED_HTML_TAGS.has(tag)) return "";
    if (closing) return whole;
    const kept = [];
    let dropped = false;
    for (const [, rawAttr, value = null] of attributes.matchAll(ATTRIBUTE)) {
      const name = rawAttr.toLowerCase();
      const bare = value === null ? "" : value.replace(/^["']|["']$/g, "");
      const ok = attributeAllowed(tag, name) && !name.startsWith("on")
        && (!ALLOWED_URL_SCHEMES_APPLIED_TO_ATTRIBUTES.includes(name) || urlAllowed(bare));
      if (ok) kept.push(value === null ? name : `${name}="${bare}"`);
      else dropped = true;
    }
    if (!dropped) return whole;
    return `<${tag}${kept.map((a) => ` ${a}`).join("")}${selfClosing ? " /" : ""}>`;
  });
}

// Stubs of the DOM and of Foundry's applications, what the module's hooks and dialogs touch:
// elements with classes, dataset and listeners, rendered HTML parsed into them, forms and
// FormDataExtended, DialogV2.wait, ApplicationV2, and chat HTML cleaned as Foundry saves it.
// The same in Foundry v13 and v14; tests import them through tests/foundry-stubs.mjs.

/**
 * CONST.ALLOWED_HTML_TAGS (v13 and v14: https://foundryvtt.com/api/v13/variables/CONST.ALLOWED_HTML_TAGS.html,
 * https://foundryvtt.com/api/v14/variables/CONST.ALLOWED_HTML_TAGS.html): what a ChatMessage's
 * content (an HTMLField, cleaned by foundry.utils.cleanHTML when the message is saved) may hold.
 * No `svg`, `script` or `style`.
 */
export const ALLOWED_HTML_TAGS = new Set([
  "header", "main", "section", "article", "aside", "nav", "footer", "div", "address", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "br", "p",
  "blockquote", "summary", "details", "span", "code", "pre", "a", "label", "abbr", "cite", "mark", "q", "ruby", "rp", "rt", "small", "time",
  "var", "kbd", "samp", "dfn", "sub", "sup", "strong", "em", "b", "i", "u", "s", "del", "ins", "ol", "ul", "li", "dl", "dd", "dt", "menu",
  "table", "thead", "tbody", "tfoot", "tr", "th", "td", "col", "colgroup", "form", "input", "select", "option", "button", "datalist",
  "fieldset", "legend", "meter", "optgroup", "progress", "textarea", "output", "figure", "figcaption", "caption", "img", "video", "map",
  "area", "track", "picture", "source", "audio", "iframe", "color-picker", "code-mirror", "document-embed", "document-tags",
  "enriched-content", "file-picker", "hue-slider", "multi-select", "multi-checkbox", "range-picker", "secret-block", "string-tags", "prose-mirror",
]);
const VOID_HTML = new Set(["area", "br", "col", "hr", "img", "input", "source", "track", "wbr"]);

/**
 * Chat HTML as Foundry saves it: an element whose tag CONST.ALLOWED_HTML_TAGS does not list is
 * removed (here with everything inside it, so an `<svg>` drawing does not survive as loose
 * shapes or text). Attributes are kept: the module's are all in ALLOWED_HTML_ATTRIBUTES's
 * global list (class, data-*, aria-*, role, title, style).
 */
export function cleanChatHTML(html) {
  let out = "";
  let dropping = 0;
  for (const m of String(html ?? "").matchAll(/<(\/?)([a-zA-Z][\w-]*)\b[^>]*?(\/?)>|<!--[\s\S]*?-->|[^<]+|</g)) {
    const [token, closing, rawTag, selfClosing] = m;
    if (rawTag === undefined) {
      if (!dropping && !token.startsWith("<!--")) out += token;
      continue;
    }
    const tag = rawTag.toLowerCase();
    const allowed = ALLOWED_HTML_TAGS.has(tag);
    if (dropping || !allowed) {
      if (!closing && !selfClosing && !VOID_HTML.has(tag)) dropping += 1;
      else if (closing) dropping -= 1;
      continue;
    }
    out += token;
  }
  return out;
}

/**
 * ApplicationV2 (v13, v14), the part the module's forms use: options from DEFAULT_OPTIONS,
 * render() through _prepareContext/_renderHTML/_replaceHTML, and submit() calling the form's
 * handler with (event, form, formData) bound to the app, as a submitted form does.
 */
export class ApplicationV2 {
  static DEFAULT_OPTIONS = {};
  constructor(options = {}) {
    this.options = { ...this.constructor.DEFAULT_OPTIONS, ...options };
    this.element = null;
    this.rendered = false;
  }
  async _prepareContext() {
    return {};
  }
  async render() {
    const html = await this._renderHTML(await this._prepareContext({}), {});
    const content = { innerHTML: "" };
    this._replaceHTML(html, content, {});
    this.element = content;
    this.rendered = true;
    return this;
  }
  async submit(object) {
    await this.options.form.handler.call(this, { type: "submit" }, this.element, { object });
    if (this.options.form.closeOnSubmit) this.rendered = false;
  }
}

/**
 * Just enough DOM for the hooks the module handles (HUD columns, chat cards, settings forms):
 * elements with classes, dataset, attributes, children, listeners, and selectors of classes
 * (".a.b"), attributes ([name="x"], [data-x]) and tags.
 */
export class StubElement {
  constructor(tagName = "div", { classes = [], attributes = {}, children = [] } = {}) {
    this.tagName = tagName.toUpperCase();
    const names = new Set(classes);
    // DOMTokenList: add/remove take several names.
    this.classList = {
      add: (...c) => c.forEach((n) => names.add(n)),
      remove: (...c) => c.forEach((n) => names.delete(n)),
      contains: (n) => names.has(n),
      has: (n) => names.has(n),
      toggle: (n, force = !names.has(n)) => (force ? names.add(n) : names.delete(n), force),
      [Symbol.iterator]: () => names.values(),
    };
    this.attributes = { ...attributes };
    this.dataset = {};
    this.children = [];
    this.parentElement = null;
    this.listeners = new Map();
    this.title = "";
    this.innerHTML = "";
    this.textContent = "";
    this.disabled = false;
    for (const child of children) this.append(child);
  }
  append(...nodes) {
    for (const node of nodes) {
      node.parentElement = this;
      this.children.push(node);
    }
  }
  remove() {
    const siblings = this.parentElement?.children;
    if (siblings) siblings.splice(siblings.indexOf(this), 1);
    this.parentElement = null;
  }
  after(node) {
    const siblings = this.parentElement.children;
    node.parentElement = this.parentElement;
    siblings.splice(siblings.indexOf(this) + 1, 0, node);
  }
  addEventListener(type, fn) {
    if (!this.listeners.has(type)) this.listeners.set(type, []);
    this.listeners.get(type).push(fn);
  }
  /** Runs this element's listeners for the event, then its parents' when it bubbles, as the DOM does. */
  dispatchEvent(event) {
    event.target ??= this;
    for (let node = this; node; node = event.bubbles ? node.parentElement : null) {
      for (const fn of node.listeners.get(event.type) ?? []) fn({ ...event, currentTarget: node });
    }
    return true;
  }
  /** Runs the listeners and returns what they return (promises included), for tests to await. */
  click() {
    return Promise.all((this.listeners.get("click") ?? []).map((fn) => fn({ type: "click", preventDefault() {}, currentTarget: this })));
  }
  matches(selector) {
    return selector.split(",").some((one) => {
      const part = one.trim();
      const attr = /^\[([\w.-]+)(?:="([^"]*)")?\]$/.exec(part);
      if (attr) {
        const [, name, value] = attr;
        const data = name.startsWith("data-") ? this.dataset[name.slice(5).replace(/-(\w)/g, (_, c) => c.toUpperCase())] : this.attributes[name];
        return value === undefined ? data !== undefined : data === value;
      }
      const classes = part.split(".").filter(Boolean);
      if (part.startsWith(".")) return classes.every((c) => this.classList.has(c));
      return this.tagName === classes[0].toUpperCase() && classes.slice(1).every((c) => this.classList.has(c));
    });
  }
  querySelectorAll(selector) {
    const found = [];
    const walk = (el) => {
      for (const child of el.children) {
        if (child.matches(selector)) found.push(child);
        walk(child);
      }
    };
    walk(this);
    return found;
  }
  querySelector(selector) {
    return this.querySelectorAll(selector)[0] ?? null;
  }
}

const VOID_TAGS = new Set(["input", "br", "hr", "img", "meta", "link"]);

/** Rendered template HTML as StubElements (what Foundry hands the render hooks), under a root div. */
export function parseHTML(html) {
  const root = new StubElement("div");
  let current = root;
  for (const m of html.matchAll(/<(\/?)([a-zA-Z0-9]+)((?:\s+[\w:.-]+(?:="[^"]*")?)*)\s*\/?>|([^<]+)/g)) {
    const [, closing, tag, attrs, text] = m;
    if (text !== undefined) {
      current.textContent += text;
      continue;
    }
    if (closing) {
      current = current.parentElement ?? root;
      continue;
    }
    const el = new StubElement(tag);
    for (const a of (attrs ?? "").matchAll(/([\w:.-]+)(?:="([^"]*)")?/g)) {
      const [, name, value = ""] = a;
      if (name === "class") value.split(/\s+/).filter(Boolean).forEach((c) => el.classList.add(c));
      else if (name.startsWith("data-")) el.dataset[name.slice(5).replace(/-(\w)/g, (_, c) => c.toUpperCase())] = value;
      else el.attributes[name] = value;
    }
    current.append(el);
    if (!VOID_TAGS.has(tag.toLowerCase())) current = el;
  }
  return root;
}

/** `document.createElement` for the module's hooks. */
export const stubDocument = { createElement: (tag) => new StubElement(tag) };

/** The named fields of rendered form HTML with what the browser would submit untouched. */
export function formFields(html) {
  const fields = new Map();
  for (const m of html.matchAll(/<input\b([^>]*)>/g)) {
    const attrs = m[1];
    const name = /\bname="([^"]+)"/.exec(attrs)?.[1];
    if (!name) continue;
    const type = /\btype="([^"]+)"/.exec(attrs)?.[1] ?? "text";
    const value = /\bvalue="([^"]*)"/.exec(attrs)?.[1] ?? "";
    fields.set(name, { type, value: type === "checkbox" ? /\bchecked\b/.test(attrs) : value });
  }
  for (const m of html.matchAll(/<select\b[^>]*\bname="([^"]+)"[^>]*>([\s\S]*?)<\/select>/g)) {
    const options = [...m[2].matchAll(/<option\b[^>]*\bvalue="([^"]*)"([^>]*)>/g)];
    const chosen = options.find((o) => /\bselected\b/.test(o[2])) ?? options[0];
    fields.set(m[1], { type: "select", value: chosen?.[1] ?? "", options: options.map((o) => o[1]) });
  }
  for (const m of html.matchAll(/<textarea\b[^>]*\bname="([^"]+)"[^>]*>([\s\S]*?)<\/textarea>/g)) fields.set(m[1], { type: "textarea", value: m[2] });
  return fields;
}

/**
 * FormDataExtended (v12+): `object` holds the form's values by field name (dotted names stay
 * flat), numbers for number inputs (null when empty), booleans for checkboxes.
 */
export class FormDataExtended {
  constructor(form) {
    this.object = {};
    for (const [name, field] of form.fields) {
      if (field.type === "number") this.object[name] = field.value === "" || field.value === null ? null : Number(field.value);
      else this.object[name] = field.value;
    }
  }
}

/**
 * DialogV2 (v13, v14) as `DialogV2.wait` runs it: the content goes in a form (with the buttons
 * in its footer) inside the dialog's element; once rendered, the `render` callback is called
 * with the render event and the DialogV2 itself (whose `element` the dialog's is); it resolves with what the pressed button's callback returns (its action
 * when it has none), or null when closed (a rejection with rejectClose), and the `close`
 * callback runs as the dialog closes either way. The user is scripted by
 * `DialogV2.respond(async dialog => ({ action, values }))`: `await dialog.change(name, value)`
 * types into a field as a user does (a `change` event that bubbles up to the form), and
 * `values` are typed in just before the button is pressed. A field the content does not have, a
 * value a select does not offer or a button the dialog does not show is an error, as it would
 * be impossible for the user.
 */
export class DialogV2 {
  static opened = [];
  static responses = [];
  static respond(fn) {
    DialogV2.responses.push(fn);
  }
  static async wait({ render, close, ...config }) {
    const fields = formFields(config.content);
    const form = new StubElement("form", { classes: ["dialog-form", "standard-form"] });
    form.fields = fields;
    const content = parseHTML(config.content);
    content.classList.add("dialog-content", "standard-form");
    form.append(content);
    const footer = new StubElement("footer", { classes: ["form-footer"] });
    for (const button of config.buttons) {
      const element = new StubElement("button");
      element.dataset.action = button.action;
      element.form = form;
      footer.append(element);
    }
    form.append(footer);
    const element = new StubElement("dialog", { classes: ["application", "dialog", ...(config.classes ?? [])], children: [form] });
    const type = (name, value) => {
      const field = fields.get(name);
      if (!field) throw new Error(`the dialog has no field "${name}"`);
      if (field.type === "select" && !field.options.includes(String(value))) throw new Error(`"${name}" offers no "${value}" (${field.options})`);
      field.value = value;
      return form.querySelector(`[name="${name}"]`);
    };
    const dialog = {
      config, content: config.content, buttons: config.buttons, title: config.window?.title, element, form,
      /** The user changes one field: its value, then a change event from it up to the form. */
      change(name, value) {
        type(name, value).dispatchEvent({ type: "change", bubbles: true });
      },
    };
    DialogV2.opened.push(dialog);
    // Rendered: v13 and v14 hand the callback the DialogV2 (whose `element` is the dialog's).
    render?.({ type: "render" }, dialog);
    const respond = DialogV2.responses.shift();
    if (!respond) throw new Error(`DialogV2 "${dialog.title}" opened with no scripted response`);
    const press = await respond(dialog);
    const closed = () => close?.({ type: "close" }, dialog);
    if (!press) {
      closed();
      if (config.rejectClose ?? false) throw new Error("The Dialog was closed without a choice being made.");
      return null;
    }
    const button = config.buttons.find((b) => b.action === press.action);
    if (!button) throw new Error(`no button "${press.action}" in [${config.buttons.map((b) => b.action)}]`);
    for (const [name, value] of Object.entries(press.values ?? {})) type(name, value);
    const pressed = footer.querySelector(`[data-action="${button.action}"]`);
    // The callback runs, then the dialog closes (closeOnSubmit).
    // DialogV2ButtonCallback(event, button, dialog: DialogV2), v13 and v14
    // (https://foundryvtt.com/api/v14/types/foundry.DialogV2ButtonCallback.html).
    const result = button.callback ? await button.callback({ type: "click" }, pressed, dialog) : button.action;
    closed();
    return result;
  }
}

// Building blocks for showing results: dice as dice, modifiers with their sources, facts.

// Pip positions on a 3 x 3 grid for each face of a d6.
const PIPS = { 1: [4], 2: [0, 8], 3: [0, 4, 8], 4: [0, 2, 6, 8], 5: [0, 2, 4, 6, 8], 6: [0, 2, 3, 5, 6, 8] };

export function el(name, attributes = {}, ...children) {
  const element = document.createElement(name);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") element.className = value;
    else if (key === "text") element.textContent = value;
    else if (/^data[A-Z]/.test(key)) element.setAttribute(key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`), value);
    else element.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

export const signed = (value) => (value > 0 ? `+${value}` : String(value));

// One die: a d6 as its face with pips, any other die as its number.
export function die(value, sides, { hit = false } = {}) {
  const classes = ["die", `d${sides}`];
  if (hit) classes.push("hit");
  if (value === 1 && sides === 6) classes.push("one");
  const spoken = `${value}${hit ? ", a hit" : ""}`;
  const face = el("span", { class: classes.join(" "), role: "img", "aria-label": spoken, dataValue: value });
  if (sides === 6 && PIPS[value]) {
    for (let cell = 0; cell < 9; cell += 1) {
      face.appendChild(el("span", { class: PIPS[value].includes(cell) ? "pip" : "pip empty" }));
    }
  } else {
    face.appendChild(el("span", { class: "number", text: String(value) }));
  }
  return face;
}

// A count given at the table, said of one die.
const ONE = { hits: "hit", successes: "success", ones: "one" };

// Every step's dice, in order, named by step; `isHit(value, roll)` marks the dice that score.
export function diceSection(dice, { isHit = () => false } = {}) {
  const section = el("section", { class: "dice", "aria-label": "Dice" }, el("h3", { text: "Dice" }));
  for (const roll of dice) {
    const faces = el("div", { class: "faces" }, roll.values.map((value) => die(value, roll.sides, { hit: isHit(value, roll) })));
    // Given at the table as counts (hits and ones...) or as faces; the faces shown for counts
    // are those the service let them stand for.
    const counts = roll.counts ? Object.entries(roll.counts).map(([name, n]) => `${n} ${n === 1 ? ONE[name] || name : name}`).join(", ") : "";
    const origin = roll.given ? (counts ? `given as counts (${counts})` : "given as faces") : "rolled";
    section.appendChild(el("div", { class: "dice-step", dataStep: roll.step, dataGiven: roll.given ? (counts ? "counts" : "faces") : "rolled" },
      el("h4", {}, el("code", { text: roll.step }), ` — ${roll.values.length}d${roll.sides}, ${origin}`),
      faces));
  }
  return section;
}

// Distances from the positions come with every decimal ("range (medium, 12.6491 m)"): a
// tenth of a metre is what a table reads.
const roundedNumbers = (text) => text.replace(/\d+\.\d{2,}/g, (number) => String(Math.round(Number(number) * 10) / 10));

// A pool, a limit or a target number: its total, then each term with its source.
export function modifierTable(caption, modifiers, { field } = {}) {
  const table = el("table", { class: "modifiers", dataField: field ? `${field}-modifiers` : undefined },
    el("caption", { text: caption }),
    el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "Source" }), el("th", { scope: "col", text: "Value" }))));
  const body = el("tbody");
  for (const modifier of modifiers) {
    body.appendChild(el("tr", { dataSource: modifier.source },
      el("th", { scope: "row", text: roundedNumbers(modifier.source) }),
      el("td", { class: "num", text: signed(modifier.value) })));
  }
  table.appendChild(body);
  return table;
}

// A definition list of [term, value, field name] rows; the field name lands on the value as
// data-field, so the numbers shown can be checked against the answer. A value may be a line
// built with `line` (several numbers, each with its own field).
export function facts(rows, className = "facts") {
  const list = el("dl", { class: className });
  for (const [term, value, field] of rows) {
    if (value === undefined || value === null) continue;
    list.append(el("dt", { text: term }), el("dd", { dataField: field }, value instanceof Node ? value : String(value)));
  }
  return list;
}

// One line of text with numbers in it, each number its own field: `line("", [13, "attack_pool"],
// " dice, ", [4, "attack_hits"], " hits")` shows "13 dice, 4 hits" once.
export function line(...parts) {
  return el("span", { class: "line" }, parts.map((part) => (Array.isArray(part)
    ? el("span", { dataField: part[1], text: String(part[0]) })
    : part)));
}

export function outcomeBadge(outcome) {
  return el("span", { class: `outcome ${outcome}`, dataField: "outcome", text: outcome });
}

// Results of kinds no ruleset module renders: their plain fields, and their dice.
export function genericResult(result) {
  const rows = Object.entries(result)
    .filter(([, value]) => value === null || ["string", "number", "boolean"].includes(typeof value))
    .map(([key, value]) => [key.replaceAll("_", " "), value === null ? "—" : value, key]);
  const section = el("article", { class: "result", dataKind: result.kind }, el("h3", { text: result.kind || "result" }), facts(rows));
  if (Array.isArray(result.effects) && result.effects.length) {
    section.appendChild(el("ul", { class: "effects" }, result.effects.map((effect) => el("li", { text: effect }))));
  }
  if (Array.isArray(result.dice) && result.dice.length) section.appendChild(diceSection(result.dice));
  return section;
}

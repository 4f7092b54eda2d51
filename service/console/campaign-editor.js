// The GM's editor for one character or template of a campaign: who it is (id, name, kind, who
// plays it, hidden or not), its sheet's numbers and its first weapon, with the fields of the
// roster's editor (the ruleset's own specs). A new one is a PUT; an edit a PATCH of those parts
// only, so the damage it carries and the Edge it spent stay as they are. What the sheet holds
// beyond the form (an import's other weapons and fields) is kept.

import { buildFields, FieldError, readFields } from "./fields.js";
import { el } from "./results.js";

const ID_PATTERN = "[A-Za-z0-9_.:\\-]{1,64}";
const IDENTITY = [
  { key: "name", label: "Its name", type: "text", optional: true },
  { key: "kind", label: "Kind", type: "select", options: [["character", "character (a player's or the GM's own)"], ["template", "template (copies for each encounter)"]] },
  { key: "controller", label: "Played by (gm, or a player id)", type: "text", value: "gm", pattern: ID_PATTERN },
  { key: "hidden", label: "Brought in hidden from the players", type: "checkbox" },
];
const ACTOR_ID = { key: "id", label: "Its id", type: "text", pattern: ID_PATTERN };

const valueAt = (object, key) => key.split(".").reduce((node, part) => node?.[part], object);

function fill(container, specs, prefix, values) {
  for (const spec of specs) {
    const id = `${prefix}-${spec.key.replaceAll(".", "-")}`;
    const value = valueAt(values, spec.key);
    if (spec.type === "choices") {
      for (const input of container.querySelectorAll(`#${CSS.escape(id)} input`)) input.checked = (value || []).includes(input.value);
      continue;
    }
    const input = container.querySelector(`#${CSS.escape(id)}`);
    if (!input) continue;
    if (spec.type === "checkbox") input.checked = Boolean(value);
    else if (value === undefined || value === null) input.value = spec.optional ? "" : input.value;
    else input.value = String(value);
  }
}

// `base` with the form's `specs` taken out and what the form read put in: a field emptied in the
// form is gone, a field the form does not show stays.
function merged(base, specs, read) {
  const out = { ...(base || {}) };
  for (const spec of specs) delete out[spec.key.split(".")[0]];
  return { ...out, ...read };
}

export class CampaignEditor {
  // `form`: the <form> it is drawn in; `save(mode, id, body)`: sends it (resolves true once
  // done; false, the alert shown, when refused); `showError(message, input)`.
  constructor({ form, save, showError }) {
    this.form = form;
    this.saveTo = save;
    this.showError = showError;
    this.editing = null;
    form.addEventListener("submit", (event) => this.submit(event));
  }

  // `ruleset`: the console's form of the campaign's ruleset (its sheet and weapon specs);
  // `actor`: the campaign actor edited (null: a new one).
  open(ruleset, id = null, actor = null, taken = new Set()) {
    const mode = actor ? "edit" : "add";
    const identity = el("div", { class: "grid" });
    buildFields(identity, [ACTOR_ID, ...IDENTITY], "campaign-actor");
    const parts = [el("h3", { id: "campaign-editor-heading", text: actor ? `Edit ${id}` : "Add a character or template" }), identity];
    const sheetFields = el("div", { class: "grid" });
    const weaponFields = el("div", { class: "grid", id: "campaign-weapon" });
    const carries = el("input", { type: "checkbox", id: "campaign-carries", checked: true });
    if (ruleset?.sheet) {
      buildFields(sheetFields, ruleset.sheet, "campaign-sheet");
      buildFields(weaponFields, ruleset.weapon, "campaign-weapon");
      carries.addEventListener("change", () => { weaponFields.hidden = !carries.checked; });
      parts.push(
        el("fieldset", { class: "group" }, el("legend", { text: "Sheet" }), sheetFields),
        el("fieldset", { class: "group" }, el("legend", { text: "First weapon" }),
          el("div", { class: "field field-checkbox" }, carries, el("label", { for: "campaign-carries", text: "Carries a weapon" })),
          weaponFields));
    }
    const save = el("button", { type: "submit", class: "primary", text: actor ? "Save it" : "Add it" });
    const close = el("button", { type: "button", text: "Close the editor" });
    close.addEventListener("click", () => this.close());
    parts.push(el("div", { class: "actions" }, save, close));
    this.form.replaceChildren(...parts);
    this.form.dataset.mode = mode;
    this.form.hidden = false;
    const idInput = this.form.querySelector("#campaign-actor-id");
    if (actor) {
      fill(identity, IDENTITY, "campaign-actor", actor);
      if (ruleset?.sheet) {
        fill(sheetFields, ruleset.sheet, "campaign-sheet", actor.sheet || {});
        const first = actor.sheet?.weapons?.[0];
        if (first) fill(weaponFields, ruleset.weapon, "campaign-weapon", first);
        carries.checked = Boolean(first);
        weaponFields.hidden = !first;
      }
      idInput.value = id;
      idInput.readOnly = true;
    } else {
      let n = 1;
      while (taken.has(`character-${n}`)) n += 1;
      idInput.value = `character-${n}`;
    }
    this.editing = { mode, id, actor, ruleset };
    idInput.focus();
  }

  close() {
    this.form.hidden = true;
    this.form.replaceChildren();
    this.editing = null;
  }

  read() {
    const { ruleset, actor } = this.editing;
    const { id } = readFields(this.form, [ACTOR_ID], "campaign-actor");
    const body = readFields(this.form, IDENTITY, "campaign-actor");
    if (!ruleset?.sheet) return { id, body };
    const sheet = merged(actor?.sheet, ruleset.sheet, readFields(this.form, ruleset.sheet, "campaign-sheet"));
    sheet.ruleset = ruleset.id;
    const weapons = actor?.sheet?.weapons || [];
    const first = this.form.querySelector("#campaign-carries").checked
      ? [merged(weapons[0], ruleset.weapon, readFields(this.form, ruleset.weapon, "campaign-weapon"))]
      : [];
    sheet.weapons = [...first, ...weapons.slice(1)];
    return { id, body: { ...body, sheet } };
  }

  async submit(event) {
    event.preventDefault();
    let read;
    try {
      read = this.read();
    } catch (problem) {
      if (!(problem instanceof FieldError)) throw problem;
      this.showError(problem.message, problem.input);
      return;
    }
    if (await this.saveTo(this.editing.mode, read.id, read.body)) this.close();
  }

  // "$.sheet.agility" -> its field; "$.name" -> the name's.
  fieldFor(path) {
    const weapon = /^\$\.sheet\.weapons\[0\]\.(\w+)/.exec(path);
    const sheet = /^\$\.sheet\.(\w+)$/.exec(path);
    const own = /^\$\.(\w+)$/.exec(path);
    const id = weapon ? `campaign-weapon-${weapon[1]}` : sheet ? `campaign-sheet-${sheet[1]}` : own ? `campaign-actor-${own[1]}` : null;
    return id && !this.form.hidden ? this.form.querySelector(`#${CSS.escape(id)}`) : null;
  }
}

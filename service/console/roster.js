// The roster: the scene's actors as a list (who plays them, where they stand, hidden or not),
// the GM's editor for one actor (its sheet and one weapon), the GM's import of a character file
// (importer.js), and each player's own link.

import * as api from "./api.js";
import { buildFields, FieldError, readFields } from "./fields.js";
import { CharacterImport } from "./importer.js";
import { el } from "./results.js";

const ID_PATTERN = "[A-Za-z0-9_.:\\-]{1,64}";
const ACTOR_ID = { key: "id", label: "Actor id", type: "text", pattern: ID_PATTERN };
const IDENTITY = [
  { key: "name", label: "Actor name", type: "text", optional: true },
  { key: "controller", label: "Played by (gm, or a player id)", type: "text", value: "gm", pattern: ID_PATTERN },
  { key: "hidden", label: "Hidden from the players", type: "checkbox" },
  { key: "position.x", label: "Position x (m)", type: "number", value: 0 },
  { key: "position.y", label: "Position y (m)", type: "number", value: 0 },
  { key: "posture.cover", label: "Its cover", type: "select", options: ["none", "partial", "good", "full"] },
  { key: "posture.prone", label: "Lying prone", type: "checkbox" },
];
// The Edge the actor spent, kept on the scene (sr5, sr4: rulesets whose sheet has an Edge).
const EDGE_SPENT = { key: "edge_spent", label: "Edge spent", type: "int", min: 0, max: 1000, optional: true };

const valueAt = (object, key) => key.split(".").reduce((node, part) => node?.[part], object);

// Puts an actor's values into fields built from `specs` (what it lacks is left empty).
function fill(container, specs, prefix, values) {
  for (const spec of specs) {
    const id = `${prefix}-${spec.key.replaceAll(".", "-")}`;
    const value = valueAt(values, spec.key);
    if (spec.type === "choices") {
      for (const input of container.querySelectorAll(`#${CSS.escape(id)} input`)) {
        input.checked = (value || []).includes(input.value);
      }
      continue;
    }
    const input = container.querySelector(`#${CSS.escape(id)}`);
    if (!input) continue;
    if (spec.type === "checkbox") input.checked = Boolean(value);
    else if (value === undefined || value === null) input.value = spec.optional ? "" : input.value;
    else input.value = spec.format ? spec.format(value) : String(value);
  }
}

// "Edge 2/3": what is left of the sheet's Edge rating after what the actor spent.
function edgeBadge(actor) {
  const rating = actor.sheet?.edge;
  if (!Number.isInteger(rating)) return null;
  const left = Math.max(0, rating - (actor.edge_spent || 0));
  return el("span", { class: "badge edge", title: "Edge left of the rating", dataField: "edge", text: `Edge ${left}/${rating}` });
}

export class Roster {
  // `session()`: the encounter joined ({id, token, role, player}); `onSceneResult(result)`: the
  // service's answer to a change, applied at once (its event follows and changes nothing more).
  // `decorate(id, actor)`: what the roster adds of the actor's condition monitor ({badges,
  // parts, down}: beside the name, under the line, and whether it is out of the fight).
  constructor({ panel, session, onSceneResult, onPickAttacker, onToggleTarget, decorate = () => ({ badges: [], parts: [], down: null }) }) {
    this.decorate = decorate;
    this.panel = panel;
    this.list = panel.querySelector("#roster-list");
    this.editor = panel.querySelector("#roster-form");
    this.error = panel.querySelector("#roster-error");
    this.gmTools = panel.querySelector("#roster-gm");
    this.linkForm = panel.querySelector("#player-link-form");
    this.session = session;
    this.onSceneResult = onSceneResult;
    this.onPickAttacker = onPickAttacker;
    this.onToggleTarget = onToggleTarget;
    this.actors = new Map();
    this.ruleset = null;
    this.picked = { attacker: "", targets: new Set() };
    // Whose phase it is in the initiative the service runs (null: nobody's, or none runs).
    this.acting = null;
    panel.querySelector("#roster-add").addEventListener("click", () => this.open("add"));
    this.editor.addEventListener("submit", (event) => this.save(event));
    this.linkForm.addEventListener("submit", (event) => this.issueLink(event));
    this.importer = new CharacterImport({ form: panel.querySelector("#roster-import"), report: panel.querySelector("#import-report"), roster: this });
    // A character file dropped on the roster: on an actor, onto it; elsewhere, a new actor.
    panel.addEventListener("dragover", (event) => {
      if (!this.isGm || !event.dataTransfer?.types?.includes("Files")) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = "copy";
      panel.classList.add("drop-target");
    });
    panel.addEventListener("dragleave", (event) => {
      if (!panel.contains(event.relatedTarget)) panel.classList.remove("drop-target");
    });
    panel.addEventListener("drop", (event) => {
      panel.classList.remove("drop-target");
      const file = event.dataTransfer?.files?.[0];
      if (!this.isGm || !file) return;
      event.preventDefault();
      this.importer.dropped(file, event.target.closest?.("li[data-actor]")?.dataset.actor || null);
    });
  }

  get isGm() {
    return this.session()?.role !== "player";
  }

  setRuleset(ruleset) {
    this.ruleset = ruleset;
    this.close();
  }

  setRole() {
    this.gmTools.hidden = !this.isGm;
    if (!this.isGm) this.close();
    this.render();
  }

  setScene(actors) {
    this.actors = new Map(Object.entries(actors));
    this.render();
  }

  applyScene(result) {
    if (result.change === "removed" || !result.state) this.actors.delete(result.actor);
    else this.actors.set(result.actor, result.state);
    this.render();
  }

  // The actors this page may act for: a player's own link shows only theirs.
  playable() {
    const player = this.session()?.player;
    return [...this.actors.entries()].filter(([, actor]) => !player || actor.controller === player);
  }

  setActing(actor) {
    if (actor === this.acting) return;
    this.acting = actor;
    this.render();
  }

  // What the attack form's picks are, shown back on the list's buttons.
  showPicked(attacker, targets) {
    this.picked = { attacker, targets: new Set(targets) };
    this.render();
  }

  render() {
    const items = [];
    const playable = new Set(this.playable().map(([id]) => id));
    for (const [id, actor] of this.actors) {
      const where = actor.position ? `at (${actor.position.x}, ${actor.position.y})` : "not placed";
      const played = actor.controller === "gm" ? "the GM's" : `played by ${actor.controller}`;
      const weapons = (actor.sheet?.weapons || []).map((weapon) => weapon.id).join(", ");
      const monitor = this.decorate(id, actor);
      const classes = [actor.hidden && "hidden-actor", id === this.acting && "acting", monitor.down && `down ${monitor.down}`].filter(Boolean).join(" ");
      const item = el("li", { dataActor: id, dataCondition: monitor.down || undefined, class: classes || undefined, "aria-current": id === this.acting ? "true" : undefined },
        el("strong", { text: actor.name ? `${actor.name} (${id})` : id }),
        monitor.badges,
        edgeBadge(actor),
        el("span", { class: "facts-line", text: ` — ${played}, ${where}${weapons ? `, carries ${weapons}` : ""}` }),
        actor.hidden ? el("span", { class: "badge", text: "hidden" }) : null,
        id === this.acting ? el("span", { class: "badge acting", text: "acting now" }) : null);
      const buttons = el("span", { class: "roster-buttons" });
      if (playable.has(id) && actor.sheet?.weapons?.length) {
        const attack = el("button", {
          type: "button", class: "pick-attacker", "aria-label": `Attacker: ${id}`,
          "aria-pressed": String(this.picked.attacker === id), text: "Attacker",
        });
        attack.addEventListener("click", () => this.onPickAttacker?.(this.picked.attacker === id ? "" : id));
        buttons.append(attack);
      }
      if (this.picked.attacker && this.picked.attacker !== id) {
        const target = el("button", {
          type: "button", class: "pick-target", "aria-label": `Target ${id}`,
          "aria-pressed": String(this.picked.targets.has(id)), text: "Target",
        });
        target.addEventListener("click", () => this.onToggleTarget?.(id));
        buttons.append(target);
      }
      if (this.isGm) {
        for (const [text, action] of [["Edit", () => this.open("edit", id)], ["Duplicate", () => this.open("duplicate", id)]]) {
          const button = el("button", { type: "button", "aria-label": `${text} ${id}`, text });
          button.addEventListener("click", action);
          buttons.append(button);
        }
        const hide = el("button", { type: "button", "aria-label": `${actor.hidden ? "Reveal" : "Hide"} ${id}`, text: actor.hidden ? "Reveal" : "Hide" });
        hide.addEventListener("click", () => this.change(id, () => api.patchActor(this.session().id, this.session().token, id, { hidden: !actor.hidden })));
        const fromFile = el("button", { type: "button", "aria-label": `Import from file onto ${id}`, text: "Import from file" });
        fromFile.addEventListener("click", () => this.importer.chooseFor(id));
        buttons.append(hide, fromFile);
      }
      item.append(" ", buttons, ...monitor.parts);
      items.push(item);
    }
    if (!items.length) items.push(el("li", { class: "empty", text: "Nobody on the scene yet." }));
    this.importer.refreshTargets([...this.actors.keys()]);
    // The focus stays on the control it was on (a button by its name, a field by its id).
    const active = this.list.contains(document.activeElement) ? document.activeElement : null;
    const focused = active?.id ? `#${CSS.escape(active.id)}` : active?.getAttribute("aria-label") ? `[aria-label="${CSS.escape(active.getAttribute("aria-label"))}"]` : null;
    this.list.replaceChildren(...items);
    if (focused) this.list.querySelector(focused)?.focus();
  }

  // --- the GM's editor -------------------------------------------------------------------

  // The first id of the stem the scene does not hold: "actor-1" for the first actor added,
  // "goon-2" for a copy of "goon-1".
  freeId(base, first = 2) {
    const stem = base.replace(/-\d+$/, "");
    for (let n = first; ; n += 1) {
      if (!this.actors.has(`${stem}-${n}`)) return `${stem}-${n}`;
    }
  }

  // Where a copy of an actor standing at `at` goes: 2 m below it, or further down, clear of
  // every actor's token and of its label (drawn up and to the right of the token, a few metres
  // long), so the two names never overlap on the map.
  freeSpot(at) {
    const taken = [...this.actors.values()].map((actor) => actor.position).filter(Boolean);
    for (let step = 1; ; step += 1) {
      const spot = { x: at.x, y: at.y - 2 * step };
      if (!taken.some((p) => Math.abs(p.x - spot.x) < 6 && Math.abs(p.y - spot.y) < 1.5)) return spot;
    }
  }

  // The actor's own fields in the editor: with Edge spent where the sheet has an Edge.
  identity() {
    return this.ruleset?.sheet?.some((spec) => spec.key === "edge") ? [...IDENTITY, EDGE_SPENT] : IDENTITY;
  }

  open(mode, id = null) {
    const r = this.ruleset;
    if (!r?.sheet) return;
    this.hideError();
    const heading = { add: "Add an actor", edit: `Edit ${id}`, duplicate: `Duplicate ${id}` }[mode];
    const identity = el("div", { class: "grid" });
    buildFields(identity, [ACTOR_ID, ...this.identity()], "roster");
    const sheet = el("fieldset", { class: "group" }, el("legend", { text: "Sheet" }));
    const sheetFields = el("div", { class: "grid" });
    buildFields(sheetFields, r.sheet, "sheet");
    sheet.append(sheetFields);
    const carries = el("input", { type: "checkbox", id: "roster-carries", checked: true });
    const weaponFields = el("div", { class: "grid", id: "roster-weapon" });
    buildFields(weaponFields, r.weapon, "roster-weapon");
    carries.addEventListener("change", () => { weaponFields.hidden = !carries.checked; });
    const weapon = el("fieldset", { class: "group" }, el("legend", { text: "Weapon" }),
      el("div", { class: "field field-checkbox" }, carries, el("label", { for: "roster-carries", text: "Carries a weapon" })),
      weaponFields);
    const save = el("button", { type: "submit", class: "primary", text: mode === "edit" ? "Save actor" : "Add actor" });
    const cancel = el("button", { type: "button", text: "Cancel" });
    cancel.addEventListener("click", () => this.close());
    this.editor.replaceChildren(el("h3", { id: "roster-form-heading", text: heading }), identity, sheet, weapon,
      el("div", { class: "actions" }, save, cancel));
    this.editor.dataset.mode = mode;
    this.editor.hidden = false;

    const idInput = this.editor.querySelector("#roster-id");
    if (mode === "add") {
      idInput.value = this.freeId("actor", 1);
    } else {
      const actor = this.actors.get(id);
      const values = { ...actor, position: actor.position || { x: 0, y: 0 }, edge_spent: actor.edge_spent || 0 };
      // A duplicate is a new actor: it has spent no Edge.
      if (mode === "duplicate") Object.assign(values, { position: this.freeSpot(values.position), edge_spent: 0 });
      fill(identity, this.identity(), "roster", values);
      fill(sheetFields, r.sheet, "sheet", actor.sheet || {});
      const first = actor.sheet?.weapons?.[0];
      if (first) fill(weaponFields, r.weapon, "roster-weapon", first);
      carries.checked = Boolean(first);
      weaponFields.hidden = !first;
      idInput.value = mode === "edit" ? id : this.freeId(id);
      idInput.readOnly = mode === "edit";
    }
    this.editing = { mode, id, others: (this.actors.get(id)?.sheet?.weapons || []).slice(1) };
    idInput.focus();
  }

  close() {
    this.editor.hidden = true;
    this.editor.replaceChildren();
    this.editing = null;
  }

  read() {
    const { id } = readFields(this.editor, [ACTOR_ID], "roster");
    const body = readFields(this.editor, this.identity(), "roster");
    const sheet = { ruleset: this.ruleset.id, ...readFields(this.editor, this.ruleset.sheet, "sheet") };
    const weapons = this.editor.querySelector("#roster-carries").checked
      ? [readFields(this.editor, this.ruleset.weapon, "roster-weapon")]
      : [];
    // Only the first weapon is edited here; the others the sheet carries stay as they were.
    sheet.weapons = [...weapons, ...(this.editing?.others || [])];
    return { id, body: { ...body, sheet } };
  }

  async save(event) {
    event.preventDefault();
    let read;
    try {
      read = this.read();
    } catch (problem) {
      if (!(problem instanceof FieldError)) throw problem;
      this.showError(problem.message, problem.input);
      return;
    }
    const { id, token } = this.session();
    const done = await this.change(read.id, () => api.putActor(id, token, read.id, read.body));
    if (done) {
      this.close();
      this.list.querySelector(`li[data-actor="${CSS.escape(read.id)}"] button[aria-label^="Edit"]`)?.focus();
    }
  }

  async change(actorId, send) {
    this.hideError();
    try {
      const answer = await send();
      this.onSceneResult?.(answer.result);
      return true;
    } catch (problem) {
      const field = problem.problem?.path && this.fieldFor(problem.problem.path);
      this.showError(`${actorId} not changed: ${problem.describe?.() || problem.message}`, field);
      return false;
    }
  }

  // "$.sheet.agility" -> #sheet-agility, "$.sheet.weapons[0].ammo" -> #roster-weapon-ammo.
  fieldFor(path) {
    const weapon = /^\$\.sheet\.weapons\[0\]\.(\w+)/.exec(path);
    const sheet = /^\$\.sheet\.(\w+)$/.exec(path);
    const own = /^\$\.(\w+)(?:\.(\w+))?$/.exec(path);
    const id = weapon ? `roster-weapon-${weapon[1]}` : sheet ? `sheet-${sheet[1]}` : own ? `roster-${own[1]}${own[2] ? `-${own[2]}` : ""}` : null;
    return id ? this.editor.querySelector(`#${CSS.escape(id)}`) : null;
  }

  showError(message, input = null) {
    this.error.textContent = message;
    this.error.hidden = false;
    if (input) {
      input.setAttribute("aria-invalid", "true");
      input.focus();
    }
  }

  hideError() {
    this.error.hidden = true;
  }

  // --- players' own links ----------------------------------------------------------------

  async issueLink(event) {
    event.preventDefault();
    const playerInput = this.linkForm.querySelector("#player-id");
    const actorsInput = this.linkForm.querySelector("#player-actors");
    const output = this.linkForm.querySelector("#player-link");
    const player = playerInput.value.trim();
    if (!new RegExp(`^${ID_PATTERN}$`).test(player)) {
      this.showError("Player id: letters, digits and _ . : - (up to 64).", playerInput);
      return;
    }
    const actors = actorsInput.value.split(/[\s,]+/).filter(Boolean);
    const { id, token } = this.session();
    this.hideError();
    try {
      const answer = await api.issuePlayerToken(id, token, player, actors);
      this.onSceneResult?.(null);
      const link = new URL("/", location.href);
      link.hash = new URLSearchParams({ encounter: id, token: answer.token, player }).toString();
      output.value = link.toString();
      this.linkForm.querySelector("#player-link-label").textContent = `Link for ${player} (their own token)`;
      output.closest(".field").hidden = false;
      output.focus();
      output.select();
    } catch (problem) {
      this.showError(`No link for ${player}: ${problem.describe?.() || problem.message}`, actorsInput);
    }
  }
}

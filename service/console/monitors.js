// Condition monitors, drawn as on the paper sheet. Hard Life's (004, "Taking Damage") are a
// panel of their own (MonitorsPanel, below the first section); every other ruleset's are the ones
// the service keeps on each scene actor (schemas/monitor.py), drawn in the roster by
// `drawMonitor` with SR3's levels from the same table Hard Life counts with.
//
// Hard Life's condition monitors (004, "Taking Damage"): every actor of the encounter with each
// location's and the trauma monitor's boxes, what they mean (the service's `condition`), what is
// due (a recovery roll, a consciousness test) and the armour it wears with its wear. Read from
// `GET /v1/encounters/{id}` (the combat state) when the page joins and after every event that can
// change it; the GM rolls what is due from here (POST .../actions), and sets or heals a monitor,
// clears the armour's wear and clears a standing recovery roll or unconsciousness: each a
// PUT .../state of the combat state as last read, that one actor changed, with the `version` it
// was read at, so an attack that landed in between makes it a 409 (read again, never written over).

import * as api from "./api.js";
import { armorName, conditionText, LOCATIONS } from "./rulesets/sr3hl.js";
import { el } from "./results.js";

const words = (text) => String(text).replaceAll("_", " ");
// SR3's condition monitor, as Hard Life keeps it (README): a level is reached at these boxes.
const LEVEL_BOXES = [["D", 10], ["S", 6], ["M", 3], ["L", 1]];
const levelOf = (boxes) => LEVEL_BOXES.find(([, at]) => boxes >= at)?.[0] || "—";
const MONITORS = ["trauma", ...LOCATIONS];
// The bounds of a monitor's boxes (schemas/sr3hl.py Boxes; stun past the track's 10 boxes
// overflows into physical, service/rules/sr3hl/condition.py, so no monitor keeps more).
const MAX_PHYSICAL = 100;
const MAX_STUN = 10;
// Events after which the monitors may have changed (an undo may take back any change).
export const MONITOR_EVENTS = new Set(["attack", "zone_test", "action", "advance", "state_edited", "initiative", "monitor", "undo"]);

export class MonitorsPanel {
  // `onAnswer(answer)`: the answer to an action sent from here (shown as the page's result);
  // `actors()`: the scene's actors, listed too before anything hit them.
  constructor({ panel, session, onAnswer, actors = () => new Map() }) {
    this.sceneActors = actors;
    this.last = {};
    this.panel = panel;
    this.list = panel.querySelector("#monitors-list");
    this.status = panel.querySelector("#monitors-status");
    this.alert = panel.querySelector("#monitors-error");
    this.edited = panel.querySelector("#monitors-edited");
    this.session = session;
    this.onAnswer = onAnswer;
    this.enabled = false;
    this.role = "gm";
    this.reads = 0;
    // The combat state and its version as last read: what an edit starts from.
    this.read = null;
    // Per actor, what the GM's edit controls showed (open, the monitor picked): kept across the
    // reads that follow every event.
    this.editing = new Map();
  }

  setRuleset(ruleset) {
    this.enabled = Boolean(ruleset?.hasMonitors);
    this.panel.hidden = !this.enabled;
    this.last = {};
    this.read = null;
    this.editing = new Map();
    this.list.replaceChildren();
    this.alert.hidden = true;
    this.edited.textContent = "";
  }

  setRole(role) {
    this.role = role;
    for (const part of this.list.querySelectorAll(".gm-action")) part.hidden = role === "player";
  }

  // Reads the state again; only the newest read is shown when two cross.
  async refresh() {
    const session = this.session();
    if (!this.enabled || !session) return;
    this.reads += 1;
    const read = this.reads;
    try {
      const view = await api.getEncounter(session.id, session.token);
      if (read !== this.reads) return;
      this.read = { combat: view.combat, version: view.version };
      this.show(view.combat?.actors || {});
    } catch (error) {
      if (read === this.reads) this.status.textContent = `The monitors could not be read: ${error.describe?.() || error.message}`;
    }
  }

  // Every actor of the encounter: those the combat state keeps, and the scene's others (their
  // monitors empty until something hits them).
  show(actors = this.last) {
    this.last = actors;
    const ids = [...new Set([...Object.keys(actors), ...this.sceneActors().keys()])].sort();
    const kept = Object.keys(actors).length;
    this.status.textContent = ids.length
      ? `${ids.length} actor${ids.length === 1 ? "" : "s"}, ${kept} with a combat state.`
      : "Nobody has been hit or rolled yet.";
    this.list.replaceChildren(...ids.map((id) => this.actorItem(id, actors[id] || {})));
    this.panel.dataset.read = String(this.reads);
  }

  // The scene changed (an actor added or taken off): the list follows without a read.
  sceneChanged() {
    if (this.enabled) this.show();
  }

  actorItem(id, state) {
    const c = state.condition || {};
    const item = el("li", { class: "monitor-actor", dataActor: id },
      el("h3", { text: id }),
      el("p", { class: "condition", dataField: "condition" }, conditionText(c), "."));
    const due = [];
    if (state.unconscious) due.push("unconscious (a failed consciousness test)");
    if (state.recovery) due.push(`recovery roll due (against ${state.recovery.level})`);
    if (state.consciousness_due) due.push("consciousness test due");
    if (state.conscious_phases !== undefined && state.conscious_phases !== null) {
      due.push(state.conscious_phases ? `acts in ${state.conscious_phases} more phase${state.conscious_phases === 1 ? "" : "s"} this combat turn` : "free actions only");
    }
    if (state.actions_lost) due.push(`${state.actions_lost} action phase${state.actions_lost === 1 ? "" : "s"} lost`);
    item.appendChild(el("p", { class: "due", dataField: "due", text: due.length ? `${due.join("; ")}.` : "Nothing due." }));
    // Both rolls read Willpower: the sheet's, or typed here for an actor the scene has no sheet of.
    const willpower = el("input", { type: "number", id: `monitor-willpower-${id}`, min: 1, max: 30, inputmode: "numeric", class: "gm-action" });
    const actions = el("div", { class: "row monitor-actions" },
      el("label", { for: willpower.id, class: "gm-action", text: `Willpower of ${id} (empty: the sheet's)` }), willpower);
    if (state.recovery) actions.appendChild(this.actionButton(id, "recovery_roll", `Recovery roll: ${id}`, willpower));
    if (state.consciousness_due || (c.deadly && !c.dead && !state.unconscious)) {
      actions.appendChild(this.actionButton(id, "consciousness_test", `Consciousness test: ${id}`, willpower));
    }
    if (actions.querySelector("button")) {
      for (const part of actions.querySelectorAll(".gm-action")) part.hidden = this.role === "player";
      item.appendChild(actions);
    }
    item.appendChild(monitorTable(id, state.monitors || {}));
    item.appendChild(armorTable(id, state.armor));
    item.appendChild(this.editControls(id, state));
    return item;
  }

  // The GM's edits of one actor. Each is sent on the state as last read (`this.read`).
  editControls(id, state) {
    const editing = this.editing.get(id) || { open: false, monitor: "trauma" };
    const details = el("details", { class: "gm-action monitor-edit", dataField: "edit" },
      el("summary", { text: `Edit ${id}: monitors, armour, what is due` }));
    details.open = editing.open;
    details.hidden = this.role === "player";
    details.addEventListener("toggle", () => this.editing.set(id, { ...(this.editing.get(id) || editing), open: details.open }));

    const monitors = state.monitors || {};
    const picked = el("select", { id: `monitor-pick-${id}` },
      MONITORS.map((name) => el("option", { value: name, text: words(name), selected: name === editing.monitor })));
    const physical = el("input", { type: "number", id: `monitor-physical-${id}`, min: 0, max: MAX_PHYSICAL, step: 1, required: true, inputmode: "numeric" });
    const stun = el("input", { type: "number", id: `monitor-stun-${id}`, min: 0, max: MAX_STUN, step: 1, required: true, inputmode: "numeric" });
    // The boxes the picked monitor has now, to change from.
    const fill = () => {
      physical.value = String(monitors[picked.value]?.physical || 0);
      stun.value = String(monitors[picked.value]?.stun || 0);
    };
    fill();
    picked.addEventListener("change", () => {
      this.editing.set(id, { open: details.open, monitor: picked.value });
      fill();
    });
    const set = el("form", { class: "row monitor-set", dataEdit: "monitor" },
      el("label", { for: picked.id, text: `Monitor of ${id}` }), picked,
      el("label", { for: physical.id, text: `Physical boxes of ${id}` }), physical,
      el("label", { for: stun.id, text: `Stun boxes of ${id}` }), stun,
      el("button", { type: "submit", text: `Set monitor: ${id}` }));
    set.addEventListener("submit", (event) => {
      event.preventDefault();
      const name = picked.value;
      const boxes = { physical: Number(physical.value), stun: Number(stun.value) };
      this.edit(id, set.querySelector("button"), `${id}'s ${words(name)} monitor set to ${boxes.physical} physical, ${boxes.stun} stun`,
        (actor) => ({ ...actor, monitors: withMonitor(actor.monitors, name, boxes) }));
    });
    details.appendChild(set);

    const buttons = el("div", { class: "row monitor-clear" });
    const button = (label, edit, said, change) => {
      const made = el("button", { type: "button", dataEdit: edit, text: label });
      made.addEventListener("click", () => this.edit(id, made, said, change));
      buttons.appendChild(made);
    };
    if (Object.keys(monitors).length) {
      button(`Heal all monitors: ${id}`, "heal-all", `${id}'s monitors healed`, (actor) => without(actor, "monitors"));
    }
    const pieces = state.armor || [];
    const worn = (piece) => Object.values(piece.wear || {}).some((points) => points > 0);
    pieces.forEach((piece, index) => {
      if (!worn(piece)) return;
      button(`Clear wear: ${armorName(piece)} (piece ${index + 1} of ${id})`, `wear-${index}`, `the wear of ${id}'s ${armorName(piece)} cleared`,
        (actor) => ({ ...actor, armor: actor.armor.map((p, i) => (i === index ? without(p, "wear") : p)) }));
    });
    if (pieces.some(worn)) {
      button(`Clear all wear: ${id}`, "wear-all", `the wear of all ${id}'s armour cleared`,
        (actor) => ({ ...actor, armor: actor.armor.map((p) => without(p, "wear")) }));
    }
    if (state.recovery) {
      button(`Clear recovery roll: ${id}`, "recovery", `${id}'s recovery roll cleared`, (actor) => without(actor, "recovery"));
    }
    if (state.unconscious) {
      button(`Clear unconsciousness: ${id}`, "unconscious", `${id} no longer unconscious`, (actor) => without(actor, "unconscious"));
    }
    if (buttons.childElementCount) details.appendChild(buttons);
    return details;
  }

  // PUT .../state: the combat state as last read, `actor` changed by `change`, on the version it
  // was read at. A 409 `state-changed` (something happened since) writes nothing: the panel reads
  // again and says so, and the GM makes the edit again on what it shows.
  async edit(actor, control, said, change) {
    const session = this.session();
    if (!session || !this.read) return;
    const { combat, version } = this.read;
    const actors = { ...(combat.actors || {}) };
    actors[actor] = change(structuredClone(actors[actor] || {}));
    this.alert.hidden = true;
    this.edited.textContent = "";
    control.disabled = true;
    let outcome = null;
    try {
      const answer = await api.editState(session.id, session.token, {
        version,
        combat: { ...combat, actors },
        reason: said,
      });
      outcome = `Written: ${said} (version ${answer.changes?.version ?? version + 1}).`;
    } catch (problem) {
      this.alert.textContent = problem.status === 409 && api.problemType(problem) === "state-changed"
        ? `Not written: the encounter changed since the monitors were read (${problem.message}). They have been read again: check ${actor} and make the edit again.`
        : `Refused: ${problem.describe?.() || problem.message}`;
      this.alert.hidden = false;
    } finally {
      control.disabled = false;
    }
    if (outcome) this.edited.textContent = outcome;
    await this.refresh();
  }

  actionButton(actor, action, label, willpower) {
    const button = el("button", { type: "button", class: "gm-action", dataAction: action, text: label });
    button.hidden = this.role === "player";
    button.addEventListener("click", async () => {
      const session = this.session();
      this.alert.hidden = true;
      button.disabled = true;
      try {
        const body = { ruleset: "sr3-hardlife", actor, action };
        if (willpower.value.trim()) body.willpower = Number(willpower.value);
        const answer = await api.takeAction(session.id, session.token, body);
        this.onAnswer(answer);
      } catch (problem) {
        this.alert.textContent = `Refused: ${problem.describe?.() || problem.message}`;
        this.alert.hidden = false;
      } finally {
        button.disabled = false;
      }
    });
    return button;
  }
}

const without = (object, key) => {
  const { [key]: _, ...rest } = object;
  return rest;
};

// A monitor set to these boxes; one at nothing left out (as the service keeps it).
function withMonitor(monitors = {}, name, boxes) {
  const rest = without(monitors, name);
  return boxes.physical || boxes.stun ? { ...rest, [name]: boxes } : rest;
}

function monitorTable(id, monitors) {
  const body = el("tbody");
  for (const name of MONITORS) {
    const m = monitors[name] || {};
    const physical = m.physical || 0;
    const stun = m.stun || 0;
    body.appendChild(el("tr", { dataMonitor: name, class: physical || stun ? "wounded" : "" },
      el("th", { scope: "row", text: words(name) }),
      el("td", { class: "num", dataField: "physical", text: String(physical) }),
      el("td", { dataField: "physical_level", text: levelOf(physical) }),
      el("td", { class: "num", dataField: "stun", text: String(stun) }),
      el("td", { dataField: "stun_level", text: levelOf(stun) })));
  }
  return el("table", { class: "modifiers monitors", dataField: "monitors" },
    el("caption", { text: `${id}: each monitor (boxes and level)` }),
    el("thead", {}, el("tr", {}, ["Monitor", "Physical boxes", "Level", "Stun boxes", "Level"].map((h) => el("th", { scope: "col", text: h })))),
    body);
}

// The armour as the state keeps it once hit: each piece, and what hits wore off it where.
function armorTable(id, pieces) {
  if (!pieces) return el("p", { class: "help", dataField: "armor", text: "Armour: as its sheet or the attack says (not hit yet)." });
  const body = el("tbody");
  pieces.forEach((piece, index) => {
    const wear = Object.entries(piece.wear || {}).filter(([, points]) => points > 0);
    body.appendChild(el("tr", { dataPiece: index },
      el("th", { scope: "row", text: armorName(piece) }),
      el("td", { dataField: "covers", text: Object.keys(piece.covers || {}).map(words).join(", ") || "its Table 7 rows" }),
      el("td", { dataField: "wear", text: wear.length ? wear.map(([where, points]) => `${words(where)} ${points}`).join(", ") : "none" })));
  });
  return el("table", { class: "modifiers armor-worn", dataField: "armor" },
    el("caption", { text: `${id}: armour worn, and its wear per location (004, Armour Degradation)` }),
    el("thead", {}, el("tr", {}, ["Piece", "Covers", "Worn off"].map((h) => el("th", { scope: "col", text: h })))),
    body);
}

// --- the monitors the service keeps (sr5, sr4, sr3, d100) ---------------------------------

// The rulesets whose scene actors carry a `monitor` (docs/api.md; Hard Life keeps its own).
export const SERVICE_MONITORS = new Set(["sr5", "sr4", "sr3", "d100"]);
// Conditions in which an actor cannot act (schemas/monitor.py INCAPACITATED).
export const INCAPACITATED = new Set(["unconscious", "dying", "dead"]);
// SR5 and SR4 sheets mark a -1 every third box of each track (SR5 and SR4 core rules, "Wound
// Modifiers", as rules-sources/README.md takes the core rules where 000 and 001 are silent);
// the modifier itself is the service's (status.wound_modifier), this only draws the marks.
const BOXES_PER_WOUND = 3;
// Boxes drawn one by one up to this many (a d100 sheet's hit points may run higher): past it
// the track is its count alone.
const MAX_DRAWN_BOXES = 60;

// An actor's monitor as the page draws it, or null (a "vtt" encounter, Hard Life, no monitor).
export const monitorOf = (actor) => actor?.monitor || null;
export const conditionOf = (actor) => monitorOf(actor)?.status?.condition || "ok";

// The wound modifier as its ruleset says it: a dice-pool penalty ("-2": sr5, sr4), a target
// number modifier ("+2 TN": sr3) or a Success Target penalty ("-10": d100).
export function woundText(ruleset, modifier) {
  if (ruleset === "sr3") return `${modifier > 0 ? "+" : ""}${modifier} TN`;
  return modifier > 0 ? `+${modifier}` : String(modifier);
}

// The box numbers that carry a mark on a track of `size` boxes in `ruleset`.
function trackMarks(ruleset, size) {
  const marks = new Map();
  if (ruleset === "sr3") {
    for (const [level, at] of LEVEL_BOXES) marks.set(at, level);
  } else if (ruleset === "sr5" || ruleset === "sr4") {
    for (let box = BOXES_PER_WOUND; box <= (size || 0); box += BOXES_PER_WOUND) marks.set(box, `-${box / BOXES_PER_WOUND}`);
  }
  return marks;
}

// One track: `size` boxes (null: the sheet cannot size it, so only the marked ones are drawn),
// `marked` of them filled. The boxes are a picture; the count beside them is the text.
function track(ruleset, name, label, marked, size) {
  const drawn = Math.min(size ?? marked, MAX_DRAWN_BOXES);
  const marks = name === "overflow" ? new Map() : trackMarks(ruleset, size);
  const boxes = el("span", { class: "boxes", "aria-hidden": "true" });
  for (let box = 1; box <= drawn; box += 1) {
    const mark = marks.get(box);
    boxes.appendChild(el("span", { class: `box${box <= marked ? " marked" : ""}`, dataBox: box, dataMark: mark }, mark ? el("span", { class: "mark", text: mark }) : null));
  }
  const unsized = size === null || size === undefined;
  return el("div", { class: `track track-${name}`, dataTrack: name },
    el("span", { class: "track-name", text: label }),
    drawn ? boxes : null,
    el("span", { class: "track-count" },
      el("span", { dataField: name, text: String(marked) }),
      unsized ? " (the sheet does not size this track)" : `/${size}`));
}

// Each ruleset's names for the physical, stun and overflow tracks (d100 has one track of hit
// points, and goes below 0 past it).
const TRACK_NAMES = { d100: ["Hit points lost", null, "Below 0"] };

// An actor's monitor (schemas/monitor.py Monitor): its tracks as boxes, the overflow after them,
// d100's wounds by location, and the status line (wound modifier, initiative, condition).
export function drawMonitor(id, ruleset, monitor) {
  const status = monitor.status || {};
  const [physicalName, stunName, overflowName] = TRACK_NAMES[ruleset] || ["Physical", "Stun", "Overflow"];
  const part = el("div", { class: `condition-monitor ${ruleset}`, dataMonitor: id, role: "group", "aria-label": `Condition monitor of ${id}` });
  part.appendChild(track(ruleset, "physical", physicalName, monitor.physical || 0, status.physical_max));
  if (stunName) part.appendChild(track(ruleset, "stun", stunName, monitor.stun || 0, status.stun_max));
  if (status.overflow_max || monitor.overflow) part.appendChild(track(ruleset, "overflow", overflowName, monitor.overflow || 0, status.overflow_max));
  const wounds = Object.entries(monitor.wounds || {}).filter(([, points]) => points > 0);
  if (ruleset === "d100" || wounds.length) {
    part.appendChild(el("p", { class: "wounds", dataField: "wounds",
      text: `Wounds: ${wounds.length ? wounds.map(([where, points]) => `${words(where)} ${points}`).join(", ") : "none"}.` }));
  }
  const said = [`wound modifier ${woundText(ruleset, status.wound_modifier || 0)}`];
  if (status.initiative_modifier) said.push(`initiative ${status.initiative_modifier > 0 ? "+" : ""}${status.initiative_modifier}`);
  said.push(status.condition || "ok");
  part.appendChild(el("p", { class: "monitor-status help", dataField: "status", title: status.source || undefined, text: `${said.join("; ")}.` }));
  return part;
}

// What a console does to the condition monitors the service keeps (sr5, sr4, sr3, d100), under
// each actor of the roster: the GM heals, sets or clears one (POST .../actors/{actor}/monitor,
// on the encounter's version as last read, so a hit that landed in between is never written
// over), and damage waiting for confirmation (`"damage": "confirm"`) is applied by the GM or the
// actor's player, or declined by the GM. Every refusal goes to `onError`, never thrown.

import * as api from "./api.js";
import { el } from "./results.js";

const BOX_LIMIT = 1000; // schemas/monitor.py Boxes
// The id of one of an actor's controls: "/" is in no actor id (schemas/common.py Id), so no two
// actors' ids meet.
const fieldId = (actor, name) => `monitor/${actor}/${name}`;
const LOCATION_POINTS = /^([A-Za-z_][\w-]{0,31})\s+(\d{1,4})$/;

// "torso 3, left_arm 2" -> {torso: 3, left_arm: 2}; throws what is wrong, in words.
export function parseWounds(text) {
  const wounds = {};
  for (const part of text.split(",").map((p) => p.trim()).filter(Boolean)) {
    const match = LOCATION_POINTS.exec(part);
    if (!match) throw new Error(`"${part}" is not a location and its points (torso 3)`);
    wounds[match[1]] = Number(match[2]);
  }
  return wounds;
}

export class MonitorControls {
  // `session()`: the encounter joined ({id, token, role, player, ruleset, version});
  // `onAnswer(answer)`: an edit, an apply or a decline the service made (shown as the page's
  // result; the page then reads the state again); `onError(message, input)`: a refusal or a
  // field typed wrong; `onStale()`: the state changed since it was read (read it again).
  constructor({ session, onAnswer, onError, onStale }) {
    this.session = session;
    this.onAnswer = onAnswer;
    this.onError = onError;
    this.onStale = onStale;
    // Kept across the roster's redraws (every event redraws it): which editors are open and
    // what was typed in them, by input id.
    this.opened = new Set();
    this.typed = new Map();
  }

  get isGm() {
    return this.session()?.role !== "player";
  }

  // The GM applies anyone's damage; a player the damage of the actors it plays (its own link:
  // that player's; the shared player link: every actor a player plays).
  mayApply(actor) {
    const session = this.session();
    if (!session) return false;
    if (this.isGm) return true;
    return session.player ? actor.controller === session.player : actor.controller !== "gm";
  }

  // The damage waiting on `id`'s monitor, each with its Apply (and the GM's Decline).
  pending(id, actor) {
    const waiting = actor.monitor?.pending || [];
    if (!waiting.length) return null;
    const list = el("ul", { class: "pending", "aria-label": `Damage waiting for ${id}` });
    for (const damage of waiting) {
      const what = `${damage.boxes} ${damage.track}${damage.location ? ` (${damage.location.replaceAll("_", " ")})` : ""}`;
      const item = el("li", { dataPending: damage.id },
        el("span", { text: `${what}${damage.source ? `, ${damage.source}` : ""} ` }));
      if (this.mayApply(actor)) {
        item.appendChild(this.button(`Apply ${what} to ${id}`, "Apply", () => api.applyPending(this.session().id, this.session().token, id, damage.id), `${id}: ${what} not applied`));
      }
      if (this.isGm) {
        item.appendChild(this.button(`Decline ${what} for ${id}`, "Decline", () => api.declinePending(this.session().id, this.session().token, id, damage.id), `${id}: ${what} not declined`));
      }
      list.appendChild(item);
    }
    return el("div", { class: "pending-damage" }, el("p", { class: "help", text: "Damage waiting to be applied:" }), list);
  }

  button(label, text, send, failed) {
    const button = el("button", { type: "button", "aria-label": label, text });
    button.addEventListener("click", () => this.send(button, send, failed));
    return button;
  }

  async send(control, send, failed) {
    control.disabled = true;
    try {
      const answer = await send();
      this.onAnswer(answer);
      return true;
    } catch (problem) {
      const stale = problem.status === 409 && api.problemType(problem) === "state-changed";
      this.onError(stale
        ? `${failed}: the encounter changed since the monitors were read (${problem.message}). They have been read again: check and do it again.`
        : `${failed}: ${problem.describe?.() || problem.message}`);
      if (stale) this.onStale();
      return false;
    } finally {
      control.disabled = false;
    }
  }

  // A number input kept across redraws: what was typed stays until it is sent.
  input(id, label, value, attributes = {}) {
    const input = el("input", { id, inputmode: "numeric", ...attributes });
    input.value = this.typed.has(id) ? this.typed.get(id) : String(value ?? "");
    input.addEventListener("input", () => this.typed.set(id, input.value));
    return [el("label", { for: id, text: label }), input];
  }

  // The GM's heal, set and clear of `id`'s monitor (none on a player's page).
  editor(id, actor, ruleset) {
    if (!this.isGm || !actor.monitor) return null;
    const monitor = actor.monitor;
    const d100 = ruleset === "d100";
    const key = (name) => fieldId(id, name);
    const details = el("details", { class: "monitor-edit", dataEdit: id },
      el("summary", { id: key("edit"), text: `Monitor of ${id}: heal, set, clear` }));
    details.open = this.opened.has(id);
    details.addEventListener("toggle", () => (details.open ? this.opened.add(id) : this.opened.delete(id)));
    const number = { type: "number", min: 0, max: BOX_LIMIT, step: 1 };

    const heal = el("form", { class: "row monitor-heal", novalidate: true },
      ...this.input(key("heal-physical"), d100 ? `Hit points to heal (${id})` : `Physical boxes to heal (${id})`, "", number),
      ...(d100 ? [] : this.input(key("heal-stun"), `Stun boxes to heal (${id})`, "", number)),
      el("button", { type: "submit", id: key("heal"), text: `Heal ${id}` }));
    heal.addEventListener("submit", (event) => {
      event.preventDefault();
      const boxes = {};
      for (const track of ["physical", "stun"]) {
        const field = heal.querySelector(`#${CSS.escape(key(`heal-${track}`))}`);
        if (field?.value.trim()) boxes[track] = Number(field.value);
      }
      if (!Object.values(boxes).some((n) => n > 0)) {
        this.onError(`${id} not healed: type the boxes to heal.`, heal.querySelector("input"));
        return;
      }
      this.edit(id, heal, { heal: boxes }, ["heal-physical", "heal-stun"]);
    });

    const setFields = d100
      ? [...this.input(key("set-physical"), `Hit points lost by ${id}`, monitor.physical || 0, number),
        ...this.input(key("set-wounds"), `Wounds of ${id} (location points, …)`, woundsText(monitor.wounds), { type: "text", inputmode: "text", spellcheck: "false" })]
      : [...this.input(key("set-physical"), `Physical boxes of ${id}`, monitor.physical || 0, number),
        ...this.input(key("set-stun"), `Stun boxes of ${id}`, monitor.stun || 0, number),
        ...this.input(key("set-overflow"), `Overflow boxes of ${id}`, monitor.overflow || 0, number)];
    const set = el("form", { class: "row monitor-set", novalidate: true }, ...setFields, el("button", { type: "submit", id: key("set"), text: `Set ${id}'s monitor` }));
    set.addEventListener("submit", (event) => {
      event.preventDefault();
      const body = {};
      for (const track of ["physical", "stun", "overflow"]) {
        const field = set.querySelector(`#${CSS.escape(key(`set-${track}`))}`);
        if (!field) continue;
        const value = Number(field.value);
        if (!field.value.trim() || !Number.isInteger(value) || value < 0 || value > BOX_LIMIT) {
          this.onError(`${id}'s monitor not set: ${field.labels[0].textContent} is a whole number from 0 to ${BOX_LIMIT}.`, field);
          return;
        }
        body[track] = value;
      }
      const wounds = set.querySelector(`#${CSS.escape(key("set-wounds"))}`);
      if (wounds) {
        try {
          body.wounds = parseWounds(wounds.value);
        } catch (problem) {
          this.onError(`${id}'s monitor not set: ${problem.message}.`, wounds);
          return;
        }
      }
      this.edit(id, set, { set: body }, ["set-physical", "set-stun", "set-overflow", "set-wounds"]);
    });

    const clear = el("button", { type: "button", id: key("clear"), text: `Clear ${id}'s monitor` });
    clear.addEventListener("click", () => this.edit(id, clear, { clear: true }, []));
    const reason = this.input(key("reason"), `Reason for the edit (${id}, optional)`, "", { type: "text", inputmode: "text", maxlength: 200 });
    details.append(heal, set, el("div", { class: "row monitor-clear" }, clear), el("div", { class: "row" }, ...reason));
    return details;
  }

  // One edit, on the version as read; what was typed in its form is forgotten once written.
  async edit(id, control, change, fields) {
    const session = this.session();
    if (!session) return;
    const reason = this.typed.get(fieldId(id, "reason"))?.trim();
    // The roster's redraws keep the focus on the control by its id (each has one).
    const body = { ...change, ...(reason ? { reason } : {}), ...(session.version ? { version: session.version } : {}) };
    const written = await this.send(control.querySelector?.("button[type=submit]") || control,
      () => api.editMonitor(session.id, session.token, id, body), `${id}'s monitor not changed`);
    if (written) for (const name of [...fields, "reason"]) this.typed.delete(fieldId(id, name));
  }
}

const woundsText = (wounds = {}) => Object.entries(wounds).filter(([, n]) => n > 0).map(([where, n]) => `${where} ${n}`).join(", ");

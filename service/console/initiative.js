// The initiative the service runs (GET .../initiative): the order with each actor's score and
// whether it has acted or holds, the combat turn and pass, whose phase it is and what that actor
// has left of it. The GM rolls it (the scene's sheets fill the numbers; a score typed per actor
// is used as rolled at the table), moves to the next phase, holds the acting actor's action,
// lets a holder step in, starts a new combat turn and stops. Every console follows it from the
// encounter's events.

import * as api from "./api.js";
import { FieldError } from "./fields.js";
import { diceSection, el, facts } from "./results.js";
import { showProblem } from "./round.js";

// The events after which the order, the scores or what the acting actor has left may differ (a
// monitor edit may put an actor out of the fight, or back in; an undo may take back any change).
export const INITIATIVE_EVENTS = new Set(["initiative", "advance", "action", "attack", "zone_test", "state_edited", "monitor", "undo"]);

const words = (text) => String(text).replaceAll("_", " ");
const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

// "1 free, 1 complex" or "1 free, 2 simple": what the service says is left, in a sentence.
export function leftText(view) {
  if (!view?.current) return "";
  const left = view.actions_left || [];
  return left.length
    ? `${view.current} has ${left.join(" or ")} left in this phase.`
    : `${view.current} has nothing left in this phase: move to the next.`;
}

export function nowText(view) {
  if (!view) return "The service runs no initiative: roll it below, or advance the turn by hand.";
  // The service counts the next combat turn as soon as one is over.
  if (view.over || !view.current) {
    return `Combat turn ${view.combat_turn - 1} is over: roll initiative for combat turn ${view.combat_turn}.`;
  }
  return `Combat turn ${view.combat_turn}, initiative pass ${view.initiative_pass}: ${view.current}'s phase.`;
}

// What the sheet gives the roll, in the words of a character sheet ("Reaction 5 + Intuition 4 +
// 2d6"); `base` is what the ruleset adds up before the dice, as GET /v1/rulesets says, and its
// `dice` and `passes` how: "hits" adds the hits of as many dice as the base (SR4), "count" acts
// in the sheet's Initiative Passes.
export function sheetText(base, sheet, { dice: kind = "sum", passes = "score" } = {}) {
  const values = base.map((name) => [name, sheet?.[name]]);
  const missing = values.filter(([, value]) => value === undefined || value === null).map(([name]) => name);
  if (missing.length) return `no ${missing.join(" or ")} on its sheet: type a score`;
  const terms = values.map(([name, value]) => `${capital(name)} ${value}`).join(" + ");
  if (kind === "hits") {
    const count = sheet?.initiative_passes || 1;
    const pool = values.reduce((sum, [, value]) => sum + value, 0);
    return `${terms} + hits on ${pool}d6${passes === "count" ? `, ${count} ${count === 1 ? "pass" : "passes"}` : ""}`;
  }
  const dice = sheet?.initiative_dice || 1;
  return `${terms} + ${dice}d6`;
}

export class InitiativePanel {
  // `session()`: the encounter joined; `actors()`: the scene's actors (id -> actor);
  // `onAnswer(answer)`: the service's answer to this panel's request, shown as the round's are;
  // `onChange(view)`: the order changed (the roster and the map mark who acts);
  // `onForbidden()`: the service refused the token (403), a player's after all.
  constructor({ panel, session, actors, onAnswer, onChange, onForbidden }) {
    this.panel = panel;
    this.session = session;
    this.actors = actors;
    this.onAnswer = onAnswer;
    this.onChange = onChange;
    this.onForbidden = onForbidden;
    this.now = panel.querySelector("#initiative-now");
    this.left = panel.querySelector("#initiative-left");
    this.order = panel.querySelector("#initiative-order");
    this.gm = panel.querySelector("#initiative-gm");
    this.form = panel.querySelector("#initiative-form");
    this.rows = panel.querySelector("#initiative-rows");
    this.alert = panel.querySelector("#initiative-error");
    this.buttons = {
      next: panel.querySelector("#initiative-next"),
      hold: panel.querySelector("#initiative-hold"),
      again: panel.querySelector("#initiative-again"),
      stop: panel.querySelector("#initiative-stop"),
      roll: panel.querySelector("#initiative-roll"),
    };
    this.ruleset = null;
    this.view = null;
    this.busy = false;
    // Only the newest read is shown: answers to two reads may come back in either order.
    this.reads = 0;
    this.buttons.next.addEventListener("click", () => this.run(this.buttons.next, () => ({ to: "action_phase" }), (id, token, body) => api.advance(id, token, body)));
    this.buttons.hold.addEventListener("click", () => this.run(this.buttons.hold, () => this.holdBody(), (id, token, body) => api.takeAction(id, token, body)));
    this.buttons.again.addEventListener("click", () => this.run(this.buttons.again, () => ({}), (id, token, body) => api.startInitiative(id, token, body)));
    this.buttons.stop.addEventListener("click", () => this.run(this.buttons.stop, () => null, (id, token) => api.stopInitiative(id, token)));
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.run(this.buttons.roll, () => this.rollBody(), (id, token, body) => api.startInitiative(id, token, body));
    });
  }

  get isGm() {
    return this.session()?.role !== "player";
  }

  // Only a ruleset with initiative passes has an initiative for the service to run: the
  // service's ruleset list says so (`info.initiative`), and what a roll reads.
  setRuleset(id, info) {
    this.ruleset = info?.initiative ? { id, ...info.initiative } : null;
    this.view = null;
    this.alert.hidden = true;
    this.panel.hidden = !this.ruleset;
    this.render();
  }

  setRole() {
    this.gm.hidden = !this.isGm;
    this.render();
  }

  // The GM's roll form: one row per scene actor, kept as typed when the scene changes.
  refreshActors() {
    const typed = new Map([...this.rows.querySelectorAll("tr[data-actor]")].map((row) => [row.dataset.actor, {
      in: row.querySelector("input[type=checkbox]").checked,
      score: row.querySelector("input[type=number]").value,
    }]));
    const rows = [];
    for (const [id, actor] of this.actors()) {
      const n = rows.length;
      const taking = el("input", { type: "checkbox", id: `initiative-in-${n}`, checked: true });
      const score = el("input", {
        type: "number", id: `initiative-score-${n}`, min: -1000, max: 1000, step: 1, inputmode: "numeric",
        placeholder: "sheet", "aria-label": `${id}: score rolled at the table (optional)`,
      });
      const before = typed.get(id);
      if (before) {
        taking.checked = before.in;
        score.value = before.score;
      }
      rows.push(el("tr", { dataActor: id },
        el("td", {}, taking, " ", el("label", { for: taking.id, text: actor.name ? `${actor.name} (${id})` : id })),
        el("td", { class: "sheet", text: sheetText(this.ruleset?.base || [], actor.sheet, this.ruleset || {}) }),
        el("td", {}, score)));
    }
    if (!rows.length) rows.push(el("tr", { class: "empty" }, el("td", { colspan: 3, text: "Nobody on the scene yet." })));
    // The GM may be typing a score as the scene changes (a player moves a token): the field of
    // the same actor keeps the focus, so the next keys go on into it, not into a row now gone.
    const focused = this.rows.contains(document.activeElement) ? document.activeElement : null;
    const focusedActor = focused?.closest("tr[data-actor]")?.dataset.actor;
    this.rows.replaceChildren(...rows);
    if (focusedActor !== undefined) {
      const row = [...this.rows.querySelectorAll("tr[data-actor]")].find((r) => r.dataset.actor === focusedActor);
      row?.querySelector(`input[type=${focused.type}]`)?.focus();
    }
  }

  // The request to start a combat turn: the actors ticked, each with its typed score or none
  // (the service fills the rest from its sheet). `inputs[i]` is the input of `actors[i]`.
  rollBody() {
    const actors = [];
    this.inputs = [];
    for (const row of this.rows.querySelectorAll("tr[data-actor]")) {
      if (!row.querySelector("input[type=checkbox]").checked) continue;
      const input = row.querySelector("input[type=number]");
      input.removeAttribute("aria-invalid");
      const raw = input.value.trim();
      const roll = { actor: row.dataset.actor };
      if (raw !== "") {
        if (!input.checkValidity() || !Number.isInteger(Number(raw))) {
          throw new FieldError(input, `${row.dataset.actor}'s score: a whole number from -1000 to 1000`);
        }
        roll.score = Number(raw);
      }
      actors.push(roll);
      this.inputs.push(input);
    }
    if (!actors.length) throw new FieldError(this.rows.querySelector("input"), "Tick at least one actor of the scene for the combat turn.");
    return { actors };
  }

  holdBody() {
    const actor = this.view?.current;
    if (!actor) throw new FieldError(null, "Nobody is acting: there is no action to hold.");
    return { ruleset: this.ruleset.id, actor, action: "delay_action" };
  }

  // The row input a problem's path names ($.actors[1].intuition: the second actor sent).
  inputFor(path) {
    const match = /^\$\.actors\[(\d+)\]/.exec(path || "");
    return match ? this.inputs?.[Number(match[1])] || null : null;
  }

  // One request from the panel: the button busy, the answer shown, a refusal in the alert.
  async run(button, build, post) {
    this.alert.hidden = true;
    let body;
    try {
      body = build();
    } catch (problem) {
      if (!(problem instanceof FieldError)) throw problem;
      showProblem(this.alert, problem.message, problem.input);
      return null;
    }
    const { id, token } = this.session();
    this.busy = true;
    button.disabled = true;
    this.panel.setAttribute("aria-busy", "true");
    try {
      const answer = await post(id, token, body);
      this.onAnswer(answer);
      await this.refresh();
      return answer;
    } catch (problem) {
      if (!(problem instanceof api.ApiError)) throw problem;
      showProblem(this.alert, `Refused: ${problem.describe()}`, this.inputFor(problem.problem?.path));
      if (problem.status === 403) this.onForbidden?.();
      return problem;
    } finally {
      this.busy = false;
      this.panel.removeAttribute("aria-busy");
      this.render();
    }
  }

  // Reads the order again (after an event, or this panel's own request). `event`: the event
  // that asks; `turn`: the encounter's turn as read on joining. The service answers 404 while
  // it runs no initiative, so the page asks only when one may run: the turn holds one, one ran
  // before, or an event may have started one (an initiative change, an undo, the GM's edit);
  // a stop needs no asking.
  async refresh({ event = null, turn = undefined } = {}) {
    const session = this.session();
    if (!this.ruleset || !session) return;
    const starts = !event || ["initiative", "undo", "state_edited"].includes(event.type);
    const stopped = event?.type === "initiative" && event.result?.change === "stopped";
    const idle = turn !== undefined ? !turn?.initiative : !this.view && !starts;
    if (stopped || idle) {
      this.reads += 1;
      this.view = null;
      this.render();
      return;
    }
    const read = ++this.reads;
    try {
      const view = await api.getInitiative(session.id, session.token);
      if (read !== this.reads || this.session() !== session) return;
      this.view = view;
      this.render();
    } catch (error) {
      if (read !== this.reads) return;
      this.now.textContent = `The initiative could not be read: ${error.describe?.() || error.message}`;
    }
  }

  render() {
    const view = this.view;
    const running = Boolean(view && !view.over && view.current);
    const panel = this.panel;
    panel.dataset.running = String(Boolean(view));
    panel.dataset.current = view?.current || "";
    panel.dataset.combatTurn = view ? String(view.combat_turn) : "";
    panel.dataset.pass = view ? String(view.initiative_pass) : "";
    this.now.textContent = nowText(view);
    const left = leftText(view);
    this.left.textContent = left;
    this.left.hidden = !left;
    const items = (view?.entries || []).map((entry) => this.entryItem(entry, view));
    if (!items.length) items.push(el("li", { class: "empty", text: view ? "Nobody in this combat turn." : "No order yet." }));
    const focused = this.order.contains(document.activeElement) ? document.activeElement.getAttribute("aria-label") : null;
    this.order.replaceChildren(...items);
    if (focused) this.order.querySelector(`[aria-label="${CSS.escape(focused)}"]`)?.focus();
    const idle = !this.busy;
    // Nothing to move on, hold, roll again or stop while none runs: only the roll is offered.
    this.buttons.next.parentElement.hidden = !view;
    this.buttons.next.disabled = !(idle && running);
    this.buttons.hold.disabled = !(idle && running);
    this.buttons.hold.textContent = running ? `Hold ${view.current}'s action` : "Hold the action";
    this.buttons.again.disabled = !(idle && view);
    this.buttons.stop.disabled = !(idle && view);
    this.buttons.roll.disabled = !idle;
    this.onChange?.(view);
  }

  entryItem(entry, view) {
    const acting = entry.actor === view.current;
    const classes = [acting && "current", entry.acted && "acted", entry.holding && "holding", entry.score <= 0 && "out"].filter(Boolean);
    const state = acting ? "acting now" : entry.holding ? "holds its action" : entry.acted ? "has acted" : entry.score <= 0 ? "no phase this pass" : "";
    const item = el("li", {
      dataActor: entry.actor, dataScore: entry.score, class: classes.join(" ") || undefined,
      "aria-current": acting ? "true" : undefined,
    },
    el("strong", { text: entry.actor }), " ",
    el("span", { class: "score", dataField: "score", text: String(entry.score) }),
    state ? el("span", { class: "badge", dataField: "state", text: state }) : null);
    if (this.isGm && entry.holding && !view.over) {
      const step = el("button", { type: "button", class: "step-in", "aria-label": `Step in: ${entry.actor}`, text: "Step in" });
      step.disabled = this.busy;
      step.addEventListener("click", () => this.run(step, () => ({ to: "action_phase", actor: entry.actor }), (id, token, body) => api.advance(id, token, body)));
      item.append(" ", step);
    }
    return item;
  }
}

// An initiative event's result: what changed, the order after it and who acts.
export function renderInitiative(result) {
  const article = el("article", { class: "result initiative", dataKind: result.kind, dataChange: result.change },
    el("h3", { text: `Initiative: ${words(result.change)}${result.actors?.length ? ` (${result.actors.join(", ")})` : ""}` }),
    facts([["Acting now", result.current || "—", "current"]], "facts headline"));
  if (result.entries?.length) {
    article.append(el("ol", { class: "initiative-order", dataField: "entries" },
      result.entries.map((entry) => el("li", { dataActor: entry.actor },
        el("strong", { text: entry.actor }), " ", el("span", { class: "score", dataField: "score", text: String(entry.score) })))));
  }
  article.append(el("h4", { text: "Effects" }),
    result.effects?.length
      ? el("ul", { class: "effects", dataField: "effects" }, result.effects.map((effect) => el("li", { text: effect })))
      : el("p", { class: "empty", dataField: "effects", text: "No effects." }));
  if (result.dice?.length) article.append(diceSection(result.dice));
  return article;
}

// The rest of the round: the GM's turn controls (advance), the ruleset's actions, and the zone
// tests of the live zones. Each form posts to the service and hands its answer to `onAnswer`;
// a refusal is shown in the form's alert, at the field its problem's `path` names.

import * as api from "./api.js";
import { attachWalk } from "./dice-entry.js";
import { buildField, diceInputs, FieldError, readDice, readFields } from "./fields.js";
import { OddsPanel } from "./odds.js";
import { diceSection, el, facts } from "./results.js";

const words = (text) => String(text).replaceAll("_", " ");

// The map's actors, without the suppressive fire aim point.
export const actorIds = (map) => [...map.actors.values()].filter((a) => a.role !== "aim").map((a) => a.id);

// Fills a select with the map's actors, keeping the choice when that actor is still there.
export function fillActorSelect(select, ids, { none } = {}) {
  const keep = select.value;
  const options = ids.map((id) => new Option(id, id));
  if (none) options.unshift(new Option(none, ""));
  select.replaceChildren(...options);
  if ([...select.options].some((option) => option.value === keep)) select.value = keep;
}

// Fields from ruleset specs; `type: "actor"` is a select of the map's actors.
function buildSpecs(container, specs, prefix) {
  for (const spec of specs) {
    const built = spec.type === "actor"
      ? buildField({ ...spec, type: "select", options: [["", spec.none || "—"]] }, prefix)
      : buildField(spec, prefix);
    if (spec.type === "actor") built.dataset.actors = spec.none || "";
    container.appendChild(built);
  }
}

const readableSpecs = (specs) => specs.map((spec) => (spec.type === "actor" ? { ...spec, type: "select" } : spec));

// The input a problem's JSON path points at, under `form`: given dice by their step, else the
// field of that key (`$.weapon.rounds` -> #<prefix>-weapon-rounds), else the actor.
export function inputForPath(form, prefix, path, actorSelect) {
  if (!path) return null;
  const dice = /^\$\.dice\["([^"]+)"\]/.exec(path);
  if (dice) return form.querySelector(`input[data-step="${CSS.escape(dice[1])}"]`);
  const parts = path.replace(/^\$\.?/, "").replace(/\[\d+\]/g, "").split(".").filter(Boolean);
  for (let n = parts.length; n > 0; n -= 1) {
    const input = form.querySelector(`#${CSS.escape(`${prefix}-${parts.slice(0, n).join("-")}`)}`);
    if (input && !input.closest("[hidden]")) return input;
  }
  return actorSelect;
}

export function showProblem(alert, message, input) {
  alert.textContent = message;
  alert.hidden = false;
  if (input) {
    input.setAttribute("aria-invalid", "true");
    input.closest("details")?.setAttribute("open", "");
    input.focus();
  }
}

// Runs one request with the form busy and its button disabled; refusals land in `alert`.
async function send({ form, button, alert, prefix, actorSelect }, build, post, onAnswer) {
  alert.hidden = true;
  for (const marked of form.querySelectorAll("[aria-invalid]")) marked.removeAttribute("aria-invalid");
  let body;
  try {
    body = build();
  } catch (problem) {
    if (!(problem instanceof FieldError)) throw problem;
    showProblem(alert, problem.message, problem.input);
    return null;
  }
  button.disabled = true;
  form.setAttribute("aria-busy", "true");
  try {
    const answer = await post(body);
    onAnswer(answer);
    return answer;
  } catch (problem) {
    showProblem(alert, `Refused: ${problem.describe?.() || problem.message}`,
      inputForPath(form, prefix, problem.problem?.path, actorSelect));
    return problem;
  } finally {
    button.disabled = false;
    form.removeAttribute("aria-busy");
  }
}

// --- turns (GM) ---------------------------------------------------------------------------

export class TurnControls {
  constructor({ panel, map, session, onAnswer, onForbidden }) {
    this.panel = panel;
    this.map = map;
    this.session = session;
    this.onAnswer = onAnswer;
    this.onForbidden = onForbidden;
    this.form = panel.querySelector("#phase-form");
    this.alert = panel.querySelector("#turn-error");
    this.actor = panel.querySelector("#phase-actor");
    this.passButton = panel.querySelector("#advance-initiative-pass");
    panel.querySelector("#advance-combat-turn").addEventListener("click", (event) =>
      this.advance({ to: "combat_turn" }, event.currentTarget));
    this.passButton.addEventListener("click", (event) => this.advance({ to: "initiative_pass" }, event.currentTarget));
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.advance({ to: "action_phase", actor: this.actor.value }, panel.querySelector("#advance-action-phase"));
    });
  }

  setRuleset(ruleset) {
    this.passButton.hidden = !ruleset?.hasPasses;
    this.alert.hidden = true;
  }

  refreshActors(ids) {
    fillActorSelect(this.actor, ids);
  }

  async advance(body, button) {
    const { id, token } = this.session();
    const answer = await send(
      { form: this.panel, button, alert: this.alert, prefix: "phase", actorSelect: this.actor },
      () => {
        if (body.to === "action_phase" && !body.actor) throw new FieldError(this.actor, "Put an actor on the map first.");
        return body;
      },
      (sent) => api.advance(id, token, sent),
      this.onAnswer,
    );
    if (answer instanceof api.ApiError && answer.status === 403) this.onForbidden(answer);
  }
}

// --- actions ------------------------------------------------------------------------------

export class ActionForm {
  constructor({ form, map, session, onAnswer }) {
    this.form = form;
    this.map = map;
    this.session = session;
    this.onAnswer = onAnswer;
    this.actor = form.querySelector("#action-actor");
    this.action = form.querySelector("#action-name");
    this.fields = form.querySelector("#action-fields");
    this.help = form.querySelector("#action-help");
    this.alert = form.querySelector("#action-error");
    this.button = form.querySelector("#take-action");
    this.ruleset = null;
    // "Roll at the table" for an action that rolls (a Second Chance, a recovery...).
    attachWalk({ form, kind: "action", id: "action-walk", label: "Roll the action at the table", read: () => this.read(), session, onAnswer,
      post: (body) => api.takeAction(session().id, session().token, body) });
    this.action.addEventListener("change", () => this.showFields());
    this.fields.addEventListener("change", () => this.applyConditions());
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.submit();
    });
  }

  setRuleset(ruleset, info) {
    this.ruleset = ruleset;
    const names = info?.actions || Object.keys(ruleset.actions || {});
    this.action.replaceChildren(...names.map((name) => new Option(words(name), name)));
    this.alert.hidden = true;
    this.showFields();
  }

  get specs() {
    return this.ruleset?.actions?.[this.action.value] || [];
  }

  // Only the fields the chosen action takes: the service refuses the others.
  showFields() {
    this.fields.replaceChildren();
    buildSpecs(this.fields, this.specs, "action");
    const help = this.ruleset?.actionHelp?.[this.action.value] || "";
    this.help.textContent = help;
    this.help.hidden = !help;
    this.refreshActors(actorIds(this.map));
    this.applyConditions();
  }

  applyConditions() {
    const values = {};
    for (const input of this.fields.querySelectorAll("input, select")) {
      values[input.name] = input.type === "checkbox" ? input.checked : input.value;
    }
    for (const spec of this.specs) {
      if (!spec.when) continue;
      const wrapper = this.fields.querySelector(`.field[data-key="${CSS.escape(spec.key)}"]`);
      if (wrapper) wrapper.hidden = !spec.when(values);
    }
  }

  refreshActors(ids) {
    fillActorSelect(this.actor, ids);
    for (const wrapper of this.fields.querySelectorAll(".field[data-actors]")) {
      fillActorSelect(wrapper.querySelector("select"), ids, { none: wrapper.dataset.actors || "—" });
    }
  }

  read() {
    const actor = this.actor.value;
    if (!actor) throw new FieldError(this.actor, "Actor: put one on the map first");
    const fields = readFields(this.fields, readableSpecs(this.specs), "action");
    return this.ruleset.actionRequest({ actor, action: this.action.value, fields, position: this.map.position(actor) });
  }

  submit() {
    const { id, token } = this.session();
    return send(
      { form: this.form, button: this.button, alert: this.alert, prefix: "action", actorSelect: this.actor },
      () => this.read(),
      (body) => api.takeAction(id, token, body),
      this.onAnswer,
    );
  }
}

// --- zone tests ---------------------------------------------------------------------------

export class ZoneTestForm {
  constructor({ form, map, session, attackForm, onAnswer }) {
    this.form = form;
    this.map = map;
    this.session = session;
    this.attackForm = attackForm;
    this.onAnswer = onAnswer;
    this.zoneName = form.querySelector("#zone-test-zone");
    this.heading = form.querySelector("#zone-test-heading");
    this.actor = form.querySelector("#zone-test-actor");
    this.fields = form.querySelector("#zone-test-fields");
    this.dice = form.querySelector("#zone-test-dice");
    this.alert = form.querySelector("#zone-test-error");
    this.button = form.querySelector("#zone-test-submit");
    this.zone = null;
    this.zoneState = null;
    this.ruleset = null;
    // The zone test's odds, live as the actor and the fields change (nothing rolled).
    this.odds = new OddsPanel({
      panel: form.querySelector("#zone-test-odds"),
      read: () => this.read({ preview: true }),
      ask: (body) => {
        const { id, token } = this.session();
        return api.zoneTestOdds(id, token, this.zone.id, body);
      },
    });
    // "Roll at the table": the test's dice walked through step by step (another zone opened
    // or this one closed ends the walk).
    this.walk = attachWalk({ form, kind: "zone_test", id: "zone-test-walk", label: "Roll the test at the table", read: () => this.read(), session, onAnswer,
      zone: () => this.zone?.id, post: (body) => api.testZone(session().id, session().token, this.zone.id, body) });
    this.actor.addEventListener("change", () => {
      this.copyFromAttackForm();
      this.refreshDice();
      this.odds.schedule();
    });
    this.fields.addEventListener("change", () => {
      this.refreshDice();
      this.odds.schedule();
    });
    this.fields.addEventListener("input", () => this.odds.schedule());
    form.querySelector("#zone-test-close").addEventListener("click", () => this.close());
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.submit();
    });
  }

  setRuleset(ruleset) {
    this.ruleset = ruleset;
    this.fields.replaceChildren();
    if (ruleset?.zoneTest) buildSpecs(this.fields, ruleset.zoneTest, "zt");
    this.close();
  }

  // Opens the form for one live zone, on `actor` (one a move put in it) or the first actor
  // standing inside it.
  async open(zone, actor = null) {
    if (!this.ruleset?.zoneTest) return;
    if (this.zone?.id !== zone.id) this.walk.close();
    this.zone = zone;
    this.zoneName.textContent = zone.id;
    this.alert.hidden = true;
    this.form.hidden = false;
    this.refreshActors(actorIds(this.map));
    const inside = this.map.whoIsInside(zone);
    const first = (actor && actorIds(this.map).includes(actor) ? actor : null)
      || inside[0] || actorIds(this.map).find((id) => id !== zone.shooter);
    if (first) this.actor.value = first;
    this.copyFromAttackForm();
    this.zoneState = null;
    this.refreshDice();
    this.odds.schedule();
    this.actor.focus();
    // What the zone's weapon rolls on a hit (its bonus dice) is in the encounter's state.
    try {
      const { id, token } = this.session();
      const view = await api.getEncounter(id, token);
      if (this.zone === zone) {
        this.zoneState = view.combat?.zones?.[zone.id] || null;
        this.refreshDice();
      }
    } catch {
      // The dice inputs stay as they are: the service still checks them.
    }
  }

  close() {
    this.walk?.close();
    this.form.hidden = true;
    this.zone = null;
    this.odds.stop();
  }

  // The encounter changed (an attack, a move, the turn): what the odds read may have too.
  refreshOdds() {
    if (this.zone) this.odds.schedule();
  }

  // A zone that ended (or every zone, when the encounter changes) closes its form.
  zonesChanged(zones) {
    if (this.zone && !zones.has(this.zone.id)) this.close();
  }

  refreshActors(ids) {
    fillActorSelect(this.actor, ids);
  }

  // The defender's numbers as the attack form has them for that actor, when it is a target.
  copyFromAttackForm() {
    const target = this.attackForm.targets.find((t) => t.id === this.actor.value);
    if (!target) return;
    for (const spec of this.ruleset?.zoneTest || []) {
      const key = spec.key.replaceAll(".", "-");
      const from = target.fieldset.querySelector(`#${CSS.escape(`${target.prefix}-${key}`)}`);
      const to = this.fields.querySelector(`#zt-${CSS.escape(key)}`);
      if (from && to && from.type !== "checkbox") to.value = from.value;
    }
  }

  safeFields() {
    try {
      return readFields(this.fields, this.ruleset.zoneTest, "zt");
    } catch {
      return {};
    }
  }

  refreshDice() {
    if (!this.ruleset || !this.actor.value) {
      this.dice.replaceChildren();
      return;
    }
    const remembered = new Map([...this.dice.querySelectorAll("input")].map((input) => [input.dataset.step, input.value]));
    const steps = this.ruleset.zoneTestSteps({ actor: this.actor.value, fields: this.safeFields(), zone: this.zoneState });
    this.dice.replaceChildren(...diceInputs(steps, "zone-test-dice", remembered));
  }

  // `preview`: for the odds, without the given dice and marking no field.
  read({ preview = false } = {}) {
    const actor = this.actor.value;
    if (!actor) throw new FieldError(this.actor, "Actor tested: put one on the map first");
    const fields = readFields(this.fields, this.ruleset.zoneTest, "zt", { quiet: preview });
    const body = this.ruleset.zoneTestRequest({
      actor, fields, position: this.map.position(actor), zone: this.zone,
      // Where the zone's shooter stands now (Hard Life's Table 9 range, from the shooter).
      shooterAt: this.zone ? this.map.position(this.zone.shooter) : null,
    });
    if (preview) return body;
    const dice = readDice(this.dice);
    if (Object.keys(dice).length) body.dice = dice;
    return body;
  }

  submit() {
    const { id, token } = this.session();
    const zone = this.zone.id;
    return send(
      { form: this.form, button: this.button, alert: this.alert, prefix: "zt", actorSelect: this.actor },
      () => this.read(),
      (body) => api.testZone(id, token, zone, body),
      this.onAnswer,
    );
  }
}

// --- results ------------------------------------------------------------------------------

export function turnText(turn, { passes = true } = {}) {
  if (!turn) return "";
  const pass = passes ? `, initiative pass ${turn.initiative_pass}` : "";
  const phase = turn.action_phase ? `, ${turn.action_phase}'s action phase` : "";
  return `combat turn ${turn.combat_turn}${pass}${phase}`;
}

function effectsList(effects) {
  if (!effects?.length) return el("p", { class: "empty", dataField: "effects", text: "No effects." });
  return el("ul", { class: "effects", dataField: "effects" }, effects.map((effect) => el("li", { text: effect })));
}

export function renderAdvance(result) {
  const to = result.to === "action_phase" ? `${result.turn.action_phase}'s action phase` : `the next ${words(result.to)}`;
  return el("article", { class: "result advance", dataKind: result.kind },
    el("h3", { text: `Advance to ${to}` }),
    facts([
      ["Combat turn", result.turn.combat_turn, "combat_turn"],
      ["Initiative pass", result.turn.initiative_pass, "initiative_pass"],
      ["Action phase of", result.turn.action_phase || "—", "action_phase"],
    ], "facts headline"),
    el("h4", { text: "Effects" }),
    effectsList(result.effects));
}

// `renderAttack`: how the ruleset shows an attack an action re-resolved (Second Chance).
export function renderAction(result, renderAttack) {
  const article = el("article", { class: "result action", dataKind: result.kind, dataAction: result.action },
    el("h3", { text: `${result.actor}: ${words(result.action)}` }),
    facts([
      ["Action points", result.action_points, "action_points"],
      ["Action points spent this turn", result.action_points_spent, "action_points_spent"],
      ["Rounds loaded", result.rounds_loaded, "rounds_loaded"],
      ["Ammo left", result.ammo_left, "ammo_left"],
      ["Edge spent", result.edge_spent || null, "edge_spent"],
    ], "facts headline"),
    el("h4", { text: "Effects" }),
    effectsList(result.effects));
  if (result.attack) {
    article.append(el("h4", { text: "The attack, resolved again" }), renderAttack(result.attack));
  } else if (result.dice?.length) {
    article.appendChild(diceSection(result.dice));
  }
  return article;
}

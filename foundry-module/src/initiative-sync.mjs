// "firefight runs initiative" (a world setting): the service keeps the combat turn's order, its
// passes and whose phase it is, and Foundry's combat tracker follows it. Foundry's own initiative
// rolls go to the service as scores (POST .../initiative, .../initiative/actors); the service's
// scores and acting actor come back as the combatants' initiative and the combat's turn. Which
// requests and which tracker updates that means is decided here, from plain data; the GM's client
// sends them (src/tracker-initiative.mjs).

export const MODULE_ID = "firefight";

// The events after which the service's order, its scores or its acting actor may have changed
// (an action holds a phase or takes an interrupt off a score).
export const INITIATIVE_EVENTS = new Set(["initiative", "advance", "action"]);

/** The options the module's own tracker updates carry, so that they are not sent back. */
export function fromServiceOptions() {
  return { [MODULE_ID]: { fromService: true } };
}

/** Whether a Document update (its hook's `options`) is one the module made to follow the service. */
export function isFromService(options) {
  return options?.[MODULE_ID]?.fromService === true;
}

/**
 * A Foundry initiative as the service's score: a whole number from -1000 to 1000 (Foundry keeps
 * any number: some systems add decimals to break ties). null for a combatant not rolled yet.
 */
export function serviceScore(value) {
  if (value === null || value === undefined || value === "") return null;
  const n = Number(value);
  if (!Number.isFinite(n)) return null;
  return Math.max(-1000, Math.min(1000, Math.round(n)));
}

/**
 * Each actor's score from the combat's combatants (`idOf` maps a combatant to its encounter
 * actor id, as the rest of the module does, null for one that stands for nobody: a padding
 * combatant); an actor with two combatants counts its first.
 */
export function trackerScores(combatants, idOf) {
  const scores = new Map();
  for (const combatant of combatants ?? []) {
    const score = serviceScore(combatant.initiative);
    if (score === null) continue;
    const actor = idOf(combatant);
    if (actor !== null && !scores.has(actor)) scores.set(actor, score);
  }
  return scores;
}

/**
 * What this client knows of the service's order, as the combat's flags keep it: the service's
 * combat turn, the Foundry round it began in, whether it is over, who acts and every score
 * (an array: Foundry merges objects on update, and an actor who left must go). null when the
 * service runs no initiative.
 */
export function knownOrder({ combatTurn, initiative }, previous, round) {
  if (!initiative) return null;
  return {
    combatTurn,
    round: previous && previous.combatTurn === combatTurn ? previous.round : round,
    over: Boolean(initiative.over),
    current: initiative.over ? null : initiative.current ?? null,
    entries: (initiative.entries ?? []).map((e) => ({ actor: e.actor, score: e.score })),
  };
}

/** The known order from `GET .../initiative` (null: the service runs none). */
export function knownFromView(view, previous, round) {
  return view ? knownOrder({ combatTurn: view.combat_turn, initiative: view }, previous, round) : null;
}

/** The known order from a change's answer (`changes.turn`, a TurnState). */
export function knownFromTurn(turn, previous, round) {
  return turn ? knownOrder({ combatTurn: turn.combat_turn, initiative: turn.initiative ?? null }, previous, round) : previous;
}

/**
 * The requests that give the service the tracker's scores after the GM (or a player) rolled or
 * changed initiative in Foundry. No order yet, or the last one over, or a Foundry round since
 * it began: a new combat turn with every score. Otherwise those not in the order join it, and
 * one whose score changed leaves and joins again with it.
 */
export function pushRequests(known, scores, round) {
  if (!scores.size || round < 1) return [];
  const roll = ([actor, score]) => ({ actor, score });
  if (!known || known.over || known.round !== round) {
    return [{ kind: "start", body: { actors: [...scores].map(roll) } }];
  }
  const there = new Map(known.entries.map((e) => [e.actor, e.score]));
  const changed = [...scores].filter(([actor, score]) => there.has(actor) && there.get(actor) !== score);
  const joining = [...scores].filter(([actor]) => !there.has(actor));
  const requests = changed.map(([actor]) => ({ kind: "leave", actor }));
  if (changed.length || joining.length) requests.push({ kind: "join", body: { actors: [...changed, ...joining].map(roll) } });
  return requests;
}

/**
 * The advances a tracker move by the GM means while the service runs the initiative: a new
 * round ends the service's combat turn (unless it is over already: the next begins with the
 * rolls); another combatant's turn asks for that actor's phase, which the service grants when it
 * is next or holds its action. The service's own passes and phases are not sent back.
 */
export function advancesWhileRunning(previous, current, known) {
  if (!current || current.round < 1) return [];
  if (previous && current.round > previous.round) return known.over ? [] : [{ to: "combat_turn" }];
  if (current.actor && !known.over && current.actor !== known.current) return [{ to: "action_phase", actor: current.actor }];
  return [];
}

/**
 * What the tracker needs to show the service's order: the combatants whose initiative is not the
 * service's score, and the combatant whose turn it is (null once the combat turn is over).
 */
export function trackerUpdates(combatants, known, idOf) {
  const scores = new Map(known.entries.map((e) => [e.actor, e.score]));
  const updates = [];
  let current = null;
  for (const combatant of combatants ?? []) {
    const actor = idOf(combatant);
    if (actor === null) continue;
    if (scores.has(actor) && combatant.initiative !== scores.get(actor)) updates.push({ _id: combatant.id, initiative: scores.get(actor) });
    if (current === null && known.current && actor === known.current) current = combatant.id;
  }
  return { updates, current };
}

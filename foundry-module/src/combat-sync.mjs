// Foundry's combat tracker drives the encounter: a new round is a new combat turn, a new
// initiative pass (shadowrun5e's tracker) is a new pass, and each combatant's turn is that
// actor's action phase. Which advances a tracker change means is decided here, from two
// snapshots; the GM's client sends them (POST .../advance) and remembers what it sent in the
// combat's flags, so a reload neither repeats nor skips one.

import * as sr5 from "./sr5-actor.mjs";
import * as sr4e from "./sr4-actor.mjs";
import * as sr3e from "./sr3-actor.mjs";
import { read } from "./system-versions.mjs";

export const MODULE_ID = "firefight";

/**
 * Whether a combatant stands for a token or an actor of the scene. shadowrun5e's padding
 * combatants (0.34+: SR5Combat#nextPass adds one per combatant to each new pass, with no actor
 * and no token; SR5_PATHS `combatantPad`) do not, nor does any combatant with neither: they
 * are no actor of the encounter, and the module leaves them out. `system` is game.system
 * ({id, version}).
 */
export function isActorCombatant(combatant, system = {}) {
  if (!combatant) return false;
  if (system?.id === sr5.SYSTEM_ID && sr5.isPaddingCombatant(combatant, { version: system.version })) return false;
  return Boolean(combatant.tokenId ?? combatant.token?.id ?? combatant.actorId);
}

// The systems whose combats keep an initiative pass, each read where its running line keeps it
// (`combatPass` of SR5_PATHS, SR4E_PATHS, SR3E_PATHS).
const COMBAT_PASSES = { [sr5.SYSTEM_ID]: sr5, [sr4e.SR4E_SYSTEM_ID]: sr4e, [sr3e.SR3E_SYSTEM_ID]: sr3e };

/**
 * The tracker's position: round, turn, the system's initiative pass, and whose turn it is (null
 * while the turn is a padding combatant's). The pass is where the running line of the system
 * keeps it: shadowrun5e's `shadowrun5e.combatInitiativePass` flag before 0.34 and `system.pass`
 * from 0.34 on, shadowrun4e's `shadowrun4e.initiativePass` flag from 1.0.1 on, sr3e's
 * `sr3e.initiativePass` flag; 1 in other systems. `system` is game.system.
 */
export function trackerSnapshot(combat, actorIdOf, system = {}) {
  const passes = COMBAT_PASSES[system?.id];
  const pass = passes ? passes.combatPass(combat, { version: system.version }) : 1;
  const combatant = combat.combatant ?? null;
  return {
    round: numberOr(combat.round, 0),
    turn: combat.turn ?? null,
    pass,
    actor: combatant && isActorCombatant(combatant, system) ? actorIdOf(combatant) : null,
  };
}

/**
 * Whether an update of the combat (updateCombat's `changed`: the differential data, expanded)
 * moved the tracker: its round, its turn, or the system's initiative pass where the system may
 * change it in an update of its own (`combatPassAlone`; sr3e's turn update follows its pass's).
 */
export function trackerMoved(changed, system = {}) {
  if (!changed || typeof changed !== "object") return false;
  if ("round" in changed || "turn" in changed) return true;
  const passes = COMBAT_PASSES[system?.id];
  const options = { version: system?.version };
  const path = passes?.combatPassPath(options);
  return Boolean(path) && passes.combatPassAlone(options) && read(changed, path) !== undefined;
}

function numberOr(value, fallback) {
  const n = Number(value);
  return value !== undefined && value !== null && Number.isFinite(n) ? n : fallback;
}

/**
 * The advance bodies that take the encounter from `previous` (what was last sent; null before
 * the first) to `current`. Round 0 is a combat not yet started: nothing to send.
 */
// The rulesets whose combat turns have initiative passes (d100 counts action points instead).
export const RULESETS_WITH_PASSES = new Set(["sr5", "sr4", "sr3", "sr3-hardlife"]);

export function advancesBetween(previous, current, { ruleset = "sr5" } = {}) {
  if (!current || current.round < 1) return [];
  const advances = [];
  const before = previous ?? { round: 1, turn: null, pass: 1, actor: null };
  if (current.round > before.round) {
    // Each round the tracker moved on is a combat turn of the encounter.
    for (let round = before.round; round < current.round; round += 1) advances.push({ to: "combat_turn" });
  } else if (RULESETS_WITH_PASSES.has(ruleset) && current.round === before.round && current.pass > before.pass) {
    for (let pass = before.pass; pass < current.pass; pass += 1) advances.push({ to: "initiative_pass" });
  }
  const newPhase =
    current.actor &&
    (advances.length > 0 || current.turn !== before.turn || current.actor !== before.actor || previous === null);
  if (newPhase) advances.push({ to: "action_phase", actor: current.actor });
  return advances;
}

/** What the combat's flags remember of its encounter (never the GM token: players read flags). */
export function encounterFlag(created, ruleset) {
  return { id: created.id, ruleset: created.ruleset ?? ruleset, playerToken: created.tokens.player, lastEventId: created.event_id ?? null, synced: null };
}

// shadowrun5e's SR5Combat, per version line, over the stub Combat of foundry-stubs.mjs
// (makeTrackerCombat: Foundry's own combatant updates, turn sorting and hooks). What matters to
// the module is where each line keeps the initiative pass, the updates that change it, and the
// combatants a pass adds; the system's other rules (seize the initiative, ERIC ties, history,
// rewinding) are left out.
//
// Before 0.34 (SR5-FoundryVTT 0.33.2 src/module/combat/SR5Combat.ts): the pass is the flag
// `shadowrun5e.combatInitiativePass` (`initiativePass` reads it, 1 when unset); startCombat sets
// turn 0, round 1 and the flag 1 in one update; nextTurn steps to the next combatant with a score
// above 0 (nextViableTurnPosition) and, past the last, when a score is still above 0 after the
// pass's -10 (CombatRules.iniOrderCanDoAnotherPass), handleIniPass updates every combatant's
// score (reduceIniResultAfterPass: -10, not below 0) and then the combat with turn 0 and the
// flag + 1; else nextRound.
//
// From 0.34 (0.34.5 and 0.36.2 src/module/combat/SR5Combat.ts, SR5Combatant.ts,
// src/module/types/combat/Combat.ts and Combatant.ts): the pass is the Combat's `system.pass`
// (1 at first), each combatant has `system.{acted, pad, seize, coinFlip}`; startCombat rolls for
// the actors first; _sortCombatants puts
// padding combatants first; nextTurn marks the current combatant `acted` and steps to the
// first that can act (a score above 0) and has not; when none can, nextPass: none with a score
// above 0 after -10 is a new round; else it creates one padding combatant `{system: {pad: true}}`
// (no actor, no token, no score) per combatant that is not one, updates each combatant
// (`acted` false, its score -10: CombatRules.initAfterPass, null stays null) and the combat's
// `system.pass` + 1, then nextTurn(true). nextRound deletes the padding combatants, sets turn
// null, round + 1 and `system.pass` 1, then rolls for the combatants (the tracker's turn stays
// null until the GM's next click).
//
// One simplification: the system updates the combatants inside the combat's own update
// (`combatants` in its update data); here they are updated just before it, with their hooks.

import { Hooks, makeTrackerCombat, StubDocument } from "./foundry-stubs.mjs";
import { compareVersions } from "../src/system-versions.mjs";

// SR.combat.INI_RESULT_MOD_AFTER_INI_PASS (0.33.2) and PASS_PENALTY (0.34.5): SR5 p. 159.
const PASS_PENALTY = -10;
const FLAG = "combatInitiativePass";

/**
 * A shadowrun5e combat as the line of `version` runs it. `combatants`: {id, tokenId, actorId,
 * name}; `roll(combatant)` their initiative rolls.
 */
export function makeSr5Combat({ version, ...options }) {
  const combat = makeTrackerCombat(options);
  combat.sr5Version = version;
  return compareVersions(version, "0.34.0") >= 0 ? withSystemPass(combat) : withFlagPass(combat);
}

/** 0.25 to 0.33: the pass in a flag, the combatants Foundry's own. */
function withFlagPass(combat) {
  Object.defineProperty(combat, "initiativePass", { get: () => combat.getFlag("shadowrun5e", FLAG) || 1 });
  combat.startCombat = async () => {
    await combat.rollAll();
    const updateData = { round: 1, turn: 0, [`flags.shadowrun5e.${FLAG}`]: 1 };
    await combat.update(updateData);
    Hooks.callAll("combatStart", combat, updateData);
    return combat;
  };
  const handleIniPass = async () => {
    const updates = combat.combatants.map((c) => ({ _id: c.id, initiative: Math.max(Number(c.initiative) + PASS_PENALTY, 0) }));
    await combat.updateEmbeddedDocuments("Combatant", updates);
    await combat.update({ turn: 0, [`flags.shadowrun5e.${FLAG}`]: combat.initiativePass + 1 });
    return combat;
  };
  combat.nextRound = async () => {
    await combat.update({ round: combat.round + 1, turn: 0, [`flags.shadowrun5e.${FLAG}`]: 1 });
    await combat.rollInitiative(combat.combatants.map((c) => c.id), { updateTurn: false });
    return combat;
  };
  combat.nextTurn = async () => {
    const next = combat.turns.findIndex((c, index) => (combat.turn === null || index > combat.turn) && c.initiative > 0);
    if (next >= 0) {
      await combat.update({ turn: next });
      return combat;
    }
    if (combat.combatants.filter((c) => Number(c.initiative) + PASS_PENALTY > 0).length > 0) return handleIniPass();
    return combat.nextRound();
  };
  return combat;
}

/** 0.34+: the pass in the Combat's system data, padding combatants for each new pass. */
function withSystemPass(combat) {
  combat.system = { pass: 1, history: [] };
  const combatantSystem = (pad = false) => ({ acted: false, attackedLastTurn: false, coinFlip: 0.5, seize: false, pad });
  for (const c of combat.combatants) c.system = combatantSystem();
  Object.defineProperty(combat, "pass", { get: () => combat.system.pass });
  // SR5Combat#_sortCombatants: padding first, then Foundry's order.
  const setupTurns = combat.setupTurns;
  combat.setupTurns = (options = {}) => {
    const turns = setupTurns(options);
    combat.turns = [...turns.filter((c) => c.system?.pad), ...turns.filter((c) => !c.system?.pad)];
    return combat.turns;
  };
  combat.setupTurns();
  let created = 0;
  combat.createEmbeddedDocuments = async (type, data) => {
    if (type !== "Combatant") throw new Error(`unexpected ${type}`);
    const docs = data.map((d) => {
      created += 1;
      const doc = new StubDocument({ _id: `pad${String(created).padStart(12, "0")}`, tokenId: null, actorId: null, name: "", initiative: null }, { parent: combat, documentName: "Combatant", owner: false });
      doc.system = { ...combatantSystem(), ...d.system };
      doc.combat = combat;
      combat.combatants.set(doc.id, doc);
      return doc;
    });
    for (const doc of docs) Hooks.callAll("createCombatant", doc, {}, currentUserId());
    combat.setupTurns();
    return docs;
  };
  combat.deleteEmbeddedDocuments = async (type, ids) => {
    if (type !== "Combatant") throw new Error(`unexpected ${type}`);
    const docs = ids.map((id) => combat.combatants.get(id)).filter(Boolean);
    for (const doc of docs) combat.combatants.delete(doc.id);
    for (const doc of docs) Hooks.callAll("deleteCombatant", doc, {}, currentUserId());
    combat.setupTurns();
    return docs;
  };
  // SR5Combat#startCombat: roll for the actors (the turn kept), then Foundry's startCombat.
  const startCombat = combat.startCombat;
  combat.startCombat = async () => {
    await combat.rollAll();
    return startCombat();
  };
  const canAct = (c) => c.initiative !== null && c.initiative > 0;
  combat.nextTurn = async (passedPass = false) => {
    const next = combat.turns.findIndex((c) => (passedPass || c.id !== combat.combatant?.id) && canAct(c) && !c.system.acted);
    if (next === -1) return combat.nextPass();
    if (!passedPass && combat.combatant) await combat.updateEmbeddedDocuments("Combatant", [{ _id: combat.combatant.id, "system.acted": true }]);
    const updateData = { round: combat.round, turn: next };
    Hooks.callAll("combatTurn", combat, updateData, { direction: 1 });
    await combat.update(updateData, { direction: 1 });
    return combat;
  };
  combat.nextPass = async () => {
    const anyLeft = combat.turns.some((c) => c.initiative !== null && c.initiative + PASS_PENALTY > 0);
    if (!anyLeft) return combat.nextRound();
    await combat.createEmbeddedDocuments("Combatant", combat.turns.filter((c) => !c.system.pad).map(() => ({ system: { pad: true } })));
    const updates = combat.combatants.map((c) => ({ _id: c.id, "system.acted": false, initiative: c.initiative === null ? null : c.initiative + PASS_PENALTY }));
    await combat.updateEmbeddedDocuments("Combatant", updates);
    await combat.update({ system: { pass: combat.pass + 1 } });
    return combat.nextTurn(true);
  };
  combat.nextRound = async () => {
    const pads = combat.combatants.filter((c) => c.system.pad).map((c) => c.id);
    if (pads.length) await combat.deleteEmbeddedDocuments("Combatant", pads);
    const updateData = { turn: null, round: combat.round + 1, system: { pass: 1 } };
    Hooks.callAll("combatRound", combat, updateData, { direction: 1 });
    await combat.updateEmbeddedDocuments("Combatant", combat.combatants.map((c) => ({ _id: c.id, "system.acted": false })));
    await combat.update(updateData, { direction: 1 });
    await combat.rollInitiative(combat.combatants.map((c) => c.id), { updateTurn: false });
    return combat;
  };
  return combat;
}

function currentUserId() {
  return globalThis.game?.user?.id ?? null;
}

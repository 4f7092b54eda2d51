// Foundry's combats as the stubs model them: a combat with flags and system data, and the
// tracker's combat (its turns, rounds and combatant updates, as Foundry's Combat does).

import { isDeepStrictEqual } from "node:util";
import { Collection, expandObject, flattenObject, getProperty, Hooks, running, setProperty, StubDocument } from "./foundry-documents.mjs";

/**
 * A combat with flags; `combatant` is the current turn's. Its system data and flags are what the
 * game system keeps there: shadowrun5e's initiative pass is `system.pass` from 0.34 on and the
 * `shadowrun5e.combatInitiativePass` flag before (sr5-actor.mjs SR5_PATHS; tests/fixtures/
 * sr5-0.33-combat.json and sr5-0.34-combat.json), no other field.
 */
export function makeCombat({ round = 0, turn = null, combatants = [], system = undefined, flags = {} } = {}) {
  const combat = new StubDocument({ _id: "combat000000001", round, turn, flags }, { documentName: "Combat", owner: false });
  combat.combatants = combatants;
  if (system !== undefined) combat.system = structuredClone(system);
  Object.defineProperty(combat, "combatant", { get: () => (combat.turn === null ? null : combat.combatants[combat.turn] ?? null) });
  return combat;
}

/** Combat#_sortCombatants: initiative highest first, unrolled last, ties by id. */
function sortCombatants(a, b) {
  const ia = Number.isFinite(a.initiative) ? a.initiative : -Infinity;
  const ib = Number.isFinite(b.initiative) ? b.initiative : -Infinity;
  return ib - ia || (a.id > b.id ? 1 : -1);
}

/**
 * A Combat with Combatant documents, as Foundry's client runs them (foundry.documents.Combat,
 * v12/v13), for the tracker following the service:
 * - `turns` are the combatants sorted by Combat#_sortCombatants and `combatant` is
 *   turns[turn]; setupTurns keeps the turn's *index* when the order changes (v13).
 * - updateEmbeddedDocuments("Combatant", updates, options) is ClientDatabaseBackend's order:
 *   preUpdateCombatant for each, then each applied with updateCombatant fired for it (its
 *   changes with its _id, the options as given), and only after the last one the combat sorts
 *   its turns again (Combat#_onUpdateDescendantDocuments; `options.combatTurn` sets the turn).
 *   Combatant#update and Combat#setInitiative are the same for one combatant.
 * - rollInitiative(ids) rolls each with `roll(combatant)` and updates them in one call with
 *   `turnEvents: false`, as v13 does; rollAll rolls those not rolled yet.
 * - update() of nothing new fires no hook (Foundry drops an update that changes nothing).
 * - startCombat, nextTurn and nextRound call combatStart, combatTurn and combatRound with the
 *   update's data before the update, on this client only, as Combat does; updateCombat follows.
 */
export function makeTrackerCombat({ id = "combat000000001", round = 0, turn = null, combatants = [], roll = () => 10, scene = null } = {}) {
  const combat = new StubDocument({ _id: id, round, turn }, { documentName: "Combat", owner: false });
  combat.scene = scene;
  const userId = () => running.game?.user?.id ?? null;
  const updateCombat = combat.update.bind(combat);
  combat.update = async (changes, options = {}) => {
    const diff = Object.fromEntries(Object.entries(changes).filter(([key, value]) => !isDeepStrictEqual(getProperty(combat, key), value)));
    if (Object.keys(diff).length === 0) return combat;
    return updateCombat(diff, options);
  };
  combat.setupTurns = (options = {}) => {
    if (typeof options.combatTurn === "number") combat.turn = options.combatTurn;
    combat.turns = [...combat.combatants.values()].sort(sortCombatants);
    if (combat.turn !== null && combat.turn < 0) combat.turn = 0;
    return combat.turns;
  };
  const docs = combatants.map((c) => {
    const doc = new StubDocument({ _id: c.id, tokenId: c.tokenId ?? null, actorId: c.actorId ?? null, name: c.name ?? c.id, initiative: c.initiative ?? null }, { parent: combat, documentName: "Combatant", owner: c.owner ?? false });
    const updateCombatant = doc.update.bind(doc);
    doc.update = async (changes, options = {}) => {
      const done = await updateCombatant(changes, options);
      combat.setupTurns(options);
      return done;
    };
    doc.combat = combat;
    return doc;
  });
  combat.combatants = new Collection(docs);
  Object.defineProperty(combat, "combatant", { get: () => (combat.turn === null ? null : combat.turns[combat.turn] ?? null) });
  Object.defineProperty(combat, "started", { get: () => combat.round > 0 });
  combat.updateEmbeddedDocuments = async (type, updates, options = {}) => {
    if (type !== "Combatant") throw new Error(`unexpected ${type}`);
    const changed = [];
    for (const { _id, ...changes } of updates) {
      const doc = combat.combatants.get(_id);
      if (!doc) continue;
      // As Document#update for each (diff: true): only what differs, merged into the document,
      // the hooks handed it expanded with the _id; a combatant whose update changes nothing is
      // dropped from the batch (no hook).
      const diff = Object.fromEntries(Object.entries(flattenObject(changes)).filter(([key, value]) => !isDeepStrictEqual(getProperty(doc, key), value)));
      if (Object.keys(diff).length === 0) continue;
      if (Hooks.call("preUpdateCombatant", doc, { ...expandObject(diff), _id }, options, userId()) === false) continue;
      changed.push([doc, changes, diff]);
    }
    const callbacks = changed.map(([doc, changes, diff]) => {
      for (const [key, value] of Object.entries(diff)) setProperty(doc, key, structuredClone(value));
      doc.updates.push(changes);
      return () => Hooks.callAll("updateCombatant", doc, { ...expandObject(diff), _id: doc.id }, options, userId());
    });
    for (const callback of callbacks) callback();
    combat.setupTurns(options);
    return changed.map(([doc]) => doc);
  };
  combat.setInitiative = async (combatantId, value) => combat.combatants.get(combatantId).update({ initiative: value });
  combat.rollInitiative = async (ids, { updateTurn = true } = {}) => {
    const updates = [].concat(ids).map((cid) => ({ _id: cid, initiative: roll(combat.combatants.get(cid)) }));
    const options = { turnEvents: false, ...(updateTurn ? {} : { combatTurn: combat.turn }) };
    await combat.updateEmbeddedDocuments("Combatant", updates, options);
    return combat;
  };
  combat.rollAll = () => combat.rollInitiative(combat.combatants.filter((c) => c.initiative === null).map((c) => c.id));
  combat.startCombat = async () => {
    const updateData = { round: 1, turn: 0 };
    Hooks.callAll("combatStart", combat, updateData);
    await combat.update(updateData);
    return combat;
  };
  combat.nextRound = async () => {
    const updateData = { round: combat.round + 1, turn: combat.turn === null || combat.turns.length === 0 ? null : 0 };
    const updateOptions = { direction: 1 };
    Hooks.callAll("combatRound", combat, updateData, updateOptions);
    await combat.update(updateData, updateOptions);
    return combat;
  };
  combat.nextTurn = async () => {
    if (combat.round === 0) return combat.nextRound();
    const next = (combat.turn ?? -1) + 1;
    if (next >= combat.turns.length) return combat.nextRound();
    const updateData = { round: combat.round, turn: next };
    const updateOptions = { direction: 1 };
    Hooks.callAll("combatTurn", combat, updateData, updateOptions);
    await combat.update(updateData, updateOptions);
    return combat;
  };
  combat.setupTurns();
  return combat;
}

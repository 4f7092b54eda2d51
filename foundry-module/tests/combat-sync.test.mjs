// The combat tracker driving the encounter.

import { test } from "node:test";
import assert from "node:assert/strict";
import { advancesBetween, isActorCombatant, trackerSnapshot } from "../src/combat-sync.mjs";

const snap = (round, turn, actor, pass = 1) => ({ round, turn, actor, pass });

test("the first turn of a combat is its first action phase; round 0 sends nothing", () => {
  assert.deepEqual(advancesBetween(null, snap(0, null, null)), []);
  assert.deepEqual(advancesBetween(null, snap(1, 0, "sam")), [{ to: "action_phase", actor: "sam" }]);
});

test("a combatant's turn is an action phase; a new round a combat turn, then its first phase", () => {
  assert.deepEqual(advancesBetween(snap(1, 0, "sam"), snap(1, 1, "goon")), [{ to: "action_phase", actor: "goon" }]);
  assert.deepEqual(advancesBetween(snap(1, 1, "goon"), snap(2, 0, "sam")), [{ to: "combat_turn" }, { to: "action_phase", actor: "sam" }]);
  assert.deepEqual(advancesBetween(snap(1, 1, "goon"), snap(3, 0, "sam")), [{ to: "combat_turn" }, { to: "combat_turn" }, { to: "action_phase", actor: "sam" }]);
  assert.deepEqual(advancesBetween(snap(2, 0, "sam"), snap(2, 0, "sam")), []);
});

test("a tracker's initiative passes are passes of the encounter (sr5 and sr3; d100 has none)", () => {
  assert.deepEqual(advancesBetween(snap(1, 2, "goon", 1), snap(1, 0, "sam", 2)), [{ to: "initiative_pass" }, { to: "action_phase", actor: "sam" }]);
  assert.deepEqual(advancesBetween(snap(1, 2, "goon", 1), snap(1, 0, "sam", 2), { ruleset: "sr3" }), [{ to: "initiative_pass" }, { to: "action_phase", actor: "sam" }]);
  assert.deepEqual(advancesBetween(snap(1, 2, "goon", 1), snap(1, 0, "sam", 2), { ruleset: "d100" }), [{ to: "action_phase", actor: "sam" }]);
  // A new round resets the pass: no pass advance with it.
  assert.deepEqual(advancesBetween(snap(1, 0, "sam", 3), snap(2, 0, "sam", 1)), [{ to: "combat_turn" }, { to: "action_phase", actor: "sam" }]);
});

test("the snapshot reads the pass where the running shadowrun5e keeps it, and whose turn it is", () => {
  const combatant = { tokenId: "tokSam" };
  const idOf = (c) => c.tokenId;
  // 0.34+: the Combat's system data (SR5_PATHS); the flag the 0.34 migration left behind is stale.
  const now = { round: 2, turn: 0, combatant, system: { pass: 3 }, flags: { shadowrun5e: { combatInitiativePass: 1 } } };
  assert.deepEqual(trackerSnapshot(now, idOf, { id: "shadowrun5e", version: "0.34.5" }), snap(2, 0, "tokSam", 3));
  assert.equal(trackerSnapshot(now, idOf, { id: "shadowrun5e" }).pass, 3, "no version: the newest line");
  // Before 0.34: the flag.
  const before = { round: 2, turn: 0, combatant, flags: { shadowrun5e: { combatInitiativePass: 4 } } };
  assert.equal(trackerSnapshot(before, idOf, { id: "shadowrun5e", version: "0.33.2" }).pass, 4);
  // No pass field the system never had, and none in another system.
  assert.equal(trackerSnapshot({ ...before, system: { initiativePass: 3 } }, idOf, { id: "shadowrun5e", version: "0.34.0" }).pass, 1);
  assert.equal(trackerSnapshot(now, idOf, { id: "dnd5e", version: "4.0.0" }).pass, 1);
  assert.deepEqual(trackerSnapshot({ round: 0, turn: null, combatant: null }, idOf), snap(0, null, null, 1));
});

test("a combatant stands for an actor through its token or actor; shadowrun5e's padding combatants for none", () => {
  const system = { id: "shadowrun5e", version: "0.34.5" };
  assert.equal(isActorCombatant({ tokenId: "tokSam", system: { pad: false } }, system), true);
  assert.equal(isActorCombatant({ actorId: "samActor" }, system), true);
  assert.equal(isActorCombatant({ tokenId: null, actorId: null, system: { pad: true } }, system), false);
  assert.equal(isActorCombatant({ tokenId: "tokSam", system: { pad: true } }, system), false);
  assert.equal(isActorCombatant({ id: "marker" }, { id: "dnd5e" }), false);
  assert.equal(isActorCombatant(null, system), false);
});

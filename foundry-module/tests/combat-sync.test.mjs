// The combat tracker driving the encounter.

import { test } from "node:test";
import assert from "node:assert/strict";
import { advancesBetween, trackerSnapshot } from "../src/combat-sync.mjs";

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

test("the snapshot reads the pass where shadowrun5e keeps it, and whose turn it is", () => {
  const combatant = { tokenId: "tokSam" };
  const idOf = (c) => c.tokenId;
  assert.deepEqual(trackerSnapshot({ round: 2, turn: 0, combatant, system: { initiativePass: 3 } }, idOf), snap(2, 0, "tokSam", 3));
  assert.equal(trackerSnapshot({ round: 2, turn: 0, combatant, initiativePass: 2 }, idOf).pass, 2);
  assert.equal(trackerSnapshot({ round: 2, turn: 0, combatant, flags: { shadowrun5e: { combatInitiativePass: 4 } } }, idOf).pass, 4);
  assert.deepEqual(trackerSnapshot({ round: 0, turn: null, combatant: null }, idOf), snap(0, null, null, 1));
});

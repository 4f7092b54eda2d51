// The service's dice as Foundry Rolls: exactly those faces, hits as the total of a pool.

import { test } from "node:test";
import assert from "node:assert/strict";
import { fixture, Roll } from "./foundry-stubs.mjs";
import { diceOfResult, diceRollToRollData, rollsForDice } from "../src/rolls.mjs";

test("a d6 pool step is one Die of those exact results, counting hits on 5 and 6", () => {
  const data = diceRollToRollData({ step: "attack", sides: 6, values: [6, 6, 5, 5, 3, 2, 1, 1, 4, 4, 3] }, { hitOn: 5 });
  assert.equal(data.class, "Roll");
  assert.equal(data.formula, "11d6cs>=5[attack]");
  assert.equal(data.evaluated, true);
  assert.equal(data.total, 4);
  const [die] = data.terms;
  assert.equal(die.class, "Die");
  assert.equal(die.number, 11);
  assert.equal(die.faces, 6);
  assert.deepEqual(die.modifiers, ["cs>=5"]);
  assert.deepEqual(die.results.map((r) => r.result), [6, 6, 5, 5, 3, 2, 1, 1, 4, 4, 3]);
  assert.deepEqual(die.results.map((r) => r.count), [1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0]);
  assert.ok(die.results.every((r) => r.active));
});

test("other dice add up", () => {
  const data = diceRollToRollData({ step: "damage:raider", sides: 6, values: [4, 5] });
  assert.equal(data.total, 9);
  assert.equal(data.formula, "2d6[damage:raider]");
  assert.deepEqual(data.terms[0].modifiers, []);
  assert.equal(diceRollToRollData({ step: "attack", sides: 100, values: [23] }).total, 23);
});

test("faces outside the die are refused", () => {
  assert.throws(() => diceRollToRollData({ step: "a", sides: 6, values: [7] }), /not a face of a d6/);
  assert.throws(() => diceRollToRollData({ step: "a", sides: 6, values: [0] }), /not a face/);
  assert.throws(() => diceRollToRollData({ step: "a", sides: 1, values: [1] }), /at least 2 sides/);
});

test("a real SR5 answer gives one Roll per step, rebuilt by Roll.fromData with the same dice", () => {
  const { result } = fixture("sr5-attack-bf.json");
  const rolls = rollsForDice(diceOfResult(result), "sr5").map((data) => Roll.fromData(data));
  assert.deepEqual(rolls.map((r) => r.options.flavor), result.dice.map((d) => d.step));
  rolls.forEach((roll, i) => {
    assert.deepEqual(roll.dice[0].results.map((r) => r.result), result.dice[i].values);
    assert.equal(roll.total, result.dice[i].values.filter((v) => v >= 5).length);
  });
  const target = result.targets[0];
  assert.equal(rolls[0].total, target.attack.hits);
  assert.equal(rolls[1].total, target.defense.hits);
  assert.equal(rolls[2].total, target.damage.soak.hits);
});

test("d100 results keep their faces and sides; empty steps are left out", () => {
  const { result } = fixture("d100-attack.json");
  const rolls = rollsForDice([...result.dice, { step: "nothing", sides: 6, values: [] }], "d100");
  assert.deepEqual(rolls.map((r) => [r.terms[0].faces, r.total]), [[100, 23], [100, 71], [100, 88], [6, 9], [10, 5]]);
});

test("Second Chance shows only its re-rolled dice", () => {
  const action = { kind: "action", action: "second_chance", attack: { dice: [{ step: "second_chance:goon-1", sides: 6, values: [1, 6] }] } };
  assert.deepEqual(diceOfResult(action).map((d) => d.step), ["second_chance:goon-1"]);
  assert.deepEqual(diceOfResult({ kind: "advance" }), []);
  assert.deepEqual(diceOfResult(null), []);
});

// Reading shadowrun5e actors and weapons (fixtures shaped like the system's data model).

import { test } from "node:test";
import assert from "node:assert/strict";
import { fixture, makeActor } from "./foundry-stubs.mjs";
import * as sr5 from "../src/sr5-actor.mjs";

const sam = () => makeActor(fixture("sr5-actor-sam.json"));
const goon = () => makeActor(fixture("sr5-actor-goon.json"));

test("an assault rifle reads as firefight's SR5Weapon", () => {
  const item = sam().items.get("aresAlpha000001");
  assert.deepEqual(sr5.sr5Weapon(item), {
    id: "aresAlpha000001", category: "assault_rifle", damage: 11, damage_type: "P", ap: -2,
    accuracy: 5, rc: 2, modes: ["SA", "BF", "FA"], ammo: 42,
  });
});

test("the attacker's pool parts come from its attributes, the weapon's skill and its wounds", () => {
  const actor = sam();
  const rifle = actor.items.get("aresAlpha000001");
  assert.deepEqual(sr5.sr5Attacker(actor, rifle, { id: "tok-sam" }), {
    id: "tok-sam", agility: 6, strength: 4, willpower: 3, intuition: 4, edge: 3, skill: 6, wound_modifier: -1,
  });
  const pistol = actor.items.get("predatorV000001");
  assert.equal(sr5.sr5Attacker(actor, pistol, { id: "x" }).skill, 4);
});

test("a weapon with no skill of its own uses its category's firearms skill", () => {
  const actor = sam();
  const rifle = actor.items.get("aresAlpha000001");
  rifle.system.action.skill = "";
  assert.deepEqual(sr5.weaponSkill(actor, rifle, "assault_rifle"), { id: "automatics", value: 6 });
  assert.deepEqual(sr5.weaponSkill(actor, rifle, "sniper_rifle"), { id: "longarms", value: 0 });
});

test("categories come from the Chummer subcategory, then the system's range category", () => {
  const item = (subcategory, category) => ({ system: { subcategory, range: { ranges: { category } } } });
  assert.equal(sr5.weaponCategory(item("heavy machineguns", "mediumHeavyMachinegun")), "heavy_machine_gun");
  assert.equal(sr5.weaponCategory(item("", "mediumHeavyMachinegun")), "medium_machine_gun");
  assert.equal(sr5.weaponCategory(item("shotguns", "shotgunFlechette")), "shotgun_flechette");
  assert.equal(sr5.weaponCategory(item("shotguns", "shotgunSlug")), "shotgun");
  assert.equal(sr5.weaponCategory(item("holdouts", "holdOutPistol")), "hold_out_pistol");
  assert.equal(sr5.weaponCategory(item("bows", "bow")), null);
});

test("only ranged weapons are offered, the equipped ones first", () => {
  assert.deepEqual(sr5.rangedWeapons(sam()).map((i) => i.name), ["Ares Alpha", "Ares Predator V"]);
});

test("a defender's numbers: reaction, intuition, body, willpower, armor", () => {
  const defender = sr5.sr5Defender(goon());
  assert.deepEqual(
    { reaction: defender.reaction, intuition: defender.intuition, body: defender.body, willpower: defender.willpower, armor: defender.armor },
    { reaction: 4, intuition: 3, body: 4, willpower: 3, armor: 9 },
  );
  assert.equal(defender.perception, 2);
  // Unwounded: no modifier; two boxes' worth of wounds (system.wounds.value 2): -2.
  assert.equal(defender.wound_modifier, 0);
  const wounded = goon();
  wounded.system.wounds = { value: 2 };
  assert.equal(sr5.sr5Defender(wounded).wound_modifier, -2);
});

test("ammo and Edge are written back where the system keeps them", () => {
  const actor = sam();
  assert.deepEqual(sr5.ammoUpdate(39), { "system.ammo.current.value": 39 });
  assert.deepEqual(sr5.edgeUpdate(actor, 1), { "system.attributes.edge.uses": 2 });
  assert.deepEqual(sr5.edgeUpdate(actor, 5), { "system.attributes.edge.uses": 0 });
  assert.equal(sr5.edgeLeft(actor), 3);
});

test("damage fills the track, stun overflows into physical at half, physical into overflow", () => {
  const actor = goon(); // stun 8/10, physical 0/10, overflow 0/4
  assert.deepEqual(sr5.trackUpdate(actor, "physical", 4), { "system.track.physical.value": 4 });
  assert.deepEqual(sr5.trackUpdate(actor, "stun", 2), { "system.track.stun.value": 10 });
  assert.deepEqual(sr5.trackUpdate(actor, "stun", 7), { "system.track.stun.value": 10, "system.track.physical.value": 2 });
  assert.deepEqual(sr5.trackUpdate(actor, "physical", 13), { "system.track.physical.value": 10, "system.track.physical.overflow.value": 3 });
  assert.deepEqual(sr5.trackUpdate(actor, "physical", 20), { "system.track.physical.value": 10, "system.track.physical.overflow.value": 4 });
  assert.throws(() => sr5.trackUpdate(actor, "matrix", 1), /unknown condition monitor/);
});

test("only shadowrun5e actors are read as such", () => {
  assert.equal(sr5.isShadowrunActor(sam(), "shadowrun5e"), true);
  assert.equal(sr5.isShadowrunActor(sam(), "dnd5e"), false);
  assert.equal(sr5.isShadowrunActor({ system: {} }, "shadowrun5e"), false);
});

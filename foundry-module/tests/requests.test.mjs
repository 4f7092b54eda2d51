// Building attack bodies from what the dialog gathered.

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  availableModes, d100AttackRequest, mergeManual, parseGivenDice, parseModifiers, parseRangeBands,
  RequestError, serviceId, sr5AttackRequest, sr5FromManual, sr5ZoneTestRequest, d100ZoneTestRequest,
} from "../src/requests.mjs";

const attacker = { id: "sam", agility: 6, strength: 4, willpower: 3, intuition: 4, edge: 3, skill: 6, wound_modifier: 0 };
const weapon = { id: "alpha", category: "assault_rifle", damage: 11, damage_type: "P", ap: -2, accuracy: 5, rc: 2, modes: ["SA", "BF", "FA"], ammo: 42 };
const defender = { reaction: 4, intuition: 3, body: 4, willpower: 3, armor: 9 };

test("the API's example attack, built from its parts", () => {
  const body = sr5AttackRequest({
    attacker,
    weapon,
    mode: "BF",
    targets: [{ id: "goon-1", distance_m: 30, defender, cover: "partial" }],
    options: { dice: parseGivenDice("attack: 6 6 5 5 3 2 1 1 4 4 3\ndefense:goon-1: 5,1,2,3,4,6,2") },
  });
  assert.deepEqual(body, {
    ruleset: "sr5",
    attacker,
    weapon,
    mode: "BF",
    targets: [{ id: "goon-1", distance_m: 30, defender, cover: "partial" }],
    dice: { attack: [6, 6, 5, 5, 3, 2, 1, 1, 4, 4, 3], "defense:goon-1": [5, 1, 2, 3, 4, 6, 2] },
  });
});

test("the table's choices go in only when they change something", () => {
  const body = sr5AttackRequest({
    attacker, weapon, mode: "SA",
    targets: [{ id: "g", distance_m: 5.5, defender, cover: "bogus", called_shot: true, prone: false }],
    options: { environment: { visibility: "clear", light: "dim", glare: "none", wind: "strong" }, smartlink: "wired", ammo: "apds", edge: "push_the_limit" },
  });
  assert.deepEqual(body.environment, { light: "dim", wind: "strong" });
  assert.equal(body.smartlink, "wired");
  assert.equal(body.ammo, "apds");
  assert.equal(body.edge, "push_the_limit");
  assert.deepEqual(body.targets[0], { id: "g", distance_m: 5.5, defender, cover: "none", called_shot: true });
  assert.equal(body.dice, undefined);
});

test("suppressive fire sends a zone and the bystanders instead of targets", () => {
  const body = sr5AttackRequest({
    attacker, weapon, mode: "suppressive",
    targets: [{ id: "g", distance_m: 5, defender }],
    options: { zone: { origin: { x: 1, y: 2 }, direction_deg: 30, length_m: 40 }, bystanders: [{ id: "goon 2", position: { x: 20, y: 10 } }] },
  });
  assert.deepEqual(body.zone, { origin: { x: 1, y: 2 }, direction_deg: 30, length_m: 40 });
  assert.deepEqual(body.bystanders, [{ id: "goon-2", position: { x: 20, y: 10 } }]);
  assert.equal(body.targets, undefined);
});

test("modes the weapon cannot fire, a missing target or category are refused before sending", () => {
  assert.deepEqual(availableModes(["SA"]), ["SA", "SB"]);
  assert.deepEqual(availableModes(["FA"]), ["FA", "FA_complex", "suppressive"]);
  assert.throws(() => sr5AttackRequest({ attacker, weapon: { ...weapon, modes: ["SA"] }, mode: "BF", targets: [] }), (e) => e instanceof RequestError && e.path === "$.mode");
  assert.throws(() => sr5AttackRequest({ attacker, weapon, mode: "SA", targets: [] }), /target at least one/);
  assert.throws(() => sr5AttackRequest({ attacker, weapon: { ...weapon, category: null }, mode: "SA", targets: [] }), /category/);
  assert.throws(() => sr5AttackRequest({ attacker, weapon, mode: "suppressive" }), /zone/);
});

test("given dice: steps with colons, commas or spaces; bad faces are refused", () => {
  assert.deepEqual(parseGivenDice(""), {});
  assert.deepEqual(parseGivenDice("soak:goon-1: 5 5, 1; attack: 6"), { "soak:goon-1": [5, 5, 1], attack: [6] });
  assert.throws(() => parseGivenDice("attack 6 5"), /colon/);
  assert.throws(() => parseGivenDice("attack: 6 x"), /not a die face/);
  assert.throws(() => parseGivenDice("attack:"), /no faces/);
});

test("service ids: Foundry ids pass, names are cleaned", () => {
  assert.equal(serviceId("aresAlpha000001"), "aresAlpha000001");
  assert.equal(serviceId("Goon #2"), "Goon-2");
  assert.throws(() => serviceId("!!!"), RequestError);
});

test("an SR5 zone test body", () => {
  assert.deepEqual(sr5ZoneTestRequest({ actor: "goon-2", defender, edge: 1 }), { ruleset: "sr5", actor: "goon-2", defender, edge: 1 });
  assert.equal(sr5ZoneTestRequest({ actor: "a", defender, avoid: "drop_prone" }).avoid, "drop_prone");
});

test("a d100 attack from the manual form", () => {
  const manual = mergeManual("d100", { marksmanship: "65", weapon_name: "Carbine", range_bands: "150:-30, 10:0, 50:-10 medium" }, { ammo: "30" });
  const body = d100AttackRequest({
    attackerId: "vex",
    manual,
    position: { x: 0, y: 0 },
    targets: [{ id: "raider", distance_m: 42, defender: { defense: 40, passive_defense: "", armor: "4" }, position: { x: 42, y: 0 } }],
    options: { aim: "10", modifiers: "cover -20", dice: { attack: [23] } },
  });
  assert.deepEqual(body, {
    ruleset: "d100",
    attacker: { id: "vex", marksmanship: 65, recoil_control: 0, wound_modifier: 0, position: { x: 0, y: 0 } },
    weapon: {
      id: "Carbine", damage: 7, bonus_dice: 2, bonus_die: 6, armor_penetration: 0, shot_rate: 1, ammo: 30,
      range_bands: [{ up_to_m: 10, modifier: 0 }, { up_to_m: 50, modifier: -10, name: "medium" }, { up_to_m: 150, modifier: -30 }],
    },
    shot_rate: 1,
    aim: 10,
    modifiers: [{ source: "cover", value: -20 }],
    targets: [{ id: "raider", distance_m: 42, defender: { defense: 40, armor: 4, position: { x: 42, y: 0 } } }],
    dice: { attack: [23] },
  });
  assert.throws(() => parseRangeBands("far"), /metres:modifier/);
  assert.throws(() => parseModifiers("cover"), /signed number/);
});

test("the manual SR5 form gives an attacker, a weapon and a defender", () => {
  const manual = mergeManual("sr5", { agility: 5, modes: "SA BF" }, { skill: "4" });
  const { attacker: a, weapon: w, defender: d } = sr5FromManual("tok", manual);
  assert.equal(a.agility, 5);
  assert.equal(a.skill, 4);
  assert.deepEqual(w.modes, ["SA", "BF"]);
  assert.equal(w.category, "heavy_pistol");
  assert.deepEqual(d, { reaction: 3, intuition: 3, body: 3, willpower: 3, armor: 9 });
});

test("a d100 zone test body: Athletics, and the defender's passive defense and armour", () => {
  assert.deepEqual(d100ZoneTestRequest({ actor: "raider", athletics: "45", defender: { passive_defense: 30, armor: "" } }), {
    ruleset: "d100", actor: "raider", athletics: 45, defender: { passive_defense: 30 },
  });
  assert.equal(d100ZoneTestRequest({ actor: "r", athletics: 40, avoid: "hit_the_dirt" }).avoid, "hit_the_dirt");
});

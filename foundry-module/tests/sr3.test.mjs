// Shadowrun 3: the sr3e system's actors and items as SR3 request parts (fixtures following its
// published data models, github.com/mirnau/sr3e), the manual form of other systems, the dialog's
// attack and aim, the chat card of a result the service answered, and damage on an sr3e monitor.

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  DialogV2, fixture, FormDataExtended, localize, makeActor, makeChatMessage, makeGame, makeGrid, makeNotifications, makeRenderTemplate, makeScene, makeToken, Roll, stubDocument,
} from "./foundry-stubs.mjs";
import { FirefightApp } from "../src/foundry-app.mjs";
import { CARD_TEMPLATE, cardForEvent } from "../src/chat-card.mjs";
import { MODULE_ID, registerSettings } from "../src/settings.mjs";
import * as sr3e from "../src/sr3-actor.mjs";
import { parseArmor, sr3AttackRequest, sr3FromManual, SR3_MANUAL_DEFAULTS } from "../src/sr3-requests.mjs";
import { mergeManual } from "../src/requests.mjs";
import { sceneActorOf } from "../src/scene-sync.mjs";

const text = (html) => html.replace(/<[^>]+>/g, " ").replace(/&middot;/g, "·").replace(/&mdash;/g, "—").replace(/\s+/g, " ").trim();

test("an sr3e character and its weapons as SR3 attacker, weapon and defender", () => {
  const sam = makeActor(fixture("sr3e-actor-sam.json"));
  const goon = makeActor(fixture("sr3e-actor-goon.json"));
  assert.equal(sr3e.isSr3eActor(sam, "sr3e"), true);
  assert.equal(sr3e.isSr3eActor(sam, "shadowrun5e"), false);
  // The katana (mode "blade") is no ranged weapon.
  assert.deepEqual(sr3e.rangedWeapons(sam).map((i) => i.name), ["AK-97", "Ares Predator"]);
  const predator = sam.items.get("predator0000001");
  assert.deepEqual(sr3e.sr3Weapon(sam, predator), {
    id: "predator0000001", category: "heavy_pistol", power: 9, damage_level: "M", damage_type: "physical",
    modes: ["SA"], ammo: 15, recoil_compensation: 0,
  });
  // Full auto fires SA, BF and FA; recoil compensation is value + mod; the skill as sheets
  // before 0.0.3-alpha.3 wrote it (linkedSkilliD).
  const ak = sam.items.get("ak97Rifle000001");
  const rifle = sr3e.sr3Weapon(sam, ak);
  assert.deepEqual([rifle.category, rifle.modes, rifle.recoil_compensation, rifle.ammo], ["assault_rifle", ["SA", "BF", "FA"], 2, 38]);
  assert.equal(sr3e.weaponSkill(sam, ak), 5);
  assert.deepEqual(sr3e.sr3Attacker(sam, predator, { id: "tokSam000000001" }), {
    id: "tokSam000000001", skill: 4, quickness: 5, intelligence: 4, willpower: 3, strength: 3,
    armor: [{ name: "Lined Coat", ballistic: 4, impact: 2 }],
    // One box of physical damage: Light (SR3 p. 125).
    wounds: "L",
  });
  // The ganger's sheet gives its Combat Pool; an unset one (Sam's 0) is left to the service.
  assert.deepEqual(sr3e.sr3Defender(goon), {
    body: 4, quickness: 4, intelligence: 3, willpower: 3, combat_pool: 5, armor: [{ name: "Armor Jacket", ballistic: 5, impact: 3 }],
    // 8 stun boxes: Serious (SR3 p. 125), for its dodge.
    wounds: "S",
  });
  assert.equal(sr3e.woundLevel(goon), "S", "8 stun boxes");
  // Config keys as stored, as i18n keys, or an older sheet's labels.
  assert.deepEqual(sr3e.weaponModes({ system: { mode: "sr3e.weaponMode.burst" } }), ["SA", "BF"]);
  assert.deepEqual(sr3e.weaponModes({ system: { mode: "Semi Automatic Firearm" } }), ["SA"]);
  assert.deepEqual(sr3e.damageCode({ system: { damage: 6, damageType: "sStun" } }), { power: 6, damage_level: "S", damage_type: "stun" });
  assert.equal(sr3e.weaponCategory({ system: { ammunitionClass: "crossbow" } }), "medium_crossbow");
});

test("an sr3e token's scene actor carries its SR3 sheet, only with the sr3 ruleset", () => {
  const sam = makeActor(fixture("sr3e-actor-sam.json"));
  const doc = { id: "tokSam000000001", name: "Sam", x: 0, y: 0, width: 1, height: 1, hidden: false, actor: sam };
  const grid = makeGrid();
  assert.equal(sceneActorOf(doc, { grid, ruleset: "sr5", systemId: "sr3e" }).sheet, undefined);
  assert.equal(sceneActorOf(doc, { grid, ruleset: "sr3", systemId: "dnd5e" }).sheet, undefined);
  const { sheet } = sceneActorOf(doc, { grid, ruleset: "sr3", systemId: "sr3e" });
  assert.deepEqual([sheet.ruleset, sheet.body, sheet.quickness, sheet.skill, sheet.wounds, sheet.combat_pool], ["sr3", 4, 5, 5, "L", undefined]);
  assert.deepEqual(sheet.weapons.map((w) => [w.id, w.category, w.modes, w.ammo]), [["ak97Rifle000001", "assault_rifle", ["SA", "BF", "FA"], 38], ["predator0000001", "heavy_pistol", ["SA"], 15]]);
  assert.deepEqual(sheet.weapon_skills, { ak97Rifle000001: 5, predator0000001: 4 });
  assert.deepEqual(sheet.armor, [{ name: "Lined Coat", ballistic: 4, impact: 2 }]);
});

test("sr3e condition monitors: ten boxes, stun carries over into physical, physical into overflow", () => {
  const goon = makeActor(fixture("sr3e-actor-goon.json"));
  assert.deepEqual(sr3e.trackUpdate(goon, "stun", 1), { "system.health.stun.value": 9 });
  assert.deepEqual(sr3e.trackUpdate(goon, "stun", 3), { "system.health.stun.value": 10, "system.health.physical.value": 1 });
  goon.system.health.physical.value = 9;
  assert.deepEqual(sr3e.trackUpdate(goon, "physical", 3), { "system.health.physical.value": 10, "system.health.overflow.value": 2 });
});

test("the SR3 manual form: its defaults are the service's worked case, and its requests are checked", () => {
  assert.deepEqual(mergeManual("sr3", {}), SR3_MANUAL_DEFAULTS);
  const { attacker, weapon, defender } = sr3FromManual("tokSam000000001", mergeManual("sr3", {}));
  assert.deepEqual(weapon, { id: "Predator", category: "heavy_pistol", power: 9, damage_level: "M", damage_type: "physical", modes: ["SA"], ammo: 15, recoil_compensation: 0 });
  assert.deepEqual(defender, { body: 4, quickness: 5, intelligence: 4, willpower: 3, armor: [{ name: "armor jacket", ballistic: 5, impact: 3 }] });
  const target = { id: "tokGoon00000001", distance_m: 4, defender, cover: "partial", movement: "running", dodge: "1", resist: "0" };
  const body = sr3AttackRequest({
    attacker, weapon, mode: "SA", targets: [target],
    options: { pool: "2", sight: "smartlink", called_shot: true, movement: "walking", visibility: { vision: "normal", light: "minimal", obscurant: "none" }, dice: { attack: [6] } },
  });
  assert.deepEqual(body.target, { id: "tokGoon00000001", distance_m: 4, defender, cover: "partial", movement: "running", dodge: 1, resist: 0 });
  assert.deepEqual([body.ruleset, body.pool, body.sight, body.called_shot, body.movement, body.visibility], ["sr3", 2, "smartlink", true, "walking", { light: "minimal" }]);
  assert.equal("rounds" in body, false, "rounds go with full auto only");
  assert.throws(() => sr3AttackRequest({ attacker, weapon, mode: "SA", targets: [target, { ...target, id: "b" }] }), { key: "oneTarget" });
  assert.throws(() => sr3AttackRequest({ attacker, weapon, mode: "FA", targets: [target] }), { key: "mode" });
  assert.throws(() => parseArmor("jacket five"), { key: "armorPiece" });
  assert.deepEqual(parseArmor("armor jacket 5/3, helmet 1/1"), [{ name: "armor jacket", ballistic: 5, impact: 3 }, { name: "helmet", ballistic: 1, impact: 1 }]);
});

function table({ systemId = "sr3e", answers = {} } = {}) {
  const calls = [];
  const fetch = async (url, init = {}) => {
    const path = new URL(url).pathname;
    const body = init.body ? JSON.parse(init.body) : undefined;
    calls.push({ method: init.method, path, body });
    const answer = answers[`${init.method} ${path}`];
    const value = typeof answer === "function" ? answer(body) : answer;
    return { status: value ? 201 : 404, ok: Boolean(value), text: async () => JSON.stringify(value ?? { detail: "no route" }) };
  };
  const sam = makeActor(fixture("sr3e-actor-sam.json"));
  const goon = makeActor(fixture("sr3e-actor-goon.json"));
  const grid = makeGrid();
  const samToken = makeToken({ id: "tokSam000000001", name: "Sam", actor: sam, x: 0, y: 0 });
  const goonToken = makeToken({ id: "tokGoon00000001", name: "Halloweener", actor: goon, x: 400, y: 0 });
  const scene = makeScene({ grid, tokens: [samToken, goonToken] });
  const game = makeGame({ isGM: true, systemId, activeGM: { id: "gm000000000002" } });
  const { ChatMessage, messages } = makeChatMessage();
  game.messages = messages;
  registerSettings(game);
  const app = new FirefightApp({
    game, canvas: { grid, scene, tokens: { placeables: [samToken, goonToken] } }, ui: { notifications: makeNotifications() },
    ChatMessage, Roll, renderTemplate: makeRenderTemplate(), DialogV2, FormDataExtended, document: stubDocument, fetch, WebSocket: class {},
  });
  return { app, game, calls, sam, goon, samToken, goonToken, scene };
}

async function playing(options) {
  const t = table(options);
  await t.game.settings.set(MODULE_ID, "serviceUrl", "http://ff");
  await t.game.settings.set(MODULE_ID, "encounterId", "enc1");
  await t.game.settings.set(MODULE_ID, "gmToken", "g");
  await t.game.settings.set(MODULE_ID, "ruleset", "sr3");
  t.game.user.targets = new Set([t.goonToken]);
  return t;
}

test("the dialog for an sr3e actor: its guns and their modes; Fire sends the SR3 attack and writes the rounds left onto the clip", async () => {
  const answer = fixture("sr3-attack.json");
  const { app, calls, sam, samToken } = await playing({
    answers: {
      "POST /v1/encounters/enc1/attacks": { ...answer, state: {} },
      "POST /v1/encounters/enc1/actions": { event_id: "2-0", result: { kind: "action", actor: "tokSam000000001", action: "take_aim", effects: ["aim 1"] }, state: {} },
    },
  });
  const data = app.dialogData(samToken, { itemId: "predator0000001" });
  assert.deepEqual([data.sr3, data.sr3e, data.shadowrun], [true, true, false]);
  const predator = sr3e.sr3Weapon(sam, sam.items.get("predator0000001"));
  const html = await makeRenderTemplate()("modules/firefight/templates/attack-dialog.hbs", data);
  assert.match(html, /<option value="predator0000001" selected>Ares Predator \(9M, RC 0, 15 rounds, skill 4\)<\/option>/);
  assert.match(html, /<select name="mode"><option value="SA">Semi-automatic \(SA\)<\/option><\/select>/);
  assert.match(html, /name="distance.tokGoon00000001" value="4"/);
  for (const name of ["dodge.tokGoon00000001", "resist.tokGoon00000001", "target_movement.tokGoon00000001", "pool", "sight", "rounds", "vision", "light", "obscurant"]) {
    assert.match(html, new RegExp(`name="${name.replace(".", "\\.")}"`), name);
  }
  assert.doesNotMatch(html, /name="smartlink"/, "no SR5 choices");
  DialogV2.respond((dialog) => {
    assert.deepEqual(dialog.buttons.map((b) => b.action), ["fire", "aim", "cancel"]);
    return {
      action: "fire",
      values: {
        weapon: "predator0000001", mode: "SA", pool: 2, sight: "standard", "dodge.tokGoon00000001": 1, "resist.tokGoon00000001": 1,
        dice: "attack: 6 5 5 4 2 1\ndodge:tokGoon00000001: 4\nresist:tokGoon00000001: 4 2 1 1 5",
      },
    };
  });
  const answered = await app.openAttackDialog(samToken, { itemId: "predator0000001" });
  assert.equal(answered.event_id, answer.event_id);
  const sent = calls.at(-1).body;
  assert.equal(sent.ruleset, "sr3");
  assert.deepEqual(sent.attacker, sr3e.sr3Attacker(sam, sam.items.get("predator0000001"), { id: "tokSam000000001" }));
  assert.deepEqual(sent.weapon, predator);
  assert.equal(sent.pool, 2);
  assert.deepEqual(sent.target, { id: "tokGoon00000001", distance_m: 4, defender: sr3e.sr3Defender(app.game.user.targets.values().next().value.actor), cover: "none", movement: "walking", dodge: 1, resist: 1 });
  assert.deepEqual(sent.dice, { attack: [6, 5, 5, 4, 2, 1], "dodge:tokGoon00000001": [4], "resist:tokGoon00000001": [4, 2, 1, 1, 5] });
  assert.equal(sam.items.get("predatorClip001").system.rounds, answer.result.ammo_left, "the clip keeps the rounds left");

  // Take aim is SR3's simple action, nothing more.
  DialogV2.respond(() => ({ action: "aim", values: {} }));
  assert.equal((await app.openAttackDialog(samToken)).event_id, "2-0");
  assert.deepEqual(calls.at(-1).body, { ruleset: "sr3", actor: "tokSam000000001", action: "take_aim" });
});

test("a full-auto burst of the rifle sends its rounds; a weapon with no clip is refused before sending", async () => {
  const { app, calls, sam, samToken } = await playing({ answers: { "POST /v1/encounters/enc1/attacks": (body) => ({ event_id: "2-0", result: { ...fixture("sr3-attack.json").result, ammo_left: body.weapon.ammo - body.rounds }, state: {} }) } });
  const data = app.dialogData(samToken, { itemId: "ak97Rifle000001" });
  await app.attack(samToken, data, { weapon: "ak97Rifle000001", mode: "FA", rounds: 6, skill: "", dice: "" });
  assert.deepEqual([calls.at(-1).body.mode, calls.at(-1).body.rounds, calls.at(-1).body.attacker.skill], ["FA", 6, 5]);
  assert.equal(sam.items.get("ak97Clip0000001").system.rounds, 32);
  sam.items.get("ak97Rifle000001").system.ammoId = "";
  await assert.rejects(app.attack(samToken, data, { weapon: "ak97Rifle000001", mode: "SA", dice: "" }), { key: "noAmmo" });
});

test("other systems: the SR3 manual form, remembered per actor with the rounds left", async () => {
  const { app, calls, sam, samToken } = await playing({
    systemId: "dnd5e",
    answers: { "POST /v1/encounters/enc1/attacks": (body) => ({ event_id: "3-0", result: { ...fixture("sr3-attack.json").result, ammo_left: body.weapon.ammo - 1 }, state: {} }) },
  });
  const data = app.dialogData(samToken);
  assert.deepEqual([data.sr3, data.sr3e], [true, false]);
  assert.equal(data.manual.power, 9);
  const html = await makeRenderTemplate()("modules/firefight/templates/attack-dialog.hbs", data);
  assert.match(html, /Damage level \(L M S D\)<\/label><input type="text" name="damage_level" value="M">/);
  await app.attack(samToken, data, { ...data.manual, skill: "6", power: "10", damage_level: "s", modes: "SA BF", mode: "BF", ammo: "20", pool: "3", dice: "" });
  const sent = calls.at(-1).body;
  assert.deepEqual([sent.attacker.skill, sent.weapon.power, sent.weapon.damage_level, sent.weapon.modes, sent.mode, sent.pool], [6, 10, "S", ["SA", "BF"], "BF", 3]);
  // The target's numbers are its own remembered form (here the defaults).
  assert.equal(sent.target.defender.body, 4);
  assert.equal(sam.getFlag(MODULE_ID, "manual.sr3").ammo, 19);
  assert.equal(app.dialogData(samToken).manual.skill, 6);
});

test("an SR3 card: every test's TN and its sources, the successes, the staged damage and the Combat Pool left", async () => {
  const { event_id, result } = fixture("sr3-attack.json");
  const names = { tokSam000000001: "Sam", predator0000001: "Ares Predator", tokGoon00000001: "Halloweener" };
  const card = cardForEvent({ id: event_id, encounter: "enc", result }, { nameOf: (id) => names[id] ?? id });
  assert.equal(card.ruleset, "sr3");
  assert.equal(card.attackTest.targetNumber, 4);
  const html = await makeRenderTemplate()(CARD_TEMPLATE, card);
  const plain = text(html);
  assert.match(plain, /Sam · Ares Predator · Semi-automatic \(SA\)/);
  assert.match(plain, /TN 4 Successes 4 \/ 6 \(2 from the Combat Pool\) range \(short\), standard vision \+4/);
  assert.match(plain, /Halloweener Hit short/);
  assert.match(plain, /Successes 4 · Dodge \(TN 4\) 1 \/ 1 · Net hits 3 · Armor 5\/3/);
  assert.match(plain, /Damage 9M · ballistic armour 5 · Resistance \(TN 4\) 2 \/ 5 · stages 0/);
  assert.match(plain, /power \+9 ballistic armour -5/);
  assert.match(plain, /M : 3 physical/);
  assert.match(plain, /Combat Pool left this turn Sam 4 \(2 spent\) Halloweener 3 \(2 spent\)/);
  assert.match(html, /data-firefight-action="apply-damage" data-target="tokGoon00000001" data-boxes="3" data-track="physical"/);
  assert.doesNotMatch(html, /second-chance/);
  // Resisted below Light: no boxes, no button.
  const resisted = structuredClone(result);
  Object.assign(resisted.target, { outcome: "resisted" });
  Object.assign(resisted.target.damage, { level: null, boxes: 0, stages: -1 });
  const none = await makeRenderTemplate()(CARD_TEMPLATE, cardForEvent({ id: "x", encounter: "enc", result: resisted }));
  assert.match(text(none), /Resisted.*Staged below Light: no damage/);
  assert.doesNotMatch(none, /apply-damage/);
});

test("Apply damage from an SR3 card goes on the sr3e monitor", async () => {
  const { app, goon } = await playing();
  await app.applyDamage("tokGoon00000001", "stun", 3);
  assert.equal(goon.system.health.stun.value, 10);
  assert.equal(goon.system.health.physical.value, 1);
});

test("every label the SR3 dialog and card build resolves in en.json", async () => {
  const labels = [];
  const walk = (value, path) => {
    if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${path}[${i}]`));
    else if (value && typeof value === "object") for (const [k, v] of Object.entries(value)) walk(v, `${path}.${k}`);
    else if (typeof value === "string" && value.startsWith("FIREFIGHT.")) labels.push([path, value]);
  };
  for (const systemId of ["sr3e", "dnd5e"]) {
    const { app, samToken } = await playing({ systemId });
    walk(app.dialogData(samToken), systemId);
  }
  walk(cardForEvent({ id: "e", encounter: "e", result: fixture("sr3-attack.json").result }), "card");
  assert.ok(labels.length > 60, `${labels.length} labels`);
  for (const [path, key] of labels) assert.notEqual(localize(key), key, `${path}: ${key}`);
  assert.equal(localize("FIREFIGHT.Ruleset.sr3"), "Shadowrun 3 (sr3)");
});

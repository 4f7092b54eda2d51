// Shadowrun 4: the shadowrun4e system's actors and items as SR4 request parts (fixtures following
// its published data models, github.com/Tarislowatsch/Shadowrun4-FoundryVTT), the manual form of
// other systems, the dialog's attack and grenade, the chat cards of an attack with its scatter and
// blast and of grenades going off on an advance, and damage on a shadowrun4e monitor.

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  DialogV2, fixture, FormDataExtended, localize, makeActor, makeChatMessage, makeGame, makeGrid, makeNotifications, makeRenderTemplate, makeScene, makeToken, Roll, stubDocument,
} from "./foundry-stubs.mjs";
import { FirefightApp } from "../src/foundry-app.mjs";
import { CARD_TEMPLATE, cardForEvent } from "../src/chat-card.mjs";
import { advancesBetween, RULESETS_WITH_PASSES } from "../src/combat-sync.mjs";
import { MODULE_ID, registerSettings } from "../src/settings.mjs";
import * as sr4e from "../src/sr4-actor.mjs";
import { sr4AttackRequest, sr4AvailableModes, sr4FromManual, SR4_MANUAL_DEFAULTS } from "../src/sr4-requests.mjs";
import { mergeManual } from "../src/requests.mjs";
import { sceneActorOf } from "../src/scene-sync.mjs";

const text = (html) => html.replace(/<[^>]+>/g, " ").replace(/&middot;/g, "·").replace(/&rarr;/g, "→").replace(/&mdash;/g, "—").replace(/\s+/g, " ").trim();

test("a shadowrun4e character and its guns as SR4 attacker, weapon and defender", () => {
  const sam = makeActor(fixture("sr4e-actor-sam.json"));
  const goon = makeActor(fixture("sr4e-actor-goon.json"));
  assert.equal(sr4e.isSr4eActor(sam, "shadowrun4e"), true);
  assert.equal(sr4e.isSr4eActor(sam, "shadowrun5e"), false);
  // The katana is a melee weapon.
  assert.deepEqual(sr4e.rangedWeapons(sam).map((i) => i.name), ["AK-97", "Ares Predator"]);
  const predator = sam.items.get("predator0000001");
  assert.deepEqual(sr4e.sr4Weapon(predator), {
    id: "predator0000001", category: "heavy_pistol", damage: 5, damage_type: "P", ap: -1, rc: 0, modes: ["SA"], ammo: 15, smartgun: true,
  });
  // The mode and category as i18n keys; the recoil compensation its mods give (effectiveRC).
  const ak = sr4e.sr4Weapon(sam.items.get("ak97Rifle000001"));
  assert.deepEqual([ak.category, ak.modes, ak.rc, ak.ammo], ["assault_rifle", ["SA", "BF", "FA"], 2, 38]);
  assert.equal(sr4e.weaponSkill(sam, sam.items.get("ak97Rifle000001")), 5);
  assert.deepEqual(sr4e.sr4Attacker(sam, predator, { id: "tokSam000000001" }), {
    id: "tokSam000000001", agility: 5, skill: 4, strength: 3, intuition: 4, edge: 3, wound_modifier: 0,
  });
  // The ganger's wounds go with its defense (SR4 core, "Wound Modifiers").
  assert.deepEqual(sr4e.sr4Defender(goon), { reaction: 3, body: 4, edge: 1, ballistic_armor: 8, impact_armor: 6, wound_modifier: -3 });
  assert.equal(sr4e.woundModifier(goon), -3);
  assert.deepEqual(sr4e.weaponModes({ system: { mode: "SINGLE_SEMI_BURST_FULL_AUTO" } }), ["SS", "SA", "BF", "FA"]);
  assert.deepEqual(sr4e.weaponModes({ system: { mode: "sr4.shooting.single" } }), ["SS"]);
  assert.deepEqual(sr4AvailableModes(["SA", "BF", "FA"]), ["SA", "BF", "LB", "FB", "suppressive"]);
});

test("a shadowrun4e token's scene actor carries its SR4 sheet, its Initiative Passes among it", () => {
  const sam = makeActor(fixture("sr4e-actor-sam.json"));
  const doc = { id: "tokSam000000001", name: "Sam", x: 0, y: 0, width: 1, height: 1, hidden: false, actor: sam };
  const grid = makeGrid();
  assert.equal(sceneActorOf(doc, { grid, ruleset: "sr5", systemId: "shadowrun4e" }).sheet, undefined);
  const { sheet } = sceneActorOf(doc, { grid, ruleset: "sr4", systemId: "shadowrun4e" });
  assert.deepEqual([sheet.ruleset, sheet.reaction, sheet.body, sheet.impact_armor, sheet.initiative_passes, sheet.skill], ["sr4", 4, 4, 4, 2, 5]);
  assert.deepEqual(sheet.weapon_skills, { ak97Rifle000001: 5, predator0000001: 4 });
});

test("shadowrun4e condition monitors: stun past its last box carries into physical", () => {
  const goon = makeActor(fixture("sr4e-actor-goon.json"));
  assert.deepEqual(sr4e.trackUpdate(goon, "stun", 1), { "system.conditionMonitor.stun.value": 10 });
  assert.deepEqual(sr4e.trackUpdate(goon, "stun", 3), { "system.conditionMonitor.stun.value": 10, "system.conditionMonitor.physical.value": 2 });
  assert.deepEqual(sr4e.trackUpdate(goon, "physical", 12), { "system.conditionMonitor.physical.value": 10 });
});

test("the SR4 manual form, and requests checked before sending: modes, bursts, grenades", () => {
  assert.deepEqual(mergeManual("sr4", {}), SR4_MANUAL_DEFAULTS);
  const { attacker, weapon, defender } = sr4FromManual("tokSam000000001", mergeManual("sr4", { modes: "SA BF FA", category: "assault_rifle" }));
  assert.deepEqual(weapon.modes, ["SA", "BF", "FA"]);
  assert.deepEqual(defender, { reaction: 3, body: 3, dodge: 0, edge: 2, ballistic_armor: 6, impact_armor: 4 });
  const target = { id: "tokGoon00000001", distance_m: 20, defender, cover: "good", prone: true };
  const lb = sr4AttackRequest({ attacker, weapon, mode: "LB", targets: [target], options: { burst: "wide", grazing: true, smartlink: true, visibility: { light: "partial" } } });
  assert.deepEqual([lb.ruleset, lb.mode, lb.burst, lb.grazing, lb.smartlink, lb.visibility], ["sr4", "LB", "wide", true, true, { light: "partial" }]);
  assert.deepEqual(lb.targets, [{ id: "tokGoon00000001", distance_m: 20, defender, cover: "good", prone: true }]);
  assert.equal("burst" in sr4AttackRequest({ attacker, weapon, mode: "SA", targets: [target] }), false, "bursts only");
  assert.throws(() => sr4AttackRequest({ attacker, weapon: { ...weapon, modes: ["SA"] }, mode: "FB", targets: [target] }), { key: "mode" });
  // A grenade at a point: no target, a success test; the others on the map are where it may reach.
  const thrown = sr4AttackRequest({
    attacker, weapon: { ...weapon, category: "standard_grenade", modes: ["SS"] }, mode: "SS",
    options: { grenade: { type: "high_explosive", delivery: "standard", falloff_per_m: "", dv: "11" }, origin: { x: 0, y: 0 }, aim_point: { x: 8, y: 2 }, bystanders: [{ id: "goon", position: { x: 9, y: 2 } }], confined: true },
  });
  assert.deepEqual(thrown.grenade, { type: "high_explosive", delivery: "standard", dv: 11 });
  assert.deepEqual([thrown.aim_point, thrown.origin, thrown.confined, "targets" in thrown], [{ x: 8, y: 2 }, { x: 0, y: 0 }, true, false]);
  assert.throws(() => sr4AttackRequest({ attacker, weapon: { ...weapon, modes: ["SS"] }, mode: "SS", options: { grenade: { type: "smoke" } } }), { key: "grenadeAim" });
});

test("sr4 counts initiative passes: a tracker's new pass is a pass of the encounter", () => {
  assert.ok(RULESETS_WITH_PASSES.has("sr4"));
  const snap = (round, turn, actor, pass) => ({ round, turn, actor, pass });
  assert.deepEqual(advancesBetween(snap(1, 2, "goon", 1), snap(1, 0, "sam", 2), { ruleset: "sr4" }), [{ to: "initiative_pass" }, { to: "action_phase", actor: "sam" }]);
});

function table({ systemId = "shadowrun4e", answers = {} } = {}) {
  const calls = [];
  const fetch = async (url, init = {}) => {
    const path = new URL(url).pathname;
    const body = init.body ? JSON.parse(init.body) : undefined;
    calls.push({ method: init.method, path, body });
    const answer = answers[`${init.method} ${path}`];
    const value = typeof answer === "function" ? answer(body) : answer;
    return { status: value ? 201 : 404, ok: Boolean(value), text: async () => JSON.stringify(value ?? { detail: "no route" }) };
  };
  const sam = makeActor(fixture("sr4e-actor-sam.json"));
  const goon = makeActor(fixture("sr4e-actor-goon.json"));
  const grid = makeGrid();
  const samToken = makeToken({ id: "tokSam000000001", name: "Sam", actor: sam, x: 0, y: 0 });
  const goonToken = makeToken({ id: "tokGoon00000001", name: "Halloweener", actor: goon, x: 1000, y: 0 });
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
  await t.game.settings.set(MODULE_ID, "ruleset", "sr4");
  t.game.user.targets = new Set([t.goonToken]);
  return t;
}

test("the dialog for a shadowrun4e actor: its guns and modes; Fire sends the SR4 burst and writes the rounds left onto the gun", async () => {
  const answer = { event_id: "2-0", result: { ...fixture("sr4-grenade-attack.json").result, ammo_left: 32 }, state: {} };
  const { app, calls, sam, goon, samToken } = await playing({
    answers: {
      "POST /v1/encounters/enc1/attacks": answer,
      "POST /v1/encounters/enc1/actions": { event_id: "3-0", result: { kind: "action", actor: "tokSam000000001", action: "take_aim", effects: ["aim 1"] }, state: {} },
    },
  });
  const data = app.dialogData(samToken, { itemId: "ak97Rifle000001" });
  const rifle = sr4e.sr4Weapon(sam.items.get("ak97Rifle000001"));
  assert.deepEqual([data.sr4, data.sr4e, data.shadowrun], [true, true, false]);
  const html = await makeRenderTemplate()("modules/firefight/templates/attack-dialog.hbs", data);
  assert.match(html, /<option value="ak97Rifle000001" selected>AK-97 \(DV 6P, AP -1, RC 2, 38 rounds, skill 5\)<\/option>/);
  assert.match(html, /<option value="LB">Long burst \(LB\)<\/option><option value="FB">Full burst \(FB\)<\/option>/);
  for (const name of ["burst", "choke", "ammo", "flag.grazing", "flag.confined", "grenade_type", "grenade_delivery", "airburst", "aim_point", "dodge.tokGoon00000001", "hidden.tokGoon00000001", "obscurant"]) {
    assert.match(html, new RegExp(`name="${name.replace(".", "\\.")}"`), name);
  }
  assert.doesNotMatch(html, /name="smartlink"/, "no SR5 choices");
  DialogV2.respond((dialog) => {
    assert.deepEqual(dialog.buttons.map((b) => b.action), ["fire", "aim", "cancel"]);
    return { action: "fire", values: { weapon: "ak97Rifle000001", mode: "BF", burst: "wide", "flag.grazing": true, "dodge.tokGoon00000001": 2, dice: "attack: 6 5 5 2" } };
  });
  const fired = await app.openAttackDialog(samToken, { itemId: "ak97Rifle000001" });
  assert.equal(fired?.event_id, "2-0");
  const sent = calls.at(-1).body;
  assert.deepEqual([sent.ruleset, sent.mode, sent.burst, sent.grazing], ["sr4", "BF", "wide", true]);
  assert.deepEqual(sent.weapon, rifle);
  assert.deepEqual(sent.targets, [{ id: "tokGoon00000001", distance_m: 10, defender: { ...sr4e.sr4Defender(goon), dodge: 2 }, cover: "none" }]);
  assert.deepEqual(sent.dice, { attack: [6, 5, 5, 2] });
  assert.equal(sam.items.get("ak97Rifle000001").system.currentAmmo, 32, "the gun keeps the rounds left");

  DialogV2.respond(() => ({ action: "aim", values: {} }));
  assert.equal((await app.openAttackDialog(samToken)).event_id, "3-0");
  assert.deepEqual(calls.at(-1).body, { ruleset: "sr4", actor: "tokSam000000001", action: "take_aim" });
});

test("a grenade from the dialog: at a point typed in, with the other tokens where its blast may reach", async () => {
  const { app, calls, samToken } = await playing({ systemId: "dnd5e", answers: { "POST /v1/encounters/enc1/attacks": { ...fixture("sr4-grenade-attack.json"), state: {} } } });
  const data = app.dialogData(samToken);
  assert.deepEqual([data.sr4, data.sr4e], [true, false]);
  await app.attack(samToken, data, { ...data.manual, category: "standard_grenade", modes: "SS", mode: "SS", grenade_type: "fragmentation", grenade_delivery: "aerodynamic", airburst: true, aim_point: "8 -2", dice: "" });
  const sent = calls.at(-1).body;
  assert.deepEqual(sent.grenade, { type: "fragmentation", delivery: "aerodynamic", airburst: true });
  assert.deepEqual([sent.aim_point, sent.origin, "targets" in sent], [{ x: 8, y: -2 }, { x: 0, y: 0 }, false]);
  assert.deepEqual(sent.bystanders.map((b) => b.id), ["tokGoon00000001"]);
});

test("an SR4 card: the attack, the grenade's scatter from the aimed point to where it landed, and its blast with every actor it reached", async () => {
  const { event_id, result } = fixture("sr4-grenade-attack.json");
  const names = { tokSam000000001: "Sam", frag: "Frag grenade", tokGoon00000001: "Halloweener" };
  const card = cardForEvent({ id: event_id, encounter: "enc", result }, { nameOf: (id) => names[id] ?? id });
  assert.equal(card.ruleset, "sr4");
  const html = await makeRenderTemplate()(CARD_TEMPLATE, card);
  const plain = text(html);
  assert.match(plain, /Sam · Frag grenade · Single shot \(SS\)/);
  assert.match(plain, /Pool 3 agility \+5 skill \+4 range: extreme -6/);
  assert.match(plain, /Aimed at \(10, 0\); direction 2; 6 m rolled, 2 net hits at 2 m → 2 m, at \(11, -1\.7\)/);
  assert.match(plain, /Blast g\d+ · fragmentation · 12P · AP 5 · -1 per m/);
  assert.match(plain, /Halloweener 2 m, DV 11 · Armor 11 · Soak 9 \/ 15 · 2 stun/);
  assert.match(plain, /tokGoon00000002 4\.8 m, DV 8 · Armor 11 · Soak 5 \/ 15 · 3 stun/);
  assert.match(html, /data-firefight-action="apply-damage" data-target="tokGoon00000001" data-boxes="2" data-track="stun"/);
  assert.ok(card.dice.some((d) => d.step === "soak:tokGoon00000001"), "the blast's dice with the attack's");
});

test("grenades that go off on an advance get their own card; an advance with none gets no card", async () => {
  const blast = fixture("sr4-grenade-attack.json").result.blast;
  const advance = { kind: "advance", to: "initiative_pass", turn: { combat_turn: 1, initiative_pass: 2, action_phase: null }, effects: [], went_off: [{ ...blast, grenade: "g1" }] };
  const card = cardForEvent({ id: "5-0", encounter: "enc", result: advance });
  assert.equal(card.kind, "blast");
  const plain = text(await makeRenderTemplate()(CARD_TEMPLATE, card));
  assert.match(plain, /Grenades go off/);
  assert.match(plain, /Blast g1 · fragmentation · 12P/);
  assert.match(plain, /Halloweener|tokGoon00000001 2 m, DV 11/);
  assert.equal(cardForEvent({ id: "6-0", encounter: "enc", result: { ...advance, went_off: [] } }), null);
});

test("Apply damage from an SR4 card goes on the shadowrun4e monitor", async () => {
  const { app, goon } = await playing();
  await app.applyDamage("tokGoon00000001", "stun", 3);
  assert.equal(goon.system.conditionMonitor.stun.value, 10);
  assert.equal(goon.system.conditionMonitor.physical.value, 2);
});

test("every label the SR4 dialog and cards build resolves in en.json", async () => {
  const labels = [];
  const walk = (value, path) => {
    if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${path}[${i}]`));
    else if (value && typeof value === "object") for (const [k, v] of Object.entries(value)) walk(v, `${path}.${k}`);
    else if (typeof value === "string" && value.startsWith("FIREFIGHT.")) labels.push([path, value]);
  };
  for (const systemId of ["shadowrun4e", "dnd5e"]) {
    const { app, samToken } = await playing({ systemId });
    walk(app.dialogData(samToken), systemId);
  }
  walk(cardForEvent({ id: "e", encounter: "e", result: fixture("sr4-grenade-attack.json").result }), "card");
  assert.ok(labels.length > 60, `${labels.length} labels`);
  for (const [path, key] of labels) assert.notEqual(localize(key), key, `${path}: ${key}`);
  assert.equal(localize("FIREFIGHT.Ruleset.sr4"), "Shadowrun 4 (sr4)");
});

test("a held grenade, as the service lists it among the zones, is drawn as a circle template of its reach", async () => {
  const { zoneToTemplateData } = await import("../src/zones.mjs");
  // GET .../zones of an encounter holding a thrown fragmentation grenade (12P, -1 per metre).
  const held = { id: "g1", shooter: "tokSam000000001", shape: "circle", hits: 0, penalty: 0, kind: "grenade (fragmentation)", lasts: "until it goes off: the next initiative pass, at the thrower's score", center: { x: 12.5, y: -4.33 }, radius_m: 12 };
  const grid = makeGrid({ size: 100, distance: 1, units: "m" });
  const template = zoneToTemplateData(held, grid, { encounter: "enc" });
  assert.deepEqual([template.t, template.distance, template.flags.firefight.zoneId], ["circle", 12, "g1"]);
});

// Each supported release of the three Shadowrun systems (tests/system-fixtures.mjs): the same
// characters, stored as each release stores them, read as the same request parts; what differs
// (shadowrun5e's armour and initiative pass, shadowrun4e's rounds and monitors) read and written
// where that release keeps it; and shadowrun5e's passes, per line, through module.mjs's hooks.

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  ApplicationV2, DialogV2, fixture, FormDataExtended, Hooks, makeActor, makeChatMessage, makeCombat, makeGame, makeGrid, makeNotifications,
  makeRenderTemplate, makeScene, makeToken, Roll, StubElement, stubDocument,
} from "./foundry-stubs.mjs";
import { releasesOf } from "./system-fixtures.mjs";
import { makeSr5Combat } from "./sr5-combat-stub.mjs";
import { compareVersions, versionLine } from "../src/system-versions.mjs";
import { isActorCombatant, trackerMoved, trackerSnapshot } from "../src/combat-sync.mjs";
import { FirefightApp } from "../src/foundry-app.mjs";
import { MODULE_ID, registerSettings } from "../src/settings.mjs";
import { sceneActorOf } from "../src/scene-sync.mjs";
import { mirrorUpdate } from "../src/monitor-sync.mjs";
import * as sr5 from "../src/sr5-actor.mjs";
import * as sr4e from "../src/sr4-actor.mjs";
import * as sr3e from "../src/sr3-actor.mjs";

const tokenDoc = (actor) => ({ id: "tokSam000000001", name: "Sam", x: 0, y: 0, width: 1, height: 1, hidden: false, actor });

test("versions order as releases do, pre-releases before theirs; a line is the last one begun", () => {
  assert.equal(compareVersions("0.34.0", "0.33.2"), 1);
  assert.equal(compareVersions("0.9.0", "0.10.0"), -1);
  assert.equal(compareVersions("v1.2.0", "1.2"), 0);
  assert.equal(compareVersions("0.0.3-beta.0", "0.0.3-alpha.6"), 1);
  assert.equal(compareVersions("0.0.3-beta.0", "0.0.3"), -1);
  assert.equal(compareVersions("0.0.3-beta.10", "0.0.3-beta.9"), 1);
  const lines = [{ since: "0.25.0" }, { since: "0.34.0" }, { since: "0.35.0" }];
  assert.equal(versionLine(lines, "0.33.2"), lines[0]);
  assert.equal(versionLine(lines, "0.34.5"), lines[1]);
  assert.equal(versionLine(lines, "0.36.2"), lines[2]);
  assert.equal(versionLine(lines, "0.20.0"), lines[0], "older than the table: its oldest line");
  assert.equal(versionLine(lines, undefined), lines[2], "no version: the newest");
});

// ---- shadowrun5e ---------------------------------------------------------------------------

for (const release of releasesOf("shadowrun5e")) {
  const { version } = release;
  const sam = () => makeActor(fixture(release.sam));
  const goon = () => makeActor(fixture(release.goon));

  test(`shadowrun5e ${version}: Sam's rifle, his attack and the goon's defence read the same in every release`, () => {
    const actor = sam();
    const rifle = actor.items.get("aresAlpha000001");
    assert.deepEqual(sr5.sr5Weapon(rifle, { version }), {
      id: "aresAlpha000001", category: "assault_rifle", damage: 11, damage_type: "P", ap: -2, accuracy: 5, rc: 2, modes: ["SA", "BF", "FA"], ammo: 42,
    });
    assert.deepEqual(sr5.sr5Attacker(actor, rifle, { id: "tokSam000000001", version }), {
      id: "tokSam000000001", agility: 6, strength: 4, willpower: 3, intuition: 4, edge: 3, skill: 6, wound_modifier: -1,
    });
    // The goon's armour: 9 in every release, wherever it keeps it (0.34+: armor.rating).
    assert.deepEqual(sr5.sr5Defender(goon(), { version }), {
      reaction: 4, intuition: 3, body: 4, willpower: 3, armor: 9, agility: 3, charisma: 2, gymnastics: 0, perception: 2, wound_modifier: 0,
    });
    const { sheet } = sceneActorOf(tokenDoc(actor), { grid: makeGrid(), ruleset: "sr5", systemId: "shadowrun5e", systemVersion: version });
    assert.deepEqual([sheet.armor, sheet.edge, sheet.skill, sheet.wound_modifier], [12, 3, 6, -1]);
    // Goon: 8 of 10 stun boxes; 5 more fill the track and overflow half of 3 into physical.
    assert.deepEqual(sr5.trackUpdate(goon(), "stun", 5, { version }), { "system.track.stun.value": 10, "system.track.physical.value": 1 });
    assert.deepEqual(sr5.ammoUpdate(30, { version }), { "system.ammo.current.value": 30 });
  });

  test(`shadowrun5e ${version}: the combat's pass where the release keeps it, its padding combatants stand for nobody`, () => {
    const system = { id: "shadowrun5e", version };
    const data = fixture(release.combat);
    const combat = makeCombat({ round: data.round, turn: data.turn, combatants: data.combatants, system: data.system, flags: data.flags });
    const idOf = (c) => c.tokenId;
    assert.deepEqual(trackerSnapshot(combat, idOf, system), { round: 1, turn: data.turn, pass: 2, actor: "tokSam000000001" });
    // The tracker's turn on a padding combatant (0.34+: nextPass adds them before it steps on).
    const pads = data.combatants.filter((c) => c.system?.pad);
    assert.equal(pads.length, compareVersions(version, "0.34.0") >= 0 ? 2 : 0);
    for (const pad of pads) assert.equal(isActorCombatant(pad, system), false);
    if (pads.length) assert.equal(trackerSnapshot(makeCombat({ ...data, turn: 0, system: data.system, flags: data.flags }), idOf, system).actor, null);
    // An update of the pass alone moves the tracker (the hook's expanded diff); the other field does not.
    const passChange = compareVersions(version, "0.34.0") >= 0 ? { system: { pass: 3 } } : { flags: { shadowrun5e: { combatInitiativePass: 3 } } };
    const otherChange = compareVersions(version, "0.34.0") >= 0 ? { flags: { shadowrun5e: { combatInitiativePass: 3 } } } : { system: { pass: 3 } };
    assert.equal(trackerMoved({ _id: "c", ...passChange }, system), true);
    assert.equal(trackerMoved({ _id: "c", ...otherChange }, system), false);
  });
}

// ---- shadowrun4e ---------------------------------------------------------------------------

for (const release of releasesOf("shadowrun4e")) {
  const { version } = release;
  const old = compareVersions(version, "0.2.0") < 0;
  const sam = () => makeActor(fixture(release.sam));
  const goon = () => makeActor(fixture(release.goon));

  test(`shadowrun4e ${version}: Sam's guns with their rounds, his attack and the ganger's defence`, () => {
    const actor = sam();
    assert.deepEqual(sr4e.rangedWeapons(actor, { version }).map((i) => i.name), ["AK-97", "Ares Predator"]);
    // 0.1.x has no category field (the dialog asks) and no loaded rounds: a full load, 38 (0.1.x's `ammo` "38(c)").
    assert.deepEqual(sr4e.sr4Weapon(actor.items.get("ak97Rifle000001"), { version }), {
      id: "ak97Rifle000001", category: old ? null : "assault_rifle", damage: 6, damage_type: "P", ap: -1, rc: 2, modes: ["SA", "BF", "FA"], ammo: 38, smartgun: false,
    });
    assert.deepEqual(sr4e.sr4Weapon(actor.items.get("predator0000001"), { version, category: "heavy_pistol" }), {
      id: "predator0000001", category: "heavy_pistol", damage: 5, damage_type: "P", ap: -1, rc: 0, modes: ["SA"], ammo: 15, smartgun: true,
    });
    assert.deepEqual(sr4e.sr4Attacker(actor, actor.items.get("ak97Rifle000001"), { id: "tokSam000000001", version }), {
      id: "tokSam000000001", agility: 5, skill: 5, strength: 3, intuition: 4, edge: 3, wound_modifier: 0,
    });
    assert.deepEqual(sr4e.sr4Defender(goon(), { version }), { reaction: 3, body: 4, edge: 1, ballistic_armor: 8, impact_armor: 6, wound_modifier: -3 });
    assert.equal(sr4e.initiativePasses(actor, { version }), 2);
  });

  test(`shadowrun4e ${version}: the rounds left and the boxes marked are written where the release keeps them`, () => {
    const rifle = sam().items.get("ak97Rifle000001");
    const ammo = sr4e.ammoUpdate(32, { version });
    assert.deepEqual(ammo, old ? { "flags.firefight.rounds": 32 } : { "system.currentAmmo": 32 });
    const [[path, value]] = Object.entries(ammo);
    const keys = path.split(".");
    keys.slice(0, -1).reduce((o, k) => (o[k] ??= {}), rifle)[keys.at(-1)] = value;
    assert.equal(sr4e.sr4Weapon(rifle, { version }).ammo, 32, "the next attack reads what the last one left");
    // The ganger's 9 of 10 stun boxes: 3 more fill it and carry 2 into physical.
    const monitor = old ? "current" : "value";
    assert.deepEqual(sr4e.trackUpdate(goon(), "stun", 3, { version }), {
      [`system.conditionMonitor.stun.${monitor}`]: 10, [`system.conditionMonitor.physical.${monitor}`]: 2,
    });
    const systems = { systemId: "shadowrun4e", systemVersion: version, ruleset: "sr4" };
    assert.deepEqual(mirrorUpdate(goon(), systems, { physical: 1, stun: 9 }), { [`system.conditionMonitor.physical.${monitor}`]: 1 });
  });

  test(`shadowrun4e ${version}: Fire from the dialog writes the rounds left where the next attack reads them`, async () => {
    const answer = { event_id: "2-0", result: { ...fixture("sr4-grenade-attack.json").result, ammo_left: 32 }, state: {} };
    const { app, calls, actor, samToken } = await table({ systemId: "shadowrun4e", version, fixtures: release, answers: { "POST /v1/encounters/enc1/attacks": answer } });
    DialogV2.respond(() => ({ action: "fire", values: { weapon: "ak97Rifle000001", mode: "BF", category: "assault_rifle", dice: "attack: 6 5 5 2" } }));
    await app.openAttackDialog(samToken, { itemId: "ak97Rifle000001" });
    assert.equal(calls.at(-1).body.weapon.ammo, 38);
    const rifle = actor.items.get("ak97Rifle000001");
    assert.equal(old ? rifle.flags.firefight.rounds : rifle.system.currentAmmo, 32);
    if (old) assert.equal(rifle.system.ammo, "38(c)", "the capacity stays as the book writes it");
    assert.equal(sr4e.sr4Weapon(rifle, { version }).ammo, 32);
  });
}

// ---- The combat's initiative pass in shadowrun4e and sr3e ------------------------------------

for (const release of [...releasesOf("shadowrun4e"), ...releasesOf("sr3e")]) {
  const { systemId, version } = release;
  // shadowrun4e's SR4Combat keeps a pass from 1.0.1 on (src/documents/combat.js); sr3e's SR3ECombat in every release.
  const keepsPass = systemId === "sr3e" || compareVersions(version, "1.0.1") >= 0;
  test(`${systemId} ${version}: the combat's initiative pass ${keepsPass ? "is its flag" : "is none: the combat is Foundry's own"}`, () => {
    const system = { id: systemId, version };
    const flags = systemId === "sr3e" ? { sr3e: { initiativePass: 2 } } : { shadowrun4e: { initiativePass: 2 } };
    const combat = makeCombat({ round: 1, turn: 0, combatants: [{ tokenId: "tokSam000000001" }], flags });
    assert.deepEqual(trackerSnapshot(combat, (c) => c.tokenId, system), { round: 1, turn: 0, pass: keepsPass ? 2 : 1, actor: "tokSam000000001" });
    // shadowrun4e sets the pass with the turn (alone when the turn stays); sr3e sets it alone,
    // then the turn, whose update is the move (the combatant still on the turn has no phase in it).
    assert.equal(trackerMoved({ _id: "c", flags }, system), keepsPass && systemId === "shadowrun4e");
    assert.equal(trackerMoved({ _id: "c", flags, turn: 0 }, system), true);
  });
}

// ---- sr3e ----------------------------------------------------------------------------------

for (const release of releasesOf("sr3e")) {
  const { version } = release;
  test(`sr3e ${version}: Sam's guns, their linked skills and clips, and the ganger's defence`, () => {
    const actor = makeActor(fixture(release.sam));
    const ak = actor.items.get("ak97Rifle000001");
    assert.deepEqual(sr3e.sr3Weapon(actor, ak, { version }), {
      id: "ak97Rifle000001", category: "assault_rifle", power: 8, damage_level: "M", damage_type: "physical", modes: ["SA", "BF", "FA"], ammo: 38, recoil_compensation: 2,
    });
    // alpha.6's sheet links the rifle with its first specialization ("id::0"); the skill is the item's.
    assert.equal(sr3e.weaponSkill(actor, ak, { version }), 5);
    assert.equal(sr3e.weaponSkill(actor, actor.items.get("predator0000001"), { version }), 4);
    assert.deepEqual(sr3e.sr3Defender(makeActor(fixture(release.goon)), { version }), {
      body: 4, quickness: 4, intelligence: 3, willpower: 3, combat_pool: 5, armor: [{ name: "Armor Jacket", ballistic: 5, impact: 3 }], wounds: "S",
    });
    assert.deepEqual(sr3e.ammoUpdate(30, { version }), { "system.rounds": 30 });
    assert.deepEqual(sr3e.trackUpdate(makeActor(fixture(release.goon)), "stun", 3, { version }), { "system.health.stun.value": 10, "system.health.physical.value": 1 });
  });
}

test("sr3e: a weapon linked with a specialization (\"id::n\") still names its skill item", () => {
  const actor = makeActor(fixture("sr3e-actor-sam.json"));
  const ak = actor.items.get("ak97Rifle000001");
  ak.system.linkedSkillId = "riflesSkill0001::2";
  assert.equal(sr3e.weaponSkill(actor, ak), 5);
});

// ---- A table: the app with one system release, the service faked -----------------------------

async function table({ systemId, version, fixtures, answers = {} }) {
  // The release on the Foundry generation it runs on.
  const generation = fixtures.foundry;
  const calls = [];
  const fetch = async (url, init = {}) => {
    const path = new URL(url).pathname;
    const body = init.body ? JSON.parse(init.body) : undefined;
    calls.push({ method: init.method, path, body });
    const value = answers[`${init.method} ${path}`];
    return { status: value ? 201 : 404, ok: Boolean(value), text: async () => JSON.stringify(value ?? { detail: "no route" }) };
  };
  const actor = makeActor(fixture(fixtures.sam));
  const goon = makeActor(fixture(fixtures.goon));
  const grid = makeGrid();
  const samToken = makeToken({ id: "tokSam000000001", name: "Sam", actor, x: 0, y: 0 });
  const goonToken = makeToken({ id: "tokGoon00000001", name: "Halloweener", actor: goon, x: 1000, y: 0 });
  const scene = makeScene({ grid, tokens: [samToken, goonToken] });
  const game = makeGame({ isGM: true, systemId, systemVersion: version, activeGM: { id: "gm000000000002" }, generation });
  const { ChatMessage, messages } = makeChatMessage();
  game.messages = messages;
  registerSettings(game);
  const app = new FirefightApp({
    game, canvas: { grid, scene, tokens: { placeables: [samToken, goonToken] } }, ui: { notifications: makeNotifications() },
    ChatMessage, Roll, renderTemplate: makeRenderTemplate(), DialogV2, FormDataExtended, document: stubDocument, fetch, WebSocket: class {},
  });
  await game.settings.set(MODULE_ID, "serviceUrl", "http://ff");
  await game.settings.set(MODULE_ID, "encounterId", "enc1");
  await game.settings.set(MODULE_ID, "gmToken", "g");
  await game.settings.set(MODULE_ID, "ruleset", "sr4");
  game.user.targets = new Set([goonToken]);
  return { app, calls, actor, samToken };
}

// ---- shadowrun5e's passes through module.mjs's hooks, per line -------------------------------

const saved = Object.fromEntries(["Hooks", "game", "canvas", "ui", "ChatMessage", "Roll", "foundry", "document", "HTMLElement", "fetch", "WebSocket"].map((k) => [k, globalThis[k]]));

class QuietSocket {
  constructor() {
    this.readyState = 0;
  }
  addEventListener() {}
  close() {}
}

/** The GM's client booted in Foundry's order with the combat's encounter; the service answers every advance. */
async function bootGm({ version, generation, combat }) {
  const advances = [];
  const fetch = async (url, init = {}) => {
    const path = new URL(url).pathname;
    const body = init.body ? JSON.parse(init.body) : undefined;
    if (path === "/v1/encounters/enc1/advance") advances.push(body.actor ? `${body.to} ${body.actor}` : body.to);
    const value = path === "/readyz" ? { status: "ok" } : path === "/v1/encounters/enc1/advance" ? { event_id: "1-0", result: { kind: "advance", to: body.to }, state: {} } : null;
    return { status: value ? 200 : 404, ok: Boolean(value), text: async () => JSON.stringify(value ?? { detail: "no route" }) };
  };
  Hooks.reset();
  const game = makeGame({ isGM: true, phase: "init", systemId: "shadowrun5e", systemVersion: version, generation });
  game.modules = new Map([["firefight", {}]]);
  game.combat = combat;
  const grid = makeGrid();
  const { ChatMessage, messages } = makeChatMessage();
  game.messages = messages;
  Object.assign(globalThis, {
    Hooks, game, canvas: { grid, scene: makeScene({ grid }), tokens: { placeables: [] } }, ui: { notifications: makeNotifications() }, ChatMessage, Roll,
    document: stubDocument, HTMLElement: StubElement, fetch, WebSocket: QuietSocket,
    foundry: { applications: { api: { DialogV2, ApplicationV2 }, ux: { FormDataExtended }, handlebars: { renderTemplate: makeRenderTemplate(), loadTemplates() {} } } },
  });
  await import(`../src/module.mjs?sr5passes=${Math.random()}`);
  Hooks.callAll("init");
  game.settings.storeWorld("firefight", "serviceUrl", "http://ff");
  game.settings.storeWorld("firefight", "gmTokens", { enc1: "gm-token" });
  Hooks.callAll("i18nInit");
  game.enterSetup();
  Hooks.callAll("setup");
  game.enterReady();
  Hooks.callAll("ready");
  const app = game.modules.get("firefight").api;
  const settle = async () => {
    for (let i = 0; i < 30; i += 1) {
      await new Promise((resolve) => setImmediate(resolve));
      await app.combatQueue;
    }
  };
  return { advances, settle };
}

for (const release of releasesOf("shadowrun5e")) {
  const { version } = release;
  const padded = compareVersions(version, "0.34.0") >= 0;
  test(`shadowrun5e ${version}: the tracker's second pass is the encounter's, its padding combatants no actor's`, async () => {
    const combat = makeSr5Combat({
      version,
      combatants: [{ id: "cSam", tokenId: "tokSam000000001", name: "Sam" }, { id: "cGoon", tokenId: "tokGoon00000001", name: "Goon" }],
      roll: (c) => ({ cSam: 18, cGoon: 12 })[c.id],
    });
    await combat.setFlag(MODULE_ID, "encounter", { id: "enc1", ruleset: "sr5", playerToken: "p", lastEventId: null, synced: null });
    try {
      const { advances, settle } = await bootGm({ version, generation: release.foundry, combat });
      const step = async (move) => {
        const before = advances.length;
        await move();
        await settle();
        return advances.slice(before);
      };
      assert.deepEqual(await step(() => combat.startCombat()), ["action_phase tokSam000000001"]);
      assert.deepEqual(await step(() => combat.nextTurn()), ["action_phase tokGoon00000001"]);
      // 18 and 12 less 10: both act again in a second pass (SR5 p. 159).
      assert.deepEqual(await step(() => combat.nextTurn()), ["initiative_pass", "action_phase tokSam000000001"]);
      assert.equal(combat.turns.filter((c) => c.system?.pad).length, padded ? 2 : 0);
      assert.deepEqual(await step(() => combat.nextTurn()), ["action_phase tokGoon00000001"]);
      // 8 and 2 less 10: nobody has a third pass; a new combat turn.
      if (padded) {
        // 0.34+ leaves the turn empty until the GM's next click.
        assert.deepEqual(await step(() => combat.nextTurn()), ["combat_turn"]);
        assert.equal(combat.turns.filter((c) => c.system?.pad).length, 0);
        assert.deepEqual(await step(() => combat.nextTurn()), ["action_phase tokSam000000001"]);
      } else {
        assert.deepEqual(await step(() => combat.nextTurn()), ["combat_turn", "action_phase tokSam000000001"]);
      }
    } finally {
      Hooks.reset();
      Object.assign(globalThis, saved);
    }
  });
}

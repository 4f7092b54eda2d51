// "Damage kept by": the service's condition monitors mirrored onto the systems' own tracks, and a
// GM's edit of a track going back, with the module's own code in Node against the real service
// (tests/service-harness.mjs). Every attack gives all its dice; the boxes are worked by hand in
// the comments from the rules sources (/work/shared/rules-sources, README.md's decisions).
// Foundry's side is the stubs (tests/foundry-stubs.mjs): update hooks get the differential data
// expanded with its _id, the update's options as given and the user's id, as Foundry's
// hookEvents.updateDocument documents them.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import {
  fixture, Hooks, makeActor, makeChatMessage, makeCombat, makeGame, makeGrid, makeNotifications, makeRenderTemplate, makeScene, makeToken,
  parseHTML, Roll, stubDocument,
} from "./foundry-stubs.mjs";
import { startService } from "./service-harness.mjs";
import { FirefightApp } from "../src/foundry-app.mjs";
import { FirefightClient } from "../src/client.mjs";
import { MIRROR_OPTION } from "../src/monitor-sync.mjs";
import { sr5Sheet } from "../src/scene-sync.mjs";
import { MODULE_ID, registerSettings } from "../src/settings.mjs";

const ADMIN_KEY = "monitors-admin-key-0123456789";
let service;

before(async () => {
  assert.equal(typeof globalThis.WebSocket, "function", "run node with --experimental-websocket (Node 20)");
  service = await startService({ adminKey: ADMIN_KEY });
});

after(async () => {
  const exit = await service?.stop();
  if (exit) assert.ok(exit.code === 0 || exit.signal === "SIGTERM", `the service stopped cleanly: ${JSON.stringify(exit)}`);
});

/**
 * A GM's Foundry (or a player's, `isGM: false`) with Sam and a ganger `metres` apart, the
 * module's settings set, its onChange and updateActor hooks wired as module.mjs wires them, and
 * every request to the service recorded.
 */
async function table({ systemId, ruleset, sam: samData, goon: goonData, metres = 5, damageMode = null, isGM = true, holdMonitorPosts = null }) {
  Hooks.reset();
  const sam = makeActor(samData);
  const goon = makeActor(goonData, { owner: false });
  const grid = makeGrid({ size: 100, distance: 1, units: "m" });
  const samToken = makeToken({ id: "tokSam000000001", name: "Sam", actor: sam, x: 0, y: 0 });
  const goonToken = makeToken({ id: "tokGoon00000001", name: "Halloweener", actor: goon, x: metres * 100, y: 0 });
  const scene = makeScene({ grid, tokens: [samToken, goonToken] });
  const game = makeGame({ isGM, systemId, actors: [sam, goon] });
  const { ChatMessage, messages } = makeChatMessage();
  game.messages = messages;
  const waiting = new Map();
  const create = ChatMessage.create;
  ChatMessage.create = async (data) => {
    const message = await create(data);
    waiting.get(message.flags?.firefight?.eventId)?.(message);
    return message;
  };
  const requests = [];
  const fetch = async (url, init = {}) => {
    const path = new URL(url).pathname;
    requests.push({ method: init.method, path, body: init.body ? JSON.parse(init.body) : undefined });
    // A slow network for monitor edits: the feed's events may be handled in between.
    if (holdMonitorPosts && init.method === "POST" && path.endsWith("/monitor")) await holdMonitorPosts();
    return globalThis.fetch(url, init);
  };
  const ui = { notifications: makeNotifications() };
  let app = null;
  const settled = [];
  registerSettings(game, {
    onChange: (key, value) => {
      if (key === "damageMode" && app) settled.push(app.damageModeChanged(value));
    },
  });
  Hooks.on("updateActor", (actor, changed, options, userId) => settled.push(app.actorUpdated(actor, changed, options, userId)));
  // A player may not write world settings: theirs are as a GM saved them.
  const world = isGM ? (key, value) => game.settings.set(MODULE_ID, key, value) : async (key, value) => game.settings.storeWorld(MODULE_ID, key, value);
  await world("serviceUrl", service.baseUrl);
  await world("ruleset", ruleset);
  if (damageMode) await world("damageMode", damageMode);
  if (isGM) await game.settings.set(MODULE_ID, "adminKey", ADMIN_KEY);
  app = new FirefightApp({
    game, canvas: { grid, scene, tokens: { placeables: [samToken, goonToken] } }, ui, ChatMessage, Roll,
    renderTemplate: makeRenderTemplate(), document: stubDocument, fetch, WebSocket: globalThis.WebSocket,
  });
  const combat = makeCombat({ round: 0, combatants: [{ tokenId: samToken.id }, { tokenId: goonToken.id }] });
  combat.scene = scene;
  game.combat = combat;
  /** The card of an event, once the feed has handled it (the mirror runs before the card is posted). */
  const cardOf = async (eventId) => {
    const message = [...messages].find((m) => m.flags?.firefight?.eventId === eventId) ?? (await new Promise((resolve) => waiting.set(eventId, resolve)));
    await app.feed?.idle();
    return message;
  };
  /** Everything the hooks and the setting's onChange started, finished. */
  const idle = async () => {
    while (settled.length > 0) await Promise.all(settled.splice(0));
  };
  const monitorPosts = () => requests.filter((r) => r.method === "POST" && /\/monitor$/.test(r.path));
  return { app, game, combat, scene, sam, goon, samToken, goonToken, cardOf, idle, requests, monitorPosts, ui, messages };
}

/** The GM token of the combat's encounter (the GM's browser keeps it). */
function gmClient(t) {
  const flag = t.combat.getFlag(MODULE_ID, "encounter");
  return { id: flag.id, token: t.game.settings.get(MODULE_ID, "gmTokens")[flag.id], client: new FirefightClient({ baseUrl: service.baseUrl }) };
}

async function serviceMonitor(t, actorId) {
  const { id, token, client } = gmClient(t);
  return (await client.getActor(id, token, actorId)).monitor;
}

test("the setting: Foundry sheets by default, its encounters keep no monitor; switched during the combat, the service takes the sheets' damage over", async (t) => {
  // The seeds' requests wait until the feed has handled the switch's own event (or a second, if
  // the module keeps that event's mirror waiting for them, as it must).
  let switched;
  const handled = new Promise((resolve) => {
    switched = resolve;
  });
  const hold = () => Promise.race([handled, new Promise((resolve) => setTimeout(resolve, 1500))]);
  const sr5 = await table({ systemId: "shadowrun5e", ruleset: "sr5", sam: fixture("sr5-actor-sam.json"), goon: fixture("sr5-actor-goon.json"), holdMonitorPosts: hold });
  const handleEvent = sr5.app.handleEvent.bind(sr5.app);
  sr5.app.handleEvent = async (event, encounter) => {
    await handleEvent(event, encounter);
    if (event.type === "state_edited") switched();
  };
  const setting = sr5.game.settings.registered.get("firefight.damageMode");
  assert.deepEqual([setting.scope, setting.config, setting.default, Object.keys(setting.choices)], ["world", true, "vtt", ["vtt", "service"]]);
  assert.equal(sr5.game.settings.get(MODULE_ID, "damageMode"), "vtt");
  // Shown in the GM's Configure Settings (a world setting: only to users who may change it).
  assert.ok(sr5.game.settings.shownTo(sr5.game.user).includes("firefight.damageMode"));

  const flag = await sr5.app.ensureEncounter(sr5.combat);
  assert.equal(sr5.requests.find((r) => r.path === "/v1/encounters").body.damage, "vtt", "asked for explicitly: the service's own default is its monitors");
  assert.equal(flag.damage, "vtt");
  await sr5.app.syncScene(sr5.combat);
  const { id, token, client } = gmClient(sr5);
  let view = await client.getEncounter(id, token);
  assert.equal(view.damage, "vtt");
  assert.equal(view.scene[sr5.goonToken.id].monitor ?? null, null, "the VTT keeps the monitors: the service none");
  assert.equal(sr5.monitorPosts().length, 0);

  // The GM switches to firefight's monitors mid-combat: PUT .../state {"damage": "service"},
  // then each sheet's damage is set on the service's monitor (Sam: 2 physical; the ganger: 8
  // stun), and the mirror finds the sheets as they are; the switch's own event, arriving while
  // the sheets are read, mirrors nothing over them before they are.
  const feed = sr5.app.follow(sr5.combat);
  t.after(() => sr5.app.feed?.stop());
  await new Promise((resolve) => {
    const open = () => (feed.socket?.readyState === 1 ? resolve() : setTimeout(open, 10));
    open();
  });
  await sr5.game.settings.set(MODULE_ID, "damageMode", "service");
  await sr5.idle();
  const put = sr5.requests.find((r) => r.method === "PUT" && r.path === `/v1/encounters/${id}/state`);
  assert.equal(put.body.damage, "service");
  assert.equal(sr5.combat.getFlag(MODULE_ID, "encounter").damage, "service");
  view = await client.getEncounter(id, token);
  assert.equal(view.damage, "service");
  assert.deepEqual([view.scene[sr5.samToken.id].monitor.physical, view.scene[sr5.samToken.id].monitor.stun ?? 0], [2, 0]);
  assert.deepEqual([view.scene[sr5.goonToken.id].monitor.physical ?? 0, view.scene[sr5.goonToken.id].monitor.stun], [0, 8]);
  assert.deepEqual([sr5.sam.system.track.physical.value, sr5.goon.system.track.stun.value], [2, 8], "nothing wiped");

  // And back: the sheets are Foundry's again; the service keeps no monitor.
  await sr5.game.settings.set(MODULE_ID, "damageMode", "vtt");
  await sr5.idle();
  assert.equal((await client.getEncounter(id, token)).damage, "vtt");
  assert.equal(sr5.combat.getFlag(MODULE_ID, "encounter").damage, "vtt");
});

test("shadowrun5e: a hit that fills the physical track and overflows is mirrored onto track.physical and its overflow, never sent back", async (t) => {
  const sr5 = await table({ systemId: "shadowrun5e", ruleset: "sr5", sam: fixture("sr5-actor-sam.json"), goon: fixture("sr5-actor-goon.json"), damageMode: "service" });
  const flag = await sr5.app.ensureEncounter(sr5.combat);
  assert.equal(flag.damage, "service");
  await sr5.app.syncScene(sr5.combat);
  sr5.app.follow(sr5.combat);
  t.after(() => sr5.app.feed?.stop());
  const seeded = sr5.monitorPosts().length;
  assert.equal(seeded, 2, "Sam's 2 physical and the ganger's 8 stun, from their sheets");

  sr5.game.user.targets = new Set([sr5.goonToken]);
  const data = sr5.app.dialogData(sr5.samToken, { itemId: "predatorV000001" });
  assert.deepEqual(data.targets.map((x) => x.distance_m), [5]);
  // By hand (000_43afc0edeb7f6e19.txt, "attack", "defend", "apply"; ranges per README.md): the
  // Predator V at 5 m is short range (0); Agility 6 + Pistols 4 + the sheet's wound -1 = 9 dice,
  // 5 hits, within Accuracy 5. The ganger defends with Reaction 4 + Intuition 3 = 7 dice, no
  // hit: 5 net hits, DV 8 + 5 = 13P, AP -1 against Armor 9: 8, physical. Soak Body 4 + 8 = 12
  // dice, no hit: 13 boxes. The ganger's physical track is 8 + ceil(Body 4 / 2) = 10 boxes
  // (SR5 core, Condition Monitor): 10 marked, 3 past it into overflow (up to Body 4: dying).
  const form = {
    weapon: "predatorV000001", mode: "SA", [`cover.${sr5.goonToken.id}`]: "none",
    visibility: "clear", light: "full", glare: "none", wind: "none", smartlink: "none", ammo: "regular", edge: "none",
    dice: `attack: 6 6 5 5 5 2 3 3 4\ndefense:${sr5.goonToken.id}: 2 2 3 3 4 4 2\nsoak:${sr5.goonToken.id}: 2 2 3 3 4 4 2 2 3 3 4 4`,
  };
  const answer = await sr5.app.attack(sr5.samToken, data, form);
  const [target] = answer.result.targets;
  assert.deepEqual([target.attack.hits, target.defense.hits, target.damage.dv, target.damage.boxes, target.damage.track], [5, 0, 13, 13, "physical"]);
  const card = await sr5.cardOf(answer.event_id);
  await sr5.idle();

  // The mirror read the ganger again and wrote the service's monitor on the system's tracks.
  assert.deepEqual(
    [sr5.goon.system.track.physical.value, sr5.goon.system.track.physical.overflow.value, sr5.goon.system.track.stun.value],
    [10, 3, 8],
  );
  const monitor = await serviceMonitor(sr5, sr5.goonToken.id);
  assert.deepEqual([monitor.physical, monitor.overflow, monitor.stun, monitor.status.physical_max, monitor.status.overflow_max], [10, 3, 8, 10, 4]);
  assert.equal(sr5.sam.system.track.physical.value, 2, "Sam as the sheet had him");
  // The echo guard: the mirror's write carried its option; nothing went back to the service.
  assert.deepEqual(sr5.goon.updates.at(-1), { "system.track.physical.value": 10, "system.track.physical.overflow.value": 3 });
  assert.equal(sr5.monitorPosts().length, seeded, "the mirror's own writes are not edits");

  // The card: the service applied the damage, its button says so and does nothing.
  const element = parseHTML(card.content);
  sr5.app.bindCard(card, element);
  const apply = element.querySelector('[data-firefight-action="apply-damage"]');
  assert.deepEqual([card.flags.firefight.damage, apply.disabled, apply.textContent], ["service", true, "Applied by firefight"]);
  assert.equal(element.querySelector('[data-firefight-action="undo-damage"]'), null);
});

test("the flow back: a GM's edit of a track goes to the service on the version read; a hit landing in between is never overwritten", async (t) => {
  const goonData = fixture("sr5-actor-goon.json");
  const sr5 = await table({ systemId: "shadowrun5e", ruleset: "sr5", sam: fixture("sr5-actor-sam.json"), goon: goonData, damageMode: "service" });
  await sr5.app.ensureEncounter(sr5.combat);
  await sr5.app.syncScene(sr5.combat);
  sr5.app.follow(sr5.combat);
  t.after(() => sr5.app.feed?.stop());
  await sr5.app.mirrorMonitors(sr5.combat);
  const { id, token, client } = gmClient(sr5);
  const version = (await client.getEncounter(id, token)).version;

  // The GM heals 5 of the ganger's 8 stun on the sheet: {"set": {"stun": 3}, "version": <read>}.
  const before = sr5.monitorPosts().length;
  await sr5.goon.update({ "system.track.stun.value": 3 });
  await sr5.idle();
  const [edit] = sr5.monitorPosts().slice(before);
  assert.deepEqual(edit.body.set, { stun: 3 });
  assert.equal(edit.body.version, version);
  assert.equal(edit.path, `/v1/encounters/${id}/actors/${sr5.goonToken.id}/monitor`);
  assert.equal((await serviceMonitor(sr5, sr5.goonToken.id)).stun, 3);

  // Not sent back: another change of the sheet (no track), the mirror's own write, another
  // client's hook of the GM's update, and a player's client.
  await sr5.goon.update({ name: "Halloweener boss" });
  await sr5.goon.update({ "system.track.stun.value": 4 }, { [MIRROR_OPTION]: true });
  await sr5.idle();
  assert.equal(sr5.monitorPosts().length, before + 1);
  assert.equal(await sr5.app.actorUpdated(sr5.goon, { _id: sr5.goon.id, system: { track: { stun: { value: 5 } } } }, {}, "anotherUser0001"), null);

  // A token moves on the service (its version moves on, no monitor changes): the GM's next edit
  // meets 409 state-changed, reads again, finds the ganger's monitor as mirrored and is sent on
  // the new version.
  sr5.app.feed.stop();
  await client.moveActor(id, token, sr5.samToken.id, { x: 1, y: 0 });
  const moved = (await client.getEncounter(id, token)).version;
  const mark = sr5.requests.length;
  await sr5.goon.update({ "system.track.stun.value": 1 });
  await sr5.app.monitorQueue;
  const sent = sr5.requests.slice(mark).filter((r) => r.method === "POST" && /\/monitor$/.test(r.path));
  assert.deepEqual(sent.map((r) => [r.body.set.stun, r.body.version]), [[1, version + 1], [1, moved]], "refused on the old version, sent again on the new");
  assert.equal((await serviceMonitor(sr5, sr5.goonToken.id)).stun, 1);

  // Meanwhile the web console heals the ganger's stun (a change of its monitor): the GM's edit on
  // the sheet is refused, read again, not sent; the sheet shows the service's monitor.
  await client.editMonitor(id, token, sr5.goonToken.id, { heal: { stun: 1 } });
  const mark2 = sr5.requests.length;
  await sr5.goon.update({ "system.track.stun.value": 6 });
  await sr5.app.monitorQueue;
  assert.deepEqual(sr5.requests.slice(mark2).filter((r) => r.method === "POST" && /\/monitor$/.test(r.path)).length, 1, "one refused edit, none after it");
  assert.equal((await serviceMonitor(sr5, sr5.goonToken.id)).stun ?? 0, 0, "the heal stands");
  assert.equal(sr5.goon.system.track.stun.value, 0, "mirrored back");
  assert.match(sr5.ui.notifications.seen.at(-1).message, /changed on the service before your edit arrived/);

  // A player's client, whose hook fires for the GM's update as well (with the GM's id), sends
  // nothing; nor for a player's own edit of a track.
  const player = await table({ systemId: "shadowrun5e", ruleset: "sr5", sam: fixture("sr5-actor-sam.json"), goon: goonData, isGM: false });
  const stun5 = { _id: player.goon.id, system: { track: { stun: { value: 5 } } } };
  assert.equal(await player.app.actorUpdated(player.goon, stun5, {}, "user0000000001"), null);
  assert.equal(await player.app.actorUpdated(player.goon, stun5, {}, player.game.user.id), null);
  assert.equal(player.requests.length, 0);
});

test("shadowrun4e: the worked burst's 6 boxes on system.conditionMonitor.physical, the stun track sized by Willpower", async (t) => {
  // The ganger unhurt, as in the worked case (its sheet's 9 stun would be -3 dice on defence).
  const goonData = fixture("sr4e-actor-goon.json");
  goonData.system.conditionMonitor.stun.value = 0;
  goonData.system.derivedStats.woundModifier = 0;
  const sr4 = await table({ systemId: "shadowrun4e", ruleset: "sr4", sam: fixture("sr4e-actor-sam.json"), goon: goonData, metres: 4, damageMode: "service" });
  const samData = sr4.sam;
  samData.system.conditionMonitor.physical.value = 0;
  await sr4.app.ensureEncounter(sr4.combat);
  await sr4.app.syncScene(sr4.combat);
  sr4.app.follow(sr4.combat);
  t.after(() => sr4.app.feed?.stop());
  sr4.game.user.targets = new Set([sr4.goonToken]);
  const data = sr4.app.dialogData(sr4.samToken, { itemId: "ak97Rifle000001" });
  const form = {
    weapon: "ak97Rifle000001", mode: "BF", burst: "wide", [`cover.${sr4.goonToken.id}`]: "none", [`dodge.${sr4.goonToken.id}`]: 0,
    dice: `attack: 6 5 5 2 1 3 4 2 3 4\ndefense:${sr4.goonToken.id}: 5\nsoak:${sr4.goonToken.id}: 5 6 1 2 3 4 2 2 3 4 1`,
  };
  const answer = await sr4.app.attack(sr4.samToken, data, form);
  // By hand (001, as in sr4-e2e.test.mjs): 10 dice, 3 hits; Reaction 3 less the wide burst's 2:
  // 1 die, 1 hit; DV 6 + 2 = 8P against 7; Body 4 + 7 = 11 soak dice, 2 hits: 6 boxes.
  assert.deepEqual([answer.result.targets[0].damage.boxes, answer.result.targets[0].damage.track], [6, "physical"]);
  await sr4.cardOf(answer.event_id);
  await sr4.idle();
  assert.deepEqual([sr4.goon.system.conditionMonitor.physical.value, sr4.goon.system.conditionMonitor.stun.value], [6, 0]);
  const monitor = await serviceMonitor(sr4, sr4.goonToken.id);
  // SR4 core, Condition Monitor: 8 + ceil(Body 4 / 2) = 10 physical, 8 + ceil(Willpower 2 / 2)
  // = 9 stun (the sheet's Willpower goes with the scene); -1 per 3 boxes: 6 physical is -2.
  assert.deepEqual([monitor.physical, monitor.status.physical_max, monitor.status.stun_max, monitor.status.wound_modifier], [6, 10, 9, -2]);
  assert.equal(sr4.monitorPosts().length, 0, "two unhurt sheets: nothing to seed, and the mirror sends nothing");
});

test("sr3e: the worked shot's Moderate wound, 3 boxes, on system.health.physical", async (t) => {
  const samData = fixture("sr3e-actor-sam.json");
  samData.system.health.physical.value = 0;
  samData.items = samData.items.filter((i) => i._id !== "lined0coat00001");
  const goonData = fixture("sr3e-actor-goon.json");
  goonData.system.dicePools.combat.value = 0;
  goonData.system.health.stun.value = 0;
  const sr3 = await table({ systemId: "sr3e", ruleset: "sr3", sam: samData, goon: goonData, metres: 4, damageMode: "service" });
  await sr3.app.ensureEncounter(sr3.combat);
  await sr3.app.syncScene(sr3.combat);
  sr3.app.follow(sr3.combat);
  t.after(() => sr3.app.feed?.stop());
  sr3.game.user.targets = new Set([sr3.goonToken]);
  const data = sr3.app.dialogData(sr3.samToken, { itemId: "predator0000001" });
  const form = {
    weapon: "predator0000001", mode: "SA", pool: 2, sight: "standard", movement: "stationary", melee_opponents: 0,
    [`cover.${sr3.goonToken.id}`]: "none", [`target_movement.${sr3.goonToken.id}`]: "walking", [`dodge.${sr3.goonToken.id}`]: 1, [`resist.${sr3.goonToken.id}`]: 1,
    vision: "normal", light: "full", obscurant: "none",
    dice: `attack: 6 5 5 4 2 1\ndodge:${sr3.goonToken.id}: 4\nresist:${sr3.goonToken.id}: 4 2 1 1 5`,
  };
  const answer = await sr3.app.attack(sr3.samToken, data, form);
  // By hand (tests/test_sr3_http.py's first case, as in sr3-e2e.test.mjs): TN 4, 4 successes,
  // 1 dodged; Body 4 + 1 against 9 - 5 = 4: 2 successes, 3 - 2 = 1 net: M, which is 3 boxes of
  // the 10 (002, SR3 p. 125: L 1, M 3, S 6, D 10).
  assert.deepEqual([answer.result.target.damage.level, answer.result.target.damage.boxes], ["M", 3]);
  await sr3.cardOf(answer.event_id);
  await sr3.idle();
  assert.deepEqual([sr3.goon.system.health.physical.value, sr3.goon.system.health.stun.value, sr3.goon.system.health.overflow.value], [3, 0, 0]);
  const monitor = await serviceMonitor(sr3, sr3.goonToken.id);
  // SR3 p. 125: Moderate is +2 to target numbers.
  assert.deepEqual([monitor.physical, monitor.status.physical_max, monitor.status.wound_modifier], [3, 10, 2]);
});

test("the card's Apply per mode: 'confirm' applies the service's pending damage once, by the target's owner or the GM", async () => {
  // An encounter made elsewhere (the web console) with "damage": "confirm", played as the world's
  // fixed encounter.
  const sr5 = await table({ systemId: "shadowrun5e", ruleset: "sr5", sam: fixture("sr5-actor-sam.json"), goon: fixture("sr5-actor-goon.json") });
  const client = new FirefightClient({ baseUrl: service.baseUrl });
  const created = await client.request("POST", "/v1/encounters", { token: ADMIN_KEY, body: { ruleset: "sr5", damage: "confirm", sheet_policy: "typed" } });
  const gm = created.tokens.gm;
  for (const token of [sr5.samToken, sr5.goonToken]) {
    await client.putActor(created.id, gm, token.id, { name: token.name, position: { x: token.center.x / 100, y: 0 }, sheet: sr5Sheet(token.actor) });
  }
  await sr5.game.settings.set(MODULE_ID, "encounterId", created.id);
  await sr5.game.settings.set(MODULE_ID, "gmTokens", { [created.id]: gm });
  sr5.game.combat = null;
  // The same shot as above (13 boxes: DV 13P, no soak hit), by names this time.
  const answer = await client.attack(created.id, gm, {
    attacker: { id: sr5.samToken.id, agility: 6, strength: 4, willpower: 3, intuition: 4, edge: 3, skill: 4, wound_modifier: -1 },
    weapon: { id: "predatorV000001", category: "heavy_pistol", damage: 8, damage_type: "P", ap: -1, accuracy: 5, rc: 0, modes: ["SA"], ammo: 15 },
    mode: "SA",
    targets: [{ id: sr5.goonToken.id, distance_m: 5, defender: { reaction: 4, intuition: 3, body: 4, willpower: 3, armor: 9, wound_modifier: 0 } }],
    dice: { attack: [6, 6, 5, 5, 5, 2, 3, 3, 4], [`defense:${sr5.goonToken.id}`]: [2, 2, 3, 3, 4, 4, 2], [`soak:${sr5.goonToken.id}`]: [2, 2, 3, 3, 4, 4, 2, 2, 3, 3, 4, 4] },
  });
  assert.equal(answer.result.targets[0].damage.boxes, 13);
  let goon = (await client.getActor(created.id, gm, sr5.goonToken.id)).monitor;
  assert.deepEqual([goon.physical ?? 0, goon.pending.map((p) => [p.track, p.boxes])], [0, [["physical", 13]]], "waiting for confirmation");

  const message = await sr5.app.postCard({ id: answer.event_id, type: "attack", encounter: created.id, result: answer.result }, "sr5", { damage: "confirm" });
  const element = parseHTML(message.content);
  sr5.app.bindCard(message, element);
  const apply = element.querySelector('[data-firefight-action="apply-damage"]');
  assert.deepEqual([apply.disabled, apply.textContent], [false, "Apply damage"]);
  await apply.click();
  goon = (await client.getActor(created.id, gm, sr5.goonToken.id)).monitor;
  // Applied on the service: 10 of 10 physical, 3 overflow; nothing pending.
  assert.deepEqual([goon.physical, goon.overflow, goon.pending ?? []], [10, 3, []]);
  assert.equal(sr5.goon.system.track.physical.value, 0, "the sheet is not written by the card: the mirror does that with the service's monitors");
  const again = parseHTML(message.content);
  sr5.app.bindCard(message, again);
  const applied = again.querySelector('[data-firefight-action="apply-damage"]');
  assert.deepEqual([applied.disabled, applied.textContent], [true, "Applied: 13 physical"]);
  assert.equal(again.querySelector('[data-firefight-action="undo-damage"]'), null, "the service's undo takes it back, not the card's");
  await sr5.app.applyPending(sr5.goonToken.id, "physical", 13, message);
  assert.match(sr5.ui.notifications.seen.at(-1).message, /already on Halloweener/);
  const pendingPosts = sr5.requests.filter((r) => r.method === "POST" && /\/pending\//.test(r.path));
  assert.equal(pendingPosts.length, 1, "applied once");

  // 'vtt' (cards from before the setting, or Foundry's sheets): the button applies to the sheet.
  const vttCard = await sr5.app.postCard({ id: "1-0", type: "attack", encounter: created.id, result: answer.result }, "sr5", { damage: "vtt" });
  const vtt = parseHTML(vttCard.content);
  sr5.app.bindCard(vttCard, vtt);
  await vtt.querySelector('[data-firefight-action="apply-damage"]').click();
  assert.equal(sr5.goon.system.track.physical.value, 10, "as before: Foundry's own damage up to the track's end");
});

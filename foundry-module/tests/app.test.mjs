// The module's flows with Foundry stubbed and the service faked: settings, tokens, permissions,
// the manual form of other systems, and posting cards when no GM follows the socket.

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  chooseChatMode, core, DialogV2, fixture, FormDataExtended, makeActor, makeUser, parseHTML, StubElement, stubDocument, makeChatMessage, makeCombat, makeGame, makeGrid, makeNotifications, makeRenderTemplate, makeScene, makeToken, Roll,
} from "./foundry-stubs.mjs";
import { FirefightApp } from "../src/foundry-app.mjs";
import { MODULE_ID, registerSettings } from "../src/settings.mjs";

function setup({ isGM = true, systemId = "shadowrun5e", activeGM, answers = {} } = {}) {
  const calls = [];
  const fetch = async (url, init = {}) => {
    const path = new URL(url).pathname;
    const body = init.body ? JSON.parse(init.body) : undefined;
    calls.push({ method: init.method, path, body, auth: init.headers?.Authorization });
    const answer = answers[`${init.method} ${path}`];
    const value = typeof answer === "function" ? answer(body) : answer;
    return { status: value ? 201 : 404, ok: Boolean(value), text: async () => JSON.stringify(value ?? { detail: "no route" }) };
  };
  const sam = makeActor(fixture("sr5-actor-sam.json"));
  const goon = makeActor(fixture("sr5-actor-goon.json"), { owner: false });
  const grid = makeGrid();
  const samToken = makeToken({ id: "tokSam000000001", name: "Sam", actor: sam, x: 0, y: 0 });
  const goonToken = makeToken({ id: "tokGoon00000001", name: "Halloweener", actor: goon, x: 1200, y: 500 });
  const scene = makeScene({ grid, tokens: [samToken, goonToken] });
  const game = makeGame({ isGM, systemId, activeGM });
  const { ChatMessage, messages } = makeChatMessage();
  game.messages = messages;
  registerSettings(game);
  const ui = { notifications: makeNotifications() };
  const canvas = { grid, scene, tokens: { placeables: [samToken, goonToken] } };
  const app = new FirefightApp({ game, canvas, ui, ChatMessage, Roll, renderTemplate: makeRenderTemplate(), DialogV2, FormDataExtended, document: stubDocument, fetch, WebSocket: class {} });
  return { app, game, calls, sam, goon, samToken, goonToken, messages, ui, scene };
}

test("settings: the world's are shared, the GM's secrets are client-side and out of the players' Configure Settings", () => {
  for (const isGM of [true, false]) {
    const { game } = setup({ isGM });
    const s = game.settings.registered;
    assert.equal(s.get("firefight.serviceUrl").scope, "world");
    assert.equal(s.get("firefight.playerToken").scope, "world");
    assert.equal(s.get("firefight.gmToken").scope, "client");
    assert.equal(s.get("firefight.adminKey").scope, "client");
    for (const key of ["gmTokens", "gmToken", "adminKey"]) assert.equal(s.get(`firefight.${key}`).config, false, key);
    assert.ok(!game.settings.shownTo(game.user).some((key) => /gmToken|adminKey/.test(key)));
  }
});

test("which token: the GM uses the GM token it holds, players the combat's player token", async () => {
  const gm = setup({ isGM: true });
  const combat = makeCombat();
  await combat.setFlag(MODULE_ID, "encounter", { id: "enc1", ruleset: "sr5", playerToken: "player-tok" });
  await gm.game.settings.set(MODULE_ID, "gmTokens", { enc1: "gm-tok" });
  assert.equal(gm.app.encounter(combat).token, "gm-tok");
  const player = setup({ isGM: false });
  await player.game.settings.set(MODULE_ID, "gmTokens", { enc1: "gm-tok" });
  assert.equal(player.app.encounter(combat).token, "player-tok");
  // Without a combat encounter: the world's fixed one.
  player.game.settings.storeWorld(MODULE_ID, "encounterId", "fixed");
  player.game.settings.storeWorld(MODULE_ID, "playerToken", "world-player");
  assert.deepEqual([player.app.encounter(null).id, player.app.encounter(null).token], ["fixed", "world-player"]);
});

test("only the active GM creates encounters and advances them", async () => {
  const { app, game, calls } = setup({ isGM: true, activeGM: { id: "another-gm" } });
  await game.settings.set(MODULE_ID, "adminKey", "k");
  const combat = makeCombat({ round: 1, turn: 0, combatants: [{ tokenId: "tokSam000000001" }] });
  assert.equal(await app.ensureEncounter(combat), null);
  assert.deepEqual(await app.syncCombat(combat), []);
  assert.equal(calls.length, 0);
});

test("an encounter created mid-combat starts from the tracker's round, not from round 1", async () => {
  const { app, game, calls } = setup({
    answers: {
      "POST /v1/encounters": { id: "enc9", ruleset: "sr5", name: "x", created_at: "t", tokens: { gm: "g", player: "p" }, event_id: "1-0" },
      "POST /v1/encounters/enc9/advance": (body) => ({ event_id: "2-0", result: { kind: "advance", to: body.to }, state: {} }),
    },
  });
  await game.settings.set(MODULE_ID, "serviceUrl", "http://ff");
  await game.settings.set(MODULE_ID, "adminKey", "k");
  const combat = makeCombat({ round: 3, turn: 0, combatants: [{ tokenId: "tokSam000000001" }] });
  await app.ensureEncounter(combat);
  assert.deepEqual(await app.syncCombat(combat), [{ to: "action_phase", actor: "tokSam000000001" }]);
  assert.deepEqual(calls.map((c) => [c.method, c.path, c.auth]), [
    ["POST", "/v1/encounters", "Bearer k"],
    ["POST", "/v1/encounters/enc9/advance", "Bearer g"],
  ]);
});

test("damage goes on the target's monitor only for its owner or the GM", async () => {
  const player = setup({ isGM: false });
  await player.app.applyDamage("tokGoon00000001", "physical", 3);
  assert.equal(player.goon.system.track.physical.value, 0);
  assert.match(player.ui.notifications.seen.at(-1).message, /only the owner of Halloweener/);
  const gm = setup({ isGM: true });
  await gm.app.applyDamage("tokGoon00000001", "stun", 5);
  assert.deepEqual(gm.goon.updates.at(-1), { "system.track.stun.value": 10, "system.track.physical.value": 1 });
});

test("a player who clicks a hidden token's row on a card is not told its name", async () => {
  const player = setup({ isGM: false });
  player.scene.tokens.get("tokGoon00000001").hidden = true;
  player.game.settings.storeWorld(MODULE_ID, "encounterId", "enc1");
  player.game.settings.storeWorld(MODULE_ID, "playerToken", "p");
  await player.app.applyDamage("tokGoon00000001", "physical", 3);
  await player.app.zoneTest("zone-1", "tokGoon00000001");
  for (const note of player.ui.notifications.seen) {
    assert.doesNotMatch(note.message, /Halloweener/);
    assert.match(note.message, /only the owner of Someone/);
  }
  assert.equal(player.ui.notifications.seen.length, 2);
  const gm = setup({ isGM: true });
  gm.scene.tokens.get("tokGoon00000001").hidden = true;
  await gm.game.settings.set(MODULE_ID, "damagePath", "");
  await gm.app.applyDamage("tokGoon00000001", "physical", 3);
  assert.match(gm.ui.notifications.seen.at(-1).message, /Halloweener/, "the GM is told");
});

test("other systems: damage on the configured attribute, the manual form remembered per actor", async () => {
  const { app, game, goon, sam, samToken, goonToken, calls, ui } = setup({
    systemId: "dnd5e",
    answers: {
      "POST /v1/encounters/enc1/attacks": (body) => ({
        event_id: "5-0",
        result: { kind: "sr5_attack", attacker: body.attacker.id, weapon: body.weapon.id, mode: body.mode, rounds_fired: 1, ammo_left: body.weapon.ammo - 1, edge_spent: 0, targets: [], dice: [], pool: 0, modifiers: [], limit: 0, limit_modifiers: [] },
        state: {},
      }),
    },
  });
  await game.settings.set(MODULE_ID, "serviceUrl", "http://ff");
  await game.settings.set(MODULE_ID, "encounterId", "enc1");
  await game.settings.set(MODULE_ID, "gmToken", "g");
  await app.applyDamage("tokGoon00000001", "physical", 2);
  assert.match(ui.notifications.seen.at(-1).message, /set the damage attribute/);
  await game.settings.set(MODULE_ID, "damagePath", "system.track.physical.value");
  await app.applyDamage("tokGoon00000001", "physical", 2);
  assert.equal(goon.system.track.physical.value, 2);

  game.user.targets = new Set([goonToken]);
  const data = app.dialogData(samToken);
  assert.equal(data.shadowrun, false);
  assert.equal(data.manual.agility, 3);
  const form = { agility: "7", skill: "5", modes: "SA", ammo: "12", weapon_name: "Holdout", mode: "SA", dice: "" };
  await app.attack(samToken, data, form);
  const sent = calls.at(-1).body;
  assert.equal(sent.attacker.agility, 7);
  assert.equal(sent.weapon.id, "Holdout");
  assert.equal(sent.targets[0].distance_m, 13, "measured on the grid");
  assert.equal(sam.getFlag(MODULE_ID, "manual.sr5").agility, 7);
  assert.equal(sam.getFlag(MODULE_ID, "manual.sr5").ammo, 11, "the rounds left are remembered");
  assert.equal(app.dialogData(samToken).manual.agility, 7);
});

test("with no GM online the attacker's client posts the card itself", async () => {
  const answer = fixture("sr5-attack-bf.json");
  const { app, game, samToken, goonToken, messages } = setup({
    isGM: false,
    activeGM: null,
    answers: { "POST /v1/encounters/enc1/attacks": { ...answer, state: {} } },
  });
  // The world's settings, as the GM saved them (a player may not write them).
  game.settings.storeWorld(MODULE_ID, "serviceUrl", "http://ff");
  game.settings.storeWorld(MODULE_ID, "encounterId", "enc1");
  game.settings.storeWorld(MODULE_ID, "playerToken", "p");
  await assert.rejects(game.settings.set(MODULE_ID, "playerToken", "mine"), /lacks permission to update Setting/);
  game.user.targets = new Set([goonToken]);
  const data = app.dialogData(samToken);
  await app.attack(samToken, data, { weapon: "aresAlpha000001", mode: "BF", dice: "" });
  assert.equal(messages.size, 1);
  const [message] = messages;
  assert.equal(message.flags.firefight.eventId, answer.event_id);
  assert.equal(message.rolls.length, answer.result.dice.length);
  // Posting the same event again (the socket, later) adds nothing.
  await app.postCard({ id: answer.event_id, encounter: "enc1", result: answer.result }, "sr5");
  assert.equal(messages.size, 1);
});

test("the card's buttons call the service with the clicked target", async () => {
  const { app, game, calls } = setup({
    answers: { "POST /v1/encounters/enc1/actions": { event_id: "9-0", result: { kind: "action", edge_spent: 1, effects: [] }, state: {} } },
  });
  await game.settings.set(MODULE_ID, "serviceUrl", "http://ff");
  await game.settings.set(MODULE_ID, "encounterId", "enc1");
  await game.settings.set(MODULE_ID, "gmToken", "g");
  const button = new StubElement("button");
  Object.assign(button.dataset, { firefightAction: "second-chance", target: "tokGoon00000001" });
  const element = new StubElement("div", { children: [button] });
  app.bindCard({ flags: { firefight: { attacker: "tokSam000000001" } } }, element);
  app.bindCard({ flags: { firefight: { attacker: "tokSam000000001" } } }, element);
  assert.equal(button.listeners.get("click").length, 1, "bound once");
  await button.click();
  assert.deepEqual(calls.at(-1).body, { actor: "tokSam000000001", action: "second_chance", target: "tokGoon00000001" });
});

test("the attack dialog renders the actor's weapons, their modes and the targets with their distances", async () => {
  const { app, game, samToken, goonToken } = setup();
  await game.settings.set(MODULE_ID, "encounterId", "enc1");
  game.user.targets = new Set([goonToken]);
  const data = app.dialogData(samToken, { itemId: "predatorV000001" });
  const html = await makeRenderTemplate()("modules/firefight/templates/attack-dialog.hbs", data);
  assert.match(html, /<option value="aresAlpha000001" >Ares Alpha \(11P, AP -2, Acc 5, RC 2, 42\)<\/option>/);
  assert.match(html, /<option value="predatorV000001" selected>/);
  // The pistol chosen from its sheet fires SA (and SB), not the rifle's modes.
  assert.match(html, /<select name="mode"><option value="SA">Semi-automatic \(SA\)<\/option><option value="SB">Semi-automatic burst \(SB\)<\/option><\/select>/);
  assert.match(html, /name="distance.tokGoon00000001" value="13"/);
  assert.match(html, /name="cover.tokGoon00000001"/);
  assert.match(html, /name="dice"/);
  assert.doesNotMatch(html, /<form/, "DialogV2 wraps its content in its own form");
});

/** A table where the GM holds the fixed encounter's token and the service answers attacks and actions. */
async function armed(options = {}) {
  const answer = fixture("sr5-attack-bf.json");
  const table = setup({
    answers: {
      "POST /v1/encounters/enc1/attacks": { ...answer, state: {} },
      "POST /v1/encounters/enc1/actions": { event_id: "8-0", result: { kind: "action", actor: "tokSam000000001", action: "take_aim", edge_spent: 0, effects: ["aim +1"] }, state: {} },
    },
    ...options,
  });
  await table.game.settings.set(MODULE_ID, "serviceUrl", "http://ff");
  await table.game.settings.set(MODULE_ID, "encounterId", "enc1");
  await table.game.settings.set(MODULE_ID, "gmToken", "g");
  table.game.user.targets = new Set([table.goonToken]);
  return { ...table, answer };
}

test("the attack dialog: Fire sends what the form holds, with the measured distance it was filled with", async () => {
  const { app, calls, samToken, sam } = await armed();
  DialogV2.respond((dialog) => {
    assert.equal(dialog.title, "Attack: Sam");
    assert.deepEqual(dialog.buttons.map((b) => b.action), ["fire", "aim", "cancel"]);
    return { action: "fire", values: { weapon: "aresAlpha000001", mode: "BF", "cover.tokGoon00000001": "partial", "called.tokGoon00000001": true, smartlink: "wired" } };
  });
  const answer = await app.openAttackDialog(samToken);
  assert.equal(answer.event_id, fixture("sr5-attack-bf.json").event_id);
  const sent = calls.at(-1);
  assert.deepEqual([sent.method, sent.path, sent.auth], ["POST", "/v1/encounters/enc1/attacks", "Bearer g"]);
  assert.equal(sent.body.weapon.id, "aresAlpha000001");
  assert.equal(sent.body.mode, "BF");
  assert.equal(sent.body.smartlink, "wired");
  assert.deepEqual(
    sent.body.targets.map((t) => [t.id, t.distance_m, t.cover, t.called_shot, t.prone ?? false]),
    [["tokGoon00000001", 13, "partial", true, false]],
  );
  // The rounds left are written back onto the rifle the service fired.
  assert.equal(sam.items.get("aresAlpha000001").system.ammo.current.value, answer.result.ammo_left);
});

test("the attack dialog: Take aim sends an aim action; Cancel and closing send nothing", async () => {
  const { app, calls, samToken } = await armed();
  DialogV2.respond(() => ({ action: "aim", values: { aim_for: "accuracy" } }));
  const aimed = await app.openAttackDialog(samToken);
  assert.equal(aimed.event_id, "8-0");
  assert.deepEqual(calls.at(-1).body, { actor: "tokSam000000001", action: "take_aim", aim_for: "accuracy" });
  const before = calls.length;
  DialogV2.respond(() => ({ action: "cancel" }));
  assert.equal(await app.openAttackDialog(samToken), null);
  DialogV2.respond(() => null);
  assert.equal(await app.openAttackDialog(samToken), null);
  // Only the dialogs' odds were asked (nothing rolled, nothing changed).
  assert.deepEqual(calls.slice(before).map((c) => c.path), ["/v1/encounters/enc1/attacks/odds", "/v1/encounters/enc1/attacks/odds"]);
});

test("the attack dialog: suppressive fire with the direction and length left empty aims at the first target", async () => {
  const { app, calls, samToken } = await armed();
  DialogV2.respond(() => ({ action: "fire", values: { weapon: "aresAlpha000001", mode: "suppressive" } }));
  await app.openAttackDialog(samToken);
  const { zone, targets, bystanders } = calls.at(-1).body;
  assert.equal(targets, undefined);
  // Sam at (0, 0), the ganger 12 m right and 5 m down the canvas: 13 m at -22.62 degrees.
  assert.deepEqual(zone, { origin: { x: 0, y: 0 }, direction_deg: -22.62, length_m: 13 });
  assert.deepEqual(bystanders.map((b) => b.id), ["tokGoon00000001"]);
});

/** The zones drawn on a scene: v13's templates, v14's regions (v14 has no MeasuredTemplate). */
const zonesOn = (scene) => (core().generation >= 14 ? scene.regions : scene.templates);

test("zones are drawn on the combat's scene with its grid, not on the scene this client views", async () => {
  const { app, scene: viewed } = setup();
  const combatScene = makeScene({ grid: makeGrid({ size: 50, distance: 2, units: "m" }), id: "scene0000000002", name: "Docks" });
  const combat = makeCombat();
  combat.scene = combatScene;
  app.game.combat = combat;
  const event = fixture("sr5-suppressive-event.json");
  await app.handleEvent(event, { id: event.encounter, ruleset: "sr5", combat: null });
  assert.equal(zonesOn(viewed).size, 0);
  assert.equal(zonesOn(combatScene).size, 1);
  const [zone] = zonesOn(combatScene);
  if (core().generation >= 14) {
    // The service's triangle, 25 px a metre (50 px per 2 m), y down: (0, 0), (32.141, 24.330) m
    // at (803.525, -608.253) px, (37.141, 15.670) m at (928.525, -391.747) px.
    const [shape] = zone.shapes;
    assert.equal(shape.type, "polygon");
    assert.deepEqual(shape.points.map((v) => Math.round(v * 1000) / 1000), [0, 0, 803.525, -608.253, 928.525, -391.747]);
  } else {
    // 40 m long on a grid of 2 m per 50 px: 20 spaces of 2 m, from the origin at (0, 0).
    assert.equal(Math.round(zone.distance * 1000) / 1000, 40);
  }
});

test("an event's card is posted before its zones are drawn, and a zone the scene refuses loses no card", async () => {
  const { app, messages, ui } = setup();
  const combatScene = makeScene({ grid: makeGrid(), id: "scene0000000002", name: "Docks" });
  const combat = makeCombat();
  combat.scene = combatScene;
  app.game.combat = combat;
  const order = [];
  const create = app.env.ChatMessage.create;
  app.env.ChatMessage.create = (data) => (order.push("card"), create(data));
  const draw = combatScene.createEmbeddedDocuments;
  combatScene.createEmbeddedDocuments = (type, data) => (order.push(type), draw(type, data));
  const event = { ...fixture("sr5-suppressive-event.json"), id: "5-0" };
  await app.handleEvent(event, { id: event.encounter, ruleset: "sr5", combat: null });
  assert.deepEqual(order, ["card", core().generation >= 14 ? "Region" : "MeasuredTemplate"]);
  // The scene refuses the next zone (a Foundry that cannot draw it): the card is there all the same.
  combatScene.createEmbeddedDocuments = async () => {
    throw new Error("Region validation errors: shapes");
  };
  const next = { ...event, id: "6-0", zones_started: [{ ...event.zones_started[0], id: "zone-2" }] };
  await app.handleEvent(next, { id: event.encounter, ruleset: "sr5", combat: null });
  assert.deepEqual([...messages].map((m) => m.flags.firefight.eventId), ["5-0", "6-0"]);
  assert.deepEqual(ui.notifications.seen.filter((n) => n.level === "error").map((n) => n.message), ["firefight: zone zone-2 could not be drawn on the scene (Region validation errors: shapes); its card is posted."]);
});

test("a clear notice when the actor has no token on the combat's scene, or the combat is on another scene", async () => {
  const { app, game, sam, samToken, ui, calls } = await armed();
  sam.getActiveTokens = () => [];
  const weapon = sam.items.get("aresAlpha000001");
  assert.equal(await app.attackWithItem(weapon), null);
  assert.deepEqual(ui.notifications.seen.at(-1), { level: "warn", message: "firefight: Sam has no token on the combat's scene (Warehouse): place one there to attack." });
  // With its token there, the sheet's button opens the dialog with that weapon chosen.
  sam.getActiveTokens = () => [samToken];
  DialogV2.respond((dialog) => {
    assert.match(dialog.content, /<option value="aresAlpha000001" selected>/);
    return null;
  });
  assert.equal(await app.attackWithItem(weapon), null);
  // A combat on another scene than the one viewed: no dialog, a notice.
  const combat = makeCombat();
  combat.scene = makeScene({ grid: makeGrid(), id: "scene0000000002", name: "Docks" });
  game.combat = combat;
  const opened = DialogV2.opened.length;
  assert.equal(await app.openAttackDialog(samToken), undefined);
  assert.equal(DialogV2.opened.length, opened);
  assert.equal(ui.notifications.seen.at(-1).message, "firefight: the combat is on the scene Docks: view that scene to attack.");
  // The dialog that opened asked its odds, and nothing else was sent.
  assert.deepEqual(calls.filter((c) => c.method === "POST").map((c) => c.path), ["/v1/encounters/enc1/attacks/odds"]);
});

test("roll modes: the GM's client posts a player's card as that player chose (public, GM only, blind, self)", async () => {
  const { app, game, messages } = setup({ isGM: true });
  const player = makeUser({ id: "player00000001", name: "Player" });
  game.users.set(player.id, player);
  const { event_id, result } = fixture("sr5-attack-bf.json");
  const expected = {
    publicroll: { whisper: [], blind: false },
    gmroll: { whisper: ["user0000000001"], blind: false },
    blindroll: { whisper: ["user0000000001"], blind: true },
    selfroll: { whisper: ["player00000001"], blind: false },
  };
  let n = 0;
  for (const [mode, visibility] of Object.entries(expected)) {
    // What the player's client says before it sends the request (roll-mode.mjs).
    await player.setFlag("firefight", "lastRequest", { actor: result.attacker, rollMode: mode, at: ++n });
    const message = await app.postCard({ id: `${event_id}-${mode}`, encounter: "enc", result }, "sr5");
    assert.deepEqual({ whisper: message.whisper, blind: message.blind }, visibility, mode);
    assert.equal(message.author, "player00000001", `${mode}: the player's own card`);
    assert.equal(message.flags.firefight.rollMode, mode);
  }
  assert.equal(messages.size, 4);
  // An event nobody here asked for (the web console): the GM's own roll mode, as the GM's.
  await chooseChatMode(game, "gm");
  const console = await app.postCard({ id: "console-1", encounter: "enc", result: { ...result, attacker: "someone-else" } }, "sr5");
  assert.deepEqual([console.author, console.whisper, console.blind], ["user0000000001", ["user0000000001"], false]);
});

test("roll modes: with no GM online, the player's chosen mode from the dialog hides their own card", async () => {
  const answer = fixture("sr5-attack-bf.json");
  const { app, game, samToken, goonToken, messages } = setup({
    isGM: false,
    activeGM: null,
    answers: { "POST /v1/encounters/enc1/attacks": { ...answer, state: {} } },
  });
  const gm = makeUser({ id: "gm000000000001", name: "Gamemaster", isGM: true });
  game.users.set(gm.id, gm);
  game.settings.storeWorld(MODULE_ID, "serviceUrl", "http://ff");
  game.settings.storeWorld(MODULE_ID, "encounterId", "enc1");
  game.settings.storeWorld(MODULE_ID, "playerToken", "p");
  await chooseChatMode(game, "gm");
  game.user.targets = new Set([goonToken]);
  DialogV2.respond((dialog) => {
    assert.match(dialog.content, /<option value="gmroll" selected>GM only \(and you\)<\/option>/, "the player's roll mode is the default");
    return { action: "fire", values: { weapon: "aresAlpha000001", mode: "BF", rollMode: "blindroll" } };
  });
  await app.openAttackDialog(samToken);
  const [message] = messages;
  assert.deepEqual([message.author, message.whisper, message.blind], ["player00000001", ["gm000000000001"], true]);
  assert.deepEqual(game.user.flags.firefight.lastRequest.rollMode, "blindroll");
  assert.equal(game.user.flags.firefight.lastRequest.actor, "tokSam000000001");
});

/** A card for the ganger's 10 boxes, posted and rendered as the chat log renders it. */
async function postedCard(table) {
  const { result } = fixture("sr5-attack-bf.json");
  const hit = { ...result, attacker: "tokSam000000001", targets: [{ ...result.targets[0], target: "tokGoon00000001" }] };
  const message = await table.app.postCard({ id: "7-0", encounter: "enc1", result: hit }, "sr5");
  const render = () => {
    const element = parseHTML(message.content);
    table.app.bindCard(message, element);
    return element;
  };
  return { message, render };
}

test("Apply damage applies once, the card says so, and the GM's Undo puts the monitor back", async () => {
  const table = setup({ isGM: true });
  const { goon, ui } = table;
  const { message, render } = await postedCard(table);
  let card = render();
  const apply = card.querySelector('[data-firefight-action="apply-damage"]');
  assert.deepEqual([apply.dataset.target, apply.dataset.boxes, apply.dataset.track], ["tokGoon00000001", "10", "physical"]);
  assert.equal(card.querySelector('[data-firefight-action="undo-damage"]'), null);
  await apply.click();
  assert.equal(goon.system.track.physical.value, 10);
  assert.deepEqual(message.flags.firefight.applied.tokGoon00000001, { track: "physical", boxes: 10, previous: { system: { track: { physical: { value: 0 } } } }, by: "user0000000001" }, "stored as Foundry stores it: setFlag's update expands dotted keys inside the value too");
  // A second click (this card, or the card rendered again after the update) changes nothing.
  await apply.click();
  card = render();
  const again = card.querySelector('[data-firefight-action="apply-damage"]');
  assert.equal(again.disabled, true);
  assert.equal(again.textContent, "Applied: 10 physical");
  await table.app.applyDamage("tokGoon00000001", "physical", 10, message);
  assert.equal(goon.system.track.physical.value, 10, "applied once");
  assert.equal(ui.notifications.seen.at(-1).message, "firefight: this card's damage is already on Halloweener.");
  // Undo: the monitor as it was, and the card can apply again.
  const undo = card.querySelector('[data-firefight-action="undo-damage"]');
  assert.equal(undo.textContent, "Undo");
  await undo.click();
  assert.equal(goon.system.track.physical.value, 0);
  assert.equal(message.flags.firefight.applied.tokGoon00000001, null);
  card = render();
  assert.equal(card.querySelector('[data-firefight-action="apply-damage"]').disabled, false);
  assert.equal(card.querySelector('[data-firefight-action="undo-damage"]'), null);
});

test("a target's owner applies damage from the GM's card once, recorded on their actor; only the GM undoes", async () => {
  const gmTable = setup({ isGM: true });
  const { message } = await postedCard(gmTable);
  // The same world seen from the ganger's owner: the GM's message is not theirs to update.
  const table = setup({ isGM: false });
  table.goon.ownedByPlayer = true;
  await assert.rejects(message.setFlag("firefight", "x", 1), /lacks permission to update ChatMessage/);
  const card = parseHTML(message.content);
  table.app.bindCard(message, card);
  const apply = card.querySelector('[data-firefight-action="apply-damage"]');
  await apply.click();
  assert.equal(table.goon.system.track.physical.value, 10);
  assert.equal(table.goon.flags.firefight.applied[message.id].tokGoon00000001.boxes, 10);
  assert.equal(apply.disabled, true, "the card shows it at once");
  assert.equal(apply.textContent, "Applied: 10 physical");
  assert.equal(card.querySelector('[data-firefight-action="undo-damage"]'), null, "no Undo for players");
  const updates = table.goon.updates.length;
  await apply.click();
  assert.equal(table.goon.system.track.physical.value, 10, "once");
  assert.equal(table.goon.updates.length, updates, "no second update");
  await table.app.undoDamage("tokGoon00000001", message);
  assert.equal(table.goon.system.track.physical.value, 10);
  assert.equal(table.ui.notifications.seen.at(-1).message, "firefight: only the GM can undo applied damage.");
});

test("the module's own failures reach the user in their language; a d100 form fires with its manual numbers", async () => {
  const { app, ui, samToken, game, calls } = await armed();
  game.user.targets = new Set();
  DialogV2.respond(() => ({ action: "fire", values: { weapon: "aresAlpha000001", mode: "BF" } }));
  assert.equal(await app.openAttackDialog(samToken), null);
  assert.deepEqual(ui.notifications.seen.at(-1), { level: "error", message: "firefight: target at least one token." });

  const d100 = setup({ systemId: "worldbuilding", answers: { "POST /v1/encounters/enc1/attacks": (body) => ({ event_id: "3-0", result: { kind: "d100_attack", echo: body }, state: {} }) } });
  await d100.game.settings.set(MODULE_ID, "ruleset", "d100");
  await d100.game.settings.set(MODULE_ID, "serviceUrl", "http://ff");
  await d100.game.settings.set(MODULE_ID, "encounterId", "enc1");
  await d100.game.settings.set(MODULE_ID, "gmToken", "g");
  d100.game.user.targets = new Set([d100.goonToken]);
  DialogV2.respond((dialog) => {
    assert.equal((dialog.content.match(/name="shot_rate"/g) ?? []).length, 1, "one Shot Rate field");
    assert.match(dialog.content, /<label>Marksmanship<\/label><input type="text" name="marksmanship" value="50">/);
    return { action: "fire", values: { marksmanship: "65", shot_rate: "3", mode: "attack", aim: 10 } };
  });
  await d100.app.openAttackDialog(d100.samToken);
  const sent = d100.calls.at(-1).body;
  assert.deepEqual([sent.ruleset, sent.attacker.marksmanship, sent.shot_rate, sent.aim, sent.targets[0].distance_m], ["d100", 65, 3, 10, 13]);
  assert.equal(calls.filter((c) => c.path.endsWith("/attacks")).length, 0);
});

// The combat's scene as the encounter's scene: module.mjs loaded against Foundry's globals, the
// game booted in Foundry's order, tokens created, moved, hidden and deleted through the stubs'
// documents, which fire createToken/updateToken/deleteToken as Foundry does. The service is faked;
// tests/e2e.test.mjs plays the same against the real one.

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  ApplicationV2, Collection, DialogV2, fixture, FormDataExtended, Hooks, makeActor, makeChatMessage, makeCombat, makeGame, makeGrid, makeRenderTemplate,
  makeScene, makeToken, makeUser, moveToken, Roll, StubElement, stubDocument,
} from "./foundry-stubs.mjs";
import { sceneActorOf, sr5Sheet, tokenPosition } from "../src/scene-sync.mjs";

const GLOBALS = ["Hooks", "game", "canvas", "ui", "ChatMessage", "Roll", "foundry", "document", "HTMLElement", "fetch", "WebSocket"];
const saved = Object.fromEntries(GLOBALS.map((name) => [name, globalThis[name]]));

/** A socket that never connects: the feed is not what these tests look at. */
class QuietSocket {
  readyState = 0;
  addEventListener() {}
  close() {
    this.readyState = 3;
  }
}

/** The fake service: every request recorded; actors the service does not hold answer 404 actor-not-found. */
function fakeService({ unknownActors = [] } = {}) {
  const calls = [];
  const fetch = async (url, init = {}) => {
    const path = new URL(url).pathname;
    const method = init.method ?? "GET";
    calls.push({ method, path, body: init.body ? JSON.parse(init.body) : undefined, auth: init.headers?.Authorization });
    const reply = (status, value) => ({ status, ok: status < 300, text: async () => JSON.stringify(value) });
    if (method === "GET") return reply(200, path === "/readyz" ? { status: "ok" } : { id: "enc1" });
    if (method === "POST" && path === "/v1/encounters") return reply(201, { id: "enc1", ruleset: "sr5", name: "x", created_at: "t", tokens: { gm: "gm-tok", player: "pl-tok" }, event_id: "1-0" });
    const actor = /\/actors\/([^/]+)/.exec(path)?.[1];
    if (actor && unknownActors.includes(actor) && method !== "PUT") {
      return reply(404, { type: "https://firefight.invalid/problems/actor-not-found", status: 404, detail: `no actor ${actor}` });
    }
    return reply(method === "POST" ? 201 : 200, { event_id: "2-0", result: { kind: "scene" }, changes: {} });
  };
  return { calls, fetch };
}

/** Waits until `predicate` holds, a turn of the event loop at a time (the hooks' promises are not returned to Foundry). */
async function until(predicate, what) {
  for (let turn = 0; turn < 1000; turn += 1) {
    if (predicate()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  assert.fail(`never happened: ${what}`);
}

/**
 * module.mjs against Foundry's globals, booted in Foundry's order: init (settings registered;
 * the world's and this browser's values as saved in an earlier session), setup, ready.
 */
async function boot({ isGM, activeGM, combat, scene, fetch, userId, secrets = {} }) {
  Hooks.reset();
  const game = makeGame({ isGM, phase: "init", activeGM, userId });
  game.modules = new Map([["firefight", {}]]);
  game.combat = combat;
  const { ChatMessage, messages } = makeChatMessage();
  game.messages = messages;
  const errors = [];
  Object.assign(globalThis, {
    Hooks,
    game,
    canvas: { grid: scene.grid, scene, tokens: { placeables: [] } },
    ui: { notifications: { info() {}, warn() {}, error: (m) => errors.push(m) } },
    ChatMessage,
    Roll,
    document: stubDocument,
    HTMLElement: StubElement,
    fetch,
    WebSocket: QuietSocket,
    foundry: {
      applications: {
        api: { DialogV2, ApplicationV2 },
        ux: { FormDataExtended },
        handlebars: { renderTemplate: makeRenderTemplate(), loadTemplates() {} },
      },
    },
  });
  await import(`../src/module.mjs?scene=${Math.random()}`);
  Hooks.callAll("init");
  game.settings.storeWorld("firefight", "serviceUrl", "http://ff");
  for (const [key, value] of Object.entries(secrets)) game.settings.storeWorld("firefight", key, value);
  Hooks.callAll("i18nInit");
  game.enterSetup();
  Hooks.callAll("setup");
  game.enterReady();
  Hooks.callAll("ready");
  return { game, errors, app: () => game.modules.get("firefight").api };
}

function cleanUp(game) {
  game?.modules.get("firefight").api?.feed?.stop();
  Hooks.reset();
  Object.assign(globalThis, saved);
  for (const name of GLOBALS) if (saved[name] === undefined) delete globalThis[name];
}

function table() {
  const sam = makeActor(fixture("sr5-actor-sam.json"));
  const goon = makeActor(fixture("sr5-actor-goon.json"), { owner: false });
  const grid = makeGrid({ size: 100, distance: 1, units: "m" });
  const samToken = makeToken({ id: "tokSam000000001", name: "Sam", actor: sam, x: 0, y: 0 });
  const goonToken = makeToken({ id: "tokGoon00000001", name: "Sniper", actor: goon, x: 1200, y: 500, hidden: true, owner: false });
  const scene = makeScene({ grid, tokens: [samToken, goonToken] });
  const combat = makeCombat({ round: 0, combatants: [{ tokenId: samToken.id }, { tokenId: goonToken.id }] });
  combat.scene = scene;
  return { sam, goon, grid, scene, combat, samDoc: scene.tokens.get(samToken.id), goonDoc: scene.tokens.get(goonToken.id) };
}

const sceneCalls = (calls) => calls.filter((c) => c.path.includes("/actors")).map((c) => [c.method, c.path.replace("/v1/encounters/enc1/actors/", ""), c.body]);

test("the GM's client puts the combat's tokens on the encounter's scene, then sends each move, hide, new and deleted token", async () => {
  const { sam, scene, combat, samDoc, goonDoc } = table();
  const service = fakeService({ unknownActors: ["tokLate00000001"] });
  let game;
  try {
    const booted = await boot({ isGM: true, combat, scene, fetch: service.fetch, secrets: { adminKey: "admin-key" } });
    game = booted.game;
    await until(() => combat.getFlag("firefight", "encounter")?.scene === scene.id, "the scene synced");

    // The encounter, then every token of the combat's scene, with the GM token.
    const puts = service.calls.filter((c) => c.method === "PUT");
    assert.deepEqual(puts.map((c) => [c.path, c.auth]), [
      ["/v1/encounters/enc1/actors/tokSam000000001", "Bearer gm-tok"],
      ["/v1/encounters/enc1/actors/tokGoon00000001", "Bearer gm-tok"],
    ]);
    const [samBody, goonBody] = puts.map((c) => c.body);
    assert.deepEqual([samBody.name, samBody.hidden, samBody.position], ["Sam", false, { x: 0, y: 0 }]);
    // A player owns Sam: the players control it on the scene (their token acts for it).
    assert.equal(samBody.controller, "players");
    // The hidden sniper 12 m east and 5 m south (y up) of Sam: token centres in metres.
    assert.deepEqual([goonBody.name, goonBody.hidden, goonBody.position], ["Sniper", true, { x: 12, y: -5 }]);
    // Sam's sheet, from the shadowrun5e data model.
    assert.deepEqual(
      [samBody.sheet.ruleset, samBody.sheet.agility, samBody.sheet.body, samBody.sheet.edge, samBody.sheet.armor, samBody.sheet.wound_modifier, samBody.sheet.skill],
      ["sr5", 6, 4, 3, 12, -1, 6],
    );
    assert.deepEqual(samBody.sheet.weapons.map((w) => [w.id, w.category, w.modes]), [
      ["aresAlpha000001", "assault_rifle", ["SA", "BF", "FA"]],
      ["predatorV000001", "heavy_pistol", ["SA"]],
    ]);
    // Each gun with its own skill: Automatics 6 for the rifle, Pistols 4 for the pistol.
    assert.deepEqual(samBody.sheet.weapon_skills, { aresAlpha000001: 6, predatorV000001: 4 });
    assert.deepEqual(samBody.sheet, sr5Sheet(sam));

    // A drag: one update, one move to the new centre.
    const before = service.calls.length;
    await moveToken(samDoc, [{ x: 400, y: 100 }]);
    await until(() => service.calls.length > before, "the move");
    // A path through a checkpoint: an update per checkpoint, each where the token stands then.
    await moveToken(samDoc, [{ x: 500, y: 100 }, { x: 600, y: 100 }]);
    // A path stopped at its first checkpoint: the token stays there, and the service hears it.
    await moveToken(samDoc, [{ x: 800, y: 100 }, { x: 900, y: 100 }], { stopAfter: 1 });
    await moveToken(samDoc, [{ x: 600, y: 100 }]);
    // The GM reveals the sniper; a token update that is neither a move nor a reveal sends nothing.
    await goonDoc.update({ hidden: false });
    await goonDoc.update({ "texture.src": "sniper.webp" });
    // A token dropped on the scene, one the service does not hold yet moved, and a token deleted.
    const [drone] = await scene.createEmbeddedDocuments("Token", [{ id: "tokDrone0000001", name: "Drone", x: 1000, y: 1000 }]);
    const [late] = await scene.createEmbeddedDocuments("Token", [{ id: "tokLate00000001", name: "Late", x: 0, y: 0 }]);
    await late.update({ y: 200 });
    await scene.deleteEmbeddedDocuments("Token", [drone.id]);
    await until(() => service.calls.at(-1)?.method === "DELETE", "the deletion");

    assert.deepEqual(sceneCalls(service.calls.slice(before)), [
      ["POST", "tokSam000000001/move", { position: { x: 4.5, y: -1.5 } }],
      ["POST", "tokSam000000001/move", { position: { x: 5.5, y: -1.5 } }],
      ["POST", "tokSam000000001/move", { position: { x: 6.5, y: -1.5 } }],
      ["POST", "tokSam000000001/move", { position: { x: 8.5, y: -1.5 } }],
      ["POST", "tokSam000000001/move", { position: { x: 6.5, y: -1.5 } }],
      ["PATCH", "tokGoon00000001", { hidden: false }],
      // A token with no actor is the GM's: no player owns it.
      ["PUT", "tokDrone0000001", { name: "Drone", controller: "gm", hidden: false, position: { x: 10.5, y: -10.5 } }],
      ["PUT", "tokLate00000001", { name: "Late", controller: "gm", hidden: false, position: { x: 0.5, y: -0.5 } }],
      ["POST", "tokLate00000001/move", { position: { x: 0.5, y: -2.5 } }],
      ["PUT", "tokLate00000001", { name: "Late", controller: "gm", hidden: false, position: { x: 0.5, y: -2.5 } }],
      ["DELETE", "tokDrone0000001", undefined],
    ]);

    // The GM views another scene (no game.combat there): a player's move on the combat's scene is still sent.
    const viewed = game.combat;
    game.combat = null;
    game.combats = new Collection([combat]);
    const moved = service.calls.length;
    await samDoc.update({ x: 700 });
    await until(() => service.calls.length > moved, "the move seen from another scene");
    assert.deepEqual(sceneCalls(service.calls.slice(moved)), [["POST", "tokSam000000001/move", { position: { x: 7.5, y: -1.5 } }]]);
    game.combat = viewed;

    // A token of another scene is none of the encounter's business.
    const other = makeScene({ grid: scene.grid, id: "scene0000000002" });
    const count = service.calls.length;
    const [elsewhere] = await other.createEmbeddedDocuments("Token", [{ id: "tokElse00000001", name: "Else", x: 0, y: 0 }]);
    await elsewhere.update({ x: 300 });
    await other.deleteEmbeddedDocuments("Token", [elsewhere.id]);
    // A reload: the scene was synced already, nothing is put again.
    assert.deepEqual(await game.modules.get("firefight").api.syncScene(combat), []);
    await game.modules.get("firefight").api.sceneQueue;
    assert.equal(service.calls.length, count);
    assert.deepEqual(booted.errors, []);
  } finally {
    cleanUp(game);
  }
});

test("players' clients, and a GM who is not the active GM, never send scene requests", async () => {
  for (const who of ["player", "second GM"]) {
    const { scene, combat, samDoc } = table();
    // The combat's encounter, made earlier by the active GM.
    combat.flags.firefight = { encounter: { id: "enc1", ruleset: "sr5", playerToken: "pl-tok", scene: null } };
    const service = fakeService();
    let game;
    try {
      const isGM = who !== "player";
      const secrets = isGM ? { gmTokens: { enc1: "gm-tok" }, adminKey: "admin-key" } : {};
      const booted = await boot({ isGM, activeGM: { id: "gm000000000001" }, combat, scene, fetch: service.fetch, userId: isGM ? "user0000000002" : "player00000001", secrets });
      game = booted.game;
      const app = booted.app();
      // Sam's player drags Sam, and the hooks fire on this client too.
      await samDoc.update({ x: 400, y: 100 });
      await scene.createEmbeddedDocuments("Token", [{ id: "tokDrone0000001", name: "Drone", x: 0, y: 0 }]);
      await scene.deleteEmbeddedDocuments("Token", ["tokDrone0000001"]);
      await app.sceneQueue;
      assert.deepEqual(await app.syncScene(combat), [], who);
      assert.deepEqual(sceneCalls(service.calls), [], who);
      // (A GM's connection check tries the admin key with an empty, invalid creation: it creates nothing.)
      const changes = service.calls.filter((c) => c.method !== "GET" && !(c.path === "/v1/encounters" && Object.keys(c.body).length === 0));
      assert.deepEqual(changes, [], `${who}: no request that changes anything`);
    } finally {
      cleanUp(game);
    }
  }
});

test("a hidden actor's name never reaches a card players read: public cards say someone, and speak as no token", async () => {
  const { scene, combat } = table();
  combat.flags.firefight = { encounter: { id: "enc1", ruleset: "sr5", playerToken: "pl-tok", scene: scene.id } };
  const service = fakeService();
  let game;
  try {
    const booted = await boot({ isGM: true, combat, scene, fetch: service.fetch, secrets: { gmTokens: { enc1: "gm-tok" } } });
    game = booted.game;
    const app = booted.app();
    const player = makeUser({ id: "player00000001", name: "Player" });
    game.users.set(player.id, player);
    // The hidden sniper fires at Sam; Sam, visible, is named everywhere.
    const { result } = fixture("sr5-attack-bf.json");
    const shot = { ...result, attacker: "tokGoon00000001", targets: result.targets.map((t) => ({ ...t, target: "tokSam000000001" })) };
    const card = (mode, author, n) => app.postCard({ id: `9-${n}`, encounter: "enc1", result: shot }, "sr5", { rollMode: mode, author });
    for (const [n, [mode, author]] of [["publicroll", game.user.id], ["gmroll", player.id], ["selfroll", player.id]].entries()) {
      const message = await card(mode, author, n);
      assert.doesNotMatch(message.content, /Sniper/, `${mode} by ${author}`);
      assert.match(message.content, /<strong>Someone<\/strong>/, mode);
      assert.match(message.content, /Sam/);
      assert.deepEqual(message.speaker, { alias: "Someone" }, mode);
    }
    // Cards only GMs read name it: the GM's own GM-only card, and any blind card.
    for (const [n, [mode, author]] of [["gmroll", game.user.id], ["blindroll", player.id]].entries()) {
      const message = await card(mode, author, 10 + n);
      assert.match(message.content, /<strong>Sniper<\/strong>/, mode);
      assert.equal(message.speaker.token, "tokGoon00000001");
    }
  } finally {
    cleanUp(game);
  }
});

test("a token's scene actor: centre from its document's corner and size, no sheet outside shadowrun5e", () => {
  const grid = makeGrid({ size: 50, distance: 5, units: "ft" });
  const doc = { id: "tokBig000000001", name: "Troll", x: 100, y: 200, width: 2, height: 2, hidden: false, actor: makeActor(fixture("sr5-actor-sam.json")) };
  // Centre (150, 250) px; 5 ft a 50 px space: 0.03048 m a pixel.
  assert.deepEqual(tokenPosition(doc, grid), { x: 4.572, y: -7.62 });
  assert.equal(sceneActorOf(doc, { grid, ruleset: "sr5", systemId: "dnd5e" }).sheet, undefined);
  assert.equal(sceneActorOf(doc, { grid, ruleset: "d100", systemId: "shadowrun5e" }).sheet, undefined);
  assert.equal(sceneActorOf(doc, { grid, ruleset: "sr5", systemId: "shadowrun5e" }).sheet.ruleset, "sr5");
});

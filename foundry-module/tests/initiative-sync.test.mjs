// "firefight runs initiative": what the tracker's rolls send to the service, what a tracker move
// asks of it, and what the tracker shows of the service's order (plain data), then the flows of
// the GM's client with Foundry's hooks and a faked service (module.mjs booted in Foundry's order).

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  advancesWhileRunning, fromServiceOptions, isFromService, knownFromTurn, knownFromView, pushRequests, serviceScore,
  trackerScores, trackerUpdates,
} from "../src/initiative-sync.mjs";
import {
  ApplicationV2, DialogV2, FormDataExtended, Hooks, makeChatMessage, makeGame, makeGrid, makeNotifications, makeRenderTemplate, makeScene,
  makeTrackerCombat, Roll, StubElement, stubDocument,
} from "./foundry-stubs.mjs";

const idOf = (c) => c.tokenId;
const known = (entries, { current = entries[0]?.[0] ?? null, over = false, round = 1, combatTurn = 1 } = {}) => ({
  combatTurn, round, over, current, entries: entries.map(([actor, score]) => ({ actor, score })),
});

test("Foundry's initiative is a whole score from -1000 to 1000, and a combatant not rolled has none", () => {
  assert.deepEqual([12, 12.4, 12.5, -3, 5000, -5000, null, undefined, "", "x"].map(serviceScore), [12, 12, 13, -3, 1000, -1000, null, null, null, null]);
  const combatants = [{ tokenId: "sam", initiative: 14.2 }, { tokenId: "goon", initiative: null }, { tokenId: "sam", initiative: 3 }, { tokenId: "rat", initiative: 9 }];
  assert.deepEqual([...trackerScores(combatants, idOf)], [["sam", 14], ["rat", 9]]);
});

test("the first rolls start a combat turn; later ones join it, and a changed score leaves and joins again", () => {
  const scores = new Map([["sam", 14], ["goon", 9]]);
  assert.deepEqual(pushRequests(null, scores, 1), [{ kind: "start", body: { actors: [{ actor: "sam", score: 14 }, { actor: "goon", score: 9 }] } }]);
  assert.deepEqual(pushRequests(null, scores, 0), [], "nothing before the combat starts: its start sends them");
  assert.deepEqual(pushRequests(null, new Map(), 1), []);
  const running = known([["sam", 14], ["goon", 9]]);
  assert.deepEqual(pushRequests(running, scores, 1), [], "the service has these scores");
  assert.deepEqual(pushRequests(running, new Map([...scores, ["rat", 20]]), 1), [{ kind: "join", body: { actors: [{ actor: "rat", score: 20 }] } }]);
  assert.deepEqual(pushRequests(running, new Map([["sam", 16], ["goon", 9]]), 1), [
    { kind: "leave", actor: "sam" },
    { kind: "join", body: { actors: [{ actor: "sam", score: 16 }] } },
  ]);
  // Rolled again once the service's combat turn is over, or in a later Foundry round: the next one.
  assert.equal(pushRequests({ ...running, over: true }, scores, 1)[0].kind, "start");
  assert.equal(pushRequests(running, scores, 2)[0].kind, "start");
});

test("what the flags remember of the service's order, from an answer's turn or from GET .../initiative", () => {
  const turn = { combat_turn: 3, initiative_pass: 1, initiative: { entries: [{ actor: "sam", score: 14, acted: false }], current: "sam", over: false } };
  assert.deepEqual(knownFromTurn(turn, null, 2), { combatTurn: 3, round: 2, over: false, current: "sam", entries: [{ actor: "sam", score: 14 }] });
  // The same combat turn keeps the Foundry round it began in.
  assert.equal(knownFromTurn(turn, { combatTurn: 3, round: 1 }, 2).round, 1);
  assert.equal(knownFromTurn({ combat_turn: 3, initiative: null }, known([]), 2), null, "stopped");
  const view = { combat_turn: 4, initiative_pass: 2, current: null, over: true, entries: [{ actor: "sam", score: -6 }], actions_left: [] };
  assert.deepEqual(knownFromView(view, null, 2), { combatTurn: 4, round: 2, over: true, current: null, entries: [{ actor: "sam", score: -6 }] });
  assert.equal(knownFromView(null, known([]), 2), null);
});

test("a tracker move by the GM asks the service for that phase; a new round ends its combat turn", () => {
  const snap = (round, actor) => ({ round, turn: 0, pass: 1, actor });
  const running = known([["sam", 14], ["goon", 9]]);
  assert.deepEqual(advancesWhileRunning(snap(1, "sam"), snap(1, "goon"), running), [{ to: "action_phase", actor: "goon" }]);
  assert.deepEqual(advancesWhileRunning(snap(1, "goon"), snap(1, "sam"), running), [], "the service's own current: nothing to ask");
  assert.deepEqual(advancesWhileRunning(snap(1, "sam"), snap(2, "sam"), running), [{ to: "combat_turn" }]);
  assert.deepEqual(advancesWhileRunning(snap(1, "sam"), snap(2, "sam"), { ...running, over: true }), [], "over already: the next starts with the rolls");
  assert.deepEqual(advancesWhileRunning(snap(1, "sam"), snap(1, "goon"), { ...running, over: true, current: null }), []);
  assert.deepEqual(advancesWhileRunning(null, snap(0, null), running), []);
});

test("the tracker shows the service's scores and its acting actor", () => {
  const combatants = [{ id: "c1", tokenId: "sam", initiative: 14 }, { id: "c2", tokenId: "goon", initiative: 9 }, { id: "c3", tokenId: "by", initiative: null }];
  assert.deepEqual(trackerUpdates(combatants, known([["goon", -1], ["sam", 4]], { current: "sam" }), idOf), {
    updates: [{ _id: "c1", initiative: 4 }, { _id: "c2", initiative: -1 }],
    current: "c1",
  });
  assert.deepEqual(trackerUpdates(combatants, known([["sam", 14]], { current: null, over: true }), idOf), { updates: [], current: null });
  assert.equal(isFromService(fromServiceOptions()), true);
  assert.equal(isFromService({ direction: 1 }), false);
});

test("the stub combat fires updateCombatant for each combatant before it sorts its turns again, and hooks only for changes", async () => {
  Hooks.reset();
  makeGame({ isGM: true });
  const combat = makeTrackerCombat({ combatants: [{ id: "a", tokenId: "sam" }, { id: "b", tokenId: "goon" }], roll: (c) => ({ a: 5, b: 12 })[c.id] });
  const seen = [];
  Hooks.on("updateCombatant", (c, changed, options) => seen.push([c.id, changed.initiative, combat.turns.map((t) => t.id).join(","), options.turnEvents]));
  // The differential data with the document's _id, as Foundry hands it to update hooks.
  Hooks.on("updateCombat", (_c, changed) => seen.push(["combat", Object.keys(changed).filter((key) => key !== "_id").join(",")]));
  await combat.rollInitiative(["a", "b"]);
  assert.deepEqual(seen.splice(0), [["a", 5, "a,b", false], ["b", 12, "a,b", false]]);
  assert.deepEqual(combat.turns.map((t) => t.id), ["b", "a"]);
  await combat.startCombat();
  assert.equal(combat.combatant.id, "b");
  await combat.update({ turn: 0 });
  assert.deepEqual(seen.splice(0), [["combat", "round,turn"]], "an update that changes nothing fires no hook");
  Hooks.reset();
});

// ---- The GM's client, module.mjs booted against Foundry's globals and a faked service ----------

const saved = Object.fromEntries(["Hooks", "game", "canvas", "ui", "ChatMessage", "Roll", "foundry", "document", "HTMLElement", "fetch", "WebSocket"].map((k) => [k, globalThis[k]]));

class QuietSocket {
  constructor() {
    this.readyState = 0;
  }
  addEventListener() {}
  close() {}
}

/** The service, faked: its order as the real one keeps it for these requests, and every request. */
function fakeService() {
  const calls = [];
  const state = { order: null, combatTurn: 1 };
  const turn = () => ({ combat_turn: state.combatTurn, initiative_pass: 1, initiative: state.order });
  const answer = (status, body) => ({ status, ok: status < 300, text: async () => JSON.stringify(body) });
  const fetch = async (url, init = {}) => {
    const method = init.method ?? "GET";
    const path = new URL(url).pathname;
    const body = init.body ? JSON.parse(init.body) : undefined;
    calls.push({ method, path, body });
    if (path === "/readyz") return answer(200, { status: "ok" });
    if (path === "/v1/encounters/enc1") return answer(200, { id: "enc1", ruleset: "sr5" });
    if (path === "/v1/encounters/enc1/initiative" && method === "GET") {
      if (!state.order) return answer(404, { type: "https://firefight.example/problems/no-initiative", detail: "none" });
      return answer(200, { combat_turn: state.combatTurn, initiative_pass: 1, ...state.order, actions_left: [] });
    }
    if (path === "/v1/encounters/enc1/initiative" && method === "POST") {
      const entries = body.actors.map((a) => ({ actor: a.actor, score: a.score, acted: false, holding: false })).sort((a, b) => b.score - a.score);
      state.order = { entries, current: entries[0].actor, over: false };
      return answer(201, { event_id: `${calls.length}-0`, result: { kind: "initiative", change: "started" }, changes: { version: 2, turn: turn() } });
    }
    if (path === "/v1/encounters/enc1/initiative/actors" && method === "POST") {
      state.order.entries = [...state.order.entries, ...body.actors.map((a) => ({ actor: a.actor, score: a.score }))].sort((a, b) => b.score - a.score);
      return answer(201, { event_id: `${calls.length}-0`, result: { kind: "initiative", change: "joined" }, changes: { version: 3, turn: turn() } });
    }
    if (path === "/v1/encounters/enc1/advance") {
      if (body.actor === "tokRat000000001") return answer(409, { type: "https://firefight.example/problems/initiative-conflict", detail: "tokRat000000001 is not next" });
      if (state.order) state.order.current = body.actor;
      return answer(201, { event_id: `${calls.length}-0`, result: { kind: "advance", to: body.to, turn: turn() }, changes: { version: 4, turn: turn() } });
    }
    return answer(404, { detail: `no route ${method} ${path}` });
  };
  return { calls, state, fetch };
}

async function bootGm({ serviceInitiative, fetch, combat }) {
  Hooks.reset();
  const game = makeGame({ isGM: true, phase: "init" });
  game.modules = new Map([["firefight", {}]]);
  game.combat = combat;
  const grid = makeGrid();
  const scene = makeScene({ grid });
  const { ChatMessage, messages } = makeChatMessage();
  game.messages = messages;
  const notifications = makeNotifications();
  Object.assign(globalThis, {
    Hooks, game, canvas: { grid, scene, tokens: { placeables: [] } }, ui: { notifications }, ChatMessage, Roll, document: stubDocument,
    HTMLElement: StubElement, fetch, WebSocket: QuietSocket,
    foundry: { applications: { api: { DialogV2, ApplicationV2 }, ux: { FormDataExtended }, handlebars: { renderTemplate: makeRenderTemplate(), loadTemplates() {} } } },
  });
  await import(`../src/module.mjs?initiative=${Math.random()}`);
  Hooks.callAll("init");
  // What the GM saved in an earlier session: the world's settings and this browser's GM token.
  game.settings.storeWorld("firefight", "serviceUrl", "http://ff");
  game.settings.storeWorld("firefight", "serviceInitiative", serviceInitiative);
  game.settings.storeWorld("firefight", "gmTokens", { enc1: "gm-token" });
  Hooks.callAll("i18nInit");
  game.enterSetup();
  Hooks.callAll("setup");
  game.enterReady();
  Hooks.callAll("ready");
  const app = game.modules.get("firefight").api;
  // Everything the hooks started, settled: the hooks' promises are not returned to Foundry.
  const settle = async () => {
    for (let i = 0; i < 20; i += 1) {
      await new Promise((resolve) => setImmediate(resolve));
      await app.initiativeQueue;
    }
  };
  return { game, app, notifications, settle };
}

function trackerCombat() {
  return makeTrackerCombat({
    combatants: [
      { id: "cbtSam", tokenId: "tokSam000000001", name: "Sam" },
      { id: "cbtGoon", tokenId: "tokGoon00000001", name: "Goon" },
      { id: "cbtRat", tokenId: "tokRat000000001", name: "Rat" },
    ],
    roll: (c) => ({ cbtSam: 14, cbtGoon: 9, cbtRat: 4 })[c.id],
  });
}

test("with the setting on, the combat's start gives Foundry's rolls to the service, later rolls join, and the tracker follows its order without echoing it", async () => {
  const service = fakeService();
  const combat = trackerCombat();
  await combat.setFlag("firefight", "encounter", { id: "enc1", ruleset: "sr5", playerToken: "p", lastEventId: null, synced: null });
  try {
    const { app, notifications, settle } = await bootGm({ serviceInitiative: true, fetch: service.fetch, combat });
    const sent = () => service.calls.filter((c) => c.method !== "GET").map((c) => [c.method, c.path.replace("/v1/encounters/enc1", ""), c.body]);
    // Rolled before the combat begins: nothing yet. Begun: one new combat turn with both scores.
    await combat.rollInitiative(["cbtSam", "cbtGoon"]);
    await settle();
    assert.deepEqual(sent(), []);
    await combat.startCombat();
    await settle();
    assert.deepEqual(sent(), [["POST", "/initiative", { actors: [{ actor: "tokSam000000001", score: 14 }, { actor: "tokGoon00000001", score: 9 }] }]]);
    assert.equal(combat.getFlag("firefight", "encounter").initiative.current, "tokSam000000001");

    // The rat rolls late: it joins the combat turn under way.
    await combat.rollInitiative(["cbtRat"]);
    await settle();
    assert.deepEqual(sent().at(-1), ["POST", "/initiative/actors", { actors: [{ actor: "tokRat000000001", score: 4 }] }]);

    // The service moves on (the console's GM, say): its event sets the tracker's turn, and that
    // update goes back as nothing.
    service.state.order.current = "tokGoon00000001";
    service.state.order.entries = service.state.order.entries.map((e) => (e.actor === "tokSam000000001" ? { ...e, score: 12 } : e));
    const before = sent().length;
    await app.handleEvent({ id: "9-0", type: "advance", result: { kind: "advance", to: "action_phase", turn: {} } }, app.encounter(combat));
    await settle();
    assert.equal(combat.combatant.id, "cbtGoon");
    assert.equal(combat.combatants.get("cbtSam").initiative, 12, "the service's score (an interrupt took 2)");
    assert.equal(sent().length, before, "no advance echoed back");

    // The GM clicks the rat's turn, which the service refuses: said, and the tracker put back.
    await combat.nextTurn();
    assert.equal(combat.combatant.id, "cbtRat");
    await settle();
    assert.deepEqual(sent().at(-1), ["POST", "/advance", { to: "action_phase", actor: "tokRat000000001" }]);
    assert.equal(combat.combatant.id, "cbtGoon");
    assert.match(notifications.seen.at(-1).message, /refused that turn: tokRat000000001 is not next/);
    assert.deepEqual(notifications.seen.filter((n) => n.level === "error"), []);
  } finally {
    Hooks.reset();
    Object.assign(globalThis, saved);
  }
});

test("with the setting off, rolls stay in Foundry and the tracker's turns are advances as before", async () => {
  const service = fakeService();
  const combat = trackerCombat();
  await combat.setFlag("firefight", "encounter", { id: "enc1", ruleset: "sr5", playerToken: "p", lastEventId: null, synced: null });
  try {
    const { settle } = await bootGm({ serviceInitiative: false, fetch: service.fetch, combat });
    await combat.rollAll();
    await combat.startCombat();
    await settle();
    const posts = service.calls.filter((c) => c.method === "POST").map((c) => [c.path.replace("/v1/encounters/enc1", ""), c.body]);
    assert.deepEqual(posts, [["/advance", { to: "action_phase", actor: "tokSam000000001" }]]);
  } finally {
    Hooks.reset();
    Object.assign(globalThis, saved);
  }
});

test("a d100 combat keeps its own tracker with the setting on: d100 has no initiative passes", async () => {
  const service = fakeService();
  const combat = trackerCombat();
  await combat.setFlag("firefight", "encounter", { id: "enc1", ruleset: "d100", playerToken: "p", lastEventId: null, synced: null });
  try {
    const { app, settle } = await bootGm({ serviceInitiative: true, fetch: service.fetch, combat });
    await combat.rollAll();
    await combat.startCombat();
    await app.handleEvent({ id: "9-0", type: "advance", result: { kind: "advance", to: "action_phase", turn: {} } }, app.encounter(combat));
    await settle();
    const calls = service.calls.filter((c) => c.path.includes("/initiative") || c.method === "POST").map((c) => c.path.replace("/v1/encounters/enc1", ""));
    assert.deepEqual(calls, ["/advance"]);
  } finally {
    Hooks.reset();
    Object.assign(globalThis, saved);
  }
});

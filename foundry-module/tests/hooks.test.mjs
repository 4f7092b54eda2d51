// The thin hooks file: it loads against Foundry's globals and hands each hook to the app. The
// game boots in Foundry's own order (init without a user, setup, ready), so code that asks for
// game.user at init fails here as it does in Foundry.

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  ApplicationV2, DialogV2, drawChatMessage, fixture, FormDataExtended, FOUNDRY_VERSION, Hooks as documentHooks, makeActor, makeChatMessage, makeGame, makeGrid, makeHooks, makeRenderTemplate, makeScene,
  makeToken, makeUser, Roll, startGame, StubElement, stubDocument,
} from "./foundry-stubs.mjs";

const GLOBALS = ["Hooks", "game", "canvas", "ui", "ChatMessage", "Roll", "foundry", "document", "HTMLElement", "fetch"];
const realFetch = globalThis.fetch;

async function boot({ isGM, canvas = { grid: null, scene: null }, fetch = realFetch, generation = FOUNDRY_VERSION }) {
  const hooks = makeHooks();
  const loaded = [];
  const game = makeGame({ isGM, phase: "init", generation });
  game.modules = new Map([["firefight", {}]]);
  const notes = [];
  const chat = makeChatMessage();
  game.messages = chat.messages;
  Object.assign(globalThis, {
    Hooks: hooks,
    game,
    canvas,
    ui: { notifications: { info: (m) => notes.push(["info", m]), warn: (m) => notes.push(["warn", m]), error: (m) => notes.push(["error", m]) } },
    ChatMessage: chat.ChatMessage,
    Roll,
    document: stubDocument,
    HTMLElement: StubElement,
    fetch,
    foundry: {
      applications: {
        api: { DialogV2, ApplicationV2 },
        ux: { FormDataExtended },
        handlebars: { renderTemplate: makeRenderTemplate(), loadTemplates: (paths) => loaded.push(...paths) },
      },
    },
  });
  // A fresh copy of the hooks file for each boot: it registers its hooks on import.
  await import(`../src/module.mjs?boot=${Math.random()}`);
  return { hooks, game, loaded, notes };
}

function cleanUp() {
  for (const name of GLOBALS) delete globalThis[name];
  globalThis.fetch = realFetch;
}

test("module.mjs registers its settings and templates on init and wires the hooks it needs", async () => {
  try {
    const { hooks, game, loaded } = await boot({ isGM: false });
    assert.deepEqual([...hooks.handlers.keys()].filter((name) => ["init", "ready"].includes(name)).sort(), ["init", "ready"]);
    for (const hook of ["createCombat", "updateCombat", "updateCombatant", "deleteCombat", "createToken", "updateToken", "deleteToken", "updateActor", "renderTokenHUD", "getItemSheetHeaderButtons", "getHeaderControlsItemSheetV2", "renderSettingsConfig"]) {
      assert.equal(hooks.handlers.get(hook)?.length, 1, hook);
    }
    hooks.callAll("init");
    // The chat log's hook is listened to from init: the log draws its cards before ready.
    assert.equal(hooks.handlers.get("renderChatMessageHTML")?.length, 1);
    assert.equal(hooks.handlers.get("renderChatMessage"), undefined, "v13 and v14 hand HTMLElements to renderChatMessageHTML");
    await startGame(game, hooks);
    assert.ok(game.settings.registered.has("firefight.serviceUrl"));
    assert.deepEqual(loaded, ["modules/firefight/templates/chat-card.hbs", "modules/firefight/templates/attack-dialog.hbs", "modules/firefight/templates/odds-panel.hbs"]);
    assert.equal(typeof game.modules.get("firefight").api.openAttackDialog, "function");
    // A weapon sheet of an owned weapon gets the attack button; other items none.
    const buttons = [];
    hooks.callAll("getItemSheetHeaderButtons", { document: { type: "weapon", actor: {}, id: "w" } }, buttons);
    hooks.callAll("getItemSheetHeaderButtons", { document: { type: "armor", actor: {}, id: "a" } }, buttons);
    assert.deepEqual(buttons.map((b) => b.class), ["firefight-attack"]);
  } finally {
    cleanUp();
  }
});

test("booted in Foundry's order, the GM finds the admin key and GM token in Configure Settings and players do not", async () => {
  for (const isGM of [true, false]) {
    try {
      const { hooks, game } = await boot({ isGM });
      await startGame(game, hooks);
      const shown = game.settings.shownTo(game.user);
      assert.ok(shown.includes("firefight.serviceUrl") === isGM, "world settings: to those who may change them");
      assert.ok(!shown.includes("firefight.adminKey") && !shown.includes("firefight.gmToken"), "never as plain client settings, which every player sees");
      assert.equal(shown.includes("firefight.gmSecrets"), isGM, "the GM's menu: the GM's only");
      // The menu the GM opens holds both secrets and saves them in this browser.
      const Menu = game.settings.menus.get("firefight.gmSecrets").type;
      const menu = await new Menu().render(true);
      assert.match(menu.element.innerHTML, /name="gmToken"/);
      assert.match(menu.element.innerHTML, /name="adminKey"/);
      assert.equal(menu.title, "firefight: GM secrets (this browser only)");
      if (isGM) {
        await menu.submit({ adminKey: " key-1 ", gmToken: "gm-tok" });
        assert.equal(game.settings.get("firefight", "adminKey"), "key-1");
        assert.equal(game.settings.registered.get("firefight.adminKey").scope, "client");
        const again = await new Menu().render(true);
        assert.match(again.element.innerHTML, /name="adminKey" value="key-1"/);
      }
    } finally {
      cleanUp();
    }
  }
});

test("the stub game follows Foundry's phases: no user at init, world settings refused to players", async () => {
  const game = makeGame({ isGM: false, phase: "init" });
  assert.equal(game.user, undefined);
  assert.equal(game.users, undefined);
  assert.equal(game.userId, "player00000001");
  game.settings.register("firefight", "w", { scope: "world", default: "" });
  await assert.rejects(game.settings.set("firefight", "w", "x"), /before the Game is ready/);
  await startGame(game, makeHooks());
  assert.equal(game.user.isGM, false);
  await assert.rejects(game.settings.set("firefight", "w", "x"), /User Player lacks permission to update Setting \[firefight\.w\]/);
  assert.equal(makeUser({ isGM: true }).can("SETTINGS_MODIFY"), true);
});

test("the token HUD's crosshairs open the attack dialog and Fire posts the attack", async () => {
  const sam = makeActor(fixture("sr5-actor-sam.json"));
  const goon = makeActor(fixture("sr5-actor-goon.json"), { owner: false });
  const grid = makeGrid();
  const samToken = makeToken({ id: "tokSam000000001", name: "Sam", actor: sam, x: 0, y: 0 });
  const goonToken = makeToken({ id: "tokGoon00000001", name: "Halloweener", actor: goon, x: 1200, y: 500 });
  const canvas = { grid, scene: makeScene({ grid, tokens: [samToken, goonToken] }), tokens: { placeables: [samToken, goonToken] } };
  const posted = [];
  // The service: ready, the encounter readable (the GM's connection checks), attacks answered.
  const fetch = async (url, init = {}) => {
    const path = new URL(url).pathname;
    if ((init.method ?? "GET") === "GET") return { status: 200, ok: true, text: async () => JSON.stringify(path === "/readyz" ? { status: "ok" } : { id: "enc1" }) };
    // The dialog's odds preview is answered with no odds (a 404): only attacks are counted here.
    if (path.endsWith("/odds")) return { status: 404, ok: false, text: async () => JSON.stringify({ detail: "no odds here" }) };
    posted.push({ path, body: JSON.parse(init.body) });
    return { status: 201, ok: true, text: async () => JSON.stringify({ ...fixture("sr5-attack-bf.json"), state: {} }) };
  };
  try {
    const { hooks, game, notes } = await boot({ isGM: true, canvas, fetch });
    await startGame(game, hooks);
    await game.settings.set("firefight", "serviceUrl", "http://ff");
    await game.settings.set("firefight", "encounterId", "enc1");
    await game.settings.set("firefight", "gmToken", "g");
    game.user.targets = new Set([goonToken]);
    for (const version of ["first", "second"]) {
      const column = new StubElement("div", { classes: ["col", "right"] });
      const root = new StubElement("div", { children: [new StubElement("div", { classes: ["col", "left"] }), column] });
      // v13 and v14 hand the HUD's HTMLElement (https://foundryvtt.com/api/v14/classes/foundry.applications.hud.TokenHUD.html).
      hooks.callAll("renderTokenHUD", { object: samToken }, root);
      const button = column.querySelector(".firefight-hud");
      assert.ok(button, `${version}: the button is in the right column`);
      assert.equal(button.title, "Attack (firefight)");
      DialogV2.respond(() => ({ action: "fire", values: { weapon: "predatorV000001", mode: "SA" } }));
      await button.click();
      assert.deepEqual(notes.filter(([level]) => level !== "info"), [], version);
      assert.equal(posted.at(-1).path, "/v1/encounters/enc1/attacks");
      assert.deepEqual([posted.at(-1).body.weapon.id, posted.at(-1).body.mode, posted.at(-1).body.targets[0].distance_m], ["predatorV000001", "SA", 13]);
    }
    assert.equal(posted.length, 2);
  } finally {
    cleanUp();
  }
});

test("module.mjs: 'Damage kept by' switched by the GM puts the fixed encounter's damage mode; a GM's track edit is sent back, the mirror's is not", async () => {
  const goon = makeActor(fixture("sr5-actor-goon.json"));
  const grid = makeGrid();
  const goonToken = makeToken({ id: "tokGoon00000001", name: "Halloweener", actor: goon, x: 1200, y: 500 });
  const canvas = { grid, scene: makeScene({ grid, tokens: [goonToken] }), tokens: { placeables: [goonToken] } };
  const sent = [];
  // The service: ready, the encounter read at version 4 with the ganger's empty monitor, writes answered.
  const fetch = async (url, init = {}) => {
    const path = new URL(url).pathname;
    const method = init.method ?? "GET";
    if (method === "GET") {
      const view = { id: "enc1", version: 4, damage: "service", scene: { tokGoon00000001: { name: "Halloweener", monitor: { status: {} } } } };
      return { status: 200, ok: true, text: async () => JSON.stringify(path === "/readyz" ? { status: "ok" } : view) };
    }
    sent.push([method, path, JSON.parse(init.body ?? "null")]);
    return { status: 200, ok: true, text: async () => JSON.stringify({ event_id: "5-0", result: { kind: "monitor", monitor: { stun: 2 } }, changes: { version: 5 } }) };
  };
  // The stub documents fire their hooks on the stubs' Hooks: handed on to the booted module's, as
  // Foundry has one.
  const forward = (...args) => globalThis.Hooks?.callAll("updateActor", ...args);
  documentHooks.on("updateActor", forward);
  try {
    const { hooks, game, notes } = await boot({ isGM: true, canvas, fetch });
    game.actors.set(goon.id, goon);
    await startGame(game, hooks);
    await game.settings.set("firefight", "serviceUrl", "http://ff");
    await game.settings.set("firefight", "encounterId", "enc1");
    await game.settings.set("firefight", "gmToken", "g");
    assert.equal(game.settings.get("firefight", "damageMode"), "vtt");
    await game.settings.set("firefight", "damageMode", "service");
    const app = game.modules.get("firefight").api;
    await app.monitorQueue;
    await app.monitorQueue;
    assert.deepEqual(sent.shift(), ["PUT", "/v1/encounters/enc1/state", { damage: "service", reason: "Damage kept by: switched in Foundry" }]);
    // The ganger's 8 stun from its sheet seeds the service's monitor.
    assert.deepEqual(sent.shift(), ["POST", "/v1/encounters/enc1/actors/tokGoon00000001/monitor", { set: { physical: 0, stun: 8, overflow: 0 }, reason: "the Foundry sheet's damage" }]);
    // The mirror's write (the service said no stun) goes through the updateActor hook and is not sent.
    assert.equal(goon.system.track.stun.value, 0);
    assert.deepEqual(sent, []);
    await goon.update({ "system.track.stun.value": 2 });
    await app.monitorQueue;
    assert.deepEqual(sent, [["POST", "/v1/encounters/enc1/actors/tokGoon00000001/monitor", { set: { stun: 2 }, version: 4, reason: "edited on the Foundry sheet" }]]);
    assert.deepEqual(notes.filter(([level]) => level === "error"), []);
  } finally {
    documentHooks.off("updateActor", forward);
    cleanUp();
  }
});

/** A card of the module's, as a message of the chat log (its Second Chance button). */
async function logCard(id) {
  return globalThis.ChatMessage.create({ content: `<div class="firefight-card"><button data-firefight-action="second-chance" data-target="tokGoon00000001">Second Chance</button></div>`, flags: { firefight: { eventId: id, attacker: "tokSam000000001" } } });
}

test("chat cards get working buttons whenever the log draws them: before ready (already in the log at load) and after", async () => {
  for (const isGM of [true, false]) {
    try {
      const { hooks, game } = await boot({ isGM });
      // A player who joins mid-fight, or anyone who reloads: the log holds cards already, and
      // draws them between setup and ready, when the module's app does not exist yet.
      await logCard("1-0");
      const [early] = await startGame(game, hooks);
      assert.equal(early.dataset.firefightBound, "1", "bound once the app exists");
      assert.equal(early.querySelector("[data-firefight-action]").listeners.get("click")?.length, 1);
      // Drawn after ready (a new card, or the log drawing it again): bound at once, and once.
      const message = await logCard("2-0");
      const later = drawChatMessage(message, hooks);
      assert.equal(later.querySelector("[data-firefight-action]").listeners.get("click")?.length, 1);
      game.modules.get("firefight").api.bindCard(message, later);
      assert.equal(later.querySelector("[data-firefight-action]").listeners.get("click")?.length, 1, "never twice");
    } finally {
      cleanUp();
    }
  }
});

test("a world setting changed on one client: every client follows it, only the one whose user changed it checks the connection", async () => {
  const checks = [];
  const fetch = async (url) => {
    checks.push(new URL(url).origin);
    return { status: 200, ok: true, text: async () => JSON.stringify({ status: "ok" }) };
  };
  for (const isGM of [true, false]) {
    try {
      const { hooks, game, notes } = await boot({ isGM, fetch });
      await startGame(game, hooks);
      // The GM's check at ready answers first.
      await new Promise((resolve) => setImmediate(resolve));
      checks.length = 0;
      notes.length = 0;
      // Another GM edits the service URL: this client's onChange runs (Foundry runs it on every
      // client) but pops up nothing.
      game.settings.receive("firefight", "serviceUrl", "http://elsewhere:8080", "gm000000000009");
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual([checks, notes], [[], []], isGM ? "another GM's change" : "a player is never asked");
      if (!isGM) continue;
      // This GM edits it: the check runs here, and says so.
      await game.settings.set("firefight", "serviceUrl", "http://ff:8080");
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(checks, ["http://ff:8080"]);
      assert.equal(notes.length, 1);
    } finally {
      cleanUp();
    }
  }
});

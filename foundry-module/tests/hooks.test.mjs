// The thin hooks file: it loads against Foundry's globals and hands each hook to the app.

import { test } from "node:test";
import assert from "node:assert/strict";
import { makeGame, makeRenderTemplate, makeChatMessage, Roll } from "./foundry-stubs.mjs";

test("module.mjs registers its settings and templates on init and wires the hooks it needs", async () => {
  const once = new Map();
  const on = new Map();
  const loaded = [];
  const game = makeGame({ isGM: false });
  game.modules = new Map([["firefight", {}]]);
  Object.assign(globalThis, {
    Hooks: { once: (name, fn) => once.set(name, fn), on: (name, fn) => on.set(name, fn) },
    game,
    canvas: { grid: null, scene: null },
    ui: { notifications: { info() {}, warn() {}, error() {} } },
    ChatMessage: makeChatMessage().ChatMessage,
    Roll,
    foundry: { applications: { api: { DialogV2: class {} }, handlebars: { renderTemplate: makeRenderTemplate(), loadTemplates: (paths) => loaded.push(...paths) } } },
  });
  try {
    await import("../src/module.mjs");
    assert.deepEqual([...once.keys()].sort(), ["init", "ready"]);
    for (const hook of ["createCombat", "updateCombat", "deleteCombat", "renderTokenHUD", "getItemSheetHeaderButtons", "getHeaderControlsItemSheetV2", "renderChatMessage", "renderChatMessageHTML", "renderSettingsConfig"]) {
      assert.equal(typeof on.get(hook), "function", hook);
    }
    once.get("init")();
    assert.ok(game.settings.registered.has("firefight.serviceUrl"));
    assert.deepEqual(loaded, ["modules/firefight/templates/chat-card.hbs", "modules/firefight/templates/attack-dialog.hbs"]);
    once.get("ready")();
    assert.equal(typeof game.modules.get("firefight").api.openAttackDialog, "function");
    // A weapon sheet of an owned weapon gets the attack button; other items none.
    const buttons = [];
    on.get("getItemSheetHeaderButtons")({ document: { type: "weapon", actor: {}, id: "w" } }, buttons);
    on.get("getItemSheetHeaderButtons")({ document: { type: "armor", actor: {}, id: "a" } }, buttons);
    assert.deepEqual(buttons.map((b) => b.class), ["firefight-attack"]);
  } finally {
    for (const name of ["Hooks", "game", "canvas", "ui", "ChatMessage", "Roll", "foundry"]) delete globalThis[name];
  }
});

// The thin hooks file: it loads against Foundry's globals and hands each hook to the app. The
// game boots in Foundry's own order (init without a user, setup, ready), so code that asks for
// game.user at init fails here as it does in Foundry.

import { test } from "node:test";
import assert from "node:assert/strict";
import { ApplicationV2, makeGame, makeHooks, makeRenderTemplate, makeChatMessage, makeUser, Roll, startGame } from "./foundry-stubs.mjs";

async function boot({ isGM }) {
  const hooks = makeHooks();
  const loaded = [];
  const game = makeGame({ isGM, phase: "init" });
  game.modules = new Map([["firefight", {}]]);
  Object.assign(globalThis, {
    Hooks: hooks,
    game,
    canvas: { grid: null, scene: null },
    ui: { notifications: { info() {}, warn() {}, error() {} } },
    ChatMessage: makeChatMessage().ChatMessage,
    Roll,
    foundry: { applications: { api: { DialogV2: class {}, ApplicationV2 }, handlebars: { renderTemplate: makeRenderTemplate(), loadTemplates: (paths) => loaded.push(...paths) } } },
  });
  // A fresh copy of the hooks file for each boot: it registers its hooks on import.
  await import(`../src/module.mjs?boot=${Math.random()}`);
  return { hooks, game, loaded };
}

function cleanUp() {
  for (const name of ["Hooks", "game", "canvas", "ui", "ChatMessage", "Roll", "foundry"]) delete globalThis[name];
}

test("module.mjs registers its settings and templates on init and wires the hooks it needs", async () => {
  try {
    const { hooks, game, loaded } = await boot({ isGM: false });
    assert.deepEqual([...hooks.handlers.keys()].filter((name) => ["init", "ready"].includes(name)).sort(), ["init", "ready"]);
    for (const hook of ["createCombat", "updateCombat", "deleteCombat", "renderTokenHUD", "getItemSheetHeaderButtons", "getHeaderControlsItemSheetV2", "renderChatMessage", "renderChatMessageHTML", "renderSettingsConfig"]) {
      assert.equal(hooks.handlers.get(hook)?.length, 1, hook);
    }
    await startGame(game, hooks);
    assert.ok(game.settings.registered.has("firefight.serviceUrl"));
    assert.deepEqual(loaded, ["modules/firefight/templates/chat-card.hbs", "modules/firefight/templates/attack-dialog.hbs"]);
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
  assert.equal(game.userId, "user0000000001");
  game.settings.register("firefight", "w", { scope: "world", default: "" });
  await assert.rejects(game.settings.set("firefight", "w", "x"), /before the Game is ready/);
  await startGame(game, makeHooks());
  assert.equal(game.user.isGM, false);
  await assert.rejects(game.settings.set("firefight", "w", "x"), /User Player lacks permission to update Setting \[firefight\.w\]/);
  assert.equal(makeUser({ isGM: true }).can("SETTINGS_MODIFY"), true);
});

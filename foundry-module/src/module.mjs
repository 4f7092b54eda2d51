// The module's entry point: the only file that touches Foundry's Hooks. Each hook hands over to
// FirefightApp (src/foundry-app.mjs), where the flows live and are tested.

import { FirefightApp } from "./foundry-app.mjs";
import { gmSecretsMenuClass } from "./gm-secrets-menu.mjs";
import { MODULE_ID, registerSettings } from "./settings.mjs";
import { trackerMoved } from "./combat-sync.mjs";

let app = null;
// Chat cards the log drew before `ready` (the messages already in it when this client loads),
// when the app does not exist yet: bound once it does.
let drawnEarly = [];

function env() {
  return {
    game,
    canvas,
    ui,
    ChatMessage,
    Roll,
    // v13 and v14: under foundry.applications (the globals are deprecated shims).
    renderTemplate: foundry.applications.handlebars.renderTemplate,
    DialogV2: foundry.applications.api.DialogV2,
    FormDataExtended: foundry.applications.ux.FormDataExtended,
    document: globalThis.document,
    fetch: globalThis.fetch.bind(globalThis),
    WebSocket: globalThis.WebSocket,
  };
}

/** v13 and v14 hand render hooks HTMLElements (a jQuery object only from an ApplicationV1 of a system's). */
function element(html) {
  return html instanceof HTMLElement ? html : html?.[0];
}

function report(error) {
  console.error("firefight |", error);
  if (app) app.notifyFailure(error);
  else ui.notifications?.error(game.i18n.format("FIREFIGHT.Notify.Failed", { detail: error.message }));
}

// At init Foundry has no game.user yet (only game.userId): nothing here may ask who is playing.
Hooks.once("init", () => {
  registerSettings(game, {
    menuType: gmSecretsMenuClass(foundry.applications.api.ApplicationV2, game),
    // A world setting's onChange runs on every connected client, with the id of the user who
    // changed it (a client setting's on this one only, without): each client follows the new
    // value, and only the one who changed it is told what the check finds.
    onChange: (key, value, { userId } = {}) => {
      if (!app) return;
      const mine = userId === undefined || userId === game.user?.id;
      if (key === "serviceUrl" && mine) app.checkConnection().catch(report);
      app.follow();
      // Turned on mid-combat: the tracker shows the service's order at once.
      if (key === "serviceInitiative" && value && game.combat) app.queueInitiative(() => app.followInitiative(game.combat)).catch(report);
      // Who keeps the monitors: the running encounter follows (the active GM's client sends it).
      if (key === "damageMode") app.damageModeChanged(value).catch(report);
    },
  });
  // v13 and v14 render chat messages through renderChatMessageHTML (an HTMLElement). The log
  // draws the messages it holds before `ready`: those wait for the app.
  Hooks.on("renderChatMessageHTML", (message, html) => {
    if (app) app.bindCard(message, element(html));
    else drawnEarly.push([message, element(html)]);
  });
  const loadTemplates = foundry.applications.handlebars.loadTemplates;
  loadTemplates([`modules/${MODULE_ID}/templates/chat-card.hbs`, `modules/${MODULE_ID}/templates/attack-dialog.hbs`, `modules/${MODULE_ID}/templates/odds-panel.hbs`]);
});

Hooks.once("ready", () => {
  app = new FirefightApp(env());
  game.modules.get(MODULE_ID).api = app;
  for (const [message, html] of drawnEarly) app.bindCard(message, html);
  drawnEarly = [];
  if (game.user.isGM) app.checkConnection().catch(report);
  if (game.combat) runEncounter(game.combat);
});

/** The GM's client: the combat's encounter, its scene from the combat's tokens, its live feed. */
function runEncounter(combat) {
  app.ensureEncounter(combat).then(() => app.syncScene(combat)).then(() => app.follow()).catch(report);
}

Hooks.on("createCombat", (combat) => {
  if (app) runEncounter(combat);
});

Hooks.on("updateCombat", (combat, changed, options) => {
  if (!app) return;
  if (!trackerMoved(changed, game.system)) return;
  app.ensureEncounter(combat).then(() => app.syncCombat(combat, options)).then(() => app.follow()).catch(report);
});

// A combatant's initiative rolled or changed in the tracker: with "firefight runs initiative",
// the GM's client gives it to the service. Fires on every client; the app sends only from the
// active GM's, and never its own follow-ups of the service's order.
Hooks.on("updateCombatant", (combatant, changed, options) => app?.initiativeChanged(combatant, changed, options)?.catch(report));

Hooks.on("deleteCombat", () => app?.follow());

// With the service's monitors, a GM's edit of a track on a sheet goes back to the service (on
// that GM's client; never the mirror's own writes, which carry its update option).
Hooks.on("updateActor", (actor, changed, options, userId) => app?.actorUpdated(actor, changed, options, userId)?.catch(report));

// Tokens of the combat's scene are the encounter's actors. These fire on every client; the app
// sends only from the active GM's.
Hooks.on("createToken", (token) => app?.tokenCreated(token).catch(report));
Hooks.on("updateToken", (token, changed, options) => app?.tokenUpdated(token, changed, options).catch(report));
Hooks.on("deleteToken", (token) => app?.tokenDeleted(token).catch(report));

Hooks.on("renderTokenHUD", (hud, html) => {
  const root = element(html);
  const column = root?.querySelector(".col.right") ?? root;
  if (!column || !app) return;
  const button = document.createElement("div");
  button.classList.add("control-icon", "firefight-hud");
  button.title = game.i18n.localize("FIREFIGHT.Button.Attack");
  button.innerHTML = '<i class="fas fa-crosshairs"></i>';
  button.addEventListener("click", () => app.openAttackDialog(hud.object).catch(report));
  column.append(button);
});

function weaponSheetButton(sheet) {
  const item = sheet.document ?? sheet.item;
  if (!item || item.type !== "weapon" || !item.actor) return null;
  return {
    label: game.i18n.localize("FIREFIGHT.Button.Attack"),
    icon: "fas fa-crosshairs",
    onClick: () => app?.attackWithItem(item).catch(report),
  };
}

// Item sheets: ApplicationV1 header buttons (systems' sheets still on V1 in v13 and v14)...
Hooks.on("getItemSheetHeaderButtons", (sheet, buttons) => {
  const button = weaponSheetButton(sheet);
  if (button) buttons.unshift({ label: button.label, class: "firefight-attack", icon: button.icon, onclick: button.onClick });
});
// ...and ApplicationV2 header controls (v13, v14).
Hooks.on("getHeaderControlsItemSheetV2", (sheet, controls) => {
  const button = weaponSheetButton(sheet);
  if (button) controls.unshift({ label: button.label, icon: button.icon, action: "firefightAttack", onClick: button.onClick });
});


Hooks.on("renderSettingsConfig", (_config, html) => {
  const root = element(html);
  const input = root?.querySelector(`[name="${MODULE_ID}.serviceUrl"]`);
  if (!input || !app || input.parentElement.querySelector(".firefight-check")) return;
  const button = document.createElement("button");
  button.type = "button";
  button.classList.add("firefight-check");
  button.textContent = game.i18n.localize("FIREFIGHT.Settings.checkConnection.Label");
  button.addEventListener("click", () => app.checkConnection().catch(report));
  input.after(button);
});

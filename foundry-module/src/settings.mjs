// The module's settings (game.settings.register): what the world shares (the service URL, the
// players' token, a fixed encounter, the ruleset) and what stays in the GM's browser (the GM
// token, the admin key, the GM tokens of the encounters it created).
//
// Everything is registered at `init`, where Foundry has no `game.user` yet, so nothing here may
// depend on who is playing. The GM's two secrets are client settings kept out of Configure
// Settings (a client setting with `config: true` is shown to every player); the GM edits them
// in a menu registered with `restricted: true`, which Configure Settings shows only to users who
// may modify settings (SettingsConfig#_prepareCategoryData, v12 and v13).

export const MODULE_ID = "firefight";

/** The key of the GM's menu (game.settings.registerMenu) for the GM token and the admin key. */
export const GM_MENU = "gmSecrets";

export const SETTINGS = [
  { key: "serviceUrl", scope: "world", type: String, default: "http://localhost:8080", config: true },
  { key: "playerToken", scope: "world", type: String, default: "", config: true },
  { key: "encounterId", scope: "world", type: String, default: "", config: true },
  { key: "ruleset", scope: "world", type: String, default: "sr5", config: true, choices: { sr5: "FIREFIGHT.Ruleset.sr5", d100: "FIREFIGHT.Ruleset.d100", sr3: "FIREFIGHT.Ruleset.sr3", sr4: "FIREFIGHT.Ruleset.sr4", "sr3-hardlife": "FIREFIGHT.Ruleset.sr3_hardlife" } },
  { key: "damagePath", scope: "world", type: String, default: "", config: true },
  // Who keeps the condition monitors: Foundry's sheets ("vtt", as before the service kept any)
  // or the service, whose monitors the GM's client mirrors onto the sheets (monitor-sync.mjs).
  { key: "damageMode", scope: "world", type: String, default: "vtt", config: true, choices: { vtt: "FIREFIGHT.Damage.vtt", service: "FIREFIGHT.Damage.service" } },
  // The GM's choice: the service runs the combat turn's initiative and the tracker follows it.
  { key: "serviceInitiative", scope: "world", type: Boolean, default: false, config: true },
  { key: "gmToken", scope: "client", type: String, default: "", config: false, menu: GM_MENU },
  { key: "adminKey", scope: "client", type: String, default: "", config: false, menu: GM_MENU },
  // Encounter id -> GM token, for the encounters this browser created (never in world data).
  { key: "gmTokens", scope: "client", type: Object, default: {}, config: false },
];

/** The settings the GM's menu edits. */
export const GM_SECRETS = SETTINGS.filter((s) => s.menu === GM_MENU).map((s) => s.key);

/**
 * Register every setting, and the GM's menu when its Application class is given (`menuType`).
 * Safe at `init`: it reads nothing of the user.
 */
export function registerSettings(game, { onChange = () => {}, menuType = null } = {}) {
  for (const setting of SETTINGS) {
    const label = `FIREFIGHT.Settings.${setting.key}`;
    game.settings.register(MODULE_ID, setting.key, {
      name: `${label}.Name`,
      hint: `${label}.Hint`,
      scope: setting.scope,
      config: setting.config,
      type: setting.type,
      default: setting.default,
      ...(setting.choices ? { choices: setting.choices } : {}),
      // Foundry calls it with (value, options, userId): userId the user who changed a world
      // setting, on every client (SettingConfig#onChange,
      // https://foundryvtt.com/api/v14/interfaces/foundry.types.SettingConfig.html).
      onChange: (value, options, userId) => onChange(setting.key, value, { options, userId }),
    });
  }
  if (menuType) {
    game.settings.registerMenu(MODULE_ID, GM_MENU, {
      name: `FIREFIGHT.Settings.${GM_MENU}.Name`,
      label: `FIREFIGHT.Settings.${GM_MENU}.Label`,
      hint: `FIREFIGHT.Settings.${GM_MENU}.Hint`,
      icon: "fas fa-key",
      type: menuType,
      restricted: true,
    });
  }
}

/** Every setting's current value. */
export function readSettings(game) {
  const values = {};
  for (const setting of SETTINGS) values[setting.key] = game.settings.get(MODULE_ID, setting.key);
  return values;
}

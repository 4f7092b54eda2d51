// The module's settings (game.settings.register): what the world shares (the service URL, the
// players' token, a fixed encounter, the ruleset) and what stays in the GM's browser (the GM
// token, the admin key, the GM tokens of the encounters it created).

export const MODULE_ID = "firefight";

export const SETTINGS = [
  { key: "serviceUrl", scope: "world", type: String, default: "http://localhost:8080", config: true },
  { key: "playerToken", scope: "world", type: String, default: "", config: true },
  { key: "encounterId", scope: "world", type: String, default: "", config: true },
  { key: "ruleset", scope: "world", type: String, default: "sr5", config: true, choices: { sr5: "Shadowrun 5 (sr5)", d100: "d100" } },
  { key: "damagePath", scope: "world", type: String, default: "", config: true },
  { key: "gmToken", scope: "client", type: String, default: "", config: true, gmOnly: true },
  { key: "adminKey", scope: "client", type: String, default: "", config: true, gmOnly: true },
  // Encounter id -> GM token, for the encounters this browser created (never in world data).
  { key: "gmTokens", scope: "client", type: Object, default: {}, config: false },
];

/** Register every setting; the client-scope secrets appear in the GM's settings only. */
export function registerSettings(game, { onChange = () => {} } = {}) {
  for (const setting of SETTINGS) {
    const label = `FIREFIGHT.Settings.${setting.key}`;
    game.settings.register(MODULE_ID, setting.key, {
      name: `${label}.Name`,
      hint: `${label}.Hint`,
      scope: setting.scope,
      config: setting.config && (!setting.gmOnly || game.user?.isGM === true),
      type: setting.type,
      default: setting.default,
      ...(setting.choices ? { choices: setting.choices } : {}),
      onChange: (value) => onChange(setting.key, value),
    });
  }
}

/** Every setting's current value. */
export function readSettings(game) {
  const values = {};
  for (const setting of SETTINGS) values[setting.key] = game.settings.get(MODULE_ID, setting.key);
  return values;
}

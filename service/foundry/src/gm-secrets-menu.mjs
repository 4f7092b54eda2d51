// The GM's menu in Configure Settings (registered restricted, so players never see it): the GM
// token of a fixed encounter and the service's admin key, both kept in this browser only.
// Built from Foundry's ApplicationV2 (v12+), passed in so that tests run it against a stub.

import { GM_SECRETS, MODULE_ID } from "./settings.mjs";

function escapeAttribute(value) {
  return String(value).replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function escapeText(value) {
  return String(value).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** The menu's form as HTML: one password field per secret, with its name and hint. */
export function gmSecretsForm(game) {
  const i18n = game.i18n;
  const fields = GM_SECRETS.map((key) => {
    const label = `FIREFIGHT.Settings.${key}`;
    const value = game.settings.get(MODULE_ID, key) ?? "";
    return `<div class="form-group">
  <label for="firefight-${key}">${escapeText(i18n.localize(`${label}.Name`))}</label>
  <div class="form-fields"><input type="password" id="firefight-${key}" name="${key}" value="${escapeAttribute(value)}" autocomplete="off"></div>
  <p class="hint">${escapeText(i18n.localize(`${label}.Hint`))}</p>
</div>`;
  });
  return `${fields.join("\n")}
<footer class="form-footer"><button type="submit"><i class="fas fa-save"></i> ${escapeText(i18n.localize("FIREFIGHT.Settings.gmSecrets.Save"))}</button></footer>`;
}

/** Write what the GM typed; empty clears a secret. */
export async function saveGmSecrets(game, values) {
  for (const key of GM_SECRETS) {
    if (key in values) await game.settings.set(MODULE_ID, key, String(values[key] ?? "").trim());
  }
}

/** The menu's Application class (an ApplicationV2 form) for game.settings.registerMenu. */
export function gmSecretsMenuClass(ApplicationV2, game) {
  return class FirefightGmSecrets extends ApplicationV2 {
    static DEFAULT_OPTIONS = {
      id: "firefight-gm-secrets",
      tag: "form",
      classes: ["firefight-gm-secrets", "standard-form"],
      window: { title: "FIREFIGHT.Settings.gmSecrets.Name", icon: "fas fa-key" },
      position: { width: 520 },
      form: { handler: FirefightGmSecrets.onSubmit, closeOnSubmit: true },
    };

    get title() {
      return game.i18n.localize(this.options.window.title);
    }

    async _renderHTML() {
      return gmSecretsForm(game);
    }

    _replaceHTML(result, content) {
      content.innerHTML = result;
    }

    static async onSubmit(_event, _form, formData) {
      await saveGmSecrets(game, formData.object);
    }
  };
}

// The attack dialog, as FirefightApp's methods (mixed into its prototype, as CardActions): open
// it for a token or a weapon's sheet, preview its odds, post the attack or the aim, and write back
// what the attack spent. What the dialog shows and the request its form means are built in
// attack-builder.mjs.

import { MODULE_ID } from "./settings.mjs";
import { rollModeOr } from "./roll-mode.mjs";
import { ODDS_TEMPLATE, OddsPreview, oddsView } from "./odds.mjs";
import { serviceId } from "./requests.mjs";
import * as sr5 from "./sr5-actor.mjs";
import * as sr3e from "./sr3-actor.mjs";
import * as sr4e from "./sr4-actor.mjs";
import { buildAttack, defenderOf, dialogData } from "./attack-builder.mjs";

export const DIALOG_TEMPLATE = "modules/firefight/templates/attack-dialog.hbs";

export class AttackDialog {
  /** Everything the dialog shows (attack-builder.mjs), in the encounter's ruleset, for the viewed canvas and this user's targets. */
  dialogData(token, { itemId = null } = {}) {
    const ruleset = this.encounter()?.ruleset ?? this.settings().ruleset ?? "sr5";
    return dialogData(token, {
      ruleset,
      systemId: this.game.system?.id,
      systemVersion: this.game.system?.version,
      canvas: this.env.canvas,
      user: this.game.user,
      rollMode: this.userRollMode(),
      itemId,
    });
  }

  /** A target's defence in `ruleset` (attack-builder.mjs); the zone test's too (card-actions.mjs). */
  defenderOf(actor, ruleset) {
    return defenderOf(actor, ruleset, this.game.system?.id, this.game.system?.version);
  }

  /** The attack body from the dialog's form, and what its answer updates (attack-builder.mjs). */
  buildAttack(token, data, form) {
    return buildAttack(token, data, form, this.env.canvas);
  }

  /** Post the attack, then write back what it spent: ammo on the weapon, Edge, the manual form. */
  async attack(token, data, form) {
    const encounter = this.requireEncounter();
    if (!encounter) return null;
    const { body, writeBack } = this.buildAttack(token, data, form);
    const rollMode = rollModeOr(form.rollMode, this.userRollMode());
    await this.announce(serviceId(token.id), rollMode);
    const answer = await this.client().attack(encounter.id, encounter.token, body);
    await this.writeBack(writeBack, answer.result);
    // With no GM online nobody follows the socket: the attacker's client posts the card itself.
    if (!this.game.users?.activeGM) {
      await this.postCard({ id: answer.event_id, type: "attack", encounter: encounter.id, result: answer.result, zones_started: [], zones_ended: [] }, encounter.ruleset, { rollMode, author: this.game.user?.id, damage: encounter.damage });
    }
    return answer;
  }

  async writeBack({ actor, item, ammoItem = null, sr4Item = null, manual }, result) {
    const version = this.game.system?.version;
    if (item) await item.update(sr5.ammoUpdate(result.ammo_left, { version }));
    if (sr4Item) await sr4Item.update(sr4e.ammoUpdate(result.ammo_left, { version }));
    if (ammoItem) await ammoItem.update(sr3e.ammoUpdate(result.ammo_left, { version }));
    if (result.edge_spent > 0 && sr5.isShadowrunActor(actor, this.game.system?.id)) await actor.update(sr5.edgeUpdate(actor, result.edge_spent, { version }));
    if (manual) {
      const values = { ...manual.values };
      if ("ammo" in values) values.ammo = result.ammo_left;
      await actor.setFlag(MODULE_ID, `manual.${manual.ruleset}`, values);
    }
  }

  async takeAim(token, aimFor = "dice", rollMode = null) {
    const encounter = this.requireEncounter();
    if (!encounter) return null;
    await this.announce(serviceId(token.id), rollMode);
    // SR3's and SR4's aim is a simple action and nothing more (schemas/sr3.py, schemas/sr4.py).
    const body = encounter.ruleset === "sr3" || encounter.ruleset === "sr4" || encounter.ruleset === "sr3-hardlife"
      ? { ruleset: encounter.ruleset, actor: serviceId(token.id), action: "take_aim" }
      : { actor: serviceId(token.id), action: "take_aim", aim_for: aimFor };
    return this.client().action(encounter.id, encounter.token, body);
  }

  /**
   * The actor's token on the scene of play, for an attack from its weapon's sheet; a notice
   * when it has none there (the sheet can be open anywhere).
   */
  tokenOfActor(actor) {
    const scene = this.sceneOfPlay();
    const token = (actor.getActiveTokens?.() ?? []).find((t) => !scene || (t.document?.parent ?? t.scene ?? scene) === scene);
    if (!token) this.notify("warn", "FIREFIGHT.Notify.NoToken", { name: actor.name, scene: scene?.name ?? "—" });
    return token ?? null;
  }

  /** The weapon sheet's button: the dialog for the actor's token, with that weapon chosen. */
  async attackWithItem(item) {
    const token = this.tokenOfActor(item.actor);
    return token ? this.openAttackDialog(token, { itemId: item.id }) : null;
  }

  /**
   * The odds of the attack the open dialog would send (docs/odds.md), drawn in its odds panel
   * and asked again as its fields change. `dialog` is what DialogV2.wait's render callback is
   * given: the DialogV2 (v13, v14), whose `element` holds the form. Returns the OddsPreview (null when
   * the dialog has no odds panel).
   */
  previewOdds(dialog, token, data) {
    const root = dialog?.element ?? dialog;
    const form = root?.querySelector?.("form");
    const panel = root?.querySelector?.(".firefight-odds__body");
    const encounter = this.encounter();
    if (!form || !panel || !encounter?.token) return null;
    const client = this.client();
    const escape = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
    const preview = new OddsPreview({
      panel,
      // The attack's own body from the fields as they are now, its given dice left out.
      read: () => this.buildAttack(token, data, { ...new this.env.FormDataExtended(form).object, dice: "" }).body,
      ask: (body) => client.attackOdds(encounter.id, encounter.token, body),
      draw: (answer) => this.env.renderTemplate(ODDS_TEMPLATE, oddsView(answer, { localize: (key, values) => this.localize(key, values), nameOf: (id) => this.nameOf(id) })),
      say: (key, values) => `<p class="hint">${escape(this.localize(key, values))}</p>`,
      describe: (error) => this.failureDetail(error),
    });
    for (const type of ["change", "input"]) form.addEventListener(type, () => preview.schedule());
    this.oddsPreview = preview;
    preview.refresh();
    return preview;
  }

  /** The attack dialog (DialogV2, v12+), filled from the actor. */
  async openAttackDialog(token, { itemId = null } = {}) {
    if (!this.settings().serviceUrl) return this.notify("warn", "FIREFIGHT.Notify.NoService");
    if (!this.requireEncounter()) return null;
    // Distances and zones are measured on the viewed canvas: it must be the combat's scene.
    const scene = this.sceneOfPlay();
    if (scene && this.env.canvas?.scene && scene !== this.env.canvas.scene) {
      return this.notify("warn", "FIREFIGHT.Notify.OtherScene", { scene: scene.name ?? scene.id });
    }
    const data = this.dialogData(token, { itemId });
    const content = await this.env.renderTemplate(DIALOG_TEMPLATE, data);
    const formOf = (button) => new this.env.FormDataExtended(button.form).object;
    let preview = null;
    const choice = await this.env.DialogV2.wait({
      window: { title: this.localize("FIREFIGHT.Dialog.Title", { name: token.name }) },
      classes: ["firefight-dialog"],
      content,
      // Once rendered (and on every render after), the odds follow the dialog's fields.
      render: (_event, dialog) => {
        preview ??= this.previewOdds(dialog, token, data);
      },
      close: () => {
        preview?.stop();
      },
      buttons: [
        { action: "fire", label: this.localize("FIREFIGHT.Button.Fire"), default: true, callback: (_e, button) => ({ action: "fire", form: formOf(button) }) },
        ...(data.sr5 || data.sr3 || data.sr4 || data.sr3hl ? [{ action: "aim", label: this.localize("FIREFIGHT.Button.TakeAim"), callback: (_e, button) => ({ action: "aim", form: formOf(button) }) }] : []),
        { action: "cancel", label: this.localize("FIREFIGHT.Button.Cancel") },
      ],
      rejectClose: false,
    });
    if (!choice || typeof choice !== "object") return null;
    try {
      if (choice.action === "aim") return await this.takeAim(token, choice.form.aim_for || "dice", choice.form.rollMode);
      return await this.attack(token, data, choice.form);
    } catch (error) {
      this.notifyFailure(error);
      return null;
    }
  }
}

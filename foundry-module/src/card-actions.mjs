// The chat card's buttons, as FirefightApp's methods (mixed into its prototype): apply damage
// once (and the GM's undo), Second Chance, zone tests, and wiring a rendered card's buttons.

import { MODULE_ID } from "./settings.mjs";
import * as sr5 from "./sr5-actor.mjs";
import * as sr3e from "./sr3-actor.mjs";
import * as sr4e from "./sr4-actor.mjs";
import { d100ZoneTestRequest, mergeManual, sr5ZoneTestRequest } from "./requests.mjs";
import { sr4ZoneTestRequest } from "./sr4-requests.mjs";

export class CardActions {
  tokenFor(id) {
    return this.sceneOfPlay()?.tokens?.get?.(id) ?? null;
  }

  /** The name this user may be told: a hidden token's only to a GM (a player clicking its row learns nothing). */
  shownName(tokenDocument, actor) {
    if (tokenDocument?.hidden && !this.game.user?.isGM) return this.localize("FIREFIGHT.Card.Someone");
    return tokenDocument?.name ?? actor?.name ?? "";
  }

  canAct(actor) {
    return this.game.user?.isGM || actor?.isOwner === true;
  }

  /** The actor a card's target id names: a token of the scene of play, else a world actor. */
  targetActor(targetId) {
    const tokenDocument = this.tokenFor(targetId);
    return { tokenDocument, actor: tokenDocument?.actor ?? this.game.actors?.get?.(targetId) ?? null };
  }

  /**
   * Where a card's damage to a target is recorded once applied: on the message (its author and
   * the GM may write it), or, for a target's owner who did not post the card, on the target
   * actor they own, under the message's id.
   */
  appliedRecord(message, targetId, actor = this.targetActor(targetId).actor) {
    const onMessage = message?.flags?.[MODULE_ID]?.applied?.[targetId];
    if (onMessage) return { ...onMessage, on: "message" };
    const onActor = actor?.flags?.[MODULE_ID]?.applied?.[message?.id]?.[targetId];
    return onActor ? { ...onActor, on: "actor" } : null;
  }

  /**
   * Apply a target's damage to its monitor (its owner or the GM), once per card: the card's
   * record keeps what the monitor held before, for the GM's Undo.
   */
  async applyDamage(targetId, track, boxes, message = null) {
    const { tokenDocument, actor } = this.targetActor(targetId);
    if (!actor) return null;
    if (!this.canAct(actor)) return this.notify("warn", "FIREFIGHT.Notify.NotOwner", { name: this.shownName(tokenDocument, actor) });
    const name = tokenDocument?.name ?? actor.name;
    if (message && this.appliedRecord(message, targetId, actor)) return this.notify("info", "FIREFIGHT.Notify.AlreadyApplied", { name });
    let update;
    const version = this.game.system?.version;
    if (sr5.isShadowrunActor(actor, this.game.system?.id) && (track === "physical" || track === "stun")) {
      update = sr5.trackUpdate(actor, track, boxes, { version });
    } else if (sr3e.isSr3eActor(actor, this.game.system?.id) && (track === "physical" || track === "stun")) {
      update = sr3e.trackUpdate(actor, track, boxes, { version });
    } else if (sr4e.isSr4eActor(actor, this.game.system?.id) && (track === "physical" || track === "stun")) {
      update = sr4e.trackUpdate(actor, track, boxes, { version });
    } else {
      const path = this.settings().damagePath;
      if (!path) return this.notify("warn", "FIREFIGHT.Notify.NoDamagePath");
      const current = Number(path.split(".").reduce((o, k) => o?.[k], actor)) || 0;
      update = { [path]: current + boxes };
    }
    const previous = Object.fromEntries(Object.keys(update).map((path) => [path, path.split(".").reduce((o, k) => o?.[k], actor) ?? 0]));
    await actor.update(update);
    if (message) {
      const record = { track, boxes, previous, by: this.game.user?.id ?? null };
      if (message.isOwner) await message.setFlag(MODULE_ID, `applied.${targetId}`, record);
      else await actor.setFlag(MODULE_ID, `applied.${message.id}.${targetId}`, record);
    }
    this.notify("info", "FIREFIGHT.Notify.DamageApplied", { boxes, track: this.localize(`FIREFIGHT.Track.${track}`), name });
    return update;
  }

  /** The GM takes back a card's applied damage: the monitor gets back what it held before. */
  async undoDamage(targetId, message) {
    if (!this.game.user?.isGM) return this.notify("warn", "FIREFIGHT.Notify.UndoGmOnly");
    const { tokenDocument, actor } = this.targetActor(targetId);
    const record = actor ? this.appliedRecord(message, targetId, actor) : null;
    if (!record) return null;
    await actor.update(record.previous);
    if (record.on === "message") await message.setFlag(MODULE_ID, `applied.${targetId}`, null);
    else await actor.setFlag(MODULE_ID, `applied.${message.id}.${targetId}`, null);
    this.notify("info", "FIREFIGHT.Notify.DamageUndone", { name: tokenDocument?.name ?? actor.name });
    return record.previous;
  }

  async secondChance(attackerId, targetId) {
    const encounter = this.requireEncounter();
    if (!encounter) return null;
    const tokenDocument = this.tokenFor(attackerId);
    const actor = tokenDocument?.actor;
    if (actor && !this.canAct(actor)) return this.notify("warn", "FIREFIGHT.Notify.NotOwner", { name: this.shownName(tokenDocument, actor) });
    await this.announce(attackerId, null);
    const answer = await this.client().action(encounter.id, encounter.token, { actor: attackerId, action: "second_chance", target: targetId });
    if (actor && answer.result.edge_spent > 0 && sr5.isShadowrunActor(actor, this.game.system?.id)) await actor.update(sr5.edgeUpdate(actor, answer.result.edge_spent, { version: this.game.system?.version }));
    return answer;
  }

  async zoneTest(zoneId, actorId) {
    const encounter = this.requireEncounter();
    if (!encounter) return null;
    const tokenDocument = this.tokenFor(actorId);
    const actor = tokenDocument?.actor;
    if (!actor) return null;
    if (!this.canAct(actor)) return this.notify("warn", "FIREFIGHT.Notify.NotOwner", { name: this.shownName(tokenDocument, actor) });
    await this.announce(actorId, null);
    if (encounter.ruleset === "d100") {
      const manual = mergeManual("d100", actor.flags?.[MODULE_ID]?.manual?.d100 ?? {});
      const body = d100ZoneTestRequest({ actor: actorId, athletics: manual.athletics, defender: { passive_defense: manual.passive_defense, armor: manual.armor } });
      return this.client().zoneTest(encounter.id, encounter.token, zoneId, body);
    }
    if (encounter.ruleset === "sr3-hardlife") {
      // The distance to the shooter and anything the sheet lacks come from the scene (HLZoneTestAsk).
      const body = { ruleset: "sr3-hardlife", actor: actorId, defender: this.defenderOf(actor, "sr3-hardlife") };
      return this.client().zoneTest(encounter.id, encounter.token, zoneId, body);
    }
    if (encounter.ruleset === "sr4") {
      const body = sr4ZoneTestRequest({ actor: actorId, defender: this.defenderOf(actor, "sr4") });
      return this.client().zoneTest(encounter.id, encounter.token, zoneId, body);
    }
    const body = sr5ZoneTestRequest({
      actor: actorId,
      defender: this.defenderOf(actor, "sr5"),
      edge: sr5.isShadowrunActor(actor, this.game.system?.id) ? sr5.edgeLeft(actor, { version: this.game.system?.version }) : 0,
    });
    return this.client().zoneTest(encounter.id, encounter.token, zoneId, body);
  }

  /** Who applied a card's damage when it was dealt (its flags; cards from before: Foundry). */
  cardDamageMode(message) {
    return message?.flags?.[MODULE_ID]?.damage ?? "vtt";
  }

  /**
   * Show on a rendered card what was already applied: the Apply button says so and stays
   * disabled, and the GM gets an Undo beside it. With the service's monitors ("service") the
   * service applied it already: the button says so and does nothing; with "confirm" its damage
   * is applied once from the service's pending damage, and the service's undo (not the card's)
   * takes it back.
   */
  markApplied(message, element) {
    const mode = this.cardDamageMode(message);
    for (const button of element.querySelectorAll('[data-firefight-action="apply-damage"]')) {
      if (mode === "service") {
        button.disabled = true;
        button.classList.add("firefight-applied");
        button.textContent = this.localize("FIREFIGHT.Button.AppliedByService");
        continue;
      }
      const record = this.appliedRecord(message, button.dataset.target);
      const undo = button.parentElement?.querySelector?.('[data-firefight-action="undo-damage"]');
      if (!record) {
        button.disabled = false;
        button.classList.remove("firefight-applied");
        button.textContent = this.localize("FIREFIGHT.Button.ApplyDamage");
        undo?.remove?.();
        continue;
      }
      button.disabled = true;
      button.classList.add("firefight-applied");
      button.textContent = this.localize("FIREFIGHT.Button.Applied", { boxes: record.boxes, track: this.localize(`FIREFIGHT.Track.${record.track}`) });
      if (this.game.user?.isGM && !undo && mode === "vtt") {
        const undoButton = this.env.document.createElement("button");
        undoButton.type = "button";
        undoButton.classList.add("firefight-button", "firefight-undo");
        undoButton.dataset.firefightAction = "undo-damage";
        undoButton.dataset.target = button.dataset.target;
        undoButton.textContent = this.localize("FIREFIGHT.Button.Undo");
        button.after(undoButton);
        this.bindButton(message, element, undoButton);
      }
    }
  }

  bindButton(message, element, button) {
    const flags = message.flags?.[MODULE_ID] ?? {};
    button.addEventListener("click", async (clickEvent) => {
      clickEvent.preventDefault();
      button.disabled = true;
      try {
        const { firefightAction: action, target, boxes, track, zone, actor } = button.dataset;
        const mode = this.cardDamageMode(message);
        if (action === "apply-damage" && mode === "confirm") await this.applyPending(target, track, Number(boxes), message);
        else if (action === "apply-damage" && mode === "vtt") await this.applyDamage(target, track, Number(boxes), message);
        else if (action === "undo-damage") await this.undoDamage(target, message);
        else if (action === "second-chance") await this.secondChance(flags.attacker, target);
        else if (action === "zone-test") await this.zoneTest(zone, actor);
      } catch (error) {
        this.notifyFailure(error);
      } finally {
        button.disabled = false;
        // Foundry re-renders a message whose flags changed; a record kept on the actor does not
        // change the message, so the card is brought up to date here as well.
        this.markApplied(message, element);
      }
    });
  }

  /** Wire a rendered chat card's buttons (renderChatMessageHTML, v13 and v14; once per element). */
  bindCard(message, element) {
    const flags = message.flags?.[MODULE_ID];
    if (!flags || !element || element.dataset.firefightBound) return;
    element.dataset.firefightBound = "1";
    for (const button of element.querySelectorAll("[data-firefight-action]")) this.bindButton(message, element, button);
    this.markApplied(message, element);
  }
}

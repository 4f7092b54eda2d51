// Service results as the data of the chat card template (templates/chat-card.hbs): what was
// rolled and why (the pool and its modifiers), each target's outcome and damage, and the
// follow-ups a player can click (apply damage, Second Chance, zone tests). This module picks the
// card a result needs; the shared frame is in card-frame.mjs and each ruleset's parts in its own
// module (sr5-card.mjs, sr4-card.mjs, sr3-card.mjs, sr3hl-card.mjs, d100-card.mjs).

import { diceOfResult } from "./rolls.mjs";
import { dieRows, modifierRows, poolTest } from "./card-frame.mjs";
import { sr5AttackCard, sr5Damage } from "./sr5-card.mjs";
import { sr4AttackCard, sr4BlastsCard, sr4Damage } from "./sr4-card.mjs";
import { sr3AttackCard } from "./sr3-card.mjs";
import { hlAttackCard, hlZoneTestCard, zonePromptCard } from "./sr3hl-card.mjs";
import { d100AttackCard, d100Damage, d100Test } from "./d100-card.mjs";

export const CARD_TEMPLATE = "modules/firefight/templates/chat-card.hbs";

/** A zone test result (sr5_zone_test, sr4_zone_test or d100_zone_test) as card data. */
export function zoneTestCard(result, { nameOf = (id) => id } = {}) {
  const sr4 = result.kind === "sr4_zone_test";
  const sr5 = result.kind === "sr5_zone_test" || sr4;
  const damage = sr4 ? sr4Damage(result.damage) : sr5 ? sr5Damage(result.damage) : d100Damage(result.damage);
  return {
    ruleset: sr4 ? "sr4" : sr5 ? "sr5" : "d100",
    sr5,
    d100: !sr5,
    kind: "zone_test",
    title: "FIREFIGHT.Card.ZoneTest",
    actor: result.actor,
    actorName: nameOf(result.actor),
    zone: result.zone,
    avoided: result.avoided,
    threshold: result.threshold ?? null,
    pool: result.pool ?? null,
    modifiers: modifierRows(result.modifiers),
    test: sr5 ? poolTest(result.test) : d100Test(result.test),
    hit: result.hit,
    edgeSpent: result.edge_spent ?? 0,
    targets: damage
      ? [{ id: result.actor, name: nameOf(result.actor), hit: true, outcome: "hit", outcomeLabel: "FIREFIGHT.Outcome.hit", damage }]
      : [],
    dice: dieRows(result.dice, sr5 ? "sr5" : "d100"),
  };
}

/** Any result an event carries as card data, or null for those that get no card (advances). */
export function cardForResult(result, options = {}) {
  if (!result) return null;
  switch (result.kind) {
    case "sr5_attack":
      return sr5AttackCard(result, options);
    case "d100_attack":
      return d100AttackCard(result, options);
    case "sr3_attack":
      return sr3AttackCard(result, options);
    case "sr4_attack":
      return sr4AttackCard(result, options);
    case "sr3_hardlife_attack":
      return hlAttackCard(result, options);
    case "sr3_hardlife_zone_test":
      return hlZoneTestCard(result, options);
    case "scene":
      // Only Hard Life's zones attack whoever moves in them; the other rulesets test once, from
      // the zone's own card.
      return options.ruleset === "sr3-hardlife" && result.must_test?.length ? zonePromptCard(result, options) : null;
    case "sr4_zone_test":
      return zoneTestCard(result, options);
    case "advance":
    case "initiative":
      return result.went_off?.length ? sr4BlastsCard(result.went_off, options) : null;
    case "sr5_zone_test":
    case "d100_zone_test":
      return zoneTestCard(result, options);
    case "action": {
      if (result.attack) {
        const card = cardForResult(result.attack, { ...options, title: `FIREFIGHT.Action.${result.action}` });
        card.effects = result.effects;
        card.dice = dieRows(diceOfResult(result), card.ruleset);
        card.edgeSpent = result.edge_spent;
        for (const target of card.targets) target.canSecondChance = false;
        if (result.went_off?.length) card.blasts = [...(card.blasts ?? []), ...sr4BlastsCard(result.went_off, options).blasts];
        return card;
      }
      if (result.went_off?.length) {
        const card = sr4BlastsCard(result.went_off, options);
        card.title = `FIREFIGHT.Action.${result.action}`;
        card.effects = result.effects;
        return card;
      }
      return {
        kind: "action",
        title: `FIREFIGHT.Action.${result.action}`,
        actor: result.actor,
        actorName: (options.nameOf ?? ((id) => id))(result.actor),
        effects: result.effects,
        edgeSpent: result.edge_spent ?? 0,
        targets: [],
        dice: [],
      };
    }
    default:
      return null;
  }
}

/** The card of one event, with what the message needs to act on it later (flags). */
export function cardForEvent(event, options = {}) {
  const card = cardForResult(event.result, options);
  if (!card) return null;
  card.eventId = event.id;
  card.encounter = event.encounter;
  card.zonesStarted = (event.zones_started ?? []).map((z) => z.id);
  card.zonesEnded = event.zones_ended ?? [];
  return card;
}

// d100 results (kind "d100_attack") as card data: the Success Target and its modifiers, each
// target's rolls, the wound and its location, the suppressive zone and who it reaches.

import { attackHeader, dieRows, modifierRows, zoneAffected } from "./card-frame.mjs";

export function d100Test(t) {
  return t ? { successTarget: t.success_target, roll: t.roll, success: t.success, hits: t.hits } : null;
}

export function d100Damage(damage) {
  if (!damage) return null;
  return {
    flat: damage.flat,
    bonusDice: damage.bonus_dice,
    bonusHits: damage.bonus_hits,
    netHits: damage.net_hits,
    passiveDefense: d100Test(damage.passive_defense),
    passiveDefenseHits: damage.passive_defense_hits,
    damage: damage.damage,
    location: damage.location,
    locationLabel: `FIREFIGHT.Location.${damage.location}`,
    armor: damage.armor,
    armorPenetration: damage.armor_penetration,
    effectiveArmor: damage.effective_armor,
    wound: damage.wound,
    boxes: damage.wound,
    track: "wounds",
  };
}

/** A d100 attack result (kind "d100_attack") as card data. */
export function d100AttackCard(result, { nameOf = (id) => id, title = null } = {}) {
  return {
    ...attackHeader("d100", result, nameOf, title),
    shotRate: result.shot_rate,
    bothBarrels: result.both_barrels,
    actionPoints: result.action_points,
    actionPointsSpent: result.action_points_spent,
    roundsFired: result.rounds_fired,
    ammoLeft: result.ammo_left,
    successTarget: result.success_target,
    modifiers: modifierRows(result.modifiers),
    targets: result.targets.map((t) => ({
      id: t.target,
      name: nameOf(t.target),
      outcome: t.outcome,
      outcomeLabel: `FIREFIGHT.Outcome.${t.outcome}`,
      hit: t.outcome === "hit",
      range: t.range_band,
      // A d100 weapon's bands are named by the table (free text): shown as written.
      rangeLabel: t.range_band,
      sharePercent: t.share_percent,
      share: t.share,
      modifiers: modifierRows(t.modifiers),
      attack: d100Test(t.attack),
      defense: d100Test(t.defense),
      defenseModifiers: modifierRows(t.defense_modifiers),
      netHits: t.net_hits,
      damage: d100Damage(t.damage),
      canSecondChance: false,
    })),
    zone: result.zone
      ? {
          id: result.zone.zone?.id ?? null,
          test: d100Test(result.zone.test),
          modifiers: modifierRows(result.zone.modifiers),
          affected: zoneAffected(result.zone.affected, nameOf),
        }
      : null,
    dice: dieRows(result.dice, "d100"),
    seed: result.seed,
  };
}

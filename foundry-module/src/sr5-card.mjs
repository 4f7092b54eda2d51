// Shadowrun 5 results (kind "sr5_attack") as card data: the pool and limit with their
// modifiers, each target's hits, defense and soak, the suppression zone and who it reaches.

import { attackHeader, dieRows, modifierRows, poolTest, targetHeader, TRACK_LABEL, zoneAffected } from "./card-frame.mjs";

export function sr5Damage(damage) {
  if (!damage) return null;
  return {
    dv: damage.dv,
    ap: damage.ap,
    armor: damage.armor,
    track: damage.track,
    trackLabel: TRACK_LABEL[damage.track] ?? damage.track,
    dvModifiers: modifierRows(damage.dv_modifiers),
    soak: poolTest(damage.soak),
    soakModifiers: modifierRows(damage.soak_modifiers),
    soakHits: damage.soak_hits,
    boxes: damage.boxes,
  };
}

function sr5Zone(zone, nameOf) {
  if (!zone) return null;
  return {
    id: zone.zone.id,
    hits: zone.zone.hits,
    penalty: zone.zone.penalty,
    lasts: zone.zone.lasts,
    suppression: poolTest(zone.suppression),
    affected: zoneAffected(zone.affected, nameOf),
  };
}

/** A shadowrun 5 attack result (kind "sr5_attack") as card data. */
export function sr5AttackCard(result, { nameOf = (id) => id, title = null } = {}) {
  return {
    ...attackHeader("sr5", result, nameOf, title),
    mode: result.mode,
    modeLabel: `FIREFIGHT.Mode.${result.mode}`,
    action: result.action,
    pool: result.pool,
    modifiers: modifierRows(result.modifiers),
    limit: result.limit,
    limitModifiers: modifierRows(result.limit_modifiers),
    recoil: result.recoil
      ? { penalty: result.recoil.penalty, compensation: result.recoil.compensation, roundsTotal: result.recoil.rounds_total }
      : null,
    roundsFired: result.rounds_fired,
    ammoLeft: result.ammo_left,
    secondRoundsFired: result.second_rounds_fired ?? 0,
    secondAmmoLeft: result.second_ammo_left ?? null,
    edgeSpent: result.edge_spent,
    pushedTheLimit: result.edge_spent > 0,
    targets: result.targets.map((t) => ({
      ...targetHeader(t, nameOf),
      share: t.share,
      modifiers: modifierRows(t.attack_modifiers),
      attack: poolTest(t.attack),
      attackHitsBeforeLimit: t.attack_hits_before_limit,
      attackHits: t.attack_hits,
      limited: t.attack_hits_before_limit > t.attack_hits,
      defense: poolTest(t.defense),
      defenseModifiers: modifierRows(t.defense_modifiers),
      defenseHits: t.defense_hits,
      netHits: t.net_hits,
      contactEffect: t.contact ? t.contact_effect : null,
      damage: sr5Damage(t.damage),
      // Second Chance re-rolls an attack test once, never one that pushed the limit.
      canSecondChance: result.edge_spent === 0 && t.attack && t.attack.pool > t.attack.hits,
    })),
    zone: sr5Zone(result.zone, nameOf),
    dice: dieRows(result.dice, "sr5"),
    seed: result.seed,
  };
}

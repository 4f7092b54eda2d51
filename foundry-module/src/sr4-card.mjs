// Shadowrun 4 results (kind "sr4_attack", and grenades going off) as card data: the sr5 card's
// layout with SR4's recoil and bursts, the grenade's scatter and every blast.

import { attackHeader, dieRows, modifierRows, poolTest, targetHeader, TRACK_LABEL } from "./card-frame.mjs";

export function sr4Damage(damage) {
  if (!damage) return null;
  return {
    dv: damage.dv,
    ap: damage.ap,
    armor: damage.armor,
    armorType: damage.armor_type,
    // The DV the armour is compared with (a narrow burst's DV left out, 001): stun when it does
    // not exceed the armour.
    comparedDv: damage.compared_dv,
    track: damage.track,
    trackLabel: TRACK_LABEL[damage.track] ?? damage.track,
    dvModifiers: modifierRows(damage.dv_modifiers),
    soak: poolTest(damage.soak),
    soakModifiers: modifierRows(damage.soak_modifiers),
    soakHits: damage.soak_hits,
    boxes: damage.boxes,
  };
}

/** A grenade going off (SR4BlastResult): where, how hard, the barriers, and every actor it reached. */
export function sr4BlastData(blast, nameOf = (id) => id) {
  if (!blast) return null;
  return {
    grenade: blast.grenade,
    thrower: blast.thrower,
    throwerName: nameOf(blast.thrower),
    point: { x: Math.round(blast.point.x * 10) / 10, y: Math.round(blast.point.y * 10) / 10 },
    type: blast.type,
    typeLabel: `FIREFIGHT.SR4.Grenade.${blast.type}`,
    code: `${blast.dv}${blast.damage_type}`,
    ap: blast.ap,
    falloff: blast.falloff_per_m,
    radius: blast.radius_m,
    confined: blast.confined,
    barriers: blast.barriers.map((b) => ({ id: b.barrier, dv: b.dv, damage: b.damage, holds: b.holds, reflects: b.reflects })),
    hits: blast.hits.map((h) => ({
      id: h.actor,
      name: nameOf(h.actor),
      distance: Math.round(h.distance_m * 10) / 10,
      dvDirect: h.dv_direct,
      dvRebound: h.dv_rebound,
      dv: h.dv,
      shieldedBy: h.shielded_by,
      armor: h.armor,
      armorModifiers: modifierRows(h.armor_modifiers),
      track: h.track,
      trackLabel: TRACK_LABEL[h.track] ?? h.track,
      soakHits: h.soak_hits,
      soakPool: h.soak ? h.soak.pool : null,
      boxes: h.boxes,
    })),
  };
}

function sr4Scatter(scatter) {
  if (!scatter) return null;
  const at = (p) => ({ x: Math.round(p.x * 10) / 10, y: Math.round(p.y * 10) / 10 });
  return {
    aimedAt: at(scatter.aimed_at),
    landed: at(scatter.landed),
    direction: scatter.direction,
    rolled: scatter.rolled_m,
    netHits: scatter.net_hits,
    perHit: scatter.per_hit_m,
    distance: Math.round(scatter.distance_m * 10) / 10,
    onTarget: scatter.on_target,
    extraDv: scatter.extra_dv,
    dud: Boolean(scatter.dud),
  };
}

/** A Shadowrun 4 attack result (kind "sr4_attack") as card data: the sr5 card's layout, with SR4's recoil, the grenade's scatter and blast. */
export function sr4AttackCard(result, { nameOf = (id) => id, title = null } = {}) {
  return {
    ...attackHeader("sr4", result, nameOf, title),
    mode: result.mode,
    modeLabel: `FIREFIGHT.Mode.${result.mode}`,
    burst: result.burst,
    burstLabel: result.burst ? `FIREFIGHT.SR4.Burst.${result.burst}` : null,
    action: result.action,
    pool: result.pool,
    modifiers: modifierRows(result.modifiers),
    recoil: result.recoil ? { penalty: result.recoil.penalty, compensation: result.recoil.compensation } : null,
    roundsFired: result.rounds_fired,
    ammoLeft: result.ammo_left,
    edgeSpent: result.edge_spent,
    targets: result.targets.map((t) => ({
      ...targetHeader(t, nameOf),
      firedAs: t.fired_as,
      modifiers: modifierRows(t.attack_modifiers),
      attack: poolTest(t.attack),
      attackHits: t.attack.hits,
      defense: poolTest(t.defense),
      defenseModifiers: modifierRows(t.defense_modifiers),
      defenseHits: t.defense_hits,
      netHits: t.net_hits,
      contactEffect: t.contact ? t.contact_effect : null,
      damage: sr4Damage(t.damage),
      canSecondChance: false,
    })),
    zone: result.zone
      ? {
          id: result.zone.zone.id,
          hits: result.zone.suppression.hits,
          lasts: result.zone.zone.lasts,
          suppression: poolTest(result.zone.suppression),
          affected: (result.zone.affected ?? []).filter((a) => a.inside).map((a) => ({
            actor: a.actor, name: nameOf(a.actor), inside: a.inside, penalty: "", mustTest: a.must_test,
            whereLabel: a.must_test ? "FIREFIGHT.Zone.inside" : "FIREFIGHT.Zone.sheltered",
          })),
        }
      : null,
    scatter: sr4Scatter(result.scatter),
    pendingGrenade: result.pending_grenade ?? null,
    blasts: result.blast ? [sr4BlastData(result.blast, nameOf)] : [],
    // An airburst's blast dice are among the attack's.
    dice: dieRows(result.dice, "sr4"),
    seed: result.seed,
  };
}

/** Grenades that went off when the turn reached their moment (an advance's, an initiative change's or a held action's `went_off`). */
export function sr4BlastsCard(blasts, { nameOf = (id) => id } = {}) {
  return {
    ruleset: "sr4",
    sr4: true,
    kind: "blast",
    title: "FIREFIGHT.SR4.WentOff",
    targets: [],
    blasts: blasts.map((b) => sr4BlastData(b, nameOf)),
    dice: dieRows(blasts.flatMap((b) => b.dice), "sr4"),
  };
}

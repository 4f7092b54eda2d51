// Service results as the data of the chat card template (templates/chat-card.hbs): what was
// rolled and why (the pool and its modifiers), each target's outcome and damage, and the
// follow-ups a player can click (apply damage, Second Chance, zone tests).

import { diceOfResult } from "./rolls.mjs";

export const CARD_TEMPLATE = "modules/firefight/templates/chat-card.hbs";

/** "+2" / "-1" / "0", as a modifier reads. */
export function signed(value) {
  return value > 0 ? `+${value}` : String(value);
}

function modifierRows(modifiers) {
  return (modifiers ?? []).map((m) => ({ source: m.source, value: m.value, signed: signed(m.value) }));
}

function dieRows(dice, ruleset) {
  return (dice ?? []).map((roll) => ({
    step: roll.step,
    sides: roll.sides,
    given: Boolean(roll.given),
    faces: roll.values.map((value) => ({
      value,
      hit: (ruleset === "sr5" || ruleset === "sr4") && roll.sides === 6 && value >= 5,
      one: roll.sides === 6 && value === 1,
    })),
  }));
}

function test(t) {
  return t ? { pool: t.pool, hits: t.hits, glitch: t.glitch, criticalGlitch: t.critical_glitch } : null;
}

const TRACK_LABEL = { physical: "FIREFIGHT.Track.physical", stun: "FIREFIGHT.Track.stun" };

function sr5Damage(damage) {
  if (!damage) return null;
  return {
    dv: damage.dv,
    ap: damage.ap,
    armor: damage.armor,
    track: damage.track,
    trackLabel: TRACK_LABEL[damage.track] ?? damage.track,
    dvModifiers: modifierRows(damage.dv_modifiers),
    soak: test(damage.soak),
    soakModifiers: modifierRows(damage.soak_modifiers),
    soakHits: damage.soak_hits,
    boxes: damage.boxes,
  };
}

/**
 * Who a new zone reaches, as the service decided it (SR5Affected / D100Affected): those inside
 * or next to it; `must_test` alone says who tests (inside, in the open), so one inside but in
 * cover or prone is listed with the penalty and no test.
 */
function zoneAffected(affected, nameOf) {
  return (affected ?? [])
    .filter((a) => a.inside || a.adjacent || a.penalty !== 0)
    .map((a) => ({
      actor: a.actor,
      name: nameOf(a.actor),
      inside: a.inside,
      adjacent: Boolean(a.adjacent),
      penalty: a.penalty,
      mustTest: a.must_test,
      whereLabel: a.must_test ? "FIREFIGHT.Zone.inside" : a.inside ? "FIREFIGHT.Zone.sheltered" : a.adjacent ? "FIREFIGHT.Zone.adjacent" : "FIREFIGHT.Zone.aware",
    }));
}

function sr5Zone(zone, nameOf) {
  if (!zone) return null;
  return {
    id: zone.zone.id,
    hits: zone.zone.hits,
    penalty: zone.zone.penalty,
    lasts: zone.zone.lasts,
    suppression: test(zone.suppression),
    affected: zoneAffected(zone.affected, nameOf),
  };
}

/** What every ruleset's attack card starts with: who fired what. */
function attackHeader(ruleset, result, nameOf, title) {
  return {
    ruleset,
    [ruleset]: true,
    kind: "attack",
    title: title ?? "FIREFIGHT.Card.Attack",
    attacker: result.attacker,
    attackerName: nameOf(result.attacker),
    weapon: result.weapon,
    weaponName: nameOf(result.weapon),
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
      attack: test(t.attack),
      attackHitsBeforeLimit: t.attack_hits_before_limit,
      attackHits: t.attack_hits,
      limited: t.attack_hits_before_limit > t.attack_hits,
      defense: test(t.defense),
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

/** Who a Shadowrun target is, and how the attack ended for it, as every card shows it. */
function targetHeader(t, nameOf) {
  return {
    id: t.target,
    name: nameOf(t.target),
    outcome: t.outcome,
    outcomeLabel: `FIREFIGHT.Outcome.${t.outcome}`,
    hit: t.outcome === "hit",
    range: t.range,
    rangeLabel: `FIREFIGHT.Range.${t.range}`,
  };
}

function d100Test(t) {
  return t ? { successTarget: t.success_target, roll: t.roll, success: t.success, hits: t.hits } : null;
}

function d100Damage(damage) {
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

/** One SR3 test (SR3Test): its target number with each modifier, the dice and the successes. */
function sr3Test(t) {
  if (!t) return null;
  return {
    targetNumber: t.target_number,
    dice: t.dice,
    poolDice: t.pool_dice,
    totals: t.totals.join(", "),
    successes: t.successes,
    ruleOfOne: t.rule_of_one,
    modifiers: modifierRows(t.modifiers),
  };
}

function sr3Damage(damage) {
  if (!damage) return null;
  return {
    sr3: true,
    power: damage.power,
    baseLevel: damage.base_level,
    // The resistance test's modifiers name the Power (bursts and full auto raise it) and the armour.
    levelModifiers: modifierRows(damage.level_modifiers),
    armor: damage.armor,
    armorLabel: `FIREFIGHT.SR3.Armor.${damage.armor}`,
    armorRating: damage.armor_rating,
    resist: sr3Test(damage.resist),
    netSuccesses: damage.net_successes,
    stages: signed(damage.stages),
    level: damage.level,
    overflow: damage.overflow,
    // Staged below Light: no boxes, nothing to apply.
    boxes: damage.boxes,
    track: damage.track,
    trackLabel: TRACK_LABEL[damage.track] ?? damage.track,
  };
}

/** A Shadowrun 3 attack result (kind "sr3_attack") as card data: every test with its TN, the staged damage, the Combat Pool left. */
export function sr3AttackCard(result, { nameOf = (id) => id, title = null } = {}) {
  const t = result.target;
  return {
    ...attackHeader("sr3", result, nameOf, title),
    mode: result.mode,
    modeLabel: `FIREFIGHT.Mode.${result.mode}`,
    action: result.action,
    roundsFired: result.rounds_fired,
    ammoLeft: result.ammo_left,
    attackTest: sr3Test(result.attack),
    recoilModifier: signed(result.recoil.modifier),
    targets: [{
      ...targetHeader(t, nameOf),
      sr3: {
        attackSuccesses: t.attack_successes,
        dodge: sr3Test(t.dodge),
        dodgeSuccesses: t.dodge_successes,
        netSuccesses: t.net_successes,
        armor: t.armor,
      },
      damage: sr3Damage(t.damage),
      canSecondChance: false,
    }],
    combatPool: result.combat_pool.map((p) => ({ actor: p.actor, name: nameOf(p.actor), spent: p.spent, left: p.left })),
    dice: dieRows(result.dice, "sr3"),
    seed: result.seed,
  };
}

// --- Hard Life (sr3-hardlife) -------------------------------------------------------------

const words = (text) => String(text ?? "").replaceAll("_", " ");

function hlKnockBack(kind, metres) {
  return { kind, metres, label: `FIREFIGHT.HL.KnockBack.${kind}`, moved: kind !== "none" };
}

/** Where each round went (HLRound): its TN and successes, the scatter, the location it landed on. */
function hlRound(r) {
  const s = r.scatter;
  return {
    round: r.round,
    targetNumber: r.target_number,
    successes: r.successes,
    outcome: r.outcome,
    outcomeLabel: `FIREFIGHT.Outcome.${r.outcome}`,
    scattered: Boolean(s?.hexes),
    hexes: s?.hexes ?? 0,
    direction: s?.direction ?? null,
    landed: s ? `${s.landed.q},${s.landed.r}` : null,
    location: r.location,
    locationLabel: r.location ? `FIREFIGHT.HL.Location.${r.location}` : null,
  };
}

/** Everything the rounds that reached one location did there (HLLocationHit). */
function hlLocation(hit) {
  return {
    location: hit.location,
    label: `FIREFIGHT.HL.Location.${hit.location}`,
    rounds: hit.rounds.join(", "),
    armor: hit.armor.map((a) => ({
      rounds: a.rounds.join(", "),
      armor: a.armor,
      armorLabel: `FIREFIGHT.SR3.Armor.${a.armor}`,
      armorPiercing: a.armor_piercing,
      rating: a.rating,
      dermalDice: a.dermal_dice,
      test: sr3Test(a.test),
      lacing: sr3Test(a.lacing),
      soak: a.soak,
      stopped: a.stopped,
      resultLabel: a.stopped ? "FIREFIGHT.HL.Stopped" : "FIREFIGHT.HL.Penetrated",
      degraded: a.degraded,
      ratingAfter: a.rating_after,
    })),
    damage: hit.damage.map((d) => ({
      round: d.round, dice: d.dice, accuracy: signed(d.accuracy.value), accuracySource: d.accuracy.source,
      totals: d.totals.join(", "), successes: d.successes, ones: d.ones, sixes: d.sixes,
      armorSuccesses: d.armor_successes, net: d.net, stages: signed(d.stages), level: d.level, overflow: d.overflow,
    })),
    stun: hit.stun
      ? {
          power: hit.stun.power, baseLevel: hit.stun.base_level, resist: sr3Test(hit.stun.resist), level: hit.stun.level,
          knockBack: hlKnockBack(hit.stun.knock_back, hit.stun.metres),
        }
      : null,
    wounds: hit.wounds.map((w) => ({
      monitor: w.monitor, monitorLabel: w.monitor === "trauma" ? "FIREFIGHT.HL.Trauma" : `FIREFIGHT.HL.Location.${w.monitor}`,
      track: w.track, trackLabel: TRACK_LABEL[w.track] ?? w.track, modifier: signed(w.modifier), level: w.level,
      boxes: w.boxes, boxesNow: w.boxes_now, levelNow: w.level_now,
    })),
  };
}

const SQRT3 = Math.sqrt(3);
// A hex's centre (schemas/sr3hl.py, BodyHex: x = 1.5 q, y = sqrt(3) (r + q / 2)), for hexes off
// the body too.
const hexCentre = (h) => ({ x: 1.5 * h.q, y: SQRT3 * (h.r + h.q / 2) });
const fixed = (n) => Math.round(n * 1000) / 1000;

/**
 * The body map the service serves (GET /v1/rulesets/sr3-hardlife, `body_map`) as a small SVG's
 * data: each hex's polygon (marked when a round hit its location), each round's path from its aim
 * point through the hexes it scattered, and where it landed. Null without a body map.
 */
export function hlBodyMapSvg(bodyMap, rounds) {
  if (!bodyMap?.hexes?.length) return null;
  const struck = new Set(rounds.map((r) => r.location).filter(Boolean));
  const scattered = rounds.filter((r) => r.scatter);
  const all = [...bodyMap.hexes, ...scattered.flatMap((r) => [r.scatter.aim, ...r.scatter.path].map(hexCentre))];
  const xs = all.map((p) => p.x);
  const ys = all.map((p) => p.y);
  const minX = Math.min(...xs) - 1.2;
  const minY = Math.min(...ys) - 1.2;
  const corners = ({ x, y }) => [0, 1, 2, 3, 4, 5].map((k) => `${fixed(x + 0.95 * Math.cos((Math.PI / 3) * k))},${fixed(y + 0.95 * Math.sin((Math.PI / 3) * k))}`).join(" ");
  return {
    viewBox: `${fixed(minX)} ${fixed(minY)} ${fixed(Math.max(...xs) + 1.2 - minX)} ${fixed(Math.max(...ys) + 1.2 - minY)}`,
    hexes: bodyMap.hexes.map((h) => ({ location: h.location, points: corners(h), hit: struck.has(h.location) })),
    paths: scattered.map((r) => {
      const points = [r.scatter.aim, ...r.scatter.path].map(hexCentre);
      const end = hexCentre(r.scatter.landed);
      return {
        round: r.round,
        points: points.map((p) => `${fixed(p.x)},${fixed(p.y)}`).join(" "),
        cx: fixed(end.x), cy: fixed(end.y), offBody: !r.scatter.location,
      };
    }),
  };
}

/** One Hard Life target (HLTargetResult): its tests, each round, each location hit, the recovery roll. */
function hlTarget(t, nameOf, bodyMap = null) {
  const c = t.condition ?? {};
  return {
    ...targetHeader(t, nameOf),
    hit: t.hits.length > 0,
    hl: {
      aim: t.aim,
      aimLabel: `FIREFIGHT.HL.Location.${t.aim}`,
      attackSuccesses: t.attack_successes,
      dodge: sr3Test(t.dodge),
      dodgeSuccesses: t.dodge_successes,
      netSuccesses: t.net_successes,
      rounds: t.rounds.map(hlRound),
      bodyMap: hlBodyMapSvg(bodyMap, t.rounds),
      locations: t.hits.map(hlLocation),
      knockBack: hlKnockBack(t.knock_back, t.knock_back_m),
      recovery: t.recovery
        ? { level: t.recovery.level, needed: t.recovery.needed, test: sr3Test(t.recovery.test), passed: t.recovery.passed, label: t.recovery.passed ? "FIREFIGHT.HL.Recovered" : "FIREFIGHT.HL.LosesAction" }
        : null,
      condition: {
        targetNumber: signed(c.target_number_modifier ?? 0),
        initiative: signed(c.initiative_modifier ?? 0),
        deadly: Boolean(c.deadly),
        dead: Boolean(c.dead),
        disabled: (c.disabled ?? []).map(words).join(", "),
        crippled: (c.crippled ?? []).map(words).join(", "),
      },
    },
    canSecondChance: false,
  };
}

function hlPools(pools, nameOf) {
  return pools.map((p) => ({ actor: p.actor, name: nameOf(p.actor), pool: p.pool, poolLabel: `FIREFIGHT.HL.Pool.${p.pool}`, spent: p.spent, left: p.left }));
}

/** A Hard Life attack result (kind "sr3_hardlife_attack") as card data: where each round landed, what the armour did, the wounds, knock-back and recovery. */
export function hlAttackCard(result, { nameOf = (id) => id, title = null, bodyMap = null } = {}) {
  const s = result.suppression;
  return {
    ...attackHeader("sr3hl", result, nameOf, title),
    mode: result.mode,
    modeLabel: `FIREFIGHT.Mode.${result.mode}`,
    action: result.action,
    roundsFired: result.rounds_fired,
    ammoLeft: result.ammo_left,
    attackTest: sr3Test(result.attack),
    targets: result.target ? [hlTarget(result.target, nameOf, bodyMap)] : [],
    suppression: s ? { id: s.zone.id, bulletsPerM2: s.bullets_per_m2, area: s.area_m2, lasts: s.zone.lasts } : null,
    combatPool: hlPools(result.combat_pool, nameOf),
    dice: dieRows(result.dice, "sr3"),
    seed: result.seed,
  };
}

/**
 * A move into (or in) a Hard Life suppression zone (a scene event whose `must_test` names the
 * zones): a card with each zone's Zone test button for that actor (004: anyone entering or
 * moving in the area suffers its attack).
 */
export function zonePromptCard(result, { nameOf = (id) => id } = {}) {
  return {
    ruleset: "sr3hl",
    kind: "zone_prompt",
    title: "FIREFIGHT.HL.MustTestTitle",
    actor: result.actor,
    actorName: nameOf(result.actor),
    zonePrompts: result.must_test.map((zone) => ({ zone, actor: result.actor })),
    targets: [],
    dice: [],
  };
}

/** A Hard Life zone test (kind "sr3_hardlife_zone_test"): the zone's Table 9 attack, then the rounds that hit as an attack's. */
export function hlZoneTestCard(result, { nameOf = (id) => id, bodyMap = null } = {}) {
  return {
    ruleset: "sr3hl",
    sr3hl: true,
    kind: "zone_test",
    title: "FIREFIGHT.Card.ZoneTest",
    actor: result.actor,
    actorName: nameOf(result.actor),
    zone: result.zone,
    attackTest: sr3Test(result.attack),
    targets: [hlTarget(result.target, nameOf, bodyMap)],
    combatPool: hlPools(result.combat_pool, nameOf),
    dice: dieRows(result.dice, "sr3"),
    seed: result.seed,
  };
}

function sr4Damage(damage) {
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
    soak: test(damage.soak),
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
      attack: test(t.attack),
      attackHits: t.attack.hits,
      defense: test(t.defense),
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
          suppression: test(result.zone.suppression),
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

/** A zone test result (sr5_zone_test or d100_zone_test) as card data. */
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
    test: sr5 ? test(result.test) : d100Test(result.test),
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

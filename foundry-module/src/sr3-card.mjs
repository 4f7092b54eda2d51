// Shadowrun 3 results (kind "sr3_attack") as card data: every test with its target number and
// modifiers, the staged damage and the Combat Pool left. Hard Life (sr3hl-card.mjs) shows its
// tests the same way.

import { attackHeader, dieRows, modifierRows, signed, targetHeader, TRACK_LABEL } from "./card-frame.mjs";

/** One SR3 test (SR3Test): its target number with each modifier, the dice and the successes. */
export function sr3Test(t) {
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

// The shared frame of every chat card (templates/chat-card.hbs): who fired what at whom, the
// modifiers as they read, the dice rolled, the damage tracks' names and who a zone reaches. Each
// ruleset's own parts are in a module of its own (sr5-card.mjs, sr4-card.mjs, sr3-card.mjs,
// sr3hl-card.mjs, d100-card.mjs); chat-card.mjs picks the one a result needs.

/** "+2" / "-1" / "0", as a modifier reads. */
export function signed(value) {
  return value > 0 ? `+${value}` : String(value);
}

/** The modifiers of a pool, a limit or a TN, each with its value as it reads. */
export function modifierRows(modifiers) {
  return (modifiers ?? []).map((m) => ({ source: m.source, value: m.value, signed: signed(m.value) }));
}

/** Every die rolled, step by step, with the hits (sr5, sr4: a 5 or 6 on a d6) and the ones marked. */
export function dieRows(dice, ruleset) {
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

/** A Shadowrun 4/5 test (a pool of d6 and its hits) as the card shows it. */
export function poolTest(t) {
  return t ? { pool: t.pool, hits: t.hits, glitch: t.glitch, criticalGlitch: t.critical_glitch } : null;
}

export const TRACK_LABEL = { physical: "FIREFIGHT.Track.physical", stun: "FIREFIGHT.Track.stun" };

/**
 * Who a new zone reaches, as the service decided it (SR5Affected / D100Affected): those inside
 * or next to it; `must_test` alone says who tests (inside, in the open), so one inside but in
 * cover or prone is listed with the penalty and no test.
 */
export function zoneAffected(affected, nameOf) {
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

/** What every ruleset's attack card starts with: who fired what. */
export function attackHeader(ruleset, result, nameOf, title) {
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

/** Who a Shadowrun target is, and how the attack ended for it, as every card shows it. */
export function targetHeader(t, nameOf) {
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

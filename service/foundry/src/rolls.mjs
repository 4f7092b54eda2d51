// The service's dice as Foundry Roll data: each DiceRoll {step, sides, values} becomes one Roll
// whose only term is a Die holding exactly those results, so Roll.fromData rebuilds it without
// rolling and Dice So Nice shows exactly the dice the service used.
//
// The shape is Roll#toJSON and DiceTerm#toJSON of Foundry v12/v13 (client/dice/roll.mjs:
// {class, options, dice, formula, terms, total, evaluated}; a Die term: {class: "Die", options,
// evaluated, number, faces, modifiers, results: [{result, active, success?, count?}]}).

/** Faces at or above which a d6 is a hit in the d6-pool rulesets (counted as successes). */
export const D6_POOL_HIT = 5;

/**
 * One DiceRoll as Roll JSON. `hitOn` counts successes (the `cs>=N` modifier) instead of summing,
 * so the Roll's total is the number of hits, as the pool systems read it.
 */
export function diceRollToRollData(diceRoll, { hitOn = null } = {}) {
  const { step, sides, values } = diceRoll;
  if (!Number.isInteger(sides) || sides < 2) throw new Error(`step ${step}: a die needs at least 2 sides, not ${sides}`);
  if (!Array.isArray(values)) throw new Error(`step ${step}: no values`);
  for (const value of values) {
    if (!Number.isInteger(value) || value < 1 || value > sides) {
      throw new Error(`step ${step}: ${value} is not a face of a d${sides}`);
    }
  }
  const modifiers = hitOn ? [`cs>=${hitOn}`] : [];
  const results = values.map((value) => {
    const result = { result: value, active: true };
    if (hitOn) {
      result.success = value >= hitOn;
      result.count = value >= hitOn ? 1 : 0;
    }
    return result;
  });
  const total = results.reduce((sum, r) => sum + (hitOn ? r.count : r.result), 0);
  const flavor = step;
  const expression = `${values.length}d${sides}${modifiers.join("")}`;
  return {
    class: "Roll",
    options: { flavor, firefight: { step, given: Boolean(diceRoll.given) } },
    dice: [],
    formula: `${expression}[${flavor}]`,
    terms: [
      {
        class: "Die",
        options: { flavor },
        evaluated: true,
        number: values.length,
        faces: sides,
        modifiers,
        results,
      },
    ],
    total,
    evaluated: true,
  };
}

/** Whether a ruleset's dice of this many sides count hits (d6 pools) or add up. */
export function hitThreshold(ruleset, sides) {
  return ruleset === "sr5" && sides === 6 ? D6_POOL_HIT : null;
}

/** Every step of a result as Roll JSON, in the service's order; empty steps are left out. */
export function rollsForDice(dice, ruleset) {
  return (dice ?? [])
    .filter((roll) => roll.values.length > 0)
    .map((roll) => diceRollToRollData(roll, { hitOn: hitThreshold(ruleset, roll.sides) }));
}

/** The dice of any result the service sends: an attack, a zone test, or an action's re-resolved attack. */
export function diceOfResult(result) {
  if (!result) return [];
  if (Array.isArray(result.dice)) return result.dice;
  if (result.attack && Array.isArray(result.attack.dice)) {
    // Second Chance: the action's attack carries every die of the attack; only the re-rolled
    // steps are new at the table.
    return result.attack.dice.filter((roll) => roll.step.startsWith("second_chance"));
  }
  return [];
}

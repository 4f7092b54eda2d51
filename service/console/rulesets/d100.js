// d100 (`d100`): the Shot Rate attack form (schemas/d100.py, D100AttackRequest) and its result.

import { parseModifiers } from "../fields.js";
import { diceSection, el, facts, line, modifierTable, outcomeBadge } from "../results.js";

const RELOAD_METHODS = [
  "magazine", "speedloader", "belt", "power_cell", "crossbow", "nock_arrow",
  "break_action", "cylinder", "internal_magazine", "individual",
];
// Loose rounds: loaded in batches of Agility / 5, so these take the loader's Agility.
const BATCH_METHODS = ["break_action", "cylinder", "internal_magazine", "individual"];
const actionPointsSpec = { key: "action_points", label: "Action points it costs", type: "int", min: 0, max: 100, value: 1 };
const LOCATIONS = ["head", "torso", "right_arm", "left_arm", "right_leg", "left_leg"];
const MODE_NAMES = {
  SR0: "SR0 — one shot", SR1: "SR1", SR2: "SR2", SR3: "SR3", SR4: "SR4", SR5: "SR5", SR6: "SR6",
  both_barrels: "both barrels (double-barreled shotgun)", suppressive: "suppressive fire (a 10 m circle)",
};

// "short 10: +10, medium 30: 0, long 100: -20": a weapon's range bands, nearest first.
export function parseRangeBands(text) {
  const bands = text.split(/[,;]/).map((part) => part.trim()).filter(Boolean).map((part) => {
    const match = /^(?:([A-Za-z][\w -]*?)\s+)?(\d+(?:\.\d+)?)\s*m?\s*:\s*([+-]?\d+)$/.exec(part);
    if (!match) throw new Error(`"${part}" is not "[name] metres: modifier" (e.g. "short 10: +10")`);
    const band = { up_to_m: Number(match[2]), modifier: Number(match[3]) };
    if (match[1]) band.name = match[1].trim();
    return band;
  });
  if (!bands.length) throw new Error("give at least one band");
  return bands;
}

export const formatRangeBands = (bands) =>
  bands.map((band) => `${band.name ? `${band.name} ` : ""}${band.up_to_m}: ${band.modifier > 0 ? "+" : ""}${band.modifier}`).join(", ");

const modifiersSpec = (key, label) => ({
  key, label, type: "text", optional: true, parse: parseModifiers, placeholder: "darkness -20, braced +10",
  help: "Named modifiers, comma-separated: source and value.",
});

export default {
  id: "d100",
  attacker: [
    { key: "id", label: "Attacker id", type: "text", value: "vex", pattern: "[A-Za-z0-9_.:\\-]{1,64}" },
    { key: "marksmanship", label: "Marksmanship (%)", type: "int", min: 0, max: 500, value: 55 },
    { key: "recoil_control", label: "Recoil Control", type: "int", min: 0, max: 6, value: 2 },
    { key: "wound_modifier", label: "Wound modifier", type: "int", min: -500, max: 0, value: 0 },
  ],
  weapon: [
    { key: "id", label: "Weapon id", type: "text", value: "smg", pattern: "[A-Za-z0-9_.:\\-]{1,64}" },
    { key: "damage", label: "Damage (flat)", type: "int", min: 0, max: 500, value: 7 },
    { key: "bonus_dice", label: "Bonus dice", type: "int", min: 0, max: 50, value: 2 },
    { key: "bonus_die", label: "Bonus die", type: "select", options: [["4", "d4"], ["6", "d6"], ["8", "d8"], ["10", "d10"], ["12", "d12"]], value: "6", parse: Number },
    { key: "armor_penetration", label: "Armour penetration", type: "int", min: 0, max: 500, value: 0 },
    { key: "shot_rate", label: "Maximum Shot Rate", type: "int", min: 0, max: 6, value: 3 },
    { key: "ammo", label: "Rounds loaded", type: "int", min: 0, max: 10000, value: 30 },
    {
      key: "range_bands", label: "Range bands", type: "text", value: "short 10: +10, medium 30: 0, long 100: -20",
      parse: parseRangeBands, format: formatRangeBands, help: "Nearest first, each \"[name] metres: modifier\".",
    },
    { key: "double_barreled", label: "Double-barreled", type: "checkbox" },
  ],
  target: [
    { key: "defender.defense", label: "Active Defense (%)", type: "int", min: 0, max: 500, optional: true, value: 30 },
    { key: "defender.passive_defense", label: "Passive Defense (%)", type: "int", min: 0, max: 500, optional: true },
    { key: "defender.armor", label: "Armour", type: "int", min: 0, max: 500, value: 2 },
    { key: "share_percent", label: "Share of the Success Target (%)", type: "int", min: 0, max: 100, optional: true, help: "Multi-target fire: the shares add up to 100." },
    { key: "visibility", label: "Visibility modifier", type: "int", min: -500, max: 0, value: 0 },
    { key: "location", label: "Hit location", type: "select", options: [["", "rolled (d10)"], ...LOCATIONS], optional: true },
    modifiersSpec("modifiers", "Modifiers for this target"),
    modifiersSpec("defender.test_modifiers", "Modifiers of the defender's tests"),
    { key: "in_cover", label: "In cover", type: "checkbox", zoneOnly: true },
    { key: "prone", label: "Prone", type: "checkbox", zoneOnly: true },
  ],
  // The numbers an actor's sheet keeps on the scene (schemas/d100.py, D100Sheet).
  sheet: [
    { key: "marksmanship", label: "Marksmanship (%)", type: "int", min: 0, max: 500, optional: true },
    { key: "athletics", label: "Athletics (%)", type: "int", min: 0, max: 500, optional: true },
    { key: "recoil_control", label: "Recoil Control", type: "int", min: 0, max: 6, value: 0 },
    { key: "wound_modifier", label: "Wound modifier", type: "int", min: -500, max: 0, value: 0 },
    { key: "defense", label: "Active Defense (%)", type: "int", min: 0, max: 500, optional: true },
    { key: "passive_defense", label: "Passive Defense (%)", type: "int", min: 0, max: 500, optional: true },
    { key: "armor", label: "Armour", type: "int", min: 0, max: 500, value: 0 },
    // Sizes the monitor the service keeps (schemas/d100.py HitPoints; 003 gives none).
    { key: "hit_points", label: "Hit points", type: "int", min: 1, max: 499, optional: true },
  ],
  targetDefaults: { prefix: "ganger" },
  options: [
    { key: "aim", label: "Aim bonus", type: "int", min: 0, max: 500, value: 0 },
    modifiersSpec("modifiers", "Attack modifiers"),
  ],

  modes(info) {
    return (info?.firing_modes || Object.keys(MODE_NAMES)).map((mode) => [mode, MODE_NAMES[mode] || mode]);
  },
  defaultMode: "SR0",
  isZoneMode: (mode) => mode === "suppressive",
  zoneHelp: "Suppressive fire covers a 10 m circle around the aim point; the other actors on the map are the bystanders.",

  request({ attacker, weapon, mode, options, targets, attackerAt, aimAt }) {
    const body = {
      ruleset: "d100",
      attacker: { ...attacker, position: attackerAt },
      weapon: { ...weapon, bonus_die: Number(weapon.bonus_die) },
      ...options,
    };
    if (mode === "suppressive") {
      body.suppressive = { origin: attackerAt, center: aimAt };
      body.bystanders = targets.map((t) => ({
        id: t.id, position: t.position, in_cover: Boolean(t.fields.in_cover), prone: Boolean(t.fields.prone),
      }));
      return body;
    }
    if (mode === "both_barrels") {
      body.both_barrels = true;
    } else {
      body.shot_rate = Number(mode.replace("SR", ""));
    }
    body.targets = targets.map((t) => {
      const { defender = {}, ...rest } = t.fields;
      return { id: t.id, distance_m: t.distance_m, defender: { ...defender, position: t.position }, ...rest };
    });
    return body;
  },

  // The steps the attack rolls (service/rules/d100: attack, defense, bonus, passive defense,
  // location), for the given-dice inputs.
  diceSteps({ mode, targetIds, weapon, targets }) {
    if (mode === "suppressive") return [{ step: "suppression", sides: 100, count: 1 }];
    const bonusDie = Number(weapon?.bonus_die) || 6;
    const bonusDice = (Number(weapon?.bonus_dice) || 0) * (mode === "both_barrels" ? 2 : 1);
    return targetIds.flatMap((id) => {
      const fields = targets.find((t) => t.id === id)?.fields || {};
      const defender = fields.defender || {};
      const steps = [{ step: targetIds.length === 1 ? "attack" : `attack:${id}`, sides: 100, count: 1 }];
      if (defender.defense !== undefined) steps.push({ step: `defense:${id}`, sides: 100, count: 1 });
      if (bonusDice) steps.push({ step: `bonus:${id}`, sides: bonusDie, count: bonusDice });
      if (defender.passive_defense !== undefined) steps.push({ step: `passive_defense:${id}`, sides: 100, count: 1 });
      if (!fields.location) steps.push({ step: `location:${id}`, sides: 10, count: 1 });
      return steps;
    });
  },

  // The rest of the round (schemas/d100.py, D100ActionRequest and D100ZoneTestRequest).
  // d100 has no initiative passes.
  hasPasses: false,
  // The fields each action takes; an action not listed takes none. `when`: shown (and sent) only
  // while it holds for the raw values of the action's fields.
  actions: {
    reload: [
      { key: "weapon.id", label: "Weapon reloaded (id)", type: "text", value: "smg", pattern: "[A-Za-z0-9_.:\\-]{1,64}" },
      { key: "weapon.method", label: "Reload method", type: "select", options: RELOAD_METHODS, value: "magazine" },
      { key: "weapon.capacity", label: "Capacity", type: "int", min: 1, max: 10000, value: 30 },
      { key: "weapon.loaded", label: "Rounds in it now", type: "int", min: 0, max: 10000, value: 0 },
      { key: "weapon.rounds", label: "Rounds to load", type: "int", min: 1, max: 10000, optional: true, help: "Empty: up to capacity." },
      {
        key: "agility", label: "Loader's Agility", type: "int", min: 1, max: 500, value: 50,
        help: "Loose rounds load in batches of Agility / 5.", when: (values) => BATCH_METHODS.includes(values["weapon.method"]),
      },
    ],
    move: [actionPointsSpec],
    other: [actionPointsSpec],
  },
  actionHelp: { move: "The actor moves to where it stands on the map: that position is sent." },
  actionRequest({ actor, action, fields, position }) {
    const body = { ruleset: "d100", actor, action, ...fields };
    if (action === "move") body.position = position;
    return body;
  },
  zoneTest: [
    { key: "athletics", label: "Athletics (%)", type: "int", min: 0, max: 500, value: 40 },
    { key: "defender.passive_defense", label: "Passive Defense (%)", type: "int", min: 0, max: 500, optional: true },
    { key: "defender.armor", label: "Armour", type: "int", min: 0, max: 500, value: 2 },
    { key: "avoid", label: "Avoid the fire by", type: "select", options: [["none", "nothing: test"], "hit_the_dirt", "dive_for_cover"] },
    { key: "location", label: "Hit location", type: "select", options: [["", "rolled (d10)"], ...LOCATIONS], optional: true },
  ],
  zoneTestRequest({ actor, fields, position }) {
    const { defender = {}, ...rest } = fields;
    return { ruleset: "d100", actor, ...rest, defender: { ...defender, position } };
  },
  // docs/rulesets/d100.md, "Dice step names"; `zone` is the zone's state (its weapon's bonus dice).
  zoneTestSteps({ actor, fields, zone }) {
    const steps = [{ step: `zone_test:${actor}`, sides: 100, count: 1 }];
    if (!zone || zone.bonus_dice) steps.push({ step: `bonus:${actor}`, sides: zone?.bonus_die, count: zone?.bonus_dice });
    if (fields.defender?.passive_defense !== undefined) steps.push({ step: `passive_defense:${actor}`, sides: 100, count: 1 });
    if (!fields.location) steps.push({ step: `location:${actor}`, sides: 10, count: 1 });
    return steps;
  },

  kinds: ["d100_attack", "d100_zone_test"],

  summary(result) {
    if (result.kind === "d100_zone_test") {
      if (result.avoided) return `${result.actor} avoids ${result.zone} (${result.avoided.replaceAll("_", " ")}).`;
      const wound = result.damage ? `, wound ${result.damage.wound} to the ${result.damage.location.replace("_", " ")}` : "";
      return `${result.actor} tests against ${result.zone}: rolled ${result.test.roll} against ${result.test.success_target}, ${result.hit ? "hit" : "safe"}${wound}.`;
    }
    if (result.zone) {
      const inside = result.zone.affected.filter((a) => a.inside).map((a) => a.actor);
      const made = result.zone.zone ? `lays ${result.zone.zone.id}` : "misses the suppressive fire test";
      return `${result.attacker} ${made}: ${result.zone.test.hits} hits; inside: ${inside.join(", ") || "nobody"}.`;
    }
    const parts = result.targets.map((t) => {
      if (t.damage) return `${t.target} ${t.outcome}, wound ${t.damage.wound} to the ${t.damage.location.replace("_", " ")}`;
      return `${t.target} ${t.outcome}`;
    });
    return `${result.attacker} fires ${result.weapon} (SR${result.shot_rate}, Success Target ${result.success_target}): ${parts.join("; ")}.`;
  },

  render(result) {
    if (result.kind === "d100_zone_test") return renderZoneTest(result);
    const article = el("article", { class: "result d100", dataKind: result.kind },
      el("h3", {
        text: result.zone
          ? `${result.attacker} lays suppressive fire with ${result.weapon}`
          : `${result.attacker} fires ${result.weapon} — SR${result.shot_rate}${result.both_barrels ? ", both barrels" : ""}`,
      }));
    article.appendChild(facts([
      // Suppressive fire shows its Success Target once, in its test's line below.
      ["Success Target", result.zone ? null : result.success_target, "success_target"],
      ["Action points", result.action_points, "action_points"],
      ["Action points spent this turn", result.action_points_spent, "action_points_spent"],
      ["Rounds fired", result.rounds_fired, "rounds_fired"],
      ["Ammo left", result.ammo_left, "ammo_left"],
    ], "facts headline"));
    // Suppressive fire's own test lists its modifiers (the range too) under the zone.
    if (!result.zone) {
      article.appendChild(el("div", { class: "breakdown" },
        modifierTable("What makes the Success Target", result.modifiers, { field: "success_target" })));
    }
    for (const target of result.targets) article.appendChild(renderTarget(target));
    if (result.zone) article.appendChild(renderZone(result.zone));
    article.appendChild(diceSection(result.dice));
    return article;
  },
};

// A test once, its numbers each with its field: "rolled 12 against 60: success, 5 hits".
const testLine = (t, prefix) => line("rolled ", [t.roll, `${prefix}roll`], " against ", [t.success_target, `${prefix}success_target`],
  `: ${t.success ? "success" : "failure"}, `, [t.hits, `${prefix}hits`], " hits");

function renderTarget(t) {
  const article = el("article", { class: "target", dataTarget: t.target },
    el("h4", {}, `${t.target}: `, outcomeBadge(t.outcome)));
  article.appendChild(facts([
    ["Range band", t.range_band, "range_band"],
    ["Share", `${t.share_percent}% = ${t.share}`, "share"],
    ["Attack", testLine(t.attack, "attack_")],
    ["Defense", t.defense ? testLine(t.defense, "defense_") : "not rolled", t.defense ? undefined : "defense"],
    ["Net hits", t.net_hits, "net_hits"],
  ]));
  const tables = el("div", { class: "breakdown" });
  if (t.modifiers.length) tables.appendChild(modifierTable(`What changes the attack on ${t.target}`, t.modifiers, { field: "attack" }));
  if (t.defense_modifiers.length) tables.appendChild(modifierTable("Defense modifiers", t.defense_modifiers, { field: "defense" }));
  article.appendChild(tables);
  if (t.damage) article.appendChild(renderDamage(t.target, t.damage));
  return article;
}

function renderDamage(who, d) {
  return el("section", { class: "damage", "aria-label": `Damage to ${who}` },
    el("h5", {}, "Wound ", el("span", { class: "boxes", dataField: "wound", text: String(d.wound) }), ` to the ${d.location.replace("_", " ")}`),
    facts([
      ["Flat damage", d.flat, "flat"],
      ["Bonus dice", d.bonus_dice, "bonus_dice"],
      ["Bonus hits", d.bonus_hits, "bonus_hits"],
      ["Net hits", d.net_hits, "damage_net_hits"],
      ["Passive defense", d.passive_defense ? testLine(d.passive_defense, "passive_defense_") : "not rolled", d.passive_defense ? undefined : "passive_defense"],
      ["Damage", d.damage, "damage"],
      ["Location", d.location.replace("_", " "), "location"],
      ["Armour", d.armor, "armor"],
      ["Armour penetration", d.armor_penetration, "armor_penetration"],
      ["Effective armour", d.effective_armor, "effective_armor"],
    ]));
}

function renderZone(zone) {
  const title = zone.zone
    ? `${zone.zone.id}: ${zone.zone.kind}, ${zone.test.hits} hits (penalty ${zone.zone.penalty})`
    : "The suppressive fire test failed: no zone";
  const section = el("section", { class: "zone-result", dataZone: zone.zone?.id },
    el("h4", { text: title }),
    facts([["Suppressive fire test", testLine(zone.test, "suppression_")]]));
  if (zone.modifiers.length) {
    section.appendChild(modifierTable("What makes the suppressive fire test", zone.modifiers, { field: "suppression" }));
  }
  const table = el("table", { class: "affected" },
    el("caption", { text: "Who the zone affects" }),
    el("thead", {}, el("tr", {}, ["Actor", "Inside", "Penalty", "Must test"].map((h) => el("th", { scope: "col", text: h })))));
  const body = el("tbody");
  for (const a of zone.affected) {
    body.appendChild(el("tr", { dataActor: a.actor },
      el("th", { scope: "row", text: a.actor }),
      el("td", { text: a.inside ? "yes" : "no" }),
      el("td", { class: "num", text: String(a.penalty) }),
      el("td", { text: a.must_test ? "yes" : "no" })));
  }
  table.appendChild(body);
  section.appendChild(table);
  return section;
}

function renderZoneTest(result) {
  const outcome = result.avoided ? "avoided" : result.hit ? "hit" : "safe";
  const article = el("article", { class: "result d100 zone-test", dataKind: result.kind, dataActor: result.actor },
    el("h3", {}, `${result.actor} tests against ${result.zone}: `, el("span", { class: `outcome ${outcome}`, dataField: "outcome", text: outcome })));
  article.appendChild(facts([
    ["Avoided by", result.avoided?.replaceAll("_", " "), "avoided"],
    ["Athletics test", result.test ? testLine(result.test, "") : "not rolled", result.test ? undefined : "test"],
    ["Hit", result.hit ? "yes" : "no", "hit"],
  ], "facts headline"));
  if (result.modifiers.length) {
    article.appendChild(el("div", { class: "breakdown" },
      modifierTable("What makes the Success Target", result.modifiers, { field: "success_target" })));
  }
  if (result.damage) article.appendChild(renderDamage(result.actor, result.damage));
  article.appendChild(diceSection(result.dice));
  return article;
}

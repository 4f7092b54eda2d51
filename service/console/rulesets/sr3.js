// Shadowrun 3 (`sr3`): the attack form (schemas/sr3.py, SR3AttackRequest) and its result: every
// test against its target number (TN), each modifier with its source, and the Combat Pool left.

import { diceSection, el, facts, line, modifierTable, outcomeBadge, signed } from "../results.js";

// The rows of 002's weapon range table (schemas/sr3.py, WeaponCategory).
const CATEGORIES = [
  "hold_out_pistol", "light_pistol", "heavy_pistol", "smg", "taser", "shotgun", "sporting_rifle",
  "sniper_rifle", "assault_rifle", "light_machine_gun", "medium_machine_gun", "heavy_machine_gun",
  "assault_cannon", "grenade_launcher", "missile_launcher", "bow", "light_crossbow",
  "medium_crossbow", "heavy_crossbow", "thrown_knife", "shuriken",
];
// The rows of 002's ranged attack target numbers (schemas/sr3.py, Sight).
const SIGHTS = [
  ["standard", "standard vision"], ["laser_sight", "laser sight"], ["smart_goggles", "smart goggles"],
  ["smartlink", "smartlink"], ["smartlink_2", "smartlink-2 (rangefinder)"],
  ["magnification_1", "magnification 1"], ["magnification_2", "magnification 2"], ["magnification_3", "magnification 3"],
  ["magnification_1_laser", "magnification 1 + laser"], ["magnification_2_laser", "magnification 2 + laser"],
  ["magnification_3_laser", "magnification 3 + laser"],
];
const LEVELS = [["L", "L — light"], ["M", "M — moderate"], ["S", "S — serious"], ["D", "D — deadly"]];
const WOUNDS = [["none", "none"], ...LEVELS];
const MODE_NAMES = {
  SS: "SS — single shot (complex)", SA: "SA — semi-automatic (simple)",
  BF: "BF — burst fire (simple)", FA: "FA — full auto (complex)",
};
const ID = "[A-Za-z0-9_.:\\-]{1,64}";
const NO_ZONES = "SR3 has no suppressive fire (002): every attack is at one target.";

// "armor jacket 5/3, helmet 1/1": armour pieces, each a name and ballistic/impact ratings.
export function parseArmor(text) {
  return text.split(/[,;]/).map((part) => part.trim()).filter(Boolean).map((part) => {
    const match = /^(.*?)\s*(\d+)\s*\/\s*(\d+)$/.exec(part);
    if (!match) throw new Error(`"${part}" is not "name ballistic/impact" (e.g. "armor jacket 5/3")`);
    return { name: match[1].trim(), ballistic: Number(match[2]), impact: Number(match[3]) };
  });
}

export const formatArmor = (pieces) =>
  pieces.map((piece) => `${piece.name ? `${piece.name} ` : ""}${piece.ballistic}/${piece.impact}`).join(", ");

const armorSpec = (key, value) => ({
  key, label: "Armour worn (name ballistic/impact, …)", type: "text", optional: true, value,
  parse: parseArmor, format: formatArmor, placeholder: "armor jacket 5/3, helmet 1/1",
  help: "Layered (002): the highest piece in full, every other at half.",
});
const attribute = (key, label, value) => ({ key, label, type: "int", min: 1, max: 30, optional: true, value });

export default {
  id: "sr3",
  attacker: [
    { key: "id", label: "Attacker id", type: "text", value: "sam", pattern: ID },
    { key: "skill", label: "Weapon skill", type: "int", min: 0, max: 30, value: 4 },
    {
      key: "pool", label: "Combat Pool dice added", type: "int", min: 0, max: 100, value: 0,
      help: "At most the skill; the service keeps what is left this combat turn.",
    },
    { key: "sight", label: "Sight", type: "select", options: SIGHTS },
    attribute("quickness", "Quickness", 5),
    attribute("intelligence", "Intelligence", 4),
    attribute("willpower", "Willpower", 3),
    attribute("strength", "Strength (bows, thrown)"),
    { key: "combat_pool", label: "Combat Pool size", type: "int", min: 0, max: 100, optional: true, help: "Empty: (Quickness + Intelligence + Willpower) / 2." },
    { key: "wounds", label: "Wounds", type: "select", options: WOUNDS },
    armorSpec("armor"),
    { key: "rounds", label: "Full auto: rounds fired", type: "int", min: 1, max: 10, optional: true, help: "FA only; empty: 10." },
  ],
  weapon: [
    { key: "id", label: "Weapon id", type: "text", value: "predator", pattern: ID },
    { key: "category", label: "Category", type: "select", options: CATEGORIES, value: "heavy_pistol" },
    { key: "power", label: "Power", type: "int", min: 0, max: 100, value: 9 },
    { key: "damage_level", label: "Damage level", type: "select", options: LEVELS, value: "M" },
    { key: "damage_type", label: "Damage type", type: "select", options: ["physical", "stun"] },
    { key: "modes", label: "Weapon modes", type: "choices", options: ["SS", "SA", "BF", "FA"], value: ["SA"] },
    { key: "recoil_compensation", label: "Recoil compensation", type: "int", min: 0, max: 30, value: 0 },
    { key: "ammo", label: "Rounds loaded", type: "int", min: 0, max: 10000, value: 15 },
    { key: "armor", label: "Armour it meets", type: "select", options: [["", "by its category"], "ballistic", "impact"], optional: true },
    { key: "strength_rating", label: "Strength rating (bows)", type: "int", min: 1, max: 30, optional: true },
  ],
  target: [
    { key: "defender.body", label: "Body", type: "int", min: 1, max: 30, value: 4 },
    attribute("defender.quickness", "Quickness", 4),
    attribute("defender.intelligence", "Intelligence", 3),
    attribute("defender.willpower", "Willpower", 3),
    { key: "defender.combat_pool", label: "Combat Pool size", type: "int", min: 0, max: 100, optional: true },
    armorSpec("defender.armor", "armor jacket 5/3"),
    { key: "dodge", label: "Combat Pool dice to dodge", type: "int", min: 0, max: 100, value: 0 },
    { key: "resist", label: "Combat Pool dice to resist damage", type: "int", min: 0, max: 100, value: 0 },
    { key: "cover", label: "Cover", type: "select", options: ["none", "partial", "good", "full"] },
    { key: "movement", label: "Target moving", type: "select", options: ["walking", "stationary", "running"] },
  ],
  // The numbers an actor's sheet keeps on the scene (schemas/sr3.py, SR3Sheet): all optional.
  sheet: [
    attribute("body", "Body"),
    attribute("quickness", "Quickness"),
    attribute("strength", "Strength"),
    attribute("intelligence", "Intelligence"),
    attribute("willpower", "Willpower"),
    { key: "skill", label: "Weapon skill", type: "int", min: 0, max: 30, optional: true },
    { key: "combat_pool", label: "Combat Pool size", type: "int", min: 0, max: 100, optional: true },
    { key: "wounds", label: "Wounds", type: "select", options: WOUNDS },
    armorSpec("armor"),
  ],
  targetDefaults: { prefix: "goon" },
  options: [
    { key: "movement", label: "Attacker moving", type: "select", options: [["stationary", "stationary"], ["walking", "walking"], ["walking_difficult", "walking, difficult ground"], ["running", "running"], ["running_difficult", "running, difficult ground"]] },
    { key: "melee_opponents", label: "Melee opponents of the attacker", type: "int", min: 0, max: 20, value: 0 },
    { key: "called_shot", label: "Called shot", type: "checkbox" },
    { key: "blind_fire", label: "Blind fire", type: "checkbox" },
    { key: "second_firearm", label: "A firearm in each hand (this is one)", type: "checkbox" },
    { key: "indirect", label: "Indirect fire (launch weapons)", type: "checkbox" },
    { key: "visibility.vision", label: "Attacker's vision", type: "select", options: ["normal", "low_light_natural", "low_light_cyber", "thermographic_natural", "thermographic_cyber", "ultrasound"] },
    { key: "visibility.light", label: "Light", type: "select", options: ["full", "partial", "minimal", "full_darkness", "glare"] },
    { key: "visibility.obscurant", label: "In the air", type: "select", options: ["none", "mist", "light_smoke", "heavy_smoke", "thermal_smoke"] },
    { key: "visibility.melee", label: "Visibility for melee (half)", type: "checkbox" },
  ],

  modes(info) {
    return (info?.firing_modes || Object.keys(MODE_NAMES)).map((mode) => [mode, MODE_NAMES[mode] || mode]);
  },
  defaultMode: "SA",
  isZoneMode: () => false,
  zoneHelp: NO_ZONES,

  // One target per attack (docs/rulesets/sr3.md, "Request and result"): the form's first.
  request({ attacker, weapon, mode, options, targets }) {
    if (targets.length !== 1) {
      throw new Error("SR3 fires each shot or burst at one target: keep one (a second attack in the phase counts the multiple targets)");
    }
    const { pool, sight, rounds, ...shooter } = attacker;
    const body = { ruleset: "sr3", attacker: shooter, weapon, mode, ...options };
    if (pool) body.pool = pool;
    if (sight && sight !== "standard") body.sight = sight;
    if (mode === "FA" && rounds) body.rounds = rounds;
    const [t] = targets;
    body.target = { id: t.id, distance_m: t.distance_m, ...t.fields };
    return body;
  },

  // docs/rulesets/sr3.md, "Dice steps": the attack, the dodge when dice are committed to it, the
  // resistance test.
  diceSteps({ targetIds, targets }) {
    const steps = [{ step: "attack", sides: 6 }];
    for (const id of targetIds) {
      const fields = targets.find((t) => t.id === id)?.fields || {};
      if (fields.dodge > 0) steps.push({ step: `dodge:${id}`, sides: 6 });
      steps.push({ step: `resist:${id}`, sides: 6 });
    }
    return steps;
  },

  // The rest of the round (schemas/sr3.py, SR3ActionRequest): an action takes no fields.
  hasPasses: true,
  actions: {},
  actionHelp: { take_aim: "One simple action of aiming: -1 TN on the next shot, at most half the skill (SR3)." },
  actionRequest({ actor, action }) {
    return { ruleset: "sr3", actor, action };
  },
  // SR3 has no suppression zones, so no zone tests.
  zoneTestSteps: () => [],

  kinds: ["sr3_attack"],

  summary(result) {
    const t = result.target;
    const damage = t.damage?.level ? `, ${t.damage.level}: ${t.damage.boxes} ${t.damage.track} boxes` : "";
    const pools = result.combat_pool.map((p) => `${p.actor} ${p.left}`).join(", ");
    return `${result.attacker} fires ${result.weapon} (${result.mode}, TN ${result.attack.target_number}): ${t.target} ${t.outcome}${damage}; Combat Pool left: ${pools || "—"}.`;
  },

  render(result) {
    const article = el("article", { class: "result sr3", dataKind: result.kind },
      el("h3", { text: `${result.attacker} fires ${result.weapon} — ${result.mode}, ${result.action} action` }));
    article.appendChild(facts([
      ["Target number", result.attack.target_number, "target_number"],
      ["Successes", result.attack.successes, "successes"],
      ["Rounds fired", result.rounds_fired, "rounds_fired"],
      ["Ammo left", result.ammo_left, "ammo_left"],
      ["Recoil modifier", signed(result.recoil.modifier), "recoil_modifier"],
    ], "facts headline"));
    article.appendChild(renderTest("attack", "The attack", result.attack));
    const r = result.recoil;
    article.appendChild(el("p", { class: "recoil", dataField: "recoil" },
      `Recoil: ${r.rounds_before} rounds before + ${r.rounds_fired} now: ${r.recoil}, less compensation ${r.compensation}` +
      `${r.heavy_weapon ? " (heavy weapon: doubled)" : ""}: ${signed(r.modifier)} TN.`));
    article.appendChild(renderTarget(result.target));
    article.appendChild(renderPools(result.combat_pool));
    article.appendChild(diceSection(result.dice));
    return article;
  },
};

// One test against its TN: the dice (and how many from the Combat Pool), each total after the
// Rule of Six, the successes, and the modifiers that made the TN.
export function renderTest(name, title, t) {
  const section = el("section", { class: "test", dataTest: name, "aria-label": title },
    el("h4", { text: title }),
    facts([
      ["Target number", t.target_number, "target_number"],
      ["Dice", line([t.dice, "dice"], t.dice === 1 ? " die, " : " dice, ", [t.pool_dice, "pool_dice"], " of them from the Combat Pool")],
      ["Totals (Rule of Six)", t.totals.length ? t.totals.join(", ") : "—", "totals"],
      ["Successes", line([t.successes, "successes"], t.rule_of_one ? " (Rule of One: every die a 1)" : "")],
    ]));
  section.appendChild(modifierTable(`What makes the TN of ${title.toLowerCase()}`, t.modifiers, { field: name }));
  return section;
}

function renderTarget(t) {
  const article = el("article", { class: "target", dataTarget: t.target },
    el("h4", {}, `${t.target}: `, outcomeBadge(t.outcome)));
  article.appendChild(facts([
    ["Range", t.range, "range"],
    ["Attack successes", t.attack_successes, "attack_successes"],
    ["Dodge successes", t.dodge ? t.dodge_successes : "not rolled", "dodge_successes"],
    ["Net successes", t.net_successes, "net_successes"],
    ["Armour (layered)", line([t.armor.ballistic, "armor_ballistic"], " ballistic / ", [t.armor.impact, "armor_impact"], " impact",
      t.armor.pool_penalty ? line(", costs ", [t.armor.pool_penalty, "armor_pool_penalty"], " Combat Pool dice") : "")],
  ]));
  if (t.dodge) article.appendChild(renderTest("dodge", "The dodge", t.dodge));
  if (t.damage) article.appendChild(renderDamage(t.target, t.damage));
  return article;
}

function renderDamage(who, d) {
  const level = d.level
    ? el("h5", {}, el("span", { dataField: "level", text: d.level }), ": ",
      el("span", { class: "boxes", dataField: "boxes", text: String(d.boxes) }), " boxes of ",
      el("span", { dataField: "track", text: d.track }), " damage")
    : el("h5", {}, "Staged below Light: no damage ", el("span", { dataField: "level", text: "—" }));
  const section = el("section", { class: "damage", "aria-label": `Damage to ${who}` }, level,
    facts([
      ["Damage code", line([d.power, "power"], [d.base_level, "base_level"], ` ${d.track}`)],
      ["Armour met", line([d.armor_rating, "armor_rating"], ` ${d.armor}`)],
      ["Net successes", d.net_successes, "damage_net_successes"],
      ["Stages", signed(d.stages), "stages"],
      ["Stages past Deadly", d.overflow || null, "overflow"],
    ]));
  const tables = el("div", { class: "breakdown" });
  if (d.power_modifiers.length) tables.appendChild(modifierTable("What raises the Power", d.power_modifiers, { field: "power" }));
  if (d.level_modifiers.length) tables.appendChild(modifierTable("What raises the level (levels)", d.level_modifiers, { field: "level" }));
  if (tables.children.length) section.appendChild(tables);
  section.appendChild(renderTest("resist", "The resistance test", d.resist));
  return section;
}

// Each actor's Combat Pool dice committed to this attack, and what it has left this combat turn.
export function renderPools(pools) {
  const table = el("table", { class: "modifiers combat-pool", dataField: "combat_pool" },
    el("caption", { text: "Combat Pool (left until the next combat turn)" }),
    el("thead", {}, el("tr", {}, ["Actor", "Spent", "Left"].map((h) => el("th", { scope: "col", text: h })))));
  const body = el("tbody");
  for (const p of pools) {
    body.appendChild(el("tr", { dataActor: p.actor },
      el("th", { scope: "row", text: p.actor }),
      el("td", { class: "num", dataField: "spent", text: String(p.spent) }),
      el("td", { class: "num", dataField: "left", text: String(p.left) })));
  }
  table.appendChild(body);
  return table;
}

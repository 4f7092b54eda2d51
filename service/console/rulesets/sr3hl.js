// Hard Life (`sr3-hardlife`, 004 on SR3): the attack form (schemas/sr3hl.py, HLAttackRequest),
// suppression fire over an area clicked on the map, the zone test, the recovery roll and the
// consciousness test; the result on the body map (each round's scatter path and landing hex),
// each location's armour and damage tests and wounds, the stun and knock-back, the recovery roll.
// Every number shown is the service's: the page keeps none of the rules.

import { drawBodyMap, words } from "../bodymap.js";
import { diceSection, el, facts, line, outcomeBadge, signed } from "../results.js";
import { renderPools, renderTest } from "./sr3.js";

// The rows of 002's weapon range table (schemas/sr3.py, WeaponCategory).
const CATEGORIES = [
  "hold_out_pistol", "light_pistol", "heavy_pistol", "smg", "taser", "shotgun", "sporting_rifle",
  "sniper_rifle", "assault_rifle", "light_machine_gun", "medium_machine_gun", "heavy_machine_gun",
  "assault_cannon", "grenade_launcher", "missile_launcher", "bow", "light_crossbow",
  "medium_crossbow", "heavy_crossbow", "thrown_knife", "shuriken",
];
const SIGHTS = [
  ["standard", "standard vision"], ["laser_sight", "laser sight"], ["smart_goggles", "smart goggles"],
  ["smartlink", "smartlink"], ["smartlink_2", "smartlink-2 (rangefinder)"],
  ["magnification_1", "magnification 1"], ["magnification_2", "magnification 2"], ["magnification_3", "magnification 3"],
  ["magnification_1_laser", "magnification 1 + laser"], ["magnification_2_laser", "magnification 2 + laser"],
  ["magnification_3_laser", "magnification 3 + laser"],
];
const LEVELS = [["L", "L — light"], ["M", "M — moderate"], ["S", "S — serious"], ["D", "D — deadly"]];
// The locations of 004's Tables 6 and 10 (schemas/sr3hl.py, Location).
export const LOCATIONS = [
  "head", "vitals", "torso", "groin", "right_arm", "left_arm", "right_hand", "left_hand",
  "right_thigh", "left_thigh", "right_leg", "left_leg", "right_foot", "left_foot",
];
// The columns of 004's Table 7 (schemas/sr3hl.py, Garment) and its rows (ArmorRow).
export const GARMENTS = [
  "clothing", "jacket", "long_coat", "vest", "flak_vest", "leathers", "synth_leathers", "helmet",
  "partial_suit", "full_suit", "form_fitting_1", "form_fitting_2", "form_fitting_3",
];
export const ARMOR_ROWS = ["head", "torso", "vitals", "groin", "arms", "thighs", "legs", "hands_feet"];
const MODE_NAMES = {
  SS: "SS — single shot (complex)", SA: "SA — semi-automatic (simple)",
  BF: "BF — burst fire, a round per die tier (simple)", FA: "FA — full auto, a round per die tier (complex)",
};
// Not a firing mode of the wire: the form's way to ask for `suppression` (sent as full auto).
const SUPPRESSION = "suppression";
const ID = "[A-Za-z0-9_.:\\-]{1,64}";

// "jacket, helmet, plate 6/4 torso vitals": Table 7 garments by name, or custom pieces (a name,
// ballistic/impact, and the Table 7 rows they cover).
export function parseArmor(text) {
  return text.split(/[,;]/).map((part) => part.trim()).filter(Boolean).map((part) => {
    const garment = part.toLowerCase().replaceAll(" ", "_").replaceAll("-", "_");
    if (GARMENTS.includes(garment)) return { garment };
    const match = /^(.*?)\s*(\d+)\s*\/\s*(\d+)\s+([a-z_ ]+)$/i.exec(part);
    if (!match) {
      throw new Error(`"${part}" is neither a Table 7 garment (${GARMENTS.join(", ")}) nor "name ballistic/impact rows" (e.g. "plate 6/4 torso vitals")`);
    }
    const rows = match[4].trim().split(/\s+/);
    const bad = rows.find((row) => !ARMOR_ROWS.includes(row));
    if (bad) throw new Error(`"${bad}" is not a Table 7 row (${ARMOR_ROWS.join(", ")})`);
    const rating = { ballistic: Number(match[2]), impact: Number(match[3]) };
    return { name: match[1].trim(), covers: Object.fromEntries(rows.map((row) => [row, rating])) };
  });
}

export function armorName(piece) {
  return piece.garment ? words(piece.garment) : piece.name || "custom piece";
}

export const formatArmor = (pieces) => pieces.map((piece) => {
  if (piece.garment && !Object.keys(piece.covers || {}).length) return piece.garment;
  const rows = Object.entries(piece.covers || {});
  const first = rows[0]?.[1] || { ballistic: 0, impact: 0 };
  return `${piece.name || piece.garment || "custom"} ${first.ballistic}/${first.impact} ${rows.map(([row]) => row).join(" ")}`;
}).join(", ");

// "0 0; 10 0; 10 6; 0 6": the corners of the suppressed area, metres on the scene plane.
export function parsePoints(text) {
  const points = text.split(/;/).map((part) => part.trim()).filter(Boolean).map((part) => {
    const numbers = part.split(/[\s,]+/).filter(Boolean).map(Number);
    if (numbers.length !== 2 || numbers.some((n) => !Number.isFinite(n))) throw new Error(`"${part}" is not "x y"`);
    return { x: numbers[0], y: numbers[1] };
  });
  if (points.length < 3) throw new Error("an area needs at least 3 corners (click them on the map)");
  if (points.length > 16) throw new Error("an area has at most 16 corners");
  return points;
}

export const formatPoints = (points) => points.map((p) => `${p.x} ${p.y}`).join("; ");

const armorSpec = (key, value) => ({
  key, label: "Armour worn (Table 7 garments, or name b/i rows)", type: "text", optional: true, value,
  parse: parseArmor, format: formatArmor, placeholder: "jacket, helmet, plate 6/4 torso vitals",
  help: "Per location (004, Table 7): layered where pieces overlap; once hit, the service keeps it and its wear.",
});
const attribute = (key, label, value) => ({ key, label, type: "int", min: 1, max: 30, optional: true, value });
const pool = (key, label, value = 0) => ({ key, label, type: "int", min: 0, max: 100, value });

// The defender as a target and as one testing against a zone (schemas/sr3hl.py, HLDefender).
const DEFENDER = [
  { key: "defender.body", label: "Body", type: "int", min: 1, max: 30, value: 4 },
  attribute("defender.willpower", "Willpower", 4),
  attribute("defender.quickness", "Quickness", 4),
  attribute("defender.intelligence", "Intelligence", 4),
  { key: "defender.combat_pool", label: "Combat Pool size", type: "int", min: 0, max: 100, optional: true },
  { key: "defender.dodge_skill", label: "Dodge skill (its Dodge Pool)", type: "int", min: 0, max: 30, optional: true },
  armorSpec("defender.armor", "jacket"),
  { key: "defender.dermal_armor", label: "Dermal armour (dice)", type: "int", min: 0, max: 30, value: 0 },
  { key: "defender.bone_lacing.ballistic", label: "Bone lacing ballistic", type: "int", min: 0, max: 30, optional: true },
  { key: "defender.bone_lacing.impact", label: "Bone lacing impact", type: "int", min: 0, max: 30, optional: true },
];
// 004, "Resolve Dodge Test" and Table 8.
const DODGE = [
  pool("dodge.combat_pool", "Combat Pool dice to dodge"),
  pool("dodge.dodge_pool", "Dodge Pool dice to dodge"),
  { key: "dodge.into_cover_m", label: "Dodges into cover this far (m)", type: "number", min: 0, max: 100, optional: true },
  { key: "dodge.prone", label: "Dodges prone", type: "checkbox" },
  // Table 8: how well the dodger sees the attacker (half the visibility table's modifier).
  { key: "dodge.visibility.vision", label: "Dodger's vision", type: "select", options: ["normal", "low_light_natural", "low_light_cyber", "thermographic_natural", "thermographic_cyber", "ultrasound"] },
  { key: "dodge.visibility.light", label: "Light where the attacker is", type: "select", options: ["full", "partial", "minimal", "full_darkness", "glare"] },
  { key: "dodge.visibility.obscurant", label: "In the air between them", type: "select", options: ["none", "mist", "light_smoke", "heavy_smoke", "thermal_smoke"] },
  pool("resist", "Combat Pool dice to Body (stun)"),
];

const dodges = (fields) => (fields?.dodge?.combat_pool || 0) + (fields?.dodge?.dodge_pool || 0) > 0;
const laced = (defender) => Boolean(defender?.bone_lacing?.ballistic || defender?.bone_lacing?.impact);

// docs/rulesets/sr3-hardlife.md, "Dice steps": what hits a target rolls, in order.
function targetSteps(id, fields) {
  const steps = [];
  if (dodges(fields)) steps.push({ step: `dodge:${id}`, sides: 6 });
  steps.push({ step: `scatter:${id}`, sides: 6 }, { step: `armor:${id}`, sides: 6 });
  if (laced(fields?.defender)) steps.push({ step: `lacing:${id}`, sides: 6 });
  steps.push({ step: `damage:${id}`, sides: 6 }, { step: `stun:${id}`, sides: 6 }, { step: `recovery:${id}`, sides: 6 });
  return steps;
}

// Set from GET /v1/rulesets/sr3-hardlife when an encounter of this ruleset is joined.
let bodyMap = null;

export default {
  id: "sr3-hardlife",
  // The body map comes from the service (main.js asks for it before the form is built).
  async loadDetail(detail) {
    bodyMap = detail?.body_map || null;
  },
  get bodyMap() {
    return bodyMap;
  },
  attacker: [
    { key: "id", label: "Attacker id", type: "text", value: "sam", pattern: ID },
    { key: "skill", label: "Weapon skill", type: "int", min: 0, max: 30, value: 4 },
    { key: "pool", label: "Combat Pool dice added", type: "int", min: 0, max: 100, value: 0, help: "At most the skill; the service keeps what is left this combat turn." },
    { key: "sight", label: "Sight", type: "select", options: SIGHTS },
    attribute("quickness", "Quickness", 5),
    attribute("intelligence", "Intelligence", 4),
    attribute("willpower", "Willpower", 3),
    attribute("strength", "Strength (bows, thrown)"),
    { key: "combat_pool", label: "Combat Pool size", type: "int", min: 0, max: 100, optional: true, help: "Empty: (Quickness + Intelligence + Willpower) / 2." },
    armorSpec("armor"),
    { key: "rounds", label: "Rounds fired (BF, FA)", type: "int", min: 1, max: 10, optional: true, help: "Empty: the mode's (BF 3, FA 10)." },
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
    { key: "ammo_kind", label: "Ammunition", type: "select", options: [["standard", "standard"], ["armor_piercing", "armour-piercing"], ["gel", "gel"]] },
    { key: "armor", label: "Armour it meets", type: "select", options: [["", "by its category"], "ballistic", "impact"], optional: true },
    { key: "area_effect", label: "Area effect (every location alike)", type: "checkbox" },
  ],
  target: [...DEFENDER, ...DODGE,
    { key: "cover", label: "Cover", type: "select", options: ["none", "partial", "good", "full"] },
    { key: "movement", label: "Target moving", type: "select", options: ["walking", "stationary", "running"] },
  ],
  sheet: [
    attribute("body", "Body"),
    attribute("quickness", "Quickness"),
    attribute("strength", "Strength"),
    attribute("intelligence", "Intelligence"),
    attribute("willpower", "Willpower"),
    attribute("reaction", "Reaction"),
    { key: "initiative_dice", label: "Initiative dice", type: "int", min: 1, max: 5, optional: true },
    { key: "skill", label: "Weapon skill", type: "int", min: 0, max: 30, optional: true },
    { key: "combat_pool", label: "Combat Pool size", type: "int", min: 0, max: 100, optional: true },
    { key: "dodge_skill", label: "Dodge skill", type: "int", min: 0, max: 30, optional: true },
    armorSpec("armor"),
    { key: "dermal_armor", label: "Dermal armour (dice)", type: "int", min: 0, max: 30, value: 0 },
  ],
  targetDefaults: { prefix: "goon" },
  options: [
    { key: "called_shot", label: "Called shot at", type: "select", options: [["", "none: the default aim point (torso)"], ...LOCATIONS.map((l) => [l, words(l)])], optional: true },
    { key: "suppression.bullets_per_m2", label: "Bullets per square metre", type: "int", min: 1, max: 50, value: 1, zoneOnly: true },
    {
      key: "suppression.area", label: "Suppressed area (corners x y; …, m)", type: "text", zoneOnly: true,
      parse: parsePoints, placeholder: "10 -3; 16 -3; 16 3; 10 3",
      help: "Click the corners on the map, or type them.",
    },
    { key: "movement", label: "Attacker moving", type: "select", options: [["stationary", "stationary"], ["walking", "walking"], ["walking_difficult", "walking, difficult ground"], ["running", "running"], ["running_difficult", "running, difficult ground"]] },
    { key: "melee_opponents", label: "Melee opponents of the attacker", type: "int", min: 0, max: 20, value: 0 },
    { key: "blind_fire", label: "Blind fire", type: "checkbox" },
    { key: "second_firearm", label: "A firearm in each hand (this is one)", type: "checkbox" },
    { key: "indirect", label: "Indirect fire (launch weapons)", type: "checkbox" },
    { key: "visibility.vision", label: "Attacker's vision", type: "select", options: ["normal", "low_light_natural", "low_light_cyber", "thermographic_natural", "thermographic_cyber", "ultrasound"] },
    { key: "visibility.light", label: "Light", type: "select", options: ["full", "partial", "minimal", "full_darkness", "glare"] },
    { key: "visibility.obscurant", label: "In the air", type: "select", options: ["none", "mist", "light_smoke", "heavy_smoke", "thermal_smoke"] },
  ],

  modes(info) {
    const modes = (info?.firing_modes || Object.keys(MODE_NAMES)).map((mode) => [mode, MODE_NAMES[mode] || mode]);
    return [...modes, [SUPPRESSION, "suppression fire over an area (004)"]];
  },
  defaultMode: "SA",
  isZoneMode: (mode) => mode === SUPPRESSION,
  // The zone is an area clicked on the map, not an aim point.
  zoneArea: true,
  zoneHelp: "Suppression fire (004): click the area's corners on the map; whoever enters it or moves in it takes its attack (a move asks for the zone test).",
  // A move that lands in a zone opens its test (the move's answer says which: `must_test`).
  testsOnMove: true,
  hasMonitors: true,

  // The body-map picker beside the called-shot select: a hex picks its location.
  extend(fields, form) {
    const select = fields.querySelector("#option-called_shot");
    if (!select || !bodyMap) return;
    const holder = el("div", { class: "field body-map-picker", id: "called-shot-map" },
      el("p", { class: "help", text: "Or pick it on the body map (the figure faces you: its right arm is on your left):" }));
    const redraw = () => {
      holder.querySelector("svg")?.remove();
      holder.appendChild(drawBodyMap(bodyMap, {
        picked: select.value || null,
        label: "Called shot on the body map",
        onPick: (location) => {
          select.value = select.value === location ? "" : location;
          select.dispatchEvent(new Event("change", { bubbles: true }));
          redraw();
          holder.querySelector(`[data-location="${location}"]`)?.focus();
        },
      }));
    };
    select.addEventListener("change", redraw);
    // Beside the firing mode, not under "More options": where the shot goes is the shot.
    const field = select.closest(".field");
    (fields.querySelector("#mode-fieldset") || field.parentElement).append(field, holder);
    // Suppression fire aims at an area, not at a location.
    const showForMode = () => {
      field.hidden = holder.hidden = Boolean(form?.zoneMode);
    };
    form?.modeSelect?.addEventListener("change", showForMode);
    showForMode();
    redraw();
  },

  request({ attacker, weapon, mode, options, targets }) {
    const { pool: poolDice, sight, rounds, ...shooter } = attacker;
    const { called_shot: called, suppression, ...rest } = options;
    const zone = mode === SUPPRESSION;
    const modes = weapon.modes || [];
    const body = { ruleset: "sr3-hardlife", attacker: shooter, weapon, mode: zone ? (modes.includes("FA") ? "FA" : modes.at(-1) || "FA") : mode, ...rest };
    if (poolDice) body.pool = poolDice;
    if (sight && sight !== "standard") body.sight = sight;
    if ((body.mode === "FA" || body.mode === "BF") && rounds) body.rounds = rounds;
    if (zone) {
      if (!suppression?.area) throw new Error("Suppression fire: click at least 3 corners of the area on the map");
      body.suppression = suppression;
      return body;
    }
    if (targets.length !== 1) {
      throw new Error("Hard Life fires each shot or burst at one target: keep one");
    }
    if (called) body.called_shot = called;
    const [t] = targets;
    body.target = { id: t.id, distance_m: t.distance_m, ...t.fields };
    return body;
  },

  diceSteps({ mode, targetIds, targets }) {
    if (mode === SUPPRESSION) return [];
    const steps = [{ step: "attack", sides: 6 }];
    for (const id of targetIds) steps.push(...targetSteps(id, targets.find((t) => t.id === id)?.fields));
    return steps;
  },

  hasPasses: true,
  // 004, "Resolve Recovery Roll" and the consciousness test: Willpower, the sheet's when empty.
  actions: {
    recovery_roll: [attribute("willpower", "Willpower (empty: the sheet's)")],
    consciousness_test: [attribute("willpower", "Willpower (empty: the sheet's)")],
  },
  actionHelp: {
    take_aim: "One simple action of aiming: -1 TN on the next shot (SR3).",
    recovery_roll: "004: Willpower against 2 + injury modifier; failed, the next action phase is lost again.",
    consciousness_test: "004: at deadly, Willpower against 3 + injury modifier: how many phases it still acts this combat turn.",
  },
  actionRequest({ actor, action, fields }) {
    return { ruleset: "sr3-hardlife", actor, action, ...fields };
  },

  // 004, Tables 9 and 10: whoever enters or moves in the area.
  zoneTest: [...DEFENDER, ...DODGE.map((spec) => ({ ...spec })),
    { key: "cover", label: "Cover (Table 9)", type: "select", options: ["none", "partial", "good"] },
  ],
  zoneTestRequest({ actor, fields, position, shooterAt }) {
    const body = { ruleset: "sr3-hardlife", actor, ...fields };
    if (position && shooterAt) body.distance_m = Math.round(Math.hypot(position.x - shooterAt.x, position.y - shooterAt.y) * 10) / 10;
    return body;
  },
  zoneTestSteps({ actor, fields }) {
    return [
      { step: `suppression:${actor}`, sides: 6 }, { step: `location:${actor}`, sides: 6 },
      { step: `accuracy:${actor}`, sides: 6 }, ...targetSteps(actor, fields),
    ];
  },

  kinds: ["sr3_hardlife_attack", "sr3_hardlife_zone_test"],

  summary(result) {
    if (result.kind === "sr3_hardlife_zone_test") {
      return `${result.actor} in ${result.zone}: ${result.attack.successes} rounds hit; ${targetSummary(result.target)}.`;
    }
    if (result.suppression) {
      const s = result.suppression;
      return `${result.attacker} suppresses ${s.zone.id}: ${s.bullets_per_m2} bullets per m² over ${s.area_m2} m², ${result.rounds_fired} rounds.`;
    }
    return `${result.attacker} fires ${result.weapon} (${result.mode}, TN ${result.attack?.target_number ?? "—"}): ${targetSummary(result.target)}.`;
  },

  render(result) {
    if (result.kind === "sr3_hardlife_zone_test") return renderZoneTest(result);
    const article = el("article", { class: "result sr3hl", dataKind: result.kind },
      el("h3", { text: `${result.attacker} fires ${result.weapon} — ${result.mode}, ${result.action} action` }));
    article.appendChild(facts([
      ["Target number", result.attack?.target_number, "target_number"],
      ["Successes", result.attack?.successes, "successes"],
      ["Rounds fired", result.rounds_fired, "rounds_fired"],
      ["Ammo left", result.ammo_left, "ammo_left"],
    ], "facts headline"));
    if (result.attack) article.appendChild(renderTest("attack", "The attack", result.attack));
    if (result.suppression) article.appendChild(renderSuppression(result.suppression));
    if (result.target) article.appendChild(renderTarget(result.target));
    article.appendChild(renderPools(result.combat_pool));
    article.appendChild(diceSection(result.dice));
    return article;
  },
};

function targetSummary(t) {
  if (!t) return "no target";
  const wounds = t.hits.flatMap((h) => h.wounds.filter((w) => w.level && w.monitor !== "trauma").map((w) => `${words(w.monitor)} ${w.level}${w.track === "stun" ? " stun" : ""}`));
  const knock = t.knock_back === "knocked_down" ? ", knocked down" : t.knock_back === "knocked_back" ? `, knocked back ${t.knock_back_m} m` : "";
  const recovery = t.recovery ? (t.recovery.passed ? ", recovers" : ", loses the next action") : "";
  return `${t.target} ${t.outcome}${wounds.length ? ` (${wounds.join(", ")})` : ""}${knock}${recovery}`;
}

function renderSuppression(s) {
  return el("section", { class: "zone-result", dataZone: s.zone.id, "aria-label": `Suppression zone ${s.zone.id}` },
    el("h4", { text: `${s.zone.id}: suppression fire` }),
    facts([
      ["Bullets per square metre", s.bullets_per_m2, "bullets_per_m2"],
      ["Area (m²)", s.area_m2, "area_m2"],
      ["Corners", s.zone.points.map((p) => `(${p.x}, ${p.y})`).join(" "), "points"],
      ["Lasts", s.zone.lasts, "lasts"],
    ]));
}

function knockBackText(kind, metres) {
  if (kind === "knocked_down") return "knocked down";
  if (kind === "knocked_back") return `knocked back ${metres} m`;
  return "none";
}

function renderTarget(t) {
  const article = el("article", { class: "target", dataTarget: t.target },
    el("h4", {}, `${t.target}: `, outcomeBadge(t.outcome)));
  article.appendChild(facts([
    ["Range", t.range, "range"],
    ["Aimed at", words(t.aim), "aim"],
    ["Attack successes", t.attack_successes, "attack_successes"],
    ["Dodge successes", t.dodge ? t.dodge_successes : "not rolled", "dodge_successes"],
    ["Net successes", t.net_successes, "net_successes"],
    ["Knock-back", knockBackText(t.knock_back, t.knock_back_m), "knock_back"],
  ]));
  if (t.dodge) article.appendChild(renderTest("dodge", "The dodge", t.dodge));
  article.appendChild(renderRounds(t));
  for (const hit of t.hits) article.appendChild(renderLocationHit(t.target, hit));
  if (t.recovery) article.appendChild(renderRecovery(t.recovery));
  article.appendChild(renderCondition(t.condition));
  return article;
}

// Where each round went: the body map with its paths, and the same as a table.
function renderRounds(t) {
  const section = el("section", { class: "rounds", "aria-label": `Where the rounds at ${t.target} went` },
    el("h5", { text: "Where the rounds went" }));
  const hits = new Map();
  for (const r of t.rounds) {
    if (r.location) hits.set(r.location, [...(hits.get(r.location) || []), r.round]);
  }
  if (bodyMap) {
    const description = t.rounds.map((r) => `round ${r.round}: ${r.location ? words(r.location) : r.outcome}`).join("; ");
    section.appendChild(drawBodyMap(bodyMap, { hits, rounds: t.rounds, label: `Body map of ${t.target}: ${description || "no rounds"}` }));
  }
  const table = el("table", { class: "modifiers rounds-table", dataField: "rounds" },
    el("caption", { text: "Each round: its TN, successes, scatter and where it landed" }),
    el("thead", {}, el("tr", {}, ["Round", "TN", "Successes", "Scatter", "Landed", "Outcome"].map((h) => el("th", { scope: "col", text: h })))));
  const body = el("tbody");
  for (const r of t.rounds) {
    const s = r.scatter;
    const scatter = !s ? "—" : s.hexes ? `${s.hexes} hex${s.hexes === 1 ? "" : "es"} in direction ${s.direction}` : "none";
    const landed = s ? `${s.location ? words(s.location) : "off the body"} (${s.landed.q}, ${s.landed.r})` : r.location ? words(r.location) : "—";
    body.appendChild(el("tr", { dataRound: r.round },
      el("th", { scope: "row", text: String(r.round) }),
      el("td", { class: "num", dataField: "target_number", text: String(r.target_number) }),
      el("td", { class: "num", dataField: "successes", text: String(r.successes) }),
      el("td", { dataField: "scatter", text: scatter }),
      el("td", { dataField: "landed", dataLocation: r.location || "", text: landed }),
      el("td", {}, outcomeBadge(r.outcome))));
  }
  table.appendChild(body);
  section.appendChild(table);
  return section;
}

function cell(value, field) {
  return el("td", { class: "num", dataField: field, text: value === null || value === undefined ? "—" : String(value) });
}

function table(caption, field, headings, rows) {
  return el("table", { class: "modifiers", dataField: field },
    el("caption", { text: caption }),
    el("thead", {}, el("tr", {}, headings.map((h) => el("th", { scope: "col", text: h })))),
    el("tbody", {}, rows));
}

function renderLocationHit(who, hit) {
  const section = el("section", { class: "location-hit", dataLocation: hit.location, "aria-label": `${who}: the ${words(hit.location)}` },
    el("h5", { text: `${words(hit.location)} — round${hit.rounds.length === 1 ? "" : "s"} ${hit.rounds.join(", ")}` }));
  if (hit.armor.length) {
    section.appendChild(table("The armour (004, Determine Armour Resistance)", "armor-tests",
      ["Rounds", "Armour", "Rating", "Dermal dice", "TN", "Totals", "Successes", "Lacing successes", "Soak number", "Stopped", "Worn off", "Rating left"],
      hit.armor.map((a, index) => el("tr", { dataArmorTest: index },
        el("th", { scope: "row", text: a.rounds.join(", ") }),
        el("td", { dataField: "armor", text: `${a.armor}${a.armor_piercing ? " (AP rounds)" : ""}` }),
        cell(a.rating, "rating"), cell(a.dermal_dice, "dermal_dice"), cell(a.test.target_number, "target_number"),
        el("td", { dataField: "totals", text: a.test.totals.join(", ") || "—" }),
        cell(a.test.successes, "successes"), cell(a.lacing ? a.lacing.successes : null, "lacing"),
        cell(a.soak, "soak"), el("td", { dataField: "stopped", text: a.stopped ? "stopped" : "penetrated" }),
        cell(a.degraded, "degraded"), cell(a.rating_after, "rating_after")))));
  }
  if (hit.damage.length) {
    section.appendChild(table("The damage tests (004, Damage Test)", "damage-tests",
      ["Round", "Dice", "Table 3", "Totals", "Successes", "Ones", "Sixes", "Armour successes", "Net", "Stages", "Level", "Past deadly"],
      hit.damage.map((d) => el("tr", { dataRound: d.round },
        el("th", { scope: "row", text: String(d.round) }),
        cell(d.dice, "dice"), el("td", { class: "num", dataField: "accuracy", text: signed(d.accuracy.value), title: d.accuracy.source }),
        el("td", { dataField: "totals", text: d.totals.join(", ") || "—" }),
        cell(d.successes, "successes"), cell(d.ones, "ones"), cell(d.sixes, "sixes"), cell(d.armor_successes, "armor_successes"),
        cell(d.net, "net"), el("td", { class: "num", dataField: "stages", text: signed(d.stages) }),
        cell(d.level, "level"), cell(d.overflow || null, "overflow")))));
  }
  if (hit.stun) section.appendChild(renderStun(hit.stun));
  if (hit.wounds.length) {
    section.appendChild(table("The wounds (each monitor)", "wounds",
      ["Monitor", "Track", "Table 6 / shift", "Level", "Boxes", "Boxes now", "Level now"],
      hit.wounds.map((w) => el("tr", { dataMonitor: w.monitor, dataTrack: w.track },
        el("th", { scope: "row", text: words(w.monitor) }),
        el("td", { dataField: "track", text: w.track }),
        el("td", { class: "num", dataField: "modifier", text: signed(w.modifier) }),
        cell(w.level, "level"), cell(w.boxes, "boxes"), cell(w.boxes_now, "boxes_now"), cell(w.level_now, "level_now")))));
  }
  return section;
}

function renderStun(s) {
  const section = el("section", { class: "stun", "aria-label": "Stun and knock-back" },
    el("h6", { text: "Stun and knock-back (004, Table 4)" }),
    facts([
      ["Power, base level", line([s.power, "stun_power"], [s.base_level, "stun_base_level"])],
      ["Stun taken", s.level || "none (staged away)", "stun_level"],
      ["Knock-back", knockBackText(s.knock_back, s.metres), "stun_knock_back"],
    ]));
  section.appendChild(renderTest("stun", "Body against the stun", s.resist));
  return section;
}

function renderRecovery(r) {
  const section = el("section", { class: "recovery", "aria-label": "The recovery roll" },
    el("h5", { text: "The recovery roll (004, Table 5)" }),
    facts([
      ["Level sustained", r.level, "recovery_level"],
      ["Successes needed", r.needed, "recovery_needed"],
      ["Outcome", r.passed ? "passed" : "failed: loses the next action phase and rolls again", "recovery_passed"],
    ]));
  section.appendChild(renderTest("recovery", "Willpower (recovery)", r.test));
  return section;
}

export function conditionText(c) {
  const parts = [`TN modifier ${signed(c.target_number_modifier || 0)}`, `initiative modifier ${signed(c.initiative_modifier || 0)}`];
  if (c.dead) parts.push("dead");
  else if (c.deadly) parts.push("deadly: consciousness test due");
  if (c.disabled?.length) parts.push(`not working: ${c.disabled.map(words).join(", ")}`);
  if (c.crippled?.length) parts.push(`crippled: ${c.crippled.map(words).join(", ")}`);
  return parts.join("; ");
}

function renderCondition(c) {
  return el("p", { class: "condition", dataField: "condition" }, "Condition after the attack: ", conditionText(c), ".");
}

function renderZoneTest(result) {
  const article = el("article", { class: "result sr3hl zone-test", dataKind: result.kind, dataActor: result.actor },
    el("h3", { text: `${result.actor} in ${result.zone}: the zone's attack (004, Tables 9 and 10)` }));
  article.appendChild(facts([
    ["Rounds that hit", result.attack.successes, "successes"],
    ["Target number", result.attack.target_number, "target_number"],
  ], "facts headline"));
  article.appendChild(renderTest("attack", "The zone's attack", result.attack));
  article.appendChild(renderTarget(result.target));
  article.appendChild(renderPools(result.combat_pool));
  article.appendChild(diceSection(result.dice));
  return article;
}


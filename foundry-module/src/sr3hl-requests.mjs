// Hard Life attack bodies for the service (schemas/sr3hl.py, HLAttackRequest, ruleset
// "sr3-hardlife"): the manual form's numbers (no Foundry system keeps Hard Life's sheet), the one
// target with its measured distance and its Table 8 dodge, the called shot at a location of the
// body map, and suppression fire over an area. Plain data in, plain JSON out: no Foundry here.

import { RequestError, choice, integer, serviceId } from "./request-common.mjs";
import { SR3_CATEGORIES, SR3_COVER, SR3_LEVELS, SR3_MODES, SR3_MOVEMENT, SR3_SIGHTS, SR3_TARGET_MOVEMENT, SR3_VISIBILITY } from "./sr3-requests.mjs";

export const HL_RULESET = "sr3-hardlife";
// The locations of 004's Tables 6 and 10 (schemas/sr3hl.py, Location).
export const HL_LOCATIONS = [
  "head", "vitals", "torso", "groin", "right_arm", "left_arm", "right_hand", "left_hand",
  "right_thigh", "left_thigh", "right_leg", "left_leg", "right_foot", "left_foot",
];
// The columns of 004's Table 7 (Garment) and its rows (ArmorRow).
export const HL_GARMENTS = [
  "clothing", "jacket", "long_coat", "vest", "flak_vest", "leathers", "synth_leathers", "helmet",
  "partial_suit", "full_suit", "form_fitting_1", "form_fitting_2", "form_fitting_3",
];
export const HL_ARMOR_ROWS = ["head", "torso", "vitals", "groin", "arms", "thighs", "legs", "hands_feet"];
export const HL_AMMO = ["standard", "armor_piercing", "gel"];

function optionalInteger(value, min) {
  if (value === undefined || value === null || String(value).trim() === "") return null;
  const n = Number(value);
  return Number.isFinite(n) ? Math.max(min, Math.round(n)) : null;
}

/**
 * "jacket, helmet, plate 6/4 torso vitals": Table 7 garments by name, or custom pieces (a name,
 * ballistic/impact and the Table 7 rows they cover).
 */
export function parseHlArmor(text) {
  return String(text ?? "").split(/[,;\n]+/).map((p) => p.trim()).filter(Boolean).map((part) => {
    const garment = part.toLowerCase().replace(/[\s-]+/g, "_");
    if (HL_GARMENTS.includes(garment)) return { garment };
    const match = /^(.*?)\s*(\d+)\s*\/\s*(\d+)\s+([a-z_ ]+)$/i.exec(part);
    const rows = match ? match[4].trim().toLowerCase().split(/\s+/) : [];
    if (!match || rows.some((row) => !HL_ARMOR_ROWS.includes(row))) {
      throw new RequestError(`"${part}": write a Table 7 garment, or a name, ballistic/impact and the rows it covers`, "$.armor", "hlArmorPiece", { part });
    }
    const rating = { ballistic: Number(match[2]), impact: Number(match[3]) };
    return { name: match[1].trim().slice(0, 100), covers: Object.fromEntries(rows.map((row) => [row, rating])) };
  });
}

/** "10 -3; 16 -3; 16 3": the corners of a suppressed area in metres, or null when empty. */
export function parseArea(text) {
  const parts = String(text ?? "").split(";").map((p) => p.trim()).filter(Boolean);
  if (parts.length === 0) return null;
  const points = parts.map((part) => {
    const numbers = part.split(/[\s,]+/).filter(Boolean).map(Number);
    if (numbers.length !== 2 || numbers.some((n) => !Number.isFinite(n))) throw new RequestError(`"${part}": write a corner as x y (metres)`, "$.suppression.area", "hlAreaPoint", { part });
    return { x: numbers[0], y: numbers[1] };
  });
  if (points.length < 3 || points.length > 16) throw new RequestError("an area has 3 to 16 corners", "$.suppression.area", "hlArea");
  return points;
}

/** What the Hard Life manual form starts with: 004's Carter and his Heckler & Koch (9M). */
export const HL_MANUAL_DEFAULTS = {
  skill: 4, quickness: 5, intelligence: 4, willpower: 3, strength: 3, body: 4, combat_pool: "",
  dodge_skill: "", armor: "jacket", dermal_armor: 0, weapon_name: "HK 45", category: "heavy_pistol",
  power: 9, damage_level: "M", damage_type: "physical", modes: "SA", recoil_compensation: 0, ammo: 12,
  ammo_kind: "standard",
};

/** Hard Life attacker, weapon and defender from the manual form. */
export function hlFromManual(id, manual) {
  const pool = optionalInteger(manual.combat_pool, 0);
  const dodgeSkill = optionalInteger(manual.dodge_skill, 0);
  const attributes = {
    quickness: Math.max(1, integer(manual.quickness, 1)),
    intelligence: Math.max(1, integer(manual.intelligence, 1)),
    willpower: Math.max(1, integer(manual.willpower, 1)),
  };
  const armor = parseHlArmor(manual.armor);
  const dermal = Math.max(0, integer(manual.dermal_armor));
  return {
    attacker: {
      id,
      skill: Math.max(0, integer(manual.skill)),
      ...attributes,
      strength: Math.max(1, integer(manual.strength, 1)),
      ...(pool === null ? {} : { combat_pool: pool }),
      armor,
    },
    weapon: {
      id: manual.weapon_id || serviceId(manual.weapon_name || "weapon"),
      category: choice(manual.category, SR3_CATEGORIES, "heavy_pistol"),
      power: Math.max(0, integer(manual.power)),
      damage_level: choice(String(manual.damage_level ?? "").toUpperCase(), SR3_LEVELS, "M"),
      damage_type: manual.damage_type === "stun" ? "stun" : "physical",
      modes: String(manual.modes ?? "").toUpperCase().split(/[\s,/]+/).filter((m) => SR3_MODES.includes(m)),
      ammo: Math.max(0, integer(manual.ammo)),
      recoil_compensation: Math.max(0, integer(manual.recoil_compensation)),
      ammo_kind: choice(manual.ammo_kind, HL_AMMO, "standard"),
    },
    defender: {
      body: Math.max(1, integer(manual.body, 1)),
      ...attributes,
      ...(pool === null ? {} : { combat_pool: pool }),
      ...(dodgeSkill === null ? {} : { dodge_skill: dodgeSkill }),
      armor,
      ...(dermal ? { dermal_armor: dermal } : {}),
    },
  };
}

/**
 * A Hard Life attack body. `targets`: the dialog's, each {id, distance_m, defender, cover?,
 * movement?, dodge_combat?, dodge_pool?, into_cover_m?, prone?, resist?}: one, unless
 * `options.suppression` ({area, bullets_per_m2}) makes it suppression fire, which has none.
 * `options`: pool, sight, rounds, movement, melee_opponents, called_shot (a location),
 * blind_fire, second_firearm, indirect, visibility, dice.
 */
export function hlAttackRequest({ attacker, weapon, mode, targets = [], options = {} }) {
  if (!weapon.category) throw new RequestError("choose the weapon's category", "$.weapon.category", "category");
  if (!SR3_MODES.includes(mode) || !weapon.modes.includes(mode)) {
    throw new RequestError(`the weapon cannot fire ${mode} (it lists ${weapon.modes.join(", ") || "no mode"})`, "$.mode", "mode", { mode, modes: weapon.modes.join(", ") || "—" });
  }
  const body = { ruleset: HL_RULESET, attacker: { ...attacker, id: serviceId(attacker.id) }, weapon: { ...weapon, id: serviceId(weapon.id) }, mode };
  const suppression = options.suppression?.area ? options.suppression : null;
  if (suppression) {
    body.suppression = { area: suppression.area, bullets_per_m2: Math.min(50, Math.max(1, integer(suppression.bullets_per_m2, 1))) };
  } else {
    if (targets.length !== 1) throw new RequestError("Hard Life fires each attack at one target", "$.target", "hlOneTarget");
    const [t] = targets;
    const dodge = {
      combat_pool: Math.max(0, integer(t.dodge_combat)),
      dodge_pool: Math.max(0, integer(t.dodge_pool)),
    };
    const intoCover = Number(t.into_cover_m);
    if (t.into_cover_m !== undefined && t.into_cover_m !== null && String(t.into_cover_m).trim() !== "" && Number.isFinite(intoCover)) dodge.into_cover_m = Math.max(0, intoCover);
    if (t.prone) dodge.prone = true;
    body.target = {
      id: serviceId(t.id),
      distance_m: Math.max(0, Number(t.distance_m) || 0),
      defender: t.defender,
      cover: choice(t.cover, SR3_COVER, "none"),
      movement: choice(t.movement, SR3_TARGET_MOVEMENT, "walking"),
      dodge,
      resist: Math.max(0, integer(t.resist)),
    };
    if (options.called_shot) body.called_shot = choice(options.called_shot, HL_LOCATIONS, "torso");
  }
  const pool = Math.max(0, integer(options.pool));
  if (pool) body.pool = pool;
  if (options.sight && options.sight !== "standard") body.sight = choice(options.sight, SR3_SIGHTS, "standard");
  const rounds = optionalInteger(options.rounds, 1);
  if ((mode === "FA" || mode === "BF") && rounds !== null) body.rounds = Math.min(10, rounds);
  if (options.movement && options.movement !== "stationary") body.movement = choice(options.movement, SR3_MOVEMENT, "stationary");
  const melee = Math.max(0, integer(options.melee_opponents));
  if (melee) body.melee_opponents = melee;
  for (const flag of ["blind_fire", "second_firearm", "indirect"]) if (options[flag]) body[flag] = true;
  const visibility = {};
  for (const [field, allowed] of Object.entries(SR3_VISIBILITY)) {
    const value = options.visibility?.[field];
    if (value && value !== allowed[0]) visibility[field] = choice(value, allowed, allowed[0]);
  }
  if (Object.keys(visibility).length > 0) body.visibility = visibility;
  if (options.dice && Object.keys(options.dice).length > 0) body.dice = options.dice;
  return body;
}

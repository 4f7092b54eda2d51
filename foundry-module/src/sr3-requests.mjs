// Shadowrun 3 attack bodies for the service (schemas/sr3.py, SR3AttackRequest), from what the
// dialog gathered: the attacker, the weapon, the one target with its measured distance, and the
// table's choices; and the manual form's numbers for systems the module does not map. Plain data
// in, plain JSON out: no Foundry here.

import { RequestError, choice, integer, serviceId } from "./request-common.mjs";

export const SR3_MODES = ["SS", "SA", "BF", "FA"];
// The rows of 002's weapon range table (schemas/sr3.py, WeaponCategory).
export const SR3_CATEGORIES = [
  "hold_out_pistol", "light_pistol", "heavy_pistol", "smg", "taser", "shotgun", "sporting_rifle",
  "sniper_rifle", "assault_rifle", "light_machine_gun", "medium_machine_gun", "heavy_machine_gun",
  "assault_cannon", "grenade_launcher", "missile_launcher", "bow", "light_crossbow",
  "medium_crossbow", "heavy_crossbow", "thrown_knife", "shuriken",
];
// The rows of 002's ranged attack target numbers (schemas/sr3.py, Sight).
export const SR3_SIGHTS = [
  "standard", "laser_sight", "smart_goggles", "smartlink", "smartlink_2", "magnification_1",
  "magnification_2", "magnification_3", "magnification_1_laser", "magnification_2_laser", "magnification_3_laser",
];
export const SR3_LEVELS = ["L", "M", "S", "D"];
export const SR3_WOUNDS = ["none", ...SR3_LEVELS];
export const SR3_COVER = ["none", "partial", "good", "full"];
export const SR3_TARGET_MOVEMENT = ["walking", "stationary", "running"];
export const SR3_MOVEMENT = ["stationary", "walking", "walking_difficult", "running", "running_difficult"];
export const SR3_VISIBILITY = {
  vision: ["normal", "low_light_natural", "low_light_cyber", "thermographic_natural", "thermographic_cyber", "ultrasound"],
  light: ["full", "partial", "minimal", "full_darkness", "glare"],
  obscurant: ["none", "mist", "light_smoke", "heavy_smoke", "thermal_smoke"],
};

/** A number typed in, or null when left empty. */
function optionalInteger(value, min) {
  if (value === undefined || value === null || String(value).trim() === "") return null;
  const n = Number(value);
  return Number.isFinite(n) ? Math.max(min, Math.round(n)) : null;
}

/** "armor jacket 5/3, helmet 1/1" -> armour pieces {name, ballistic, impact}; empty text, none. */
export function parseArmor(text) {
  return String(text ?? "").split(/[,;\n]+/).map((p) => p.trim()).filter(Boolean).map((part) => {
    const match = /^(.*?)\s*(\d+)\s*\/\s*(\d+)$/.exec(part);
    if (!match) throw new RequestError(`"${part}": write armour as a name and ballistic/impact`, "$.armor", "armorPiece", { part });
    return { name: match[1].trim().slice(0, 100), ballistic: Number(match[2]), impact: Number(match[3]) };
  });
}

export const formatArmor = (pieces) => (pieces ?? []).map((p) => `${p.name ? `${p.name} ` : ""}${p.ballistic}/${p.impact}`).join(", ");

/** What the SR3 manual form starts with, before anything was typed for an actor. */
export const SR3_MANUAL_DEFAULTS = {
  skill: 4, quickness: 5, intelligence: 4, willpower: 3, strength: 3, body: 4, combat_pool: "",
  wounds: "none", armor: "armor jacket 5/3", weapon_name: "Predator", category: "heavy_pistol",
  power: 9, damage_level: "M", damage_type: "physical", modes: "SA", recoil_compensation: 0, ammo: 15,
};

/** The Combat Pool's size typed in, or none (the service counts (Q + I + W) / 2). */
function combatPool(value) {
  return optionalInteger(value, 0);
}

/** SR3 attacker, weapon and defender from the manual form (for systems the module does not map). */
export function sr3FromManual(id, manual) {
  const pool = combatPool(manual.combat_pool);
  const attributes = {
    quickness: Math.max(1, integer(manual.quickness, 1)),
    intelligence: Math.max(1, integer(manual.intelligence, 1)),
    willpower: Math.max(1, integer(manual.willpower, 1)),
  };
  const armor = parseArmor(manual.armor);
  return {
    attacker: {
      id,
      skill: Math.max(0, integer(manual.skill)),
      ...attributes,
      strength: Math.max(1, integer(manual.strength, 1)),
      ...(pool === null ? {} : { combat_pool: pool }),
      armor,
      wounds: choice(manual.wounds, SR3_WOUNDS, "none"),
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
    },
    defender: {
      body: Math.max(1, integer(manual.body, 1)),
      ...attributes,
      ...(pool === null ? {} : { combat_pool: pool }),
      armor,
    },
  };
}

/**
 * An SR3 attack body. `attacker`, `weapon` are SR3Attacker / SR3Weapon; `targets` the dialog's,
 * each {id, distance_m, defender, cover?, movement?, dodge?, resist?}: SR3 fires each shot or
 * burst at one target, so there must be one. `options`: pool, sight, rounds, movement,
 * melee_opponents, called_shot, blind_fire, second_firearm, indirect, visibility, dice.
 */
export function sr3AttackRequest({ attacker, weapon, mode, targets = [], options = {} }) {
  if (!weapon.category) throw new RequestError("choose the weapon's category", "$.weapon.category", "category");
  if (!SR3_MODES.includes(mode) || !weapon.modes.includes(mode)) {
    throw new RequestError(`the weapon cannot fire ${mode} (it lists ${weapon.modes.join(", ") || "no mode"})`, "$.mode", "mode", { mode, modes: weapon.modes.join(", ") || "—" });
  }
  if (targets.length !== 1) throw new RequestError("SR3 fires each attack at one target", "$.target", "oneTarget");
  const [t] = targets;
  const body = {
    ruleset: "sr3",
    attacker: { ...attacker, id: serviceId(attacker.id) },
    weapon: { ...weapon, id: serviceId(weapon.id) },
    mode,
    target: {
      id: serviceId(t.id),
      distance_m: Math.max(0, Number(t.distance_m) || 0),
      defender: t.defender,
      cover: choice(t.cover, SR3_COVER, "none"),
      movement: choice(t.movement, SR3_TARGET_MOVEMENT, "walking"),
      dodge: Math.max(0, integer(t.dodge)),
      resist: Math.max(0, integer(t.resist)),
    },
  };
  const pool = Math.max(0, integer(options.pool));
  if (pool) body.pool = pool;
  if (options.sight && options.sight !== "standard") body.sight = choice(options.sight, SR3_SIGHTS, "standard");
  const rounds = optionalInteger(options.rounds, 1);
  if (mode === "FA" && rounds !== null) body.rounds = Math.min(10, rounds);
  if (options.movement && options.movement !== "stationary") body.movement = choice(options.movement, SR3_MOVEMENT, "stationary");
  const melee = Math.max(0, integer(options.melee_opponents));
  if (melee) body.melee_opponents = melee;
  for (const flag of ["called_shot", "blind_fire", "second_firearm", "indirect"]) if (options[flag]) body[flag] = true;
  const visibility = {};
  for (const [field, allowed] of Object.entries(SR3_VISIBILITY)) {
    const value = options.visibility?.[field];
    if (value && value !== allowed[0]) visibility[field] = choice(value, allowed, allowed[0]);
  }
  if (options.visibility?.melee) visibility.melee = true;
  if (Object.keys(visibility).length > 0) body.visibility = visibility;
  if (options.dice && Object.keys(options.dice).length > 0) body.dice = options.dice;
  return body;
}

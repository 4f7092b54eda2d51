// Shadowrun 4 attack bodies for the service (schemas/sr4.py, SR4AttackRequest), from what the
// dialog gathered: the attacker, the weapon, the targets with their measured distances, the
// table's choices and a grenade; and the manual form's numbers for systems the module does not
// map. Plain data in, plain JSON out: no Foundry here.

import { RequestError, choice, integer, serviceId } from "./request-common.mjs";

// What an attack fires (schemas/sr4.py FiringMode), and the weapon mode each needs (001,
// "Firearms": a short burst needs burst fire, a long or full burst and suppressive fire full auto).
export const SR4_MODES = ["SS", "SA", "BF", "LB", "FB", "suppressive"];
const MODE_NEEDS = { SS: "SS", SA: "SA", BF: "BF", LB: "FA", FB: "FA", suppressive: "FA" };
export const SR4_WEAPON_MODES = ["SS", "SA", "BF", "FA"];
export const SR4_CATEGORIES = [
  "hold_out_pistol", "light_pistol", "heavy_pistol", "smg", "taser", "shotgun", "sporting_rifle",
  "sniper_rifle", "assault_rifle", "light_machine_gun", "medium_machine_gun", "heavy_machine_gun",
  "assault_cannon", "grenade_launcher", "missile_launcher", "bow", "light_crossbow",
  "medium_crossbow", "heavy_crossbow", "thrown_knife", "shuriken", "standard_grenade", "aerodynamic_grenade",
];
export const SR4_COVER = ["none", "partial", "good"];
export const SR4_BURSTS = ["narrow", "wide"];
export const SR4_CHOKES = ["narrow", "medium", "wide"];
export const SR4_AMMO = ["regular", "apds", "explosive", "flechette", "gel", "hollow_point"];
export const SR4_VISIBILITY = {
  vision: ["normal", "low_light", "thermographic", "ultrasound"],
  light: ["full", "partial", "full_darkness"],
  obscurant: ["none", "mist", "light_fog", "light_rain", "light_smoke", "heavy_fog", "heavy_rain", "heavy_smoke", "thermal_smoke"],
};
export const SR4_GRENADES = ["fragmentation", "high_explosive", "flash_bang", "gas", "smoke", "thermal_smoke", "custom"];
export const SR4_DELIVERY = ["standard", "aerodynamic", "launcher"];
// The attacker's situation (schemas/sr4.py SR4AttackRequest's flags).
export const SR4_FLAGS = ["running", "in_melee", "from_moving_vehicle", "from_cover", "off_hand", "smartlink", "grazing", "confined"];

function optionalInteger(value) {
  if (value === undefined || value === null || String(value).trim() === "") return null;
  const n = Number(value);
  return Number.isFinite(n) ? Math.round(n) : null;
}

/** The firing modes a weapon with these listed modes can fire. */
export function sr4AvailableModes(weaponModes) {
  return SR4_MODES.filter((mode) => weaponModes.includes(MODE_NEEDS[mode]));
}

/** What the SR4 manual form starts with, before anything was typed for an actor. */
export const SR4_MANUAL_DEFAULTS = {
  agility: 4, skill: 4, strength: 3, intuition: 3, edge: 2, wound_modifier: 0,
  weapon_name: "Ares Predator", category: "heavy_pistol", damage: 5, damage_type: "P", ap: -1,
  rc: 0, gyro: 0, modes: "SA", ammo: 15,
  reaction: 3, body: 3, dodge: 0, ballistic_armor: 6, impact_armor: 4,
};

/** SR4 attacker, weapon and defender from the manual form (for systems the module does not map). */
export function sr4FromManual(id, manual) {
  return {
    attacker: {
      id,
      agility: Math.max(1, integer(manual.agility, 1)),
      skill: Math.max(0, integer(manual.skill)),
      strength: Math.max(1, integer(manual.strength, 1)),
      intuition: Math.max(1, integer(manual.intuition, 1)),
      edge: Math.max(0, integer(manual.edge)),
      wound_modifier: Math.min(0, integer(manual.wound_modifier)),
    },
    weapon: {
      id: manual.weapon_id || serviceId(manual.weapon_name || "weapon"),
      category: choice(manual.category, SR4_CATEGORIES, "heavy_pistol"),
      damage: Math.max(0, integer(manual.damage)),
      damage_type: String(manual.damage_type).toUpperCase() === "S" ? "S" : "P",
      ap: integer(manual.ap),
      rc: Math.max(0, integer(manual.rc)),
      gyro: Math.max(0, integer(manual.gyro)),
      modes: String(manual.modes ?? "").toUpperCase().split(/[\s,/]+/).filter((m) => SR4_WEAPON_MODES.includes(m)),
      ammo: Math.max(0, integer(manual.ammo)),
    },
    defender: {
      reaction: Math.max(1, integer(manual.reaction, 1)),
      body: Math.max(1, integer(manual.body, 1)),
      dodge: Math.max(0, integer(manual.dodge)),
      edge: Math.max(0, integer(manual.edge)),
      ballistic_armor: Math.max(0, integer(manual.ballistic_armor)),
      impact_armor: Math.max(0, integer(manual.impact_armor)),
    },
  };
}

/**
 * A grenade (schemas/sr4.py SR4Grenade) from the dialog: the type and delivery, airburst, and any
 * number of the table's row the table gives instead (left empty: the row's).
 */
export function sr4Grenade(options) {
  const grenade = {
    type: choice(options.type, SR4_GRENADES, "fragmentation"),
    delivery: choice(options.delivery, SR4_DELIVERY, "standard"),
  };
  if (options.airburst) grenade.airburst = true;
  for (const field of ["dv", "ap", "falloff_per_m", "scatter_dice"]) {
    const value = optionalInteger(options[field]);
    if (value !== null) grenade[field] = value;
  }
  const radius = Number(options.radius_m);
  if (String(options.radius_m ?? "").trim() !== "" && Number.isFinite(radius)) grenade.radius_m = Math.max(0, radius);
  if (options.damage_type === "P" || options.damage_type === "S") grenade.damage_type = options.damage_type;
  return grenade;
}

/**
 * An SR4 attack body. `attacker`, `weapon` are SR4Attacker / SR4Weapon; `targets` the dialog's,
 * each {id, distance_m, defender, position?, cover?, prone?, called_shot?}. `options`: burst,
 * choke, ammo, visibility, the SR4_FLAGS, edge, dice, zone and sheltered (suppressive fire),
 * grenade (with origin, aim_point, bystanders).
 */
export function sr4AttackRequest({ attacker, weapon, mode, targets = [], options = {} }) {
  if (!weapon.category) throw new RequestError("choose the weapon's category", "$.weapon.category", "category");
  if (!sr4AvailableModes(weapon.modes).includes(mode)) {
    throw new RequestError(`the weapon cannot fire ${mode} (it lists ${weapon.modes.join(", ") || "no mode"})`, "$.mode", "mode", { mode, modes: weapon.modes.join(", ") || "—" });
  }
  const body = {
    ruleset: "sr4",
    attacker: { ...attacker, id: serviceId(attacker.id) },
    weapon: { ...weapon, id: serviceId(weapon.id) },
    mode,
  };
  if (["BF", "LB", "FB"].includes(mode)) body.burst = choice(options.burst, SR4_BURSTS, "narrow");
  if (options.choke && SR4_CHOKES.includes(options.choke)) body.weapon.choke = options.choke;
  if (mode === "suppressive") {
    if (!options.zone) throw new RequestError("suppressive fire needs a zone: a direction and a length", "$.zone", "zone");
    body.zone = { origin: options.zone.origin, direction_deg: options.zone.direction_deg, length_m: options.zone.length_m };
    if (options.sheltered?.length) body.sheltered = options.sheltered.map(serviceId);
  } else if (options.grenade) {
    body.grenade = sr4Grenade(options.grenade);
    if (options.origin) body.origin = options.origin;
    // A grenade aimed at a target is opposed by it; one aimed at a point is a success test.
    if (targets.length === 0) {
      if (!options.aim_point) throw new RequestError("aim the grenade at a token or at a point", "$.aim_point", "grenadeAim");
      body.aim_point = options.aim_point;
    }
    if (options.bystanders?.length) body.bystanders = options.bystanders.map((b) => ({ ...b, id: serviceId(b.id) }));
  } else if (targets.length === 0) {
    throw new RequestError("target at least one token", "$.targets", "targets");
  }
  if (mode !== "suppressive" && targets.length > 0) {
    body.targets = targets.map((t) => {
      const target = { id: serviceId(t.id), distance_m: Math.max(0, Number(t.distance_m) || 0), defender: t.defender, cover: choice(t.cover, SR4_COVER, "none") };
      for (const flag of ["prone", "called_shot", "hidden"]) if (t[flag]) target[flag] = true;
      return target;
    });
  }
  if (options.ammo && options.ammo !== "regular") body.ammo = choice(options.ammo, SR4_AMMO, "regular");
  for (const flag of SR4_FLAGS) if (options[flag]) body[flag] = true;
  if (options.edge === "extra_dice") body.edge = "extra_dice";
  const visibility = {};
  for (const [field, allowed] of Object.entries(SR4_VISIBILITY)) {
    const value = options.visibility?.[field];
    if (value && value !== allowed[0]) visibility[field] = choice(value, allowed, allowed[0]);
  }
  if (options.visibility?.glare) visibility.glare = true;
  if (Object.keys(visibility).length > 0) body.visibility = visibility;
  if (options.dice && Object.keys(options.dice).length > 0) body.dice = options.dice;
  return body;
}

/** An SR4 zone test body (POST .../zones/{zone}/tests): Reaction + Edge (+ Dodge on full defense). */
export function sr4ZoneTestRequest({ actor, defender, avoid = "none", dice = {} }) {
  const body = { ruleset: "sr4", actor: serviceId(actor), defender };
  if (avoid === "take_cover" || avoid === "drop_prone") body.avoid = avoid;
  if (Object.keys(dice).length > 0) body.dice = dice;
  return body;
}

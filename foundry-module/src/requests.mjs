// Attack and zone test bodies for the service (schemas/sr5.py, schemas/d100.py; sr3's are in
// sr3-requests.mjs, sr4's in sr4-requests.mjs), from what the dialog gathered: the attacker, the weapon, the targets with
// their measured distances, and the table's choices. Plain data in, plain JSON out: no Foundry
// here. The shared basics (RequestError, serviceId) live in request-common.mjs, which the
// per-ruleset request modules import rather than this one (that imports them for manualDefaults).

import { RequestError, choice, integer, serviceId } from "./request-common.mjs";
import { SR3_MANUAL_DEFAULTS } from "./sr3-requests.mjs";
import { SR4_MANUAL_DEFAULTS } from "./sr4-requests.mjs";
import { HL_MANUAL_DEFAULTS } from "./sr3hl-requests.mjs";

// The shared basics stay importable from here, where the rest of the module has always read them.
export { RequestError, serviceId };

export const SR5_MODES = ["SS", "SA", "SB", "BF", "LB", "FA", "FA_complex", "suppressive"];
// A firing mode needs this mode on the weapon (schemas/sr5.py: SB needs SA, LB needs BF, FA_complex
// and suppressive fire need FA).
const MODE_NEEDS = { SS: "SS", SA: "SA", SB: "SA", BF: "BF", LB: "BF", FA: "FA", FA_complex: "FA", suppressive: "FA" };
export const COVER = ["none", "partial", "good", "full"];
export const ENVIRONMENT = {
  visibility: ["clear", "light", "moderate", "heavy"],
  light: ["full", "partial", "dim", "total_darkness"],
  glare: ["none", "weak", "moderate", "blinding"],
  wind: ["none", "light", "moderate", "strong"],
};
export const SMARTLINK = ["none", "wired", "wireless_gear", "wireless_implant"];
export const SR5_AMMO = ["regular", "apds", "explosive", "ex_explosive", "flechette", "gel", "hollow_point", "stick_n_shock", "tracer"];
export const SR5_CATEGORIES = [
  "taser", "hold_out_pistol", "light_pistol", "heavy_pistol", "machine_pistol", "submachine_gun",
  "assault_rifle", "shotgun", "shotgun_flechette", "sniper_rifle", "light_machine_gun",
  "medium_machine_gun", "heavy_machine_gun", "assault_cannon", "grenade_launcher", "missile_launcher",
];

/** The firing modes a weapon with these listed modes can fire. */
export function availableModes(weaponModes) {
  return SR5_MODES.filter((mode) => weaponModes.includes(MODE_NEEDS[mode]));
}

/**
 * Physical dice typed in at the table: one step a line, "step: faces", faces separated by spaces
 * or commas ("attack: 6 5 5 2 1"). Empty text gives no dice.
 */
export function parseGivenDice(text) {
  const dice = {};
  const lines = String(text ?? "").split(/[\n;]+/).map((l) => l.trim()).filter(Boolean);
  for (const line of lines) {
    const at = line.lastIndexOf(":");
    // Steps hold a colon themselves ("defense:goon-1"): the faces follow the last colon.
    if (at <= 0) throw new RequestError(`"${line}": write the step, a colon, then the faces`, "$.dice", "diceLine", { line });
    const step = line.slice(0, at).trim();
    const faces = line.slice(at + 1).split(/[\s,]+/).filter(Boolean).map((f) => {
      const value = Number(f);
      if (!Number.isInteger(value) || value < 1) throw new RequestError(`"${f}" is not a die face (step ${step})`, `$.dice["${step}"]`, "diceFace", { face: f, step });
      return value;
    });
    if (faces.length === 0) throw new RequestError(`step ${step} has no faces`, `$.dice["${step}"]`, "diceEmpty", { step });
    dice[step] = (dice[step] ?? []).concat(faces);
  }
  return dice;
}

/**
 * An SR5 attack body. `attacker` and `weapon` are SR5Attacker / SR5Weapon; each target is
 * {id, distance_m, defender, cover?, called_shot?, prone?, running?}; `options` holds the table's
 * choices (environment, smartlink, ammo, edge, dice, zone, bystanders).
 */
export function sr5AttackRequest({ attacker, weapon, mode, targets = [], options = {} }) {
  if (!weapon.category) throw new RequestError("choose the weapon's category", "$.weapon.category", "category");
  if (!availableModes(weapon.modes).includes(mode)) {
    throw new RequestError(`the weapon cannot fire ${mode} (it lists ${weapon.modes.join(", ") || "no mode"})`, "$.mode", "mode", { mode, modes: weapon.modes.join(", ") || "—" });
  }
  const body = {
    ruleset: "sr5",
    attacker: { ...attacker, id: serviceId(attacker.id) },
    weapon: { ...weapon, id: serviceId(weapon.id) },
    mode,
  };
  if (mode === "suppressive") {
    if (!options.zone) throw new RequestError("suppressive fire needs a zone: a direction and a length", "$.zone", "zone");
    body.zone = {
      origin: options.zone.origin,
      direction_deg: options.zone.direction_deg,
      length_m: options.zone.length_m,
      ...(options.zone.enhanced ? { enhanced: true } : {}),
    };
    body.bystanders = (options.bystanders ?? []).map((b) => ({ ...b, id: serviceId(b.id) }));
  } else {
    if (targets.length === 0) throw new RequestError("target at least one token", "$.targets", "targets");
    body.targets = targets.map((t) => {
      const target = {
        id: serviceId(t.id),
        distance_m: Math.max(0, Number(t.distance_m) || 0),
        defender: t.defender,
        cover: choice(t.cover, COVER, "none"),
      };
      for (const flag of ["called_shot", "prone", "running", "in_moving_vehicle", "in_melee"]) {
        if (t[flag]) target[flag] = true;
      }
      return target;
    });
  }
  const environment = {};
  for (const [field, allowed] of Object.entries(ENVIRONMENT)) {
    const value = options.environment?.[field];
    if (value && value !== allowed[0]) environment[field] = choice(value, allowed, allowed[0]);
  }
  if (Object.keys(environment).length > 0) body.environment = environment;
  if (options.smartlink && options.smartlink !== "none") body.smartlink = choice(options.smartlink, SMARTLINK, "none");
  if (options.ammo && options.ammo !== "regular") body.ammo = choice(options.ammo, SR5_AMMO, "regular");
  if (options.edge === "push_the_limit") body.edge = "push_the_limit";
  for (const flag of ["running", "from_moving_vehicle", "in_melee", "off_hand", "area_effect"]) {
    if (options[flag]) body[flag] = true;
  }
  if (options.dice && Object.keys(options.dice).length > 0) body.dice = options.dice;
  return body;
}

/** An SR5 zone test body (POST .../zones/{zone}/tests). */
export function sr5ZoneTestRequest({ actor, defender, edge = 0, avoid = "none", dice = {} }) {
  const body = { ruleset: "sr5", actor: serviceId(actor), defender, edge: Math.max(0, integer(edge)) };
  if (avoid && avoid !== "none") body.avoid = avoid;
  if (Object.keys(dice).length > 0) body.dice = dice;
  return body;
}

/** A d100 zone test body: the actor avoids the fire with Athletics (schemas/d100.py D100ZoneTestRequest). */
export function d100ZoneTestRequest({ actor, athletics, defender = {}, avoid = "none", dice = {} }) {
  const body = { ruleset: "d100", actor: serviceId(actor), athletics: Math.max(0, integer(athletics)) };
  const d = {};
  for (const field of ["passive_defense", "armor"]) if (defender[field] !== undefined && defender[field] !== "") d[field] = integer(defender[field]);
  if (Object.keys(d).length > 0) body.defender = d;
  if (avoid && avoid !== "none") body.avoid = avoid;
  if (Object.keys(dice).length > 0) body.dice = dice;
  return body;
}

/** "10:0, 50:-20, 150:-40 long" -> d100 range bands, nearest first (up_to_m, modifier, name). */
export function parseRangeBands(text) {
  const bands = String(text ?? "").split(/[,;\n]+/).map((b) => b.trim()).filter(Boolean).map((part) => {
    const match = /^(\d+(?:\.\d+)?)\s*:\s*([+-]?\d+)(?:\s+(.+))?$/.exec(part);
    if (!match) throw new RequestError(`"${part}": write a band as metres:modifier`, "$.weapon.range_bands", "rangeBand", { part });
    const band = { up_to_m: Number(match[1]), modifier: Number(match[2]) };
    if (match[3]) band.name = match[3].trim();
    return band;
  });
  if (bands.length === 0) throw new RequestError("the weapon needs at least one range band", "$.weapon.range_bands", "rangeBands");
  bands.sort((a, b) => a.up_to_m - b.up_to_m);
  return bands;
}

/** "aim 10, cover -20" -> d100 modifiers. */
export function parseModifiers(text) {
  return String(text ?? "").split(/[,;\n]+/).map((m) => m.trim()).filter(Boolean).map((part) => {
    const match = /^(.*?)\s*([+-]\d+)$/.exec(part);
    if (!match || !match[1]) throw new RequestError(`"${part}": write a modifier as a name and a signed number`, "$.modifiers", "modifier", { part });
    return { source: match[1], value: Number(match[2]) };
  });
}

/**
 * A d100 attack body from the manual form: `manual` holds what the table typed for the
 * attacker and its weapon (remembered per actor); targets are {id, distance_m, position?,
 * defender: {defense?, passive_defense?, armor?}}.
 */
export function d100AttackRequest({ attackerId, manual, targets = [], position = null, options = {} }) {
  const body = {
    ruleset: "d100",
    attacker: {
      id: serviceId(attackerId),
      marksmanship: integer(manual.marksmanship),
      recoil_control: integer(manual.recoil_control),
      wound_modifier: Math.min(0, integer(manual.wound_modifier)),
      ...(position ? { position } : {}),
    },
    weapon: {
      id: serviceId(manual.weapon_id || manual.weapon_name || "weapon"),
      damage: integer(manual.damage),
      bonus_dice: integer(manual.bonus_dice),
      bonus_die: [4, 6, 8, 10, 12].includes(integer(manual.bonus_die)) ? integer(manual.bonus_die) : 6,
      armor_penetration: integer(manual.armor_penetration),
      shot_rate: integer(manual.shot_rate),
      ammo: integer(manual.ammo),
      range_bands: parseRangeBands(manual.range_bands),
    },
    shot_rate: integer(options.shot_rate ?? manual.shot_rate),
  };
  if (options.aim) body.aim = integer(options.aim);
  const modifiers = parseModifiers(options.modifiers);
  if (modifiers.length > 0) body.modifiers = modifiers;
  if (options.suppressive) {
    // Suppressive fire has no Shot Rate (the service refuses one: $.shot_rate).
    body.shot_rate = 0;
    body.suppressive = { origin: options.suppressive.origin, center: options.suppressive.center };
    body.bystanders = (options.bystanders ?? []).map((b) => ({ ...b, id: serviceId(b.id) }));
  } else {
    if (targets.length === 0) throw new RequestError("target at least one token", "$.targets", "targets");
    body.targets = targets.map((t) => {
      const defender = {};
      for (const field of ["defense", "passive_defense"]) {
        if (t.defender?.[field] !== undefined && t.defender[field] !== "" && t.defender[field] !== null) defender[field] = integer(t.defender[field]);
      }
      defender.armor = integer(t.defender?.armor);
      if (t.position) defender.position = t.position;
      return { id: serviceId(t.id), distance_m: Math.max(0, Number(t.distance_m) || 0), defender };
    });
  }
  if (options.dice && Object.keys(options.dice).length > 0) body.dice = options.dice;
  return body;
}

/** What the manual form starts with for a ruleset, before anything was typed for an actor. */
export function manualDefaults(ruleset) {
  if (ruleset === "sr3") return { ...SR3_MANUAL_DEFAULTS };
  if (ruleset === "sr4") return { ...SR4_MANUAL_DEFAULTS };
  if (ruleset === "sr3-hardlife") return { ...HL_MANUAL_DEFAULTS };
  if (ruleset === "d100") {
    return {
      marksmanship: 50, recoil_control: 0, wound_modifier: 0, weapon_name: "Rifle", damage: 7,
      bonus_dice: 2, bonus_die: 6, armor_penetration: 0, shot_rate: 1, ammo: 30,
      range_bands: "10:0, 50:-10, 150:-30", defense: 40, passive_defense: 30, armor: 0, athletics: 40,
    };
  }
  return {
    agility: 3, strength: 3, willpower: 3, intuition: 3, edge: 2, skill: 3, wound_modifier: 0,
    weapon_name: "Pistol", category: "heavy_pistol", damage: 8, damage_type: "P", ap: -1,
    accuracy: 5, rc: 0, modes: "SA", ammo: 15,
    reaction: 3, body: 3, armor: 9,
  };
}

/** The manual form's numbers: what was saved for this actor, over the defaults, then what was typed. */
export function mergeManual(ruleset, saved, typed = {}) {
  const defaults = manualDefaults(ruleset);
  const merged = { ...defaults };
  for (const source of [saved ?? {}, typed]) {
    for (const key of Object.keys(defaults).concat(["weapon_id"])) {
      if (source[key] !== undefined && source[key] !== "") merged[key] = typeof defaults[key] === "number" ? integer(source[key], defaults[key]) : String(source[key]);
    }
  }
  return merged;
}

/** SR5 attacker, weapon and defender from the manual form (for systems other than shadowrun5e). */
export function sr5FromManual(id, manual) {
  return {
    attacker: {
      id,
      agility: Math.max(1, integer(manual.agility, 1)),
      strength: Math.max(1, integer(manual.strength, 1)),
      willpower: Math.max(1, integer(manual.willpower, 1)),
      intuition: Math.max(1, integer(manual.intuition, 1)),
      edge: Math.max(0, integer(manual.edge)),
      skill: Math.max(0, integer(manual.skill)),
      wound_modifier: Math.min(0, integer(manual.wound_modifier)),
    },
    weapon: {
      id: manual.weapon_id || serviceId(manual.weapon_name || "weapon"),
      category: choice(manual.category, SR5_CATEGORIES, "heavy_pistol"),
      damage: Math.max(0, integer(manual.damage)),
      damage_type: manual.damage_type === "S" ? "S" : "P",
      ap: integer(manual.ap),
      accuracy: Math.max(0, integer(manual.accuracy)),
      rc: Math.max(0, integer(manual.rc)),
      modes: String(manual.modes ?? "").split(/[\s,]+/).filter((m) => ["SS", "SA", "BF", "FA"].includes(m)),
      ammo: Math.max(0, integer(manual.ammo)),
    },
    defender: {
      reaction: Math.max(1, integer(manual.reaction, 1)),
      intuition: Math.max(1, integer(manual.intuition, 1)),
      body: Math.max(1, integer(manual.body, 1)),
      willpower: Math.max(1, integer(manual.willpower, 1)),
      armor: Math.max(0, integer(manual.armor)),
    },
  };
}

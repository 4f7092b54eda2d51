// The attack dialog's data and the attack request its form means, for every ruleset: the
// targets and bystanders on the viewed canvas, each target's defence read from its actor (a
// mapped system's sheet, else its remembered manual form), the lists the dialog offers, and the
// request body built from the dialog's fields. Plain functions: what they read of Foundry comes in
// as arguments (the canvas, the user, the game system's id), so FirefightApp (attack-dialog.mjs)
// and the tests call them the same way.

import { MODULE_ID } from "./settings.mjs";
import { rollModeChoices } from "./roll-mode.mjs";
import * as sr5 from "./sr5-actor.mjs";
import * as sr3e from "./sr3-actor.mjs";
import * as sr4e from "./sr4-actor.mjs";
import {
  SR4_AMMO, SR4_BURSTS, SR4_CATEGORIES, SR4_CHOKES, SR4_COVER, SR4_DELIVERY, SR4_FLAGS, SR4_GRENADES, SR4_VISIBILITY,
  sr4AttackRequest, sr4AvailableModes, sr4FromManual,
} from "./sr4-requests.mjs";
import {
  SR3_CATEGORIES, SR3_COVER, SR3_MOVEMENT, SR3_SIGHTS, SR3_TARGET_MOVEMENT, SR3_VISIBILITY, sr3AttackRequest, sr3FromManual,
} from "./sr3-requests.mjs";
import { HL_LOCATIONS, hlAttackRequest, hlFromManual, parseArea } from "./sr3hl-requests.mjs";
import { measureMetres, toScenePoint, bearingDeg, distanceM } from "./geometry.mjs";
import {
  availableModes, COVER, d100AttackRequest, RequestError, ENVIRONMENT, mergeManual, parseGivenDice, serviceId,
  SMARTLINK, SR5_AMMO, SR5_CATEGORIES, sr5AttackRequest, sr5FromManual,
} from "./requests.mjs";

/** A select's options: the value sent and the lang key shown (lang/en.json under `prefix`). */
function options(values, prefix) {
  return values.map((value) => ({ value, label: `${prefix}.${value}` }));
}

const D100_MODES = ["attack", "suppressive"];

/** A number typed in a form, or null when the field was left empty (FormDataExtended gives null). */
function typedNumber(value) {
  if (value === undefined || value === null || value === "") return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}

/** The tokens `user` targets, with distances in metres from the attacker (on `canvas`). */
export function targetsFrom(canvas, user, attackerToken) {
  const grid = canvas.grid;
  return [...(user.targets ?? [])]
    .filter((t) => t.id !== attackerToken.id)
    .map((t) => ({
      token: t,
      id: serviceId(t.id),
      name: t.name,
      distance_m: measureMetres(grid, attackerToken.center, t.center),
      position: toScenePoint(t.center, grid),
    }));
}

/** Everyone else on the scene, for who is inside a suppression zone. */
export function bystandersFrom(canvas, attackerToken) {
  const grid = canvas.grid;
  return (canvas.tokens?.placeables ?? [])
    .filter((t) => t.id !== attackerToken.id && t.actor)
    .map((t) => ({ id: serviceId(t.id), position: toScenePoint(t.center, grid) }));
}

/**
 * Everything the dialog shows for `ruleset`, read from the actor (a mapped system's sheet) or its
 * remembered manual form; `rollMode` is the one the dialog offers first.
 */
export function dialogData(token, { ruleset, systemId, systemVersion, canvas, user, rollMode, itemId = null }) {
  // The system's release (game.system.version) picks the line of its data paths (sr5-actor.mjs SR5_PATHS, ...).
  const version = systemVersion;
  const actor = token.actor;
  const shadowrun = ruleset === "sr5" && sr5.isShadowrunActor(actor, systemId);
  const mappedSr3 = ruleset === "sr3" && sr3e.isSr3eActor(actor, systemId);
  const mappedSr4 = ruleset === "sr4" && sr4e.isSr4eActor(actor, systemId);
  const targets = targetsFrom(canvas, user, token).map((t) => ({ ...t, defender: defenderOf(t.token.actor, ruleset, systemId, version) }));
  const base = {
    ruleset,
    systemVersion: version,
    sr5: ruleset === "sr5",
    d100: ruleset === "d100",
    sr3: ruleset === "sr3",
    sr4: ruleset === "sr4",
    sr3hl: ruleset === "sr3-hardlife",
    shadowrun,
    sr3e: mappedSr3,
    sr4e: mappedSr4,
    actorName: token.name,
    targets,
    cover: options(COVER, "FIREFIGHT.Cover"),
    environment: Object.entries(ENVIRONMENT).map(([field, values]) => ({ field, label: `FIREFIGHT.Environment.${field}.Name`, options: options(values, `FIREFIGHT.Environment.${field}`) })),
    smartlink: options(SMARTLINK, "FIREFIGHT.Smartlink"),
    ammo: options(SR5_AMMO, "FIREFIGHT.Ammo"),
    categories: options(SR5_CATEGORIES, "FIREFIGHT.Category"),
    rollModes: rollModeChoices(rollMode),
  };
  if (ruleset === "sr3" || ruleset === "sr3-hardlife") Object.assign(base, sr3DialogChoices());
  if (ruleset === "sr3-hardlife") Object.assign(base, hlDialogChoices());
  if (ruleset === "sr4") Object.assign(base, sr4DialogChoices());
  if (mappedSr4) {
    const weapons = sr4e.rangedWeapons(actor, { version }).map((item) => {
      const weapon = sr4e.sr4Weapon(item, { version });
      return { id: item.id, name: item.name, weapon, skill: sr4e.weaponSkill(actor, item, { version }), modes: options(sr4AvailableModes(weapon.modes), "FIREFIGHT.Mode"), selected: item.id === itemId };
    });
    const chosen = weapons.find((w) => w.selected) ?? weapons[0];
    return { ...base, weapons, modes: chosen ? chosen.modes : [] };
  }
  if (mappedSr3) {
    const weapons = sr3e.rangedWeapons(actor, { version }).map((item) => {
      const weapon = sr3e.sr3Weapon(actor, item, { version });
      return { id: item.id, name: item.name, weapon, skill: sr3e.weaponSkill(actor, item, { version }), modes: options(weapon.modes, "FIREFIGHT.Mode"), selected: item.id === itemId };
    });
    const chosen = weapons.find((w) => w.selected) ?? weapons[0];
    return { ...base, weapons, modes: chosen ? chosen.modes : [] };
  }
  if (shadowrun) {
    const weapons = sr5.rangedWeapons(actor, { version }).map((item) => {
      const weapon = sr5.sr5Weapon(item, { version });
      return { id: item.id, name: item.name, weapon, modes: options(availableModes(weapon.modes), "FIREFIGHT.Mode"), selected: item.id === itemId };
    });
    // The modes of the weapon chosen from its sheet (else the first); another weapon's modes
    // are checked when the attack is built.
    const chosen = weapons.find((w) => w.selected) ?? weapons[0];
    return { ...base, weapons, modes: chosen ? chosen.modes : [] };
  }
  const saved = actor.getFlag?.(MODULE_ID, `manual.${ruleset}`) ?? actor.flags?.[MODULE_ID]?.manual?.[ruleset] ?? {};
  const manual = mergeManual(ruleset, saved);
  return {
    ...base,
    manual,
    manualFields: Object.entries(manual).map(([key, value]) => ({ key, value, label: ruleset === "sr3" ? `FIREFIGHT.SR3.Field.${key}` : ruleset === "sr3-hardlife" ? `FIREFIGHT.HL.Field.${key}` : ruleset === "sr4" ? `FIREFIGHT.SR4.Field.${key}` : `FIREFIGHT.Field.${key}` })),
    modes: options(ruleset === "sr5" ? availableModes(["SS", "SA", "BF", "FA"]) : ruleset === "sr3" || ruleset === "sr3-hardlife" ? ["SS", "SA", "BF", "FA"] : ruleset === "sr4" ? sr4AvailableModes(sr4FromManual("x", manual).weapon.modes) : D100_MODES, "FIREFIGHT.Mode"),
  };
}

/** The SR3 dialog's lists: categories, sights, movement and the visibility table's columns and rows. */
function sr3DialogChoices() {
  return {
    sr3Categories: options(SR3_CATEGORIES, "FIREFIGHT.SR3.Category"),
    sights: options(SR3_SIGHTS, "FIREFIGHT.SR3.Sight"),
    movements: options(SR3_MOVEMENT, "FIREFIGHT.SR3.Movement"),
    targetMovements: options(SR3_TARGET_MOVEMENT, "FIREFIGHT.SR3.Movement"),
    cover: options(SR3_COVER, "FIREFIGHT.Cover"),
    visibility: Object.entries(SR3_VISIBILITY).map(([field, values]) => ({ field, label: `FIREFIGHT.SR3.Visibility.${field}.Name`, options: options(values, `FIREFIGHT.SR3.Visibility.${field}`) })),
  };
}

/** Hard Life's list: the locations of a called shot (004, Tables 6 and 10). */
function hlDialogChoices() {
  return {
    locations: HL_LOCATIONS.map((value) => ({ value, label: `FIREFIGHT.HL.Location.${value}` })),
  };
}

/** The SR4 dialog's lists: categories, bursts, chokes, ammunition, visibility, the attacker's situation and the grenade's. */
function sr4DialogChoices() {
  return {
    sr4Categories: options(SR4_CATEGORIES, "FIREFIGHT.SR3.Category"),
    cover: options(SR4_COVER, "FIREFIGHT.Cover"),
    bursts: options(SR4_BURSTS, "FIREFIGHT.SR4.Burst"),
    chokes: options(SR4_CHOKES, "FIREFIGHT.SR4.Choke"),
    sr4Ammo: options(SR4_AMMO, "FIREFIGHT.Ammo"),
    flags: options(SR4_FLAGS, "FIREFIGHT.SR4.Flag"),
    grenades: options(SR4_GRENADES, "FIREFIGHT.SR4.Grenade"),
    deliveries: options(SR4_DELIVERY, "FIREFIGHT.SR4.Delivery"),
    visibility: Object.entries(SR4_VISIBILITY).map(([field, values]) => ({ field, label: `FIREFIGHT.SR4.Visibility.${field}.Name`, options: options(values, `FIREFIGHT.SR4.Visibility.${field}`) })),
  };
}

/** A target's defence in `ruleset`: from its sheet in a mapped system (`systemId`), else from its remembered manual form. */
export function defenderOf(actor, ruleset, systemId, systemVersion = undefined) {
  const version = systemVersion;
  if (ruleset === "sr5" && sr5.isShadowrunActor(actor, systemId)) return sr5.sr5Defender(actor, { version });
  if (ruleset === "sr3" && sr3e.isSr3eActor(actor, systemId)) return sr3e.sr3Defender(actor, { version });
  if (ruleset === "sr4" && sr4e.isSr4eActor(actor, systemId)) return sr4e.sr4Defender(actor, { version });
  const saved = actor?.flags?.[MODULE_ID]?.manual?.[ruleset] ?? {};
  const manual = mergeManual(ruleset, saved);
  if (ruleset === "sr3") return sr3FromManual("x", manual).defender;
  if (ruleset === "sr3-hardlife") return hlFromManual("x", manual).defender;
  if (ruleset === "sr4") return sr4FromManual("x", manual).defender;
  return ruleset === "d100"
    ? { defense: manual.defense, passive_defense: manual.passive_defense, armor: manual.armor }
    : sr5FromManual("x", manual).defender;
}

/**
 * The attack body from the dialog's form (flat names: weapon, mode, cover.<target>, ...).
 * Returns {body, writeBack} where writeBack says which item and actor the answer updates.
 * `canvas` is the viewed one: the attacker's position, and the bystanders of a zone or a blast.
 */
export function buildAttack(token, data, form, canvas) {
  const actor = token.actor;
  const grid = canvas.grid;
  const dice = parseGivenDice(form.dice);
  const origin = toScenePoint(token.center, grid);
  const targets = data.targets.map((t) => ({
    id: t.id,
    distance_m: typedNumber(form[`distance.${t.id}`]) ?? t.distance_m,
    defender: t.defender,
    position: t.position,
    cover: form[`cover.${t.id}`],
    called_shot: Boolean(form[`called.${t.id}`]),
    prone: Boolean(form[`prone.${t.id}`]),
  }));
  if (data.d100) {
    const manual = mergeManual("d100", data.manual, form);
    const suppressive = form.mode === "suppressive" && targets[0] ? { origin, center: targets[0].position } : null;
    const body = d100AttackRequest({
      attackerId: token.id,
      manual,
      targets,
      position: origin,
      options: { shot_rate: form.shot_rate, aim: form.aim, modifiers: form.modifiers, dice, suppressive, bystanders: suppressive ? bystandersFrom(canvas, token) : [] },
    });
    return { body, writeBack: { actor, manual: { ruleset: "d100", values: manual } } };
  }
  if (data.sr3) return buildSr3Attack(token, data, form, targets, dice);
  if (data.sr3hl) return buildHlAttack(token, data, form, targets, dice);
  if (data.sr4) return buildSr4Attack(token, data, form, targets, dice, canvas);
  let attacker;
  let weapon;
  let item = null;
  let manual = null;
  if (data.shadowrun) {
    item = actor.items.get(form.weapon) ?? null;
    if (!item) throw new RequestError("choose a weapon", "$.weapon", "chooseWeapon");
    const version = data.systemVersion;
    const category = form.category || sr5.weaponCategory(item, { version });
    weapon = sr5.sr5Weapon(item, { category, version });
    attacker = sr5.sr5Attacker(actor, item, { id: token.id, category, version });
  } else {
    manual = mergeManual("sr5", data.manual, form);
    ({ attacker, weapon } = sr5FromManual(token.id, manual));
  }
  const zone =
    form.mode === "suppressive"
      ? {
          origin,
          direction_deg: typedNumber(form.zone_direction) ?? (targets[0] ? bearingDeg(origin, targets[0].position) : 0),
          length_m: typedNumber(form.zone_length) || (targets[0] ? Math.max(1, distanceM(origin, targets[0].position)) : 10),
        }
      : null;
  const body = sr5AttackRequest({
    attacker,
    weapon,
    mode: form.mode,
    targets: form.mode === "suppressive" ? [] : targets,
    options: {
      environment: { visibility: form.visibility, light: form.light, glare: form.glare, wind: form.wind },
      smartlink: form.smartlink,
      ammo: form.ammo,
      edge: form.edge,
      dice,
      zone,
      bystanders: zone ? bystandersFrom(canvas, token) : [],
    },
  });
  return { body, writeBack: { actor, item, manual: manual ? { ruleset: "sr5", values: manual } : null } };
}

/**
 * An SR3 attack: the sr3e actor's weapon (its loaded ammunition written back), or the manual
 * form; the target's dodge and resistance dice and movement from its row, the rest from the
 * dialog. SR3 fires each attack at one target.
 */
function buildSr3Attack(token, data, form, targets, dice) {
  const actor = token.actor;
  let attacker;
  let weapon;
  let ammoItem = null;
  let manual = null;
  if (data.sr3e) {
    const item = actor.items.get(form.weapon) ?? null;
    if (!item) throw new RequestError("choose a weapon", "$.weapon", "chooseWeapon");
    ammoItem = sr3e.loadedAmmo(actor, item, { version: data.systemVersion });
    if (!ammoItem) throw new RequestError(`${item.name} has no ammunition loaded`, "$.weapon.ammo", "noAmmo", { weapon: item.name });
    weapon = sr3e.sr3Weapon(actor, item, { category: form.category || null, version: data.systemVersion });
    attacker = sr3e.sr3Attacker(actor, item, { id: token.id, version: data.systemVersion });
    const skill = typedNumber(form.skill);
    if (skill !== null) attacker.skill = Math.max(0, Math.round(skill));
  } else {
    manual = mergeManual("sr3", data.manual, form);
    ({ attacker, weapon } = sr3FromManual(token.id, manual));
  }
  const body = sr3AttackRequest({
    attacker,
    weapon,
    mode: form.mode,
    targets: targets.map((t) => ({
      ...t,
      movement: form[`target_movement.${t.id}`],
      dodge: form[`dodge.${t.id}`],
      resist: form[`resist.${t.id}`],
    })),
    options: {
      pool: form.pool,
      sight: form.sight,
      rounds: form.rounds,
      movement: form.movement,
      melee_opponents: form.melee_opponents,
      called_shot: Boolean(form.called_shot),
      blind_fire: Boolean(form.blind_fire),
      second_firearm: Boolean(form.second_firearm),
      indirect: Boolean(form.indirect),
      visibility: { vision: form.vision, light: form.light, obscurant: form.obscurant },
      dice,
    },
  });
  return { body, writeBack: { actor, item: null, ammoItem, manual: manual ? { ruleset: "sr3", values: manual } : null } };
}

/**
 * A Hard Life attack from the manual form: the target's Table 8 dodge (Combat Pool and Dodge
 * Pool dice, into cover, prone) and Body's Combat Pool dice from its row, the called shot's
 * location and suppression fire's area (corners in metres) from the dialog.
 */
function buildHlAttack(token, data, form, targets, dice) {
  const manual = mergeManual("sr3-hardlife", data.manual, form);
  const { attacker, weapon } = hlFromManual(token.id, manual);
  const area = parseArea(form.area);
  const body = hlAttackRequest({
    attacker,
    weapon,
    mode: form.mode,
    targets: area ? [] : targets.map((t) => ({
      ...t,
      movement: form[`target_movement.${t.id}`],
      dodge_combat: form[`dodge.${t.id}`],
      dodge_pool: form[`dodge_pool.${t.id}`],
      into_cover_m: form[`into_cover.${t.id}`],
      prone: Boolean(form[`prone.${t.id}`]),
      resist: form[`resist.${t.id}`],
    })),
    options: {
      pool: form.pool,
      sight: form.sight,
      rounds: form.rounds,
      movement: form.movement,
      melee_opponents: form.melee_opponents,
      called_shot: form.called_location || null,
      blind_fire: Boolean(form.blind_fire),
      second_firearm: Boolean(form.second_firearm),
      indirect: Boolean(form.indirect),
      visibility: { vision: form.vision, light: form.light, obscurant: form.obscurant },
      suppression: area ? { area, bullets_per_m2: form.bullets_per_m2 } : null,
      dice,
    },
  });
  return { body, writeBack: { actor: token.actor, item: null, manual: { ruleset: "sr3-hardlife", values: manual } } };
}

/**
 * An SR4 attack: the shadowrun4e actor's weapon (its rounds written back), or the manual form;
 * each target's Dodge and whether it is hidden from its row, the rest from the dialog. A
 * grenade goes at the targeted token, or at the point typed in when none is targeted; the
 * other tokens are where its blast may reach.
 */
function buildSr4Attack(token, data, form, targets, dice, canvas) {
  const actor = token.actor;
  const grid = canvas.grid;
  const origin = toScenePoint(token.center, grid);
  let attacker;
  let weapon;
  let item = null;
  let manual = null;
  const thrownGrenade = Boolean(form.grenade_type) && ["standard_grenade", "aerodynamic_grenade"].includes(form.category);
  if (data.sr4e && thrownGrenade) {
    // A thrown grenade is no "Ranged Weapon" of shadowrun4e: one grenade, thrown as a single
    // action (its numbers are the grenade's, not a gun's).
    weapon = { id: serviceId(`grenade-${form.grenade_type}`), category: form.category, damage: 0, damage_type: "P", ap: 0, rc: 0, modes: ["SS"], ammo: 1 };
    const gun = actor.items.get(form.weapon) ?? null;
    attacker = sr4e.sr4Attacker(actor, gun ?? { system: {} }, { id: token.id, version: data.systemVersion });
    const skill = typedNumber(form.skill);
    if (skill !== null) attacker.skill = Math.max(0, Math.round(skill));
  } else if (data.sr4e) {
    item = actor.items.get(form.weapon) ?? null;
    if (!item) throw new RequestError("choose a weapon", "$.weapon", "chooseWeapon");
    weapon = sr4e.sr4Weapon(item, { category: form.category || null, version: data.systemVersion });
    attacker = sr4e.sr4Attacker(actor, item, { id: token.id, version: data.systemVersion });
    const skill = typedNumber(form.skill);
    if (skill !== null) attacker.skill = Math.max(0, Math.round(skill));
  } else {
    manual = mergeManual("sr4", data.manual, form);
    ({ attacker, weapon } = sr4FromManual(token.id, manual));
  }
  const zone =
    form.mode === "suppressive"
      ? {
          origin,
          direction_deg: typedNumber(form.zone_direction) ?? (targets[0] ? bearingDeg(origin, targets[0].position) : 0),
          length_m: typedNumber(form.zone_length) || (targets[0] ? Math.max(1, distanceM(origin, targets[0].position)) : 10),
        }
      : null;
  const grenade = form.grenade_type ? {
    type: form.grenade_type, delivery: form.grenade_delivery, airburst: Boolean(form.airburst),
    dv: form.grenade_dv, ap: form.grenade_ap, falloff_per_m: form.grenade_falloff, radius_m: form.grenade_radius,
  } : null;
  const aimed = String(form.aim_point ?? "").trim().split(/[\s,;]+/).filter(Boolean).map(Number);
  const aimPoint = aimed.length === 2 && aimed.every(Number.isFinite) ? { x: aimed[0], y: aimed[1] } : null;
  const withDefender = targets.map((t) => ({
    ...t,
    defender: { ...t.defender, dodge: Math.max(0, Math.round(typedNumber(form[`dodge.${t.id}`]) ?? t.defender.dodge ?? 0)) },
    hidden: Boolean(form[`hidden.${t.id}`]),
  }));
  // Aimed at a point, every other token is where the blast may reach; aimed at a token, the others.
  const bystanders = grenade ? bystandersFrom(canvas, token).filter((b) => aimPoint || !targets.some((t) => serviceId(t.id) === b.id)) : [];
  const flags = Object.fromEntries(SR4_FLAGS.map((flag) => [flag, Boolean(form[`flag.${flag}`])]));
  const body = sr4AttackRequest({
    attacker,
    weapon,
    mode: form.mode,
    targets: form.mode === "suppressive" || (grenade && aimPoint) ? [] : withDefender,
    options: {
      ...flags,
      burst: form.burst,
      choke: form.choke,
      ammo: form.ammo,
      edge: form.extra_dice ? "extra_dice" : "none",
      visibility: { vision: form.vision, light: form.light, obscurant: form.obscurant },
      zone,
      grenade,
      origin: grenade ? origin : null,
      aim_point: aimPoint,
      bystanders,
      dice,
    },
  });
  return { body, writeBack: { actor, item: null, sr4Item: item, manual: manual ? { ruleset: "sr4", values: manual } : null } };
}

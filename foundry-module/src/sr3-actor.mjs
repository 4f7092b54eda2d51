// What the sr3e system's actors and items hold, as firefight's SR3 request parts.
//
// The system is "Shadowrun Third Edition Homebrew" (id "sr3e", github.com/mirnau/sr3e, Foundry
// v13, DataModels instead of a template.json). Field names are its data models:
// - attributes `system.attributes.<body|quickness|strength|intelligence|willpower>.{value,mod}`:
//   module/models/actors/CharacterModel.ts, actor-components/Attributes.ts and SimpleStat.ts
//   (`value` the user's, `mod` what active effects add);
// - the Combat Pool `system.dicePools.combat.{value,mod}`: actor-components/DicePools.ts;
// - condition monitors `system.health.{physical,stun,overflow}.{value,mod}`:
//   actor-components/Health.ts;
// - weapons (item type "weapon"): `system.mode`, `system.damage.{value,mod}` (the Power),
//   `system.damageType`, `system.ammunitionClass`, `system.recoilComp.{value,mod}`,
//   `system.linkedSkillId`, `system.ammoId`: module/models/items/WeaponModel.ts (its
//   migrateData turns an older plain number into {value, mod}); the sheet writes the skill as
//   `system.linkedSkilliD` (module/svelte/apps/WeaponApp.svelte), read too. Their values are
//   the keys of module/foundry/config.ts: `weaponMode` (manual, semiauto, burst, fullauto, and
//   the melee/explosive blade, explosive, energy, blunt), `damageType` (l, m, s, d, lStun, mStun,
//   sStun, dStun), `ammunitionClass` (holdout, lightPistol, heavyPistol, smg, shotgun,
//   assaultRifle, sportingRifle, sniperRifle, lmg, mmg, hmg, assaultCannon, grenadeLauncher,
//   missileLauncher, taser, bow, crossbow);
// - the loaded rounds: the "ammunition" item `system.ammoId` names, `system.rounds`
//   (module/models/items/AmmunitionModel.ts);
// - skills (item type "skill"): `system.activeSkill.value` (module/models/items/SkillModel.ts);
// - armour (item type "wearable"): `system.ballistic`, `system.impact`
//   (module/models/items/WearableModel.ts; the model has no "worn" field: every wearable with a
//   rating counts).

export const SR3E_SYSTEM_ID = "sr3e";

/** config.ts `ammunitionClass` -> firefight's categories (002's weapon range table). */
const CATEGORY = {
  holdout: "hold_out_pistol",
  lightpistol: "light_pistol",
  heavypistol: "heavy_pistol",
  smg: "smg",
  shotgun: "shotgun",
  assaultrifle: "assault_rifle",
  sportingrifle: "sporting_rifle",
  sniperrifle: "sniper_rifle",
  lmg: "light_machine_gun",
  mmg: "medium_machine_gun",
  hmg: "heavy_machine_gun",
  assaultcannon: "assault_cannon",
  grenadelauncher: "grenade_launcher",
  missilelauncher: "missile_launcher",
  taser: "taser",
  bow: "bow",
  // sr3e has one crossbow class; SR3 has three rows: the medium one (a choice; the dialog's
  // category overrides it).
  crossbow: "medium_crossbow",
};

/**
 * config.ts `weaponMode` -> the modes firefight lets the weapon fire. sr3e gives a gun one mode,
 * the most it can do; SR3's guns that fire bursts or full auto also fire semi-automatic, so a
 * burst weapon fires SA and BF, a full-auto one SA, BF and FA (a choice). Melee, explosive and
 * energy weapons are not ranged attacks here.
 */
const MODES = [
  ["manual", ["SS"]],
  ["semi", ["SA"]],
  ["burst", ["SA", "BF"]],
  ["full", ["SA", "BF", "FA"]],
];

function num(value, fallback = 0) {
  const n = Number(value);
  return Number.isFinite(n) ? Math.trunc(n) : fallback;
}

/** A SimpleStat / ModifiableNumber ({value, mod}, or a plain number before migration): value + mod. */
function stat(field, fallback = 0) {
  if (field === undefined || field === null) return fallback;
  if (typeof field !== "object") return num(field, fallback);
  return num(field.value, fallback) + num(field.mod);
}

/** A config key as stored ("semiauto"), as its i18n key ("sr3e.weaponMode.semiauto") or an older sheet's label: letters only, lower case. */
function key(value) {
  return String(value ?? "").split(".").at(-1).toLowerCase().replace(/[^a-z]/g, "");
}

export function isSr3eActor(actor, systemId) {
  return systemId === SR3E_SYSTEM_ID && actor?.system?.attributes !== undefined;
}

function attribute(actor, name) {
  return Math.max(1, stat(actor.system?.attributes?.[name], 1));
}

export function weaponModes(item) {
  const mode = key(item.system?.mode);
  return MODES.find(([prefix]) => mode.startsWith(prefix))?.[1] ?? [];
}

/** The firefight category of an sr3e weapon (its ammunition class), or null when it has none. */
export function weaponCategory(item) {
  return CATEGORY[key(item.system?.ammunitionClass)] ?? null;
}

/** The damage code: Power and level, physical or stun ("mStun" is M stun). */
export function damageCode(item) {
  const type = key(item.system?.damageType);
  const level = type.charAt(0).toUpperCase();
  return {
    power: Math.max(0, stat(item.system?.damage)),
    damage_level: ["L", "M", "S", "D"].includes(level) ? level : "M",
    damage_type: type.endsWith("stun") ? "stun" : "physical",
  };
}

/** Ranged weapons of the actor (those with a firing mode), by name. */
export function rangedWeapons(actor) {
  return [...(actor.items ?? [])]
    .filter((i) => i.type === "weapon" && weaponModes(i).length > 0)
    .sort((a, b) => String(a.name).localeCompare(String(b.name)));
}

/** The ammunition item loaded in the weapon (`system.ammoId`), or null. */
export function loadedAmmo(actor, item) {
  const id = item.system?.ammoId;
  const ammo = id ? actor.items?.get?.(id) : null;
  return ammo?.type === "ammunition" ? ammo : null;
}

/** An sr3e weapon item as firefight's SR3Weapon (category may need the dialog's choice). */
export function sr3Weapon(actor, item, { category = null } = {}) {
  return {
    id: item.id,
    category: category ?? weaponCategory(item),
    ...damageCode(item),
    modes: weaponModes(item),
    ammo: Math.max(0, num(loadedAmmo(actor, item)?.system?.rounds)),
    recoil_compensation: Math.max(0, stat(item.system?.recoilComp)),
  };
}

/** The rating of the skill the weapon is linked to (0 when it names none the actor has). */
export function weaponSkill(actor, item) {
  const id = item.system?.linkedSkillId || item.system?.linkedSkilliD || "";
  const skill = id ? actor.items?.get?.(id) : null;
  return skill?.type === "skill" ? Math.max(0, stat(skill.system?.activeSkill?.value)) : 0;
}

/** Every wearable with a rating, as armour pieces (layered by the service). */
export function armorPieces(actor) {
  return [...(actor.items ?? [])]
    .filter((i) => i.type === "wearable" && (num(i.system?.ballistic) > 0 || num(i.system?.impact) > 0))
    .slice(0, 10)
    .map((i) => ({ name: String(i.name ?? "").slice(0, 100), ballistic: Math.max(0, num(i.system?.ballistic)), impact: Math.max(0, num(i.system?.impact)) }));
}

/**
 * The wound level of the worse condition monitor, in boxes (SR3 p. 125: Light at 1, Moderate
 * at 3, Serious at 6, Deadly at 10).
 */
export function woundLevel(actor) {
  const health = actor.system?.health ?? {};
  const boxes = Math.max(stat(health.physical), stat(health.stun));
  if (boxes >= 10) return "D";
  if (boxes >= 6) return "S";
  if (boxes >= 3) return "M";
  if (boxes >= 1) return "L";
  return "none";
}

/** The Combat Pool's size as the sheet has it, or null (the service counts (Q + I + W) / 2). */
function combatPool(actor) {
  const pool = stat(actor.system?.dicePools?.combat);
  return pool > 0 ? { combat_pool: pool } : {};
}

/** An sr3e actor as firefight's SR3Attacker, for an attack with `item`. */
export function sr3Attacker(actor, item, { id }) {
  return {
    id,
    skill: weaponSkill(actor, item),
    quickness: attribute(actor, "quickness"),
    intelligence: attribute(actor, "intelligence"),
    willpower: attribute(actor, "willpower"),
    strength: attribute(actor, "strength"),
    ...combatPool(actor),
    armor: armorPieces(actor),
    wounds: woundLevel(actor),
  };
}

/** An sr3e actor as firefight's SR3Defender; its wounds raise its dodge's target number. */
export function sr3Defender(actor) {
  return {
    body: attribute(actor, "body"),
    quickness: attribute(actor, "quickness"),
    intelligence: attribute(actor, "intelligence"),
    willpower: attribute(actor, "willpower"),
    ...combatPool(actor),
    armor: armorPieces(actor),
    wounds: woundLevel(actor),
  };
}

/** The update that leaves `ammoLeft` rounds in the loaded ammunition item. */
export function ammoUpdate(ammoLeft) {
  return { "system.rounds": Math.max(0, num(ammoLeft)) };
}

/**
 * Where the system keeps each track of firefight's monitor (schemas/monitor.py): the physical and
 * stun monitors' boxes and the physical overflow (actor-components/Health.ts).
 */
export const TRACK_PATHS = Object.freeze({
  physical: "system.health.physical.value",
  stun: "system.health.stun.value",
  overflow: "system.health.overflow.value",
});

const MONITOR = 10;

/**
 * The update that adds `boxes` to a condition monitor of ten boxes (SR3 p. 125): stun past the
 * tenth box carries over into the physical monitor, box for box, and physical past the tenth
 * into `system.health.overflow` (SR3 p. 126; how the two carry over is this module's choice).
 */
export function trackUpdate(actor, track, boxes) {
  const health = actor.system?.health ?? {};
  const update = {};
  let physical = boxes;
  if (track === "stun") {
    const stun = num(health.stun?.value);
    const added = Math.min(Math.max(0, MONITOR - stun), boxes);
    update["system.health.stun.value"] = stun + added;
    physical = boxes - added;
    if (physical === 0) return update;
  } else if (track !== "physical") {
    throw new Error(`unknown condition monitor "${track}"`);
  }
  const now = num(health.physical?.value);
  const added = Math.min(Math.max(0, MONITOR - now), physical);
  update["system.health.physical.value"] = now + added;
  if (physical > added) update["system.health.overflow.value"] = num(health.overflow?.value) + physical - added;
  return update;
}

const clamp = (value, low, high) => Math.min(high, Math.max(low, value));

/**
 * An sr3e actor as the service's SR3Sheet (schemas/sr3.py), for the encounter's scene: what its
 * attacks and defences read, and its ranged weapons that name a category (those whose clip is
 * loaded carry its rounds, the others none), each with its own skill.
 */
export function sr3Sheet(actor) {
  const items = rangedWeapons(actor).filter((item) => weaponCategory(item)).slice(0, 20);
  const weapons = items.map((item) => {
    const w = sr3Weapon(actor, item);
    return { ...w, power: clamp(w.power, 0, 100), recoil_compensation: clamp(w.recoil_compensation, 0, 30), ammo: clamp(w.ammo, 0, 10_000) };
  });
  const attribute = (name) => clamp(stat(actor.system?.attributes?.[name], 1), 1, 30);
  const sheet = {
    ruleset: "sr3",
    body: attribute("body"),
    quickness: attribute("quickness"),
    strength: attribute("strength"),
    intelligence: attribute("intelligence"),
    willpower: attribute("willpower"),
    armor: armorPieces(actor).map((p) => ({ ...p, ballistic: clamp(p.ballistic, 0, 30), impact: clamp(p.impact, 0, 30) })),
    wounds: woundLevel(actor),
    weapons,
    weapon_skills: Object.fromEntries(items.map((item) => [item.id, clamp(weaponSkill(actor, item), 0, 30)])),
  };
  const pool = combatPool(actor).combat_pool;
  if (pool !== undefined) sheet.combat_pool = clamp(pool, 0, 100);
  if (items[0]) sheet.skill = clamp(weaponSkill(actor, items[0]), 0, 30);
  return sheet;
}

// What the sr3e system's actors and items hold, as firefight's SR3 request parts.
//
// The system is "Shadowrun Third Edition" (id "sr3e", github.com/mirnau/sr3e, DataModels instead
// of a template.json). Where each value lives is SR3E_PATHS below: one entry per version line,
// chosen by `game.system.version`, each path with the file and tag it was read at. Values of
// select fields are the keys of its config (v0.0.3-alpha.6 module/foundry/config.js `weaponMode`,
// `damageType`, `ammunitionClass`; the betas' module/services/combat/orchestration/
// weaponClassifier.ts names the same modes).

import { read, versionLine } from "./system-versions.mjs";

export const SR3E_SYSTEM_ID = "sr3e";

// The paths both lines have alike ("*" an attribute's or a monitor's key). Read at
// v0.0.3-alpha.6 (module/models/actor/CharacterModel.js, components/Attributes.js,
// SimpleStat.js, DicePools.js, Health.js; module/models/item/WeaponModel.js, AmmunitionModel.js,
// SkillModel.js, WearableModel.js) and v0.0.3-beta.5 (module/models/actors/CharacterModel.ts,
// actor-components/*.ts; module/models/items/*.ts); item types in system.json documentTypes.
const SR3E_SHARED = Object.freeze({
  // A SimpleStat {value, mod}: `mod` what active effects add.
  attribute: "system.attributes.*",
  combatPool: "system.dicePools.combat",
  // stun, physical, overflow: SimpleStat {value, mod}.
  health: "system.health.*",
  monitor: "system.health.*.value",
  weaponType: "weapon",
  ammunitionType: "ammunition",
  skillType: "skill",
  wearableType: "wearable",
  mode: "system.mode",
  damageType: "system.damageType",
  ammunitionClass: "system.ammunitionClass",
  // The skill item's id, or "id::n" with the index of the specialization used
  // (alpha.6 module/services/procedure/FSM/FirearmProcedure.js #resolveItemSkillAndSpec;
  // beta.5 module/services/combat/procedures/resolveLinkedSkill.ts parseLinkedSkillId).
  linkedSkill: "system.linkedSkillId",
  // What sheets wrote before v0.0.3-alpha.3 (commit 58e48b4 "Inventory Card" dropped it); still
  // read for worlds made then.
  linkedSkillBefore: "system.linkedSkilliD",
  // The loaded ammunition item's id; its `rounds` are what an attack spends (alpha.6
  // FirearmService.js AmmoService.consume; beta.5 procedures/ammoService.ts consume).
  ammoId: "system.ammoId",
  rounds: "system.rounds",
  skillRating: "system.activeSkill.value",
  ballistic: "system.ballistic",
  impact: "system.impact",
  // The combat's initiative pass: SR3ECombat sets the flag sr3e.initiativePass (1 at the start
  // and each new round, + 1 when every score left is 10 lower; alpha.6
  // module/foundry/documents/SR3ECombat.js, beta.5 module/documents/SR3ECombat.ts).
  combatPass: "flags.sr3e.initiativePass",
  // _advanceInitiativePass sets the flag in an update of its own and then the turn (0): the
  // tracker has moved with the turn's update, not the flag's (the combatant still on the turn
  // then has no phase in the new pass).
  combatPassAlone: false,
});

/**
 * sr3e's data paths per version line (oldest first; `since` the line's first release, `foundry`
 * the Foundry generation its manifests ask for: alpha.3 to alpha.6 minimum 13.340, the betas
 * minimum 14.361). The paths are the same; the weapon's Power and recoil compensation are
 * plain numbers in the alphas and {value, mod} in the betas (read either way).
 */
export const SR3E_PATHS = Object.freeze([
  Object.freeze({
    ...SR3E_SHARED,
    since: "0.0.1",
    line: "0.0.3-alpha",
    foundry: [13],
    // alpha.6 module/models/item/WeaponModel.js: NumberFields.
    damage: "system.damage",
    recoilComp: "system.recoilComp",
  }),
  Object.freeze({
    ...SR3E_SHARED,
    since: "0.0.3-beta.0",
    line: "0.0.3-beta",
    foundry: [14],
    // beta.5 module/models/items/WeaponModel.ts: EmbeddedDataField(ModifiableNumberModel), {value, mod}.
    damage: "system.damage",
    recoilComp: "system.recoilComp",
  }),
]);

/** The paths of the line `version` (game.system.version) runs; the newest when not given. */
export function sr3ePaths(version) {
  return versionLine(SR3E_PATHS, version);
}

const at = (path, key) => path.replace("*", key);

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

function attribute(actor, name, paths = sr3ePaths()) {
  return Math.max(1, stat(read(actor, at(paths.attribute, name)), 1));
}

export function weaponModes(item, { version } = {}) {
  const mode = key(read(item, sr3ePaths(version).mode));
  return MODES.find(([prefix]) => mode.startsWith(prefix))?.[1] ?? [];
}

/** The firefight category of an sr3e weapon (its ammunition class), or null when it has none. */
export function weaponCategory(item, { version } = {}) {
  return CATEGORY[key(read(item, sr3ePaths(version).ammunitionClass))] ?? null;
}

/** The damage code: Power and level, physical or stun ("mStun" is M stun). */
export function damageCode(item, { version } = {}) {
  const paths = sr3ePaths(version);
  const type = key(read(item, paths.damageType));
  const level = type.charAt(0).toUpperCase();
  return {
    power: Math.max(0, stat(read(item, paths.damage))),
    damage_level: ["L", "M", "S", "D"].includes(level) ? level : "M",
    damage_type: type.endsWith("stun") ? "stun" : "physical",
  };
}

/** Ranged weapons of the actor (those with a firing mode), by name. */
export function rangedWeapons(actor, { version } = {}) {
  return [...(actor.items ?? [])]
    .filter((i) => i.type === sr3ePaths(version).weaponType && weaponModes(i, { version }).length > 0)
    .sort((a, b) => String(a.name).localeCompare(String(b.name)));
}

/** The ammunition item loaded in the weapon (`system.ammoId`), or null. */
export function loadedAmmo(actor, item, { version } = {}) {
  const paths = sr3ePaths(version);
  const id = read(item, paths.ammoId);
  const ammo = id ? actor.items?.get?.(id) : null;
  return ammo?.type === paths.ammunitionType ? ammo : null;
}

/** An sr3e weapon item as firefight's SR3Weapon (category may need the dialog's choice). */
export function sr3Weapon(actor, item, { category = null, version } = {}) {
  const paths = sr3ePaths(version);
  return {
    id: item.id,
    category: category ?? weaponCategory(item, { version }),
    ...damageCode(item, { version }),
    modes: weaponModes(item, { version }),
    ammo: Math.max(0, num(read(loadedAmmo(actor, item, { version }), paths.rounds))),
    recoil_compensation: Math.max(0, stat(read(item, paths.recoilComp))),
  };
}

/**
 * The rating of the skill the weapon is linked to (0 when it names none the actor has): the
 * skill item's id before any "::" (the specialization's index, not used here).
 */
export function weaponSkill(actor, item, { version } = {}) {
  const paths = sr3ePaths(version);
  const linked = String(read(item, paths.linkedSkill) || read(item, paths.linkedSkillBefore) || "");
  const id = linked.split("::")[0].trim();
  const skill = id ? actor.items?.get?.(id) : null;
  return skill?.type === paths.skillType ? Math.max(0, stat(read(skill, paths.skillRating))) : 0;
}

/** Every wearable with a rating, as armour pieces (layered by the service). */
export function armorPieces(actor, { version } = {}) {
  const paths = sr3ePaths(version);
  const ballistic = (i) => Math.max(0, num(read(i, paths.ballistic)));
  const impact = (i) => Math.max(0, num(read(i, paths.impact)));
  return [...(actor.items ?? [])]
    .filter((i) => i.type === paths.wearableType && (ballistic(i) > 0 || impact(i) > 0))
    .slice(0, 10)
    .map((i) => ({ name: String(i.name ?? "").slice(0, 100), ballistic: ballistic(i), impact: impact(i) }));
}

/**
 * The wound level of the worse condition monitor, in boxes (SR3 p. 125: Light at 1, Moderate
 * at 3, Serious at 6, Deadly at 10).
 */
export function woundLevel(actor, { version } = {}) {
  const paths = sr3ePaths(version);
  const boxes = Math.max(stat(read(actor, at(paths.health, "physical"))), stat(read(actor, at(paths.health, "stun"))));
  if (boxes >= 10) return "D";
  if (boxes >= 6) return "S";
  if (boxes >= 3) return "M";
  if (boxes >= 1) return "L";
  return "none";
}

/** The Combat Pool's size as the sheet has it, or null (the service counts (Q + I + W) / 2). */
function combatPool(actor, paths) {
  const pool = stat(read(actor, paths.combatPool));
  return pool > 0 ? { combat_pool: pool } : {};
}

/** An sr3e actor as firefight's SR3Attacker, for an attack with `item`. */
export function sr3Attacker(actor, item, { id, version } = {}) {
  const paths = sr3ePaths(version);
  return {
    id,
    skill: weaponSkill(actor, item, { version }),
    quickness: attribute(actor, "quickness", paths),
    intelligence: attribute(actor, "intelligence", paths),
    willpower: attribute(actor, "willpower", paths),
    strength: attribute(actor, "strength", paths),
    ...combatPool(actor, paths),
    armor: armorPieces(actor, { version }),
    wounds: woundLevel(actor, { version }),
  };
}

/** An sr3e actor as firefight's SR3Defender; its wounds raise its dodge's target number. */
export function sr3Defender(actor, { version } = {}) {
  const paths = sr3ePaths(version);
  return {
    body: attribute(actor, "body", paths),
    quickness: attribute(actor, "quickness", paths),
    intelligence: attribute(actor, "intelligence", paths),
    willpower: attribute(actor, "willpower", paths),
    ...combatPool(actor, paths),
    armor: armorPieces(actor, { version }),
    wounds: woundLevel(actor, { version }),
  };
}

/** The update that leaves `ammoLeft` rounds in the loaded ammunition item. */
export function ammoUpdate(ammoLeft, { version } = {}) {
  return { [sr3ePaths(version).rounds]: Math.max(0, num(ammoLeft)) };
}

/**
 * Where the system keeps each track of firefight's monitor (schemas/monitor.py): the physical and
 * stun monitors' boxes and the physical overflow (Health).
 */
export function trackPaths({ version } = {}) {
  const paths = sr3ePaths(version);
  return Object.freeze({ physical: at(paths.monitor, "physical"), stun: at(paths.monitor, "stun"), overflow: at(paths.monitor, "overflow") });
}

const MONITOR = 10;

/**
 * The update that adds `boxes` to a condition monitor of ten boxes (SR3 p. 125): stun past the
 * tenth box carries over into the physical monitor, box for box, and physical past the tenth
 * into the overflow (SR3 p. 126; how the two carry over is this module's choice).
 */
export function trackUpdate(actor, track, boxes, { version } = {}) {
  const tracks = trackPaths({ version });
  const value = (path) => num(read(actor, path));
  const update = {};
  let physical = boxes;
  if (track === "stun") {
    const stun = value(tracks.stun);
    const added = Math.min(Math.max(0, MONITOR - stun), boxes);
    update[tracks.stun] = stun + added;
    physical = boxes - added;
    if (physical === 0) return update;
  } else if (track !== "physical") {
    throw new Error(`unknown condition monitor "${track}"`);
  }
  const now = value(tracks.physical);
  const added = Math.min(Math.max(0, MONITOR - now), physical);
  update[tracks.physical] = now + added;
  if (physical > added) update[tracks.overflow] = value(tracks.overflow) + physical - added;
  return update;
}

const clamp = (value, low, high) => Math.min(high, Math.max(low, value));

/**
 * An sr3e actor as the service's SR3Sheet (schemas/sr3.py), for the encounter's scene: what its
 * attacks and defences read, and its ranged weapons that name a category (those whose clip is
 * loaded carry its rounds, the others none), each with its own skill.
 */
export function sr3Sheet(actor, { version } = {}) {
  const paths = sr3ePaths(version);
  const items = rangedWeapons(actor, { version }).filter((item) => weaponCategory(item, { version })).slice(0, 20);
  const weapons = items.map((item) => {
    const w = sr3Weapon(actor, item, { version });
    return { ...w, power: clamp(w.power, 0, 100), recoil_compensation: clamp(w.recoil_compensation, 0, 30), ammo: clamp(w.ammo, 0, 10_000) };
  });
  const rating = (name) => clamp(attribute(actor, name, paths), 1, 30);
  const sheet = {
    ruleset: "sr3",
    body: rating("body"),
    quickness: rating("quickness"),
    strength: rating("strength"),
    intelligence: rating("intelligence"),
    willpower: rating("willpower"),
    armor: armorPieces(actor, { version }).map((p) => ({ ...p, ballistic: clamp(p.ballistic, 0, 30), impact: clamp(p.impact, 0, 30) })),
    wounds: woundLevel(actor, { version }),
    weapons,
    weapon_skills: Object.fromEntries(items.map((item) => [item.id, clamp(weaponSkill(actor, item, { version }), 0, 30)])),
  };
  const pool = combatPool(actor, paths).combat_pool;
  if (pool !== undefined) sheet.combat_pool = clamp(pool, 0, 100);
  if (items[0]) sheet.skill = clamp(weaponSkill(actor, items[0], { version }), 0, 30);
  return sheet;
}

/** Where the line keeps the combat's initiative pass. */
export function combatPassPath({ version } = {}) {
  return sr3ePaths(version).combatPass;
}

/** Whether an update of the pass alone moves the tracker (combat-sync.mjs trackerMoved). */
export function combatPassAlone({ version } = {}) {
  return sr3ePaths(version).combatPassAlone;
}

/** The combat's initiative pass (1 when it holds none yet). */
export function combatPass(combat, { version } = {}) {
  const n = Number(read(combat, combatPassPath({ version })));
  return Number.isFinite(n) && n >= 1 ? Math.trunc(n) : 1;
}

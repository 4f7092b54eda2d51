// What the shadowrun4e system's actors and items hold, as firefight's SR4 request parts.
//
// The system is "Shadowrun 4th Edition" (id "shadowrun4e", github.com/Tarislowatsch/
// Shadowrun4-FoundryVTT; DataModel classes under src/models/, its template.json lists only the
// types). Where each value lives is SR4E_PATHS below: one entry per version line, chosen by
// `game.system.version`, each path with the file and tag it was read at.

import { read, versionLine } from "./system-versions.mjs";

export const SR4E_SYSTEM_ID = "shadowrun4e";

// The paths both lines have alike ("*" a sheetStats key). Read at v0.1.25, v0.1.31, v1.0.1 and
// v1.22.0: src/models/actor/basecharacter.model.js (SR4SheetStatsData, armorField,
// derivedStatsField; SR4BaseCharacterData for character and npc), src/models/shared/
// schema-helper.js (baseDerivedStatsFields, genericWeaponSchema), src/models/items/
// weapons.model.js (SR4RangedWeaponData), src/models/actions/skills.model.js (SR4SkillData),
// template.json (the item types "Ranged Weapon" and "Skill").
const SR4E_SHARED = Object.freeze({
  stat: "system.sheetStats.*",
  ballistic: "system.armor.ballistic",
  impact: "system.armor.impact",
  // A positive magnitude (src/documents/derivedStats.mapper.js getWoundModifier).
  woundModifier: "system.derivedStats.woundModifier",
  // "physical/astral/matrix" (derivedStats.mapper.js computeDerivedStats).
  passes: "system.derivedStats.passesString",
  weaponType: "Ranged Weapon",
  skillType: "Skill",
  skillRating: "system.rating",
  damage: "system.damage",
  damageType: "system.damageType",
  ap: "system.ap",
  attackSkill: "system.attackSkill",
  // The weapon sheet's choice (a Shootingmodes key or its i18n key) or, in the system's own
  // compendium, the book's "SA/BF/FA" (utility/packs/ranged_weapons.json at v0.1.31 and v1.0.1).
  mode: "system.mode",
  // A StringField at v0.1.25 ("0", "2"), a NumberField from v0.1.31 on.
  rc: "system.rc",
  smartlink: "system.smartlink",
  monitorMax: "system.conditionMonitor.*.max",
});

// What 0.2.0 and later keep alike.
const SR4E_FROM_0_2 = Object.freeze({
  // v0.2.0 CHANGELOG "rename conditionMonitor.current to .value"; v1.0.1 and v1.22.0
  // schema-helper.js monitorField.
  monitor: "system.conditionMonitor.*.value",
  // v0.2.0 weapons.model.js: maxAmmo, currentAmmo (the attack spends it: "ammo quantity
  // depletion as batch update"); the same at v1.0.1 and v1.22.0.
  capacity: "system.maxAmmo",
  ammo: "system.currentAmmo",
  // SR4RangedWeaponData#prepareDerivedData: effectiveDamage, effectiveAP, effectiveDamageType
  // from v0.2.0; effectiveRC and effectiveSmartlink from v1.6.0 (weapons.model.js).
  effectiveDamage: "system.effectiveDamage",
  effectiveDamageType: "system.effectiveDamageType",
  effectiveAP: "system.effectiveAP",
  effectiveRC: "system.effectiveRC",
  effectiveSmartlink: "system.effectiveSmartlink",
  // From v1.12.0: schema-helper.js genericWeaponSchema `category`, its keys in
  // src/models/items/weapon.enums.js WeaponCategory (the compendium's "Assault Rifles" too).
  category: "system.category",
});

/**
 * shadowrun4e's data paths per version line (oldest first; `since` the line's first release,
 * `foundry` the Foundry generations its manifests allow: 0.1.25 to 0.1.31 minimum 13 and
 * verified 14, 0.1.32 on minimum 14). The marked boxes and the loaded rounds differ from 0.2.0
 * on, the combat's initiative pass exists from 1.0.1 on; what prepareDerivedData adds
 * (`effective...`) grew within 1.x and is read before the plain field.
 */
export const SR4E_PATHS = Object.freeze([
  Object.freeze({
    ...SR4E_SHARED,
    since: "0.1.0",
    line: "0.1.x",
    foundry: [13, 14],
    // v0.1.31 src/models/shared/schema-helper.js monitorField: {max, current, bonus, woundMod}.
    monitor: "system.conditionMonitor.*.current",
    // No loaded rounds: v0.1.31 src/models/items/weapons.model.js has only `ammo`, a StringField
    // with the book's capacity ("30(c)", "5(m)"; utility/packs/ranged_weapons.json), which no
    // attack changes. The rounds left are the module's own, kept on the weapon under this flag;
    // a weapon never fired holds a full load, the capacity's number.
    capacity: "system.ammo",
    ammo: "flags.firefight.rounds",
    // No ammunition items, no mods applied to the weapon, no category field (v0.1.31
    // weapons.model.js and schema-helper.js genericWeaponSchema).
    effectiveDamage: null,
    effectiveDamageType: null,
    effectiveAP: null,
    effectiveRC: null,
    effectiveSmartlink: null,
    category: null,
    // The Combat is Foundry's own (no src/documents/combat.js before v1.0.1): no pass.
    combatPass: null,
  }),
  Object.freeze({
    ...SR4E_SHARED,
    ...SR4E_FROM_0_2,
    since: "0.2.0",
    line: "0.2.0-1.0.0",
    foundry: [14],
    combatPass: null,
  }),
  Object.freeze({
    ...SR4E_SHARED,
    ...SR4E_FROM_0_2,
    since: "1.0.1",
    line: "1.0.1+",
    foundry: [14],
    // v1.0.1 and v1.22.0 src/documents/combat.js SR4Combat (CONFIG.Combat.documentClass,
    // src/shadowrun4e.js): `initiativePass` reads the flag shadowrun4e.initiativePass (1 when
    // unset); nextTurn sets it with the new pass's first turn in one update; _preUpdate sets
    // it to 1 with each new round.
    combatPass: "flags.shadowrun4e.initiativePass",
    // Set with the turn in one update; alone when the turn stays (one combatant).
    combatPassAlone: true,
  }),
]);

/** The paths of the line `version` (game.system.version) runs; the newest when not given. */
export function sr4ePaths(version) {
  return versionLine(SR4E_PATHS, version);
}

const at = (path, key) => path.replace("*", key);

/** weapon.enums.js WeaponCategory keys (letters only, lower case) -> firefight's SR4 categories (schemas/sr4.py). */
const CATEGORY = {
  holdouts: "hold_out_pistol",
  lightpistols: "light_pistol",
  heavypistols: "heavy_pistol",
  machinepistols: "smg",
  submachineguns: "smg",
  tasers: "taser",
  shotguns: "shotgun",
  sportsrifles: "sporting_rifle",
  sniperrifles: "sniper_rifle",
  assaultrifles: "assault_rifle",
  battlerifles: "assault_rifle",
  lightmachineguns: "light_machine_gun",
  mediummachineguns: "medium_machine_gun",
  heavymachineguns: "heavy_machine_gun",
  assaultcannons: "assault_cannon",
  grenadelaunchers: "grenade_launcher",
  missilelaunchers: "missile_launcher",
  bows: "bow",
  crossbows: "medium_crossbow",
};

// A Shootingmodes word, or the book's abbreviation the compendium keeps ("SA/BF/FA"), -> the
// mode it lets the weapon fire (001, "Firearms": SS, SA, BF, FA).
const MODE_WORDS = { single: "SS", semi: "SA", burst: "BF", full: "FA", ss: "SS", sa: "SA", bf: "BF", fa: "FA" };

function num(value, fallback = 0) {
  const n = Number(value);
  return Number.isFinite(n) ? Math.trunc(n) : fallback;
}

const clamp = (value, low, high) => Math.min(high, Math.max(low, value));

/** The number a value starts with ("30(c)", "2", 2), or null. */
function leadingNumber(value) {
  const match = /^\s*(-?\d+)/.exec(String(value ?? ""));
  return match ? Number(match[1]) : null;
}

/** The key's last part ("sr4.category.lightPistols" or "LIGHT_PISTOLS"): letters only, lower case. */
function key(value) {
  return String(value ?? "").split(".").at(-1).toLowerCase().replace(/[^a-z]/g, "");
}

export function isSr4eActor(actor, systemId) {
  return systemId === SR4E_SYSTEM_ID && actor?.system?.sheetStats !== undefined;
}

function stat(actor, name, paths = sr4ePaths()) {
  return clamp(num(read(actor, at(paths.stat, name)), 1), 1, 30);
}

function edge(actor, paths) {
  return clamp(num(read(actor, at(paths.stat, "EDGE"))), 0, 30);
}

/** The modes the weapon fires: each word of its mode ("semi-burst-full", "SA/BF/FA": SA, BF, FA). */
export function weaponModes(item, { version } = {}) {
  const words = String(read(item, sr4ePaths(version).mode) ?? "").split(".").at(-1).toLowerCase().split(/[^a-z]+/);
  const modes = [];
  for (const word of words) if (MODE_WORDS[word] && !modes.includes(MODE_WORDS[word])) modes.push(MODE_WORDS[word]);
  return ["SS", "SA", "BF", "FA"].filter((m) => modes.includes(m));
}

export function weaponCategory(item, { version } = {}) {
  return CATEGORY[key(read(item, sr4ePaths(version).category))] ?? null;
}

export function rangedWeapons(actor, { version } = {}) {
  const paths = sr4ePaths(version);
  return [...(actor.items ?? [])]
    .filter((i) => i.type === paths.weaponType && weaponModes(i, { version }).length > 0)
    .sort((a, b) => String(a.name).localeCompare(String(b.name)));
}

/** The rating of the actor's Skill item the weapon names (0 when it has none). */
export function weaponSkill(actor, item, { version } = {}) {
  const paths = sr4ePaths(version);
  const wanted = key(read(item, paths.attackSkill));
  if (!wanted || wanted === "none") return 0;
  const skill = [...(actor.items ?? [])].find((i) => i.type === paths.skillType && key(i.name) === wanted);
  return skill ? clamp(num(read(skill, paths.skillRating)), 0, 30) : 0;
}

/** What prepareDerivedData made of the field (ammo, mods) where the line has it, else the field. */
const derived = (item, paths, name, base) => (paths[name] ? read(item, paths[name]) : undefined) ?? read(item, paths[base]);

/**
 * The rounds in the weapon: 1.x keeps them (`currentAmmo`); 0.1.x keeps none, so the module's
 * own count on the weapon, else a full load (the capacity's number).
 */
export function roundsLoaded(item, { version } = {}) {
  const paths = sr4ePaths(version);
  const kept = read(item, paths.ammo);
  if (kept !== undefined && kept !== null) return clamp(num(kept), 0, 10_000);
  return clamp(leadingNumber(read(item, paths.capacity)) ?? 0, 0, 10_000);
}

/** A shadowrun4e ranged weapon as firefight's SR4Weapon (the category may need the dialog's choice). */
export function sr4Weapon(item, { category = null, version } = {}) {
  const paths = sr4ePaths(version);
  const type = key(derived(item, paths, "effectiveDamageType", "damageType"));
  return {
    id: item.id,
    category: category ?? weaponCategory(item, { version }),
    damage: clamp(num(derived(item, paths, "effectiveDamage", "damage")), 0, 100),
    damage_type: type.startsWith("stun") ? "S" : "P",
    ap: clamp(num(derived(item, paths, "effectiveAP", "ap")), -30, 30),
    rc: clamp(leadingNumber(derived(item, paths, "effectiveRC", "rc")) ?? 0, 0, 30),
    modes: weaponModes(item, { version }),
    ammo: roundsLoaded(item, { version }),
    smartgun: Boolean(derived(item, paths, "effectiveSmartlink", "smartlink")),
  };
}

export function woundModifier(actor, { version } = {}) {
  return clamp(0 - Math.abs(num(read(actor, sr4ePaths(version).woundModifier))), -30, 0);
}

/** Physical Initiative Passes: the first number of `passesString` ("2/3/0"), 1 to 4. */
export function initiativePasses(actor, { version } = {}) {
  const first = String(read(actor, sr4ePaths(version).passes) ?? "1").split("/")[0];
  return clamp(num(first, 1), 1, 4);
}

/** A shadowrun4e actor as firefight's SR4Attacker, for an attack with `item`. */
export function sr4Attacker(actor, item, { id, version } = {}) {
  const paths = sr4ePaths(version);
  return {
    id,
    agility: stat(actor, "AGILITY", paths),
    skill: weaponSkill(actor, item, { version }),
    strength: stat(actor, "STRENGTH", paths),
    intuition: stat(actor, "INTUITION", paths),
    edge: edge(actor, paths),
    wound_modifier: woundModifier(actor, { version }),
  };
}

function armor(actor, paths) {
  return { ballistic_armor: clamp(num(read(actor, paths.ballistic)), 0, 30), impact_armor: clamp(num(read(actor, paths.impact)), 0, 30) };
}

/**
 * A shadowrun4e actor as firefight's SR4Defender (Dodge is not on the sheet: the dialog's). Its
 * wound modifier lowers its defense and zone tests, never its soak (SR4 core, "Wound Modifiers").
 */
export function sr4Defender(actor, { version } = {}) {
  const paths = sr4ePaths(version);
  return {
    reaction: stat(actor, "REACTION", paths),
    body: stat(actor, "BODY", paths),
    edge: edge(actor, paths),
    ...armor(actor, paths),
    wound_modifier: woundModifier(actor, { version }),
  };
}

/** The update that leaves `ammoLeft` rounds in the weapon (0.1.x: the module's flag on it). */
export function ammoUpdate(ammoLeft, { version } = {}) {
  return { [sr4ePaths(version).ammo]: Math.max(0, num(ammoLeft)) };
}

/**
 * Where the system keeps each track of firefight's monitor (schemas/monitor.py): the physical and
 * stun monitors' boxes (schema-helper.js, monitorField). It has no overflow field (only a
 * `modifiers.overflowBonus`): the service's overflow is not shown on the sheet.
 */
export function trackPaths({ version } = {}) {
  const paths = sr4ePaths(version);
  return Object.freeze({ physical: at(paths.monitor, "physical"), stun: at(paths.monitor, "stun") });
}

/**
 * The update that adds `boxes` to a condition monitor (its `max` boxes): stun past its last box
 * carries into the physical monitor, box for box (SR4 core, "Condition Monitors"); physical
 * stops at its last box (overflow is the GM's).
 */
export function trackUpdate(actor, track, boxes, { version } = {}) {
  if (track !== "physical" && track !== "stun") throw new Error(`unknown condition monitor "${track}"`);
  const paths = sr4ePaths(version);
  const tracks = trackPaths({ version });
  const max = (name) => num(read(actor, at(paths.monitorMax, name)), 10);
  const update = {};
  let physical = boxes;
  if (track === "stun") {
    const now = num(read(actor, tracks.stun));
    const added = Math.min(Math.max(0, max("stun") - now), boxes);
    update[tracks.stun] = now + added;
    physical = boxes - added;
    if (physical === 0) return update;
  }
  const now = num(read(actor, tracks.physical));
  update[tracks.physical] = Math.min(max("physical"), now + physical);
  return update;
}

/** A shadowrun4e actor as the service's SR4Sheet (schemas/sr4.py), for the encounter's scene. */
export function sr4Sheet(actor, { version } = {}) {
  const paths = sr4ePaths(version);
  const items = rangedWeapons(actor, { version }).filter((item) => weaponCategory(item, { version })).slice(0, 20);
  const sheet = {
    ruleset: "sr4",
    agility: stat(actor, "AGILITY", paths),
    strength: stat(actor, "STRENGTH", paths),
    reaction: stat(actor, "REACTION", paths),
    intuition: stat(actor, "INTUITION", paths),
    body: stat(actor, "BODY", paths),
    // What sizes the stun track of the service's condition monitor.
    willpower: stat(actor, "WILLPOWER", paths),
    edge: edge(actor, paths),
    ...armor(actor, paths),
    wound_modifier: woundModifier(actor, { version }),
    initiative_passes: initiativePasses(actor, { version }),
    weapons: items.map((item) => sr4Weapon(item, { version })),
    weapon_skills: Object.fromEntries(items.map((item) => [item.id, weaponSkill(actor, item, { version })])),
  };
  if (items[0]) sheet.skill = weaponSkill(actor, items[0], { version });
  return sheet;
}

/** Where the line keeps the combat's initiative pass (null: it keeps none). */
export function combatPassPath({ version } = {}) {
  return sr4ePaths(version).combatPass;
}

/** Whether an update of the pass alone moves the tracker (combat-sync.mjs trackerMoved). */
export function combatPassAlone({ version } = {}) {
  return sr4ePaths(version).combatPassAlone === true;
}

/** The combat's initiative pass where the line keeps it (1 when it keeps none or holds none yet). */
export function combatPass(combat, { version } = {}) {
  const n = Number(read(combat, combatPassPath({ version })));
  return Number.isFinite(n) && n >= 1 ? Math.trunc(n) : 1;
}

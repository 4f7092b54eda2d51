// What the shadowrun5e system's actors, weapons and combats hold, as firefight's SR5 request parts.
//
// Where each value lives is SR5_PATHS below: one entry per version line of the system
// (github.com/SR5-FoundryVTT/SR5-FoundryVTT), chosen by `game.system.version`, each path with
// the file and tag it was read at. 0.25.2 keeps its data in template.json; 0.33.2, 0.34.5 and
// 0.36.2 (what 0.35+ runs on Foundry v14) in DataModels under src/module/types/.

import { read, versionLine } from "./system-versions.mjs";

export const SYSTEM_ID = "shadowrun5e";

// The paths every line has alike ("*" is an attribute's or a skill's key). Read at 0.25.2
// (template.json: Actor templates attributes, skills, common, condition_monitors; Item
// templates action, technology, weapon), at 0.33.2 and at 0.36.2 (src/module/types/:
// template/Attributes.ts AttributeField and EdgeAttributeField, template/Skills.ts, actor/Character.ts,
// template/ConditionMonitors.ts Tracks, item/Weapon.ts WeaponData, item/Action.ts
// MinimalActionData and DamageData, template/Technology.ts).
const SR5_SHARED = Object.freeze({
  attribute: "system.attributes.*.value",
  // Edge points left: EdgeAttributeField `uses` (SR5Actor.useEdge lowers it).
  edgeUses: "system.attributes.edge.uses",
  // From 0.33.0 the active skills are derived from the actor's "skill" items, keyed by the
  // skill's name as a key (SkillFieldPrep.prepareActorSkills, SkillNamingFlow.nameToKey at
  // 0.33.2 and 0.36.2); before, stored on the actor (0.25.2 template.json). The same path.
  skill: "system.skills.active.*.value",
  // SR5Actor.getWoundModifier (src/module/actor/SR5Actor.ts): its negative.
  wounds: "system.wounds.value",
  physical: "system.track.physical.value",
  physicalMax: "system.track.physical.max",
  stun: "system.track.stun.value",
  stunMax: "system.track.stun.max",
  overflow: "system.track.physical.overflow.value",
  overflowMax: "system.track.physical.overflow.max",
  // Weapons: item type "weapon" (system.json documentTypes / template.json Item types).
  weaponType: "weapon",
  weaponCategory: "system.category",
  subcategory: "system.subcategory",
  rangeCategory: "system.range.ranges.category",
  rc: "system.range.rc.value",
  modes: "system.range.modes",
  ammo: "system.ammo.current.value",
  damage: "system.action.damage.value",
  damageType: "system.action.damage.type.value",
  ap: "system.action.damage.ap.value",
  accuracy: "system.action.limit.value",
  // A skill's key ("automatics"), as the importers write it (0.25.2
  // src/module/apps/itemImport/parser/weapon/WeaponParserBase.ts; 0.36.2
  // src/module/apps/actorImport/itemImporter/weaponImport/WeaponParser.ts).
  actionSkill: "system.action.skill",
  actionAttribute: "system.action.attribute",
  equipped: "system.technology.equipped",
});

/**
 * shadowrun5e's data paths per version line (oldest first; `since` the line's first release,
 * `foundry` the Foundry generations its manifests allow). Only the armour, the combat's
 * initiative pass and the pass's padding combatants differ between them.
 */
export const SR5_PATHS = Object.freeze([
  Object.freeze({
    ...SR5_SHARED,
    since: "0.25.0",
    line: "0.25-0.33",
    // 0.25.x: minimum 11, verified 12; 0.26.0 to 0.33.x: minimum and maximum 13 (system.json).
    foundry: [12, 13],
    // 0.25.2 template.json Actor templates.armor {base, value, mod}; 0.33.2
    // src/module/types/template/Armor.ts ActorArmorData (ModifiableValueSchema: value).
    armor: "system.armor.value",
    // SR5Combat#initiativePass reads the flag shadowrun5e.combatInitiativePass and
    // handleIniPass writes it (0.25.2 and 0.33.2 src/module/combat/SR5Combat.ts, FLAGS in
    // src/module/constants.ts); the Combat has no system data.
    combatPass: "flags.shadowrun5e.combatInitiativePass",
    // handleIniPass sets it with turn 0 in one update: alone when the turn is 0 already.
    combatPassAlone: true,
    // No padding combatants before 0.34.
    combatantPad: null,
  }),
  Object.freeze({
    ...SR5_SHARED,
    since: "0.34.0",
    line: "0.34",
    // 0.34.x: minimum and maximum 13 (system.json).
    foundry: [13],
    // 0.34.5 src/module/types/template/Armor.ts: ActorArmorData.rating (ModifiableField);
    // ItemPrep.prepareArmor adds the worn armour there; Version0_34_0.migrateActorArmor moved
    // the old `armor.base` to `armor.rating.base`.
    armor: "system.armor.rating.value",
    // 0.34.5 src/module/types/combat/Combat.ts CombatData.pass (CONFIG.Combat.dataModels.base,
    // src/module/hooks.ts); SR5Combat#pass returns it and nextPass/nextRound write it.
    // Version0_34_0.migrateCombat copies the old flag there and leaves the flag behind: the
    // flag is stale from 0.34 on and never read.
    combatPass: "system.pass",
    // nextPass updates the pass alone (the turn on a padding combatant), then nextTurn(true).
    combatPassAlone: true,
    // 0.34.5 src/module/types/combat/Combatant.ts CombatantData.pad: SR5Combat#nextPass
    // creates one combatant `{system: {pad: true}}` (no actor, no token) per combatant to push
    // the turns down the new pass; nextRound deletes them.
    combatantPad: "system.pad",
  }),
  Object.freeze({
    ...SR5_SHARED,
    since: "0.35.0",
    line: "0.35+",
    // 0.35.0 to 0.36.x: minimum and maximum 14 (system.json).
    foundry: [14],
    // The same as 0.34 (0.36.2 src/module/types/template/Armor.ts, types/combat/Combat.ts,
    // types/combat/Combatant.ts, combat/SR5Combat.ts nextPass).
    armor: "system.armor.rating.value",
    combatPass: "system.pass",
    combatPassAlone: true,
    combatantPad: "system.pad",
  }),
]);

/** The paths of the line `version` (game.system.version) runs; the newest when not given. */
export function sr5Paths(version) {
  return versionLine(SR5_PATHS, version);
}

const at = (path, key) => path.replace("*", key);

/** Range categories of the system (src/module/config.ts, weaponRangeCategories) -> firefight categories. */
const RANGE_CATEGORY = {
  taser: "taser",
  holdOutPistol: "hold_out_pistol",
  lightPistol: "light_pistol",
  heavyPistol: "heavy_pistol",
  machinePistol: "machine_pistol",
  smg: "submachine_gun",
  assaultRifle: "assault_rifle",
  shotgunFlechette: "shotgun_flechette",
  shotgunSlug: "shotgun",
  sniperRifle: "sniper_rifle",
  lightMachinegun: "light_machine_gun",
  mediumHeavyMachinegun: "medium_machine_gun",
  assaultCannon: "assault_cannon",
  grenadeLauncher: "grenade_launcher",
  missileLauncher: "missile_launcher",
};

/** Chummer weapon categories as the importer stores them (lower case) -> firefight categories. */
const SUBCATEGORY = {
  tasers: "taser",
  holdouts: "hold_out_pistol",
  "light pistols": "light_pistol",
  "heavy pistols": "heavy_pistol",
  "machine pistols": "machine_pistol",
  "submachine guns": "submachine_gun",
  "assault rifles": "assault_rifle",
  "sniper rifles": "sniper_rifle",
  "light machineguns": "light_machine_gun",
  "medium machineguns": "medium_machine_gun",
  "heavy machineguns": "heavy_machine_gun",
  "assault cannons": "assault_cannon",
  "grenade launchers": "grenade_launcher",
  "missile launchers": "missile_launcher",
};

/** The skill a category of gun uses when the weapon names none (SR5 core: firearms skills). */
const SKILL_BY_CATEGORY = {
  taser: "pistols",
  hold_out_pistol: "pistols",
  light_pistol: "pistols",
  heavy_pistol: "pistols",
  machine_pistol: "automatics",
  submachine_gun: "automatics",
  assault_rifle: "automatics",
  shotgun: "longarms",
  shotgun_flechette: "longarms",
  sniper_rifle: "longarms",
  light_machine_gun: "heavy_weapons",
  medium_machine_gun: "heavy_weapons",
  heavy_machine_gun: "heavy_weapons",
  assault_cannon: "heavy_weapons",
  grenade_launcher: "heavy_weapons",
  missile_launcher: "heavy_weapons",
};

const MODE_FIELDS = [
  ["single_shot", "SS"],
  ["semi_auto", "SA"],
  ["burst_fire", "BF"],
  ["full_auto", "FA"],
];

function num(value, fallback = 0) {
  const n = Number(value);
  return Number.isFinite(n) ? Math.trunc(n) : fallback;
}

export function isShadowrunActor(actor, systemId) {
  return systemId === SYSTEM_ID && actor?.system?.attributes !== undefined;
}

function attribute(actor, name, paths = sr5Paths()) {
  return num(read(actor, at(paths.attribute, name)), 1);
}

/** An attribute's rating (`value`), 1 when the actor has none. */
export function attributeValue(actor, name, { version } = {}) {
  return attribute(actor, name, sr5Paths(version));
}

/** An active skill's rating by its key (`gymnastics`), 0 when the actor has none. */
export function skillValue(actor, key, { version } = {}) {
  return Math.max(0, num(read(actor, at(sr5Paths(version).skill, key))));
}

/** The actor's armor rating where its line keeps it (0.34+: `armor.rating`). */
export function armorValue(actor, { version } = {}) {
  return Math.max(0, num(read(actor, sr5Paths(version).armor)));
}

/** The firefight category of a shadowrun5e weapon, or null when the item does not say. */
export function weaponCategory(item, { version } = {}) {
  const paths = sr5Paths(version);
  const sub = String(read(item, paths.subcategory) ?? "").trim().toLowerCase();
  const rangeCategory = read(item, paths.rangeCategory);
  if (sub === "shotguns") return rangeCategory === "shotgunFlechette" ? "shotgun_flechette" : "shotgun";
  return SUBCATEGORY[sub] ?? RANGE_CATEGORY[rangeCategory] ?? null;
}

export function weaponModes(item, { version } = {}) {
  const modes = read(item, sr5Paths(version).modes) ?? {};
  return MODE_FIELDS.filter(([field]) => modes[field]).map(([, mode]) => mode);
}

/** Ranged weapons of the actor (equipped first), as the dialog lists them. */
export function rangedWeapons(actor, { version } = {}) {
  const paths = sr5Paths(version);
  const items = [...(actor.items ?? [])].filter((i) => i.type === paths.weaponType && read(i, paths.weaponCategory) === "range");
  const equipped = (i) => (read(i, paths.equipped) ? 0 : 1);
  return items.sort((a, b) => equipped(a) - equipped(b) || String(a.name).localeCompare(String(b.name)));
}

/** A shadowrun5e weapon item as firefight's SR5Weapon (category may need the dialog's choice). */
export function sr5Weapon(item, { category = null, version } = {}) {
  const paths = sr5Paths(version);
  const damageType = read(item, paths.damageType) === "stun" ? "S" : "P";
  return {
    id: item.id,
    category: category ?? weaponCategory(item, { version }),
    damage: Math.max(0, num(read(item, paths.damage))),
    damage_type: damageType,
    ap: num(read(item, paths.ap)),
    accuracy: Math.max(0, num(read(item, paths.accuracy))),
    rc: Math.max(0, num(read(item, paths.rc))),
    modes: weaponModes(item, { version }),
    ammo: Math.max(0, num(read(item, paths.ammo))),
  };
}

/** The active skill rating the weapon uses (its action's skill, else the category's). */
export function weaponSkill(actor, item, category, { version } = {}) {
  const skillId = read(item, sr5Paths(version).actionSkill) || SKILL_BY_CATEGORY[category] || "";
  return { id: skillId, value: skillId ? skillValue(actor, skillId, { version }) : 0 };
}

/** A shadowrun5e actor as firefight's SR5Attacker, for an attack with `item`. */
export function sr5Attacker(actor, item, { id, category = null, version } = {}) {
  const paths = sr5Paths(version);
  const cat = category ?? weaponCategory(item, { version });
  const attributeName = read(item, paths.actionAttribute) || "agility";
  return {
    id,
    agility: attribute(actor, attributeName, paths),
    strength: attribute(actor, "strength", paths),
    willpower: attribute(actor, "willpower", paths),
    intuition: attribute(actor, "intuition", paths),
    edge: Math.max(0, num(read(actor, at(paths.attribute, "edge")))),
    skill: weaponSkill(actor, item, cat, { version }).value,
    wound_modifier: woundModifier(actor, { version }),
  };
}

/** The wound modifier: the negative of the wounds (0, never -0, unwounded). */
export function woundModifier(actor, { version } = {}) {
  return Math.min(0, -num(read(actor, sr5Paths(version).wounds))) || 0;
}

/** A shadowrun5e actor as firefight's SR5Defender. */
export function sr5Defender(actor, { version } = {}) {
  const paths = sr5Paths(version);
  return {
    reaction: attribute(actor, "reaction", paths),
    intuition: attribute(actor, "intuition", paths),
    body: attribute(actor, "body", paths),
    willpower: attribute(actor, "willpower", paths),
    armor: armorValue(actor, { version }),
    agility: attribute(actor, "agility", paths),
    charisma: attribute(actor, "charisma", paths),
    gymnastics: skillValue(actor, "gymnastics", { version }),
    perception: skillValue(actor, "perception", { version }),
    // A wounded defender defends (and tests against a zone) with fewer dice; never soaks so.
    wound_modifier: woundModifier(actor, { version }),
  };
}

/** Edge points the actor has left (`uses`), to refuse Push the Limit without any. */
export function edgeLeft(actor, { version } = {}) {
  return Math.max(0, num(read(actor, sr5Paths(version).edgeUses)));
}

/** The update that leaves `ammoLeft` rounds in the weapon. */
export function ammoUpdate(ammoLeft, { version } = {}) {
  return { [sr5Paths(version).ammo]: Math.max(0, num(ammoLeft)) };
}

/** The update that spends `spent` Edge points (as SR5Actor.useEdge lowers `uses`). */
export function edgeUpdate(actor, spent, { version } = {}) {
  const path = sr5Paths(version).edgeUses;
  return { [path]: Math.max(0, num(read(actor, path)) - Math.max(0, num(spent))) };
}

/**
 * Where the system keeps each track of firefight's monitor (schemas/monitor.py): the boxes marked
 * on the physical and stun tracks and the physical overflow.
 */
export function trackPaths({ version } = {}) {
  const paths = sr5Paths(version);
  return Object.freeze({ physical: paths.physical, stun: paths.stun, overflow: paths.overflow });
}

/**
 * The update that adds `boxes` to a condition monitor, as the system does it
 * (SR5Actor.addStunDamage / addPhysicalDamage, src/module/actor/SR5Actor.ts): boxes past the
 * end of the stun track overflow into the physical track at half (SR5E#170, floored), and past
 * the end of the physical track into its overflow.
 */
export function trackUpdate(actor, track, boxes, { version } = {}) {
  const paths = sr5Paths(version);
  const value = (path) => num(read(actor, path));
  const update = {};
  let physicalBoxes = 0;
  if (track === "stun") {
    const now = value(paths.stun);
    const added = Math.min(Math.max(0, value(paths.stunMax) - now), boxes);
    update[paths.stun] = now + added;
    physicalBoxes = Math.floor((boxes - added) / 2);
    if (physicalBoxes === 0) return update;
  } else if (track === "physical") {
    physicalBoxes = boxes;
  } else {
    throw new Error(`unknown condition monitor "${track}"`);
  }
  const now = value(paths.physical);
  const added = Math.min(Math.max(0, value(paths.physicalMax) - now), physicalBoxes);
  update[paths.physical] = now + added;
  const over = physicalBoxes - added;
  if (over > 0) update[paths.overflow] = Math.min(num(read(actor, paths.overflowMax), Infinity), value(paths.overflow) + over);
  return update;
}

/** Whether a combatant is one of the pass's padding combatants (0.34+), which stand for no actor. */
export function isPaddingCombatant(combatant, { version } = {}) {
  const path = sr5Paths(version).combatantPad;
  return path !== null && read(combatant, path) === true;
}

/** Where the line keeps the combat's initiative pass. */
export function combatPassPath({ version } = {}) {
  return sr5Paths(version).combatPass;
}

/** Whether an update of the pass alone moves the tracker (combat-sync.mjs trackerMoved). */
export function combatPassAlone({ version } = {}) {
  return sr5Paths(version).combatPassAlone;
}

/** The combat's initiative pass where the line keeps it (1 when it holds none yet). */
export function combatPass(combat, { version } = {}) {
  const n = Number(read(combat, combatPassPath({ version })));
  return Number.isFinite(n) && n >= 1 ? Math.trunc(n) : 1;
}

// What the shadowrun5e system's actors and weapons hold, as firefight's SR5 request parts.
//
// Field names are the system's data model (SR5-FoundryVTT/SR5-FoundryVTT):
// - attributes `system.attributes.<name>.value`, Edge `.value` (rating) and `.uses` (points
//   left): src/module/types/template/Attributes.ts (AttributeField, EdgeAttributeField);
// - active skills `system.skills.active.<id>.value`: src/module/types/template/Skills.ts;
// - wounds `system.wounds.value`, the modifier being its negative (SR5Actor.getWoundModifier,
//   src/module/actor/SR5Actor.ts); armor `system.armor.value` (src/module/types/template/Armor.ts);
// - condition monitors `system.track.physical|stun.{value,max}`, physical `overflow`:
//   src/module/types/template/ConditionMonitors.ts;
// - weapons (item type "weapon"): `system.category` range|melee|thrown, `system.subcategory`
//   (the Chummer category, lower case), `system.range.rc.value`, `system.range.modes.{single_shot,
//   semi_auto,burst_fire,full_auto}`, `system.range.ranges.category`, `system.ammo.current.{value,max}`:
//   src/module/types/item/Weapon.ts; damage `system.action.damage.value`, its type
//   `system.action.damage.type.value` (physical|stun|matrix), AP `system.action.damage.ap.value`,
//   accuracy `system.action.limit.value`, skill `system.action.skill`, attribute
//   `system.action.attribute`: src/module/types/item/Action.ts (DamageData, MinimalActionData) and
//   the importer src/module/apps/importer/parser/weapon/WeaponParserBase.ts;
// - `system.technology.equipped`: src/module/types/template/Technology.ts.

export const SYSTEM_ID = "shadowrun5e";

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

function attribute(actor, name) {
  return num(actor.system?.attributes?.[name]?.value, 1);
}

/** The firefight category of a shadowrun5e weapon, or null when the item does not say. */
export function weaponCategory(item) {
  const sub = String(item.system?.subcategory ?? "").trim().toLowerCase();
  const rangeCategory = item.system?.range?.ranges?.category;
  if (sub === "shotguns") return rangeCategory === "shotgunFlechette" ? "shotgun_flechette" : "shotgun";
  return SUBCATEGORY[sub] ?? RANGE_CATEGORY[rangeCategory] ?? null;
}

export function weaponModes(item) {
  const modes = item.system?.range?.modes ?? {};
  return MODE_FIELDS.filter(([field]) => modes[field]).map(([, mode]) => mode);
}

/** Ranged weapons of the actor (equipped first), as the dialog lists them. */
export function rangedWeapons(actor) {
  const items = [...(actor.items ?? [])].filter((i) => i.type === "weapon" && i.system?.category === "range");
  const equipped = (i) => (i.system?.technology?.equipped ? 0 : 1);
  return items.sort((a, b) => equipped(a) - equipped(b) || String(a.name).localeCompare(String(b.name)));
}

/** A shadowrun5e weapon item as firefight's SR5Weapon (category may need the dialog's choice). */
export function sr5Weapon(item, { category = null } = {}) {
  const s = item.system ?? {};
  const damageType = s.action?.damage?.type?.value === "stun" ? "S" : "P";
  return {
    id: item.id,
    category: category ?? weaponCategory(item),
    damage: Math.max(0, num(s.action?.damage?.value)),
    damage_type: damageType,
    ap: num(s.action?.damage?.ap?.value),
    accuracy: Math.max(0, num(s.action?.limit?.value)),
    rc: Math.max(0, num(s.range?.rc?.value)),
    modes: weaponModes(item),
    ammo: Math.max(0, num(s.ammo?.current?.value)),
  };
}

/** The active skill rating the weapon uses (its action's skill, else the category's). */
export function weaponSkill(actor, item, category) {
  const skillId = item.system?.action?.skill || SKILL_BY_CATEGORY[category] || "";
  const skill = actor.system?.skills?.active?.[skillId];
  return { id: skillId, value: Math.max(0, num(skill?.value)) };
}

/** A shadowrun5e actor as firefight's SR5Attacker, for an attack with `item`. */
export function sr5Attacker(actor, item, { id, category = null } = {}) {
  const cat = category ?? weaponCategory(item);
  const attributeName = item.system?.action?.attribute || "agility";
  return {
    id,
    agility: attribute(actor, attributeName === "agility" ? "agility" : attributeName),
    strength: attribute(actor, "strength"),
    willpower: attribute(actor, "willpower"),
    intuition: attribute(actor, "intuition"),
    edge: Math.max(0, num(actor.system?.attributes?.edge?.value)),
    skill: weaponSkill(actor, item, cat).value,
    wound_modifier: woundModifier(actor),
  };
}

/** The wound modifier: the negative of `system.wounds.value` (0, never -0, unwounded). */
function woundModifier(actor) {
  return Math.min(0, -num(actor.system?.wounds?.value)) || 0;
}

/** A shadowrun5e actor as firefight's SR5Defender. */
export function sr5Defender(actor) {
  return {
    reaction: attribute(actor, "reaction"),
    intuition: attribute(actor, "intuition"),
    body: attribute(actor, "body"),
    willpower: attribute(actor, "willpower"),
    armor: Math.max(0, num(actor.system?.armor?.value)),
    agility: attribute(actor, "agility"),
    charisma: attribute(actor, "charisma"),
    gymnastics: Math.max(0, num(actor.system?.skills?.active?.gymnastics?.value)),
    perception: Math.max(0, num(actor.system?.skills?.active?.perception?.value)),
    // A wounded defender defends (and tests against a zone) with fewer dice; never soaks so.
    wound_modifier: woundModifier(actor),
  };
}

/** Edge points the actor has left (`uses`), to refuse Push the Limit without any. */
export function edgeLeft(actor) {
  return Math.max(0, num(actor.system?.attributes?.edge?.uses));
}

/** The update that leaves `ammoLeft` rounds in the weapon (system.ammo.current.value). */
export function ammoUpdate(ammoLeft) {
  return { "system.ammo.current.value": Math.max(0, num(ammoLeft)) };
}

/** The update that spends `spent` Edge points (as SR5Actor.useEdge lowers `uses`). */
export function edgeUpdate(actor, spent) {
  const uses = num(actor.system?.attributes?.edge?.uses);
  return { "system.attributes.edge.uses": Math.max(0, uses - Math.max(0, num(spent))) };
}

/**
 * Where the system keeps each track of firefight's monitor (schemas/monitor.py): the boxes marked
 * on the physical and stun tracks and the physical overflow (ConditionMonitors.ts).
 */
export const TRACK_PATHS = Object.freeze({
  physical: "system.track.physical.value",
  stun: "system.track.stun.value",
  overflow: "system.track.physical.overflow.value",
});

/**
 * The update that adds `boxes` to a condition monitor, as the system does it
 * (SR5Actor.addStunDamage / addPhysicalDamage, src/module/actor/SR5Actor.ts): boxes past the
 * end of the stun track overflow into the physical track at half (SR5E#170, floored), and past
 * the end of the physical track into its overflow.
 */
export function trackUpdate(actor, track, boxes) {
  const tracks = actor.system?.track ?? {};
  const update = {};
  let physicalBoxes = 0;
  if (track === "stun") {
    const stun = tracks.stun ?? { value: 0, max: 0 };
    const room = Math.max(0, num(stun.max) - num(stun.value));
    const added = Math.min(room, boxes);
    update["system.track.stun.value"] = num(stun.value) + added;
    physicalBoxes = Math.floor((boxes - added) / 2);
    if (physicalBoxes === 0) return update;
  } else if (track === "physical") {
    physicalBoxes = boxes;
  } else {
    throw new Error(`unknown condition monitor "${track}"`);
  }
  const physical = tracks.physical ?? { value: 0, max: 0, overflow: { value: 0, max: 0 } };
  const room = Math.max(0, num(physical.max) - num(physical.value));
  const added = Math.min(room, physicalBoxes);
  update["system.track.physical.value"] = num(physical.value) + added;
  const over = physicalBoxes - added;
  if (over > 0) {
    const overflow = physical.overflow ?? { value: 0, max: 0 };
    update["system.track.physical.overflow.value"] = Math.min(num(overflow.max, Infinity), num(overflow.value) + over);
  }
  return update;
}

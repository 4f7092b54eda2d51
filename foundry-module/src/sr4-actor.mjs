// What the shadowrun4e system's actors and items hold, as firefight's SR4 request parts.
//
// The system is "Shadowrun 4th Edition" (id "shadowrun4e", github.com/Tarislowatsch/
// Shadowrun4-FoundryVTT, v1.0.1 for Foundry v14; DataModel classes, its template.json lists only
// the types). Field names are its data models:
// - attributes `system.sheetStats.<BODY|AGILITY|REACTION|STRENGTH|INTUITION|EDGE>` (numbers):
//   src/models/shared/schema-helper.js (SR4SheetStatsData), used by
//   src/models/actor/basecharacter.model.js (SR4BaseCharacterData: character and npc);
// - armour `system.armor.{ballistic,impact}`: basecharacter.model.js (armorField);
// - the wound modifier `system.derivedStats.woundModifier`, Initiative Passes in
//   `system.derivedStats.passesString` ("physical/astral/matrix", e.g. "2/3/0"):
//   schema-helper.js (baseDerivedStatsFields);
// - condition monitors `system.conditionMonitor.{physical,stun}.{value,max}`: schema-helper.js
//   (monitorField, conditionMonitorField);
// - ranged weapons (item type "Ranged Weapon"): `system.damage`, `system.damageType` (PHYSICAL,
//   STUN, ...), `system.ap`, `system.attackSkill` (sr4.skills.pistols, ...), `system.category`
//   (LIGHT_PISTOLS, ... or its key sr4.category.lightPistols), `system.mode` (the Shootingmodes
//   keys: SINGLE_SHOT, SEMI_AUTOMATIC, BURST_FIRE, FULL_AUTO, SEMI_BURST_FULL_AUTO, ... or their
//   i18n keys sr4.shooting.semi-burst-full), `system.rc`, `system.smartlink`, `system.currentAmmo`,
//   and what its prepareDerivedData adds with ammo and mods (`effectiveDamage`, `effectiveAP`,
//   `effectiveRC`, `effectiveSmartlink`, `effectiveDamageType`): src/models/items/weapons.model.js,
//   weapon.enums.js, schema-helper.js (genericWeaponSchema);
// - skills (item type "Skill"): the item's name, `system.rating`:
//   src/models/actions/skills.model.js.

export const SR4E_SYSTEM_ID = "shadowrun4e";

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

// A Shootingmodes word -> the mode it lets the weapon fire (001, "Firearms": SS, SA, BF, FA).
const MODE_WORDS = { single: "SS", semi: "SA", burst: "BF", full: "FA" };

function num(value, fallback = 0) {
  const n = Number(value);
  return Number.isFinite(n) ? Math.trunc(n) : fallback;
}

const clamp = (value, low, high) => Math.min(high, Math.max(low, value));

/** The key's last part ("sr4.category.lightPistols" or "LIGHT_PISTOLS"): letters only, lower case. */
function key(value) {
  return String(value ?? "").split(".").at(-1).toLowerCase().replace(/[^a-z]/g, "");
}

export function isSr4eActor(actor, systemId) {
  return systemId === SR4E_SYSTEM_ID && actor?.system?.sheetStats !== undefined;
}

function stat(actor, name) {
  return clamp(num(actor.system?.sheetStats?.[name], 1), 1, 30);
}

/** The modes the weapon fires: each word of its Shootingmodes value ("semi-burst-full": SA, BF, FA). */
export function weaponModes(item) {
  const words = String(item.system?.mode ?? "").split(".").at(-1).toLowerCase().split(/[^a-z]+/);
  const modes = [];
  for (const word of words) if (MODE_WORDS[word] && !modes.includes(MODE_WORDS[word])) modes.push(MODE_WORDS[word]);
  return ["SS", "SA", "BF", "FA"].filter((m) => modes.includes(m));
}

export function weaponCategory(item) {
  return CATEGORY[key(item.system?.category)] ?? null;
}

/** The skill the weapon names ("sr4.skills.automatics"), as letters: "automatics". */
function skillKey(item) {
  return key(item.system?.attackSkill);
}

export function rangedWeapons(actor) {
  return [...(actor.items ?? [])]
    .filter((i) => i.type === "Ranged Weapon" && weaponModes(i).length > 0)
    .sort((a, b) => String(a.name).localeCompare(String(b.name)));
}

/** The rating of the actor's Skill item the weapon names (0 when it has none). */
export function weaponSkill(actor, item) {
  const wanted = skillKey(item);
  if (!wanted || wanted === "none") return 0;
  const skill = [...(actor.items ?? [])].find((i) => i.type === "Skill" && key(i.name) === wanted);
  return skill ? clamp(num(skill.system?.rating), 0, 30) : 0;
}

const derived = (item, name, base) => item.system?.[name] ?? item.system?.[base];

/** A shadowrun4e ranged weapon as firefight's SR4Weapon (the category may need the dialog's choice). */
export function sr4Weapon(item, { category = null } = {}) {
  const type = key(derived(item, "effectiveDamageType", "damageType"));
  return {
    id: item.id,
    category: category ?? weaponCategory(item),
    damage: clamp(num(derived(item, "effectiveDamage", "damage")), 0, 100),
    damage_type: type.startsWith("stun") ? "S" : "P",
    ap: clamp(num(derived(item, "effectiveAP", "ap")), -30, 30),
    rc: clamp(num(derived(item, "effectiveRC", "rc")), 0, 30),
    modes: weaponModes(item),
    ammo: clamp(num(item.system?.currentAmmo), 0, 10_000),
    smartgun: Boolean(derived(item, "effectiveSmartlink", "smartlink")),
  };
}

export function woundModifier(actor) {
  return clamp(0 - Math.abs(num(actor.system?.derivedStats?.woundModifier)), -30, 0);
}

/** Physical Initiative Passes: the first number of `passesString` ("2/3/0"), 1 to 4. */
export function initiativePasses(actor) {
  const first = String(actor.system?.derivedStats?.passesString ?? "1").split("/")[0];
  return clamp(num(first, 1), 1, 4);
}

/** A shadowrun4e actor as firefight's SR4Attacker, for an attack with `item`. */
export function sr4Attacker(actor, item, { id }) {
  return {
    id,
    agility: stat(actor, "AGILITY"),
    skill: weaponSkill(actor, item),
    strength: stat(actor, "STRENGTH"),
    intuition: stat(actor, "INTUITION"),
    edge: clamp(num(actor.system?.sheetStats?.EDGE), 0, 30),
    wound_modifier: woundModifier(actor),
  };
}

/**
 * A shadowrun4e actor as firefight's SR4Defender (Dodge is not on the sheet: the dialog's). Its
 * wound modifier lowers its defense and zone tests, never its soak (SR4 core, "Wound Modifiers").
 */
export function sr4Defender(actor) {
  return {
    reaction: stat(actor, "REACTION"),
    body: stat(actor, "BODY"),
    edge: clamp(num(actor.system?.sheetStats?.EDGE), 0, 30),
    ballistic_armor: clamp(num(actor.system?.armor?.ballistic), 0, 30),
    impact_armor: clamp(num(actor.system?.armor?.impact), 0, 30),
    wound_modifier: woundModifier(actor),
  };
}

/** The update that leaves `ammoLeft` rounds in the weapon. */
export function ammoUpdate(ammoLeft) {
  return { "system.currentAmmo": Math.max(0, num(ammoLeft)) };
}

/**
 * Where the system keeps each track of firefight's monitor (schemas/monitor.py): the physical and
 * stun monitors' boxes (schema-helper.js, monitorField). It has no overflow field (only a
 * `modifiers.overflowBonus`): the service's overflow is not shown on the sheet.
 */
export const TRACK_PATHS = Object.freeze({
  physical: "system.conditionMonitor.physical.value",
  stun: "system.conditionMonitor.stun.value",
});

/**
 * The update that adds `boxes` to a condition monitor (its `max` boxes): stun past its last box
 * carries into the physical monitor, box for box (SR4 core, "Condition Monitors"); physical
 * stops at its last box (overflow is the GM's).
 */
export function trackUpdate(actor, track, boxes) {
  const monitor = actor.system?.conditionMonitor ?? {};
  if (track !== "physical" && track !== "stun") throw new Error(`unknown condition monitor "${track}"`);
  const update = {};
  let physical = boxes;
  if (track === "stun") {
    const now = num(monitor.stun?.value);
    const added = Math.min(Math.max(0, num(monitor.stun?.max, 10) - now), boxes);
    update["system.conditionMonitor.stun.value"] = now + added;
    physical = boxes - added;
    if (physical === 0) return update;
  }
  const now = num(monitor.physical?.value);
  update["system.conditionMonitor.physical.value"] = Math.min(num(monitor.physical?.max, 10), now + physical);
  return update;
}

/** A shadowrun4e actor as the service's SR4Sheet (schemas/sr4.py), for the encounter's scene. */
export function sr4Sheet(actor) {
  const items = rangedWeapons(actor).filter((item) => weaponCategory(item)).slice(0, 20);
  const sheet = {
    ruleset: "sr4",
    agility: stat(actor, "AGILITY"),
    strength: stat(actor, "STRENGTH"),
    reaction: stat(actor, "REACTION"),
    intuition: stat(actor, "INTUITION"),
    body: stat(actor, "BODY"),
    // What sizes the stun track of the service's condition monitor.
    willpower: stat(actor, "WILLPOWER"),
    edge: clamp(num(actor.system?.sheetStats?.EDGE), 0, 30),
    ballistic_armor: clamp(num(actor.system?.armor?.ballistic), 0, 30),
    impact_armor: clamp(num(actor.system?.armor?.impact), 0, 30),
    wound_modifier: woundModifier(actor),
    initiative_passes: initiativePasses(actor),
    weapons: items.map((item) => sr4Weapon(item)),
    weapon_skills: Object.fromEntries(items.map((item) => [item.id, weaponSkill(actor, item)])),
  };
  if (items[0]) sheet.skill = weaponSkill(actor, items[0]);
  return sheet;
}

"""A Foundry actor exported as JSON from the shadowrun5e, shadowrun4e or sr3e system into the
sheet of its ruleset, reading the paths the firefight module reads of a live actor
(foundry-module/src/sr5-actor.mjs, sr4-actor.mjs, sr3-actor.mjs, which cite the systems'
DataModels), with the report of the import (docs/imports.md)."""

from __future__ import annotations

from typing import Any

from schemas.imports import ImportReport
from schemas.sr3 import SR3Sheet
from schemas.sr4 import SR4Sheet
from schemas.sr5 import MAX_WEAPONS, SR5Sheet
from service.imports.errors import ImportRefused
from service.imports.foundry_json import at, item_id, items, key, number, parse_actor, system_id
from service.imports.foundry_sr3 import read_sr3
from service.imports.report import Reading

# The module's maps (sr5-actor.mjs RANGE_CATEGORY, SUBCATEGORY, SKILL_BY_CATEGORY).
SR5_RANGE_CATEGORY = {
    "taser": "taser",
    "holdOutPistol": "hold_out_pistol",
    "lightPistol": "light_pistol",
    "heavyPistol": "heavy_pistol",
    "machinePistol": "machine_pistol",
    "smg": "submachine_gun",
    "assaultRifle": "assault_rifle",
    "shotgunFlechette": "shotgun_flechette",
    "shotgunSlug": "shotgun",
    "sniperRifle": "sniper_rifle",
    "lightMachinegun": "light_machine_gun",
    "mediumHeavyMachinegun": "medium_machine_gun",
    "assaultCannon": "assault_cannon",
    "grenadeLauncher": "grenade_launcher",
    "missileLauncher": "missile_launcher",
}
SR5_SUBCATEGORY = {
    "tasers": "taser",
    "holdouts": "hold_out_pistol",
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
}
SR5_SKILL_BY_CATEGORY = {
    "taser": "pistols",
    "hold_out_pistol": "pistols",
    "light_pistol": "pistols",
    "heavy_pistol": "pistols",
    "machine_pistol": "automatics",
    "submachine_gun": "automatics",
    "assault_rifle": "automatics",
    "shotgun": "longarms",
    "shotgun_flechette": "longarms",
    "sniper_rifle": "longarms",
    "light_machine_gun": "heavy_weapons",
    "medium_machine_gun": "heavy_weapons",
    "heavy_machine_gun": "heavy_weapons",
    "assault_cannon": "heavy_weapons",
    "grenade_launcher": "heavy_weapons",
    "missile_launcher": "heavy_weapons",
}
SR5_MODES = (("single_shot", "SS"), ("semi_auto", "SA"), ("burst_fire", "BF"), ("full_auto", "FA"))
SR5_ATTRIBUTES = (
    "body",
    "agility",
    "reaction",
    "strength",
    "willpower",
    "intuition",
    "charisma",
    "edge",
)
# sr4-actor.mjs CATEGORY and MODE_WORDS.
SR4_CATEGORY = {
    "holdouts": "hold_out_pistol",
    "lightpistols": "light_pistol",
    "heavypistols": "heavy_pistol",
    "machinepistols": "smg",
    "submachineguns": "smg",
    "tasers": "taser",
    "shotguns": "shotgun",
    "sportsrifles": "sporting_rifle",
    "sniperrifles": "sniper_rifle",
    "assaultrifles": "assault_rifle",
    "battlerifles": "assault_rifle",
    "lightmachineguns": "light_machine_gun",
    "mediummachineguns": "medium_machine_gun",
    "heavymachineguns": "heavy_machine_gun",
    "assaultcannons": "assault_cannon",
    "grenadelaunchers": "grenade_launcher",
    "missilelaunchers": "missile_launcher",
    "bows": "bow",
    "crossbows": "medium_crossbow",
}
SR4_MODE_WORDS = {"single": "SS", "semi": "SA", "burst": "BF", "full": "FA"}
SR4_STATS = {
    "BODY": "body",
    "AGILITY": "agility",
    "REACTION": "reaction",
    "STRENGTH": "strength",
    "INTUITION": "intuition",
    "WILLPOWER": "willpower",
    "EDGE": "edge",
}
SYSTEMS = ("shadowrun5e", "shadowrun4e", "sr3e")


def import_foundry(data: bytes) -> tuple[SR5Sheet | SR4Sheet | SR3Sheet, ImportReport]:
    """The sheet of an exported actor, of the ruleset of the system it was exported from."""
    actor = parse_actor(data)
    system = system_id(actor)
    reading = Reading()
    name = str(actor.get("name") or "")
    if system == "shadowrun5e":
        _sr5(actor, reading)
        return reading.sheet(SR5Sheet), reading.report("foundry-shadowrun5e", "sr5", name)
    if system == "shadowrun4e":
        _sr4(actor, reading)
        return reading.sheet(SR4Sheet), reading.report("foundry-shadowrun4e", "sr4", name)
    if system == "sr3e":
        read_sr3(actor, reading)
        return reading.sheet(SR3Sheet), reading.report("foundry-sr3e", "sr3", name)
    raise ImportRefused(
        f"an actor of the {system!r} system: the imports read {', '.join(SYSTEMS)}",
        "$._stats.systemId",
    )


def _keep_number(reading: Reading, field: str, actor: Any, path: str, low: int = 0) -> None:
    value = number(actor, path, "$")
    if value is None:
        reading.leave_out(f"$.{path}", f"not in the export: the sheet leaves {field} unset")
    else:
        reading.keep(field, max(low, value), f"$.{path}")


def _sr5(actor: dict[str, Any], reading: Reading) -> None:
    for attribute in SR5_ATTRIBUTES:
        _keep_number(
            reading,
            attribute,
            actor,
            f"system.attributes.{attribute}.value",
            1 if attribute != "edge" else 0,
        )
    _keep_number(reading, "armor", actor, "system.armor.value")
    for skill in ("gymnastics", "perception"):
        _keep_number(reading, skill, actor, f"system.skills.active.{skill}.value")
    for limit in ("physical", "mental"):
        if at(actor, f"system.limits.{limit}.value") is not None:
            _keep_number(reading, f"{limit}_limit", actor, f"system.limits.{limit}.value")
    wounds = number(actor, "system.wounds.value", "$") or 0
    reading.keep("wound_modifier", min(0, -wounds), "$.system.wounds.value (its negative)")
    weapons: list[dict[str, Any]] = []
    weapon_skills: dict[str, int] = {}
    for item, where in items(actor):
        if item.get("type") != "weapon":
            continue
        where = f"{where} ({item.get('name')})"
        system = item.get("system") or {}
        if system.get("category") != "range":
            reading.leave_out(where, f"a {system.get('category') or 'untyped'} weapon, not ranged")
            continue
        sub = str(system.get("subcategory") or "").strip().lower()
        range_category = at(system, "range.ranges.category")
        category = (
            ("shotgun_flechette" if range_category == "shotgunFlechette" else "shotgun")
            if sub == "shotguns"
            else SR5_SUBCATEGORY.get(sub) or SR5_RANGE_CATEGORY.get(str(range_category))
        )
        modes = [mode for field, mode in SR5_MODES if at(system, f"range.modes.{field}")]
        if category is None or not modes:
            reason = (
                f"subcategory {sub!r} / range category {range_category!r} "
                "has no firefight SR5 category"
            )
            reading.leave_out(where, reason if category is None else "no firing mode")
            continue
        if len(weapons) == MAX_WEAPONS:
            reading.leave_out(where, f"a sheet carries at most {MAX_WEAPONS} weapons")
            continue
        weapon_id = item_id(item) or reading.weapon_id(str(item.get("name") or "weapon"))
        gun = {
            "id": weapon_id,
            "category": category,
            "damage": max(0, number(system, "action.damage.value", where + ".system") or 0),
            "damage_type": "S" if at(system, "action.damage.type.value") == "stun" else "P",
            "ap": number(system, "action.damage.ap.value", where + ".system") or 0,
            "accuracy": max(0, number(system, "action.limit.value", where + ".system") or 0),
            "rc": max(0, number(system, "range.rc.value", where + ".system") or 0),
            "modes": modes,
            "ammo": max(0, number(system, "ammo.current.value", where + ".system") or 0),
        }
        reading.note(f"weapons[{len(weapons)}]", weapon_id, where)
        skill_id = str(at(system, "action.skill") or SR5_SKILL_BY_CATEGORY[category])
        skill_path = f"system.skills.active.{skill_id}.value"
        weapon_skills[weapon_id] = reading.note(
            f"weapon_skills.{weapon_id}",
            max(0, number(actor, skill_path, "$") or 0),
            f"$.{skill_path}",
        )
        weapons.append(gun)
    _weapons_kept(reading, weapons, weapon_skills)


def _weapons_kept(
    reading: Reading, weapons: list[dict[str, Any]], weapon_skills: dict[str, int]
) -> None:
    reading.fields["weapons"] = weapons
    reading.fields["weapon_skills"] = weapon_skills
    for index, gun in enumerate(weapons):
        for field, value in gun.items():
            if field != "id":
                reading.note(f"weapons[{index}].{field}", value, f"weapon {gun['id']}")
    if weapons:
        first = str(weapons[0]["id"])
        reading.keep("skill", weapon_skills[first], f"weapon_skills.{first} (the first gun's)")


def _sr4(actor: dict[str, Any], reading: Reading) -> None:
    for stat, field in SR4_STATS.items():
        _keep_number(
            reading, field, actor, f"system.sheetStats.{stat}", 1 if field != "edge" else 0
        )
    _keep_number(reading, "ballistic_armor", actor, "system.armor.ballistic")
    _keep_number(reading, "impact_armor", actor, "system.armor.impact")
    wound = number(actor, "system.derivedStats.woundModifier", "$") or 0
    reading.keep("wound_modifier", -abs(wound), "$.system.derivedStats.woundModifier")
    passes = str(at(actor, "system.derivedStats.passesString") or "1").split("/")[0]
    reading.keep(
        "initiative_passes",
        min(4, max(1, int(passes) if passes.isdigit() else 1)),
        "$.system.derivedStats.passesString (the physical passes)",
    )
    skills = {
        key(item.get("name")): (number(item, "system.rating", where) or 0, f"{where}.system.rating")
        for item, where in items(actor)
        if item.get("type") == "Skill"
    }
    if "dodge" in skills:
        reading.keep("dodge", *skills["dodge"])
    weapons: list[dict[str, Any]] = []
    weapon_skills: dict[str, int] = {}
    for item, where in items(actor):
        if item.get("type") in ("Melee Weapon", "Thrown Weapon"):
            reading.leave_out(f"{where} ({item.get('name')})", f"a {item.get('type')}")
        if item.get("type") != "Ranged Weapon":
            continue
        where = f"{where} ({item.get('name')})"
        system = item.get("system") or {}
        words = str(system.get("mode") or "").split(".")[-1].lower().replace("_", "-").split("-")
        found = {SR4_MODE_WORDS[w] for w in words if w in SR4_MODE_WORDS}
        modes = [m for m in ("SS", "SA", "BF", "FA") if m in found]
        category = SR4_CATEGORY.get(key(system.get("category")))
        if category is None or not modes:
            reason = f"category {system.get('category')!r} has no firefight SR4 category"
            reading.leave_out(where, reason if category is None else "no firing mode")
            continue
        if len(weapons) == MAX_WEAPONS:
            reading.leave_out(where, f"a sheet carries at most {MAX_WEAPONS} weapons")
            continue
        weapon_id = item_id(item) or reading.weapon_id(str(item.get("name") or "weapon"))

        damage_type = key(system.get("effectiveDamageType") or system.get("damageType"))
        weapons.append(
            {
                "id": weapon_id,
                "category": category,
                "damage": max(0, _derived(system, "effectiveDamage", "damage", where)),
                "damage_type": "S" if damage_type.startswith("stun") else "P",
                "ap": _derived(system, "effectiveAP", "ap", where),
                "rc": max(0, _derived(system, "effectiveRC", "rc", where)),
                "modes": modes,
                "ammo": max(0, number(system, "currentAmmo", where + ".system") or 0),
                "smartgun": bool(system.get("effectiveSmartlink", system.get("smartlink"))),
            }
        )
        reading.note(f"weapons[{len(weapons) - 1}]", weapon_id, where)
        rating, source = skills.get(
            key(system.get("attackSkill")),
            (0, f"{where}.system.attackSkill: not a skill of the actor"),
        )
        weapon_skills[weapon_id] = reading.note(f"weapon_skills.{weapon_id}", rating, source)
    _weapons_kept(reading, weapons, weapon_skills)


def _derived(system: dict[str, Any], name: str, base: str, where: str) -> int:
    """What the shadowrun4e system derives with ammunition and mods (`effectiveDamage`...),
    else the item's own number."""
    path = name if system.get(name) is not None else base
    return number(system, path, where + ".system") or 0

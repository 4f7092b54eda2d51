"""The shadowrun5e system's actor (github.com/SR5-FoundryVTT/SR5-FoundryVTT) as an SR5 sheet, read
where the export's release line keeps each value: SR5_LINES, the paths of foundry-module/src/
sr5-actor.mjs SR5_PATHS, plus where an export (the actor's stored data, not what the system
derives from it on a live actor) keeps the skills."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from schemas.sr5 import MAX_WEAPONS
from service.imports.foundry_json import at, item_id, items, keep_number, number
from service.imports.foundry_release import release_line
from service.imports.report import Reading


@dataclass(frozen=True)
class SR5Paths:
    """Where one line of shadowrun5e releases keeps what the sheet reads ("{}" is an attribute's,
    a skill's or a limit's key). The paths every line has alike were read at 0.25.2
    (template.json: Actor templates attributes, skills, common; Item templates action, weapon),
    0.33.2 and 0.34.5 (src/module/types/: template/Attributes.ts, template/Skills.ts,
    actor/Character.ts, item/Weapon.ts, item/Action.ts)."""

    since: str
    name: str
    armor: str
    # Whether the active skills are the actor's "skill" items: from 0.33.0
    # (src/module/migrator/versions/Version0_33_0.ts migrateActor makes each of the actor's
    # skills an item and empties `system.skills`; SkillFieldPrep.prepareActorSkills builds
    # `system.skills.active` from the items on a live actor only, which an export does not hold).
    skill_items: bool
    attribute: str = "system.attributes.{}.value"
    skill: str = "system.skills.active.{}.value"
    # 0.33.2 and 0.34.5 src/module/types/item/Skill.ts SkillData / SkillTypeData; the key is
    # SkillNamingFlow.nameToKey(name) (src/module/flows/SkillNamingFlow.ts).
    skill_item_type: str = "skill"
    skill_item_kind: str = "system.type"
    skill_item_category: str = "system.skill.category"
    skill_item_rating: str = "system.skill.rating"
    limit: str = "system.limits.{}.value"
    # SR5Actor.getWoundModifier (src/module/actor/SR5Actor.ts): its negative.
    wounds: str = "system.wounds.value"
    weapon_type: str = "weapon"
    weapon_category: str = "system.category"
    subcategory: str = "system.subcategory"
    range_category: str = "system.range.ranges.category"
    rc: str = "system.range.rc.value"
    modes: str = "system.range.modes"
    ammo: str = "system.ammo.current.value"
    damage: str = "system.action.damage.value"
    damage_type: str = "system.action.damage.type.value"
    ap: str = "system.action.damage.ap.value"
    accuracy: str = "system.action.limit.value"
    # A skill's key ("automatics"), as the system's importers write it.
    action_skill: str = "system.action.skill"


# Oldest first; `since` is the line's first release.
SR5_LINES = (
    # 0.25.2 template.json Actor templates.armor {base, value, mod}; the skills on the actor.
    SR5Paths("0.25.0", "0.25-0.32", armor="system.armor.value", skill_items=False),
    # 0.33.2 src/module/types/template/Armor.ts ActorArmorData: still {value}.
    SR5Paths("0.33.0", "0.33", armor="system.armor.value", skill_items=True),
    # 0.34.5 src/module/types/template/Armor.ts ActorArmorData.rating (ModifiableField);
    # Version0_34_0.migrateActorArmor moved the old `armor.base` to `armor.rating.base`.
    SR5Paths("0.34.0", "0.34+", armor="system.armor.rating.value", skill_items=True),
)

# The module's maps (sr5-actor.mjs RANGE_CATEGORY, SUBCATEGORY, SKILL_BY_CATEGORY).
RANGE_CATEGORY = {
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
SUBCATEGORY = {
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
SKILL_BY_CATEGORY = {
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
MODES = (("single_shot", "SS"), ("semi_auto", "SA"), ("burst_fire", "BF"), ("full_auto", "FA"))
ATTRIBUTES = (
    "body",
    "agility",
    "reaction",
    "strength",
    "willpower",
    "intuition",
    "charisma",
    "edge",
)

_KEY_GAPS = re.compile(r"[\s-]+")


def skill_key(name: Any) -> str:
    """A skill item's key from its name ("Heavy Weapons" -> "heavy_weapons"), as
    SkillNamingFlow.nameToKey makes it."""
    return _KEY_GAPS.sub("_", str(name or "").strip()).lower()


def line_by_shape(actor: dict[str, Any]) -> tuple[SR5Paths, str]:
    """The line whose shape the export has: armour under `rating` (0.34+), skill items (0.33),
    neither (0.25 to 0.32)."""
    if isinstance(at(actor, "system.armor.rating"), dict):
        return SR5_LINES[2], "$.system.armor.rating"
    for item, where in items(actor):
        if item.get("type") == SR5_LINES[1].skill_item_type:
            return SR5_LINES[1], f"{where} ({item.get('name')}): a skill item"
    return SR5_LINES[0], "$.items: no skill item, $.system.armor: no rating"


def _active_skills(actor: dict[str, Any], paths: SR5Paths) -> dict[str, tuple[dict[str, Any], str]]:
    """The actor's active skill items by key (the first of a name, as the system keys a
    duplicate `<key>_2`)."""
    found: dict[str, tuple[dict[str, Any], str]] = {}
    for item, where in items(actor):
        if (
            item.get("type") == paths.skill_item_type
            and at(item, paths.skill_item_kind) in (None, "skill")
            and at(item, paths.skill_item_category) in (None, "active")
        ):
            found.setdefault(skill_key(item.get("name")), (item, f"{where} ({item.get('name')})"))
    return found


def _skill(
    actor: dict[str, Any],
    key: str,
    paths: SR5Paths,
    skill_items: dict[str, tuple[dict[str, Any], str]],
) -> tuple[int | None, str]:
    """An active skill's rating and where it was read: the skill item of its key where the line
    keeps skills as items, else (or when it has none) the actor's `system.skills.active`."""
    if paths.skill_items and key in skill_items:
        item, where = skill_items[key]
        return number(item, paths.skill_item_rating, where), f"{where}.{paths.skill_item_rating}"
    path = paths.skill.format(key)
    return number(actor, path, "$"), f"$.{path}"


def read_sr5(actor: dict[str, Any], reading: Reading) -> None:
    paths = release_line(actor, SR5_LINES, line_by_shape, reading)
    for attribute in ATTRIBUTES:
        keep_number(
            reading,
            attribute,
            actor,
            paths.attribute.format(attribute),
            1 if attribute != "edge" else 0,
        )
    keep_number(reading, "armor", actor, paths.armor)
    skill_items = _active_skills(actor, paths) if paths.skill_items else {}
    for skill in ("gymnastics", "perception"):
        rating, source = _skill(actor, skill, paths, skill_items)
        if rating is None:
            reading.leave_out(source, f"not in the export: the sheet leaves {skill} unset")
        else:
            reading.keep(skill, max(0, rating), source)
    for limit in ("physical", "mental"):
        if at(actor, paths.limit.format(limit)) is not None:
            keep_number(reading, f"{limit}_limit", actor, paths.limit.format(limit))
    wounds = number(actor, paths.wounds, "$") or 0
    reading.keep("wound_modifier", min(0, -wounds), f"$.{paths.wounds} (its negative)")
    weapons: list[dict[str, Any]] = []
    weapon_skills: dict[str, int] = {}
    for item, where in items(actor):
        if item.get("type") != paths.weapon_type:
            continue
        where = f"{where} ({item.get('name')})"
        kind = at(item, paths.weapon_category)
        if kind != "range":
            reading.leave_out(where, f"a {kind or 'untyped'} weapon, not ranged")
            continue
        sub = str(at(item, paths.subcategory) or "").strip().lower()
        range_category = at(item, paths.range_category)
        category = (
            ("shotgun_flechette" if range_category == "shotgunFlechette" else "shotgun")
            if sub == "shotguns"
            else SUBCATEGORY.get(sub) or RANGE_CATEGORY.get(str(range_category))
        )
        listed = at(item, paths.modes)
        modes = [m for field, m in MODES if isinstance(listed, dict) and listed.get(field)]
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
        weapons.append(
            {
                "id": weapon_id,
                "category": category,
                "damage": max(0, number(item, paths.damage, where) or 0),
                "damage_type": "S" if at(item, paths.damage_type) == "stun" else "P",
                "ap": number(item, paths.ap, where) or 0,
                "accuracy": max(0, number(item, paths.accuracy, where) or 0),
                "rc": max(0, number(item, paths.rc, where) or 0),
                "modes": modes,
                "ammo": max(0, number(item, paths.ammo, where) or 0),
            }
        )
        reading.note(f"weapons[{len(weapons) - 1}]", weapon_id, where)
        skill_id = str(at(item, paths.action_skill) or SKILL_BY_CATEGORY[category])
        rating, source = _skill(actor, skill_id, paths, skill_items)
        weapon_skills[weapon_id] = reading.note(
            f"weapon_skills.{weapon_id}", max(0, rating or 0), source
        )
    reading.keep_weapons(weapons, weapon_skills)

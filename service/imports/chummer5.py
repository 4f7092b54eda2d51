"""A Chummer 5 character (`.chum5`, chummer5a's save format) as an SR5 sheet: attributes,
the ranged combat skills, armour, Edge, limits, initiative dice and the guns, with a report of
where each number came from and of what was left out (docs/imports.md)."""

from __future__ import annotations

import math
from xml.etree.ElementTree import Element

from schemas.imports import ImportReport
from schemas.sr5 import MAX_RATING, MAX_WEAPONS, SR5Sheet
from service.imports import chummer_weapons as guns
from service.imports.errors import ImportRefused
from service.imports.report import Reading
from service.imports.xml_document import integer, is_true, parse_character, text

ROOT = "/character"

# Chummer's attribute abbreviations -> the sheet's fields. LOG is read for the mental limit only.
ATTRIBUTES = {
    "BOD": "body",
    "AGI": "agility",
    "REA": "reaction",
    "STR": "strength",
    "WIL": "willpower",
    "INT": "intuition",
    "CHA": "charisma",
    "EDG": "edge",
}

# A skill's `<suid>` is its `<id>` in chummer5a's Chummer/data/skills.xml; files before
# Chummer 5.21x do not write the skill's `<name>`, so the ids of the skills read are here.
SKILL_IDS = {
    "adf31a50-b228-4e09-a09c-46ab9f5e59a1": "Pistols",
    "788b387b-ee41-4e6a-bf22-481a8cc4cf9f": "Automatics",
    "64088b25-de37-4d71-8800-4a430fde08af": "Longarms",
    "64841e6e-9487-4b63-80a1-dcad6eb78179": "Heavy Weapons",
    "88ee65ba-c797-4f9c-91fe-39bc43b0f9c8": "Exotic Ranged Weapon",
    "1537ca5c-fa93-4c05-b073-a2a0eed91b8e": "Archery",
    "a9fa961d-07e5-46da-8edc-403ae3e6cc75": "Gymnastics",
    "04e1eb3e-e82d-485b-a7fd-1e677df2a070": "Perception",
}
# Their `<skillgroup>` in skills.xml: a group's points count for each skill of it.
SKILL_GROUP = {
    "Pistols": "Firearms",
    "Automatics": "Firearms",
    "Longarms": "Firearms",
    "Gymnastics": "Athletics",
}

# Chummer's weapon categories (weapons.xml <categories>) -> schemas/sr5.py's categories, the
# same as foundry-module/src/sr5-actor.mjs maps them. Shotguns are the slug row: a flechette
# load is the attack's to say. Any other category (Bows, Carbines, Sporting Rifles, Exotic
# Ranged Weapons, Laser Weapons...) has no range row here: the gun is left out and reported.
CATEGORY = {
    "Tasers": "taser",
    "Holdouts": "hold_out_pistol",
    "Light Pistols": "light_pistol",
    "Heavy Pistols": "heavy_pistol",
    "Machine Pistols": "machine_pistol",
    "Submachine Guns": "submachine_gun",
    "Assault Rifles": "assault_rifle",
    "Shotguns": "shotgun",
    "Sniper Rifles": "sniper_rifle",
    "Light Machine Guns": "light_machine_gun",
    "Medium Machine Guns": "medium_machine_gun",
    "Heavy Machine Guns": "heavy_machine_gun",
    "Assault Cannons": "assault_cannon",
    "Grenade Launchers": "grenade_launcher",
    "Missile Launchers": "missile_launcher",
}
# The firearms skill of each category when the gun names none in `<useskill>` (SR5 core,
# "Combat Active Skills"), as the Foundry module's SKILL_BY_CATEGORY.
SKILL_BY_CATEGORY = {
    "taser": "Pistols",
    "hold_out_pistol": "Pistols",
    "light_pistol": "Pistols",
    "heavy_pistol": "Pistols",
    "machine_pistol": "Automatics",
    "submachine_gun": "Automatics",
    "assault_rifle": "Automatics",
    "shotgun": "Longarms",
    "sniper_rifle": "Longarms",
    "light_machine_gun": "Heavy Weapons",
    "medium_machine_gun": "Heavy Weapons",
    "heavy_machine_gun": "Heavy Weapons",
    "assault_cannon": "Heavy Weapons",
    "grenade_launcher": "Heavy Weapons",
    "missile_launcher": "Heavy Weapons",
}
# Inherent limits, SR5 core p. 101 ("Limits"; not in the rules sources): (2 x STR + BOD +
# REA) / 3 and (2 x LOG + INT + WIL) / 3, rounded up.
LIMIT_DIVISOR = 3
# Initiative dice: 1D6, and at most 5D6 with everything (SR5 core, "Initiative").
BASE_INITIATIVE_DICE = 1
MAX_INITIATIVE_DICE = 5


def import_chummer5(data: bytes) -> tuple[SR5Sheet, ImportReport]:
    """The SR5 sheet of a `.chum5` file and the report of the import; ImportRefused for a file
    that is not one (names the element)."""
    root = parse_character(data)
    edition = text(root, "gameedition")
    if edition != "SR5":
        raise ImportRefused(
            f"<gameedition> is {edition!r}, not 'SR5': not a Chummer 5 character",
            f"{ROOT}/gameedition",
        )
    reading = Reading()
    improvements = _improvements(root)
    totals = _attributes(root, reading, improvements)
    _limits(totals, reading, improvements)
    skills = _skills(root)
    for skill, field in (("Gymnastics", "gymnastics"), ("Perception", "perception")):
        if skill in skills:
            reading.keep(field, skills[skill][0], skills[skill][1])
    _armor(root, reading, improvements)
    _initiative_dice(reading, improvements)
    guns.read_guns(root, ROOT, reading, skills, _GUNS)
    for tag in ("physicalcmfilled", "stuncmfilled"):
        if integer(root, tag, ROOT):
            reading.leave_out(
                f"{ROOT}/{tag}", "damage on the monitors: the service keeps the monitors itself"
            )
    sheet = reading.sheet(SR5Sheet)
    name = text(root, "alias") or text(root, "name") or ""
    return sheet, reading.report("chummer5", "sr5", name)


def _improvements(root: Element) -> list[Element]:
    """The character's enabled improvements (what its gear, powers and qualities add)."""
    return [
        each
        for each in root.findall("improvements/improvement")
        if (text(each, "enabled") or "True").lower() == "true"
    ]


def _improvement_type(improvement: Element) -> str:
    # Chummer writes the element with a double t.
    return text(improvement, "improvementttype") or text(improvement, "improvementtype") or ""


def _attributes(root: Element, reading: Reading, improvements: list[Element]) -> dict[str, int]:
    """Each attribute's total: `<totalvalue>` as Chummer saved it (its natural value,
    metatype minimum + base + karma, and the augmentations, capped at the augmented maximum);
    a file without it is computed the same way from the attribute and its improvements."""
    totals: dict[str, int] = {}
    for attribute in root.findall("attributes/attribute"):
        abbrev = text(attribute, "name") or ""
        if abbrev not in (*ATTRIBUTES, "LOG") or abbrev in totals:
            continue
        where = f"{ROOT}/attributes/attribute[name='{abbrev}']"
        total = integer(attribute, "totalvalue", where)
        source = f"{where}/totalvalue"
        if total is None:
            natural = sum(
                integer(attribute, tag, where) or 0 for tag in ("metatypemin", "base", "karma")
            )
            augmented = sum(
                int(text(each, "aug") or 0)
                for each in improvements
                if _improvement_type(each) == "Attribute" and text(each, "improvedname") == abbrev
            )
            cap = integer(attribute, "metatypeaugmax", where)
            total = natural + augmented if cap is None else min(natural + augmented, cap)
            source = f"{where}: metatypemin + base + karma + improvements' aug (no totalvalue)"
        totals[abbrev] = total
        if abbrev in ATTRIBUTES:
            reading.keep(ATTRIBUTES[abbrev], total, source)
    for abbrev, field in ATTRIBUTES.items():
        if abbrev not in totals:
            reading.leave_out(
                f"{ROOT}/attributes/attribute[name='{abbrev}']",
                f"not in the file: the sheet leaves {field} unset",
            )
    return totals


def _limits(totals: dict[str, int], reading: Reading, improvements: list[Element]) -> None:
    """Physical and mental limits, from the totals and the improvements that raise them."""
    formulas = {
        "physical_limit": (("STR", "STR", "BOD", "REA"), "PhysicalLimit"),
        "mental_limit": (("LOG", "LOG", "INT", "WIL"), "MentalLimit"),
    }
    for field, (parts, improvement_type) in formulas.items():
        if not all(part in totals for part in parts):
            reading.leave_out(f"{ROOT}/attributes", f"{field}: an attribute it needs is missing")
            continue
        inherent = math.ceil(sum(totals[part] for part in parts) / LIMIT_DIVISOR)
        bonus = sum(
            int(text(each, "val") or 0)
            for each in improvements
            if _improvement_type(each) == improvement_type
        )
        formula = f"(2 x {parts[0]} + {parts[2]} + {parts[3]}) / 3 rounded up"
        source = f"{ROOT}/attributes: {formula}" + (
            f" + {improvement_type} improvements" if bonus else ""
        )
        reading.keep(field, min(MAX_RATING, inherent + bonus), source)


def _skills(root: Element) -> dict[str, tuple[int, str]]:
    """The rating of each skill read, by name: the skill's base points (its group's when the
    group has any) + its karma points + its group's karma points, as Chummer counts them."""
    groups: dict[str, tuple[int, int]] = {}
    for group in root.findall("newskills/groups/group"):
        where = f"{ROOT}/newskills/groups/group[name='{text(group, 'name')}']"
        groups[text(group, "name") or ""] = (
            integer(group, "base", where) or 0,
            integer(group, "karma", where) or 0,
        )
    ratings: dict[str, tuple[int, str]] = {}
    for skill in root.findall("newskills/skills/skill"):
        name = text(skill, "name") or SKILL_IDS.get(text(skill, "suid") or "", "")
        if name not in SKILL_IDS.values() or is_true(skill, "isknowledge"):
            continue
        where = f"{ROOT}/newskills/skills/skill[suid='{text(skill, 'suid')}']"
        group_base, group_karma = groups.get(SKILL_GROUP.get(name, ""), (0, 0))
        base = group_base if group_base > 0 else integer(skill, "base", where) or 0
        rating = base + (integer(skill, "karma", where) or 0) + group_karma
        source = f"{where} ({name}): base + karma" + (
            f" + group {SKILL_GROUP[name]}" if group_base or group_karma else ""
        )
        ratings[name] = (rating, source)
    return ratings


def _armor(root: Element, reading: Reading, improvements: list[Element]) -> None:
    """The equipped armour: the best of the pieces with a plain rating, plus those whose rating
    is a bonus ("+2": helmets, shields), plus the mods on them and Armor improvements."""
    best: tuple[int, str] | None = None
    bonuses: list[tuple[int, str]] = []
    for index, armor in enumerate(root.findall("armors/armor"), 1):
        where = f"{ROOT}/armors/armor[{index}] ({text(armor, 'name')})"
        if not is_true(armor, "equipped"):
            reading.leave_out(where, "not equipped")
            continue
        rating_text = text(armor, "armoroverride") or text(armor, "armor") or "0"
        try:
            rating = int(rating_text)
        except ValueError:
            raise ImportRefused(
                f"{rating_text!r} is not an armor rating", f"{where}/armor"
            ) from None
        mods = sum(
            int(text(mod, "armor") or 0)
            for mod in armor.findall("armormods/armormod")
            if is_true(mod, "equipped")
        )
        if rating_text.startswith("+"):
            bonuses.append((rating + mods, where))
        elif best is None or rating + mods > best[0]:
            if best is not None:
                reading.leave_out(best[1], "a lower armor worn under another: only the best counts")
            best = (rating + mods, where)
        else:
            reading.leave_out(where, "a lower armor worn under another: only the best counts")
    from_gear = sum(
        int(text(each, "val") or 0) for each in improvements if _improvement_type(each) == "Armor"
    )
    pieces = ([best] if best else []) + bonuses
    if not pieces and not from_gear:
        reading.leave_out(f"{ROOT}/armors", "no armor equipped: the sheet leaves armor unset")
        return
    source = " + ".join(where for _, where in pieces) or f"{ROOT}/improvements"
    if from_gear:
        source += " + Armor improvements"
    reading.keep("armor", min(MAX_RATING, sum(r for r, _ in pieces) + from_gear), source)


def _initiative_dice(reading: Reading, improvements: list[Element]) -> None:
    extra = [
        int(text(each, "val") or 0)
        for each in improvements
        if _improvement_type(each) == "InitiativeDice"
    ]
    dice = min(MAX_INITIATIVE_DICE, BASE_INITIATIVE_DICE + max(extra, default=0))
    source = f"{ROOT}/improvements: 1 + the best InitiativeDice improvement"
    reading.keep("initiative_dice", dice, source if extra else f"{ROOT}: none, 1D6")


def _gun(weapon: Element, where: str, category: str, reading: Reading) -> dict[str, object]:
    dv, damage_type = guns.damage(weapon, where)
    accessories = [
        (each, f"{where}/accessories/accessory[{n}]")
        for n, each in enumerate(weapon.findall("accessories/accessory"), 1)
        if is_true(each, "equipped")
    ]
    try:
        accuracy = int(text(weapon, "accuracy") or "")
    except ValueError:
        raise guns.LeftOut(
            f"{where}/accuracy {text(weapon, 'accuracy')!r} is not a number"
        ) from None
    for accessory, accessory_where in accessories:
        bonus = int(text(accessory, "accuracy") or 0)
        if not bonus:
            continue
        if (text(accessory, "name") or "").startswith("Smartgun"):
            # The attack's `smartlink` adds the smartgun's +2 (000, "Smartgun systems"): counted
            # here too it would count twice.
            reading.leave_out(accessory_where, f"accuracy +{bonus}: the attack's smartlink adds it")
        else:
            accuracy += bonus
    loaded = _rounds_loaded(weapon, where, reading)
    return {
        "category": category,
        "damage": dv,
        "damage_type": damage_type,
        "ap": guns.armor_penetration(weapon, where),
        "accuracy": accuracy,
        "rc": guns.recoil_compensation(weapon, accessories, where, reading),
        "modes": guns.modes(weapon, where, reading),
        "ammo": loaded,
    }


def _rounds_loaded(weapon: Element, where: str, reading: Reading) -> int:
    """Rounds in the gun: the count of the clip in its active slot (`<clips>`, Chummer 5.22x),
    or `<ammoremaining>` (older files). Chummer saves no empty clip: a gun with neither has none
    recorded, and the import loads it full (reported)."""
    capacity = guns.capacity(weapon)
    clips = weapon.findall("clips/clip")
    if clips:
        slot = integer(weapon, "activeammoslot", where) or 1
        clip = clips[min(max(slot, 1), len(clips)) - 1]
        count = integer(clip, "count", f"{where}/clips/clip[{slot}]") or 0
        return count
    remaining = integer(weapon, "ammoremaining", where)
    if remaining:
        return remaining
    if capacity is None:
        raise guns.LeftOut(f"{where}/ammo {text(weapon, 'ammo')!r} gives no ammunition count")
    reading.leave_out(
        f"{where}/clips", f"no loaded clip recorded: loaded full ({capacity} rounds, from <ammo>)"
    )
    return capacity


_GUNS = guns.Guns(
    edition="SR5",
    category=CATEGORY,
    skill_by_category=SKILL_BY_CATEGORY,
    skills_path="newskills",
    gun=_gun,
    noted=("damage", "damage_type", "ap", "accuracy", "rc", "modes", "ammo"),
    max_weapons=MAX_WEAPONS,
    underbarrels=False,
)

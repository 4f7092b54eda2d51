"""A Chummer 4 character (`.chum`, ChummerGenSR4's save format: UTF-16 XML) as an SR4 sheet:
attributes, the ranged combat skills and Dodge, ballistic and impact armour, Edge, Initiative
Passes and the guns, with the report of the import (docs/imports.md)."""

from __future__ import annotations

from xml.etree.ElementTree import Element

from schemas.imports import ImportReport
from schemas.sr4 import MAX_RATING, MAX_WEAPONS, SR4Sheet
from service.imports import chummer_weapons as guns
from service.imports.errors import ImportRefused
from service.imports.report import Reading
from service.imports.xml_document import integer, is_true, parse_character, text

ROOT = "/character"

ATTRIBUTES = {
    "BOD": "body",
    "AGI": "agility",
    "REA": "reaction",
    "STR": "strength",
    "INT": "intuition",
    "WIL": "willpower",
    "EDG": "edge",
}
# ChummerGenSR4's weapon categories (data/weapons.xml <categories>) -> schemas/sr4.py's, as
# foundry-module/src/sr4-actor.mjs maps the shadowrun4e system's (machine pistols on the SMG
# row). Crossbows (three rows in SR4), Battle Rifles, Throwing Weapons, Exotic Ranged Weapons,
# Special Weapons and the rest are left out and reported.
CATEGORY = {
    "Tasers": "taser",
    "Holdouts": "hold_out_pistol",
    "Light Pistols": "light_pistol",
    "Heavy Pistols": "heavy_pistol",
    "Machine Pistols": "smg",
    "Submachine Guns": "smg",
    "Assault Rifles": "assault_rifle",
    "Sports Rifles": "sporting_rifle",
    "Sniper Rifles": "sniper_rifle",
    "Shotguns": "shotgun",
    "Light Machine Guns": "light_machine_gun",
    "Medium Machine Guns": "medium_machine_gun",
    "Heavy Machine Guns": "heavy_machine_gun",
    "Assault Cannons": "assault_cannon",
    "Grenade Launchers": "grenade_launcher",
    "Missile Launchers": "missile_launcher",
    "Bows": "bow",
}
# The skill of each category when the gun names none in `<useskill>` (SR4 core, "Combat
# Active Skills").
SKILL_BY_CATEGORY = {
    "taser": "Pistols",
    "hold_out_pistol": "Pistols",
    "light_pistol": "Pistols",
    "heavy_pistol": "Pistols",
    "smg": "Automatics",
    "assault_rifle": "Automatics",
    "sporting_rifle": "Longarms",
    "sniper_rifle": "Longarms",
    "shotgun": "Longarms",
    "light_machine_gun": "Heavy Weapons",
    "medium_machine_gun": "Heavy Weapons",
    "heavy_machine_gun": "Heavy Weapons",
    "assault_cannon": "Heavy Weapons",
    "grenade_launcher": "Heavy Weapons",
    "missile_launcher": "Heavy Weapons",
    "bow": "Archery",
}
# One Initiative Pass, and at most four (SR4 core, "Initiative Passes"; schemas/sr4.py).
BASE_PASSES = 1
MAX_PASSES = 4


def import_chummer4(data: bytes) -> tuple[SR4Sheet, ImportReport]:
    """The SR4 sheet of a `.chum` file and the report of the import."""
    root = parse_character(data)
    edition = text(root, "gameedition")
    # ChummerGenSR4 wrote <gameedition>SR4</gameedition> from about version 4.5; its earlier
    # saves have none (and no Chummer 5 file lacks it).
    if edition not in (None, "SR4"):
        raise ImportRefused(
            f"<gameedition> is {edition!r}, not 'SR4': not a Chummer 4 character",
            f"{ROOT}/gameedition",
        )
    reading = Reading()
    _attributes(root, reading)
    skills = _skills(root)
    if "Dodge" in skills:
        reading.keep("dodge", *skills["Dodge"])
    _armor(root, reading)
    passes = [
        int(text(each, "val") or 0)
        for each in root.findall("improvements/improvement")
        if (text(each, "improvementttype") or "") == "InitiativePass"
        and (text(each, "enabled") or "True").lower() == "true"
    ]
    reading.keep(
        "initiative_passes",
        min(MAX_PASSES, BASE_PASSES + max(passes, default=0)),
        f"{ROOT}/improvements: 1 + the best InitiativePass improvement" if passes else ROOT,
    )
    guns.read_guns(root, ROOT, reading, skills, _GUNS)
    sheet = reading.sheet(SR4Sheet)
    name = text(root, "alias") or text(root, "name") or ""
    return sheet, reading.report("chummer4", "sr4", name)


def _attributes(root: Element, reading: Reading) -> None:
    """`<totalvalue>` (the natural `<value>` and what augments it), else value + augmodifier."""
    found: set[str] = set()
    for attribute in root.findall("attributes/attribute"):
        abbrev = text(attribute, "name") or ""
        if abbrev not in ATTRIBUTES or abbrev in found:
            continue
        found.add(abbrev)
        where = f"{ROOT}/attributes/attribute[name='{abbrev}']"
        total = integer(attribute, "totalvalue", where)
        source = f"{where}/totalvalue"
        if total is None:
            total = (integer(attribute, "value", where) or 0) + (
                integer(attribute, "augmodifier", where) or 0
            )
            source = f"{where}: value + augmodifier (no totalvalue)"
        reading.keep(ATTRIBUTES[abbrev], total, source)
    for abbrev, field in ATTRIBUTES.items():
        if abbrev not in found:
            reading.leave_out(
                f"{ROOT}/attributes/attribute[name='{abbrev}']",
                f"not in the file: the sheet leaves {field} unset",
            )


def _skills(root: Element) -> dict[str, tuple[int, str]]:
    """Active skills' `<rating>` by name (a skill of a group holds the group's rating there;
    `<totalvalue>` is the dice pool with the attribute, not read)."""
    ratings: dict[str, tuple[int, str]] = {}
    for skill in root.findall("skills/skill"):
        if is_true(skill, "knowledge"):
            continue
        name = text(skill, "name") or ""
        where = f"{ROOT}/skills/skill[name='{name}']"
        ratings[name] = (integer(skill, "rating", where) or 0, f"{where}/rating")
    return ratings


def _armor(root: Element, reading: Reading) -> None:
    """Ballistic `<b>` and impact `<i>` of the equipped armour: the best plain rating of each,
    plus the pieces whose rating is a bonus ("+1": helmets, shields)."""
    for tag, field in (("b", "ballistic_armor"), ("i", "impact_armor")):
        best = 0
        bonus = 0
        sources: list[str] = []
        for index, armor in enumerate(root.findall("armors/armor"), 1):
            where = f"{ROOT}/armors/armor[{index}] ({text(armor, 'name')})"
            if not is_true(armor, "equipped"):
                if tag == "b":
                    reading.leave_out(where, "not equipped")
                continue
            value = text(armor, tag) or "0"
            try:
                rating = int(value)
            except ValueError:
                raise ImportRefused(f"{value!r} is not an armor rating", f"{where}/{tag}") from None
            if value.startswith("+"):
                bonus += rating
                sources.append(f"{where}/{tag}")
            elif rating > best:
                best = rating
                sources.insert(0, f"{where}/{tag}")
        reading.keep(field, min(MAX_RATING, best + bonus), " + ".join(sources) or "none worn")


def _gun(weapon: Element, where: str, category: str, reading: Reading) -> dict[str, object]:
    dv, damage_type = guns.damage(weapon, where)
    mods = [
        (each, f"{where}/weaponmods/weaponmod[{n}]")
        for n, each in enumerate(weapon.findall("weaponmods/weaponmod"), 1)
        if is_true(each, "installed")
    ]
    smartgun = any((text(mod, "name") or "").startswith("Smartgun") for mod, _ in mods)
    return {
        "category": category,
        "damage": dv,
        "damage_type": damage_type,
        "ap": guns.armor_penetration(weapon, where),
        "rc": guns.recoil_compensation(weapon, mods, where, reading),
        "smartgun": smartgun,
        "modes": guns.modes(weapon, where, reading),
        "ammo": _rounds_loaded(weapon, where, reading),
    }


def _rounds_loaded(weapon: Element, where: str, reading: Reading) -> int:
    """`<ammoremaining>`: the rounds in the gun's first slot. ChummerGenSR4 writes 0 with no
    ammunition loaded (`<ammoloaded>` all zeros): the import loads it full (reported)."""
    remaining = integer(weapon, "ammoremaining", where)
    if remaining:
        return remaining
    capacity = guns.capacity(weapon)
    if not capacity:
        raise guns.LeftOut(f"{where}/ammo {text(weapon, 'ammo')!r} gives no ammunition count")
    reading.leave_out(
        f"{where}/ammoremaining",
        f"no rounds recorded loaded: loaded full ({capacity}, from <ammo>)",
    )
    return capacity


_GUNS = guns.Guns(
    edition="SR4",
    category=CATEGORY,
    skill_by_category=SKILL_BY_CATEGORY,
    skills_path="skills",
    gun=_gun,
    noted=("damage", "damage_type", "ap", "rc", "smartgun", "modes", "ammo"),
    max_weapons=MAX_WEAPONS,
    underbarrels=True,
)

"""What Chummer 5 and Chummer 4 keep alike about a gun: its damage code ("8P"), AP ("-1", "-"),
firing modes ("SA/BF/FA"), recoil compensation with the mods that add to it, and its ammunition
("15(c)"). Each reader returns the value or the reason the gun is left out."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from xml.etree.ElementTree import Element

from service.imports.report import Reading
from service.imports.xml_document import first_integer, is_true, text

_DAMAGE = re.compile(r"(\d+)\s*([PS])(\(e\))?")
_MODES = ("SS", "SA", "BF", "FA")


class LeftOut(Exception):
    """A gun the sheet cannot carry; the message says why."""


def damage(weapon: Element, where: str) -> tuple[int, str]:
    """The Damage Value and its type from `<damage>`: "8P", "9S(e)". A formula ("(STR+2)P",
    "({Rating}+2)P") needs what the sheet does not keep: the gun is left out."""
    value = text(weapon, "damage") or ""
    found = _DAMAGE.fullmatch(value.replace(" ", ""))
    if not found:
        raise LeftOut(f"{where}/damage {value!r} is not a damage code such as 8P")
    return int(found[1]), found[2]


def armor_penetration(weapon: Element, where: str) -> int:
    """`<ap>`: "-1", "+2", "0", or "-" for none."""
    value = (text(weapon, "ap") or "-").replace(" ", "")
    if value in ("-", ""):
        return 0
    try:
        return int(value)
    except ValueError:
        raise LeftOut(f"{where}/ap {value!r} is not a number") from None


def modes(weapon: Element, where: str, reading: Reading) -> list[str]:
    """`<mode>`: "SA", "SA/BF/FA"; a mode firefight does not fire is noted, none is no gun."""
    listed = [m.strip().upper() for m in (text(weapon, "mode") or "").split("/") if m.strip()]
    kept = [m for m in _MODES if m in listed]
    for other in listed:
        if other not in _MODES and other != "0":
            reading.leave_out(f"{where}/mode", f"firing mode {other!r} is not one firefight fires")
    if not kept:
        raise LeftOut(f"{where}/mode {text(weapon, 'mode')!r} names no firing mode")
    return kept


def recoil_compensation(
    weapon: Element, mods: Iterable[tuple[Element, str]], where: str, reading: Reading
) -> int:
    """`<rc>` ("2", or "1(2)": the number in brackets is with a deployed stock, left to the GM),
    plus each fitted mod's `<rc>`: mods of `<rcgroup>` 0 add up, of another group only the best
    of that group counts (as Chummer counts them); a deployable one is not counted."""
    base_text = text(weapon, "rc") or ""
    total = max(0, first_integer(base_text) or 0)
    if "(" in base_text:
        reading.leave_out(
            f"{where}/rc", f"{base_text!r}: the bracketed value (deployed) is not read"
        )
    best_of_group: dict[str, int] = {}
    for mod, mod_where in mods:
        rc = first_integer(text(mod, "rc"))
        if not rc:
            continue
        if is_true(mod, "rcdeployable"):
            reading.leave_out(
                mod_where, f"{text(mod, 'name')}: RC {rc} only when deployed, not counted"
            )
            continue
        group = text(mod, "rcgroup") or "0"
        if group == "0":
            total += rc
        else:
            best_of_group[group] = max(best_of_group.get(group, 0), rc)
    return total + sum(best_of_group.values())


def capacity(weapon: Element) -> int | None:
    """`<ammo>`: "15(c)", "10(c) or 24(d)", "100(belt)": the first count."""
    return first_integer(text(weapon, "ammo"))


# What a Chummer edition's gun reader gives: the gun as the sheet keeps it (without its id).
GunReader = Callable[[Element, str, str, Reading], dict[str, object]]


@dataclass(frozen=True)
class Guns:
    """What reading an edition's guns needs: its name, its categories' firefight names and
    skills, where its skills are said to be, the gun reader, the fields the report notes, and
    the most guns a sheet carries."""

    edition: str
    category: Mapping[str, str]
    skill_by_category: Mapping[str, str]
    skills_path: str
    gun: GunReader
    noted: tuple[str, ...]
    max_weapons: int
    # Chummer 4 keeps underbarrel weapons inside their gun: say they are not read.
    underbarrels: bool = False


def read_guns(
    root: Element, root_path: str, reading: Reading, skills: dict[str, tuple[int, str]], of: Guns
) -> None:
    """The character's ranged weapons onto the sheet (`weapons`, `weapon_skills`, and the first
    gun's skill as `skill`); every other weapon left out with the reason."""
    weapons: list[dict[str, object]] = []
    weapon_skills: dict[str, int] = {}
    for index, weapon in enumerate(root.findall("weapons/weapon"), 1):
        name = text(weapon, "name") or ""
        where = f"{root_path}/weapons/weapon[{index}] ({name})"
        if text(weapon, "type") != "Ranged":
            reading.leave_out(where, f"a {(text(weapon, 'type') or 'untyped').lower()} weapon")
            continue
        category_name = text(weapon, "category") or ""
        category = of.category.get(category_name)
        if category is None:
            reading.leave_out(
                where, f"category {category_name!r} has no firefight {of.edition} category"
            )
            continue
        if len(weapons) == of.max_weapons:
            reading.leave_out(where, f"a sheet carries at most {of.max_weapons} weapons")
            continue
        try:
            gun = of.gun(weapon, where, category, reading)
        except LeftOut as reason:
            reading.leave_out(where, str(reason))
            continue
        if of.underbarrels:
            for underbarrel in weapon.findall("underbarrel/weapon"):
                reading.leave_out(
                    f"{where}/underbarrel ({text(underbarrel, 'name')})",
                    "an underbarrel weapon is not read",
                )
        weapon_id = reading.weapon_id(name)
        gun["id"] = weapon_id
        reading.note(f"weapons[{len(weapons)}]", weapon_id, where)
        skill_name = text(weapon, "useskill") or of.skill_by_category[category]
        missing = f"{root_path}/{of.skills_path}: no {skill_name}"
        rating, skill_source = skills.get(skill_name, (0, missing))
        weapon_skills[weapon_id] = reading.note(f"weapon_skills.{weapon_id}", rating, skill_source)
        weapons.append(gun)
        for field in of.noted:
            reading.note(f"weapons[{len(weapons) - 1}].{field}", gun[field], where)
    reading.fields["weapons"] = weapons
    reading.fields["weapon_skills"] = weapon_skills
    if weapons:
        first = str(weapons[0]["id"])
        reading.keep("skill", weapon_skills[first], f"weapon_skills.{first} (the first gun's)")

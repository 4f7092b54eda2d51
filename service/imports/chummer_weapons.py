"""What Chummer 5 and Chummer 4 keep alike about a gun: its damage code ("8P"), AP ("-1", "-"),
firing modes ("SA/BF/FA"), recoil compensation with the mods that add to it, and its ammunition
("15(c)"). Each reader returns the value or the reason the gun is left out."""

from __future__ import annotations

import re
from collections.abc import Iterable
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

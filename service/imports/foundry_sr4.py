"""The shadowrun4e system's actor (github.com/Tarislowatsch/Shadowrun4-FoundryVTT) as an SR4
sheet, read where the export's release line keeps each value: SR4_LINES, the paths of
foundry-module/src/sr4-actor.mjs SR4E_PATHS. What the system derives on a live actor
(`derivedStats.woundModifier`, the weapons' `effective...`) an export holds only as last saved,
or not at all: the wound modifier is counted from the monitors' boxes, as the system does."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from schemas.sr4 import MAX_WEAPONS
from service.imports.errors import ImportRefused
from service.imports.foundry_json import (
    at,
    item_id,
    items,
    keep_number,
    key,
    leading_number,
    number,
)
from service.imports.foundry_release import release_line
from service.imports.report import Reading


@dataclass(frozen=True)
class SR4Paths:
    """Where one line of shadowrun4e releases keeps what the sheet reads ("{}" is a sheetStats
    or a monitor key). The paths both lines have alike were read at v0.1.25, v0.1.31, v1.0.1 and
    v1.22.0: src/models/actor/basecharacter.model.js (SR4SheetStatsData, armorField,
    modifiersField, derivedStatsField), src/models/shared/schema-helper.js (monitorField,
    genericWeaponSchema), src/models/items/weapons.model.js (SR4RangedWeaponData),
    src/models/actions/skills.model.js, template.json (the item types)."""

    since: str
    name: str
    # The marked boxes: v0.1.31 schema-helper.js monitorField {max, current, bonus, woundMod};
    # `value` from v0.2.0 (its CHANGELOG: "rename conditionMonitor.current to .value").
    monitor: str
    # src/documents/derivedStats.mapper.js: at v0.1.31 each monitor's floor(boxes / 3 +
    # woundModBonus); from v0.2.0 floor(boxes / (3 + woundModBonus)) (computeWoundModifier).
    wound_bonus_divides: bool
    # The loaded rounds: none at v0.1.31 (weapons.model.js `ammo` is the book's capacity text,
    # "30(c)"), so the module keeps its own count on the gun, else a full load; v0.2.0
    # weapons.model.js `currentAmmo` and `maxAmmo`.
    rounds: str
    capacity: str
    # v1.12.0 schema-helper.js genericWeaponSchema `category` (weapon.enums.js WeaponCategory);
    # none at v0.1.31 (nor before v1.12.0: a gun of those releases has none, the module's
    # dialog asks for it and its sheet leaves the gun out).
    category: str | None
    # What SR4RangedWeaponData#prepareDerivedData adds from v0.2.0 (`effectiveDamage`...): not
    # stored, so not in a Foundry export, but read where a file has it, as the module does.
    effective: bool
    stat: str = "system.sheetStats.{}"
    ballistic: str = "system.armor.ballistic"
    impact: str = "system.armor.impact"
    wound_bonus: str = "system.modifiers.woundModBonus"
    # The stored copy of what derivedStats.mapper.js computes: read for the wound modifier only
    # when the export has no monitors.
    stored_wound_modifier: str = "system.derivedStats.woundModifier"
    # "physical/astral/matrix".
    passes: str = "system.derivedStats.passesString"
    weapon_type: str = "Ranged Weapon"
    skill_type: str = "Skill"
    skill_rating: str = "system.rating"
    damage: str = "system.damage"
    damage_type: str = "system.damageType"
    ap: str = "system.ap"
    attack_skill: str = "system.attackSkill"
    # A Shootingmodes key, its i18n key, or in the system's compendium the book's "SA/BF/FA"
    # (utility/packs/ranged_weapons.json at v0.1.31 and v1.0.1).
    mode: str = "system.mode"
    # A StringField at v0.1.25 ("2"), a NumberField from v0.1.31.
    rc: str = "system.rc"
    smartlink: str = "system.smartlink"


# Oldest first; `since` is the line's first release.
SR4_LINES = (
    SR4Paths(
        "0.1.0",
        "0.1.x",
        monitor="system.conditionMonitor.{}.current",
        wound_bonus_divides=False,
        rounds="flags.firefight.rounds",
        capacity="system.ammo",
        category=None,
        effective=False,
    ),
    SR4Paths(
        "0.2.0",
        "0.2.0+",
        monitor="system.conditionMonitor.{}.value",
        wound_bonus_divides=True,
        rounds="system.currentAmmo",
        capacity="system.maxAmmo",
        category="system.category",
        effective=True,
    ),
)

# sr4-actor.mjs CATEGORY (weapon.enums.js WeaponCategory keys, letters only, lower case).
CATEGORY = {
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
# sr4-actor.mjs MODE_WORDS: a Shootingmodes word, or the book's abbreviation.
MODE_WORDS = {
    "single": "SS",
    "semi": "SA",
    "burst": "BF",
    "full": "FA",
    "ss": "SS",
    "sa": "SA",
    "bf": "BF",
    "fa": "FA",
}
STATS = {
    "BODY": "body",
    "AGILITY": "agility",
    "REACTION": "reaction",
    "STRENGTH": "strength",
    "INTUITION": "intuition",
    "WILLPOWER": "willpower",
    "EDGE": "edge",
}
# SR4 core, "Wound Modifiers": -1 per 3 boxes of each monitor (the system's divisor).
BOXES_PER_WOUND = 3
MAX_ROUNDS = 10_000

_NOT_LETTERS = re.compile(r"[^a-z]+")


def line_by_shape(actor: dict[str, Any]) -> tuple[SR4Paths, str]:
    """The line whose shape the export has: the monitors' `current` (0.1.x) or `value`, else a
    gun's `currentAmmo` (0.2.0+)."""
    monitor = at(actor, "system.conditionMonitor.physical")
    if isinstance(monitor, dict):
        for line in SR4_LINES:
            field = line.monitor.rsplit(".", 1)[1]
            if field in monitor:
                return line, f"$.system.conditionMonitor.physical.{field}"
    for item, where in items(actor):
        if item.get("type") == "Ranged Weapon" and at(item, "system.currentAmmo") is not None:
            return SR4_LINES[1], f"{where} ({item.get('name')}).system.currentAmmo"
    return SR4_LINES[-1], "$.system.conditionMonitor: none, $.items: no gun with currentAmmo"


def _wound_modifier(actor: dict[str, Any], paths: SR4Paths, reading: Reading) -> None:
    tracks = [paths.monitor.format(track) for track in ("physical", "stun")]
    boxes = [number(actor, track, "$") for track in tracks]
    if None in boxes:
        wound = number(actor, paths.stored_wound_modifier, "$") or 0
        reading.keep(
            "wound_modifier",
            -abs(wound),
            f"$.{paths.stored_wound_modifier} (as last saved: the export has no monitors)",
        )
        return
    bonus = number(actor, paths.wound_bonus, "$") or 0
    if paths.wound_bonus_divides:
        wounds = sum(b // max(1, BOXES_PER_WOUND + bonus) for b in boxes if b is not None)
    else:
        # floor(boxes / 3 + bonus), in whole numbers.
        wounds = sum(
            (b + BOXES_PER_WOUND * bonus) // BOXES_PER_WOUND for b in boxes if b is not None
        )
    reading.keep("wound_modifier", -max(0, wounds), ", ".join(f"$.{t}" for t in tracks))


def _rounds(item: dict[str, Any], paths: SR4Paths, where: str) -> tuple[int, str]:
    """The rounds in the gun and where they come from: the line's count, else a full load (the
    capacity's number), as the module's roundsLoaded()."""
    kept = number(item, paths.rounds, where)
    if kept is not None:
        return min(MAX_ROUNDS, max(0, kept)), paths.rounds
    capacity = at(item, paths.capacity)
    loaded = min(MAX_ROUNDS, max(0, leading_number(capacity) or 0))
    return loaded, f"a full load: {paths.capacity} {str(capacity)[:40]!r}"


def _derived(item: dict[str, Any], paths: SR4Paths, name: str, base: str) -> str:
    """The path of what prepareDerivedData made of a field (`system.effectiveDamage`) where the
    line has it and the file holds it, else the field's."""
    path = f"system.{name}"
    return path if paths.effective and at(item, path) is not None else base


def _gun(item: dict[str, Any], paths: SR4Paths, where: str) -> tuple[dict[str, Any], str]:
    """The gun's numbers as the sheet takes them, and a summary of them for the report."""
    words = _NOT_LETTERS.split(str(at(item, paths.mode) or "").split(".")[-1].lower())
    found = {MODE_WORDS[word] for word in words if word in MODE_WORDS}
    modes = [mode for mode in ("SS", "SA", "BF", "FA") if mode in found]
    damage_type = key(at(item, _derived(item, paths, "effectiveDamageType", paths.damage_type)))
    damage = max(
        0, number(item, _derived(item, paths, "effectiveDamage", paths.damage), where) or 0
    )
    ap = number(item, _derived(item, paths, "effectiveAP", paths.ap), where) or 0
    rc = max(0, leading_number(at(item, _derived(item, paths, "effectiveRC", paths.rc))) or 0)
    smartgun = bool(at(item, _derived(item, paths, "effectiveSmartlink", paths.smartlink)))
    rounds, rounds_from = _rounds(item, paths, where)
    gun = {
        "damage": damage,
        "damage_type": "S" if damage_type.startswith("stun") else "P",
        "ap": ap,
        "rc": rc,
        "modes": modes,
        "ammo": rounds,
        "smartgun": smartgun,
    }
    summary = (
        f"{damage}{gun['damage_type']}, AP {ap}, RC {rc}, {'/'.join(modes) or 'no firing mode'}"
        f"{', smartlink' if smartgun else ''}, {rounds} rounds ({rounds_from})"
    )
    return gun, summary


def _unsorted(item: dict[str, Any], paths: SR4Paths, where: str) -> str:
    """Why a gun without a category is left out, with what was read of it for the GM to add it
    by hand; a number that cannot be read does not refuse a gun left out anyway."""
    try:
        read = _gun(item, paths, where)[1]
    except ImportRefused as unread:
        read = f"not its numbers ({unread.path}: {unread.detail})"
    return (
        "the module's attack dialog asks for it, its sheet leaves the gun out; "
        f"left out, read: {read}"
    )


def read_sr4(actor: dict[str, Any], reading: Reading) -> None:
    paths = release_line(actor, SR4_LINES, line_by_shape, reading)
    for stat, field in STATS.items():
        low = 1 if field != "edge" else 0
        keep_number(reading, field, actor, paths.stat.format(stat), low)
    keep_number(reading, "ballistic_armor", actor, paths.ballistic)
    keep_number(reading, "impact_armor", actor, paths.impact)
    _wound_modifier(actor, paths, reading)
    passes = str(at(actor, paths.passes) or "1").split("/")[0]
    reading.keep(
        "initiative_passes",
        min(4, max(1, int(passes) if passes.isdigit() else 1)),
        f"$.{paths.passes} (the physical passes)",
    )
    skills = {
        key(item.get("name")): (
            number(item, paths.skill_rating, where) or 0,
            f"{where}.{paths.skill_rating}",
        )
        for item, where in items(actor)
        if item.get("type") == paths.skill_type
    }
    if "dodge" in skills:
        reading.keep("dodge", *skills["dodge"])
    weapons: list[dict[str, Any]] = []
    weapon_skills: dict[str, int] = {}
    for item, where in items(actor):
        if item.get("type") in ("Melee Weapon", "Thrown Weapon"):
            reading.leave_out(f"{where} ({item.get('name')})", f"a {item.get('type')}")
        if item.get("type") != paths.weapon_type:
            continue
        where = f"{where} ({item.get('name')})"
        named = str(at(item, paths.category) or "") if paths.category else ""
        category = CATEGORY.get(key(named))
        if named and category is None:
            reading.leave_out(where, f"category {named!r} has no firefight SR4 category")
            continue
        if category is None:
            keeps = (
                f"shadowrun4e {paths.name} keeps no weapon category"
                if paths.category is None
                else "no category (shadowrun4e keeps one from 1.12.0 on)"
            )
            reading.leave_out(where, f"{keeps}: {_unsorted(item, paths, where)}")
            continue
        gun = _gun(item, paths, where)[0]
        if not gun["modes"]:
            reading.leave_out(where, "no firing mode")
            continue
        if len(weapons) == MAX_WEAPONS:
            reading.leave_out(where, f"a sheet carries at most {MAX_WEAPONS} weapons")
            continue
        weapon_id = item_id(item) or reading.weapon_id(str(item.get("name") or "weapon"))
        weapons.append({"id": weapon_id, "category": category, **gun})
        reading.note(f"weapons[{len(weapons) - 1}]", weapon_id, where)
        rating, source = skills.get(
            key(at(item, paths.attack_skill)),
            (0, f"{where}.{paths.attack_skill}: not a skill of the actor"),
        )
        weapon_skills[weapon_id] = reading.note(f"weapon_skills.{weapon_id}", rating, source)
    reading.keep_weapons(weapons, weapon_skills)

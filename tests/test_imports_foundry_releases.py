"""Issue 25f: each release line of the Foundry systems read where it keeps its data, in an actor's
Export Data: shadowrun5e 0.34+ (armour under `armor.rating`, skills as skill items), shadowrun4e
0.1.x (no loaded rounds, no category, monitors' `current`), sr3e betas (a skill link to a
specialization, "id::n"). The line is the export's release, else the export's shape; the report
says which."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from schemas.sr3 import SR3Sheet
from schemas.sr4 import SR4Sheet
from schemas.sr5 import SR5Sheet
from service.imports import import_foundry

DATA = Path(__file__).parent / "data" / "imports"
JINX = (DATA / "jinx-shadowrun5e-0.34.json").read_bytes()
KADE = (DATA / "kade-shadowrun4e-0.1.json").read_bytes()
MARA = (DATA / "mara-sr3e-beta.json").read_bytes()
NYX = (DATA / "nyx-shadowrun5e.json").read_bytes()
VEX = (DATA / "vex-shadowrun4e.json").read_bytes()


def reasons(report: Any) -> dict[str, str]:
    return {entry.source: entry.reason for entry in report.left_out}


def release(report: Any) -> tuple[str, str]:
    (entry,) = [entry for entry in report.read if entry.field == "release"]
    return entry.source, entry.value


def sources(report: Any) -> dict[str, str]:
    return {entry.field: entry.source for entry in report.read}


def without_release(data: bytes) -> dict[str, Any]:
    """The export as an older Foundry or a hand-made file gives it: no release named."""
    actor = json.loads(data)
    actor["_stats"] = {"systemId": actor["_stats"]["systemId"]}
    return actor


def test_a_shadowrun5e_0_34_actor() -> None:
    sheet, report = import_foundry(JINX)
    assert isinstance(sheet, SR5Sheet)
    # _stats.exportSource.systemVersion 0.34.5: the 0.34+ line.
    assert release(report) == ("$._stats.exportSource.systemVersion", "0.34.5: the 0.34+ line")
    # system.attributes.<name>.value: body 4, agility 5, reaction 4, strength 3, willpower 3,
    # intuition 5, charisma 2, edge 2.
    assert (sheet.body, sheet.agility, sheet.reaction, sheet.strength) == (4, 5, 4, 3)
    assert (sheet.willpower, sheet.intuition, sheet.charisma, sheet.edge) == (3, 5, 2, 2)
    # Armour at system.armor.rating.value: 9 (there is no system.armor.value any more).
    assert sheet.armor == 9
    assert sources(report)["armor"] == "$.system.armor.rating.value"
    # system.skills is empty: the active skills are the skill items, by name made a key, their
    # system.skill.rating: Gymnastics 3, Perception 4 (items 2 and 3).
    assert (sheet.gymnastics, sheet.perception) == (3, 4)
    assert sources(report)["gymnastics"] == "$.items[2] (Gymnastics).system.skill.rating"
    # system.wounds.value 1: -1.
    assert sheet.wound_modifier == -1
    predator, scorpion = sheet.weapons
    # The Predator V: heavy pistols, 8P, AP -1, limit 5, RC 0, semi-auto, ammo.current 12.
    assert (predator.id, predator.category, predator.damage, predator.damage_type) == (
        "wP5predatorV0001",
        "heavy_pistol",
        8,
        "P",
    )
    assert (predator.ap, predator.accuracy, predator.rc, predator.modes, predator.ammo) == (
        -1,
        5,
        0,
        ["SA"],
        12,
    )
    # The Black Scorpion: machine pistols, 6P, AP 0, limit 5, RC 1, semi-auto and burst, 35.
    assert (scorpion.category, scorpion.damage, scorpion.ap, scorpion.accuracy) == (
        "machine_pistol",
        6,
        0,
        5,
    )
    assert (scorpion.rc, scorpion.modes, scorpion.ammo) == (1, ["SA", "BF"], 35)
    # The Predator's action names pistols: the active Pistols item, 5 (the knowledge skill also
    # named Pistols, rating 1, is not it); the Scorpion names none: its category's, automatics 4.
    assert sheet.weapon_skills == {"wP5predatorV0001": 5, "wP5scorpion00001": 4}
    assert sheet.skill == 5
    assert reasons(report)["$.items[7] (Combat Knife)"] == "a melee weapon, not ranged"


def test_a_shadowrun5e_line_without_a_release_is_read_from_the_shape() -> None:
    # No release named; an object at system.armor.rating is the 0.34+ line's.
    sheet, report = import_foundry(json.dumps(without_release(JINX)).encode())
    assert isinstance(sheet, SR5Sheet)
    assert release(report) == (
        "$.system.armor.rating",
        "the 0.34+ line: the export names no release, its shape is that line's",
    )
    assert (sheet.armor, sheet.gymnastics, sheet.weapon_skills["wP5predatorV0001"]) == (9, 3, 5)
    # 0.33's shape: the armour still {value} at system.armor, the skills already items.
    actor = without_release(JINX)
    actor["system"]["armor"] = {"base": 7, "value": 7, "mod": [], "label": "SR5.Armor"}
    sheet, report = import_foundry(json.dumps(actor).encode())
    assert isinstance(sheet, SR5Sheet)
    assert release(report)[1].startswith("the 0.33 line")
    assert (sheet.armor, sheet.perception, sheet.skill) == (7, 4, 5)
    # Nyx (0.27.1) without its release: skills on the actor, no skill items: 0.25 to 0.32.
    sheet, report = import_foundry(json.dumps(without_release(NYX)).encode())
    assert isinstance(sheet, SR5Sheet)
    assert release(report)[1].startswith("the 0.25-0.32 line")
    assert (sheet.armor, sheet.gymnastics, sheet.perception, sheet.skill) == (12, 2, 4, 5)


def test_a_shadowrun5e_release_named_wins_over_the_shape() -> None:
    # A 0.33.2 export: skill items, armour at system.armor.value, whatever else it holds.
    actor = json.loads(JINX)
    actor["_stats"]["exportSource"]["systemVersion"] = "0.33.2"
    actor["system"]["armor"]["value"] = 6
    sheet, report = import_foundry(json.dumps(actor).encode())
    assert isinstance(sheet, SR5Sheet)
    assert release(report) == ("$._stats.exportSource.systemVersion", "0.33.2: the 0.33 line")
    assert (sheet.armor, sheet.gymnastics) == (6, 3)


def test_a_shadowrun4e_0_1_actor() -> None:
    sheet, report = import_foundry(KADE)
    assert isinstance(sheet, SR4Sheet)
    # The release exported from (exportSource, 0.1.31), not the one it was last saved under
    # (_stats.systemVersion, 0.1.29).
    assert release(report) == ("$._stats.exportSource.systemVersion", "0.1.31: the 0.1.x line")
    # system.sheetStats: BODY 5, AGILITY 4, REACTION 4, STRENGTH 4, INTUITION 3, WILLPOWER 3,
    # EDGE 2; armour 6/4; passesString "2/3/0": 2; the Dodge item's rating 2.
    assert (sheet.body, sheet.agility, sheet.reaction, sheet.strength) == (5, 4, 4, 4)
    assert (sheet.intuition, sheet.willpower, sheet.edge) == (3, 3, 2)
    assert (sheet.ballistic_armor, sheet.impact_armor, sheet.initiative_passes) == (6, 4, 2)
    assert sheet.dodge == 2
    # The monitors' marked boxes (0.1.x: `current`), as the system counts them with a
    # woundModBonus of 0: physical floor(4 / 3) = 1, stun floor(3 / 3) = 1: -2 (the stored
    # derivedStats.woundModifier, 0, is what it was last saved with).
    assert sheet.wound_modifier == -2
    assert sources(report)["wound_modifier"] == (
        "$.system.conditionMonitor.physical.current, $.system.conditionMonitor.stun.current"
    )
    # 0.1.x guns name no category: left out as the module's sheet leaves them, with what was
    # read of them. The Predator: 5P, AP -1, SA, never fired: a full load, 15 of "15(c)".
    assert sheet.weapons == []
    left = reasons(report)
    predator = left["$.items[3] (Ares Predator IV)"]
    assert predator.startswith("shadowrun4e 0.1.x keeps no weapon category")
    assert "5P, AP -1, RC 0, SA, smartlink, 15 rounds (a full load: system.ammo '15(c)')" in (
        predator
    )
    # The AK-97: "SA/BF/FA" split; the module's count of its rounds, 29.
    assert (
        "6P, AP -1, RC 2, SA/BF/FA, 29 rounds (flags.firefight.rounds)"
        in (left["$.items[4] (AK-97)"])
    )
    assert left["$.items[5] (Katana)"] == "a Melee Weapon"


def test_a_shadowrun4e_line_without_a_release_is_read_from_the_shape() -> None:
    sheet, report = import_foundry(json.dumps(without_release(KADE)).encode())
    assert isinstance(sheet, SR4Sheet)
    assert release(report) == (
        "$.system.conditionMonitor.physical.current",
        "the 0.1.x line: the export names no release, its shape is that line's",
    )
    assert sheet.wound_modifier == -2
    # Vex's monitors keep `value`: 0.2.0 and later.
    sheet, report = import_foundry(json.dumps(without_release(VEX)).encode())
    assert isinstance(sheet, SR4Sheet)
    assert release(report)[0] == "$.system.conditionMonitor.physical.value"
    assert (sheet.weapons[0].ammo, sheet.weapons[0].modes) == (15, ["SA"])


def test_a_shadowrun4e_1x_gun_keeps_its_category_and_rounds() -> None:
    sheet, report = import_foundry(VEX)
    assert isinstance(sheet, SR4Sheet)
    assert release(report) == ("$._stats.exportSource.systemVersion", "1.0.1: the 0.2.0+ line")
    # 1.x's marked boxes are `value`; 3 physical with a woundModBonus of 1: floor(3 / (3 + 1))
    # = 0; 4 stun: floor(4 / 4) = 1: -1.
    actor = json.loads(VEX)
    actor["system"]["conditionMonitor"]["physical"]["value"] = 3
    actor["system"]["conditionMonitor"]["stun"]["value"] = 4
    actor["system"]["modifiers"] = {"woundModBonus": 1}
    # A gun of a 1.x release before 1.12.0 has no category: left out, its rounds currentAmmo.
    del actor["items"][2]["system"]["category"]
    sheet, report = import_foundry(json.dumps(actor).encode())
    assert isinstance(sheet, SR4Sheet)
    assert sheet.wound_modifier == -1
    assert sheet.weapons == []
    assert "15 rounds (system.currentAmmo)" in reasons(report)["$.items[2] (Ares Predator IV)"]


def test_an_sr3e_beta_actor_with_a_skill_link_to_a_specialization() -> None:
    sheet, report = import_foundry(MARA)
    assert isinstance(sheet, SR3Sheet)
    assert release(report) == (
        "$._stats.exportSource.systemVersion",
        "0.0.3-beta.5: the 0.0.3-beta line",
    )
    # value + mod: body 4, quickness 6, strength 3, intelligence 5, willpower 4; Combat Pool 7;
    # stun 2 boxes, physical 0: Light.
    assert (sheet.body, sheet.quickness, sheet.strength) == (4, 6, 3)
    assert (sheet.intelligence, sheet.willpower, sheet.combat_pool, sheet.wounds) == (5, 4, 7, "L")
    assert [(p.name, p.ballistic, p.impact) for p in sheet.armor] == [("Lined Coat", 4, 2)]
    predator, ingram = sheet.weapons
    # The Predator: semiauto, 9M, its clip's 12 rounds, RC 0 + 0.
    assert (predator.category, predator.power, predator.damage_level, predator.modes) == (
        "heavy_pistol",
        9,
        "M",
        ["SA"],
    )
    assert (predator.ammo, predator.recoil_compensation) == (12, 0)
    # The Ingram: burst (SA and BF), 7M, 30 rounds, RC 1 + 1.
    assert (ingram.category, ingram.power, ingram.modes, ingram.ammo) == (
        "smg",
        7,
        ["SA", "BF"],
        30,
    )
    assert ingram.recoil_compensation == 2
    # The Predator's link "sK3firearms00001::0" is the Firearms item (before "::") with its
    # first specialization: the skill's rating 5, as the module reads it; the Ingram's plain
    # link the same item.
    assert sheet.weapon_skills == {"wP3predator00001": 5, "wP3ingram0000001": 5}
    assert sheet.skill == 5


def test_an_sr3e_line_without_a_release_is_read_from_the_shape() -> None:
    sheet, report = import_foundry(json.dumps(without_release(MARA)).encode())
    assert isinstance(sheet, SR3Sheet)
    assert release(report) == (
        "$.items[1] (Ares Predator).system.damage",
        "the 0.0.3-beta line: the export names no release, its shape is that line's",
    )
    actor = without_release(MARA)
    for item in actor["items"]:
        if item["type"] == "weapon":
            item["system"]["damage"] = item["system"]["damage"]["value"]
            item["system"]["recoilComp"] = item["system"]["recoilComp"]["value"]
    sheet, report = import_foundry(json.dumps(actor).encode())
    assert isinstance(sheet, SR3Sheet)
    assert release(report)[1].startswith("the 0.0.3-alpha line")
    # The alphas' plain numbers: 9, and the Ingram's RC 1 (no mod).
    assert (sheet.weapons[0].power, sheet.weapons[1].recoil_compensation) == (9, 1)


def named(data: bytes, version: str) -> bytes:
    actor = json.loads(data)
    actor["_stats"]["exportSource"]["systemVersion"] = version
    return json.dumps(actor).encode()


def test_releases_are_ordered_as_foundry_orders_them() -> None:
    # Numbers part by part (0.10.0 after 0.2.0, not before it as text), a pre-release before its
    # release, alpha before beta, a leading "v" ignored.
    cases = [
        (KADE, "0.10.0", "0.2.0+"),
        (KADE, "0.1.32", "0.1.x"),
        (MARA, "0.0.3-alpha.6", "0.0.3-alpha"),
        (MARA, "0.0.3-beta.0", "0.0.3-beta"),
        (MARA, "v0.0.3", "0.0.3-beta"),
        (JINX, "0.33.9", "0.33"),
        (JINX, "0.9.0", "0.25-0.32"),
    ]
    for data, version, line in cases:
        _, report = import_foundry(named(data, version))
        assert release(report)[1] == f"{version}: the {line} line", version


def test_a_gun_left_out_for_its_category_does_not_refuse_the_file_for_its_numbers() -> None:
    actor = json.loads(KADE)
    actor["items"][4]["system"]["damage"] = "(STR+2)"
    sheet, report = import_foundry(json.dumps(actor).encode())
    assert isinstance(sheet, SR4Sheet)
    assert sheet.body == 5
    assert reasons(report)["$.items[4] (AK-97)"].endswith(
        "left out, read: not its numbers ($.items[4] (AK-97).system.damage: "
        "'(STR+2)' is not a number)"
    )

"""Issue 25: a Foundry actor exported as JSON (Export Data) from shadowrun5e, shadowrun4e or
sr3e into its ruleset's sheet, read where foundry-module/src/sr5-actor.mjs, sr4-actor.mjs and
sr3-actor.mjs read a live actor; refusals name the JSON path; the SR5 sheet shoots on a scene."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from schemas.sr3 import SR3Sheet
from schemas.sr4 import SR4Sheet
from schemas.sr5 import SR5Sheet
from service.imports import MAX_IMPORT_BYTES, ImportRefused, import_foundry

DATA = Path(__file__).parent / "data" / "imports"
NYX = (DATA / "nyx-shadowrun5e.json").read_bytes()
VEX = (DATA / "vex-shadowrun4e.json").read_bytes()
ROOK = (DATA / "rook-sr3e.json").read_bytes()


def reasons(report: Any) -> dict[str, str]:
    return {entry.source: entry.reason for entry in report.left_out}


def test_a_shadowrun5e_actor() -> None:
    sheet, report = import_foundry(NYX)
    assert isinstance(sheet, SR5Sheet)
    # system.attributes.<name>.value: body 3, agility 6 (5 + the Muscle Toner), reaction 4,
    # strength 3, willpower 4, intuition 5, charisma 2, edge 4.
    assert (sheet.body, sheet.agility, sheet.reaction, sheet.strength) == (3, 6, 4, 3)
    assert (sheet.willpower, sheet.intuition, sheet.charisma, sheet.edge) == (4, 5, 2, 4)
    # system.armor.value 12; limits.physical/mental.value 5 and 5; wounds.value 1 -> -1;
    # skills.active.gymnastics/perception.value 2 and 4.
    assert (sheet.armor, sheet.physical_limit, sheet.mental_limit) == (12, 5, 5)
    assert (sheet.wound_modifier, sheet.gymnastics, sheet.perception) == (-1, 2, 4)
    colt, hk = sheet.weapons
    # The Colt: subcategory "Light Pistols", damage 7 physical, AP 0, limit (accuracy) 7, RC 0,
    # semi_auto only, ammo.current 9; its action's skill pistols: value 5.
    assert (colt.id, colt.category, colt.damage, colt.damage_type) == (
        "hK3pQ9zW1mX2vB7c",
        "light_pistol",
        7,
        "P",
    )
    assert (colt.ap, colt.accuracy, colt.rc, colt.modes, colt.ammo) == (0, 7, 0, ["SA"], 9)
    # The HK-227: "Submachine Guns", RC 1, semi/burst/full, 28 rounds; automatics 3.
    assert (hk.category, hk.rc, hk.modes, hk.ammo) == ("submachine_gun", 1, ["SA", "BF", "FA"], 28)
    assert sheet.weapon_skills == {"hK3pQ9zW1mX2vB7c": 5, "Rt8uY4iO0pA5sD6f": 3}
    assert sheet.skill == 5
    left = reasons(report)
    assert left["$.items[2] (Combat Knife)"] == "a melee weapon, not ranged"
    assert "has no firefight SR5 category" in left["$.items[3] (Ares S-III Super Squirt)"]
    assert (report.source_format, report.ruleset, report.name) == (
        "foundry-shadowrun5e",
        "sr5",
        "Nyx",
    )


def test_a_shadowrun4e_actor_named_by_its_v13_export_source() -> None:
    sheet, report = import_foundry(VEX)
    assert isinstance(sheet, SR4Sheet)
    # system.sheetStats: BODY 4, AGILITY 5, REACTION 4, STRENGTH 3, INTUITION 4, WILLPOWER 3,
    # EDGE 3; armor 8/6; passesString "2/3/0": 2 passes; the Dodge Skill item's rating 3.
    assert (sheet.body, sheet.agility, sheet.reaction, sheet.strength) == (4, 5, 4, 3)
    assert (sheet.intuition, sheet.willpower, sheet.edge) == (4, 3, 3)
    assert (sheet.ballistic_armor, sheet.impact_armor, sheet.initiative_passes) == (8, 6, 2)
    assert sheet.dodge == 3
    (predator,) = sheet.weapons
    # effectiveDamage 5, PHYSICAL, effectiveAP -1, SEMI_AUTOMATIC, effectiveSmartlink, 15 rounds;
    # attackSkill sr4.skills.pistols -> the Pistols Skill item, rating 4.
    assert (predator.category, predator.damage, predator.ap, predator.modes) == (
        "heavy_pistol",
        5,
        -1,
        ["SA"],
    )
    assert (predator.smartgun, predator.ammo, sheet.skill) == (True, 15, 4)
    left = reasons(report)
    assert (
        "'EXOTIC_RANGED_WEAPONS' has no firefight SR4 category"
        in left["$.items[3] (Ares S-III Super Squirt)"]
    )


def test_an_sr3e_actor_named_by_its_v12_export_flags() -> None:
    sheet, report = import_foundry(ROOK)
    assert isinstance(sheet, SR3Sheet)
    # system.attributes.<name>.value + mod: body 5, quickness 5 + 1 = 6, strength 4,
    # intelligence 4, willpower 4; the Combat Pool 7; health physical 3 boxes (stun 1): M.
    assert (sheet.body, sheet.quickness, sheet.strength) == (5, 6, 4)
    assert (sheet.intelligence, sheet.willpower, sheet.combat_pool, sheet.wounds) == (4, 4, 7, "M")
    # Every wearable with a rating: the jacket 5/3 and the helmet 1/1.
    assert [(p.name, p.ballistic, p.impact) for p in sheet.armor] == [
        ("Armor Jacket", 5, 3),
        ("Helmet", 1, 1),
    ]
    (predator,) = sheet.weapons
    # semiauto -> SA; damage 9 + 0, "m": 9M physical; the clip it names holds 10 rounds; its
    # linked skill Firearms 5.
    assert (predator.category, predator.power, predator.damage_level, predator.modes) == (
        "heavy_pistol",
        9,
        "M",
        ["SA"],
    )
    assert (predator.ammo, sheet.weapon_skills, sheet.skill) == (10, {"wEaP0000pred0001": 5}, 5)
    assert reasons(report)["$.items[3] (Katana)"] == "mode 'blade': not a ranged weapon"


def test_refusals_name_the_json_path() -> None:
    actor = json.loads(NYX)
    cases = [
        (b"{not json", "$", "not JSON"),
        (b"[]", "$", "JSON object"),
        (json.dumps({**actor, "system": 3}).encode(), "$.system", "no `system`"),
        (
            json.dumps({**actor, "_stats": {"systemId": "dnd5e"}}).encode(),
            "$._stats.systemId",
            "'dnd5e'",
        ),
        (json.dumps({**actor, "_stats": {}}).encode(), "$._stats.systemId", "does not say"),
    ]
    bad_agility = json.loads(NYX)
    bad_agility["system"]["attributes"]["agility"]["value"] = "six"
    cases.append(
        (json.dumps(bad_agility).encode(), "$.system.attributes.agility.value", "not a number")
    )
    for data, path, detail in cases:
        with pytest.raises(ImportRefused) as refused:
            import_foundry(data)
        assert (refused.value.path, refused.value.status) == (path, 422), data[:60]
        assert detail in refused.value.detail
    with pytest.raises(ImportRefused) as refused:
        import_foundry(b" " * (MAX_IMPORT_BYTES + 1))
    assert (refused.value.kind, refused.value.status) == ("import-too-large", 413)


GANGER = {
    "name": "Ganger",
    "position": {"x": 12.0, "y": 0.0},
    "sheet": {"ruleset": "sr5", "reaction": 3, "intuition": 3, "body": 4, "armor": 9},
}


async def test_the_imported_sheet_shoots_on_the_scene(client: Any) -> None:
    sheet, _ = import_foundry(NYX)
    created = await (await client.post("/v1/encounters", json={"ruleset": "sr5"})).json()
    base = f"/v1/encounters/{created['id']}"
    nyx = {"name": "Nyx", "position": {"x": 0.0, "y": 0.0}, "sheet": msgspec.to_builtins(sheet)}
    for actor_id, actor in (("nyx", nyx), ("goon-1", GANGER)):
        response = await client.put(f"{base}/actors/{actor_id}", json=actor)
        assert response.status == 200, await response.text()
    attack = {
        "attacker": "nyx",
        "weapon": "hK3pQ9zW1mX2vB7c",
        "mode": "SA",
        "targets": [{"id": "goon-1"}],
        "dice": {
            "attack": [6, 6, 5, 2, 2, 1, 3, 4, 2, 3],
            "defense:goon-1": [5, 2, 3, 1, 4, 2],
            "soak:goon-1": [5, 6, 1, 2, 3, 4, 2, 2, 3, 4, 1, 2, 2],
        },
    }
    response = await client.post(f"{base}/attacks", json=attack)
    assert response.status == 201, await response.text()
    result = (await response.json())["result"]
    target = result["targets"][0]
    # Agility 6 + pistols 5 = 11; the ganger 12 m away is medium range for a light pistol (-1):
    # 10 dice. The sheet's wound modifier -1 is replaced by the encounter's own monitor, empty
    # (docs/api.md, "Wounds flow"). 3 hits (6 6 5) under Accuracy 7 against 1 of Reaction 3 +
    # Intuition 3: 2 net hits. DV 7 + 2 = 9 against armour 9 - AP 0 = 9: physical; soak Body
    # 4 + 9 = 13 dice, 2 hits: 7 boxes. The Colt had 9 rounds: 8 left.
    assert (result["pool"], target["attack"]["pool"], result["limit"]) == (11, 10, 7)
    assert (target["attack_hits"], target["defense_hits"], target["net_hits"]) == (3, 1, 2)
    damage = target["damage"]
    assert (damage["dv"], damage["armor"], damage["soak_hits"], damage["boxes"]) == (9, 9, 2, 7)
    assert result["ammo_left"] == 8

"""Issue 25: a Chummer 4 character (`.chum`, UTF-16 XML as ChummerGenSR4 saves it) into an SR4
sheet with its report, and the imported sheet used by the service for an attack."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

from service.imports import ImportRefused, import_chummer4

GHOST = (Path(__file__).parent / "data" / "imports" / "ghost.chum").read_bytes()


def test_the_file_is_utf16_as_chummer4_writes_it() -> None:
    assert GHOST.startswith(b"\xff\xfe<\x00?\x00x\x00m\x00l\x00")


def test_attributes_skills_armor_and_passes() -> None:
    sheet, report = import_chummer4(GHOST)
    # ghost.chum, each <attribute>'s <totalvalue>: BOD 3; AGI 4 + Muscle Toner 1 = 5; REA 3 +
    # Wired Reflexes 1 = 4; STR 3; INT 4; WIL 3; EDG 2.
    assert (sheet.body, sheet.agility, sheet.reaction, sheet.strength) == (3, 5, 4, 3)
    assert (sheet.intuition, sheet.willpower, sheet.edge) == (4, 3, 2)
    # Skills' <rating> (not <totalvalue>, the pool with the attribute): Pistols 4 for the
    # Predator, Automatics 3 (the Firearms group's) for the HK, Dodge 2.
    assert sheet.weapon_skills == {"ares-predator-iv": 4, "hk-227x": 3}
    assert (sheet.skill, sheet.dodge) == (4, 2)
    # Armor Jacket 8/6 and Helmet +1/+1 equipped (the Lined Coat is not): 9 ballistic, 7 impact.
    assert (sheet.ballistic_armor, sheet.impact_armor) == (9, 7)
    # One InitiativePass improvement of 1: 1 + 1 = 2 passes.
    assert sheet.initiative_passes == 2
    assert (report.name, report.source_format, report.ruleset) == ("Ghost", "chummer4", "sr4")


def test_the_guns_and_what_was_left_out() -> None:
    sheet, report = import_chummer4(GHOST)
    predator, hk = sheet.weapons
    # Ares Predator IV: 5P, AP -1, SA, RC 0, an installed Smartgun System, 11 rounds remaining.
    assert (predator.id, predator.category, predator.damage, predator.ap) == (
        "ares-predator-iv",
        "heavy_pistol",
        5,
        -1,
    )
    assert (predator.modes, predator.rc, predator.smartgun, predator.ammo) == (["SA"], 0, True, 11)
    # HK-227X: 5P, AP "-" = 0, SA/BF/FA; RC 1 + the Gas-Vent 2's 2 = 3; its Smartgun System is not
    # installed; <ammoremaining>0 with nothing loaded: full, 28 of "28(c)".
    assert (hk.category, hk.damage, hk.ap, hk.modes) == ("smg", 5, 0, ["SA", "BF", "FA"])
    assert (hk.rc, hk.smartgun, hk.ammo) == (3, False, 28)
    reasons = {entry.source: entry.reason for entry in report.left_out}
    assert reasons["/character/weapons/weapon[1] (Unarmed Attack)"] == "a melee weapon"
    assert (
        "'Gear' has no firefight SR4 category"
        in reasons["/character/weapons/weapon[4] (Grenade: Flash-Bang)"]
    )
    assert "loaded full (28" in reasons["/character/weapons/weapon[3] (HK-227X)/ammoremaining"]
    assert reasons["/character/armors/armor[1] (Lined Coat)"] == "not equipped"


def test_a_chummer5_file_or_a_bad_rating_is_refused_naming_the_element() -> None:
    text = GHOST.decode("utf-16")
    with pytest.raises(ImportRefused) as refused:
        import_chummer4(text.replace("<gameedition>SR4", "<gameedition>SR5").encode("utf-16"))
    assert refused.value.path == "/character/gameedition"
    with pytest.raises(ImportRefused) as refused:
        import_chummer4(text.replace("<b>8</b>", "<b>eight</b>").encode("utf-16"))
    assert refused.value.path == "/character/armors/armor[2] (Armor Jacket)/b"


def test_an_entity_in_a_utf16_file_is_refused() -> None:
    hostile = (
        '<?xml version="1.0" encoding="utf-16"?>\n'
        '<!DOCTYPE character [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n'
        "<character><name>&x;</name></character>"
    ).encode("utf-16")
    with pytest.raises(ImportRefused) as refused:
        import_chummer4(hostile)
    assert "DTD" in refused.value.detail


TARGET = {
    "name": "Ganger",
    "position": {"x": 4.0, "y": 0.0},
    "sheet": {"ruleset": "sr4", "reaction": 3, "body": 3, "ballistic_armor": 6},
}


async def test_the_imported_sheet_shoots_on_the_scene(client: Any) -> None:
    sheet, _ = import_chummer4(GHOST)
    created = await (await client.post("/v1/encounters", json={"ruleset": "sr4"})).json()
    base = f"/v1/encounters/{created['id']}"
    ghost = {"position": {"x": 0.0, "y": 0.0}, "sheet": msgspec.to_builtins(sheet)}
    for actor_id, actor in (("ghost", ghost), ("ganger", TARGET)):
        response = await client.put(f"{base}/actors/{actor_id}", json=actor)
        assert response.status == 200, await response.text()
    attack = {
        "attacker": "ghost",
        "weapon": "ares-predator-iv",
        "mode": "SA",
        "targets": [{"id": "ganger"}],
        "dice": {
            "attack": [5, 5, 6, 2, 2, 2, 2, 2, 1],
            "defense:ganger": [5, 2, 2],
            "soak:ganger": [5, 2, 2, 2, 2, 2, 2, 2],
        },
    }
    response = await client.post(f"{base}/attacks", json=attack)
    assert response.status == 201, await response.text()
    result = (await response.json())["result"]
    target = result["targets"][0]
    # 001, "Opposed Test": Agility 5 + Pistols 4 = 9 dice (4 m is short range for a heavy pistol;
    # the smartgun adds dice only with the attack's smartlink), 3 hits (5 5 6) against Reaction 3
    # dice with 1 hit: 2 net hits. DV 5 + 2 = 7 against ballistic 6 - 1 AP = 5: physical; Body 3
    # + 5 = 8 soak dice, 1 hit: 6 boxes.
    assert (result["pool"], target["attack"]["hits"], target["defense_hits"]) == (9, 3, 1)
    damage = target["damage"]
    assert (damage["dv"], damage["armor"], damage["soak_hits"], damage["boxes"]) == (7, 5, 1, 6)
    # The round comes off the 11 the file had loaded.
    assert result["ammo_left"] == 10

"""Issue 25: a Chummer 5 character (`.chum5`) into an SR5 sheet, with the report of what was read
from where and what was left out; hostile XML refused naming why; and the imported sheet used by
the service, over HTTP, for an attack with given dice."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

from service.imports import MAX_IMPORT_BYTES, ImportRefused, import_chummer5

DATA = Path(__file__).parent / "data" / "imports"
KESTREL = (DATA / "kestrel.chum5").read_bytes()


def left_out(report: Any) -> dict[str, str]:
    return {entry.source: entry.reason for entry in report.left_out}


def test_the_attributes_are_chummers_totals_augmentations_included() -> None:
    sheet, report = import_chummer5(KESTREL)
    # kestrel.chum5, each <attribute>'s <totalvalue>: metatypemin + base + karma, plus what
    # augments it. BOD 1 + 3 + 0 = 4; AGI 1 + 4 + 1 = 6; REA 1 + 3 + 0 = 4, + 1 from the Wired
    # Reflexes' Attribute improvement (aug 1) = 5; STR 1 + 2 = 3; WIL 1 + 2 = 3; INT 1 + 3 = 4;
    # CHA 1 + 1 = 2; EDG 2 + 1 = 3.
    assert (sheet.body, sheet.agility, sheet.reaction, sheet.strength) == (4, 6, 5, 3)
    assert (sheet.willpower, sheet.intuition, sheet.charisma, sheet.edge) == (3, 4, 2, 3)
    # Limits: physical (2 x STR 3 + BOD 4 + REA 5) / 3 = 15 / 3 = 5; mental (2 x LOG 2 + INT 4
    # + WIL 3) / 3 = 11 / 3, rounded up: 4.
    assert (sheet.physical_limit, sheet.mental_limit) == (5, 4)
    # Wired Reflexes 1: an InitiativeDice improvement of 1, 1D6 + 1 = 2 dice.
    assert sheet.initiative_dice == 2
    fields = {entry.field: entry.source for entry in report.read}
    assert fields["reaction"] == "/character/attributes/attribute[name='REA']/totalvalue"
    assert report.name == "Kestrel"
    assert (report.source_format, report.ruleset) == ("chummer5", "sr5")


def test_the_skills_count_their_groups_points_and_are_found_by_id_without_a_name() -> None:
    sheet, report = import_chummer5(KESTREL)
    # The Firearms group has 2 base points: Pistols 2 + its 3 karma = 5, Automatics 2 + 1 = 3,
    # Longarms 2 + 0 = 2. Gymnastics 2 base (Athletics has none). Perception's <skill> has no
    # <name> (as files before Chummer 5.21x): its suid 04e1eb3e... is Perception, 2 + 1 = 3.
    assert sheet.weapon_skills == {"ares-predator-v": 5, "ares-alpha": 3, "enfield-as-7": 2}
    assert sheet.skill == 5  # the first gun's, the Predator's Pistols
    assert (sheet.gymnastics, sheet.perception) == (2, 3)
    perception = next(entry for entry in report.read if entry.field == "perception")
    assert "04e1eb3e-e82d-485b-a7fd-1e677df2a070" in perception.source


def test_armor_is_the_best_piece_worn_plus_the_bonus_pieces() -> None:
    sheet, report = import_chummer5(KESTREL)
    # Armor Jacket 12 (equipped) + Helmet "+2" (equipped) = 14; the Armor Vest 9 is not worn.
    assert sheet.armor == 14
    assert left_out(report)["/character/armors/armor[1] (Armor Vest)"] == "not equipped"


def test_the_guns_with_their_numbers_and_what_was_left_out() -> None:
    sheet, report = import_chummer5(KESTREL)
    weapons = {w.id: w for w in sheet.weapons}
    assert list(weapons) == ["ares-predator-v", "ares-alpha", "enfield-as-7"]
    predator = weapons["ares-predator-v"]
    # <damage>8P</damage> <ap>-1</ap> <accuracy>5</accuracy> (the internal smartgun's +2 is the
    # attack's smartlink), <mode>SA</mode>, the loaded clip's <count>12</count>.
    assert (predator.category, predator.damage, predator.damage_type, predator.ap) == (
        "heavy_pistol",
        8,
        "P",
        -1,
    )
    assert (predator.accuracy, predator.rc, predator.modes, predator.ammo) == (5, 0, ["SA"], 12)
    alpha = weapons["ares-alpha"]
    # RC 2 + Shock Pad 1 = 3; the Folding Stock's 1 counts only deployed. Clip of 30.
    assert (alpha.category, alpha.damage, alpha.ap, alpha.accuracy) == ("assault_rifle", 11, -2, 5)
    assert (alpha.rc, alpha.modes, alpha.ammo) == (3, ["SA", "BF", "FA"], 30)
    enfield = weapons["enfield-as-7"]
    # No <clips>: nothing recorded loaded, so full: "10(c) or 24(d)" -> 10 (reported).
    assert (enfield.category, enfield.damage, enfield.modes, enfield.ammo) == (
        "shotgun",
        13,
        ["SA", "BF"],
        10,
    )
    reasons = left_out(report)
    assert reasons["/character/weapons/weapon[1] (Unarmed Attack)"] == "a melee weapon"
    assert (
        "'Bows' has no firefight SR5 category"
        in reasons["/character/weapons/weapon[5] (Ranger X Bow)"]
    )
    assert (
        "only when deployed"
        in reasons["/character/weapons/weapon[3] (Ares Alpha)/accessories/accessory[3]"]
    )
    assert "loaded full (10 rounds" in reasons["/character/weapons/weapon[4] (Enfield AS-7)/clips"]
    assert (
        "smartlink"
        in reasons["/character/weapons/weapon[2] (Ares Predator V)/accessories/accessory[1]"]
    )


def test_a_file_without_totals_is_computed_from_base_karma_and_improvements() -> None:
    # An older save: no <totalvalue>. REA metatypemin 1 + base 3 + karma 0 + aug 1 = 5, capped
    # at metatypeaugmax 10; AGI 1 + 4 + 1 = 6.
    older = KESTREL.replace(b"<totalvalue>5</totalvalue>", b"").replace(
        b"<totalvalue>6</totalvalue>", b""
    )
    sheet, report = import_chummer5(older)
    assert (sheet.reaction, sheet.agility) == (5, 6)
    source = next(entry.source for entry in report.read if entry.field == "reaction")
    assert "no totalvalue" in source


def test_another_edition_or_a_bad_number_is_refused_naming_the_element() -> None:
    with pytest.raises(ImportRefused) as refused:
        import_chummer5(KESTREL.replace(b"<gameedition>SR5", b"<gameedition>SR4"))
    assert refused.value.path == "/character/gameedition"
    with pytest.raises(ImportRefused) as refused:
        import_chummer5(
            KESTREL.replace(b"<totalvalue>4</totalvalue>", b"<totalvalue>x</totalvalue>", 1)
        )
    assert refused.value.path == "/character/attributes/attribute[name='BOD']/totalvalue"
    assert refused.value.status == 422
    # An attribute above what a sheet holds (30) is refused, naming where the file has it.
    with pytest.raises(ImportRefused) as refused:
        import_chummer5(
            KESTREL.replace(b"<totalvalue>6</totalvalue>", b"<totalvalue>99</totalvalue>", 1)
        )
    assert refused.value.path == "/character/attributes/attribute[name='AGI']/totalvalue"


BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE character [
  <!ENTITY lol "lol">
  <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
  <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
  <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
]>
<character><gameedition>SR5</gameedition><name>&lol4;</name></character>"""
EXTERNAL_ENTITY = b"""<?xml version="1.0"?>
<!DOCTYPE character [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<character><gameedition>SR5</gameedition><name>&secret;</name></character>"""
DTD_ONLY = b"""<?xml version="1.0"?>
<!DOCTYPE character SYSTEM "http://example.invalid/character.dtd">
<character><gameedition>SR5</gameedition></character>"""


@pytest.mark.parametrize(
    "hostile", [BILLION_LAUGHS, EXTERNAL_ENTITY, DTD_ONLY], ids=["laughs", "external", "dtd"]
)
def test_hostile_xml_is_refused_before_any_entity_is_read(hostile: bytes) -> None:
    with pytest.raises(ImportRefused) as refused:
        import_chummer5(hostile)
    assert "DTD" in refused.value.detail
    assert (refused.value.path, refused.value.status) == ("/", 422)


def test_a_file_past_the_size_bound_is_refused_and_a_real_sized_one_is_read() -> None:
    # A real character carries a base64 mugshot of about 1 MB: padded to 1.5 MB it is read.
    mugshot = b"<mugshots><mugshot>" + b"A" * 1_500_000 + b"</mugshot></mugshots>"
    sheet, _ = import_chummer5(KESTREL.replace(b"<mugshots />", mugshot))
    assert sheet.agility == 6
    fifty_mb = KESTREL.replace(b"<mugshots />", b"<mugshots>" + b"A" * 50_000_000 + b"</mugshots>")
    with pytest.raises(ImportRefused) as refused:
        import_chummer5(fifty_mb)
    assert (refused.value.kind, refused.value.status) == ("import-too-large", 413)
    assert str(MAX_IMPORT_BYTES) in refused.value.detail


def test_not_xml_or_another_root_is_refused() -> None:
    for data, detail in ((b"\x89PNG...", "not well-formed"), (b"<foundry/>", "<foundry>")):
        with pytest.raises(ImportRefused) as refused:
            import_chummer5(data)
        assert detail in refused.value.detail


GANGER = {
    "name": "Ganger",
    "position": {"x": 12.0, "y": 0.0},
    "sheet": {"ruleset": "sr5", "reaction": 3, "intuition": 3, "body": 4, "armor": 9},
}


async def test_the_imported_sheet_shoots_on_the_scene(client: Any) -> None:
    sheet, _ = import_chummer5(KESTREL)
    created = await (await client.post("/v1/encounters", json={"ruleset": "sr5"})).json()
    base = f"/v1/encounters/{created['id']}"
    kestrel = {
        "name": "Kestrel",
        "position": {"x": 0.0, "y": 0.0},
        "sheet": msgspec.to_builtins(sheet),
    }
    for actor_id, actor in (("kestrel", kestrel), ("goon-1", GANGER)):
        response = await client.put(f"{base}/actors/{actor_id}", json=actor)
        assert response.status == 200, await response.text()
    attack = {
        "attacker": "kestrel",
        "weapon": "ares-predator-v",
        "mode": "SA",
        "targets": [{"id": "goon-1"}],
        "dice": {
            "attack": [6, 5, 5, 5, 2, 3, 1, 4, 2, 3],
            "defense:goon-1": [5, 2, 3, 1, 4, 2],
            "soak:goon-1": [5, 6, 1, 2, 3, 4, 2, 2, 3, 4, 1, 3],
        },
    }
    response = await client.post(f"{base}/attacks", json=attack)
    assert response.status == 201, await response.text()
    result = (await response.json())["result"]
    target = result["targets"][0]
    # Agility 6 + Pistols 5 = 11; the ganger 12 m away is medium range for a heavy pistol (-1):
    # 10 dice, 4 hits (6 5 5 5), under the Predator's Accuracy 5. Defense Reaction 3 + Intuition
    # 3 = 6 dice, 1 hit: 3 net hits. DV 8 + 3 = 11 against armour 9 - 1 AP = 8: physical; soak
    # Body 4 + 8 = 12 dice, 2 hits: 9 boxes.
    assert (result["pool"], target["attack"]["pool"]) == (11, 10)
    assert (target["attack_hits"], target["defense_hits"], target["net_hits"]) == (4, 1, 3)
    damage = target["damage"]
    assert (damage["dv"], damage["armor"], damage["soak_hits"], damage["boxes"]) == (11, 8, 2, 9)
    # The rounds come off the imported gun's clip of 12.
    actor = await (await client.get(f"{base}/actors/kestrel")).json()
    assert actor["sheet"]["weapons"][0]["ammo"] == 11

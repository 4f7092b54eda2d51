"""Issue 24: a follow-up of an attack (SR5 Second Chance, SR4's Edge re-roll) after an undo acts
on the attack the state now holds as the actor's last, never on the one taken back (its event
stays in the stream: the feed shows what happened, and the undo after it).

"000" is rules-sources/000_43afc0edeb7f6e19.txt; "README" is rules-sources/README.md.
"""

from __future__ import annotations

from typing import Any

import pytest

from service.api.app_keys import STORE
from tests import sr4_requests as sr4
from tests import sr5_requests as sr5
from tests.test_undo_http import changed, refused, undone

# Sam with Edge 2: Agility 5 + skill 5 = 10 dice; one hit of ten at goon-1, whose Reaction 3 +
# Intuition 3 = 6 defense dice score one: a graze (tests/test_api.py's Second Chance).
AT_GOON_1 = sr5.attack(
    attacker=sr5.attacker(edge=2),
    dice={"attack": [5, *[2] * 9], "defense:goon-1": [5, 2, 2, 2, 2, 2]},
)
# The same gun at goon-2: no hit (its defense is not rolled).
AT_GOON_2 = sr5.attack(
    attacker=sr5.attacker(edge=2),
    targets=[sr5.target(id="goon-2")],
    dice={"attack": [2] * 10},
)
SECOND_CHANCE = {"actor": "sam", "action": "second_chance"}


async def encounter(client: Any, ruleset: str) -> str:
    created = await (await client.post("/v1/encounters", json={"ruleset": ruleset})).json()
    return f"/v1/encounters/{created['id']}"


async def test_second_chance_after_an_undo_takes_the_attack_before_it(client: Any) -> None:
    base = await encounter(client, "sr5")
    await changed(client, "POST", f"{base}/attacks", AT_GOON_1)
    await changed(client, "POST", f"{base}/attacks", AT_GOON_2)
    assert (await undone(client, base))["result"]["undone_type"] == "attack"

    chance = {
        **SECOND_CHANCE,
        "target": "goon-1",
        "dice": {"second_chance:goon-1": [5] * 9, "soak:goon-1": [2] * 12},
    }
    answer = await changed(client, "POST", f"{base}/actions", chance)
    again = answer["result"]["attack"]["targets"][0]
    # 000, "Edge" (Second Chance): the nine dice that missed are rolled again, all 5s: ten
    # hits, limited by Accuracy 5 to 5. The defense's one hit stands: 4 net hits. DV 8 + 4 =
    # 12 against armor 9 - 1 AP = 8: physical; Body 4 + 8 = 12 soak dice, no hit: 12 boxes.
    assert (again["target"], again["attack_hits"], again["defense_hits"]) == ("goon-1", 5, 1)
    assert (again["outcome"], again["net_hits"], again["damage"]["boxes"]) == ("hit", 4, 12)
    assert answer["result"]["edge_spent"] == 1


async def test_an_undo_landing_under_a_second_chance_moves_it_to_the_attack_before(
    client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = await encounter(client, "sr5")
    await changed(client, "POST", f"{base}/attacks", AT_GOON_1)
    await changed(client, "POST", f"{base}/attacks", AT_GOON_2)
    store = client.app[STORE]
    read_events = store.events_before
    landed: list[dict[str, Any]] = []

    async def undo_lands_meanwhile(encounter_id: str, before: Any, limit: int) -> Any:
        # Second Chance has found the newest attack (at goon-2) in the stream; the GM's undo of
        # that attack lands before it commits (once).
        page = await read_events(encounter_id, before, limit)
        if not landed:
            landed.append(await undone(client, base))
        return page

    monkeypatch.setattr(store, "events_before", undo_lands_meanwhile)
    chance = {
        **SECOND_CHANCE,
        "target": "goon-1",
        "dice": {"second_chance:goon-1": [5] * 9, "soak:goon-1": [2] * 12},
    }
    answer = await changed(client, "POST", f"{base}/actions", chance)
    assert landed[0]["result"]["undone_type"] == "attack"
    # The attack at goon-1, worked as in the test above: 5 hits, 4 net, 12 boxes.
    again = answer["result"]["attack"]["targets"][0]
    assert (again["target"], again["net_hits"], again["damage"]["boxes"]) == ("goon-1", 4, 12)


async def test_second_chance_after_the_only_attack_is_undone_is_refused(client: Any) -> None:
    base = await encounter(client, "sr5")
    await changed(client, "POST", f"{base}/attacks", AT_GOON_1)
    await undone(client, base)
    chance = {**SECOND_CHANCE, "target": "goon-1"}
    response = await client.post(f"{base}/actions", json=chance)
    problem = await refused(response, 422, "no-attack")
    assert problem["path"] == "$.actor"


async def test_sr4s_edge_reroll_after_an_undo_takes_the_attack_before_it(client: Any) -> None:
    base = await encounter(client, "sr4")
    # 001, "Opposed Combat Test": Agility 4 + Pistols 4 = 8 dice at 4 m (short range), two
    # hits; Reaction 3: three defense dice, one hit. DV 5 + 1 = 6 against ballistic 6 - 1 AP
    # = 5: physical; Body 3 + 5 = 8 soak dice, none.
    first = sr4.attack(
        dice={
            "attack": [5, 5, 2, 2, 2, 2, 2, 2],
            "defense:goon-1": [5, 2, 2],
            "soak:goon-1": [2] * 8,
        },
    )
    await changed(client, "POST", f"{base}/attacks", first)
    other = sr4.attack(targets=[sr4.target(id="goon-2")], dice={"attack": [2] * 8})
    await changed(client, "POST", f"{base}/attacks", other)
    await undone(client, base)
    reroll = {
        "actor": "sam",
        "action": "edge_reroll",
        "target": "goon-1",
        "dice": {"reroll:goon-1": [5, 5, 2, 2, 2, 2]},
    }
    answer = await changed(client, "POST", f"{base}/actions", reroll)
    again = answer["result"]["attack"]["targets"][0]
    # 001, Edge, "Re-roll failures": the six dice that missed, two 5s: 2 + 2 = 4 hits against
    # the defense's one: 3 net. DV 5 + 3 = 8 against ballistic 5: physical; the soak rolled
    # for the first attack stands (no hit): 8 boxes.
    assert (again["target"], again["attack"]["hits"], again["net_hits"]) == ("goon-1", 4, 3)
    assert again["damage"]["boxes"] == 8

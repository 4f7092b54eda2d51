"""Issue 30: `python -m service.verify` catches what a fudged fight log would show: one die changed
by one face (in the proof, or in the result alone), a secret that does not open its commitment,
an event moved before another, an event rolled with a commitment not in force; it says which die
(step, index, expected, found) and exits non-zero; it marks given dice as given and seeded ones
as not verifiable, and a fight log as it is verifies.
"""

from __future__ import annotations

import copy
import json
import secrets
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from service.engine import dice_keeping
from service.verify import main, verify
from tests import sr5_requests as sr5


@pytest.fixture(autouse=True)
def drawn_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every encounter draws its own secret, under tests/constant_dice.py too."""
    monkeypatch.setattr(dice_keeping, "secrets", secrets)


async def fight(client: Any) -> list[dict[str, Any]]:
    """Two attacks (the first with its attack and defense given at the table: 3 hits against 1,
    so the soak is rolled by the server), a reveal, one more attack and the end: the events as
    GET .../events gives them."""
    created = await (await client.post("/v1/encounters", json={"ruleset": "sr5"})).json()
    base = f"/v1/encounters/{created['id']}"
    given = {"attack": [5, 5, 5, 1, 2, 2, 2, 2, 2, 2], "defense:goon-1": [5, 1, 2, 2, 2, 2]}
    for body in (sr5.attack(dice=given), sr5.attack(client_seed="anna")):
        assert (await client.post(f"{base}/attacks", json=body)).status == 201
    assert (await client.post(f"{base}/dice/reveal")).status == 201
    assert (await client.post(f"{base}/attacks", json=sr5.attack())).status == 201
    assert (await client.delete(base)).status == 204
    return list((await (await client.get(f"{base}/events")).json())["events"])


def attacks(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [event for event in events if event["type"] == "attack"]


async def test_a_fight_log_as_written_verifies_die_by_die(memory_client: Any) -> None:
    events = await fight(memory_client)
    report = verify(events)
    assert report.ok
    rolled = [e for e in report.events if e.type == "attack"]
    assert [e.status for e in rolled] == ["verified"] * 3
    for checked, event in zip(rolled, attacks(events), strict=True):
        server = [r for r in event["dice"]["rolls"] if not r["given"]]
        assert checked.verified == sum(len(r["values"]) for r in server) > 0
    # The dice typed in at the table are reported as given, not verified; the soak (12 dice:
    # Body 4 + armor 9 - 1 AP) is the server's.
    assert rolled[0].given == ["attack", "defense:goon-1"]
    assert rolled[0].verified == 12


async def test_one_face_changed_by_one_is_caught_with_its_step_and_index(
    memory_client: Any,
) -> None:
    events = await fight(memory_client)
    fudged = copy.deepcopy(events)
    proof = attacks(fudged)[1]["dice"]
    attack = next(r for r in proof["rolls"] if r["step"] == "attack")
    was = attack["values"][3]
    attack["values"][3] = was + 1 if was < 6 else was - 1
    report = verify(fudged)
    assert not report.ok
    failed = next(e for e in report.events if e.status == "failed")
    assert failed.id == attacks(events)[1]["id"]
    assert [(m.step, m.index, m.expected, m.found) for m in failed.mismatches] == [
        ("attack", 3, was, attack["values"][3])
    ]


async def test_a_face_changed_in_the_result_alone_is_caught(memory_client: Any) -> None:
    events = await fight(memory_client)
    fudged = copy.deepcopy(events)
    shown = next(r for r in attacks(fudged)[2]["result"]["dice"] if r["step"] == "attack")
    shown["values"][0] = shown["values"][0] % 6 + 1
    report = verify(fudged)
    assert not report.ok
    failed = next(e for e in report.events if e.status == "failed")
    assert failed.id == attacks(events)[2]["id"]
    assert any("step 'attack'" in note for note in failed.notes)


async def test_a_secret_that_does_not_open_its_commitment_is_caught(memory_client: Any) -> None:
    events = await fight(memory_client)
    fudged = copy.deepcopy(events)
    reveal = next(e for e in fudged if e["type"] == "dice_revealed")
    reveal["result"]["secret"] = secrets.token_bytes(32).hex()
    report = verify(fudged)
    assert not report.ok
    statuses = {e.id: e.status for e in report.events}
    assert statuses[reveal["id"]] == "failed"
    # The dice it was to prove are proven by no secret now.
    assert statuses[attacks(events)[0]["id"]] == "unverifiable"


async def test_an_event_moved_before_another_is_caught(memory_client: Any) -> None:
    events = await fight(memory_client)
    first, second = (events.index(e) for e in attacks(events)[:2])
    reordered = list(events)
    reordered[first], reordered[second] = reordered[second], reordered[first]
    report = verify(reordered)
    assert not report.ok
    failed = [e for e in report.events if e.status == "failed"]
    assert [e.id for e in failed] == [events[first]["id"]]
    assert "reordered" in failed[0].notes[0]


async def test_an_event_rolled_with_a_commitment_not_in_force_is_caught(
    memory_client: Any,
) -> None:
    """The last attack's proof, moved back under the first secret (as a server that kept rolling
    with a revealed secret would write it): its dice would even be the old secret's, yet the
    commitment in force was the new one."""
    events = await fight(memory_client)
    fudged = copy.deepcopy(events)
    last = attacks(fudged)[2]
    last["dice"]["commitment"] = attacks(fudged)[0]["dice"]["commitment"]
    report = verify(fudged)
    failed = next(e for e in report.events if e.status == "failed")
    assert failed.id == last["id"]
    assert any("in force" in note for note in failed.notes)


async def test_the_command_line_exits_non_zero_on_a_mismatch(
    memory_client: Any, tmp_path: Path
) -> None:
    events = await fight(memory_client)
    exported = tmp_path / "fight.json"
    # The console's export: the encounter and its events.
    exported.write_text(json.dumps({"encounter": {"id": "x"}, "events": events}))
    ran = subprocess.run(
        [sys.executable, "-m", "service.verify", str(exported)],
        capture_output=True,
        text=True,
        check=False,
        cwd=Path(__file__).parent.parent,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "every die checks out" in ran.stdout
    fudged = copy.deepcopy(events)
    attack = next(r for r in attacks(fudged)[1]["dice"]["rolls"] if r["step"] == "attack")
    attack["values"][0] = attack["values"][0] % 6 + 1
    exported.write_text(json.dumps({"events": fudged}))
    assert main([str(exported)]) == 1
    # The events before the reveal: their dice are not verifiable without the secret, and are
    # with it given on the command line.
    reveal = next(e for e in events if e["type"] == "dice_revealed")
    unrevealed = events[: events.index(reveal)]
    exported.write_text(json.dumps(unrevealed))
    statuses = [e.status for e in verify(unrevealed).events if e.type == "attack"]
    assert statuses == ["unverifiable", "unverifiable"]
    report = verify(unrevealed, [bytes.fromhex(reveal["result"]["secret"])])
    assert [e.status for e in report.events if e.type == "attack"] == ["verified", "verified"]
    assert main([str(exported), "--secret", reveal["result"]["secret"]]) == 0
    assert main([str(tmp_path / "missing.json")]) == 2

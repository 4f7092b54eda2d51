"""Issue 30: the console's verifier (service/console/verify.js, run here by node) and
`python -m service.verify` agree on every scenario: fights of several rulesets as the service
writes them (initiative, d6 pools, target numbers with the Rule of Six, d100s, given dice, a
seed given for a replay, a player's seed), each fudged as tests/test_verify.py fudges them; and
its own SHA-256 and HMAC give the standard's test vectors and docs/dice.md's dice.
"""

from __future__ import annotations

import copy
import json
import secrets
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from service.engine import dice_keeping
from service.verify import events_of, verify
from tests import d100_requests as d100
from tests import sr3_requests as sr3
from tests import sr5_requests as sr5
from tests.test_fair_dice import ATTACK_40, COMMITMENT, DERIVED_SEED, HIT_3, LUCKY_10
from tests.test_sr4_grenades_http import GRENADE_WEAPON, SAM

VERIFY_JS = (Path(__file__).parent.parent / "service" / "console" / "verify.js").as_uri()
NODE = shutil.which("node")


@pytest.fixture(autouse=True)
def _node() -> None:
    """Node 20 is one of the README's two needs (the Foundry module's tests run on it): its
    absence fails, never skips, the check of the browser's verifier."""
    if NODE is None:
        pytest.fail("node is not installed: the README's test command needs Node 20")


@pytest.fixture(autouse=True)
def drawn_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every encounter draws its own secret, under tests/constant_dice.py too: verify.js has no
    constant dice, only the real derivation."""
    monkeypatch.setattr(dice_keeping, "secrets", secrets)


def node(script: str, given: Any) -> Any:
    """Runs an ES module script with verify.js imported as `v` and `input` read from stdin."""
    program = (
        f"import * as v from {json.dumps(VERIFY_JS)};\n"
        "import { readFileSync } from 'node:fs';\n"
        "const input = JSON.parse(readFileSync(0, 'utf8'));\n" + script
    )
    ran = subprocess.run(
        [str(NODE), "--input-type=module", "-e", program],
        input=json.dumps(given),
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert ran.returncode == 0, ran.stderr
    return json.loads(ran.stdout)


def js_verify(scenarios: dict[str, tuple[Any, list[str]]]) -> dict[str, Any]:
    reports = node(
        "const out = {};\n"
        "for (const [name, [events, hex]] of Object.entries(input)) {\n"
        "  const report = v.verifyEvents(v.eventsOf(events), hex.map(v.fromHex));\n"
        "  report.events.forEach((e) => delete e.notes);\n"
        "  out[name] = report;\n"
        "}\n"
        "console.log(JSON.stringify(out));",
        scenarios,
    )
    assert isinstance(reports, dict)
    return reports


def test_its_sha256_and_hmac_give_the_standards_vectors_and_the_docs_dice() -> None:
    out = node(
        "const enc = (s) => new TextEncoder().encode(s);\n"
        "const secret = Uint8Array.from({ length: 32 }, (_, i) => i);\n"
        "const draw = (step, seed, n, sides) => new v.StepStream(secret, 'enc-1', 7, step, seed)"
        ".draw(n, sides);\n"
        "console.log(JSON.stringify({\n"
        "  empty: v.toHex(v.sha256(enc(''))),\n"
        "  abc: v.toHex(v.sha256(enc('abc'))),\n"
        "  long: v.toHex(v.sha256(enc('a'.repeat(1000)))),\n"
        "  rfc4231: v.toHex(v.hmacSha256(enc('Jefe'), enc('what do ya want for nothing?'))),\n"
        "  longKey: v.toHex(v.hmacSha256(new Uint8Array(131).fill(0xaa), "
        "enc('Test Using Larger Than Block-Size Key - Hash Key First'))),\n"
        "  commitment: v.commitment(secret),\n"
        "  attack: draw('attack', null, 40, 6), lucky: draw('attack', 'lucky', 10, 6),\n"
        "  hit: draw('hit', null, 3, 100),\n"
        "  seed: String(v.derivedSeed(secret, 'enc-1', 7, null)),\n"
        "}));",
        None,
    )
    assert out == {
        "empty": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "abc": "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        # hashlib.sha256(b"a" * 1000): sixteen blocks.
        "long": "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3",
        # RFC 4231, test cases 2 and 6.
        "rfc4231": "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
        "longKey": "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
        "commitment": COMMITMENT,
        "attack": ATTACK_40,
        "lucky": LUCKY_10,
        "hit": HIT_3,
        "seed": str(DERIVED_SEED),
    }


# Body 4: the blast's soak is rolled, from the held grenade's own seed.
GOON_SHEET = {"ruleset": "sr4", "body": 4}


async def fights(client: Any) -> dict[str, list[dict[str, Any]]]:
    """Fights as the service writes them, each its events as GET .../events gives them."""
    written: dict[str, list[dict[str, Any]]] = {}
    plays: dict[str, tuple[str, list[tuple[str, dict[str, Any]]]]] = {
        "sr5": (
            "sr5",
            [
                ("attacks", sr5.attack(client_seed="anna")),
                ("attacks", sr5.attack(seed=7)),
                ("reveal", {}),
                ("attacks", sr5.attack()),
                (
                    "initiative",
                    {
                        "actors": [
                            {"actor": "sam", "reaction": 5, "intuition": 4, "initiative_dice": 2},
                            {"actor": "goon-1", "reaction": 3, "intuition": 3},
                        ],
                        "dice": {"initiative:goon-1": [4]},
                        "client_seed": "table 3",
                    },
                ),
            ],
        ),
        "sr3": ("sr3", [("attacks", sr3.attack(client_seed="rule of six"))]),
        "d100": ("d100", [("attacks", d100.attack()), ("reveal", {}), ("attacks", d100.attack())]),
        # tests/test_sr4_grenades_http.py's held grenade: thrown in sam's phase, it goes off in
        # his next, on the goon 2 m away (its blast rolls from the throw's seed).
        "sr4": (
            "sr4",
            [
                ("actors/goon", {"position": {"x": 0, "y": 12}, "sheet": GOON_SHEET}),
                ("advance", {"to": "action_phase", "actor": "sam"}),
                (
                    "attacks",
                    {
                        "attacker": SAM,
                        "weapon": GRENADE_WEAPON,
                        "mode": "SS",
                        "grenade": {"type": "fragmentation"},
                        "origin": {"x": 0, "y": 0},
                        "aim_point": {"x": 0, "y": 10},
                        "bystanders": [{"id": "goon", "position": {"x": 0, "y": 12}}],
                        "dice": {
                            "attack": [5, 5, 5, 2, 2, 2, 2],
                            "scatter_direction": [2],
                            "scatter": [1, 1, 2],
                        },
                        "client_seed": "throw",
                    },
                ),
                ("advance", {"to": "action_phase", "actor": "goon"}),
                ("advance", {"to": "initiative_pass"}),
                ("advance", {"to": "action_phase", "actor": "goon"}),
                ("advance", {"to": "action_phase", "actor": "sam"}),
            ],
        ),
    }
    for name, (ruleset, steps) in plays.items():
        created = await (await client.post("/v1/encounters", json={"ruleset": ruleset})).json()
        base = f"/v1/encounters/{created['id']}"
        for route, body in steps:
            path = f"{base}/dice/reveal" if route == "reveal" else f"{base}/{route}"
            put = route.startswith("actors/")
            response = await (client.put if put else client.post)(path, json=body)
            assert response.status == (200 if put else 201), await response.text()
        assert (await client.delete(base)).status == 204
        written[name] = (await (await client.get(f"{base}/events")).json())["events"]
    return written


def fudged(events: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """One fight fudged every way tests/test_verify.py fudges one."""
    rolled = [i for i, e in enumerate(events) if (e.get("dice") or {}).get("rolls")]
    server = [i for i in rolled if any(not r["given"] for r in events[i]["dice"]["rolls"])]
    out: dict[str, list[dict[str, Any]]] = {}
    if not server:
        return out
    face = copy.deepcopy(events)
    roll = next(r for r in face[server[0]]["dice"]["rolls"] if not r["given"])
    roll["values"][-1] = roll["values"][-1] % roll["sides"] + 1
    out["face"] = face
    shown = copy.deepcopy(events)
    record = next(r for r in shown[server[-1]]["result"]["dice"] if not r["given"])
    record["values"][0] = record["values"][0] % record["sides"] + 1
    out["result"] = shown
    wrong = copy.deepcopy(events)
    for event in wrong:
        if (event.get("result") or {}).get("kind") == "dice_revealed":
            event["result"]["secret"] = "00" * 32
    out["secret"] = wrong
    if len(rolled) > 1:
        moved = list(events)
        moved[rolled[0]], moved[rolled[1]] = moved[rolled[1]], moved[rolled[0]]
        out["order"] = moved
    return out


async def test_the_console_and_the_command_line_agree_on_every_scenario(
    memory_client: Any,
) -> None:
    scenarios: dict[str, tuple[Any, list[str]]] = {}
    for name, events in (await fights(memory_client)).items():
        scenarios[name] = (events, [])
        for way, fudge in fudged(events).items():
            scenarios[f"{name}, fudged: {way}"] = (fudge, [])
    # The d100 fight before its end: its second secret not revealed, then given as the GM would
    # give it, and a wrong one.
    *before_end, ended = scenarios["d100"][0]
    scenarios["d100 before its end"] = (before_end, [])
    scenarios["d100 before its end, its secret given"] = (before_end, [ended["result"]["secret"]])
    scenarios["d100 before its end, a wrong secret given"] = (before_end, ["11" * 32])
    scenarios["as a page of GET .../events"] = ({"events": scenarios["sr3"][0]}, [])
    python = {
        name: verify(events_of(events), [bytes.fromhex(h) for h in hex_secrets]).as_json()
        for name, (events, hex_secrets) in scenarios.items()
    }
    assert js_verify(scenarios) == python
    # And the scenarios are what they say: the fights verify, every fudge fails.
    for name, report in python.items():
        fudge = "fudged" in name
        assert report["ok"] is not fudge, name
    statuses = {e["status"] for e in python["sr5"]["events"]}
    assert statuses == {"verified", "unverifiable"}
    assert any(e["given"] for e in python["sr5"]["events"])
    last = [e["status"] for e in python["d100 before its end"]["events"] if e["type"] == "attack"]
    assert last == ["verified", "unverifiable"]
    went_off = [e for e in python["sr4"]["events"] if e["type"] == "advance"]
    assert [e["status"] for e in went_off] == ["unverifiable"]
    given = python["d100 before its end, its secret given"]["events"]
    assert [e["status"] for e in given if e["type"] == "attack"] == ["verified", "verified"]

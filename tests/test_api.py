"""The HTTP contract through a real client: the embedded store and the real Redis."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

import pytest

from tests import sr5_requests as make
from tests.conftest import once_per_store

PROBLEM = "application/problem+json"
EXTERNAL = re.compile(r"""(?:https?:)?//[^\s'")]*""", re.IGNORECASE)


async def new_encounter(
    client: Any, name: str = "warehouse", ruleset: str = "sr5", **fields: Any
) -> str:
    body = {"ruleset": ruleset, "name": name, **fields}
    response = await client.post("/v1/encounters", json=body)
    assert response.status == 201, await response.text()
    body = await response.json()
    assert response.headers["Location"] == f"/v1/encounters/{body['id']}"
    return str(body["id"])


async def test_health_and_readiness(client: Any) -> None:
    assert (await client.get("/healthz")).status == 200
    ready = await client.get("/readyz")
    assert ready.status == 200
    assert (await ready.json())["status"] == "ok"


async def test_rulesets_list_what_each_supports(client: Any) -> None:
    body = await (await client.get("/v1/rulesets")).json()
    sr5 = next(r for r in body["rulesets"] if r["id"] == "sr5")
    assert "SA" in sr5["firing_modes"]
    assert "other" in sr5["actions"]
    assert "defense:<target id>" in sr5["dice_steps"]


async def test_create_returns_tokens_and_the_encounter_reads_back(client: Any) -> None:
    response = await client.post("/v1/encounters", json={"ruleset": "sr5", "name": "docks"})
    created = await response.json()
    assert created["ruleset"] == "sr5"
    assert created["tokens"]["gm"] != created["tokens"]["player"]
    state = await (await client.get(f"/v1/encounters/{created['id']}")).json()
    assert state["name"] == "docks"
    assert state["version"] == 1
    assert state["last_event_id"] == created["event_id"]
    assert state["turn"] == {
        "combat_turn": 1,
        "initiative_pass": 1,
        "action_phase": None,
        "phase": 0,
        "initiative": None,
    }
    assert "token_hashes" not in state


async def test_an_attack_resolves_changes_state_and_is_an_event(client: Any) -> None:
    encounter = await new_encounter(client)
    body = make.attack(
        dice={
            "attack": [5, 5, 6, 6, 2, 2, 2, 2, 2, 2],
            "defense:goon-1": [5, 2, 2, 2, 2, 2],
            "soak:goon-1": [5, 5, 5, 2, 2, 2, 2, 2, 2, 2, 2, 2],
        }
    )
    response = await client.post(f"/v1/encounters/{encounter}/attacks", json=body)
    assert response.status == 201, await response.text()
    outcome = await response.json()
    target = outcome["result"]["targets"][0]
    assert (target["outcome"], target["net_hits"]) == ("hit", 3)
    assert target["damage"] == {
        "dv": 11,
        "armor": 8,
        "dv_modifiers": [{"source": "weapon", "value": 8}, {"source": "net hits", "value": 3}],
        "ap": -1,
        "track": "physical",
        "soak": {"pool": 12, "hits": 3, "ones": 0, "glitch": False, "critical_glitch": False},
        "soak_modifiers": [
            {"source": "body", "value": 4},
            {"source": "modified armor", "value": 8},
        ],
        "soak_hits": 3,
        "boxes": 8,
    }
    assert outcome["result"]["rounds_fired"] == 1
    assert outcome["result"]["ammo_left"] == 14
    assert [d["step"] for d in outcome["result"]["dice"]] == [
        "attack",
        "defense:goon-1",
        "soak:goon-1",
    ]
    # The answer carries what the attack changed, not the whole state: only the shooter moved
    # (the defender's defense count too), and the version it made.
    changes = outcome["changes"]
    assert changes["version"] == 2
    assert changes["combat"]["actors"]["sam"]["recoil_rounds"] == 1
    assert set(changes["combat"]) == {"actors"}
    assert set(changes["combat"]["actors"]) == {"sam", "goon-1"}
    assert "turn" not in changes
    view = await (await client.get(f"/v1/encounters/{encounter}")).json()
    assert view["combat"]["actors"]["sam"] == changes["combat"]["actors"]["sam"]
    events = await (await client.get(f"/v1/encounters/{encounter}/events")).json()
    assert [e["type"] for e in events["events"]] == ["encounter_created", "attack"]
    assert events["events"][-1]["id"] == outcome["event_id"] == events["last_event_id"]
    assert events["events"][-1]["result"] == outcome["result"]


async def test_recoil_builds_across_requests_and_other_resets_it(client: Any) -> None:
    encounter = await new_encounter(client)
    body = make.attack(attacker=make.attacker(strength=2))
    penalties = []
    for _ in range(3):
        outcome = await (await client.post(f"/v1/encounters/{encounter}/attacks", json=body)).json()
        penalties.append(outcome["result"]["recoil"]["penalty"])
    assert penalties == [0, 0, -1]
    reset = await client.post(
        f"/v1/encounters/{encounter}/actions", json={"actor": "sam", "action": "other"}
    )
    assert reset.status == 201
    assert (await reset.json())["result"]["effects"] == [
        "recoil reset (3 rounds since the last reset)"
    ]
    outcome = await (await client.post(f"/v1/encounters/{encounter}/attacks", json=body)).json()
    assert outcome["result"]["recoil"]["rounds_before"] == 0


async def test_advance_moves_turns_passes_and_phases(client: Any) -> None:
    encounter = await new_encounter(client)
    path = f"/v1/encounters/{encounter}/advance"
    phase = await (await client.post(path, json={"to": "action_phase", "actor": "sam"})).json()
    assert phase["result"]["turn"] == {
        "combat_turn": 1,
        "initiative_pass": 1,
        "action_phase": "sam",
        "phase": 1,
        "initiative": None,
    }
    passed = await (await client.post(path, json={"to": "initiative_pass"})).json()
    assert passed["changes"]["turn"] == {
        "combat_turn": 1,
        "initiative_pass": 2,
        "action_phase": None,
        "phase": 1,
        "initiative": None,
    }
    turned = await (await client.post(path, json={"to": "combat_turn"})).json()
    assert turned["changes"]["turn"] == {
        "combat_turn": 2,
        "initiative_pass": 1,
        "action_phase": None,
        "phase": 1,
        "initiative": None,
    }


async def test_the_same_seed_and_state_give_the_same_result(client: Any) -> None:
    body = make.attack(mode="SS", weapon=make.weapon(modes=["SS"]), seed=1234)
    answers = []
    for _ in range(2):  # two fresh encounters: the same state
        encounter = await new_encounter(client)
        answers.append(
            await (await client.post(f"/v1/encounters/{encounter}/attacks", json=body)).json()
        )
    assert answers[0]["result"] == answers[1]["result"]
    assert answers[0]["event_id"] != answers[1]["event_id"]


async def test_delete_ends_the_encounter(client: Any) -> None:
    encounter = await new_encounter(client)
    assert (await client.delete(f"/v1/encounters/{encounter}")).status == 204
    gone = await client.get(f"/v1/encounters/{encounter}")
    assert gone.status == 410
    assert gone.content_type == PROBLEM
    assert (await gone.json())["type"].endswith("/encounter-ended")
    assert (await client.delete(f"/v1/encounters/{encounter}")).status == 410
    attack = await client.post(f"/v1/encounters/{encounter}/attacks", json=make.attack())
    assert attack.status == 410
    assert (await client.get("/v1/encounters/never-was")).status == 404
    # Watchers who resume still learn that it ended.
    events = await (await client.get(f"/v1/encounters/{encounter}/events")).json()
    assert events["events"][-1]["type"] == "encounter_ended"


async def test_events_after_an_id(client: Any) -> None:
    encounter = await new_encounter(client)
    ids = []
    for _ in range(3):
        outcome = await (
            await client.post(f"/v1/encounters/{encounter}/attacks", json=make.attack())
        ).json()
        ids.append(outcome["event_id"])
    page = await (await client.get(f"/v1/encounters/{encounter}/events?after={ids[0]}")).json()
    assert [e["id"] for e in page["events"]] == ids[1:]


async def test_request_ids_are_echoed(client: Any) -> None:
    response = await client.get("/healthz", headers={"X-Request-Id": "table-7"})
    assert response.headers["X-Request-Id"] == "table-7"
    assert len((await client.get("/healthz")).headers["X-Request-Id"]) == 32


# --- bad requests: always a 4xx problem naming the field, never a 500 -------------------------


def without(body: dict[str, Any], *path: str) -> dict[str, Any]:
    copy: Any = {**body}
    node = copy
    for key in path[:-1]:
        node[key] = {**node[key]} if isinstance(node[key], dict) else list(node[key])
        node = node[key]
    del node[path[-1]]
    return dict(copy)


BAD_ATTACKS: list[tuple[str, Any, int, str]] = [
    ("wrong type", make.attack(attacker=make.attacker(agility="six")), 400, "$.attacker.agility"),
    ("missing field", without(make.attack(), "weapon"), 400, "$.weapon"),
    ("missing nested field", without(make.attack(), "attacker", "skill"), 400, "$.attacker.skill"),
    ("unknown field", {**make.attack(), "weapom": {}}, 400, "$.weapom"),
    ("unknown mode", make.attack(mode="XX"), 400, "$.mode"),
    ("mode the weapon lacks", make.attack(mode="FA"), 422, "$.mode"),
    ("no ammo", make.attack(weapon=make.weapon(ammo=0)), 422, "$.weapon.ammo"),
    (
        "negative distance",
        make.attack(targets=[make.target(distance_m=-1)]),
        400,
        "$.targets[0].distance_m",
    ),
    (
        "out of range",
        make.attack(targets=[make.target(distance_m=61)]),
        422,
        "$.targets[0].distance_m",
    ),
    ("no targets", make.attack(targets=[]), 422, "$.targets"),
    ("too few given dice", make.attack(dice={"attack": [5, 5]}), 400, '$.dice["attack"]'),
    (
        "die outside 1-6",
        make.attack(dice={"attack": [5, 5, 9, 1, 1, 1, 1, 1, 1, 1]}),
        400,
        '$.dice["attack"][2]',
    ),
    ("die of zero", make.attack(dice={"attack": [0]}), 400, '$.dice["attack"][0]'),
    ("too many given dice", make.attack(dice={"attack": [2] * 11}), 400, '$.dice["attack"][10]'),
    (
        "unknown dice step",
        make.attack(dice={"defence:goon-1": [1]}),
        400,
        '$.dice["defence:goon-1"]',
    ),
    ("wrong ruleset tag", {**make.attack(), "ruleset": "sr4"}, 400, "$.ruleset"),
    ("bad id", make.attack(attacker=make.attacker(id="")), 400, "$.attacker.id"),
    ("not an object", [1, 2], 400, "$"),
    (
        "wound modifier positive",
        make.attack(attacker=make.attacker(wound_modifier=2)),
        400,
        "$.attacker.wound_modifier",
    ),
]


# Each refusal's status on every store, its other rows (other fields, the same checks) on the
# embedded store alone.
@pytest.mark.parametrize(
    ("store_kind", "case", "body", "status", "path"),
    once_per_store(BAD_ATTACKS, [c[0] for c in BAD_ATTACKS], kind=lambda row: row[2]),
)
async def test_bad_attacks_are_problems_naming_the_field(
    client: Any, case: str, body: Any, status: int, path: str
) -> None:
    encounter = await new_encounter(client)
    response = await client.post(f"/v1/encounters/{encounter}/attacks", json=body)
    assert response.status == status, await response.text()
    assert response.content_type == PROBLEM
    problem = await response.json()
    assert problem["status"] == status
    assert problem["path"] == path, problem
    assert problem["type"].startswith("https://")
    assert problem["detail"]
    # Nothing was half-written: the state is where it was.
    state = await (await client.get(f"/v1/encounters/{encounter}")).json()
    assert state["version"] == 1


async def test_malformed_json_is_a_problem(client: Any) -> None:
    encounter = await new_encounter(client)
    response = await client.post(f"/v1/encounters/{encounter}/attacks", data=b"{not json")
    assert response.status == 400
    assert (await response.json())["type"].endswith("/malformed-json")


async def test_unknown_ruleset_is_refused(client: Any) -> None:
    response = await client.post("/v1/encounters", json={"ruleset": "gurps"})
    assert response.status == 400
    assert (await response.json())["path"] == "$.ruleset"


@pytest.mark.parametrize(
    ("path", "body", "status", "field"),
    [
        ("actions", {"actor": "sam", "action": "dance"}, 400, "$.action"),
        ("actions", {"actor": "sam", "action": "hit_the_dirt"}, 422, "$.action"),
        ("actions", {"actor": "sam", "action": "other", "aim_for": "dice"}, 422, "$.aim_for"),
        ("actions", {"action": "other"}, 400, "$.actor"),
        ("advance", {"to": "action_phase"}, 422, "$.actor"),
        ("advance", {"to": "tomorrow"}, 400, "$.to"),
    ],
)
async def test_bad_actions_and_advances(
    client: Any, path: str, body: dict[str, Any], status: int, field: str
) -> None:
    encounter = await new_encounter(client)
    response = await client.post(f"/v1/encounters/{encounter}/{path}", json=body)
    assert response.status == status
    assert (await response.json())["path"] == field


async def test_unknown_encounter_and_bad_event_ids(client: Any) -> None:
    response = await client.post("/v1/encounters/nope/attacks", json=make.attack())
    assert response.status == 404
    assert (await response.json())["type"].endswith("/encounter-not-found")
    encounter = await new_encounter(client)
    bad = await client.get(f"/v1/encounters/{encounter}/events?after=yesterday")
    assert bad.status == 400
    assert (await bad.json())["path"] == "after"
    assert (await client.get("/v1/encounters/nope/events")).status == 404


async def test_unknown_routes_and_methods_are_problems(client: Any) -> None:
    missing = await client.get("/v1/nothing")
    assert (missing.status, missing.content_type) == (404, PROBLEM)
    wrong = await client.put("/v1/encounters")
    assert (wrong.status, wrong.content_type) == (405, PROBLEM)
    assert "POST" in wrong.headers["Allow"]


async def test_a_body_over_the_limit_is_413(make_client: Any) -> None:
    client = await make_client(max_body_bytes=2048)
    response = await client.post("/v1/encounters", data=b"{" + b" " * 4096 + b"}")
    assert response.status == 413
    problem = await response.json()
    assert problem["type"].endswith("/body-too-large")
    assert "2048" in problem["detail"]


async def test_cors_answers_configured_origins_only(make_client: Any) -> None:
    client = await make_client(cors_origins=("http://localhost:30000",))
    preflight = await client.options(
        "/v1/encounters",
        headers={"Origin": "http://localhost:30000", "Access-Control-Request-Method": "POST"},
    )
    assert preflight.status == 204
    assert preflight.headers["Access-Control-Allow-Origin"] == "http://localhost:30000"
    other = await client.get("/healthz", headers={"Origin": "http://evil.example"})
    assert "Access-Control-Allow-Origin" not in other.headers


async def test_openapi_and_docs_describe_the_contract(client: Any) -> None:
    document = await (await client.get("/openapi.json")).json()
    assert document["openapi"].startswith("3.1")
    assert "/v1/encounters/{encounter}/attacks" in document["paths"]
    schemas = document["components"]["schemas"]
    assert "SR5AttackRequest" in schemas and "Problem" in schemas
    assert schemas["SR5Target"]["properties"]["distance_m"]["minimum"] == 0
    page = await client.get("/docs")
    assert page.content_type == "text/html"
    text = await page.text()
    assert "POST /v1/encounters/{encounter}/attacks" in text
    # Works offline: no script at all, and nothing the page would fetch from elsewhere.
    assert "<script" not in text
    assert external_resources(text) == []
    # The check itself sees what a CDN would bring in.
    cdn = '<link rel="stylesheet" href="https://cdn.example/swagger.css">'
    assert external_resources(text.replace("</head>", cdn + "</head>")) != []


def external_resources(page: str) -> list[str]:
    """Every address in `page` that the browser would fetch from elsewhere: `http://`,
    `https://` or `//` in an attribute (src, href, ...), a style or a script."""

    class Addresses(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.found: list[str] = []
            self.inside: str | None = None

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            self.inside = tag
            self.found += [value for _, value in attrs if value and EXTERNAL.match(value.strip())]

        def handle_endtag(self, tag: str) -> None:
            self.inside = None

        def handle_data(self, data: str) -> None:
            # `url(...)` and `@import` in a style, a fetch or an import in a script.
            if self.inside in ("style", "script"):
                self.found += EXTERNAL.findall(data)

    parser = Addresses()
    parser.feed(page)
    return parser.found


async def test_an_unreachable_redis_is_a_503_and_not_ready(make_client: Any) -> None:
    client = await make_client(redis_url="redis://127.0.0.1:1/0")
    ready = await client.get("/readyz")
    assert ready.status == 503
    assert (await ready.json()) == {"status": "unavailable", "store": "redis"}
    assert (await client.get("/healthz")).status == 200
    response = await client.post("/v1/encounters", json={"ruleset": "sr5"})
    assert response.status == 503
    assert response.content_type == PROBLEM
    assert (await response.json())["type"].endswith("/store-unavailable")


async def test_a_second_attack_in_the_same_action_phase_is_409(client: Any) -> None:
    encounter = await new_encounter(client)
    base = f"/v1/encounters/{encounter}"
    assert (await client.post(f"{base}/advance", json={"to": "action_phase", "actor": "sam"})).ok
    assert (await client.post(f"{base}/attacks", json=make.attack())).status == 201
    second = await client.post(f"{base}/attacks", json=make.attack())
    assert second.status == 409
    problem = await second.json()
    assert problem["type"].endswith("/already-attacked")
    assert "one attack action per phase" in problem["detail"]
    assert (await client.post(f"{base}/advance", json={"to": "action_phase", "actor": "sam"})).ok
    assert (await client.post(f"{base}/attacks", json=make.attack())).status == 201


async def test_second_chance_follows_up_the_last_attack_over_http(client: Any) -> None:
    encounter = await new_encounter(client)
    base = f"/v1/encounters/{encounter}"
    shot = make.attack(
        attacker=make.attacker(edge=2),
        dice={"attack": [5] + [2] * 9, "defense:goon-1": [5, 2, 2, 2, 2, 2]},
    )
    assert (await client.post(f"{base}/attacks", json=shot)).status == 201
    bad = await client.post(
        f"{base}/actions",
        json={
            "actor": "sam",
            "action": "second_chance",
            "target": "goon-1",
            "dice": {"second_chance:goon-1": [9]},
        },
    )
    assert bad.status == 400
    assert (await bad.json())["path"] == '$.dice["second_chance:goon-1"][0]'
    response = await client.post(
        f"{base}/actions",
        json={
            "actor": "sam",
            "action": "second_chance",
            "target": "goon-1",
            "dice": {"second_chance:goon-1": [5] * 9, "soak:goon-1": [2] * 12},
        },
    )
    assert response.status == 201, await response.text()
    result = (await response.json())["result"]
    assert result["edge_spent"] == 1
    assert result["attack"]["targets"][0]["outcome"] == "hit"
    events = await (await client.get(f"{base}/events")).json()
    assert events["events"][-1]["result"]["attack"]["kind"] == "sr5_attack"


async def test_suppressive_fire_zones_are_listed_and_announced_by_events(client: Any) -> None:
    encounter = await new_encounter(client)
    base = f"/v1/encounters/{encounter}"
    body = make.attack(
        mode="suppressive",
        weapon=make.weapon(category="light_machine_gun", modes=["FA"], ammo=100),
        targets=[],
        zone={"origin": {"x": 0, "y": 0}, "direction_deg": 45, "length_m": 30},
        bystanders=[{"id": "goon-1", "position": {"x": 10, "y": 10}}],
    )
    response = await client.post(f"{base}/attacks", json=body)
    assert response.status == 201, await response.text()
    outcome = await response.json()
    zone = outcome["result"]["zone"]["zone"]
    assert outcome["result"]["zone"]["affected"][0]["inside"] is True
    listed = await (await client.get(f"{base}/zones")).json()
    assert listed["zones"] == [zone]
    # The shooter moves: the zone ends.
    assert (await client.post(f"{base}/actions", json={"actor": "sam", "action": "move"})).ok
    assert (await (await client.get(f"{base}/zones")).json())["zones"] == []
    events = (await (await client.get(f"{base}/events")).json())["events"]
    assert events[1]["zones_started"] == [zone]
    assert events[2]["zones_ended"] == [zone["id"]]


async def test_a_zone_test_over_http(client: Any) -> None:
    encounter = await new_encounter(client)
    base = f"/v1/encounters/{encounter}"
    body = make.attack(
        mode="suppressive",
        weapon=make.weapon(category="light_machine_gun", modes=["FA"], ammo=100),
        targets=[],
        zone={"origin": {"x": 0, "y": 0}, "direction_deg": 0, "length_m": 30},
        dice={"suppression": [5, 5, 2, 2, 2, 2, 2, 2, 2, 2]},
    )
    assert (await client.post(f"{base}/attacks", json=body)).status == 201
    test = {
        "actor": "goon-1",
        "defender": make.defender(),
        "edge": 1,
        "dice": {"zone_test:goon-1": [2, 2, 2, 2], "soak:goon-1": [2] * 12},
    }
    response = await client.post(f"{base}/zones/zone-1/tests", json=test)
    assert response.status == 201, await response.text()
    result = (await response.json())["result"]
    assert (result["kind"], result["threshold"], result["hit"]) == ("sr5_zone_test", 2, True)
    assert result["damage"]["boxes"] == 8
    again = await client.post(f"{base}/zones/zone-1/tests", json=test)
    assert again.status == 409  # one test per zone per action phase
    missing = await client.post(f"{base}/zones/zone-7/tests", json=test)
    assert missing.status == 404
    assert (await missing.json())["type"].endswith("/zone-not-found")

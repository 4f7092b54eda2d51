"""GET /metrics (issue 29, "Metrics"): the counters after a known sequence of requests, by hand;
who may read them; what they never say; and two workers answering for each other."""

from __future__ import annotations

import asyncio
import ipaddress
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from service.api import create_app
from service.api import metrics as metrics_module
from service.api.metrics import REQUEST_BUCKETS
from service.config import Config, load_config
from service.rules import odds
from tests.conftest import ADMIN_KEY, TEST_TTL_SECONDS
from tests.openapi_scenario import README_ATTACK, README_CREATE
from tests.service_process import ADMIN_KEY as SERVICE_ADMIN_KEY
from tests.service_process import Services, running_services

ROOT = Path(__file__).resolve().parent.parent
DASHBOARD = ROOT / "deploy" / "grafana-dashboard.json"
AUTH = {"Authorization": f"Bearer {ADMIN_KEY}"}
METRICS_TOKEN = "metrics-token-0123456789abcdef"
ATTACKS = "/v1/encounters/{encounter}/attacks"
# A client behind the proxy (TEST-NET-2), and the networks the proxy is on.
OUTSIDE = "198.51.100.7"
LOOPBACK_PROXY = (ipaddress.ip_network("127.0.0.0/8"),)

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def attack_body(target: str = "goon-1", defense: int = 6) -> dict[str, Any]:
    """The README's attack on `target`, whose defense rolls `defense` dice: each defense after
    the first since its last action has one die less (service/rules/sr5/tables.py,
    EARLIER_DEFENSE), 6 for the first (reaction 3 + intuition 3)."""
    dice = README_ATTACK["dice"]
    body = {**README_ATTACK, "targets": [{**README_ATTACK["targets"][0], "id": target}]}
    body["dice"] = {
        "attack": dice["attack"],
        f"defense:{target}": dice["defense:goon-1"][:defense],
        f"soak:{target}": dice["soak:goon-1"],
    }
    return body


def parsed(text: str) -> Samples:
    """Every sample of an exposition, by name and labels (prometheus_client's own parser)."""
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    """A sample's value; 0 for a labelled series never counted (it is not exported)."""
    return samples.get((name, frozenset(labels.items())), 0.0)


def requests(samples: Samples, route: str, method: str, status: int) -> float:
    return value(
        samples, "firefight_requests_total", route=route, method=method, status=str(status)
    )


def requests_counted(samples: Samples) -> dict[tuple[str, str, str], float]:
    return {
        (labels["route"], labels["method"], labels["status"]): count
        for (name, label_set), count in samples.items()
        if name == "firefight_requests_total"
        for labels in [dict(label_set)]
    }


async def scrape(client: Any, **headers: str) -> Samples:
    answer = await client.get("/metrics", headers=headers)
    assert answer.status == 200, await answer.text()
    assert answer.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8"
    return parsed(await answer.text())


class Held:
    """A route whose one request stays in flight until the test lets it go (the shed request
    is then known to meet a full process, without a sleep)."""

    def __init__(self) -> None:
        self.entered = asyncio.Event()
        self.release = asyncio.Event()

    async def handler(self, request: web.Request) -> web.Response:
        self.entered.set()
        await self.release.wait()
        return web.json_response({"held": True})


async def _app_client(aiohttp_client: Any, held: Held | None = None, **overrides: Any) -> Any:
    settings: dict[str, Any] = dict(
        admin_key=ADMIN_KEY,
        encounter_ttl_seconds=TEST_TTL_SECONDS,
        rate_limit_per_second=0,
        refusals_per_second=0,
    )
    settings.update(overrides)
    app = create_app(Config(**settings))
    if held is not None:
        app.router.add_post("/held", held.handler)
    return await aiohttp_client(app, headers=AUTH)


async def _receive(socket: aiohttp.ClientWebSocketResponse) -> dict[str, Any]:
    message = await socket.receive(timeout=10)
    assert message.type == aiohttp.WSMsgType.TEXT, message
    event: dict[str, Any] = message.json()
    return event


@pytest.mark.parametrize("store", ["memory", "redis"])
async def test_the_counters_after_a_known_evening(
    aiohttp_client: Any, store: str, request: pytest.FixtureRequest
) -> None:
    redis = {"redis_url": request.getfixturevalue("redis_url")} if store == "redis" else {}
    held = Held()
    client = await _app_client(
        aiohttp_client,
        held,
        # One request in flight at most: the second while /held is held is shed.
        max_in_flight=1,
        # A preview's work bound below what MIN_SAMPLES + 1 samples of the README's attack take.
        preview_work=1000,
        **redis,
    )
    created = await client.post("/v1/encounters", json=README_CREATE)
    assert created.status == 201
    answer = await created.json()
    encounter, tokens = answer["id"], answer["tokens"]
    attacks = ATTACKS.format(encounter=encounter)
    for defense in (6, 5):
        attacked = await client.post(attacks, json=attack_body(defense=defense))
        assert attacked.status == 201, await attacked.text()
    # A 404 of a route (no such encounter) and one of no route at all.
    assert (await client.get("/v1/encounters/no-such-encounter")).status == 404
    assert (await client.get("/no/such/path/goon-1")).status == 404
    refused = await client.post(attacks, json={**README_ATTACK, "mode": "XX"})
    assert refused.status == 400
    assert (await client.post(f"/v1/encounters/{encounter}/undo", json={})).status == 200
    preview = {k: v for k, v in README_ATTACK.items() if k != "dice"}
    assert (await client.post(attacks + "/odds", json=preview)).status == 200
    too_many = await client.post(attacks + f"/odds?samples={odds.MIN_SAMPLES + 1}", json=preview)
    assert too_many.status == 422
    # Shed: one request held in flight, the next refused at once.
    holding = asyncio.create_task(client.post("/held"))
    await asyncio.wait_for(held.entered.wait(), 10)
    shed = await client.post("/v1/encounters", json=README_CREATE)
    assert shed.status == 503
    held.release.set()
    assert (await holding).status == 200

    # A socket: the replay (created, two attacks, the undo), then one event fanned out live.
    socket = await client.ws_connect(f"/v1/encounters/{encounter}/ws")
    replayed = [(await _receive(socket))["type"] for _ in range(4)]
    assert replayed == ["encounter_created", "attack", "attack", "undo"]
    before_live = await scrape(client)
    # The undo took the second attack back: the next defense has 5 dice again.
    live = await client.post(attacks, json=attack_body(defense=5))
    assert live.status == 201
    assert (await _receive(socket))["id"] == (await live.json())["event_id"]
    samples = await scrape(client)
    await socket.close()

    # Worked by hand from the calls above.
    assert requests_counted(samples) == {
        ("/v1/encounters", "POST", "201"): 1,
        ("/v1/encounters", "POST", "503"): 1,
        (ATTACKS, "POST", "201"): 3,
        (ATTACKS, "POST", "400"): 1,
        ("/v1/encounters/{encounter}", "GET", "404"): 1,
        ("unmatched", "GET", "404"): 1,
        ("/v1/encounters/{encounter}/undo", "POST", "200"): 1,
        (ATTACKS + "/odds", "POST", "200"): 1,
        (ATTACKS + "/odds", "POST", "422"): 1,
        ("/held", "POST", "200"): 1,
        # The scrape before the live attack (a scrape is counted once answered).
        ("/metrics", "GET", "200"): 1,
    }
    duration = "firefight_request_duration_seconds_count"
    assert value(samples, duration, route=ATTACKS, method="POST") == 4
    assert value(samples, duration, route="/v1/encounters", method="POST") == 2
    assert value(samples, duration, route="unmatched", method="GET") == 1
    assert value(samples, "firefight_requests_shed_total", reason="in_flight") == 1
    assert value(samples, "firefight_requests_shed_total", reason="connections") == 0
    assert value(samples, "firefight_previews_refused_total", reason="too_large") == 1
    assert value(samples, "firefight_previews_refused_total", reason="token_busy") == 0
    assert value(samples, "firefight_previews_running") == 0
    assert value(samples, "firefight_websockets_open") == 1
    # One live event, one socket watching; the replay is not fan-out.
    assert value(before_live, "firefight_events_fanned_out_total") == 0
    assert value(samples, "firefight_events_fanned_out_total") == 1
    assert value(samples, "firefight_state_conflicts_total") == 0
    assert value(samples, "firefight_state_retries_total") == 0
    round_trips = {
        dict(labels)["op"]: count
        for (name, labels), count in samples.items()
        if name == "firefight_store_round_trips_total"
    }
    if store == "memory":
        assert round_trips == {}
    else:
        # Three attacks and an undo, uncontended: one commit each (docs/performance.md).
        assert round_trips["commit"] == 4
        assert round_trips["read_new"] >= 1
        count = "firefight_store_round_trip_seconds_count"
        assert value(samples, count, op="commit") == 4

    # Nothing of the table is in them: no encounter id, actor, token or path a client sent.
    text = (await (await client.get("/metrics")).text()).lower()
    for secret in [encounter, *tokens.values(), ADMIN_KEY, "sam", "goon-1", "predator", "no-such"]:
        assert secret.lower() not in text, secret


async def test_one_uncontended_attack_on_redis_is_one_round_trip(
    aiohttp_client: Any, redis_url: str
) -> None:
    client = await _app_client(aiohttp_client, redis_url=redis_url)
    created = await client.post("/v1/encounters", json=README_CREATE)
    attacks = ATTACKS.format(encounter=(await created.json())["id"])
    before = await scrape(client)
    assert (await client.post(attacks, json=README_ATTACK)).status == 201
    after = await scrape(client)

    def trips(samples: Samples) -> dict[str, float]:
        return {
            dict(labels)["op"]: count
            for (name, labels), count in samples.items()
            if name == "firefight_store_round_trips_total"
        }

    moved = {op: n - trips(before).get(op, 0) for op, n in trips(after).items()}
    assert {op: n for op, n in moved.items() if n} == {"commit": 1}


async def test_lost_compare_and_sets_are_counted(aiohttp_client: Any, redis_url: str) -> None:
    """Two apps on one Redis: the second's copy of the encounter is stale once the first
    attacked, so its attack loses one compare-and-set and resolves once again."""
    first = await _app_client(aiohttp_client, redis_url=redis_url)
    second = await _app_client(aiohttp_client, redis_url=redis_url)
    created = await first.post("/v1/encounters", json=README_CREATE)
    attacks = ATTACKS.format(encounter=(await created.json())["id"])
    # The second reads it (and keeps it), then the first changes it.
    assert (await second.get(attacks.removesuffix("/attacks"))).status == 200
    assert (await first.post(attacks, json=attack_body("goon-1"))).status == 201
    # On another target, so that the same dice fit both the stale state and the new one.
    assert (await second.post(attacks, json=attack_body("goon-2"))).status == 201
    samples = await scrape(second)
    assert value(samples, "firefight_state_conflicts_total") == 1
    assert value(samples, "firefight_state_retries_total") == 1
    assert value(await scrape(first), "firefight_state_conflicts_total") == 0


# --- who may read them ---------------------------------------------------------------------


async def test_loopback_reads_them_without_a_token(aiohttp_client: Any) -> None:
    client = await _app_client(aiohttp_client)
    answer = await client.get("/metrics", headers={"Authorization": ""})
    assert answer.status == 200


async def test_behind_a_trusted_proxy_the_forwarded_client_is_who_asks(
    aiohttp_client: Any,
) -> None:
    client = await _app_client(
        aiohttp_client, trusted_proxies=LOOPBACK_PROXY, metrics_token=METRICS_TOKEN
    )
    outside = {"X-Forwarded-For": OUTSIDE}
    # Not loopback, no token: 401 (a token would do), as problem+json.
    refused = await client.get("/metrics", headers={**outside, "Authorization": ""})
    assert refused.status == 401
    assert refused.content_type == "application/problem+json"
    assert "FIREFIGHT_METRICS_TOKEN" in (await refused.json())["detail"]
    # A forged loopback hop before the one the proxy appended changes nothing.
    forged = {"X-Forwarded-For": f"127.0.0.1, {OUTSIDE}", "Authorization": ""}
    assert (await client.get("/metrics", headers=forged)).status == 401
    # The wrong token, the admin key, an encounter's token: 401.
    for wrong in ["metrics-token-0123456789abcdeX", ADMIN_KEY, "x"]:
        bearer = {**outside, "Authorization": f"Bearer {wrong}"}
        assert (await client.get("/metrics", headers=bearer)).status == 401, wrong
    # The right token: in.
    right = {**outside, "Authorization": f"Bearer {METRICS_TOKEN}"}
    assert (await client.get("/metrics", headers=right)).status == 200
    # The proxy asking for itself (no X-Forwarded-For): not let in by address either.
    assert (await client.get("/metrics", headers={"Authorization": ""})).status == 401
    # A client the proxy says is on loopback is.
    local = {"X-Forwarded-For": "127.0.0.1", "Authorization": ""}
    assert (await client.get("/metrics", headers=local)).status == 200


async def test_a_forwarded_header_from_no_trusted_proxy_is_never_loopback(
    aiohttp_client: Any,
) -> None:
    """An undeclared proxy on this machine would make every client loopback: a request that says
    it was forwarded is not let in by address unless a trusted proxy forwarded it."""
    client = await _app_client(aiohttp_client)
    for header in ({"X-Forwarded-For": "127.0.0.1"}, {"Forwarded": "for=127.0.0.1"}):
        answer = await client.get("/metrics", headers={**header, "Authorization": ""})
        # No metrics token is configured: nothing would let it in (403).
        assert answer.status == 403, header
        assert answer.content_type == "application/problem+json"


async def test_an_allowed_network_reads_them(aiohttp_client: Any) -> None:
    client = await _app_client(
        aiohttp_client,
        trusted_proxies=LOOPBACK_PROXY,
        metrics_allow=(ipaddress.ip_network("198.51.100.0/24"),),
    )
    allowed = {"X-Forwarded-For": OUTSIDE, "Authorization": ""}
    assert (await client.get("/metrics", headers=allowed)).status == 200
    other = {"X-Forwarded-For": "203.0.113.9", "Authorization": ""}
    assert (await client.get("/metrics", headers=other)).status == 403


def test_the_settings_are_read_and_checked() -> None:
    env = {
        "FIREFIGHT_METRICS_TOKEN": METRICS_TOKEN,
        "FIREFIGHT_METRICS_ALLOW": "10.0.0.0/8, 192.0.2.5",
    }
    config = load_config([], env)
    assert config.metrics_token == METRICS_TOKEN
    assert [str(n) for n in config.metrics_allow] == ["10.0.0.0/8", "192.0.2.5/32"]
    assert METRICS_TOKEN not in repr(config)
    from service.config import ConfigError

    with pytest.raises(ConfigError, match="FIREFIGHT_METRICS_TOKEN must be at least 16"):
        load_config([], {"FIREFIGHT_METRICS_TOKEN": "short"})
    with pytest.raises(ConfigError, match="FIREFIGHT_METRICS_ALLOW names addresses"):
        load_config([], {"FIREFIGHT_METRICS_ALLOW": "10.0.0.0/8,nope"})


# --- workers -------------------------------------------------------------------------------


@pytest.fixture
def services(tmp_path: Path) -> Iterator[Services]:
    yield from running_services(tmp_path)


async def test_either_of_two_workers_answers_for_both(services: Services, redis_url: str) -> None:
    service = services.start("workers", {"FIREFIGHT_REDIS_URL": redis_url}, args=["--workers", "2"])

    async def listening() -> bool:
        if service.process.poll() is not None:
            pytest.fail(f"the service exited:\n{service.log_text()}")
        return len([x for x in service.log_lines() if x.get("event") == "listening"]) == 2

    from tests.service_process import wait_until

    await wait_until(listening, 20, service.log_text)
    created = 30
    # A new connection per request: the kernel spreads them over both workers.
    connector = aiohttp.TCPConnector(force_close=True)
    auth = {"Authorization": f"Bearer {SERVICE_ADMIN_KEY}"}
    async with aiohttp.ClientSession(connector=connector) as http:
        for _ in range(created):
            async with http.post(
                f"{service.url}/v1/encounters", json={"ruleset": "sr5"}, headers=auth
            ) as answer:
                assert answer.status == 201
        # Scrapes until each worker has answered one (the kernel picks the worker of each new
        # connection: 10 in a row went to one worker in a full run), at most 200.
        counted = []
        served: set[int] = set()
        while served != {0, 1} and len(counted) < 200:
            async with http.get(f"{service.url}/metrics") as answer:
                assert answer.status == 200
                samples = parsed(await answer.text())
                counted.append(requests(samples, "/v1/encounters", "POST", 201))
            served = {x["worker"] for x in service.log_lines() if x.get("path") == "/metrics"}
    # Both workers answered a scrape, and each told of every creation, whoever served it.
    assert served == {0, 1}
    assert counted == [created] * len(counted)


# --- the dashboard -------------------------------------------------------------------------


async def test_the_dashboard_uses_only_series_the_service_exports(aiohttp_client: Any) -> None:
    """Every name the dashboard's queries use is one a real scrape exports (a renamed series
    fails here), and every series the service exports is on the dashboard."""
    client = await _app_client(aiohttp_client)
    text = await (await client.get("/metrics")).text()
    families = {family.name: family.type for family in text_string_to_metric_families(text)}
    suffixes = {"counter": ("_total",), "histogram": ("_bucket", "_count", "_sum")}
    exported = {
        name + suffix for name, kind in families.items() for suffix in suffixes.get(kind, ("",))
    }
    dashboard = json.loads(DASHBOARD.read_text())
    expressions = [
        target["expr"] for panel in dashboard["panels"] for target in panel.get("targets", [])
    ]
    used = {name for expr in expressions for name in re.findall(r"\bfirefight_\w+", expr)}
    assert used - exported == set()
    # (`..._created`: when a series began, prometheus_client's own.)
    shown = {f for f in families if not f.endswith("_created")}
    assert {f for f in shown if not any(name.startswith(f) for name in used)} == set()
    # ...and the check sees a name the service does not export.
    assert "firefight_requests_count" not in exported


def _exposition(observe: Any) -> list[str]:
    """A request counter and histogram of the service's buckets, observed by `observe`; the
    exposition without its `_created` stamps."""
    registry = CollectorRegistry()
    counter = Counter("served", "Served.", ("route",), registry=registry).labels("/x")
    histogram = Histogram(
        "served_seconds", "Served.", ("route",), buckets=REQUEST_BUCKETS, registry=registry
    ).labels("/x")
    for seconds in TIMES:
        observe(counter, histogram, seconds)
    text = generate_latest(registry).decode()
    return [line for line in text.splitlines() if "_created" not in line]


# Every bucket's bound itself, either side of it, none, the slowest and beyond every bound.
TIMES = [
    t for bound in metrics_module.REQUEST_BUCKETS for t in (bound * 0.999, bound, bound * 1.001)
] + [0.0, 0.0001, 30.0, float("inf")]


def test_counted_and_timed_is_what_inc_and_observe_expose() -> None:
    def by_the_library(counter: Any, histogram: Any, seconds: float) -> None:
        counter.inc()
        histogram.observe(seconds)

    def straight(counter: Any, histogram: Any, seconds: float) -> None:
        metrics_module.counted_and_timed(counter, histogram)(seconds)

    expected = _exposition(by_the_library)
    assert _exposition(straight) == expected
    assert f'served_total{{route="/x"}} {float(len(TIMES))}' in expected

"""Issue 10, "Limits and leaks": who is counted against which limit, what a stranger learns,
what browsers may read, and what the service refuses to start with."""

from __future__ import annotations

import asyncio
import ipaddress
from typing import Any

import pytest
from multidict import CIMultiDict

from service.config import ConfigError, load_config
from tests import sr5_requests as make
from tests.conftest import ADMIN_KEY
from tests.test_trust import bearer, open_table

STRANGER = bearer("a-guess-at-some-table-token-0123")


async def test_strangers_do_not_use_up_an_encounters_rate(make_client: Any) -> None:
    client = await make_client(admin=False, rate_limit_per_second=1)
    encounter, tokens = await open_table(client)
    base = f"/v1/encounters/{encounter}"
    for _ in range(10):
        refused = await client.post(f"{base}/attacks", json=make.attack(), headers=STRANGER)
        assert refused.status == 401
    # The table's own two (the burst) still go through.
    for _ in range(2):
        played = await client.post(
            f"{base}/attacks", json=make.attack(), headers=bearer(tokens["player"])
        )
        assert played.status == 201, await played.text()
    limited = await client.post(
        f"{base}/attacks", json=make.attack(), headers=bearer(tokens["player"])
    )
    assert limited.status == 429


async def test_requests_without_a_valid_token_are_limited_per_address(make_client: Any) -> None:
    client = await make_client(admin=False, refusals_per_second=1)
    encounter, tokens = await open_table(client)
    base = f"/v1/encounters/{encounter}"
    statuses = [(await client.get(base, headers=STRANGER)).status for _ in range(6)]
    # A burst of five, then 429 with when to come back.
    assert statuses == [401] * 5 + [429]
    limited = await client.get(base, headers=STRANGER)
    assert limited.status == 429
    assert int(limited.headers["Retry-After"]) >= 1
    assert (await limited.json())["type"].endswith("/rate-limited")
    # Creating with a wrong admin key counts too.
    wrong_admin = await client.post("/v1/encounters", json={"ruleset": "sr5"}, headers=STRANGER)
    assert wrong_admin.status == 429
    # Whoever has a valid token from the same address is not held back.
    assert (await client.get(base, headers=bearer(tokens["player"]))).status == 200


async def test_behind_a_trusted_proxy_each_client_address_has_its_own_limit(
    make_client: Any,
) -> None:
    client = await make_client(
        admin=False, refusals_per_second=1, trusted_proxies=(ipaddress.ip_network("127.0.0.0/8"),)
    )
    encounter, _ = await open_table(client)
    base = f"/v1/encounters/{encounter}"

    async def refused_from(address: str) -> list[int]:
        headers = {**STRANGER, "X-Forwarded-For": f"198.51.100.7, {address}"}
        return [(await client.get(base, headers=headers)).status for _ in range(6)]

    assert await refused_from("192.0.2.1") == [401] * 5 + [429]
    assert await refused_from("192.0.2.2") == [401] * 5 + [429]


async def test_a_forged_forwarded_line_before_the_proxys_does_not_pick_the_address(
    make_client: Any,
) -> None:
    """A client's own X-Forwarded-For line comes first, the trusted proxy's (appended, as
    haproxy's `option forwardfor` does) last: the last line's last hop is the client's address,
    so six forged first lines from one client share one limit."""
    client = await make_client(
        admin=False, refusals_per_second=1, trusted_proxies=(ipaddress.ip_network("127.0.0.0/8"),)
    )
    encounter, _ = await open_table(client)
    base = f"/v1/encounters/{encounter}"
    statuses = []
    for n in range(6):
        headers = CIMultiDict(STRANGER)
        headers.add("X-Forwarded-For", f"192.0.2.{n}")
        headers.add("X-Forwarded-For", "198.51.100.9")
        statuses.append((await client.get(base, headers=headers)).status)
    assert statuses == [401] * 5 + [429]


async def test_an_untrusted_peer_cannot_pick_its_address(make_client: Any) -> None:
    client = await make_client(admin=False, refusals_per_second=1)
    encounter, _ = await open_table(client)
    base = f"/v1/encounters/{encounter}"
    statuses = [
        (await client.get(base, headers={**STRANGER, "X-Forwarded-For": f"192.0.2.{n}"})).status
        for n in range(6)
    ]
    assert statuses == [401] * 5 + [429]


@pytest.mark.parametrize(
    ("field", "body"),
    [
        ("$.attacker.id", make.attack(attacker=make.attacker(id="sam\n"))),
        ("$.targets[0].id", make.attack(targets=[make.target(id="goon-1\n")])),
        ("$.weapon.id", make.attack(weapon=make.weapon(id="alpha\n"))),
    ],
)
async def test_an_id_ending_in_a_newline_is_refused(client: Any, field: str, body: Any) -> None:
    encounter, _ = await open_table(client)
    response = await client.post(f"/v1/encounters/{encounter}/attacks", json=body)
    assert response.status == 400, await response.text()
    assert (await response.json())["path"] == field


async def test_browsers_may_put_state_and_read_retry_after_and_replays(make_client: Any) -> None:
    origin = "http://localhost:30000"
    client = await make_client(cors_origins=(origin,))
    encounter, _ = await open_table(client)
    base = f"/v1/encounters/{encounter}"
    preflight = await client.options(
        f"{base}/state",
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": "PUT",
            "Access-Control-Request-Headers": "authorization, content-type",
        },
    )
    assert preflight.status == 204
    allowed = {m.strip() for m in preflight.headers["Access-Control-Allow-Methods"].split(",")}
    assert {"GET", "POST", "PUT", "DELETE"} <= allowed
    answer = await client.post(
        f"{base}/attacks",
        json=make.attack(),
        headers={"Origin": origin, "Idempotency-Key": "browser-1"},
    )
    exposed = {h.strip() for h in answer.headers["Access-Control-Expose-Headers"].split(",")}
    assert {"Retry-After", "Idempotent-Replayed", "X-Request-Id", "Location"} <= exposed


@pytest.mark.parametrize(
    "key", [" " * 24, "\t" * 20, "a-long-enough-key with-a-space", "a-long-enough-key\u00e9\u00e9"]
)
def test_an_admin_key_no_bearer_token_can_carry_is_refused_at_start(key: str) -> None:
    with pytest.raises(ConfigError, match="FIREFIGHT_ADMIN_KEY"):
        load_config([], {"FIREFIGHT_ADMIN_KEY": key})


def test_trusted_proxies_are_addresses_or_networks() -> None:
    with pytest.raises(ConfigError, match="FIREFIGHT_TRUSTED_PROXIES"):
        load_config([], {"FIREFIGHT_ADMIN_KEY": ADMIN_KEY, "FIREFIGHT_TRUSTED_PROXIES": "haproxy"})
    config = load_config(
        [],
        {
            "FIREFIGHT_ADMIN_KEY": ADMIN_KEY,
            "FIREFIGHT_TRUSTED_PROXIES": "10.0.0.2, ::1, 172.16.0.0/12",
        },
    )
    assert [str(network) for network in config.trusted_proxies] == [
        "10.0.0.2/32",
        "::1/128",
        "172.16.0.0/12",
    ]


async def _status_before_the_body(port: int, request_head: str) -> tuple[str, float]:
    """Sends headers that promise a body, and never the body: the status line that comes back,
    with how long it took."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(request_head.encode())
        await writer.drain()
        loop = asyncio.get_running_loop()
        started = loop.time()
        line = await asyncio.wait_for(reader.readline(), 5)
        return line.decode().strip(), loop.time() - started
    finally:
        writer.close()


@pytest.mark.parametrize("path", ["/v1/encounters", "/v1/encounters/{encounter}/attacks"])
async def test_a_wrong_credential_is_refused_before_the_body_is_read(
    make_client: Any, path: str
) -> None:
    client = await make_client(admin=False)
    encounter, _ = await open_table(client)
    head = (
        f"POST {path.format(encounter=encounter)} HTTP/1.1\r\n"
        "Host: 127.0.0.1\r\nContent-Type: application/json\r\n"
        "Authorization: Bearer not-the-admin-key-nor-a-token\r\n"
        "Content-Length: 100000\r\n\r\n"
    )
    status, _ = await _status_before_the_body(client.port, head)
    assert status == "HTTP/1.1 401 Unauthorized"

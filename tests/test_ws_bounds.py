"""Issue 23, WebSockets: what one token, one client and one revoked player may hold.

Sockets per token are capped; a client frame the protocol does not need closes its socket before
its bytes are read; health checks are answered when the connection cap is full; a player's socket
is closed the moment the GM revokes or replaces its token, on every replica."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import socket
import struct
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from aiohttp import WSMsgType

from service.api.app import SOCKET_COUNTS, SOCKETS
from service.api.limits import CLIENT_FRAME_BURST, CLIENT_MESSAGE_BYTES
from service.api.websocket import WS_TOKEN_REVOKED
from tests import sr5_requests as make
from tests.conftest import ADMIN_KEY
from tests.service_process import ADMIN_KEY as PROCESS_ADMIN_KEY
from tests.service_process import serve
from tests.test_events_live import receive
from tests.test_scene import SAM
from tests.test_trust import bearer, open_table
from tests.test_ws_slow_clients import closed_by_server, served

TIMEOUT = 5
# RFC 6455, 7.4.1: "message too big" and "policy violation".
MESSAGE_TOO_BIG = 1009
POLICY_VIOLATION = 1008
# The frames: "4 players sending 4 MB frames".
FOUR_MB = 4_000_000


def upgrade_headers(token: str) -> dict[str, str]:
    """A WebSocket handshake's headers, sent as a plain GET: the refusal's body can be read."""
    return {
        **bearer(token),
        "Connection": "Upgrade",
        "Upgrade": "websocket",
        "Sec-WebSocket-Version": "13",
        "Sec-WebSocket-Key": base64.b64encode(os.urandom(16)).decode(),
    }


async def closing(ws: aiohttp.ClientWebSocketResponse) -> tuple[list[str], aiohttp.WSMessage]:
    """The types of the events received before the next message that is not one, and that
    message: the close the test waits for."""
    events = []
    while True:
        message = await ws.receive(timeout=TIMEOUT)
        if message.type != WSMsgType.TEXT:
            return events, message
        events.append(message.json()["type"])


# --- sockets per token -------------------------------------------------------------------------


async def test_sockets_beyond_the_per_token_cap_are_refused_429_before_the_upgrade(
    make_client: Any,
) -> None:
    client = await make_client(admin=False, max_sockets_per_token=2)
    encounter, tokens = await open_table(client)
    path = f"/v1/encounters/{encounter}/ws"
    players = [await client.ws_connect(path, headers=bearer(tokens["player"])) for _ in range(2)]
    refused = await client.get(path, headers=upgrade_headers(tokens["player"]))
    assert refused.status == 429
    assert refused.content_type == "application/problem+json"
    problem = await refused.json()
    assert problem["type"].endswith("/too-many-sockets")
    assert "2" in problem["detail"]
    assert "Retry-After" in refused.headers
    # The cap is the token's: the GM's token still opens its own.
    gm = await client.ws_connect(path, headers=bearer(tokens["gm"]))
    assert (await receive(gm))["type"] == "encounter_created"
    # A socket closed gives its place back.
    sockets = client.server.app[SOCKETS]
    await players.pop().close()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TIMEOUT
    while len(sockets) > 2:  # the server's side of the closed one is let go
        assert loop.time() < deadline, "the closed socket was never let go"
        await asyncio.sleep(0.01)  # polling the condition, with a deadline
    again = await client.ws_connect(path, headers=bearer(tokens["player"]))
    assert (await receive(again))["type"] == "encounter_created"
    for ws in [*players, gm, again]:
        await ws.close()
    while sockets:  # every handler ends
        assert loop.time() < deadline + TIMEOUT, "a closed socket was never let go"
        await asyncio.sleep(0.01)  # polling the condition, with a deadline
    # Nothing is left counted once they are closed (nor after a refusal).
    counts = client.server.app[SOCKET_COUNTS]
    assert (counts.total, counts.per_holder) == (0, {})


def test_the_per_token_cap_comes_from_the_environment() -> None:
    from service.config import ConfigError, load_config

    key = {"FIREFIGHT_ADMIN_KEY": ADMIN_KEY}
    config = load_config([], {"FIREFIGHT_MAX_SOCKETS_PER_TOKEN": "3", **key})
    assert config.max_sockets_per_token == 3
    with pytest.raises(ConfigError, match="FIREFIGHT_MAX_SOCKETS_PER_TOKEN must be between"):
        load_config([], {"FIREFIGHT_MAX_SOCKETS_PER_TOKEN": "0", **key})


async def test_sockets_beyond_the_process_cap_are_refused_and_requests_keep_their_room() -> None:
    # Four connections, of which sockets may take three (nine tenths, rounded down): a replica
    # full of sockets still answers its API.
    env = {"FIREFIGHT_MAX_CONNECTIONS": "4"}
    async with serve(env=env) as service, contextlib.AsyncExitStack() as stack:
        admin = bearer(PROCESS_ADMIN_KEY)
        async with aiohttp.ClientSession() as http:
            made = await http.post(
                f"{service.base}/v1/encounters", json={"ruleset": "sr5"}, headers=admin
            )
            encounter = (await made.json())["id"]
        sockets = []
        for _ in range(3):
            own = await stack.enter_async_context(aiohttp.ClientSession())
            ws = await own.ws_connect(f"{service.base}/v1/encounters/{encounter}/ws", headers=admin)
            assert (await receive(ws))["type"] == "encounter_created"
            sockets.append(ws)
        async with aiohttp.ClientSession() as fresh:
            async with fresh.get(
                f"{service.base}/v1/encounters/{encounter}/ws",
                headers=upgrade_headers(PROCESS_ADMIN_KEY),
            ) as refused:
                assert refused.status == 503
                assert (await refused.json())["type"].endswith("/sockets-full")
                assert "Retry-After" in refused.headers
            async with fresh.get(f"{service.base}/v1/rulesets") as served_api:
                assert served_api.status == 200
        for ws in sockets:
            await ws.close()


def test_the_process_socket_cap_is_nine_tenths_of_the_connections_unless_set() -> None:
    from service.config import ConfigError, load_config

    key = {"FIREFIGHT_ADMIN_KEY": ADMIN_KEY}
    # 1000 x 9 / 10 = 900; 50 x 9 / 10 = 45.
    assert load_config([], key).max_sockets == 900
    assert load_config([], {"FIREFIGHT_MAX_CONNECTIONS": "50", **key}).max_sockets == 45
    # One connection: one socket (never none).
    assert load_config([], {"FIREFIGHT_MAX_CONNECTIONS": "1", **key}).max_sockets == 1
    set_here = {"FIREFIGHT_MAX_CONNECTIONS": "50", "FIREFIGHT_MAX_SOCKETS": "50", **key}
    assert load_config([], set_here).max_sockets == 50
    with pytest.raises(ConfigError, match="FIREFIGHT_MAX_SOCKETS must not be above"):
        load_config([], {**set_here, "FIREFIGHT_MAX_SOCKETS": "51"})


# --- what a client may send --------------------------------------------------------------------


@contextlib.asynccontextmanager
async def raw_socket(port: int, encounter: str) -> AsyncIterator[socket.socket]:
    """A WebSocket client on a plain socket, handshake done: it sends frames as the test says."""
    loop = asyncio.get_running_loop()
    raw = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        raw.setblocking(False)
        await loop.sock_connect(raw, ("127.0.0.1", port))
        key = base64.b64encode(os.urandom(16)).decode()
        handshake = (
            f"GET /v1/encounters/{encounter}/ws?after=0-1 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
            f"Sec-WebSocket-Key: {key}\r\nAuthorization: Bearer {ADMIN_KEY}\r\n\r\n"
        )
        await loop.sock_sendall(raw, handshake.encode())
        answer = b""
        while b"\r\n\r\n" not in answer:
            byte = await asyncio.wait_for(loop.sock_recv(raw, 1), TIMEOUT)
            assert byte, answer
            answer += byte
        assert answer.startswith(b"HTTP/1.1 101 "), answer
        yield raw
    finally:
        raw.close()


def client_frame_header(opcode: int, length: int) -> bytes:
    """A final client frame's header (RFC 6455, 5.2), masked with a zero key."""
    mask = b"\0\0\0\0"
    if length < 126:
        return struct.pack("!BB", 0x80 | opcode, 0x80 | length) + mask
    if length < 1 << 16:
        return struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, length) + mask
    return struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, length) + mask


async def close_code_read(raw: socket.socket) -> int:
    """The code of the close frame the server sends, reading past any event before it."""
    loop = asyncio.get_running_loop()
    buffer = b""
    while True:
        chunk = await asyncio.wait_for(loop.sock_recv(raw, 65536), TIMEOUT)
        assert chunk, f"closed without a close frame after {buffer[:200]!r}"
        buffer += chunk
        while len(buffer) >= 2:
            length, start = buffer[1] & 0x7F, 2
            if length == 126:
                length, start = int.from_bytes(buffer[2:4], "big"), 4
            if len(buffer) < start + length:
                break
            if buffer[0] == 0x88:  # FIN and the close opcode
                return int.from_bytes(buffer[start : start + 2], "big")
            buffer = buffer[start + length :]


async def test_a_4_mb_frame_is_refused_unread_and_other_tables_still_get_their_events() -> None:
    async with served(ws_send_timeout_seconds=60) as service:
        flooded, other = await service.encounter(), await service.encounter()
        watcher = await service.http.ws_connect(f"{service.url}/v1/encounters/{other}/ws")
        assert (await receive(watcher))["type"] == "encounter_created"
        loop = asyncio.get_running_loop()
        async with raw_socket(service.port, flooded) as raw:
            # The header of a 4 MB binary frame and its first 64 KiB: the rest never comes.
            await loop.sock_sendall(raw, client_frame_header(0x2, FOUR_MB) + b"x" * 65536)
            # Refused from the header alone: 1009, and the connection closed, while the
            # server still waits for 3.9 MB it would have had to hold.
            assert await close_code_read(raw) == MESSAGE_TOO_BIG
            assert await closed_by_server(raw, TIMEOUT)
        # Another table's socket is not held up.
        shot = await service.attack(other)
        assert (await receive(watcher))["id"] == shot
        await watcher.close()


def test_the_service_reads_no_client_message_larger_than_a_control_frame() -> None:
    # RFC 6455, 5.5: a control frame (close, ping, pong) carries 125 bytes at most; the
    # protocol gives a client nothing else to send.
    assert CLIENT_MESSAGE_BYTES <= 125


@pytest.mark.parametrize("send", ["text", "binary"])
async def test_a_message_from_the_client_closes_its_socket_1008(
    make_client: Any, send: str
) -> None:
    client = await make_client()
    made = await client.post("/v1/encounters", json={"ruleset": "sr5"})
    encounter = (await made.json())["id"]
    ws = await client.ws_connect(f"/v1/encounters/{encounter}/ws")
    assert (await receive(ws))["type"] == "encounter_created"
    if send == "text":
        await ws.send_str("resume")
    else:
        await ws.send_bytes(b"\x00")
    _, closed = await closing(ws)
    assert closed.type == WSMsgType.CLOSE
    assert closed.data == POLICY_VIOLATION
    assert "send" in closed.extra


async def test_a_ping_is_answered_and_a_ping_flood_closes_the_socket_1008(
    make_client: Any,
) -> None:
    client = await make_client()
    made = await client.post("/v1/encounters", json={"ruleset": "sr5"})
    encounter = (await made.json())["id"]
    ws = await client.ws_connect(f"/v1/encounters/{encounter}/ws", autoping=False)
    assert (await receive(ws))["type"] == "encounter_created"
    # A keep-alive ping, as some clients send: answered with its own payload.
    await ws.ping(b"keep")
    pong = await ws.receive(timeout=TIMEOUT)
    assert (pong.type, pong.data) == (WSMsgType.PONG, b"keep")
    # Many more than the burst at once: no client needs that.
    for n in range(CLIENT_FRAME_BURST * 4):
        await ws.ping(str(n).encode())
    while (message := await ws.receive(timeout=TIMEOUT)).type == WSMsgType.PONG:
        pass
    assert message.type == WSMsgType.CLOSE
    assert message.data == POLICY_VIOLATION


# --- health checks when the connection cap is full ------------------------------------------------


async def test_health_checks_are_answered_when_sockets_fill_the_connection_cap() -> None:
    # Sockets may take every connection here, to fill the cap with them.
    env = {"FIREFIGHT_MAX_CONNECTIONS": "4", "FIREFIGHT_MAX_SOCKETS": "4"}
    async with serve(env=env) as service, contextlib.AsyncExitStack() as stack:
        admin = bearer(PROCESS_ADMIN_KEY)
        async with aiohttp.ClientSession() as http:
            made = await http.post(
                f"{service.base}/v1/encounters", json={"ruleset": "sr5"}, headers=admin
            )
            encounter = (await made.json())["id"]
        # Sockets, each on a connection of its own, until the cap refuses one (the connection
        # that created the encounter may still be counted for a moment).
        sockets = []
        while True:
            own = await stack.enter_async_context(aiohttp.ClientSession())
            try:
                ws = await own.ws_connect(
                    f"{service.base}/v1/encounters/{encounter}/ws", headers=admin
                )
            except aiohttp.WSServerHandshakeError as refused:
                assert refused.status == 503
                break
            assert (await receive(ws))["type"] == "encounter_created"
            sockets.append(ws)
            assert len(sockets) <= 4
        assert len(sockets) >= 3
        for path in ("/healthz", "/readyz"):
            async with aiohttp.ClientSession() as fresh:  # a new connection
                async with fresh.get(service.base + path) as health:
                    assert health.status == 200, (path, await health.text())
                    assert (await health.json())["status"] == "ok"
        # The API itself is still refused: the cap holds for everything else.
        async with aiohttp.ClientSession() as fresh:
            async with fresh.get(f"{service.base}/v1/rulesets") as refused_api:
                assert refused_api.status == 503
                assert (await refused_api.json())["type"].endswith("/too-many-connections")
        for ws in sockets:
            await ws.close()


# --- a revoked player ----------------------------------------------------------------------------


async def player_table(client: Any) -> tuple[str, dict[str, str], str]:
    """An encounter with Sam, Anna's token for him and the GM's token; the last event's id."""
    encounter, tokens = await open_table(client)
    base, gm = f"/v1/encounters/{encounter}", bearer(tokens["gm"])
    assert (await client.put(f"{base}/actors/sam", json=SAM, headers=gm)).ok
    issued = await client.post(f"{base}/players/anna", json={"actors": ["sam"]}, headers=gm)
    assert issued.status == 201, await issued.text()
    outcome = await issued.json()
    return (
        base,
        {"gm": tokens["gm"], "anna": outcome["token"], "shared": tokens["player"]},
        (outcome["event_id"]),
    )


async def gm_attack(client: Any, base: str, gm: str) -> str:
    shot = await client.post(f"{base}/attacks", json=make.attack(seed=7), headers=bearer(gm))
    assert shot.status == 201, await shot.text()
    return str((await shot.json())["event_id"])


@pytest.mark.parametrize("how", ["revoked", "replaced"])
async def test_a_revoked_players_socket_is_closed_at_once_and_gets_nothing_later(
    make_client: Any, how: str
) -> None:
    anonymous = await make_client(admin=False)
    base, tokens, last = await player_table(anonymous)
    anna = await anonymous.ws_connect(f"{base}/ws?after={last}", headers=bearer(tokens["anna"]))
    shared = await anonymous.ws_connect(f"{base}/ws?after={last}", headers=bearer(tokens["shared"]))
    first = await gm_attack(anonymous, base, tokens["gm"])
    assert (await receive(anna))["id"] == first
    assert (await receive(shared))["id"] == first
    gm = bearer(tokens["gm"])
    if how == "revoked":
        changed = await anonymous.delete(f"{base}/players/anna", headers=gm)
    else:
        changed = await anonymous.post(f"{base}/players/anna", json={}, headers=gm)
    assert changed.ok, await changed.text()
    # Nothing after the change of tokens reaches it (the change itself at most).
    seen, closed = await closing(anna)
    assert set(seen) <= {"players"}, seen
    assert closed.type == WSMsgType.CLOSE
    assert closed.data == WS_TOKEN_REVOKED
    later = await gm_attack(anonymous, base, tokens["gm"])
    # The shared players' token was not revoked: it follows on.
    assert (await receive(shared))["type"] == "players"
    assert (await receive(shared))["id"] == later
    assert anna.closed
    await shared.close()


async def test_a_revoked_players_socket_on_another_replica_is_closed_too(
    make_client: Any,
) -> None:
    first = await make_client(redis=True, admin=False)
    second = await make_client(redis=True, admin=False)
    base, tokens, last = await player_table(first)
    anna = await second.ws_connect(f"{base}/ws?after={last}", headers=bearer(tokens["anna"]))
    shot = await gm_attack(first, base, tokens["gm"])
    assert (await receive(anna))["id"] == shot
    revoked = await first.delete(f"{base}/players/anna", headers=bearer(tokens["gm"]))
    assert revoked.ok, await revoked.text()
    seen, closed = await closing(anna)
    assert set(seen) <= {"players"}, seen
    assert (closed.type, closed.data) == (WSMsgType.CLOSE, WS_TOKEN_REVOKED)
    await gm_attack(first, base, tokens["gm"])
    assert anna.closed


async def test_a_players_socket_on_another_replica_closes_when_the_encounter_ends(
    make_client: Any,
) -> None:
    # Not a bug of issue 23 (it passed before): the end, like a revocation, reaches every
    # replica's player sockets through the stream.
    first = await make_client(redis=True, admin=False)
    second = await make_client(redis=True, admin=False)
    base, tokens, last = await player_table(first)
    shared = await second.ws_connect(f"{base}/ws?after={last}", headers=bearer(tokens["shared"]))
    ended = await first.delete(base, headers=bearer(tokens["gm"]))
    assert ended.status == 204
    seen, closed = await closing(shared)
    assert seen == ["encounter_ended"]
    assert (closed.type, closed.data) == (WSMsgType.CLOSE, aiohttp.WSCloseCode.OK)

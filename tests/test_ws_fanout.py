"""The fan-out of live events: frames built once per audience and written to every socket, the
replay handing over to the live feed without loss or repeat, and a socket that fills up catching
up from its queue."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Mapping
from typing import Any

import pytest
from aiohttp import WSCloseCode, WSMsgType, web

from service.api import app as app_module
from service.api import hub as hub_module
from service.api.app import SOCKETS
from service.api.hub import text_frame
from service.api.websocket import REPLAY_PAGE
from service.config import Config
from service.store import MemoryStore
from service.store.base import Events
from tests import sr5_requests as make
from tests.test_events_live import ReplayAfterLiveStore, attack, receive
from tests.test_scene import GANGER, SAM
from tests.test_trust import bearer, open_table
from tests.test_ws_slow_clients import non_reader, served

TIMEOUT = 5


async def test_each_audience_gets_one_redaction_and_every_socket_the_same_frame(
    anonymous: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    redactions: list[bytes] = []
    redact = hub_module.for_players

    def counted(stored: bytes) -> bytes | None:
        redactions.append(stored)
        return redact(stored)

    monkeypatch.setattr(hub_module, "for_players", counted)
    encounter, tokens = await open_table(anonymous)
    base, gm = f"/v1/encounters/{encounter}", bearer(tokens["gm"])
    await anonymous.put(f"{base}/actors/sam", json=SAM, headers=gm)
    placed = await anonymous.put(f"{base}/actors/ganger", json=GANGER, headers=gm)
    after = (await placed.json())["event_id"]
    players = [
        await anonymous.ws_connect(f"{base}/ws?after={after}", headers=bearer(tokens["player"]))
        for _ in range(3)
    ]
    gms = [await anonymous.ws_connect(f"{base}/ws?after={after}", headers=gm) for _ in range(2)]
    # An event every socket has received: each is live from then on.
    warm = await anonymous.post(f"{base}/attacks", json=make.attack(seed=1), headers=gm)
    warm_id = (await warm.json())["event_id"]
    for ws in players + gms:
        assert (await receive(ws))["id"] == warm_id

    hidden_shot = make.attack(attacker=make.attacker(id="ganger"), seed=2)
    fired = await anonymous.post(f"{base}/attacks", json=hidden_shot, headers=gm)
    shot_id = (await fired.json())["event_id"]
    seen_by_players = [await ws.receive(timeout=TIMEOUT) for ws in players]
    seen_by_gms = [await ws.receive(timeout=TIMEOUT) for ws in gms]
    assert len({message.data for message in seen_by_players}) == 1
    assert len({message.data for message in seen_by_gms}) == 1
    for_players, for_gm = seen_by_players[0].json(), seen_by_gms[0].json()
    assert (for_players["id"], for_players["actor"]) == (shot_id, "someone")
    assert "request" not in for_players
    assert (for_gm["id"], for_gm["actor"]) == (shot_id, "ganger")
    # Redacted once for the three players' sockets, not once per socket.
    assert sum(b'"unseen_actor":true' in stored for stored in redactions) == 1
    for ws in players + gms:
        await ws.close()


class ReaderBehindStore(ReplayAfterLiveStore):
    """The memory store, except that the socket's replay waits until the test lets it read, and
    the live reader's next batch is held until the test lets it through: the replay can read an
    event the reader has not delivered yet."""

    def __init__(self, inner: MemoryStore) -> None:
        super().__init__(inner)
        self.held: list[str] = []
        self.reader_holds = asyncio.Event()
        self.reader_may_go = asyncio.Event()

    async def read_new(self, cursors: Mapping[str, str], timeout_s: float) -> dict[str, Events]:
        found = await self._inner.read_new(cursors, timeout_s)
        if found and not self.reader_may_go.is_set():
            self.held += [event_id for events in found.values() for event_id, _ in events]
            self.reader_holds.set()
            await self.reader_may_go.wait()
        return found


async def test_an_event_replayed_before_the_reader_delivers_it_is_sent_once(
    make_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    stores: list[ReaderBehindStore] = []

    def make_store(config: Config) -> Any:
        stores.append(ReaderBehindStore(MemoryStore()))
        return stores[-1]

    monkeypatch.setattr(app_module, "store_for", make_store)
    client = await make_client()
    (store,) = stores
    made = await client.post("/v1/encounters", json={"ruleset": "sr5"})
    encounter = (await made.json())["id"]
    ws = await client.ws_connect(f"/v1/encounters/{encounter}/ws")
    await asyncio.wait_for(store.replay_reached.wait(), TIMEOUT)
    ahead = await attack(client, encounter)
    await asyncio.wait_for(store.reader_holds.wait(), TIMEOUT)
    assert store.held == [ahead]  # the reader has it and has not delivered it
    store.replay_may_read.set()
    assert (await receive(ws))["type"] == "encounter_created"
    assert (await receive(ws))["id"] == ahead  # from the replay; the socket is live now
    store.reader_may_go.set()  # the reader delivers it to the live socket too
    later = await attack(client, encounter)
    assert (await receive(ws))["id"] == later  # not `ahead` a second time
    await ws.close()


async def _frames(raw: socket.socket, buffer: bytearray) -> list[tuple[int, bytes]]:
    """The whole frames that have arrived on a raw client socket (a server's are unmasked)."""
    loop = asyncio.get_running_loop()
    buffer += await asyncio.wait_for(loop.sock_recv(raw, 1 << 16), TIMEOUT)
    return _whole_frames(buffer)


def _whole_frames(buffer: bytearray) -> list[tuple[int, bytes]]:
    """The whole frames at the start of `buffer`, taken out of it; a frame (or its header) not
    all there yet stays, for the bytes still to come."""
    frames = []
    while len(buffer) >= 2:
        length, start = buffer[1] & 0x7F, 2
        if length in (126, 127):
            start = 4 if length == 126 else 10
            if len(buffer) < start:  # the extended length has not all arrived
                break
            length = int.from_bytes(buffer[2:start], "big")
        if len(buffer) < start + length:
            break
        frames.append((buffer[0], bytes(buffer[start : start + length])))
        del buffer[: start + length]
    return frames


@pytest.mark.parametrize("split", range(1, 10))
def test_the_raw_client_reads_a_frame_whose_header_arrives_in_pieces(split: int) -> None:
    # Stop 22's fresh-clone run read b"\x81~" alone (a text frame of 126+ bytes, its length
    # still to come) and failed on it.
    payload = b"x" * 300
    frame = bytes([0x81, 126]) + len(payload).to_bytes(2, "big") + payload
    frame += bytes([0x81, 3]) + b"end"
    buffer = bytearray(frame[:split])
    assert _whole_frames(buffer) == []
    assert buffer == frame[:split]
    buffer += frame[split:]
    assert _whole_frames(buffer) == [(0x81, payload), (0x81, b"end")]
    assert buffer == b""


async def test_a_live_socket_that_fills_up_catches_up_with_every_event_once() -> None:
    async with served(ws_send_timeout_seconds=60) as service:
        encounter = await service.encounter()
        async with non_reader(service.port, encounter) as raw:
            ((_, transport),) = service.app[SOCKETS].items()
            high = transport.get_write_buffer_limits()[1]
            posted = []
            # The client reads nothing: its buffers fill, and the service holds back.
            while transport.get_write_buffer_size() <= high:
                posted.append(await service.attack(encounter))
            # These wait in its queue while the socket is full.
            posted += [await service.attack(encounter) for _ in range(5)]
            received: list[str] = []
            buffer = bytearray()
            while len(received) < 1 + len(posted):  # it reads now: created, then every attack
                for first_byte, payload in await _frames(raw, buffer):
                    assert first_byte == 0x81, payload[:80]
                    received.append(json.loads(payload)["id"])
            assert received[1:] == posted
            # Caught up and live again.
            later = await service.attack(encounter)
            while not (frames := await _frames(raw, buffer)):
                pass
            assert [json.loads(p)["id"] for _, p in frames] == [later]


async def test_a_client_offering_compression_gets_plain_frames(client: Any) -> None:
    """Every socket of an audience is written the same prepared frames: per-message deflate,
    which needs a compressor per socket, is not agreed to."""
    made = await client.post("/v1/encounters", json={"ruleset": "sr5"})
    encounter = (await made.json())["id"]
    ws = await client.ws_connect(f"/v1/encounters/{encounter}/ws", compress=15)
    assert ws.compress == 0
    assert (await receive(ws))["type"] == "encounter_created"
    shot = await attack(client, encounter)
    assert (await receive(ws))["id"] == shot
    await ws.close()


@pytest.mark.parametrize("size", [0, 125, 126, 65535, 65536, 70000])
async def test_a_prepared_text_frame_reads_as_the_same_text(aiohttp_client: Any, size: int) -> None:
    """Each of the three length forms of RFC 6455 (7 bits, 16 bits, 64 bits), read by aiohttp's
    own client."""
    text = "é" * (size // 2) + "x" * (size % 2)  # `size` bytes of UTF-8

    async def handler(request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(compress=False)
        await ws.prepare(request)
        assert request.transport is not None
        request.transport.write(text_frame(text.encode()))
        async for _ in ws:
            pass
        return ws

    app = web.Application()
    app.router.add_get("/", handler)
    client = await aiohttp_client(app)
    ws = await client.ws_connect("/")
    message = await ws.receive(timeout=TIMEOUT)
    assert message.type == WSMsgType.TEXT
    assert message.data == text
    await ws.close()


class UnreadableEventStore:
    """The memory store, except that once told, the live reader also finds an event of one
    encounter that this version cannot read."""

    def __init__(self, inner: MemoryStore) -> None:
        self._inner = inner
        self.unreadable_in: str | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def read_new(self, cursors: Mapping[str, str], timeout_s: float) -> dict[str, Events]:
        found = await self._inner.read_new(cursors, timeout_s)
        if self.unreadable_in in found:
            found[self.unreadable_in] = [*found[self.unreadable_in], ("9999999999999-0", b"{?")]
        return found


async def test_an_unreadable_event_closes_its_encounters_sockets_and_not_the_reader(
    make_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    stores: list[UnreadableEventStore] = []

    def make_store(config: Config) -> Any:
        stores.append(UnreadableEventStore(MemoryStore()))
        return stores[-1]

    monkeypatch.setattr(app_module, "store_for", make_store)
    client = await make_client()
    (store,) = stores
    spoiled, tokens = await open_table(client)
    other = (await (await client.post("/v1/encounters", json={"ruleset": "sr5"})).json())["id"]
    player = await client.ws_connect(
        f"/v1/encounters/{spoiled}/ws", headers=bearer(tokens["player"])
    )
    watcher = await client.ws_connect(f"/v1/encounters/{other}/ws")
    created = [(await receive(ws))["id"] for ws in (player, watcher)]
    store.unreadable_in = spoiled
    shot = await attack(client, spoiled)
    # The shot came in the same batch as what cannot be read: the socket is closed 1013...
    closing = await player.receive(timeout=TIMEOUT)
    assert closing.type == WSMsgType.CLOSE
    assert closing.data == WSCloseCode.TRY_AGAIN_LATER
    later = await attack(client, other)
    assert (await receive(watcher))["id"] == later  # the reader still runs
    # ...and its client, resuming, gets the shot from the stream.
    store.unreadable_in = None
    resumed = await client.ws_connect(
        f"/v1/encounters/{spoiled}/ws?after={created[0]}", headers=bearer(tokens["player"])
    )
    assert (await receive(resumed))["id"] == shot
    for ws in (watcher, resumed):
        await ws.close()


async def test_a_replay_reads_the_stream_a_few_events_at_a_time(
    make_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 23: a socket's replay read 1000 events at once, up to 1000 x 256 KiB in memory for
    one socket. It reads REPLAY_PAGE at a time (at most REPLAY_PAGE x FIREFIGHT_MAX_EVENT_BYTES),
    and still sends every event once, in order."""
    asked: list[int] = []

    class Spied(MemoryStore):
        async def events_after(self, encounter_id: str, after: str, limit: int) -> Any:
            asked.append(limit)
            return await super().events_after(encounter_id, after, limit)

    monkeypatch.setattr(app_module, "store_for", lambda config: Spied())
    client = await make_client()
    made = await client.post("/v1/encounters", json={"ruleset": "sr5"})
    encounter = (await made.json())["id"]
    shots = [await attack(client, encounter) for _ in range(REPLAY_PAGE + 5)]
    asked.clear()
    ws = await client.ws_connect(f"/v1/encounters/{encounter}/ws")
    assert (await receive(ws))["type"] == "encounter_created"
    assert [(await receive(ws))["id"] for _ in shots] == shots
    await ws.close()
    assert asked and max(asked) == REPLAY_PAGE

"""`python -m bench.fanout`: from an attack's POST to its event on every WebSocket of one table.

One encounter, W watchers (1 GM and W - 1 players, as at a table), attacks posted at a modest
fixed rate; for every watcher and every event, the time from sending the POST to that watcher
receiving the event (matched by the POST's `event_id`). The same-run baseline is the POST's own
latency at the same rate with nobody watching. See docs/performance.md, "WebSocket fan-out".

The watchers are raw sockets that do the WebSocket handshake and then only timestamp the frames
that arrive: an aiohttp client costs tens of µs per message, which for 200 sockets on a 2-core
machine would be the client's latency, not the service's. For the same reason a frame's arrival
is the time the client's kernel received it (SO_TIMESTAMPNS), not the later moment the client
got round to it after the other sockets that became readable with it.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import datetime
import gc
import json
import os
import platform
import socket
import struct
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import msgspec
import redis.asyncio as aioredis
from redis.exceptions import RedisError

from bench.__main__ import _revision, _table
from bench.closed_loop import DEFAULT_REDIS_URL, RedisCounters
from bench.load import attack_body, percentile, reset_body
from bench.server import LOOPBACK
from bench.servers import (
    BENCH_ADMIN_KEY,
    RunningServer,
    ServerFailed,
    ServerSpec,
    cancel_on_sigterm,
    loopback_or_exit,
    start_server,
)
from bench.targets import Target, report

DEFAULT_RATE = 20.0
DEFAULT_SECONDS = 10.0
DEFAULT_WARMUP = 1.0
DEFAULT_WATCHERS = (50, 200)
# Issue 28: "at 200 watchers the p99 from POST to receipt within 1.5x the POST's own p99 at the
# same rate" (Redis store, one replica); the POST's own is the phase with nobody watching.
TARGET_WATCHERS = 200
RECEIPT_VS_POST = 1.5
# The floor's line is information (bench/suite.py's NOT_TARGETS), printed beside the target.
FLOOR_MARKER = "floor"
# Every few attacks come from a hidden shooter: the players' sockets get it redacted ("someone"),
# the GM's whole, so both audiences' wire forms are built.
HIDDEN_EVERY = 4
# Each shooter's recoil is reset after this many shots (bench.load's reason: RC 30 compensates
# 32 shots, so every attack rolls its full pool and the events keep their size).
SHOTS_BEFORE_RESET = 32
REQUEST_TIMEOUT_S = 10.0
# After the last POST, how long the watchers get to receive its event.
DRAIN_TIMEOUT_S = 10.0
STORES = {
    "redis": "firefight, Redis store",
    "memory": "firefight, embedded in-memory store",
    # Run beside the Redis store: bench/fanout_floor.py, what the machine itself costs.
    "floor": "the floor: bare aiohttp, one Redis INCR, one frame written to every socket",
}
HIDDEN_SHOOTER = {"name": "Ganger", "hidden": True, "position": {"x": 12.0, "y": 3.0}}
_ID_PREFIX = b'{"id":"'


class _Answer(msgspec.Struct):
    event_id: str


_decode_answer = msgspec.json.Decoder(_Answer).decode


# Linux's SO_TIMESTAMPNS (asm-generic/socket.h): each recvmsg then carries the time the kernel
# received the data it returns (CLOCK_REALTIME), however long the client took to get to it.
SO_TIMESTAMPNS = 35
_TIMESPEC = struct.Struct("qq")


class RawWatcher:
    """A WebSocket client that does the handshake and then records (event id, arrival) of every
    text frame, the arrival (ns, CLOCK_REALTIME) as the kernel stamped it: the least a client can
    do, and what is measured is the server."""

    def __init__(self, sock: socket.socket, stamped: bool) -> None:
        self._sock = sock
        self.stamped = stamped
        self._buffer = bytearray()
        self._upgraded = False
        self.opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.arrivals: list[tuple[str, int]] = []
        self.lost = False
        self.close_code: int | None = None
        self.problem: str | None = None
        self.seen = asyncio.Event()

    @classmethod
    async def open(cls, port: int, path: str) -> RawWatcher:
        loop = asyncio.get_running_loop()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        try:
            sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
            stamped = True
        except OSError:  # not Linux: the arrival is when the client read it
            stamped = False
        watcher = cls(sock, stamped)
        try:
            await loop.sock_connect(sock, (LOOPBACK, port))
            await loop.sock_sendall(
                sock,
                (
                    f"GET {path} HTTP/1.1\r\nHost: {LOOPBACK}:{port}\r\nUpgrade: websocket\r\n"
                    "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                    f"Sec-WebSocket-Key: {base64.b64encode(os.urandom(16)).decode()}\r\n\r\n"
                ).encode(),
            )
            loop.add_reader(sock.fileno(), watcher._readable)
            await asyncio.wait_for(watcher.opened, REQUEST_TIMEOUT_S)
        except BaseException:
            watcher.close()
            raise
        return watcher

    def _readable(self) -> None:
        try:
            data, ancillary, _, _ = self._sock.recvmsg(1 << 18, socket.CMSG_SPACE(16))
        except (BlockingIOError, InterruptedError):
            return
        except OSError as error:
            self._fail(f"{type(error).__name__}: {error}")
            return
        if not data:
            self._fail("closed by the server" if self._upgraded else "closed in the handshake")
            return
        arrived = time.time_ns()
        for level, kind, stamp in ancillary:
            if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                seconds, nanoseconds = _TIMESPEC.unpack_from(stamp)
                arrived = seconds * 1_000_000_000 + nanoseconds
        self._buffer += data
        if not self._upgraded:
            end = self._buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(self._buffer[:end])
            del self._buffer[: end + 4]
            if not head.startswith(b"HTTP/1.1 101 "):
                self._fail(f"handshake answered {head[:200]!r}")
                return
            self._upgraded = True
            self.opened.set_result(None)
        self._frames(arrived)

    def _frames(self, arrived: int) -> None:
        buffer = self._buffer
        while len(buffer) >= 2:
            opcode, length = buffer[0] & 0x0F, buffer[1] & 0x7F
            start = 2
            if length == 126:
                if len(buffer) < 4:
                    return
                length, start = struct.unpack_from("!H", buffer, 2)[0], 4
            elif length == 127:
                if len(buffer) < 10:
                    return
                length, start = struct.unpack_from("!Q", buffer, 2)[0], 10
            if len(buffer) < start + length:
                return
            payload = bytes(buffer[start : start + length])
            del buffer[: start + length]
            if opcode == 0x1 and payload.startswith(_ID_PREFIX):
                end = payload.index(b'"', len(_ID_PREFIX))
                self.arrivals.append((payload[len(_ID_PREFIX) : end].decode(), arrived))
                self.seen.set()
            elif opcode == 0x9:  # ping: a client answers with a masked pong
                self._send(0xA, payload)
            elif opcode == 0x8:
                self.close_code = struct.unpack_from("!H", payload)[0] if payload else None
                self.close()
                return
            elif opcode != 0xA:
                self._fail(f"unexpected frame, opcode {opcode}")
                return

    def _send(self, opcode: int, payload: bytes) -> None:
        if self.lost:
            return
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        # A control frame the server will not miss if it fails: it is closing or gone.
        with contextlib.suppress(OSError):
            self._sock.send(bytes([0x80 | opcode, 0x80 | len(payload)]) + mask + masked)

    def _fail(self, problem: str) -> None:
        if not self.lost:
            self.problem = problem
        if not self.opened.done():
            self.opened.set_exception(ServerFailed(problem))
        self.close()

    def close(self) -> None:
        """Says goodbye (1000) and lets go of the connection at once."""
        if self.lost:
            return
        if self._upgraded:
            self._send(0x8, struct.pack("!H", 1000))
        self.lost = True
        self.seen.set()
        asyncio.get_running_loop().remove_reader(self._sock.fileno())
        self._sock.close()


@dataclass
class Posted:
    sent: float
    # The same moment on the clock the kernel stamps arrivals with (CLOCK_REALTIME).
    sent_ns: int = 0
    answered: float = 0.0
    event_id: str | None = None
    status: int = 0
    gm_only: bool = False


@dataclass
class Phase:
    """One measured phase: W watchers (0: the POST alone) at the store's server."""

    watchers: int
    posted: list[Posted] = field(default_factory=list)
    receipt_s: list[float] = field(default_factory=list)
    gm_receipt_s: list[float] = field(default_factory=list)
    missing: int = 0
    doubled: int = 0
    problems: list[str] = field(default_factory=list)
    server_cpu_s: float | None = None
    client_cpu_s: float = 0.0
    # Watchers whose arrivals are when the client read them (no kernel time stamps).
    unstamped: int = 0

    @property
    def post_s(self) -> list[float]:
        return sorted(p.answered - p.sent for p in self.posted if p.event_id is not None)

    @property
    def errors(self) -> int:
        return sum(1 for p in self.posted if p.event_id is None)


class Table:
    """One encounter as a table plays it: a visible shooter and a hidden one taking turns."""

    def __init__(self, session: aiohttp.ClientSession, base_url: str, encounter_id: str) -> None:
        self._session = session
        self._base = f"{base_url}/v1/encounters/{encounter_id}"
        self._posts = 0

    def next_request(self) -> tuple[str, bytes, bool]:
        """The next POST, and whether its event is the GM's alone: attacks, then both
        shooters' recoil reset (the hidden one's reset is news for the GM only)."""
        n = self._posts
        self._posts += 1
        cycle = n % (SHOTS_BEFORE_RESET + 2)
        if cycle >= SHOTS_BEFORE_RESET:
            hidden = cycle > SHOTS_BEFORE_RESET
            return f"{self._base}/actions", reset_body("ganger" if hidden else "sam"), hidden
        shooter = "ganger" if cycle % HIDDEN_EVERY == HIDDEN_EVERY - 1 else "sam"
        return f"{self._base}/attacks", attack_body(shooter, n), False

    async def post(self, posted: Posted) -> None:
        url, body, posted.gm_only = self.next_request()
        posted.sent, posted.sent_ns = time.perf_counter(), time.time_ns()
        try:
            async with self._session.post(
                url, data=body, headers={"Content-Type": "application/json"}
            ) as response:
                payload = await response.read()
                posted.status = response.status
        except (aiohttp.ClientError, TimeoutError):
            posted.answered = time.perf_counter()
            return
        posted.answered = time.perf_counter()
        if 200 <= posted.status < 300:
            posted.event_id = _decode_answer(payload).event_id


async def _post_at_rate(table: Table, rate: float, seconds: float) -> list[Posted]:
    """Open loop: POST n is sent at start + n / rate whatever came back so far."""
    posted: list[Posted] = []
    tasks: set[asyncio.Task[None]] = set()
    start = time.perf_counter() + 0.05
    for n in range(round(rate * seconds)):
        delay = start + n / rate - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        posted.append(Posted(0.0))
        task = asyncio.create_task(table.post(posted[-1]))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
    if tasks:
        await asyncio.wait(set(tasks), timeout=REQUEST_TIMEOUT_S + 2)
    return posted


async def _new_table(
    session: aiohttp.ClientSession, server: RunningServer, ids: list[str]
) -> tuple[str, str, str]:
    """(encounter id, the players' token, the id of its last event) for a new encounter with a
    hidden shooter in its scene."""
    async with session.post(
        f"{server.base_url}/v1/encounters", json={"ruleset": "sr5", "name": "fanout"}
    ) as response:
        created: dict[str, Any] = json.loads(await response.read())
        if response.status != 201:
            raise ServerFailed(f"creating an encounter answered {response.status}: {created}")
    encounter_id = str(created["id"])
    ids.append(encounter_id)
    url = f"{server.base_url}/v1/encounters/{encounter_id}/actors/ganger"
    async with session.put(url, json=HIDDEN_SHOOTER) as response:
        placed: dict[str, Any] = json.loads(await response.read())
        if response.status != 200:
            raise ServerFailed(f"placing the hidden shooter answered {response.status}: {placed}")
    return encounter_id, str(created["tokens"]["player"]), str(placed["event_id"])


async def _open_watchers(
    server: RunningServer,
    encounter_id: str,
    player_token: str,
    after: str,
    count: int,
) -> list[RawWatcher]:
    watchers: list[RawWatcher] = []
    try:
        for w in range(count):
            token = BENCH_ADMIN_KEY if w == 0 else player_token  # 1 GM, the rest players
            path = f"/v1/encounters/{encounter_id}/ws?token={token}&after={after}"
            watchers.append(await RawWatcher.open(server.port, path))
    except BaseException:
        for watcher in watchers:
            watcher.close()
        raise
    return watchers


async def _all_received(watchers: list[RawWatcher], event_id: str) -> bool:
    """Waits (on each watcher's arrivals) until every watcher has `event_id`, or the drain
    timeout passes."""
    deadline = time.monotonic() + DRAIN_TIMEOUT_S
    for watcher in watchers:
        while not any(e == event_id for e, _ in watcher.arrivals[-8:]):
            if watcher.lost or time.monotonic() > deadline:
                return False
            watcher.seen.clear()
            try:
                await asyncio.wait_for(watcher.seen.wait(), deadline - time.monotonic())
            except TimeoutError:
                return False
    return True


async def _phase(
    session: aiohttp.ClientSession,
    server: RunningServer,
    args: argparse.Namespace,
    watcher_count: int,
    ids: list[str],
) -> Phase:
    phase = Phase(watcher_count)
    encounter_id, player_token, after = await _new_table(session, server, ids)
    table = Table(session, server.base_url, encounter_id)
    watchers = await _open_watchers(server, encounter_id, player_token, after, watcher_count)
    try:
        # Warm-up at the same rate: the hub's reader is following the stream, every socket has
        # replayed what it missed and is live, both processes' code paths are warm.
        warm = await _post_at_rate(table, args.rate, args.warmup)
        last_warm = next((p.event_id for p in reversed(warm) if p.event_id), None)
        if watchers and last_warm is not None and not await _all_received(watchers, last_warm):
            phase.problems.append("the warm-up's last event did not reach every watcher")
        cpu_before, client_before = server.cpu_seconds(), time.process_time()
        gc.collect()
        gc.freeze()  # the client's own full collections would show up as the server's latency
        try:
            phase.posted = await _post_at_rate(table, args.rate, args.seconds)
        finally:
            gc.unfreeze()
        last = next((p.event_id for p in reversed(phase.posted) if p.event_id), None)
        if watchers and last is not None and not await _all_received(watchers, last):
            phase.problems.append(f"not every watcher got the last event {DRAIN_TIMEOUT_S:g} s on")
        cpu_after = server.cpu_seconds()
        phase.client_cpu_s = time.process_time() - client_before
        if cpu_before is not None and cpu_after is not None:
            phase.server_cpu_s = cpu_after - cpu_before
    finally:
        for watcher in watchers:
            watcher.close()
    sent = {p.event_id: p.sent_ns for p in phase.posted if p.event_id is not None}
    players_see = {p.event_id for p in phase.posted if p.event_id is not None and not p.gm_only}
    for w, watcher in enumerate(watchers):
        got: set[str] = set()
        for event_id, arrived in watcher.arrivals:
            posted_at = sent.get(event_id)
            if posted_at is None:
                continue  # the warm-up's, or a POST that failed on the client's side
            if event_id in got:
                phase.doubled += 1
                continue
            got.add(event_id)
            phase.receipt_s.append((arrived - posted_at) / 1e9)
            if w == 0:
                phase.gm_receipt_s.append((arrived - posted_at) / 1e9)
        phase.missing += len((set(sent) if w == 0 else players_see) - got)
        if watcher.problem:
            phase.problems.append(f"watcher {w}: {watcher.problem}")
        if not watcher.stamped:
            phase.unstamped += 1
    phase.receipt_s.sort()
    phase.gm_receipt_s.sort()
    return phase


async def _measure(
    spec: ServerSpec,
    args: argparse.Namespace,
    log_dir: Path,
    client: aioredis.Redis | None,
) -> list[Phase]:
    server = await start_server(spec, log_dir, args.profile)
    ids: list[str] = []
    admin = {"Authorization": f"Bearer {BENCH_ADMIN_KEY}"}
    timeout = aiohttp.ClientTimeout(total=REQUEST_TIMEOUT_S)
    phases = []
    try:
        async with aiohttp.ClientSession(timeout=timeout, headers=admin) as session:
            for count in [0, *args.watchers]:
                phases.append(await _phase(session, server, args, count, ids))
            for encounter_id in ids:
                async with session.delete(f"{server.base_url}/v1/encounters/{encounter_id}"):
                    pass
        if not server.alive():
            phases[-1].problems.append(f"the server died:\n{server.log_tail()}")
    finally:
        if client is not None and spec.redis_url and ids:
            await RedisCounters(client).forget(ids)
        server.stop()
    return phases


def _ms(values: list[float], p: float) -> float:
    return percentile(values, p) * 1000


def _rows(store: str, phases: list[Phase]) -> list[list[str]]:
    rows = []
    for phase in phases:
        samples = phase.receipt_s if phase.watchers else phase.post_s
        cpu = (
            f"{phase.server_cpu_s / len(phase.posted) * 1e6:.0f}"
            if phase.server_cpu_s is not None and phase.posted
            else "-"
        )
        rows.append(
            [
                store,
                str(phase.watchers) if phase.watchers else "none (POST alone)",
                str(len(samples)),
                f"{_ms(samples, 50):.2f}",
                f"{_ms(samples, 99):.2f}",
                f"{samples[-1] * 1000:.2f}" if samples else "-",
                f"{_ms(phase.gm_receipt_s, 99):.2f}" if phase.watchers else "-",
                f"{_ms(phase.post_s, 99):.2f}",
                cpu,
                f"{phase.client_cpu_s / len(phase.posted) * 1e6:.0f}" if phase.posted else "-",
                f"{phase.missing} / {phase.doubled} / {phase.errors}",
            ]
        )
    return rows


def _targets(results: dict[str, list[Phase]]) -> list[Target]:
    """Issue 28's live push: the receipt's p99 at 200 watchers over the POST's own p99 at the
    same rate with nobody watching, same server, same run (the absolute figures are the
    table's)."""
    targets = []
    for store, phases in results.items():
        if store not in ("redis", "floor"):
            continue  # the mark is for the Redis store, one replica; the floor is beside it
        alone = next((p for p in phases if p.watchers == 0), None)
        if alone is None or not alone.post_s:
            continue
        post_p99 = _ms(alone.post_s, 99)
        for phase in phases:
            if phase.watchers != TARGET_WATCHERS or not phase.receipt_s:
                continue
            receipt_p99 = _ms(phase.receipt_s, 99)
            name = (
                "fan-out" if store == "redis" else f"fan-out {FLOOR_MARKER} (bench/fanout_floor.py)"
            )
            targets.append(
                Target(
                    f"{name} POST to receipt p99 / the POST's own p99, {phase.watchers} "
                    f"watchers ({store})",
                    receipt_p99 / post_p99,
                    RECEIPT_VS_POST,
                    "at_most",
                    against=f"receipt p99 {receipt_p99:.2f} ms, the POST alone at the same "
                    f"rate p99 {post_p99:.2f} ms ({len(alone.post_s)} POSTs), same run",
                )
            )
    return targets


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.fanout",
        description=__doc__.splitlines()[0] if __doc__ else None,
    )
    parser.add_argument("--rate", type=float, default=DEFAULT_RATE, help="POSTs per second")
    parser.add_argument("--seconds", type=float, default=DEFAULT_SECONDS, help="measured, per W")
    parser.add_argument("--warmup", type=float, default=DEFAULT_WARMUP, help="at the same rate")
    parser.add_argument(
        "--watchers",
        type=int,
        action="append",
        default=None,
        help="sockets on the table (repeatable; default 50 and 200)",
    )
    parser.add_argument("--store", choices=["redis", "memory", "both"], default="both")
    parser.add_argument(
        "--redis-url",
        default=os.environ.get("FIREFIGHT_TEST_REDIS_URL", DEFAULT_REDIS_URL),
        help="the Redis of the redis store (loopback only)",
    )
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    parser.add_argument(
        "--profile", type=Path, default=None, help="write each server's cProfile stats here"
    )
    args = parser.parse_args(argv)
    args.watchers = args.watchers or list(DEFAULT_WATCHERS)
    if not 0 < args.rate <= 200:
        parser.error("--rate must be in (0, 200]: a table's pace, not a load test")
    if not 0 < args.seconds <= 600 or not 0 <= args.warmup <= 60:
        parser.error("--seconds must be in (0, 600] and --warmup in [0, 60]")
    if not all(1 <= w <= 900 for w in args.watchers):
        parser.error("--watchers must be in [1, 900] (the service holds 1000 connections)")
    loopback_or_exit(parser, args.redis_url)
    return args


async def _run(args: argparse.Namespace) -> int:
    cancel_on_sigterm()
    stores = ["redis", "memory"] if args.store == "both" else [args.store]
    if "redis" in stores:
        stores.append("floor")
    client: aioredis.Redis | None = None
    if "redis" in stores:
        client = aioredis.Redis.from_url(args.redis_url, socket_connect_timeout=2)
        try:
            await client.ping()
        except (RedisError, OSError) as error:
            await client.aclose()
            print(f"bench.fanout: no Redis at {args.redis_url} ({error})", file=sys.stderr)
            return 2
    print(
        f"bench.fanout: {args.rate:g} POSTs/s for {args.seconds:g} s (+{args.warmup:g} s warm-up) "
        f"per phase, watchers {', '.join(map(str, args.watchers))} on one encounter (1 GM, the "
        f"rest players; 1 attack in {HIDDEN_EVERY} by a hidden shooter); {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}, commit {_revision()}",
        flush=True,
    )
    results: dict[str, list[Phase]] = {}
    try:
        with tempfile.TemporaryDirectory(prefix="firefight-fanout-") as log_dir:
            for store in stores:
                spec = ServerSpec(
                    store,
                    "fanout-floor" if store == "floor" else "firefight",
                    args.redis_url if store in ("redis", "floor") else None,
                    STORES[store],
                    # Every player watcher follows on the one shared players' token, past the
                    # per-token cap a table needs (docs/operations.md).
                    env=(("FIREFIGHT_MAX_SOCKETS_PER_TOKEN", str(max([1, *args.watchers]))),),
                )
                print(f"bench.fanout: {store} ({spec.description}) ...", flush=True)
                results[store] = await _measure(spec, args, Path(log_dir), client)
    finally:
        if client is not None:
            await client.aclose()
    header = [
        "store",
        "watchers",
        "samples",
        "p50 ms",
        "p99 ms",
        "max ms",
        "GM p99 ms",
        "POST p99 ms",
        "server µs/POST",
        "client µs/POST",
        "lost / twice / failed POSTs",
    ]
    rows = [row for store, phases in results.items() for row in _rows(store, phases)]
    print(
        "\nPOST to receipt on every socket (samples: watchers x events; with no watchers, the "
        "POST's own latency):"
    )
    print(_table(header, rows, args.markdown))
    problems = [
        f"{s}, {p.watchers} watchers: {m}"
        for s, ps in results.items()
        for p in ps
        for m in p.problems
    ]
    lost = sum(p.missing + p.doubled + p.errors for ps in results.values() for p in ps)
    if any(p.unstamped for ps in results.values() for p in ps):
        print("(no kernel time stamps here: arrivals are when the client read them)")
    report(_targets(results))
    if args.json is not None:
        figures = {
            "date": datetime.date.today().isoformat(),
            "revision": _revision(),
            "settings": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
            "rows": [dict(zip(header, row, strict=True)) for row in rows],
        }
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    if problems or lost:
        print(
            f"\nbench.fanout: {lost} events lost or received twice, or POSTs failed",
            file=sys.stderr,
        )
        for problem in problems[:20]:
            print(f"  {problem}", file=sys.stderr)
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    try:
        return asyncio.run(_run(args))
    except (ServerFailed, aiohttp.ClientError) as error:
        print(f"bench.fanout: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    except (KeyboardInterrupt, asyncio.CancelledError):
        print("bench.fanout: interrupted; server stopped, its Redis keys removed", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())

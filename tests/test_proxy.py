"""The load balancer of docker-compose.yml (deploy/haproxy.cfg), run for real on loopback.

HAProxy checks the shipped file, then runs that very file in front of two replicas of the service
on the real Redis. The file's environment settings (docs in its header) point it at loopback and
check the replicas more often: the replicas listen on 127.0.0.2 and 127.0.0.3 on one port, and a
small DNS server of the test's own answers the replicas' name with both addresses, as Docker's
DNS answers the `firefight` service with one address per replica. So discovery (`resolvers`,
`server-template`), the /readyz health checks, leastconn and the WebSocket tunnel all run as they
would in compose.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import shutil
import socket
import struct
import subprocess
import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import pytest

from tests import sr5_requests as make
from tests.redis_server import OwnRedis
from tests.service_process import (
    ADMIN_KEY,
    ServiceProcess,
    Services,
    free_port,
    running_services,
    wait_answer,
    wait_until,
)

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "deploy" / "haproxy.cfg"
IN_CI = os.environ.get("CI") == "true"
REPLICA_HOSTS = ("127.0.0.2", "127.0.0.3")
UPSTREAM_NAME = "firefight.test"
ADMIN = {"Authorization": f"Bearer {ADMIN_KEY}"}
# The shipped file checks every 2 s; here every half second (FIREFIGHT_PROXY_CHECK_INTERVAL), so
# a replica is out after two failed checks in about a second, and back after two good ones. Each
# check may take that half second too: a loopback /readyz answers in milliseconds, and it takes
# two late answers in a row to take a healthy replica out.
CHECK_INTERVAL = "500ms"
# The deadline for a replica to go out or come back in: many times the 1 s it takes.
CHECK_SECONDS = 20.0


@pytest.fixture(scope="module")
def haproxy() -> str:
    binary = shutil.which("haproxy")
    if binary is None:
        message = (
            "haproxy is not installed (scripts/ensure-haproxy installs it; `make test` runs it)"
        )
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    return binary


def test_haproxy_accepts_the_shipped_config(haproxy: str) -> None:
    # As the image runs it: none of the file's environment settings set, the compose defaults.
    env = {k: v for k, v in os.environ.items() if not k.startswith("FIREFIGHT_")}
    check = subprocess.run(
        [haproxy, "-c", "-f", str(CONFIG)], capture_output=True, text=True, timeout=30, env=env
    )
    assert check.returncode == 0, check.stdout + check.stderr
    assert "Configuration file is valid" in check.stdout + check.stderr


def test_haproxy_check_refuses_a_broken_config(haproxy: str, tmp_path: Path) -> None:
    """The check above can fail: the same file with one unknown keyword is refused."""
    broken = tmp_path / "haproxy.cfg"
    broken.write_text(CONFIG.read_text().replace("balance leastconn", "balance fewest"))
    check = subprocess.run(
        [haproxy, "-c", "-f", str(broken)], capture_output=True, text=True, timeout=30
    )
    assert check.returncode != 0, check.stdout + check.stderr


# --- a DNS server that names the replicas, as Docker's does ---------------------------------


class ReplicaDns:
    """Answers A queries for one name with the given addresses; other names do not exist."""

    def __init__(self, name: str, addresses: list[str]) -> None:
        self.name = name.lower().rstrip(".")
        self.addresses = addresses
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.socket.bind(("127.0.0.1", 0))
        self.socket.settimeout(0.1)
        self.port = int(self.socket.getsockname()[1])
        self.queries = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def __enter__(self) -> ReplicaDns:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.socket.close()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                query, client = self.socket.recvfrom(4096)
            except TimeoutError:
                continue
            answer = self.answer(query)
            if answer is not None:
                self.queries += 1
                self.socket.sendto(answer, client)

    def answer(self, query: bytes) -> bytes | None:
        if len(query) < 12:
            return None
        ident, flags, questions = struct.unpack("!HHH", query[:6])
        if questions != 1:
            return None
        labels, at = [], 12
        while at < len(query) and query[at] != 0:
            length = query[at]
            labels.append(query[at + 1 : at + 1 + length].decode("ascii", "replace"))
            at += 1 + length
        at += 1
        qtype, _qclass = struct.unpack("!HH", query[at : at + 4])
        question = query[12 : at + 4]
        known = ".".join(labels).lower() == self.name
        records = b""
        count = 0
        if known and qtype == 1:  # A
            for address in self.addresses:
                # A pointer to the name in the question, type A, class IN, TTL 1 s, 4 bytes.
                records += struct.pack("!HHHIH", 0xC00C, 1, 1, 1, 4) + socket.inet_aton(address)
                count += 1
        rcode = 0 if known else 3  # NXDOMAIN
        reply_flags = 0x8000 | 0x0400 | (flags & 0x0100) | 0x0080 | rcode  # QR AA RD RA
        return struct.pack("!HHHHHH", ident, reply_flags, 1, count, 0, 0) + question + records


def test_the_test_dns_answers_like_a_resolver() -> None:
    """What haproxy is given: every replica's address for the name."""
    with ReplicaDns(UPSTREAM_NAME, list(REPLICA_HOSTS)) as dns:
        name = b"".join(bytes([len(p)]) + p.encode() for p in UPSTREAM_NAME.split(".")) + b"\0"
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as client:
            client.settimeout(5)
            client.sendto(
                struct.pack("!HHHHHH", 7, 0x0100, 1, 0, 0, 0) + name + b"\0\1\0\1",
                ("127.0.0.1", dns.port),
            )
            reply = client.recv(512)
    ident, flags, _, count = struct.unpack("!HHHH", reply[:8])
    assert (ident, flags & 0x800F, count) == (7, 0x8000, 2)
    found = [
        str(ipaddress.IPv4Address(reply[i : i + 4])) for i in (len(reply) - 20, len(reply) - 4)
    ]
    assert found == list(REPLICA_HOSTS)


# --- haproxy in front of two replicas --------------------------------------------------------


@dataclass
class Proxy:
    process: subprocess.Popen[bytes]
    port: int
    log: Path

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")

    def log_since(self, offset: int) -> str:
        """What haproxy logged after `offset` characters (a replica's first checks, before it
        listened, may have marked it down once already)."""
        return self.log_text()[offset:]


@dataclass
class Stack:
    proxy: Proxy
    replicas: dict[str, ServiceProcess]
    services: Services

    def served_by(self, request_id: str) -> list[str]:
        return [name for name, r in self.replicas.items() if r.served(request_id)]

    def state(self) -> str:
        parts = [f"haproxy:\n{self.proxy.log_text()[-3000:]}"]
        parts += [f"{name}:\n{r.log_text()[-1500:]}" for name, r in self.replicas.items()]
        return "\n".join(parts)


@pytest.fixture
def services(tmp_path: Path) -> Iterator[Services]:
    yield from running_services(tmp_path)


@contextlib.contextmanager
def running_proxy(
    haproxy: str, directory: Path, upstream_port: int, dns: ReplicaDns
) -> Iterator[Proxy]:
    """haproxy on the shipped file, in the foreground, stopped when the block ends."""
    port = free_port("127.0.0.1")
    env = {k: v for k, v in os.environ.items() if not k.startswith("FIREFIGHT_")}
    env.update(
        FIREFIGHT_PROXY_BIND=f"127.0.0.1:{port}",
        # The TLS proxy's port of its own (never published): a free loopback one here, so the
        # test never binds 8081 on every interface.
        FIREFIGHT_PROXY_TLS_BIND=f"127.0.0.1:{free_port('127.0.0.1')}",
        FIREFIGHT_PROXY_UPSTREAM=f"{UPSTREAM_NAME}:{upstream_port}",
        FIREFIGHT_PROXY_DNS=f"127.0.0.1:{dns.port}",
        FIREFIGHT_PROXY_CHECK_INTERVAL=CHECK_INTERVAL,
    )
    log = directory / "haproxy.log"
    with log.open("wb") as sink:
        # -db: stay in the foreground, so the test owns the process and can stop it.
        process = subprocess.Popen(
            [haproxy, "-db", "-f", str(CONFIG)],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    try:
        yield Proxy(process, port, log)
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)


async def request_id_get(http: aiohttp.ClientSession, url: str) -> tuple[str, int]:
    request_id = uuid.uuid4().hex
    async with http.get(url, headers={"X-Request-Id": request_id}) as response:
        await response.read()
        return request_id, response.status


async def wait_logged(stack: Stack, request_id: str) -> list[str]:
    """The replicas that logged `request_id` (the line is written just after the answer)."""

    async def logged() -> bool:
        return bool(stack.served_by(request_id))

    await wait_until(logged, 10, lambda: f"no replica logged {request_id}\n{stack.state()}")
    return stack.served_by(request_id)


async def wait_both_serve(http: aiohttp.ClientSession, stack: Stack, path: str) -> None:
    """Requests through the proxy until each replica has served one (DNS and checks settle)."""
    served: set[str] = set()

    async def both() -> bool:
        request_id, status = await request_id_get(http, stack.proxy.base + path)
        if status == 200:
            served.update(await wait_logged(stack, request_id))
        return served == set(stack.replicas)

    await wait_until(both, CHECK_SECONDS, lambda: f"served by {served} only\n{stack.state()}")


StackFactory = Callable[..., Stack]


@pytest.fixture
def stack_factory(
    haproxy: str, services: Services, tmp_path: Path, redis_url: str
) -> Iterator[StackFactory]:
    """Builds haproxy in front of replicas a and b (b may get a Redis URL of its own)."""
    with contextlib.ExitStack() as cleanup:
        dns = cleanup.enter_context(ReplicaDns(UPSTREAM_NAME, list(REPLICA_HOSTS)))

        def build(b_redis_url: str | None = None) -> Stack:
            port = free_port(*REPLICA_HOSTS)
            replicas = {
                "a": services.start(
                    "a", {"FIREFIGHT_REDIS_URL": redis_url}, REPLICA_HOSTS[0], port
                ),
                "b": services.start(
                    "b", {"FIREFIGHT_REDIS_URL": b_redis_url or redis_url}, REPLICA_HOSTS[1], port
                ),
            }
            proxy = cleanup.enter_context(running_proxy(haproxy, tmp_path, port, dns))
            return Stack(proxy, replicas, services)

        yield build


async def ready(stack: Stack, http: aiohttp.ClientSession) -> None:
    for replica in stack.replicas.values():
        await wait_answer(http, replica, "/readyz", 200)
    await wait_both_serve(http, stack, "/readyz")


async def test_requests_reach_both_replicas_and_a_websocket_gets_events_posted_to_either(
    stack_factory: StackFactory,
) -> None:
    stack: Stack = stack_factory()
    async with aiohttp.ClientSession(headers=ADMIN) as http:
        await ready(stack, http)
        base = stack.proxy.base
        created = await http.post(f"{base}/v1/encounters", json={"ruleset": "sr5"})
        assert created.status == 201, await created.text()
        encounter = (await created.json())["id"]
        url = f"{base}/v1/encounters/{encounter}"

        # Reads of the new encounter, through the proxy, from both replicas (one Redis).
        served: set[str] = set()
        for _ in range(20):
            request_id, status = await request_id_get(http, url)
            assert status == 200, stack.state()
            served.update(await wait_logged(stack, request_id))
            if served == set(stack.replicas):
                break
        assert served == set(stack.replicas), f"only {served} served\n{stack.state()}"

        # A WebSocket through the proxy: an upgraded tunnel to one replica, which leastconn then
        # counts, so the attacks posted next go to the other one. The socket must receive each
        # event posted on the other replica (they meet only in Redis).
        socket_id = uuid.uuid4().hex
        ws = await http.ws_connect(f"{url}/ws", heartbeat=None, headers={"X-Request-Id": socket_id})
        try:
            first = await ws.receive_json(timeout=10)
            assert first["type"] == "encounter_created", first
            posted: list[str] = []
            posted_on: list[str] = []
            for _ in range(3):
                request_id = uuid.uuid4().hex
                async with http.post(
                    f"{url}/attacks", json=make.attack(), headers={"X-Request-Id": request_id}
                ) as attacked:
                    assert attacked.status == 201, await attacked.text()
                    posted.append((await attacked.json())["event_id"])
                posted_on += await wait_logged(stack, request_id)
            received = [(await ws.receive_json(timeout=10))["id"] for _ in posted]
            assert received == posted
        finally:
            await ws.close()
        # The socket's own line is logged when it closes.
        [socket_on] = await wait_logged(stack, socket_id)
        assert socket_on not in posted_on, f"socket on {socket_on}, posts on {posted_on}"

    # The proxy logged each request (the upgrade as a 101). haproxy writes a tunnel's line when
    # both of its sides have closed, which may be after the replica logged the socket's own
    # (seen once in a full run: the log had every request but the 101).
    async def upgrade_logged() -> bool:
        return any(
            " 101 " in line and "/ws" in line for line in stack.proxy.log_text().splitlines()
        )

    await wait_until(upgrade_logged, 10, lambda: stack.proxy.log_text()[-3000:])


async def test_a_replica_whose_readyz_fails_is_taken_out_and_comes_back(
    stack_factory: StackFactory, tmp_path: Path
) -> None:
    """Replica b's own Redis stops: its /readyz answers 503, the health check takes it out, and
    every request goes to a; when its Redis is back, b is checked in again and serves."""
    own = OwnRedis(tmp_path / "b-redis")
    (tmp_path / "b-redis").mkdir()
    own.start()
    try:
        stack: Stack = stack_factory(b_redis_url=own.url)
        async with aiohttp.ClientSession(headers=ADMIN) as http:
            await ready(stack, http)
            before = len(stack.proxy.log_text())
            own.stop()
            await wait_answer(http, stack.replicas["b"], "/readyz", 503)

            async def taken_out() -> bool:
                return "is DOWN" in stack.proxy.log_since(before)

            await wait_until(taken_out, CHECK_SECONDS, stack.state)
            down = next(ln for ln in stack.proxy.log_since(before).splitlines() if "is DOWN" in ln)
            assert "503" in down, down  # the HTTP check on /readyz, not a refused connection

            # Every request now goes to a, and succeeds (creating needs the store).
            for _ in range(10):
                request_id = uuid.uuid4().hex
                async with http.post(
                    f"{stack.proxy.base}/v1/encounters",
                    json={"ruleset": "sr5"},
                    headers={"X-Request-Id": request_id},
                ) as created:
                    assert created.status == 201, await created.text()
                assert await wait_logged(stack, request_id) == ["a"]

            own.start()
            await wait_answer(http, stack.replicas["b"], "/readyz", 200)
            await wait_both_serve(http, stack, "/readyz")
    finally:
        own.stop()


async def test_a_stopped_replica_is_taken_out_and_requests_keep_succeeding(
    stack_factory: StackFactory,
) -> None:
    stack: Stack = stack_factory()
    async with aiohttp.ClientSession(headers=ADMIN) as http:
        await ready(stack, http)
        before = len(stack.proxy.log_text())
        stack.replicas["b"].stop()  # SIGTERM, as `docker compose stop` or a scale-down sends
        assert stack.replicas["b"].process.returncode == 0

        statuses: list[int] = []

        async def taken_out() -> bool:
            # Meanwhile requests keep succeeding: a refused connection is retried on a.
            statuses.append((await request_id_get(http, f"{stack.proxy.base}/v1/rulesets"))[1])
            return "is DOWN" in stack.proxy.log_since(before)

        await wait_until(taken_out, CHECK_SECONDS, stack.state)
        for _ in range(10):
            request_id, status = await request_id_get(http, f"{stack.proxy.base}/v1/rulesets")
            statuses.append(status)
            assert await wait_logged(stack, request_id) == ["a"]
        assert set(statuses) == {200}, statuses

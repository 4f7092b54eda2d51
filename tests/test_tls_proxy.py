"""HTTPS in front of the load balancer (the compose file's `caddy` service), run for real.

Caddy runs the shipped deploy/Caddyfile and HAProxy the shipped deploy/haproxy.cfg, both on
loopback, with only their documented environment settings changed (ports, upstream addresses,
the certificate's paths, the health checks' interval), as tests/test_proxy.py runs the balancer
alone: a certificate for localhost and 127.0.0.1, signed by a throwaway CA the test makes with the
`openssl` CLI, as the operator's certificate (FIREFIGHT_TLS=files), in front of two replicas of
the service on the real Redis and a DNS server of the test's own that names them. Over HTTPS
verified against that CA the requests reach both replicas, a WSS watch receives an attack's
event, plain HTTP on the TLS port is refused, and a client that trusts another CA is refused the
connection. The address the replicas limit requests without a valid token by is the client's,
never one it made up.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import ssl
import subprocess
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import pytest

from tests import sr5_requests as make
from tests.service_process import (
    ADMIN_KEY,
    ServiceProcess,
    Services,
    free_port,
    running_services,
    wait_answer,
    wait_until,
)
from tests.test_proxy import CHECK_INTERVAL, REPLICA_HOSTS, UPSTREAM_NAME, ReplicaDns

ROOT = Path(__file__).resolve().parent.parent
CADDYFILE = ROOT / "deploy" / "Caddyfile"
HAPROXY_CFG = ROOT / "deploy" / "haproxy.cfg"
IN_CI = os.environ.get("CI") == "true"
ADMIN = {"Authorization": f"Bearer {ADMIN_KEY}"}
START_SECONDS = 30.0
# Refusals per second per client address on each replica: bursts of 5 (five times the rate,
# service/api/app.py), so a client is answered 429 after at most 2 x 5 refusals in a row.
REFUSALS_PER_SECOND = 1


def binary(name: str, installer: str) -> str:
    found = shutil.which(name)
    if found is None:
        message = f"{name} is not installed (scripts/{installer} installs it; `make test` runs it)"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    return found


@pytest.fixture(scope="module")
def caddy() -> str:
    return binary("caddy", "ensure-caddy")


@pytest.fixture(scope="module")
def haproxy() -> str:
    return binary("haproxy", "ensure-haproxy")


def clean_env(**settings: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FIREFIGHT_")}
    return {**env, **settings}


def caddy_env(home: Path, **settings: str) -> dict[str, str]:
    """Caddy keeps its storage (locks, autosaved config) under HOME: the test's own folder."""
    return clean_env(
        HOME=str(home),
        XDG_DATA_HOME=str(home / "data"),
        XDG_CONFIG_HOME=str(home / "config"),
        **settings,
    )


def test_caddy_accepts_the_shipped_config(caddy: str, tmp_path: Path) -> None:
    # As the image runs it with a .env of `FIREFIGHT_DOMAIN=...`: every other setting the
    # compose default (automatic certificates).
    env = caddy_env(tmp_path, FIREFIGHT_DOMAIN="firefight.example.org")
    check = subprocess.run(
        [caddy, "adapt", "--config", str(CADDYFILE), "--adapter", "caddyfile"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert check.returncode == 0, check.stdout + check.stderr
    adapted = check.stdout
    # The site is the domain, on 443, handed to haproxy's port for the TLS proxy, and Caddy's
    # admin endpoint listens inside the container only (the compose healthcheck's address).
    assert '"host":["firefight.example.org"]' in adapted, adapted
    assert '"listen":["0.0.0.0:443"]' in adapted, adapted
    assert '"dial":"haproxy:8081"' in adapted, adapted
    assert '"admin":{"listen":"127.0.0.1:2019"}' in adapted, adapted
    assert "load_files" not in adapted  # auto: no certificate of the operator's


def test_caddy_refuses_an_unknown_certificate_mode(caddy: str, tmp_path: Path) -> None:
    """FIREFIGHT_TLS other than auto or files stops Caddy with a message (the check above can
    fail)."""
    env = caddy_env(tmp_path, FIREFIGHT_DOMAIN="firefight.example.org", FIREFIGHT_TLS="letsencrypt")
    check = subprocess.run(
        [caddy, "adapt", "--config", str(CADDYFILE), "--adapter", "caddyfile"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert check.returncode != 0
    assert "tls-letsencrypt" in check.stderr, check.stderr


# --- a throwaway CA and a certificate for localhost --------------------------------------------


@dataclass(frozen=True)
class Certificates:
    ca: Path  # the CA the clients trust
    other_ca: Path  # a CA that signed nothing the proxy serves
    cert: Path  # the server's certificate, as the operator puts it in deploy/tls/cert.pem
    key: Path


def openssl(*args: str, cwd: Path) -> None:
    done = subprocess.run(["openssl", *args], cwd=cwd, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"openssl {' '.join(args)}:\n{done.stdout}{done.stderr}"


def make_ca(directory: Path, name: str) -> tuple[Path, Path]:
    openssl(
        "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
        "-keyout", f"{name}.key", "-out", f"{name}.pem", "-days", "2",
        "-subj", f"/CN=firefight test {name}",
        "-addext", "basicConstraints=critical,CA:TRUE",
        "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        cwd=directory,
    )  # fmt: skip
    return directory / f"{name}.pem", directory / f"{name}.key"


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> Certificates:
    if shutil.which("openssl") is None:
        pytest.fail("the openssl CLI is needed to make the test's certificates")
    directory = tmp_path_factory.mktemp("tls")
    ca, _ = make_ca(directory, "ca")
    other_ca, _ = make_ca(directory, "other-ca")
    (directory / "leaf.ext").write_text(
        "basicConstraints=critical,CA:FALSE\n"
        "keyUsage=critical,digitalSignature\n"
        "extendedKeyUsage=serverAuth\n"
        "subjectAltName=DNS:localhost,IP:127.0.0.1\n"
        "subjectKeyIdentifier=hash\n"
        "authorityKeyIdentifier=keyid\n"
    )
    openssl(
        "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
        "-keyout", "key.pem", "-out", "leaf.csr", "-subj", "/CN=localhost",
        cwd=directory,
    )  # fmt: skip
    openssl(
        "x509", "-req", "-in", "leaf.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
        "-CAcreateserial", "-days", "2", "-extfile", "leaf.ext", "-out", "cert.pem",
        cwd=directory,
    )  # fmt: skip
    return Certificates(ca, other_ca, directory / "cert.pem", directory / "key.pem")


def trusting(ca: Path) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=str(ca))


# --- Caddy and HAProxy in front of two replicas --------------------------------------------------


@dataclass
class Stack:
    replicas: dict[str, ServiceProcess]
    https_port: int
    http_port: int  # Caddy's redirect to HTTPS (80 in compose)
    plain_port: int  # haproxy's own port (8080 on the host's loopback in compose)
    admin_port: int  # Caddy's admin endpoint (2019 inside the container in compose)
    logs: dict[str, Path]

    @property
    def base(self) -> str:
        return f"https://localhost:{self.https_port}"

    def served_by(self, request_id: str) -> list[str]:
        return [name for name, r in self.replicas.items() if r.served(request_id)]

    def state(self) -> str:
        parts = [
            f"{name}:\n{log.read_text(errors='replace')[-2500:]}" for name, log in self.logs.items()
        ]
        parts += [f"{name}:\n{r.log_text()[-1500:]}" for name, r in self.replicas.items()]
        return "\n".join(parts)


@contextlib.contextmanager
def foreground(
    argv: list[str], env: dict[str, str], log: Path
) -> Iterator[subprocess.Popen[bytes]]:
    with log.open("wb") as sink:
        process = subprocess.Popen(
            argv, env=env, stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT
        )
    try:
        yield process
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)


@pytest.fixture(scope="module")
def stack(
    caddy: str,
    haproxy: str,
    certificates: Certificates,
    redis_url: str,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Stack]:
    directory = tmp_path_factory.mktemp("stack")
    https_port, http_port, plain_port, tls_port, admin_port = (
        free_port("127.0.0.1") for _ in range(5)
    )
    public_url = f"https://localhost:{https_port}"
    with contextlib.ExitStack() as cleanup:
        dns = cleanup.enter_context(ReplicaDns(UPSTREAM_NAME, list(REPLICA_HOSTS)))
        services: Services = cleanup.enter_context(
            contextlib.contextmanager(running_services)(directory)
        )
        port = free_port(*REPLICA_HOSTS)
        settings = {
            "FIREFIGHT_REDIS_URL": redis_url,
            # What compose sets, narrowed to the proxy's address here (haproxy connects from
            # 127.0.0.1; the test's clients come from other loopback addresses).
            "FIREFIGHT_TRUSTED_PROXIES": "127.0.0.1/32",
            "FIREFIGHT_PUBLIC_URL": public_url,
            "FIREFIGHT_REFUSALS_PER_SECOND": str(REFUSALS_PER_SECOND),
        }
        replicas = {
            name: services.start(name, settings, host, port)
            for name, host in zip(("a", "b"), REPLICA_HOSTS, strict=True)
        }
        logs = {"haproxy": directory / "haproxy.log", "caddy": directory / "caddy.log"}
        haproxy_env = clean_env(
            FIREFIGHT_PROXY_BIND=f"127.0.0.1:{plain_port}",
            FIREFIGHT_PROXY_TLS_BIND=f"127.0.0.1:{tls_port}",
            FIREFIGHT_PROXY_UPSTREAM=f"{UPSTREAM_NAME}:{port}",
            FIREFIGHT_PROXY_DNS=f"127.0.0.1:{dns.port}",
            # Replicas checked in after two good checks half a second apart, not 2 s.
            FIREFIGHT_PROXY_CHECK_INTERVAL=CHECK_INTERVAL,
        )
        cleanup.enter_context(
            foreground([haproxy, "-db", "-f", str(HAPROXY_CFG)], haproxy_env, logs["haproxy"])
        )
        home = directory / "caddy-home"
        home.mkdir()
        env = caddy_env(
            home,
            # What a .env of FIREFIGHT_TLS=files gives the caddy service, on loopback ports.
            FIREFIGHT_DOMAIN="localhost",
            FIREFIGHT_TLS="files",
            FIREFIGHT_TLS_CERT=str(certificates.cert),
            FIREFIGHT_TLS_KEY=str(certificates.key),
            FIREFIGHT_TLS_BIND="127.0.0.1",
            FIREFIGHT_TLS_HTTP_PORT=str(http_port),
            FIREFIGHT_TLS_HTTPS_PORT=str(https_port),
            FIREFIGHT_TLS_ADMIN=f"127.0.0.1:{admin_port}",
            FIREFIGHT_TLS_UPSTREAM=f"127.0.0.1:{tls_port}",
        )
        argv = [caddy, "run", "--config", str(CADDYFILE), "--adapter", "caddyfile"]
        cleanup.enter_context(foreground(argv, env, logs["caddy"]))
        yield Stack(replicas, https_port, http_port, plain_port, admin_port, logs)


def connector(ca: Path | None = None, local: str | None = None) -> aiohttp.TCPConnector:
    """IPv4 (Caddy listens on 127.0.0.1 only), from the loopback address `local` if given."""
    return aiohttp.TCPConnector(
        family=socket.AF_INET,
        ssl=trusting(ca) if ca else False,
        local_addr=(local, 0) if local else None,
        force_close=True,
    )


async def get(
    http: aiohttp.ClientSession, url: str, **headers: str
) -> tuple[str, int, dict[str, Any] | str]:
    request_id = uuid.uuid4().hex
    async with http.get(url, headers={"X-Request-Id": request_id, **headers}) as response:
        body: dict[str, Any] | str = (
            await response.json()
            if response.content_type.endswith("json")
            else await response.text()
        )
        return request_id, response.status, body


async def wait_logged(stack: Stack, request_id: str) -> list[str]:
    async def logged() -> bool:
        return bool(stack.served_by(request_id))

    await wait_until(logged, 10, lambda: f"no replica logged {request_id}\n{stack.state()}")
    return stack.served_by(request_id)


async def ready(stack: Stack, certificates: Certificates) -> None:
    """Both replicas ready, and each has served a request through Caddy and HAProxy."""
    async with aiohttp.ClientSession() as direct:
        for replica in stack.replicas.values():
            await wait_answer(direct, replica, "/readyz", 200)
    served: set[str] = set()
    seen = ["nothing"]
    async with aiohttp.ClientSession(connector=connector(certificates.ca)) as http:

        async def both() -> bool:
            try:
                request_id, status, body = await get(http, f"{stack.base}/readyz")
            except aiohttp.ClientConnectionError as error:
                seen[0] = repr(error)
                return False
            seen[0] = f"{status} {body}"
            if status == 200:
                served.update(await wait_logged(stack, request_id))
            return served == set(stack.replicas)

        await wait_until(
            both, START_SECONDS, lambda: f"served by {served}, last {seen[0]}\n{stack.state()}"
        )


# The README's first shot, worked by hand in tests/test_sr5_http_by_hand.py: Agility 6 +
# Pistols 5 = 11 dice, -1 at 12 m (medium range) = 10, of which 6, 5, 5 hit: 3 hits. Defense
# Reaction 4 + Intuition 3 = 7 dice, one 5: 1 hit; 2 net hits. DV 8 + 2 = 10 against armor
# 12 - 1 AP = 11: stun; soak Body 5 + 11 = 16 dice, three hits (5, 5, 6): 10 - 3 = 7 boxes.
SHOT = make.attack(
    attacker=make.attacker(agility=6, skill=5, strength=3),
    targets=[
        make.target(
            distance_m=12, defender=make.defender(reaction=4, intuition=3, body=5, armor=12)
        )
    ],
    dice={
        "attack": [6, 5, 5, 3, 2, 1, 4, 4, 2, 3],
        "defense:goon-1": [5, 2, 2, 3, 1, 4, 4],
        "soak:goon-1": [5, 5, 6, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],
    },
)


def check_shot(result: dict[str, Any]) -> None:
    [target] = result["targets"]
    assert (target["attack_hits"], target["defense_hits"], target["net_hits"]) == (3, 1, 2)
    damage = target["damage"]
    assert (damage["dv"], damage["armor"], damage["track"], damage["boxes"]) == (10, 11, "stun", 7)


async def test_https_reaches_both_replicas_and_a_wss_watch_gets_the_attack(
    stack: Stack, certificates: Certificates
) -> None:
    await ready(stack, certificates)
    async with aiohttp.ClientSession(connector=connector(certificates.ca), headers=ADMIN) as http:
        created = await http.post(f"{stack.base}/v1/encounters", json={"ruleset": "sr5"})
        assert created.status == 201, await created.text()
        encounter = (await created.json())["id"]
        url = f"{stack.base}/v1/encounters/{encounter}"

        # Reads of the new encounter through HTTPS reach both replicas (one Redis).
        served: set[str] = set()
        for _ in range(20):
            request_id, status, _ = await get(http, url)
            assert status == 200, stack.state()
            served.update(await wait_logged(stack, request_id))
            if served == set(stack.replicas):
                break
        assert served == set(stack.replicas), f"only {served} served\n{stack.state()}"

        ws = await http.ws_connect(
            f"wss://localhost:{stack.https_port}/v1/encounters/{encounter}/ws", heartbeat=None
        )
        try:
            first = await ws.receive_json(timeout=10)
            assert first["type"] == "encounter_created", first
            async with http.post(f"{url}/attacks", json=SHOT) as attacked:
                assert attacked.status == 201, await attacked.text()
                answer = await attacked.json()
            check_shot(answer["result"])
            event = await ws.receive_json(timeout=10)
            assert event["id"] == answer["event_id"], event
            check_shot(event["result"])
        finally:
            await ws.close()

        # Read back: the event log has the shot, whichever replica answers.
        async with http.get(f"{url}/events") as events:
            assert events.status == 200, await events.text()
            logged = [e for e in (await events.json())["events"] if e["id"] == answer["event_id"]]
        assert len(logged) == 1
        check_shot(logged[0]["result"])

        # The Foundry manifest names the service by its https address (FIREFIGHT_PUBLIC_URL).
        _, status, manifest = await get(http, f"{stack.base}/foundry/module.json")
        assert status == 200 and isinstance(manifest, dict), manifest
        assert manifest["manifest"] == f"{stack.base}/foundry/module.json"

    # The WebSocket went through Caddy and haproxy as an upgrade (haproxy logs it as a 101).
    haproxy_log = stack.logs["haproxy"].read_text(errors="replace")
    assert " 101 " in haproxy_log and "/ws" in haproxy_log, haproxy_log[-3000:]


async def test_plain_http_on_the_tls_port_is_refused_and_port_80_redirects(
    stack: Stack, certificates: Certificates
) -> None:
    await ready(stack, certificates)
    async with aiohttp.ClientSession(connector=connector()) as http:
        # Plain HTTP on the HTTPS port: Caddy answers 400 itself; no replica sees it.
        request_id, status, body = await get(http, f"http://localhost:{stack.https_port}/readyz")
        assert status == 400, body
        assert "HTTPS" in str(body), body
        assert stack.served_by(request_id) == []
        # The HTTP port (80 in compose) sends browsers to HTTPS, path kept.
        async with http.get(
            f"http://localhost:{stack.http_port}/v1/encounters?x=1", allow_redirects=False
        ) as response:
            assert response.status == 308, await response.text()  # Permanent Redirect
            # To https on the same name, path and query kept. (Caddy 2.6 leaves the port out
            # when https_port is not 443, as it is here: it is 443 in compose.)
            location = urlsplit(response.headers["Location"])
            assert (location.scheme, location.hostname) == ("https", "localhost"), location
            assert (location.path, location.query) == ("/v1/encounters", "x=1"), location


async def test_a_client_that_trusts_another_ca_is_refused(
    stack: Stack, certificates: Certificates
) -> None:
    await ready(stack, certificates)
    async with aiohttp.ClientSession(connector=connector(certificates.other_ca)) as http:
        with pytest.raises(aiohttp.ClientConnectorCertificateError) as refused:
            await get(http, f"{stack.base}/readyz")
    assert "certificate verify failed" in str(refused.value), refused.value
    # The same request trusting the right CA succeeds (the refusal was the certificate's).
    async with aiohttp.ClientSession(connector=connector(certificates.ca)) as http:
        _, status, _ = await get(http, f"{stack.base}/readyz")
        assert status == 200


async def refused_until_limited(
    stack: Stack, base: str, client: str, ca: Path | None, want: set[str]
) -> int:
    """Requests with a wrong token from the loopback address `client`, each with an
    X-Forwarded-For of its own, until every replica in `want` answered the last one it got with
    429; returns how many it took (fails past 40)."""
    last: dict[str, int] = {}
    async with aiohttp.ClientSession(connector=connector(ca, client)) as http:
        for sent in range(1, 41):
            request_id, status, _ = await get(
                http,
                f"{base}/v1/encounters/nope",
                Authorization="Bearer not-a-token",
                **{"X-Forwarded-For": f"203.0.113.{sent}"},
            )
            assert status in (401, 429), status
            for name in await wait_logged(stack, request_id):
                last[name] = status
            if all(last.get(name) == 429 for name in want):
                return sent
    pytest.fail(f"no 429 from {want} after 40 refusals from {client}: {last}\n{stack.state()}")


async def test_requests_are_limited_by_the_real_client_address_never_a_forged_one(
    stack: Stack, certificates: Certificates
) -> None:
    """The replicas limit refused requests per client address (FIREFIGHT_REFUSALS_PER_SECOND),
    from X-Forwarded-For as the proxies send it. A client that names a new address of its own in
    every request must still be limited (before, haproxy added its line after the client's, and
    the client's, read first, put each request in a fresh bucket: never a 429), and behind Caddy
    the address must be the client's, not Caddy's (one bucket for every player)."""
    await ready(stack, certificates)
    # Straight to haproxy's port (the LAN's way in without HTTPS), from 127.0.0.7.
    plain = f"http://127.0.0.1:{stack.plain_port}"
    assert await refused_until_limited(stack, plain, "127.0.0.7", None, {"a", "b"}) <= 40

    # Through Caddy: 127.0.0.5 is limited on both replicas...
    await refused_until_limited(stack, stack.base, "127.0.0.5", certificates.ca, {"a", "b"})
    # ...and at once 127.0.0.6, whose bucket is its own, is not: three refusals answered 401.
    # Were every request named by one proxy's address, 127.0.0.6 would share 127.0.0.5's empty
    # buckets (less than one refusal back a second on each replica): two of three on one
    # replica, so at least one 429.
    async with aiohttp.ClientSession(connector=connector(certificates.ca, "127.0.0.6")) as http:
        statuses = [
            (await get(http, f"{stack.base}/v1/encounters/nope", Authorization="Bearer no"))[1]
            for _ in range(3)
        ]
    assert statuses == [401, 401, 401], f"{statuses}\n{stack.state()}"


async def test_caddys_admin_endpoint_answers_the_compose_healthcheck(stack: Stack) -> None:
    """The compose healthcheck asks Caddy's admin endpoint for its config (busybox wget,
    `http://127.0.0.1:2019/config/`): the same request on the test's admin port."""
    async with aiohttp.ClientSession(connector=connector()) as http:

        async def answers() -> bool:
            try:
                async with http.get(f"http://127.0.0.1:{stack.admin_port}/config/") as response:
                    return response.status == 200 and "localhost" in await response.text()
            except aiohttp.ClientConnectionError:
                return False

        await wait_until(answers, START_SECONDS, stack.state)

"""The HTTPS setup of docker-compose.yml, checked without a Docker engine (none runs here: the
file is read as YAML and interpolated as Compose does, tests/test_compose.py).

A plain `docker compose up` runs as before (plain HTTP on port 8080 of every interface, no
Caddy); the documented .env of the HTTPS setup (`COMPOSE_PROFILES=tls`, `FIREFIGHT_DOMAIN`)
starts Caddy on 80 and 443 and leaves plain HTTP on the host's loopback only; the settings of
deploy/Caddyfile, deploy/haproxy.cfg and the compose file agree with each other (ports, paths,
service names); and the operator's key stays out of git and out of the image.
tests/test_tls_proxy.py runs the two shipped proxy files for real.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from service.config import load_config
from tests.test_compose import (
    COMPOSE,
    HAPROXY_CFG,
    PINNED_IMAGE,
    ROOT,
    TLS_ONLY,
    environment,
    healthcheck_argv,
    in_build_context,
    load_compose,
)

CADDYFILE = ROOT / "deploy" / "Caddyfile"
TLS_DIR = ROOT / "deploy" / "tls"
DOMAIN = "firefight.example.org"


def tls_dotenv() -> dict[str, str]:
    """The HTTPS lines of the compose file's header (`#   NAME=value` after "HTTPS")."""
    header = COMPOSE.read_text().split("\nservices:", 1)[0]
    part = header.split("# HTTPS", 1)[1]
    return dict(re.findall(r"^#\s+([A-Z_]+)=(\S+)", part, flags=re.MULTILINE))


def active(compose: dict[str, Any], profiles: set[str]) -> dict[str, Any]:
    """The services `docker compose up` starts with `profiles` enabled."""
    return {
        name: service
        for name, service in compose["services"].items()
        if not service.get("profiles") or profiles & set(service["profiles"])
    }


def published(services: dict[str, Any]) -> dict[str, list[str]]:
    return {name: [str(p) for p in s["ports"]] for name, s in services.items() if "ports" in s}


def caddy_defaults() -> dict[str, str]:
    """The Caddyfile's `{$NAME:default}` settings: what Compose runs, setting none of them."""
    found = re.findall(r"\{\$(FIREFIGHT_\w+)(?::([^}]*))?\}", CADDYFILE.read_text())
    defaults: dict[str, str] = {}
    for name, default in found:
        assert defaults.setdefault(name, default) == default, f"{name}: two defaults"
    return defaults


def test_the_documented_https_env_names_one_domain() -> None:
    dotenv = tls_dotenv()
    assert dotenv == {
        "COMPOSE_PROFILES": "tls",
        "FIREFIGHT_DOMAIN": DOMAIN,
        "FIREFIGHT_PUBLIC_URL": f"https://{DOMAIN}",
    }
    # The service names itself (the Foundry manifest) by the https address.
    env = environment(load_compose(dotenv)["services"]["firefight"])
    config = load_config(argv=[], environ=env)
    assert config.public_url == f"https://{DOMAIN}"
    assert set(TLS_ONLY) == {"FIREFIGHT_DOMAIN", "FIREFIGHT_TLS"}
    assert not TLS_ONLY & set(env), "the HTTPS proxy's settings are not the service's"


def test_plain_compose_up_runs_as_before_without_caddy() -> None:
    compose = load_compose()
    services = active(compose, set())
    assert set(services) == {"redis", "firefight", "haproxy"}
    assert published(services) == {"haproxy": ["8080:8080"]}  # every interface, as before
    assert compose["services"]["caddy"]["profiles"] == ["tls"]


@pytest.mark.parametrize("mode", ["auto", "files"])
def test_the_https_setup_keeps_plain_http_on_loopback(mode: str) -> None:
    dotenv = tls_dotenv() | ({"FIREFIGHT_TLS": mode} if mode == "files" else {})
    compose = load_compose(dotenv)
    services = active(compose, set(dotenv["COMPOSE_PROFILES"].split(",")))
    assert set(services) == {"redis", "firefight", "haproxy", "caddy"}
    ports = published(services)
    # Plain HTTP only on the host's loopback; the world reaches Caddy alone.
    assert ports == {
        "haproxy": ["127.0.0.1:8080:8080"],
        "caddy": ["80:80", "443:443", "443:443/udp"],
    }
    # The check above can fail: a bare "8080:8080" (or 0.0.0.0:...) publishes on every interface.
    for port in ports["haproxy"]:
        assert port.startswith("127.0.0.1:"), port

    caddy = services["caddy"]
    assert PINNED_IMAGE.fullmatch(caddy["image"]) and caddy["image"].startswith("caddy:2.")
    assert caddy["image"].endswith("-alpine")  # busybox wget, the healthcheck's
    assert environment(caddy) == {"FIREFIGHT_DOMAIN": DOMAIN, "FIREFIGHT_TLS": mode}
    assert caddy["depends_on"]["haproxy"]["condition"] == "service_started"
    assert caddy["restart"] == "unless-stopped"
    mounts = [volume.split(":") for volume in caddy["volumes"]]
    assert ["./deploy/Caddyfile", "/etc/caddy/Caddyfile", "ro"] in mounts
    assert ["./deploy/tls", "/etc/caddy/tls", "ro"] in mounts
    # Certificates and the ACME account survive a restart (Let's Encrypt limits new ones).
    assert ["caddy-data", "/data"] in mounts and "caddy-data" in compose["volumes"]


def test_caddyfile_haproxy_and_compose_agree() -> None:
    compose = load_compose(tls_dotenv())
    services = compose["services"]
    defaults = caddy_defaults()
    # Every setting compose does not give the container has a default; those it gives none.
    given = set(environment(services["caddy"]))
    assert given == {"FIREFIGHT_DOMAIN", "FIREFIGHT_TLS"}
    assert defaults.pop("FIREFIGHT_DOMAIN") == ""
    assert defaults.pop("FIREFIGHT_TLS") == "auto"
    assert all(defaults.values()), defaults

    # Caddy listens where compose publishes, on every interface of its container.
    assert (defaults["FIREFIGHT_TLS_HTTP_PORT"], defaults["FIREFIGHT_TLS_HTTPS_PORT"]) == (
        "80",
        "443",
    )
    assert defaults["FIREFIGHT_TLS_BIND"] == "0.0.0.0"
    # It hands requests to haproxy's port for it, on the haproxy service, which nothing
    # publishes: only containers of the compose network reach it.
    host, port = defaults["FIREFIGHT_TLS_UPSTREAM"].rsplit(":", 1)
    assert host in services and host == "haproxy"
    haproxy_defaults = dict(
        re.findall(r'"\$\{(FIREFIGHT_PROXY_\w+)-([^}"]*)\}"', HAPROXY_CFG.read_text())
    )
    assert haproxy_defaults["FIREFIGHT_PROXY_TLS_BIND"] == f":{port}"
    assert not any(
        p.split(":")[-1].split("/")[0] == port for ps in published(services).values() for p in ps
    )
    # The operator's files, where the tls folder is mounted.
    for name in ("FIREFIGHT_TLS_CERT", "FIREFIGHT_TLS_KEY"):
        assert defaults[name].startswith("/etc/caddy/tls/"), defaults[name]
    assert Path(defaults["FIREFIGHT_TLS_CERT"]).name == "cert.pem"
    assert Path(defaults["FIREFIGHT_TLS_KEY"]).name == "key.pem"
    # The healthcheck asks the admin endpoint where the Caddyfile puts it.
    check = " ".join(healthcheck_argv(services["caddy"]))
    assert f"http://{defaults['FIREFIGHT_TLS_ADMIN']}/config/" in check, check


def test_the_two_haproxy_frontends_name_the_client_differently() -> None:
    """The LAN's port replaces any X-Forwarded-For a client sends; Caddy's port keeps Caddy's
    (tests/test_tls_proxy.py shows both with requests)."""
    config = HAPROXY_CFG.read_text()
    frontends = dict(re.findall(r"^frontend (\S+)\n((?:[ \t]+.*\n|#.*\n|\n)*)", config, re.M))
    assert set(frontends) == {"firefight", "firefight-tls"}
    assert "http-request set-header X-Forwarded-For %[src]" in frontends["firefight"]
    assert "option forwardfor if-none" in frontends["firefight-tls"]
    settings = [line.strip() for line in config.splitlines() if not line.lstrip().startswith("#")]
    # Anywhere else it would add a second line after the client's own, read first.
    assert [line for line in settings if line.startswith("option forwardfor")] == [
        "option forwardfor if-none"
    ]


def test_the_operators_key_stays_out_of_git_and_the_image() -> None:
    ignored = [
        line
        for line in (TLS_DIR / ".gitignore").read_text().splitlines()
        if line and not line.startswith("#")
    ]
    assert ignored == ["*", "!.gitignore"]
    assert not in_build_context("deploy/tls/key.pem")
    assert not in_build_context("deploy/Caddyfile")  # not needed by the image either

"""The container files, checked without a Docker engine.

docker-compose.yml is a Compose file an engine accepts and sets only settings the service reads;
images are pinned; Redis requires a password the service gets from the same variable; the proxy
(deploy/haproxy.cfg, run for real in tests/test_proxy.py) is the only published port of a plain
`docker compose up` (tests/test_compose_tls.py checks the HTTPS setup);
.dockerignore lets in what `pip install .` builds from; and the Dockerfile's command, run with the
compose environment against a Redis that requires the compose password, serves the API and passes
both healthchecks.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tomllib
from collections.abc import Iterator, Mapping
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from service.config import ConfigError, load_config

ROOT = Path(__file__).resolve().parent.parent
COMPOSE = ROOT / "docker-compose.yml"
DOCKERFILE = ROOT / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"
HAPROXY_CFG = ROOT / "deploy" / "haproxy.cfg"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())

# Top-level elements of the Compose specification (plus x-* extensions).
COMPOSE_TOP_LEVEL = {"name", "services", "networks", "volumes", "configs", "secrets", "include"}
RESTART_POLICIES = {"no", "always", "on-failure", "unless-stopped"}
DURATION = re.compile(r"(\d+(\.\d+)?(us|ms|s|m|h))+")
READY_SECONDS = 20


# --- Compose interpolation (https://docs.docker.com/compose/how-tos/environment-variables/) ----

_VARIABLE = re.compile(
    r"\$(?:(?P<escaped>\$)"
    r"|\{(?P<braced>[A-Za-z_]\w*)(?:(?P<op>:?[-?+])(?P<arg>[^}]*))?\}"
    r"|(?P<named>[A-Za-z_]\w*))"
)


def interpolate(value: Any, env: Mapping[str, str]) -> Any:
    """${VAR}, $VAR, ${VAR:-default}, ${VAR-default}, ${VAR:?error}, ${VAR:+alt} and $$."""
    if isinstance(value, dict):
        return {key: interpolate(item, env) for key, item in value.items()}
    if isinstance(value, list):
        return [interpolate(item, env) for item in value]
    if not isinstance(value, str):
        return value

    def one(match: re.Match[str]) -> str:
        if match["escaped"]:
            return "$"
        name = match["braced"] or match["named"]
        op, arg = match["op"], match["arg"] or ""
        found = env.get(name)
        missing = not found if op and op.startswith(":") else found is None
        if op in (":-", "-"):
            return arg if missing else str(found)
        if op in (":?", "?"):
            if missing:
                raise ValueError(f"compose requires {name}: {arg}")
            return str(found)
        if op in (":+", "+"):
            return "" if missing else arg
        return found or ""  # unset without a default: empty, as Compose does (with a warning)

    return _VARIABLE.sub(one, value)


COMPOSE_ADMIN_KEY = "compose-admin-key-0123456789"
# Characters a password in a URL would need encoded: here it never goes into one.
COMPOSE_REDIS_PASSWORD = "compose/redis:p@ss#word?"
REQUIRED = {
    "FIREFIGHT_ADMIN_KEY": COMPOSE_ADMIN_KEY,
    "FIREFIGHT_REDIS_PASSWORD": COMPOSE_REDIS_PASSWORD,
}
# An exact release (`redis:7.2.11-alpine`, `python:3.11.14-slim`): neither `latest`, nor a bare
# major or minor tag that moves under the same name.
# .env settings of the HTTPS proxy (the caddy service) alone, documented beside the service's.
TLS_ONLY = {"FIREFIGHT_DOMAIN", "FIREFIGHT_TLS"}
PINNED_IMAGE = re.compile(r"[a-z0-9./-]+:\d+\.\d+\.\d+(-[a-z0-9.]+)?")


def load_compose(dotenv: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The compose file as an engine sees it with the required admin key and Redis password and
    `dotenv` as its only variables."""
    raw = yaml.safe_load(COMPOSE.read_text())
    assert isinstance(raw, dict), "docker-compose.yml is not a mapping"
    env = {**REQUIRED, **(dotenv or {})}
    resolved: dict[str, Any] = interpolate(raw, env)
    return resolved


def environment(service: Mapping[str, Any]) -> dict[str, str]:
    """A service's `environment`, list or mapping form, as the strings the container gets."""
    given = service.get("environment") or {}
    if isinstance(given, list):
        given = dict(entry.split("=", 1) if "=" in entry else (entry, None) for entry in given)
    result = {}
    for name, value in given.items():
        if isinstance(value, bool):
            value = "true" if value else "false"
        result[name] = "" if value is None else str(value)
    return result


def documented_dotenv() -> dict[str, str]:
    """The `.env` examples the compose file's header comment gives (`#   NAME=value`)."""
    found = re.findall(r"^#\s+(FIREFIGHT_\w+)=(\S+)", COMPOSE.read_text(), flags=re.MULTILINE)
    return dict(found)


def healthcheck_argv(service: Mapping[str, Any]) -> list[str]:
    test = service["healthcheck"]["test"]
    if isinstance(test, str):
        return ["CMD-SHELL", test]
    return [str(part) for part in test]


# --- Dockerfile and .dockerignore ---------------------------------------------------------------


def dockerfile() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) in order; continuation lines joined, comments dropped."""
    instructions: list[tuple[str, str]] = []
    current = ""
    for raw in DOCKERFILE.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.endswith("\\"):
            current += line[:-1] + " "
            continue
        current += line
        keyword, _, rest = current.partition(" ")
        instructions.append((keyword.upper(), " ".join(rest.split())))
        current = ""
    assert not current, "the Dockerfile ends inside a continued line"
    return instructions


def last(keyword: str) -> str:
    found = [rest for name, rest in dockerfile() if name == keyword]
    assert found, f"the Dockerfile has no {keyword}"
    return found[-1]


def dockerfile_cmd() -> list[str]:
    cmd = json.loads(last("CMD"))  # the exec (JSON array) form: no shell, signals reach firefight
    assert isinstance(cmd, list) and all(isinstance(part, str) for part in cmd), cmd
    return cmd


def dockerfile_healthcheck() -> list[str]:
    given = last("HEALTHCHECK")
    match = re.fullmatch(r"((?:--[a-z-]+=\S+ )*)CMD (\[.*\])", given)
    assert match, f"HEALTHCHECK is not `[--option=value ...] CMD [json array]`: {given}"
    argv = json.loads(match[2])
    assert isinstance(argv, list) and all(isinstance(part, str) for part in argv), argv
    return argv


def exposed_port() -> int:
    ports = last("EXPOSE").split()
    assert len(ports) == 1, f"one port expected, EXPOSE {ports}"
    return int(ports[0].removesuffix("/tcp"))


def _dockerignore_regex(pattern: str) -> re.Pattern[str]:
    """Docker's pattern syntax: `*` and `?` within a path segment, `**` across segments."""
    out, i = "", 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif pattern.startswith("**", i):
            out, i = out + ".*", i + 2
        elif pattern[i] == "*":
            out, i = out + "[^/]*", i + 1
        elif pattern[i] == "?":
            out, i = out + "[^/]", i + 1
        else:
            out, i = out + re.escape(pattern[i]), i + 1
    return re.compile(out + r"\Z")


def in_build_context(path: str) -> bool:
    """Whether .dockerignore lets `path` in: the last pattern matching it or a parent decides."""
    rules = []
    for raw in DOCKERIGNORE.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        pattern = os.path.normpath(line.removeprefix("!").strip()).lstrip("/")
        assert "[" not in pattern, f"character classes are not checked here: {pattern}"
        rules.append((negated, _dockerignore_regex(pattern)))
    parts = path.split("/")
    candidates = ["/".join(parts[: n + 1]) for n in range(len(parts))]
    included = True
    for negated, regex in rules:
        if any(regex.match(candidate) for candidate in candidates):
            included = negated
    return included


# --- the compose file ---------------------------------------------------------------------------


def test_compose_file_has_what_a_compose_engine_needs() -> None:
    raw = yaml.safe_load(COMPOSE.read_text())
    assert "version" not in raw, "the Compose specification has no top-level `version`"
    unknown = {key for key in raw if key not in COMPOSE_TOP_LEVEL and not key.startswith("x-")}
    assert not unknown, f"not Compose top-level elements: {unknown}"
    compose = load_compose()
    assert "${" not in yaml.safe_dump(compose), "an interpolation was left unresolved"

    services = compose["services"]
    assert set(services) == {"redis", "firefight", "haproxy", "caddy"}
    # What a plain `docker compose up` starts: every service but the HTTPS proxy, whose profile
    # must be asked for (tests/test_compose_tls.py).
    assert {name for name, service in services.items() if not service.get("profiles")} == {
        "redis",
        "firefight",
        "haproxy",
    }
    declared_volumes = set(compose.get("volumes") or {})
    for name, service in services.items():
        assert "image" in service or "build" in service, f"{name}: neither image nor build"
        assert service.get("restart") in RESTART_POLICIES, (
            f"{name}: restart {service.get('restart')}"
        )
        check = service["healthcheck"]
        argv = healthcheck_argv(service)
        assert argv[0] in ("CMD", "CMD-SHELL") and len(argv) >= 2, f"{name}: healthcheck {argv}"
        assert not check.get("disable"), f"{name}: healthcheck disabled"
        for key in ("interval", "timeout", "start_period"):
            assert DURATION.fullmatch(str(check[key])), f"{name}: healthcheck {key} {check[key]}"
        assert isinstance(check["retries"], int) and check["retries"] > 0
        for volume in service.get("volumes", []):
            source = volume.split(":", 1)[0]
            if not source.startswith((".", "/", "~")):
                assert source in declared_volumes, f"{name}: volume {source} is not declared"
        for dependency in service.get("depends_on", {}):
            assert dependency in services, f"{name} depends on unknown service {dependency}"

    redis_service = services["redis"]
    assert redis_service["image"].startswith("redis:7.2.")
    assert "redis-cli ping" in " ".join(healthcheck_argv(redis_service)[1:])

    firefight = services["firefight"]
    build = firefight["build"]
    context = build if isinstance(build, str) else build.get("context", ".")
    dockerfile_name = (
        "Dockerfile" if isinstance(build, str) else build.get("dockerfile", "Dockerfile")
    )
    assert (ROOT / context / dockerfile_name).resolve() == DOCKERFILE
    assert firefight["depends_on"]["redis"]["condition"] == "service_healthy"
    assert firefight["restart"] == "unless-stopped"
    port = exposed_port()
    assert [str(p) for p in firefight["expose"]] == [str(port)]
    redis_url = urlsplit(environment(firefight)["FIREFIGHT_REDIS_URL"])
    assert redis_url.hostname in services, f"the Redis URL names no service: {redis_url.hostname}"
    health_url = re.search(r"http://[^'\" ]+", " ".join(healthcheck_argv(firefight)))
    assert health_url and health_url[0] == f"http://127.0.0.1:{port}/readyz", health_url


def test_only_the_proxy_publishes_a_port_so_the_service_scales() -> None:
    services = load_compose()["services"]
    firefight, proxy = services["firefight"], services["haproxy"]
    # A fixed host port on firefight would make `--scale firefight=3` fail on the second replica.
    assert "ports" not in firefight, firefight.get("ports")
    assert "container_name" not in firefight  # one name cannot be given to three containers
    # Without the HTTPS profile (tests/test_compose_tls.py), on every interface as before.
    published = [
        name
        for name, service in services.items()
        if "ports" in service and not service.get("profiles")
    ]
    assert published == ["haproxy"]
    assert proxy["ports"] == ["8080:8080"]
    assert proxy["depends_on"]["firefight"]["condition"] in ("service_started", "service_healthy")
    assert proxy["restart"] == "unless-stopped"

    # The shipped config is what the proxy runs, read-only, where the image looks for it.
    mounts = [volume.split(":") for volume in proxy["volumes"]]
    assert ["./deploy/haproxy.cfg", "/usr/local/etc/haproxy/haproxy.cfg", "ro"] in mounts
    assert HAPROXY_CFG.is_file()

    # Its defaults (what compose runs, setting none of the file's variables) listen on the
    # published container port and find the replicas by the service name through Docker's DNS,
    # on the port the image exposes.
    config = HAPROXY_CFG.read_text()
    defaults = dict(re.findall(r'"\$\{(FIREFIGHT_PROXY_\w+)-([^}"]*)\}"', config))
    assert defaults == {
        "FIREFIGHT_PROXY_DNS": "127.0.0.11:53",
        "FIREFIGHT_PROXY_BIND": ":8080",
        "FIREFIGHT_PROXY_TLS_BIND": ":8081",
        "FIREFIGHT_PROXY_UPSTREAM": f"firefight:{exposed_port()}",
        "FIREFIGHT_PROXY_CHECK_INTERVAL": "2s",
    }
    assert not any(name.startswith("FIREFIGHT_PROXY_") for name in environment(proxy))
    assert re.search(r"^\s*server-template \w+ \d+ .*\bresolvers docker\b", config, re.MULTILINE)
    assert re.search(r"^\s*http-check send meth GET uri /readyz\b", config, re.MULTILINE)
    assert re.search(r"^\s*http-check expect status 200\b", config, re.MULTILINE)
    assert re.search(r"^\s*timeout tunnel\s+\d+[mh]\b", config, re.MULTILINE)

    # Its own healthcheck goes through the proxy to a replica's /readyz.
    check = " ".join(healthcheck_argv(proxy))
    assert "http://127.0.0.1:8080/readyz" in check, check


def test_every_image_is_pinned_to_an_exact_version() -> None:
    images = {name: s["image"] for name, s in load_compose()["services"].items() if "image" in s}
    images["Dockerfile"] = last("FROM")
    assert set(images) == {"redis", "haproxy", "caddy", "Dockerfile"}
    for name, image in images.items():
        assert PINNED_IMAGE.fullmatch(image), f"{name}: {image} is not an exact version"
    # The pin above must be able to fail.
    for loose in ("redis:7-alpine", "redis:latest", "haproxy:3.0", "python:3.11-slim", "redis"):
        assert not PINNED_IMAGE.fullmatch(loose), loose


def test_redis_requires_the_password_the_service_gets_from_the_environment() -> None:
    services = load_compose()["services"]
    command = services["redis"]["command"]
    assert command[command.index("--requirepass") + 1] == COMPOSE_REDIS_PASSWORD
    assert environment(services["redis"])["REDISCLI_AUTH"] == COMPOSE_REDIS_PASSWORD
    env = environment(services["firefight"])
    assert env["FIREFIGHT_REDIS_PASSWORD"] == COMPOSE_REDIS_PASSWORD
    # The URL carries no password: it is fixed in the file, the password comes from .env.
    assert urlsplit(env["FIREFIGHT_REDIS_URL"]).password is None
    config = load_config(argv=[], environ=env)
    assert config.redis_password == COMPOSE_REDIS_PASSWORD
    assert COMPOSE_REDIS_PASSWORD not in repr(config)
    # One variable, read from .env or the shell, for both sides.
    raw = yaml.safe_dump(yaml.safe_load(COMPOSE.read_text()))
    assert raw.count("${FIREFIGHT_REDIS_PASSWORD:?") == 3


class RecordingEnv(Mapping[str, str]):
    """An environment that notes every name asked of it, present or not."""

    def __init__(self, values: Mapping[str, str]) -> None:
        self.values = dict(values)
        self.asked: set[str] = set()

    def __getitem__(self, name: str) -> str:
        self.asked.add(name)
        return self.values[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.values)

    def __len__(self) -> int:
        return len(self.values)


def test_compose_environment_is_read_by_the_service() -> None:
    env = environment(load_compose()["services"]["firefight"])
    assert env and all(name.startswith("FIREFIGHT_") for name in env), env
    recording = RecordingEnv(env)
    config = load_config(argv=[], environ=recording)  # raises ConfigError on a bad value
    unread = set(env) - recording.asked
    assert not unread, f"the compose file sets names service.config never reads: {unread}"
    assert config.redis_url == env["FIREFIGHT_REDIS_URL"]
    assert (config.host, config.log_format) == ("0.0.0.0", "json")


def test_every_compose_setting_changes_the_config(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each variable changes the Config with its compose value, or with its documented .env one.

    The test runs as if on a terminal (`docker run -t`), where the log format would default to
    console: the pinned json must still win.
    """
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert load_config(argv=[], environ={}).log_format == "console"

    env = environment(load_compose()["services"]["firefight"])
    configured = load_config(argv=[], environ=env)
    dotenv = documented_dotenv()
    with_dotenv = environment(load_compose(dotenv)["services"]["firefight"])
    for name, example in dotenv.items():
        if name in TLS_ONLY:
            continue  # the caddy service's (tests/test_compose_tls.py)
        assert with_dotenv.get(name) == example, f"the .env example {name} does not reach it"
    for name in env:
        try:
            without = load_config(argv=[], environ={k: v for k, v in env.items() if k != name})
        except ConfigError:
            continue  # required where the compose file runs the service
        if without != configured:
            continue
        assert name in dotenv, f"{name} keeps the built-in default and has no .env example"
        override = {**env, name: with_dotenv[name]}
        assert load_config(argv=[], environ=override) != configured, f"{name} changes nothing"


def test_documented_foundry_origin_reaches_cors() -> None:
    dotenv = documented_dotenv()
    assert dotenv.get("FIREFIGHT_CORS_ORIGINS") == "http://localhost:30000"
    env = environment(load_compose(dotenv)["services"]["firefight"])
    assert load_config(argv=[], environ=env).cors_origins == ("http://localhost:30000",)
    # Without a .env the compose file allows no origin, as the service does by default.
    plain = environment(load_compose()["services"]["firefight"])
    assert plain["FIREFIGHT_CORS_ORIGINS"] == ""
    assert load_config(argv=[], environ=plain).cors_origins == ()


def test_dockerfile_builds_a_small_non_root_image_of_the_service() -> None:
    instructions = dockerfile()
    froms = [rest for name, rest in instructions if name == "FROM"]
    assert len(froms) == 1 and froms[0].startswith("python:3.11.") and froms[0].endswith("-slim")
    assert ("COPY", ". .") in instructions  # the build context, as .dockerignore filters it
    runs = " && ".join(rest for name, rest in instructions if name == "RUN")
    # The dependencies at the lock's exact versions (hashes checked), then the package alone, so
    # nothing outside the lock is installed.
    locked = runs.find("pip install --no-cache-dir --require-hashes -r requirements.lock")
    package = re.search(r"pip install --no-cache-dir --no-deps \.( |$)", runs)
    assert locked >= 0 and package and locked < package.start(), runs

    names = [name for name, _ in instructions]
    assert "USER" in names and names.index("USER") < names.index("CMD")
    user = last("USER").split(":")[0]
    assert user not in ("root", "0"), f"runs as {user}"
    created = f"--uid {user}" if user.isdigit() else f" {user}"
    assert re.search(r"(useradd|adduser) .*" + re.escape(created), runs), f"{user} is not created"

    port = exposed_port()
    cmd = dockerfile_cmd()
    assert cmd[0] in PYPROJECT["project"]["scripts"], f"{cmd[0]} is not a console script"
    config = load_config(
        argv=cmd[1:],
        environ={
            "FIREFIGHT_HOST": "10.0.0.1",
            "FIREFIGHT_PORT": "1",
            "FIREFIGHT_ADMIN_KEY": COMPOSE_ADMIN_KEY,
        },
    )
    assert (config.host, config.port) == ("0.0.0.0", port), "the flags must win over the env"

    health = dockerfile_healthcheck()
    assert health[:2] == ["python", "-c"], health  # slim has no curl
    assert f"'http://127.0.0.1:{port}/healthz'" in health[2]
    assert "--timeout=" in last("HEALTHCHECK")


def test_the_image_alone_keeps_its_encounters_in_a_volume_its_user_owns() -> None:
    """Without a Redis URL the service keeps its encounters on disk (FIREFIGHT_DATA_DIR): in the
    image that is a declared volume, made and owned by the user the image runs as, or the
    service would stop at start (its working directory `/` is not the user's to write)."""
    envs = " ".join(rest for name, rest in dockerfile() if name == "ENV")
    match = re.search(r"FIREFIGHT_DATA_DIR=(\S+)", envs)
    assert match, "the image sets no FIREFIGHT_DATA_DIR"
    data_dir = match[1]
    assert json.loads(last("VOLUME")) == [data_dir]
    user = last("USER")
    runs = " && ".join(rest for name, rest in dockerfile() if name == "RUN")
    assert f"mkdir -p {data_dir}" in runs and f"chown {user} {data_dir}" in runs, runs


def test_build_context_holds_what_pip_install_needs() -> None:
    assert in_build_context("pyproject.toml")
    assert in_build_context("requirements.lock")  # the Dockerfile installs from it
    assert in_build_context(PYPROJECT["project"]["readme"])  # a warning when absent, not an error
    patterns = PYPROJECT["tool"]["setuptools"]["packages"]["find"]["include"]
    packages = [
        path
        for path in ROOT.iterdir()
        if (path / "__init__.py").is_file() and any(fnmatchcase(path.name, p) for p in patterns)
    ]
    assert {p.name for p in packages} == {"service", "schemas"}
    modules = [
        path.relative_to(ROOT).as_posix()
        for package in packages
        for path in package.rglob("*.py")
        if "__pycache__" not in path.parts
    ]
    assert len(modules) > 10
    left_out = [module for module in modules if not in_build_context(module)]
    assert not left_out, f".dockerignore leaves out {left_out}"
    for path in (
        ".venv/bin/python",
        ".git/HEAD",
        "tests/conftest.py",
        "firefight.egg-info/PKG-INFO",
        "service/__pycache__/config.cpython-311.pyc",
        "service/api/__pycache__/app.cpython-311.pyc",
        ".env",
    ):
        assert not in_build_context(path), f"{path} would be sent to the build"


def test_the_package_data_holds_every_file_of_the_web_console() -> None:
    # The image installs the package and removes the source: the console must be package data.
    globs = PYPROJECT["tool"]["setuptools"]["package-data"]["service"]
    console = [
        path.relative_to(ROOT / "service").as_posix()
        for path in (ROOT / "service" / "console").rglob("*")
        if path.is_file()
    ]
    assert "console/index.html" in console
    # Globbed as setuptools globs them: a `*` does not reach into a subfolder.
    packaged = {
        path.relative_to(ROOT / "service").as_posix()
        for glob in globs
        for path in (ROOT / "service").glob(glob)
    }
    left_out = sorted(set(console) - packaged)
    assert not left_out, f"pyproject's package-data leaves out {left_out}"
    assert all(in_build_context(f"service/{f}") for f in console)


# --- the Dockerfile's command with the compose environment, on the local Redis -----------------

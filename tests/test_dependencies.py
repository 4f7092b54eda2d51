"""The Python dependencies, kept in step: pyproject's ranges (each with an upper bound), the exact
versions of requirements.lock (what the image and `make run` install), and the virtualenv the
tests run in (`make test` installs the lock first, so the suite tests what ships).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tomllib
from collections import deque
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import NormalizedName, canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "requirements.lock"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
RUNTIME = [Requirement(line) for line in PYPROJECT["project"]["dependencies"]]
TEST_TOOLS = [Requirement(line) for line in PYPROJECT["project"]["optional-dependencies"]["test"]]


@dataclass(frozen=True)
class Pin:
    version: Version
    marker: Marker | None
    hashes: int


def read_lock(text: str) -> dict[NormalizedName, Pin]:
    """`name==version [; marker] \\` lines, each followed by its `--hash=...` lines."""
    pins: dict[NormalizedName, Pin] = {}
    current: NormalizedName | None = None
    for raw in text.splitlines():
        line = raw.strip().removesuffix("\\").strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("--hash="):
            assert current is not None, f"a hash before any pin: {line}"
            pin = pins[current]
            pins[current] = Pin(pin.version, pin.marker, pin.hashes + 1)
            continue
        match = re.fullmatch(r"([A-Za-z0-9._-]+)==([^\s;]+)\s*(?:;\s*(.+))?", line)
        assert match, f"requirements.lock: not an exact pin: {line}"
        current = canonicalize_name(match[1])
        assert current not in pins, f"{current} is pinned twice"
        pins[current] = Pin(Version(match[2]), Marker(match[3]) if match[3] else None, 0)
    return pins


def image_python() -> dict[str, str]:
    """The marker environment of the image's Python (the Dockerfile's exact `FROM` release)."""
    found = re.search(r"^FROM python:(\d+)\.(\d+)\.(\d+)", (ROOT / "Dockerfile").read_text(), re.M)
    assert found, "the Dockerfile's FROM is not an exact python release"
    return {
        "python_version": f"{found[1]}.{found[2]}",
        "python_full_version": f"{found[1]}.{found[2]}.{found[3]}",
        "implementation_name": "cpython",
        "platform_python_implementation": "CPython",
        "sys_platform": "linux",
        "platform_system": "Linux",
        "os_name": "posix",
    }


def applies(marker: Marker | None, extra: str = "") -> bool:
    return marker is None or marker.evaluate({**image_python(), "extra": extra})


def test_every_runtime_dependency_has_an_upper_bound() -> None:
    assert RUNTIME
    for requirement in RUNTIME:
        bounded = [s for s in requirement.specifier if s.operator in ("<", "<=", "==", "~=")]
        assert bounded, f"{requirement} has no upper bound"


def test_the_lock_pins_the_runtime_closure_within_pyprojects_ranges() -> None:
    """Every runtime dependency and every dependency of theirs (as the image's Python resolves
    them) is pinned, with hashes, at a version pyproject allows; nothing else is pinned."""
    pins = read_lock(LOCK.read_text())
    needed: set[NormalizedName] = set()
    queue = deque((requirement, "pyproject.toml") for requirement in RUNTIME)
    while queue:
        requirement, wanted_by = queue.popleft()
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{wanted_by} needs {requirement}; requirements.lock has no {name}"
        pin = pins[name]
        assert requirement.specifier.contains(pin.version, prereleases=True), (
            f"{wanted_by} needs {requirement}; requirements.lock pins {name}=={pin.version}"
        )
        assert pin.hashes > 0, f"{name} has no --hash in requirements.lock"
        assert applies(pin.marker), f"{name} is needed on the image's Python: {pin.marker}"
        if name in needed:
            continue
        needed.add(name)
        # What the locked version itself requires: read from the installed distribution, which
        # `make test` installs from the lock.
        installed = Version(metadata.version(name))
        assert installed == pin.version, (
            f"the tests run {name} {installed}, the lock pins {pin.version}: "
            "`make test` installs the lock; `make lock` refreshes it"
        )
        for line in metadata.requires(name) or []:
            dependency = Requirement(line)
            extras = requirement.extras or {""}
            if any(applies(dependency.marker, extra) for extra in extras):
                queue.append((dependency, f"{name} {pin.version}"))
    stale = {name for name, pin in pins.items() if applies(pin.marker)} - needed
    assert not stale, f"requirements.lock pins what nothing needs: {sorted(stale)}"


def test_the_lock_reader_catches_a_drift() -> None:
    """The check above can fail: a pin outside pyproject's range is seen as one."""
    pins = read_lock("msgspec==0.99.0 \\\n    --hash=sha256:00\n")
    [msgspec] = [r for r in RUNTIME if r.name == "msgspec"]
    assert not msgspec.specifier.contains(pins["msgspec"].version)
    with pytest.raises(AssertionError, match="not an exact pin"):
        read_lock("msgspec>=0.19\n")


def test_the_run_environment_holds_no_test_tool() -> None:
    """`make run` installs the lock and the package without its dependencies: the lock is the
    whole run environment, so a test tool in it would reach every laptop and the image."""
    pins = read_lock(LOCK.read_text())
    tools = {canonicalize_name(tool.name) for tool in TEST_TOOLS}
    assert {"pytest", "playwright", "schemathesis", "mypy", "ruff"} <= tools
    assert not tools & set(pins), f"test tools in requirements.lock: {sorted(tools & set(pins))}"


def make_dry_run(target: str, venv: Path) -> str:
    make = shutil.which("make")
    assert make, "make is not installed"
    done = subprocess.run(
        [make, "--dry-run", "--always-make", f"VENV={venv}", target],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_make_run_installs_the_lock_and_the_service_only(tmp_path: Path) -> None:
    """What a fresh clone's `make run` would do (printed by `make --dry-run`, nothing run)."""
    venv = tmp_path / "venv"
    run = make_dry_run("run", venv)
    installs = [
        line.split("pip install", 1)[1].split()
        for line in run.splitlines()
        if "pip install" in line
    ]
    assert installs == [
        ["--quiet", "--upgrade", "pip"],
        ["--quiet", "-r", "requirements.lock"],
        ["--quiet", "--no-deps", "-e", "."],
    ], run
    assert "[test]" not in run
    # ...and the test targets do add the tools (the check above can tell them apart).
    for target in ("test", "lint"):
        assert "-e '.[test]'" in make_dry_run(target, venv), target

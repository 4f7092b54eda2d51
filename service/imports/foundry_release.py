"""Which release line of its game system a Foundry actor export was made by, so each system's
reader reads the paths of that line (foundry_sr5.py SR5_LINES, foundry_sr4.py SR4_LINES,
foundry_sr3.py SR3_LINES; the module's foundry-module/src/system-versions.mjs chooses a live
actor's the same way). The release the export names wins; else the line whose data shape the
export has. Either way the report notes it under `release`."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar

from service.imports.foundry_json import at
from service.imports.report import Reading

# Where an export names its system's release, most telling first: the release that made the file
# (Foundry v13's ClientDocumentMixin#exportToJSON writes `_stats.exportSource`, v12 and before
# `flags.exportSource`), then the one the actor was last saved under (`_stats`, Foundry v10+).
RELEASE_PATHS = (
    "_stats.exportSource.systemVersion",
    "flags.exportSource.systemVersion",
    "_stats.systemVersion",
)
# The longest release string kept in the report.
MAX_RELEASE_CHARS = 40

_NUMBER = re.compile(r"\d+")


class ReleaseLine(Protocol):
    """A line of a system's releases: its first release (`since`) and its name."""

    @property
    def since(self) -> str: ...

    @property
    def name(self) -> str: ...


Line = TypeVar("Line", bound=ReleaseLine)


def _parts(version: str) -> tuple[list[int], list[str]]:
    core, _, pre = version.strip().removeprefix("v").removeprefix("V").partition("-")
    numbers = [int(found[0]) if (found := _NUMBER.match(n)) else 0 for n in core.split(".")]
    return numbers, pre.split(".") if pre else []


def compare_versions(a: str, b: str) -> int:
    """-1, 0 or 1 as `a` is before, the same as or after `b`: numbers part by part, then a
    pre-release before its release ("0.0.3-beta.0" before "0.0.3"), identifiers numeric by
    number and the others alphabetically ("alpha.6" before "beta.0"); as the module's
    compareVersions (semver's order, Foundry's isNewerVersion)."""
    (x, x_pre), (y, y_pre) = _parts(a), _parts(b)
    width = max(len(x), len(y))
    x, y = x + [0] * (width - len(x)), y + [0] * (width - len(y))
    if x != y:
        return -1 if x < y else 1
    if not x_pre or not y_pre:
        return (len(y_pre) > len(x_pre)) - (len(x_pre) > len(y_pre))
    for p, q in zip(x_pre, y_pre, strict=False):
        if p.isdigit() and q.isdigit():
            d = int(p) - int(q)
        else:
            d = (p > q) - (p < q)
        if d:
            return 1 if d > 0 else -1
    return (len(x_pre) > len(y_pre)) - (len(y_pre) > len(x_pre))


def version_line(lines: Sequence[Line], version: str) -> Line:
    """The line (`lines` oldest first) `version` belongs to: the last whose first release it
    is not before; one older than all, the oldest."""
    found = lines[0]
    for line in lines:
        if compare_versions(version, line.since) >= 0:
            found = line
    return found


def release_line(
    actor: dict[str, Any],
    lines: Sequence[Line],
    by_shape: Callable[[dict[str, Any]], tuple[Line, str]],
    reading: Reading,
) -> Line:
    """The line of the release the export names, else the one `by_shape` finds in its data
    (which returns the line and the JSON path that shows it); noted as `release`."""
    for path in RELEASE_PATHS:
        version = at(actor, path)
        if isinstance(version, str) and version.strip():
            version = version.strip()[:MAX_RELEASE_CHARS]
            line = version_line(lines, version)
            reading.note("release", f"{version}: the {line.name} line", f"$.{path}")
            return line
    line, evidence = by_shape(actor)
    reading.note(
        "release",
        f"the {line.name} line: the export names no release, its shape is that line's",
        evidence,
    )
    return line

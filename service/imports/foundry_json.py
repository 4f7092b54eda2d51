"""A Foundry actor exported as JSON (the actor's "Export Data"), read safely: the size bound of
the XML imports, JSON only, and readers that name the JSON path they could not read."""

from __future__ import annotations

import re
from typing import Any

import msgspec

from schemas.common import ID_MAX_LENGTH, ID_PATTERN
from service.imports.errors import ImportRefused
from service.imports.report import Reading
from service.imports.xml_document import MAX_IMPORT_BYTES

_ID = re.compile(ID_PATTERN)
_LEADING_NUMBER = re.compile(r"\s*(-?\d+)")


def parse_actor(data: bytes) -> dict[str, Any]:
    """The exported actor: an object with `system` and `items`, or ImportRefused."""
    if len(data) > MAX_IMPORT_BYTES:
        raise ImportRefused(
            f"the file is {len(data)} bytes, more than the {MAX_IMPORT_BYTES} an import reads",
            "$",
            kind="import-too-large",
            status=413,
        )
    try:
        actor = msgspec.json.decode(data)
    except (msgspec.DecodeError, RecursionError) as exc:
        raise ImportRefused(f"not JSON: {exc}", "$") from exc
    if not isinstance(actor, dict):
        raise ImportRefused("an actor export is a JSON object", "$")
    if not isinstance(actor.get("system"), dict):
        raise ImportRefused("no `system` object: not a Foundry actor export", "$.system")
    if not isinstance(actor.get("items", []), list):
        raise ImportRefused("`items` is not a list", "$.items")
    return actor


def system_id(actor: dict[str, Any]) -> str:
    """The game system the actor was exported from: `_stats.systemId` (Foundry v10 and later),
    or the export's own note of it (`_stats.exportSource.systemId` in v13,
    `flags.exportSource.system` before)."""
    for found in (
        at(actor, "_stats.systemId"),
        at(actor, "_stats.exportSource.systemId"),
        at(actor, "flags.exportSource.system"),
    ):
        if isinstance(found, str) and found:
            return found
    raise ImportRefused("the export does not say its game system", "$._stats.systemId")


def at(document: Any, path: str) -> Any:
    """The value at a dotted path ("system.attributes.body.value"), None where it stops."""
    for key in path.split("."):
        if not isinstance(document, dict):
            return None
        document = document.get(key)
    return document


def number(document: Any, path: str, where: str) -> int | None:
    """A whole number at `path` (a float is truncated, as the module's num() does); missing is
    None; anything else is refused naming `where` + the path."""
    value = at(document, path)
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ImportRefused(f"{value!r} is not a number", f"{where}.{path}")
    try:
        return int(float(value))
    except ValueError:
        raise ImportRefused(f"{value!r} is not a number", f"{where}.{path}") from None


def leading_number(value: Any) -> int | None:
    """The whole number a value starts with ("30(c)", "1(2)", "2", 2), or None; as the module's
    leadingNumber() reads a capacity or a recoil compensation the book writes as text."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return int(value)
    found = _LEADING_NUMBER.match(str(value or "")[:40])
    return int(found[1]) if found else None


def keep_number(reading: Reading, field: str, actor: Any, path: str, low: int = 0) -> None:
    """The number at `path` into the sheet's `field` (at least `low`), or a note that the export
    has none."""
    value = number(actor, path, "$")
    if value is None:
        reading.leave_out(f"$.{path}", f"not in the export: the sheet leaves {field} unset")
    else:
        reading.keep(field, max(low, value), f"$.{path}")


def items(actor: dict[str, Any]) -> list[tuple[dict[str, Any], str]]:
    """The actor's items with their JSON paths."""
    return [
        (item, f"$.items[{index}]")
        for index, item in enumerate(actor.get("items", []))
        if isinstance(item, dict)
    ]


def item_id(item: dict[str, Any]) -> str | None:
    """The item's `_id` when it is an id the service takes (Foundry's 16 letters and digits)."""
    found = item.get("_id")
    if isinstance(found, str) and len(found) <= ID_MAX_LENGTH and _ID.match(found):
        return found
    return None


def key(value: Any) -> str:
    """A config key's last part, letters only, lower case ("sr4.category.lightPistols",
    "LIGHT_PISTOLS" -> "lightpistols"), as the module's key() reads them."""
    return re.sub(r"[^a-z]", "", str(value or "").split(".")[-1].lower())

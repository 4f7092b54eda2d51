"""The JSON log lines are laid out as before the serializer changed: the standard library's
`json.dumps` and structlog's own ISO time stamp, byte for byte where they can be."""

from __future__ import annotations

import datetime
import json
import re
from typing import Any

import pytest

from service import logs
from service.logs import UtcTimeStamper, json_line

REQUEST_LINE = {
    "method": "POST",
    "path": "/v1/encounters/abc/attacks",
    "status": 201,
    "duration_ms": 3.25,
    "event": "request",
    "request_id": "0f" * 16,
    "encounter": "abc",
    "cancelled": True,
    "nested": {"list": [1, 2.5, None, False], "empty": {}},
    "level": "info",
    "timestamp": "2026-12-01T07:30:00.123456Z",
}


def test_a_line_is_what_json_dumps_wrote() -> None:
    assert json_line(REQUEST_LINE) == json.dumps(REQUEST_LINE).encode()


def test_what_json_cannot_carry_is_its_repr_and_non_ascii_stays_the_same_text() -> None:
    class Odd:
        def __repr__(self) -> str:
            return "<odd>"

    line = json_line({"what": Odd(), "name": "Señor Ganger"})
    assert json.loads(line) == {"what": "<odd>", "name": "Señor Ganger"}


@pytest.mark.parametrize(
    "now", [1_764_574_200.0, 1_764_574_200.5, 1_764_574_200.000_25, 1_764_574_259.999_9]
)
def test_the_time_stamp_is_structlogs_iso_utc_one(now: float, monkeypatch: Any) -> None:
    monkeypatch.setattr(logs.time, "time", lambda: now)
    stamp = UtcTimeStamper()(None, "info", {})["timestamp"]
    expected = datetime.datetime.fromtimestamp(now, datetime.UTC).isoformat()
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z", stamp)
    # The same instant (to the microsecond float rounding allows), the same layout.
    parsed = datetime.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    assert abs(parsed.timestamp() - now) < 2e-6
    assert len(stamp) == len(expected.replace("+00:00", "Z"))


def test_the_stamp_follows_the_clock_across_seconds(monkeypatch: Any) -> None:
    clock = iter([1_764_574_200.25, 1_764_574_201.5])
    monkeypatch.setattr(logs.time, "time", lambda: next(clock))
    stamper = UtcTimeStamper()
    first = stamper(None, "info", {})["timestamp"]
    second = stamper(None, "info", {})["timestamp"]
    assert (first, second) == ("2025-12-01T07:30:00.250000Z", "2025-12-01T07:30:01.500000Z")

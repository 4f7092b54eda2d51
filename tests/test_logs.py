"""The JSON log lines are laid out as before the serializer changed: the standard library's
`json.dumps` and structlog's own ISO time stamp, byte for byte where they can be."""

from __future__ import annotations

import asyncio
import datetime
import io
import json
import re
import sys
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import structlog

from service import logs
from service.api import middlewares
from service.config import Config
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


# --- the request line, written straight (service/logs.py, request_line) -----------------------


class _Stderr:
    """A stderr whose bytes the test reads."""

    def __init__(self) -> None:
        self.buffer = io.BytesIO()

    def flush(self) -> None:
        pass

    def write(self, text: str) -> int:
        return self.buffer.write(text.encode())


@pytest.fixture
def restored() -> Iterator[None]:
    """structlog's set-up and the straight request line put back as they were."""
    saved = structlog.get_config()
    line = logs._request_line
    yield
    structlog.configure(**saved)
    logs._request_line = line
    logs.new_context()


def _configured(monkeypatch: Any, level: str = "info", worker: int | None = None) -> _Stderr:
    stderr = _Stderr()
    monkeypatch.setattr(sys, "stderr", stderr)
    monkeypatch.setattr(logs.time, "time", lambda: 1_764_574_200.25)
    logs.configure_logging(Config(log_format="json", log_level=level, admin_key="k" * 32), worker)
    return stderr


def _lines(stderr: _Stderr) -> list[bytes]:
    return stderr.buffer.getvalue().splitlines()


@pytest.mark.parametrize("worker", [None, 2])
@pytest.mark.parametrize("cancelled", [False, True])
def test_the_request_line_is_the_bytes_structlogs_chain_writes(
    monkeypatch: Any, restored: None, cancelled: bool, worker: int | None
) -> None:
    stderr = _configured(monkeypatch, worker=worker)
    logs.new_context(request_id="0f" * 16)
    logs.bind(encounter="abc")
    fields: dict[str, Any] = {"method": "POST", "path": "/v1/x", "status": 201, "duration_ms": 1.5}
    if cancelled:
        fields["cancelled"] = True
    structlog.get_logger("firefight.api").info("request", **fields)
    logs.request_line(dict(fields))
    through_structlog, straight = _lines(stderr)
    assert straight == through_structlog
    expected = {
        **fields,
        "event": "request",
        "request_id": "0f" * 16,
        "encounter": "abc",
        "level": "info",
        "timestamp": "2025-12-01T07:30:00.250000Z",
    }
    if worker is not None:
        expected["worker"] = worker
    assert json.loads(straight) == expected
    assert straight == json.dumps(json.loads(straight)).encode()


def test_above_the_info_level_no_request_line_is_written(monkeypatch: Any, restored: None) -> None:
    stderr = _configured(monkeypatch, level="warning")
    logs.request_line({"method": "GET", "path": "/v1/x", "status": 200, "duration_ms": 1.0})
    structlog.get_logger("firefight.api").warning("shed", count=1)
    assert [json.loads(line)["event"] for line in _lines(stderr)] == ["shed"]


def test_a_context_is_the_requests_own_and_a_task_binds_apart(
    monkeypatch: Any, restored: None
) -> None:
    stderr = _configured(monkeypatch)
    log = structlog.get_logger("firefight.api")

    async def request() -> None:
        logs.new_context(request_id="r1")
        logs.bind(encounter="e1")

        async def aside() -> None:
            logs.bind(campaign="c1")
            log.info("aside")

        await asyncio.create_task(aside())
        log.info("after")

    async def another() -> None:
        log.info("another")

    asyncio.run(request())
    asyncio.run(another())
    context = {
        json.loads(line)["event"]: {
            k: v
            for k, v in json.loads(line).items()
            if k in ("request_id", "encounter", "campaign")
        }
        for line in _lines(stderr)
    }
    assert context == {
        "aside": {"request_id": "r1", "encounter": "e1", "campaign": "c1"},
        "after": {"request_id": "r1", "encounter": "e1"},
        "another": {},
    }


def test_what_a_line_says_itself_wins_over_the_context(monkeypatch: Any, restored: None) -> None:
    stderr = _configured(monkeypatch)
    logs.new_context(request_id="r1", encounter="e1")
    structlog.get_logger("firefight.api").info("moved", encounter="e2")
    logs.new_context()
    assert json.loads(_lines(stderr)[0])["encounter"] == "e2"


def test_a_made_request_id_is_a_uuid4s_hex(monkeypatch: Any) -> None:
    drawn = [bytes(range(16)), b"\xff" * 16, b"\x00" * 16]
    for random_bytes in drawn:
        monkeypatch.setattr(middlewares.os, "urandom", lambda n, b=random_bytes: b[:n])
        assert middlewares._request_id() == uuid.UUID(bytes=random_bytes, version=4).hex
    monkeypatch.undo()
    made = {middlewares._request_id() for _ in range(100)}
    assert len(made) == 100
    assert all(uuid.UUID(hex=made_id).version == 4 for made_id in made)

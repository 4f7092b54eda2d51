"""An event's `at`: the engine's clock writes what datetime's isoformat wrote, at a fraction of
its CPU (service/engine/core.py, UtcMillis)."""

from __future__ import annotations

import datetime
import re

import pytest

from service.engine.core import UtcMillis, _utc_now

EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)


def _datetimes(nanoseconds: int) -> str:
    # datetime.now() cuts the clock's nanoseconds down to microseconds (ROUND_FLOOR).
    moment = EPOCH + datetime.timedelta(microseconds=nanoseconds // 1000)
    return moment.isoformat(timespec="milliseconds")


@pytest.mark.parametrize(
    "nanoseconds",
    [
        0,
        1_764_574_200_000_000_000,  # a whole second
        1_764_574_200_123_456_789,
        1_764_574_200_999_999_999,  # the last nanosecond of a second stays in it
        1_764_574_259_999_500_000,  # the last of a minute
        1_767_225_599_999_999_999,  # the last of a year
        1_767_225_600_000_000_001,  # the first of the next
        951_782_400_500_000_000,  # 29 February 2000
    ],
)
def test_the_events_time_is_datetimes_isoformat_in_milliseconds(nanoseconds: int) -> None:
    assert UtcMillis().at(nanoseconds) == _datetimes(nanoseconds)


def test_the_time_of_day_follows_the_clock_across_seconds_and_back() -> None:
    clock = UtcMillis()
    seconds = [1_764_574_200, 1_764_574_200, 1_764_574_201, 1_764_574_261, 1_764_574_200]
    for number, second in enumerate(seconds):
        nanoseconds = second * 1_000_000_000 + number * 7_000_000
        assert clock.at(nanoseconds) == _datetimes(nanoseconds)


def test_the_engines_clock_reads_now() -> None:
    before = datetime.datetime.now(datetime.UTC).replace(microsecond=0)
    at = _utc_now()
    after = datetime.datetime.now(datetime.UTC)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00", at)
    assert before <= datetime.datetime.fromisoformat(at) <= after

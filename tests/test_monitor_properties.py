"""What every ruleset's condition monitor keeps to, whatever lands on it (hypothesis): no field
below 0, no track above its size (overflow at most one box past its own: dead), damage never
lowers a track, and a GM's numbers settled stay within the sizes too."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.d100 import D100Sheet
from schemas.monitor import Monitor
from schemas.sr3 import SR3Sheet
from schemas.sr4 import SR4Sheet
from schemas.sr5 import SR5Sheet
from service.rules import RULESETS
from service.rules.monitor import Dealt

attribute = st.none() | st.integers(1, 12)
SHEETS = {
    "sr5": st.none() | st.builds(SR5Sheet, body=attribute, willpower=attribute),
    "sr4": st.none() | st.builds(SR4Sheet, body=attribute, willpower=attribute),
    "sr3": st.none() | st.builds(SR3Sheet, body=attribute),
    "d100": st.none() | st.builds(D100Sheet, hit_points=st.none() | st.integers(1, 60)),
}
LOCATIONS = st.none() | st.sampled_from(["head", "torso", "left_leg"])
hits = st.lists(
    st.builds(
        Dealt,
        target=st.just("goon"),
        track=st.sampled_from(["physical", "stun"]),
        boxes=st.integers(0, 40),
        location=LOCATIONS,
    ),
    max_size=12,
)
boxes = st.integers(0, 1000)


def within(monitor: Monitor) -> None:
    status = monitor.status
    assert status is not None
    assert min(monitor.physical, monitor.stun, monitor.overflow, *monitor.wounds.values()) >= 0
    if status.physical_max is not None:
        assert monitor.physical <= status.physical_max
    if status.stun_max is not None:
        assert monitor.stun <= status.stun_max
    if status.overflow_max is not None:
        assert monitor.overflow <= status.overflow_max + 1
    assert max(monitor.physical, monitor.stun, monitor.overflow) <= 1000


@settings(max_examples=300, deadline=None)
@given(data=st.data(), ruleset=st.sampled_from(sorted(SHEETS)), hits=hits)
def test_damage_keeps_every_track_within_its_size_and_never_lowers_one(
    data: Any, ruleset: str, hits: list[Dealt]
) -> None:
    rules = RULESETS[ruleset].monitor
    assert rules is not None
    sheet = data.draw(SHEETS[ruleset])
    monitor = rules.settled(Monitor(), sheet)
    for one in hits:
        after = rules.damaged(monitor, one, sheet)
        within(after)
        assert after.physical >= monitor.physical
        assert after.stun >= monitor.stun
        assert after.overflow >= monitor.overflow
        assert all(after.wounds.get(k, 0) >= v for k, v in monitor.wounds.items())
        monitor = after


@settings(max_examples=200, deadline=None)
@given(
    data=st.data(),
    ruleset=st.sampled_from(sorted(SHEETS)),
    physical=boxes,
    stun=boxes,
    overflow=boxes,
)
def test_a_gms_numbers_settle_within_the_sizes(
    data: Any, ruleset: str, physical: int, stun: int, overflow: int
) -> None:
    rules = RULESETS[ruleset].monitor
    assert rules is not None
    sheet = data.draw(SHEETS[ruleset])
    set_ = Monitor(physical=physical, stun=stun, overflow=overflow)
    settled = rules.settled(set_, sheet)
    within(settled)
    # Settling cuts each track to its size and leaves the rest as the GM set it.
    status = settled.status
    assert status is not None

    def cut(value: int, size: int | None) -> int:
        return value if size is None else min(value, size)

    overflow_size = None if status.overflow_max is None else status.overflow_max + 1
    assert (settled.physical, settled.stun, settled.overflow) == (
        cut(physical, status.physical_max),
        cut(stun, status.stun_max),
        cut(overflow, overflow_size),
    )
    assert rules.settled(settled, sheet) == settled

"""What a ruleset makes of a condition monitor (schemas/monitor.py): the shared contract.

Each ruleset that the service keeps monitors for (sr5, sr4, sr3, d100) gives a `MonitorRules`
as its `monitor`; Hard Life keeps its own monitors in its combat state and gives None. Pure:
the engine (service/engine) writes what these return.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from schemas.monitor import Monitor, MonitorStatus, Track


@dataclass(frozen=True, slots=True)
class Dealt:
    """Damage a result dealt to one actor: boxes on a track (d100: hit points, at a location)."""

    target: str
    track: Track
    boxes: int
    location: str | None = None
    # What dealt it, in words a player reads: "attack by sam".
    source: str = ""


class MonitorRules(Protocol):
    @property
    def source(self) -> str:
        """Where the monitor's numbers come from (rules-sources file and section, or the
        published core rules the README points to)."""
        ...

    def status(self, sheet: Any | None, monitor: Monitor) -> MonitorStatus:
        """What `monitor` means for an actor with `sheet` (None: no sheet; sizes the sheet
        cannot give are None)."""
        ...

    def damaged(self, monitor: Monitor, dealt: Dealt, sheet: Any | None) -> Monitor:
        """`monitor` with `dealt` written on it (overflow and all) and its status worked out."""
        ...

    def settled(self, monitor: Monitor, sheet: Any | None) -> Monitor:
        """`monitor` as the GM or a client wrote it, within what the sheet allows (a track
        never holds more than its size), with its status worked out again."""
        ...

    def dealt(self, result: Any) -> list[Dealt]:
        """The damage an attack's, a zone test's or an action's result deals, per target, in
        the order the result has it (none for a miss, a graze or a result without damage)."""
        ...

    def wounded(self, sheet: Any, status: MonitorStatus) -> Any:
        """`sheet` as attacks, defenses, zone tests and the initiative read it, its wound
        fields set from `status` (the monitor's wounds replace the sheet's typed ones)."""
        ...

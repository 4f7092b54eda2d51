"""When an encounter expires, as GET /v1/encounters/{id} tells it: worked out from the id of its
newest event, with no read of its own.

Every store makes an event id "<milliseconds>-<sequence>" from its clock at the write that
appends it, and every write that keeps an encounter (create, commit, end) appends one and sets
its TTL in the same atomic step (service/store/base.py). So the newest event's milliseconds are
when the TTL was last set, and the encounter expires that long after them.
"""

from __future__ import annotations

import datetime

from service.store import lasting, parse_event_id

EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)


def expiry(
    encounter_id: str,
    last_event_id: str | None,
    ended: bool,
    ttl_seconds: int | None,
    ended_ttl_seconds: int,
) -> tuple[str | None, int | None]:
    """When the encounter expires (ISO 8601 UTC with milliseconds, as `created_at`) and how long
    any change keeps it from then on; (None, None) when nothing expires. An ended encounter
    expires `ended_ttl_seconds` after its end, and no change keeps it any longer (None)."""
    if last_event_id is None:
        return None, None
    if ended:
        kept_for, refreshed = ended_ttl_seconds, None
    elif ttl_seconds is None or lasting(encounter_id):
        return None, None
    else:
        kept_for, refreshed = ttl_seconds, ttl_seconds
    written_ms, _ = parse_event_id(last_event_id)
    # Whole milliseconds, never a float's rounding.
    at = EPOCH + datetime.timedelta(milliseconds=written_ms + kept_for * 1000)
    return at.isoformat(timespec="milliseconds"), refreshed

"""What a use case refuses with, beyond the rules' own RuleViolation: the API maps each to its
problem."""

from __future__ import annotations

from service.engine.access import Forbidden, Unauthorized

__all__ = [
    "EncounterEnded",
    "EncounterNotFound",
    "Forbidden",
    "IdempotencyConflict",
    "IdempotencyInProgress",
    "LimitExceeded",
    "NotNewest",
    "StateChanged",
    "StoreContention",
    "Unauthorized",
]


class EncounterNotFound(LookupError):
    def __init__(self, encounter_id: str) -> None:
        super().__init__(f"no encounter '{encounter_id}' (it may have expired)")
        self.encounter_id = encounter_id


class EncounterEnded(LookupError):
    def __init__(self, encounter_id: str) -> None:
        super().__init__(f"encounter '{encounter_id}' has ended; its events stay readable a while")
        self.encounter_id = encounter_id


class LimitExceeded(ValueError):
    """The request would take the encounter past one of the service's limits (422)."""


class StateChanged(RuntimeError):
    """An edit made on a version of the state the encounter has moved past (409): written, it
    would undo what changed in between."""

    # The request's field that named what it was made on.
    path = "$.version"

    def __init__(self, asked: int, now: int) -> None:
        super().__init__(
            f"the encounter is at version {now}, not {asked}: it changed since it was read; "
            "read it again (GET) and make the edit on that"
        )
        self.asked = asked
        self.now = now


class NotNewest(StateChanged):
    """An undo of a change that is not the newest one (another landed since, or a double click
    undid it already): nothing is undone (409 `state-changed`)."""

    path = "$.event"

    def __init__(self, asked: str, newest: str | None) -> None:
        RuntimeError.__init__(
            self,
            f"event '{asked}' is not the newest change an undo would take back"
            + (f" ('{newest}' is)" if newest is not None else " (there is none)")
            + ": read the events again and undo what they show",
        )
        self.asked_event = asked
        self.newest = newest


class StoreContention(RuntimeError):
    """The state kept changing under the request; the client may retry."""


class IdempotencyConflict(ValueError):
    """The Idempotency-Key was used before for a different request (422)."""


class IdempotencyInProgress(RuntimeError):
    """A request with this Idempotency-Key is still running (409)."""

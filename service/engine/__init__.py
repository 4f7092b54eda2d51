"""Use cases, one per request: who asks, the encounter's state, its ruleset, the commit."""

from service.engine.documents import StateLimitExceeded, StoredStateInvalid
from service.engine.encounters import EVENTS_PAGE, Admitted, Answer, Encounters
from service.engine.errors import (
    EncounterEnded,
    EncounterNotFound,
    Forbidden,
    IdempotencyConflict,
    IdempotencyInProgress,
    LimitExceeded,
    StateChanged,
    StoreContention,
    Unauthorized,
)
from service.engine.events import event_json
from service.engine.scene import ActorNotFound

__all__ = [
    "EVENTS_PAGE",
    "ActorNotFound",
    "Admitted",
    "Answer",
    "EncounterEnded",
    "EncounterNotFound",
    "Encounters",
    "Forbidden",
    "IdempotencyConflict",
    "IdempotencyInProgress",
    "LimitExceeded",
    "StateChanged",
    "StateLimitExceeded",
    "StoreContention",
    "StoredStateInvalid",
    "Unauthorized",
    "event_json",
]

"""Reading the stored events: the wire form of each, what a player's token may see of it, and an
actor's last attack found among them (the state keeps no history: the stream is the history)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from schemas.encounter import AttackResult
from service.engine import sight
from service.engine.migrations import event as upgraded_event
from service.engine.sight import SOMEONE
from service.rules.ruleset import EarlierAttack
from service.store import EncounterStore

# Second Chance finds the actor's last attack among this many newest events, read this many at a
# time (it follows the attack at once at the table: the first page nearly always holds it).
LAST_ATTACK_LOOKBACK = 1000
LAST_ATTACK_PAGE = 50


class _Head(msgspec.Struct):
    """What finding an actor's last attack, or whom an event is for, reads of each event (the
    rest is skipped)."""

    type: str
    actor: str | None = None
    gm_only: bool = False
    unseen_actor: bool = False
    hidden_actors: list[str] = []


_head = msgspec.json.Decoder(_Head)
_encoder = msgspec.json.Encoder()


def for_players(stored: bytes) -> bytes | None:
    """This stored event as players' tokens receive it: None for one about a hidden actor; an
    attack by a hidden actor names it "someone" (and leaves out the request that would name
    it and its gun); and every event without what it says of the hidden actors it names
    (`hidden_actors`, found when it was written), as every answer is (sight.redact); an undo
    without the count of changes left to undo."""
    head = _head.decode(stored)
    if head.gm_only:
        return None
    if head.type == "undo":
        # How many changes an undo could take back counts the hidden actors' too: players
        # are not told it.
        event = msgspec.json.decode(stored)
        (event.get("result") or {}).pop("left", None)
        stored = _encoder.encode(event)
    if not (head.unseen_actor or head.hidden_actors):
        return stored
    event = msgspec.json.decode(stored)
    hidden = set(event.pop("hidden_actors", ()))
    if head.unseen_actor:
        hidden.add(event["actor"])
        event.pop("request", None)
        result = event.get("result") or {}
        if "weapon" in result:
            result["weapon"] = SOMEONE
    return _encoder.encode(sight.Sight("player", frozenset(hidden)).redact(event))


class _Undone(msgspec.Struct):
    undone: str | None = None


class _Looked(msgspec.Struct):
    """What finding an actor's last attack reads of each event: an attack's actor, and the
    event an undo took back."""

    type: str
    actor: str | None = None
    result: _Undone | None = None


class _Attack(msgspec.Struct):
    # Empty when the event has none (attacks stored before events kept their request).
    request: msgspec.Raw = msgspec.Raw()
    result: msgspec.Raw = msgspec.Raw()


# StoredEvent encodes `type` first: the end is spotted without decoding every event.
_ENDED = b'{"type":"encounter_ended"'


def ends_encounter(stored: bytes) -> bool:
    """Whether this stored event is the encounter's end (the last it will have)."""
    return stored.startswith(_ENDED)


def event_json(event_id: str, stored: bytes) -> bytes:
    """The wire event: the stored JSON object with its stream id put first."""
    return b'{"id":"' + event_id.encode() + b'",' + stored[1:]


class AttackEvents:
    """Finds an actor's newest attack by its event, and reads it as the ruleset's types."""

    def __init__(self, attack_types: Mapping[str, type[Any]]) -> None:
        self._looked = msgspec.json.Decoder(_Looked)
        self._attack = msgspec.json.Decoder(_Attack)
        self._requests = {
            ruleset_id: msgspec.json.Decoder(attack_type)
            for ruleset_id, attack_type in attack_types.items()
        }
        self._result = msgspec.json.Decoder(AttackResult)

    async def last_attack(
        self, store: EncounterStore, encounter_id: str, actor: str, ruleset_id: str
    ) -> EarlierAttack | None:
        """The actor's newest attack, from its event, within the last LAST_ATTACK_LOOKBACK
        events (None past them, or without one). An attack an undo took back is not one: its
        event stays in the stream, and the undo's, newer, names it."""
        before: str | None = None
        seen = 0
        undone: set[str] = set()
        while seen < LAST_ATTACK_LOOKBACK:
            page = await store.events_before(encounter_id, before, LAST_ATTACK_PAGE)
            for event_id, stored in page:
                head = self._looked.decode(stored)
                if head.type == "undo" and head.result is not None and head.result.undone:
                    undone.add(head.result.undone)
                elif head.type == "attack" and head.actor == actor and event_id not in undone:
                    return self._attack_of(stored, ruleset_id)
                before = event_id
            seen += len(page)
            if len(page) < LAST_ATTACK_PAGE:
                return None
        return None

    def _attack_of(self, stored: bytes, ruleset_id: str) -> EarlierAttack | None:
        """The attack an event keeps; None for one this version cannot read (or from before
        events kept their request): the rules then find no attack to follow up."""
        event = self._attack.decode(upgraded_event(stored))
        if not event.request or not event.result:
            return None
        try:
            request = self._requests[ruleset_id].decode(event.request)
            return EarlierAttack(request=request, result=self._result.decode(event.result))
        except msgspec.ValidationError:
            return None

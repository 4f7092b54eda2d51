"""Reading the stored events: the wire form of each, what a player's token may see of it, and an
actor's last attack found among them (the state keeps no history: the stream is the history)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import msgspec

from schemas.encounter import AttackResult
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
# How players' events name an actor they cannot see.
SOMEONE = "someone"


def for_players(stored: bytes) -> bytes | None:
    """This stored event as players' tokens receive it: None for one about a hidden actor; an
    attack by a hidden actor names it "someone" (and leaves out the request that would name
    it and its gun); every other event as it is."""
    head = _head.decode(stored)
    if head.gm_only:
        return None
    if head.hidden_actors:
        return _encoder.encode(_without_hidden(msgspec.json.decode(stored), head.hidden_actors))
    if not head.unseen_actor:
        return stored
    event = msgspec.json.decode(stored)
    event["actor"] = SOMEONE
    event.pop("request", None)
    result = event.get("result") or {}
    for name in ("attacker", "actor"):
        if name in result:
            result[name] = SOMEONE
    if "weapon" in result:
        result["weapon"] = SOMEONE
    for zone in event.get("zones_started", []):
        zone["shooter"] = SOMEONE
    return _encoder.encode(event)


def _without_hidden(event: dict[str, Any], hidden_actors: list[str]) -> dict[str, Any]:
    """An initiative or advance event without the hidden actors in the order: players learn
    neither their names nor their scores (the acting one is "someone")."""
    hidden = set(hidden_actors)
    del event["hidden_actors"]
    result = event.get("result") or {}
    if event.get("actor") in hidden:
        event["actor"] = SOMEONE
    if isinstance(result.get("turn"), dict):
        result["turn"] = turn_without(result["turn"], hidden)
    if "entries" in result:
        result["entries"] = [e for e in result["entries"] if e["actor"] not in hidden]
        result["actors"] = [a for a in result["actors"] if a not in hidden]
        result["dice"] = [d for d in result["dice"] if d["step"].partition(":")[2] not in hidden]
        if result.get("current") in hidden:
            result["current"] = SOMEONE
    for blast in result.get("went_off", []):
        # Players see the blast, not who hidden it reached or who threw it.
        blast["hits"] = [h for h in blast["hits"] if h["actor"] not in hidden]
        blast["dice"] = [d for d in blast["dice"] if d["step"].partition(":")[2] not in hidden]
        if blast["thrower"] in hidden:
            blast["thrower"] = SOMEONE
    named = re.compile(
        r"(?<![\w.:-])(" + "|".join(map(re.escape, sorted(hidden))) + r")(?![\w.:-])"
    )
    result["effects"] = [named.sub(SOMEONE, text) for text in result.get("effects", [])]
    return event


def turn_without(turn: dict[str, Any], hidden: set[str]) -> dict[str, Any]:
    """A turn (as JSON) without the hidden actors in its initiative."""
    if turn.get("action_phase") in hidden:
        turn = {**turn, "action_phase": SOMEONE}
    initiative = turn.get("initiative")
    if isinstance(initiative, dict):
        initiative = {
            **initiative,
            "entries": [e for e in initiative["entries"] if e["actor"] not in hidden],
        }
        if initiative.get("current") in hidden:
            initiative["current"] = SOMEONE
        turn = {**turn, "initiative": initiative}
    return turn


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
        self._head = _head
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
        events (None past them, or without one)."""
        before: str | None = None
        seen = 0
        while seen < LAST_ATTACK_LOOKBACK:
            page = await store.events_before(encounter_id, before, LAST_ATTACK_PAGE)
            for event_id, stored in page:
                head = self._head.decode(stored)
                if head.type == "attack" and head.actor == actor:
                    return self._attack_of(stored, ruleset_id)
                before = event_id
            seen += len(page)
            if len(page) < LAST_ATTACK_PAGE:
                return None
        return None

    def _attack_of(self, stored: bytes, ruleset_id: str) -> EarlierAttack | None:
        """The attack an event keeps; None for one this version cannot read (or from before
        events kept their request): the rules then find no attack to follow up."""
        event = self._attack.decode(stored)
        if not event.request or not event.result:
            return None
        try:
            request = self._requests[ruleset_id].decode(event.request)
            return EarlierAttack(request=request, result=self._result.decode(event.result))
        except msgspec.ValidationError:
            return None

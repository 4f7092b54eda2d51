"""The encounter's dice secret as the store keeps it, and what its events say of it
(docs/dice.md).

The secret lives in a document field of its own ("dice"), beside the head, never in it: the
head is what GET shows of a state the version cannot read, what undo records copy and what
every change rewrites; the secret is none of those. No answer, event or log holds it before it
is revealed (service/engine/reveal.py), and only the current one is kept: those before it are
in their reveal events.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping

import msgspec

from schemas.fair import DiceCommitment, DiceRevealed, EventDice
from service.rules import fair
from service.rules.dice import Dice, FairKey

DICE_FIELD = "dice"
# The seeds tokens set for themselves (`PUT .../dice/client-seed`), by role: one per token the
# encounter gives (the GM's, the shared player token, each player's own), so at most MAX_PLAYERS
# + 2. Apart from the secret: a reveal replaces that, never these.
SEEDS_FIELD = "dice-seeds"


class DiceSecret(msgspec.Struct, array_like=True, frozen=True, gc=False):
    """The secret the encounter's dice roll with now, and the sequence of the first event it
    may roll for (the one after the event that published its commitment)."""

    secret: bytes
    first_sequence: int

    def __repr__(self) -> str:
        # Never in a log line or a traceback.
        return f"DiceSecret(<{len(self.secret)} bytes>, first_sequence={self.first_sequence})"

    @property
    def commitment(self) -> str:
        return fair.commitment(self.secret)

    def published(self) -> DiceCommitment:
        return DiceCommitment(fair.HMAC_VERSION, self.commitment, self.first_sequence)

    def revealed(self, last_sequence: int) -> DiceRevealed:
        return DiceRevealed(
            version=fair.HMAC_VERSION,
            commitment=self.commitment,
            secret=self.secret.hex(),
            first_sequence=self.first_sequence,
            last_sequence=last_sequence,
        )


_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(DiceSecret)


def new_secret(first_sequence: int) -> DiceSecret:
    """A fresh secret (32 bytes from the system's CSPRNG) for the events from `first_sequence`."""
    return DiceSecret(secrets.token_bytes(fair.SECRET_BYTES), first_sequence)


def encoded(kept: DiceSecret) -> bytes:
    return _encoder.encode(kept)


def kept_secret(fields: Mapping[str, bytes]) -> DiceSecret | None:
    """The document's secret; None for an encounter from before secrets (or one whose field
    this version cannot read: its dice are then seeded, as before secrets)."""
    field = fields.get(DICE_FIELD)
    if field is None:
        return None
    try:
        return _decoder.decode(field)
    except msgspec.DecodeError:
        return None


_seeds_decoder = msgspec.msgpack.Decoder(dict[str, str])


def token_seeds(fields: Mapping[str, bytes]) -> dict[str, str]:
    """The seeds tokens set for themselves, by role (none: {})."""
    field = fields.get(SEEDS_FIELD)
    if field is None:
        return {}
    try:
        return _seeds_decoder.decode(field)
    except msgspec.DecodeError:
        return {}


def encoded_seeds(seeds: Mapping[str, str]) -> bytes:
    return _encoder.encode(dict(sorted(seeds.items())))


def fair_key(
    fields: Mapping[str, bytes],
    encounter_id: str,
    sequence: int,
    client_seed: str | None,
    role: str | None = None,
) -> FairKey | None:
    """What a request's dice are keyed on, for the event of `sequence`; None without a secret.
    The request's own seed, or else the one its token (`role`) set."""
    kept = kept_secret(fields)
    if kept is None:
        return None
    if client_seed is None and role is not None:
        client_seed = token_seeds(fields).get(role)
    return FairKey(kept.secret, encounter_id, sequence, client_seed)


def event_dice(dice: Dice) -> EventDice | None:
    """What the event of a request that rolled `dice` keeps of them: None when it rolled none."""
    rolls = dice.rolls
    if not rolls:
        return None
    key = dice.fair
    if key is None:
        return EventDice(version=fair.MT_VERSION)
    return EventDice(
        version=fair.HMAC_VERSION,
        commitment=fair.commitment(key.secret),
        sequence=key.sequence,
        client_seed=key.client_seed,
        rolls=rolls,
    )

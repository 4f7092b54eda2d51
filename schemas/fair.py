"""Provably fair dice on the wire (docs/dice.md): the commitment an encounter publishes before
its dice, what an event that rolled records for its proof, and the reveal that opens a secret."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from schemas.common import DiceRoll, Request

# "hmac-sha256-1": the encounter's committed secret (docs/dice.md); "mt19937-1": a seed (one the
# request gave, a replay, or the server's in an encounter from before secrets).
DiceVersion = Literal["hmac-sha256-1", "mt19937-1"]
# A player's own seed, mixed into the dice of its request: printable ASCII (no line break, so
# the derivation's message stays unambiguous), at most 64 characters. `(?!\n)`: see ID_PATTERN.
ClientSeed = Annotated[str, msgspec.Meta(min_length=1, max_length=64, pattern=r"^[ -~]+$(?!\n)")]


class DiceCommitment(msgspec.Struct, gc=False):
    """A secret taking over the encounter's dice from `first_sequence` on: its SHA-256 (hex) is
    all that is published until it is revealed."""

    version: DiceVersion
    commitment: str
    first_sequence: int


class EventDice(msgspec.Struct, omit_defaults=True, gc=False):
    """What an event that rolled keeps for its proof: the dice version, and under the HMAC
    version the commitment of the secret it rolled with, the event's sequence, the player's
    seed, and every die of the request in the order drawn (the result shows the same dice where
    its rules report them)."""

    version: DiceVersion
    commitment: str | None = None
    sequence: int | None = None
    client_seed: str | None = None
    rolls: list[DiceRoll] = []


class DiceRevealed(msgspec.Struct, tag="dice_revealed", tag_field="kind", gc=False):
    """A secret opened: the commitment it opens, the secret (hex), and the sequences of the
    events it rolled for (from the one it took over at to the last before this reveal)."""

    version: DiceVersion
    commitment: str
    secret: str
    first_sequence: int
    last_sequence: int


class DiceReveal(Request):
    """`POST .../dice/reveal` takes no fields (an empty body, or `{}`)."""


class ClientSeedSet(Request):
    """`PUT .../dice/client-seed`: the asking token's own seed, mixed into the dice of its
    requests that give none (null: none any more)."""

    client_seed: ClientSeed | None


class ClientSeedResult(msgspec.Struct, tag="dice_seeded", tag_field="kind", gc=False):
    """A token set (or cleared) its dice seed: which kind of token, and a player's own token's
    player; not the seed, which each event that rolls with it records."""

    token: Literal["gm", "player"]
    player: str | None
    has_seed: bool

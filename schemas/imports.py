"""What a character import says it did: each sheet field and where it was read from, and what
of the file was left out and why (docs/imports.md). Nothing of a file is guessed silently."""

from __future__ import annotations

from typing import Literal

import msgspec

SourceFormat = Literal[
    "chummer5", "chummer4", "foundry-shadowrun5e", "foundry-shadowrun4e", "foundry-sr3e"
]

Ruleset = Literal["sr5", "sr4", "sr3"]

# What `POST .../actors/{actor}/import?format=` reads: a Chummer 5 or Chummer 4 character, or a
# Foundry actor's export (its system says which ruleset).
ImportFormat = Literal["chummer5", "chummer4", "foundry"]


class ReadField(msgspec.Struct, frozen=True, gc=False):
    """A sheet field (`agility`, `weapons[1].rc`) and what of the file it came from."""

    field: str
    source: str
    value: str


class LeftOut(msgspec.Struct, frozen=True, gc=False):
    """A part of the file the sheet does not carry (a melee weapon, an unknown category)."""

    source: str
    reason: str


class ImportReport(msgspec.Struct, gc=False):
    source_format: SourceFormat
    ruleset: Ruleset
    # The character's name as the file gives it ("" when it gives none).
    name: str
    read: list[ReadField]
    left_out: list[LeftOut]

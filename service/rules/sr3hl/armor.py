"""Hard Life armour per location (004, "Armour and Armour Degradation", Table 7): each piece's
rating at a location (its Table 7 row less the wear there), the layered rating of the pieces
worn (002, "Armor Layering"), the overall value (area effects, the Combat Pool) and the wear a
hit leaves on the pieces covering its location.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

import msgspec

from schemas.sr3 import SR3Armor
from schemas.sr3hl import ArmorRow, HLArmorPiece, HLRating, Location
from service.rules.sr3 import pool
from service.rules.sr3hl import tables

ArmorKind = Literal["ballistic", "impact"]
_NONE = HLRating()
# schemas/sr3hl.py Wear: the most a piece keeps worn at one location (far past any rating).
MAX_WEAR = 100


def rows_of(piece: HLArmorPiece) -> Mapping[ArmorRow, HLRating]:
    """The piece's rating on each Table 7 row it covers: its garment's, with `covers` in place
    of the garment's rows it names (a custom piece: `covers` alone)."""
    rows: dict[ArmorRow, HLRating] = {}
    if piece.garment is not None:
        for row, (ballistic, impact) in tables.GARMENTS[piece.garment].items():
            if row != "overall":
                rows[row] = HLRating(ballistic=ballistic, impact=impact)
    rows.update(piece.covers)
    return rows


def piece_rating(piece: HLArmorPiece, location: Location) -> HLRating:
    """004: the piece's row rating at `location` less its wear there, never below 0."""
    row = rows_of(piece).get(tables.ROW_OF[location], _NONE)
    wear = piece.wear.get(location, 0)
    return HLRating(ballistic=max(0, row.ballistic - wear), impact=max(0, row.impact - wear))


def covers(piece: HLArmorPiece, location: Location) -> bool:
    return tables.ROW_OF[location] in rows_of(piece)


def rating_at(pieces: Sequence[HLArmorPiece], location: Location, kind: ArmorKind) -> int:
    """The layered rating of the pieces covering `location` (002: the highest in full, each
    other half, rounded down), ballistic or impact."""
    return pool.layered(
        [getattr(piece_rating(p, location), kind) for p in pieces if covers(p, location)]
    )


def _overall_of(piece: HLArmorPiece) -> HLRating | None:
    if piece.overall is not None:
        return piece.overall
    if piece.garment is None:
        return None
    value = tables.GARMENTS[piece.garment].get("overall")
    if value is None:
        return None
    return HLRating(ballistic=value[0], impact=value[1])


def overall(pieces: Sequence[HLArmorPiece]) -> HLRating:
    """004, Table 7 "Overall": the layered overall values of the pieces (wear does not lower
    them); a helmet without its own overall value adds +1/+1 after layering (**choice**)."""
    values = [v for p in pieces if (v := _overall_of(p)) is not None]
    helmet = any(p.garment == "helmet" and p.overall is None for p in pieces)
    bonus = tables.HELMET_OVERALL_BONUS if helmet else 0
    return HLRating(
        ballistic=pool.layered([v.ballistic for v in values]) + bonus,
        impact=pool.layered([v.impact for v in values]) + bonus,
    )


def for_pool(pieces: Sequence[HLArmorPiece], quickness: int | None) -> SR3Armor:
    """The overall value as SR3's Combat Pool reads armour (004: the overall value sets the
    armour's cost to the Combat Pool, SR3 p. 285)."""
    value = overall(pieces)
    return SR3Armor(
        ballistic=value.ballistic,
        impact=value.impact,
        pool_penalty=pool.armor_penalty(value.ballistic, value.impact, quickness),
    )


def degraded(
    pieces: Sequence[HLArmorPiece], location: Location, points: int
) -> tuple[list[HLArmorPiece], int]:
    """004, "Armour Degradation": `points` taken off the pieces covering `location`, one at a
    time, the first piece (list order) first, then the next, round and round, skipping pieces
    with nothing left there. Returns the pieces and the points actually taken."""
    worn = list(pieces)
    taken = 0
    order = [i for i, p in enumerate(worn) if covers(p, location)]
    turn = 0
    while taken < points:
        left = [
            i
            for i in order
            if max(
                piece_rating(worn[i], location).ballistic, piece_rating(worn[i], location).impact
            )
            > 0
        ]
        if not left:
            break
        # The next piece in turn that has something left.
        candidates = [i for i in order[turn:] + order[:turn] if i in left]
        index = candidates[0]
        piece = worn[index]
        wear = dict(piece.wear)
        wear[location] = min(wear.get(location, 0) + 1, MAX_WEAR)
        worn[index] = msgspec.structs.replace(piece, wear=wear)
        taken += 1
        turn = (order.index(index) + 1) % len(order)
    return worn, taken

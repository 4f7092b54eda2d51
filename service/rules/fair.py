"""Provably fair dice (docs/dice.md): every server die of an encounter comes from a secret the
encounter committed to before the fight (its SHA-256 is published), keyed into HMAC-SHA256 over
what the die is for, so once the secret is revealed anyone can redo every die in a few lines.

A die of `sides` faces is one byte of a step's stream, taken by rejection sampling: a byte b
below 256 - 256 % sides gives the face b % sides + 1, any other is skipped. A step's stream is
the HMAC blocks of its message with counter 0, 1, 2... read byte by byte; the faces of one step
continue its stream across calls (exploding sixes, the Rule of Six), in the order they are drawn.

The engine (service/rules/dice.py) and the verifier (service/verify.py) both roll through
`StepStream`, so what the one wrote the other redoes by the same code and, with the documented
message, by any other (service/console/verify.js; docs/dice.md's `openssl` example).
"""

from __future__ import annotations

import functools
import hashlib
import hmac
from typing import Final

# The dice versions an event names. Events stored before dice versions existed roll as MT.
HMAC_VERSION: Final = "hmac-sha256-1"
MT_VERSION: Final = "mt19937-1"
SECRET_BYTES = 32
# A face is one byte: a die has at most this many sides.
MAX_SIDES = 256
BLOCK_BYTES = 32
# A player's own seed: printable ASCII (no line break can make two messages alike), bounded.
CLIENT_SEED_MAX_LENGTH = 64
CLIENT_SEED_PATTERN = r"^[ -~]+$(?!\n)"


def commitment(secret: bytes) -> str:
    """What the encounter publishes before its dice: SHA-256 of the secret, in hex."""
    return hashlib.sha256(secret).hexdigest()


def message(
    encounter: str, sequence: int, step: str, client_seed: str | None, counter: int
) -> bytes:
    """The HMAC message of one block: six lines joined by "\\n" (none ends the last), the
    version, the encounter id, the event's sequence and the step (decimal, as written), the
    player's seed (empty when none), the block counter (decimal, from 0). No field holds a
    line break (ids and step names are [A-Za-z0-9_.:-], the seed printable ASCII), so two
    different dice never share a message."""
    fields = (HMAC_VERSION, encounter, str(sequence), step, client_seed or "", str(counter))
    return "\n".join(fields).encode()


def block(
    secret: bytes, encounter: str, sequence: int, step: str, client_seed: str | None, counter: int
) -> bytes:
    return hmac.digest(
        secret, message(encounter, sequence, step, client_seed, counter), hashlib.sha256
    )


def derived_seed(secret: bytes, encounter: str, sequence: int, client_seed: str | None) -> int:
    """The event's `seed` under the HMAC version: the first 8 bytes of the empty step's first
    block, big-endian, shifted right by one (63 bits). It seeds only what a roll fixes for later
    (an SR4 grenade held to go off in a later pass); sending it back as `seed` rolls MT."""
    first = block(secret, encounter, sequence, "", client_seed, 0)
    return int.from_bytes(first[:8], "big") >> 1


def accepted_below(sides: int) -> int:
    """The bytes below this give a face of a `sides` die; the others are skipped."""
    if not 1 <= sides <= MAX_SIDES:
        raise ValueError(f"a fair die has 1 to {MAX_SIDES} sides, not {sides}")
    return 256 - 256 % sides


class StepStream:
    """One step's stream of bytes, turned into faces as they are asked for."""

    __slots__ = ("_block", "_counter", "_offset", "_prefix", "_sequence", "_step", "secret")

    def __init__(
        self, secret: bytes, encounter: str, sequence: int, step: str, client_seed: str | None
    ) -> None:
        self.secret = secret
        self._step = step
        self._sequence = sequence
        self._prefix = message(encounter, sequence, step, client_seed, 0)[:-1]
        self._counter = 0
        self._block = b""
        self._offset = 0

    def __repr__(self) -> str:
        # The secret is never in a log line or a traceback.
        return f"StepStream({self._step!r}, sequence={self._sequence})"

    def draw(self, count: int, sides: int) -> list[int]:
        """The next `count` faces of a `sides` die: each block's bytes are read at C speed
        (bytes.translate drops the rejected ones and maps the others to face - 1), and a draw
        that ends inside a block leaves the rest of it to the next."""
        table, rejected, limit = _faces_of(sides)
        faces = bytearray()
        while len(faces) < count:
            if self._offset == len(self._block):
                # message(..., counter): the lines before the counter do not change.
                counter = str(self._counter).encode()
                self._block = hmac.digest(self.secret, self._prefix + counter, hashlib.sha256)
                self._counter += 1
                self._offset = 0
            rest = self._block[self._offset :]
            got = rest.translate(table, rejected)
            needed = count - len(faces)
            if len(got) <= needed:
                faces += got
                self._offset = len(self._block)
                continue
            faces += got[:needed]
            # Past the needed-th accepted byte, no further.
            for index, byte in enumerate(rest):
                if byte < limit:
                    needed -= 1
                    if needed == 0:
                        self._offset += index + 1
                        break
        return [face + 1 for face in faces]


@functools.cache
def _faces_of(sides: int) -> tuple[bytes, bytes, int]:
    """For a `sides` die: the translation of an accepted byte to its face - 1, the rejected
    bytes, and the bound below which a byte is accepted."""
    limit = accepted_below(sides)
    table = bytes(b % sides if b < limit else 0 for b in range(256))
    return table, bytes(range(limit, 256)), limit

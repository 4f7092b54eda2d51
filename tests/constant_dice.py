"""A hunt for tests that pass on luck: with this plugin, every seed the service picks for itself
(a request without `seed` or given dice) rolls one face on every die, so a test that counts on
a hit, a miss or a glitch it did not ask for fails every time instead of one run in sixty.

    FIREFIGHT_CONSTANT_DICE=0.5 .venv/bin/python -m pytest -p tests.constant_dice

The value is the face as a share of the die's sides, rounded up: 0.5 rolls a 3 on a d6 (no hit,
no glitch) and 50 on a d100; 0.17 rolls ones, 0.8 fives. Seeds a request gives, given dice, and
the rules tests' own `Dice(seed)` roll as always.

Fair dice (docs/dice.md): every encounter's secret is CONSTANT_SECRET, and the derivation the
engine and the verifier share (fair.StepStream) gives that secret the constant face, so events
the engine writes still verify; derivation tests with their own secrets are unaffected.

Not part of `make test`: a run per face, when a test has failed on dice (stop 21's CI did).
"""

from __future__ import annotations

import math
import os
import secrets
from typing import Any

import service.engine.core as engine_core
import service.engine.dice_keeping as dice_keeping
from service.rules import dice, fair

# The seed every server-picked roll gets (a test that gave this one would roll constant faces).
CONSTANT_SEED = 0x5EED_C0DE_0001
# The secret of every encounter's dice.
CONSTANT_SECRET = b"constant dice: one face, always!"
SHARE = float(os.environ.get("FIREFIGHT_CONSTANT_DICE", "0.5"))


class _Secrets:
    """The `secrets` module, but for the seed the engine draws."""

    def __getattr__(self, name: str) -> Any:
        return getattr(secrets, name)

    def randbits(self, k: int) -> int:
        return CONSTANT_SEED

    def token_bytes(self, n: int | None = None) -> bytes:
        return CONSTANT_SECRET


_rolled = dice.Dice._rolled


def _constant(self: dice.Dice, count: int, sides: int) -> list[int]:
    if self.seed == CONSTANT_SEED:
        return [max(1, math.ceil(SHARE * sides))] * count
    return _rolled(self, count, sides)


_draw = fair.StepStream.draw


def _constant_stream(self: fair.StepStream, count: int, sides: int) -> list[int]:
    if self.secret == CONSTANT_SECRET:
        return [max(1, math.ceil(SHARE * sides))] * count
    return _draw(self, count, sides)


# The engine draws a request's seed in service/engine/core.py (`_rolling`); a patch of a module
# that no longer draws it would leave every die random and the hunt find nothing.
engine_core.secrets = _Secrets()  # type: ignore[assignment]
dice.Dice._rolled = _constant  # type: ignore[method-assign]
# The engine draws an encounter's dice secret in service/engine/dice_keeping.py (`new_secret`).
dice_keeping.secrets = _Secrets()  # type: ignore[assignment]
fair.StepStream.draw = _constant_stream  # type: ignore[method-assign]

"""`python -m tests.constant_dice_service [service flags]`: the service with one face on every die
it picks, as the pytest plugin `tests/constant_dice.py` gives pytest, for tests that start the real
service in a process of their own (the Foundry module's node tests: their harness runs this module
instead of `python -m service` when `FIREFIGHT_CONSTANT_DICE` is set).

    FIREFIGHT_CONSTANT_DICE=0.5 make foundry-test
"""

from __future__ import annotations

import service.__main__ as service_main

# Importing the plugin applies its patch (the engine's seed and the dice it rolls), reading the
# face from FIREFIGHT_CONSTANT_DICE.
import tests.constant_dice  # noqa: F401

if __name__ == "__main__":
    raise SystemExit(service_main.main())

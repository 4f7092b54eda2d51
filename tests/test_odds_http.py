"""What the odds endpoints do whatever the ruleset: previews are computed in threads, at most
PREVIEW_THREADS at once in a process, so sampled ones cannot crowd out the event loop that
answers the table's attacks."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest

from service.engine import encounters
from service.rules.sr5 import SR5Ruleset
from tests import sr5_requests as make
from tests.test_api import new_encounter


async def test_previews_run_in_threads_a_few_at_a_time(
    memory_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    running, most = 0, 0
    lock = threading.Lock()
    loop_threads: set[int] = set()
    real = SR5Ruleset.attack_odds

    def slow(self: SR5Ruleset, *arguments: Any) -> Any:
        nonlocal running, most
        loop_threads.add(threading.get_ident())
        with lock:
            running += 1
            most = max(most, running)
        time.sleep(0.2)
        with lock:
            running -= 1
        return real(self, *arguments)

    monkeypatch.setattr(SR5Ruleset, "attack_odds", slow)
    encounter = await new_encounter(memory_client)
    path = f"/v1/encounters/{encounter}/attacks/odds"
    answers = await asyncio.gather(
        *(memory_client.post(path, json=make.attack()) for _ in range(6))
    )
    assert [a.status for a in answers] == [200] * 6
    assert most == encounters.PREVIEW_THREADS
    assert threading.get_ident() not in loop_threads
    # Meanwhile the event loop answered: a read while previews queue is not held up behind them.
    slow_ones = [memory_client.post(path, json=make.attack()) for _ in range(4)]
    started = time.monotonic()
    pending = asyncio.gather(*slow_ones)
    await asyncio.sleep(0)
    view = await memory_client.get(f"/v1/encounters/{encounter}")
    assert view.status == 200
    assert time.monotonic() - started < 0.2
    assert [a.status for a in await pending] == [200] * 4

"""The event loop a serving process runs on: uvloop's (libuv, in C) when it is installed, as it is
from the lock, or asyncio's own (`FIREFIGHT_EVENT_LOOP=asyncio`, or when uvloop is not there).

Every wake-up of a request (its bytes read, each Redis reply, each answer written) goes through
the loop: docs/performance.md, "Issue 28", says what the C loop saves per request.
"""

from __future__ import annotations

import asyncio
import importlib.util
from collections.abc import Callable, Coroutine
from typing import Any, Literal, TypeVar

# What an operator may ask for: "auto" is uvloop when installed, else asyncio.
EventLoopChoice = Literal["auto", "uvloop", "asyncio"]
EVENT_LOOP_CHOICES: tuple[EventLoopChoice, ...] = ("auto", "uvloop", "asyncio")
# What a process then runs on.
EventLoopKind = Literal["uvloop", "asyncio"]

T = TypeVar("T")


def uvloop_installed() -> bool:
    return importlib.util.find_spec("uvloop") is not None


def resolved(choice: EventLoopChoice) -> EventLoopKind:
    """The loop `choice` gives on this machine; "uvloop" when it is not installed is the
    caller's error to report (the configuration refuses it)."""
    if choice == "auto":
        return "uvloop" if uvloop_installed() else "asyncio"
    return choice


def loop_factory(kind: EventLoopKind) -> Callable[[], asyncio.AbstractEventLoop]:
    """A new loop of `kind` per call."""
    if kind == "uvloop":
        import uvloop

        return uvloop.new_event_loop
    return asyncio.new_event_loop


def run(main: Coroutine[Any, Any, T], choice: EventLoopChoice) -> T:
    """`asyncio.run(main)` on the loop `choice` gives."""
    with asyncio.Runner(loop_factory=loop_factory(resolved(choice))) as runner:
        return runner.run(main)

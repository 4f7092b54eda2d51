"""What odds previews may take of a process: each its bounded work (samples x the size of what it
samples), a few threads for them all, and a budget of previews in flight per token and per
encounter, so one player asking for previews without end cannot take every thread (and every
slot of the process's requests) from the other tables. A preview whose client has gone stops
between two samples.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import Counter
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import msgspec

from service.engine.access import token_hash
from service.engine.errors import LimitExceeded
from service.rules import odds

T = TypeVar("T")

# The work one preview may do, in samples x size units (`size`): about 2 s of one core here
# (Hard Life's full auto costs about 0.4 µs a unit, SR4's airburst among 100 actors and 50
# barriers about the same; docs/operations.md, "Previews").
DEFAULT_WORK = 5_000_000
# What an actor a blast may reach and a barrier it may meet add to a sample's cost, per pair,
# in units: each sample works out every actor's line past every barrier.
PAIR_UNITS = 4
# Previews in flight at once per token and per encounter in one process; beyond, 429.
DEFAULT_PER_TOKEN = 2
DEFAULT_PER_ENCOUNTER = 4
RETRY_AFTER_SECONDS = 1
_encoder = msgspec.json.Encoder()


class PreviewTooLarge(LimitExceeded):
    """More samples were asked of a preview than its work bound allows (422, naming `samples`)."""


class TooManyPreviews(RuntimeError):
    """The token or the encounter has as many previews in flight as it may (429)."""


def size(request: Any) -> int:
    """What one sample of `request` costs, in units: the bytes of the request as the scene
    filled it in (every actor, weapon and barrier it carries), and PAIR_UNITS for each actor
    and barrier a blast must weigh against each other."""
    actors = len(getattr(request, "bystanders", ()) or ())
    barriers = len(getattr(request, "barriers", ()) or ())
    return len(_encoder.encode(request)) + PAIR_UNITS * actors * barriers


@dataclass(frozen=True)
class Samples:
    """How many samples a preview takes, and why, when it takes fewer than the default."""

    count: int
    reduced_from: int | None = None


class Previews:
    """The process's previews: bounded, counted, run in threads, stopped when asked."""

    def __init__(
        self,
        threads: int,
        work: int = DEFAULT_WORK,
        per_token: int = DEFAULT_PER_TOKEN,
        per_encounter: int = DEFAULT_PER_ENCOUNTER,
    ) -> None:
        # With the defaults (3 threads, 2 previews a token) a token at its budget leaves a
        # thread to the others.
        self._threads = asyncio.Semaphore(threads)
        self.work = work
        self.per_token = per_token
        self.per_encounter = per_encounter
        self._by_token: Counter[str] = Counter()
        self._by_encounter: Counter[str] = Counter()
        # What tests and logs read: previews begun, ended early, samples drawn in all.
        self.started = 0
        self.stopped = 0
        self.samples_drawn = 0
        # Set whenever a preview begins or ends (and cleared by whoever waits on it).
        self.changed = asyncio.Event()
        # Told of each preview refused (its reason: "token_busy", "encounter_busy",
        # "too_large"), and of each that starts (+1) or ends (-1) computing: their metrics.
        self.on_refused: Callable[[str], object] = lambda reason: None
        self.on_running: Callable[[int], object] = lambda change: None

    def samples(self, asked: int | None, request: Any) -> Samples:
        """The samples `request` may take: those `asked` (422 naming `samples` past the work
        bound), or by default DEFAULT_SAMPLES, fewer when that is past the bound. Never fewer
        than MIN_SAMPLES: a preview costs at most MIN_SAMPLES x the largest body beyond the
        bound."""
        units = size(request)
        most = max(odds.MIN_SAMPLES, min(odds.MAX_SAMPLES, self.work // units))
        if asked is None:
            if most >= odds.DEFAULT_SAMPLES:
                return Samples(odds.DEFAULT_SAMPLES)
            return Samples(most, reduced_from=odds.DEFAULT_SAMPLES)
        if asked > most:
            self.on_refused("too_large")
            raise PreviewTooLarge(
                f"this preview may take at most {most} samples, not {asked}: a sample of it "
                f"costs {units} units and a preview at most {self.work}"
            )
        return Samples(asked)

    @contextlib.asynccontextmanager
    async def slot(self, encounter_id: str, credential: str | None) -> AsyncIterator[None]:
        """A place among the previews in flight of this token and this encounter, or
        TooManyPreviews at once (it does not wait: a client asking faster than its previews
        are answered is told so)."""
        token = token_hash(credential or "")
        if self._by_token[token] >= self.per_token:
            self.on_refused("token_busy")
            raise TooManyPreviews(
                f"this token has {self.per_token} previews in flight, as many as it may; "
                "retry when one is answered"
            )
        if self._by_encounter[encounter_id] >= self.per_encounter:
            self.on_refused("encounter_busy")
            raise TooManyPreviews(
                f"this encounter has {self.per_encounter} previews in flight, as many as it "
                "may; retry when one is answered"
            )
        self._by_token[token] += 1
        self._by_encounter[encounter_id] += 1
        try:
            yield
        finally:
            for counts, key in ((self._by_token, token), (self._by_encounter, encounter_id)):
                counts[key] -= 1
                if counts[key] <= 0:
                    del counts[key]

    async def run(
        self, compute: Callable[..., T], *arguments: Any, stop: threading.Event | None = None
    ) -> T:
        """`compute(*arguments)` in a thread, a few at a time. Setting `stop` (its client is
        gone), or cancelling this, ends a sampled one before its next sample (odds.Stopped);
        either way this returns only once the thread has let go of its core."""
        run = odds.Run(stop if stop is not None else threading.Event())

        def in_thread() -> T:
            with odds.running(run):
                return compute(*arguments)

        async with self._threads:
            self.started += 1
            self.changed.set()
            self.on_running(1)
            work = asyncio.ensure_future(asyncio.to_thread(in_thread))
            try:
                return await asyncio.shield(work)
            except asyncio.CancelledError:
                run.stop.set()
                try:
                    await work
                except odds.Stopped:
                    self.stopped += 1
                raise
            except odds.Stopped:
                self.stopped += 1
                raise
            finally:
                self.on_running(-1)
                self.samples_drawn += run.drawn
                self.changed.set()

"""The durable embedded store: the `EncounterStore` contract in one SQLite file, so that a GM's
laptop with no Redis loses nothing on a restart.

One process owns the file (SQLite's exclusive locking mode: a second process is refused when it
opens it), and one thread of that process runs every statement, one operation at a time, each in
a transaction of its own: a commit's fields, event, undo records and idempotency answer are
written all or none. Readers waiting on new events are woken by the commits of this process, as
in the memory store (no other process writes the file).
"""

from __future__ import annotations

import asyncio
import math
import sqlite3
import time
from collections.abc import AsyncIterator, Callable, Collection, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from service.store import sqlite_file
from service.store.base import (
    UNCHANGED,
    Answered,
    Committed,
    Conflict,
    EncounterExists,
    Events,
    Idempotency,
    IdempotencyKeyLost,
    Pending,
    StoredEncounter,
    StoreLimits,
    StoreUnavailable,
    Unchanged,
    UndoTop,
    lasting,
    parse_event_id,
)
from service.store.sqlite_file import Row, StoreRefused, event_id

__all__ = ["SQLiteStore", "StoreRefused"]

T = TypeVar("T")

# Encounter ids read per transaction by `encounter_ids`.
IDS_PAGE = 500


class SQLiteStore:
    def __init__(
        self,
        path: str | Path,
        limits: StoreLimits | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._path = Path(path)
        self._limits = limits or StoreLimits()
        self._clock = clock
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="firefight-sqlite")
        self._arrived = asyncio.Event()
        self._last_id = (0, 0)
        self._db: sqlite3.Connection | None = None
        # Set by close: later calls are refused at once (the thread is gone).
        self._closed = False
        try:
            self._thread.submit(self._open).result()
        except BaseException:
            self._thread.shutdown()
            raise

    # --- the store's thread ----------------------------------------------------------------------

    def _open(self) -> None:
        self._db, self._last_id = sqlite_file.open_file(self._path)
        # Whatever expired while no process served the file.
        self._atomic(lambda db, now: sqlite_file.sweep(db, now, limit=-1))

    @contextmanager
    def _transaction(self, db: sqlite3.Connection) -> Iterator[None]:
        """One operation, all or nothing; the event ids it gave are taken back with it."""
        last_id = self._last_id
        db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            db.execute("ROLLBACK")
            self._last_id = last_id
            raise
        db.execute("COMMIT")

    def _atomic(self, work: Callable[[sqlite3.Connection, float], T]) -> T:
        if self._db is None:
            raise StoreUnavailable("the store is closed")
        with self._transaction(self._db):
            return work(self._db, self._clock())

    async def _in_thread(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """`work` on the store's thread, in no transaction (the crash tests' seam)."""

        def run() -> T:
            if self._db is None:
                raise StoreUnavailable("the store is closed")
            return work(self._db)

        return await asyncio.get_running_loop().run_in_executor(self._thread, run)

    async def _run(self, work: Callable[[sqlite3.Connection, float], T]) -> T:
        if self._closed:
            raise StoreUnavailable("the store is closed")
        try:
            return await asyncio.get_running_loop().run_in_executor(
                self._thread, self._atomic, work
            )
        except sqlite3.OperationalError as error:
            # A full disk, a file gone read-only: the store cannot answer (503), and the
            # transaction wrote nothing.
            raise StoreUnavailable(f"{self._path}: {error}") from error

    def _woken(self) -> None:
        # Wake every reader, then arm a fresh event for the next wait.
        self._arrived.set()
        self._arrived = asyncio.Event()

    # --- rows ------------------------------------------------------------------------------------

    def _expiry(self, encounter_id: str, now: float) -> float | None:
        """When a live encounter written now expires (None: it stays until it ends)."""
        ttl_seconds = self._limits.ttl_seconds
        return None if ttl_seconds is None or lasting(encounter_id) else now + ttl_seconds

    def _next_id(self, db: sqlite3.Connection, now: float) -> tuple[int, int]:
        now_ms = int(now * 1000)
        ms, seq = self._last_id
        self._last_id = (now_ms, 0) if now_ms > ms else (ms, seq + 1)
        db.execute("UPDATE last_event SET ms = ?, seq = ?", self._last_id)
        return self._last_id

    def _append(
        self, db: sqlite3.Connection, encounter_id: str, row: Row, event: bytes, now: float
    ) -> str:
        ms, seq = self._next_id(db, now)
        db.execute("INSERT INTO events VALUES (?, ?, ?, ?)", (encounter_id, ms, seq, event))
        row.event_count += 1
        row.event_bytes += len(event)
        # The oldest go until the stream holds both caps (the newest always stays).
        if row.event_count > self._limits.max_events or (
            row.event_bytes > self._limits.max_event_stream_bytes
        ):
            oldest = db.execute(
                "SELECT ms, seq, length(body) FROM events WHERE encounter = ? ORDER BY ms, seq",
                (encounter_id,),
            )
            cut, row.event_count, row.event_bytes = sqlite_file.oldest_to_trim(
                (((ms, seq), size) for ms, seq, size in oldest),
                row.event_count,
                row.event_bytes,
                max(1, self._limits.max_events),
                self._limits.max_event_stream_bytes,
            )
            oldest.close()
            if cut is not None:
                db.execute(
                    "DELETE FROM events WHERE encounter = ? AND (ms, seq) <= (?, ?)",
                    (encounter_id, *cut),
                )
        return event_id(ms, seq)

    def _change_undo(
        self,
        db: sqlite3.Connection,
        encounter_id: str,
        row: Row,
        event_id: str,
        undo: bytes | None,
        undo_pop: bool,
    ) -> None:
        if undo_pop and row.undo_count:
            position, size = db.execute(
                "SELECT position, length(record) FROM undo WHERE encounter = ?"
                " ORDER BY position DESC LIMIT 1",
                (encounter_id,),
            ).fetchone()
            db.execute(
                "DELETE FROM undo WHERE encounter = ? AND position = ?", (encounter_id, position)
            )
            row.undo_count -= 1
            row.undo_bytes -= size
        if undo is None:
            return
        db.execute(
            "INSERT INTO undo SELECT ?, COALESCE(MAX(position), 0) + 1, ?, ? FROM undo"
            " WHERE encounter = ?",
            (encounter_id, event_id, undo, encounter_id),
        )
        row.undo_count += 1
        row.undo_bytes += len(undo)
        # The oldest go until both caps hold (the newest stays, unless none is kept at all).
        if row.undo_count > self._limits.max_undo or row.undo_bytes > self._limits.max_undo_bytes:
            oldest = db.execute(
                "SELECT position, length(record) FROM undo WHERE encounter = ? ORDER BY position",
                (encounter_id,),
            )
            cut, row.undo_count, row.undo_bytes = sqlite_file.oldest_to_trim(
                oldest,
                row.undo_count,
                row.undo_bytes,
                self._limits.max_undo,
                self._limits.max_undo_bytes,
            )
            oldest.close()
            if cut is not None:
                db.execute(
                    "DELETE FROM undo WHERE encounter = ? AND position <= ?", (encounter_id, cut)
                )

    def _keep(
        self,
        db: sqlite3.Connection,
        encounter_id: str,
        event_id: str,
        answer: bytes,
        idempotency: Idempotency | None,
        now: float,
    ) -> Committed:
        if idempotency is not None:
            db.execute(
                "INSERT OR REPLACE INTO idempotency VALUES (?, ?, ?, NULL, ?, ?, ?)",
                (
                    encounter_id,
                    idempotency.key,
                    now + self._limits.idempotency_ttl_seconds,
                    idempotency.fingerprint,
                    answer,
                    event_id,
                ),
            )
        return Committed(event_id)

    def _after(
        self, db: sqlite3.Connection, encounter_id: str, after: str, limit: int, now: float
    ) -> Events:
        if sqlite_file.live(db, encounter_id, now) is None:
            return []
        ms, seq = parse_event_id(after)
        found = db.execute(
            "SELECT ms, seq, body FROM events WHERE encounter = ? AND (ms, seq) > (?, ?)"
            " ORDER BY ms, seq LIMIT ?",
            (encounter_id, ms, seq, limit),
        )
        return [(event_id(ms, seq), body) for ms, seq, body in found]

    # --- the contract ----------------------------------------------------------------------------

    async def create(
        self,
        encounter_id: str,
        fields: Mapping[str, bytes],
        event: bytes,
        answer: bytes = b"",
        idempotency: Idempotency | None = None,
    ) -> Committed | Answered:
        def work(db: sqlite3.Connection, now: float) -> Committed | Answered:
            sqlite_file.sweep(db, now)
            if sqlite_file.live(db, encounter_id, now) is not None:
                kept = (
                    sqlite_file.read_key(db, encounter_id, idempotency.key, now)
                    if idempotency
                    else None
                )
                if kept is not None and kept[1] is not None:
                    return kept[1]
                raise EncounterExists(encounter_id)
            row = Row(1, False, self._expiry(encounter_id, now), 0, 0, 0, 0)
            db.execute("INSERT INTO encounters (id, version) VALUES (?, 1)", (encounter_id,))
            db.executemany(
                "INSERT INTO fields VALUES (?, ?, ?)",
                ((encounter_id, name, value) for name, value in fields.items()),
            )
            event_id = self._append(db, encounter_id, row, event, now)
            sqlite_file.save(db, encounter_id, row)
            return self._keep(db, encounter_id, event_id, answer, idempotency, now)

        outcome = await self._run(work)
        if isinstance(outcome, Committed):
            self._woken()
        return outcome

    async def load(
        self, encounter_id: str, known_version: int | None = None
    ) -> StoredEncounter | Unchanged | None:
        def work(db: sqlite3.Connection, now: float) -> StoredEncounter | Unchanged | None:
            row = sqlite_file.live(db, encounter_id, now)
            if row is None:
                return None
            if row.version == known_version:
                return UNCHANGED
            return sqlite_file.stored(db, encounter_id, row)

        return await self._run(work)

    async def begin(self, encounter_id: str, idempotency: Idempotency) -> Answered | Pending | None:
        def work(db: sqlite3.Connection, now: float) -> Answered | Pending | None:
            if sqlite_file.live(db, encounter_id, now) is None:
                return None  # the use case finds it missing when it loads it
            db.execute(
                "DELETE FROM idempotency WHERE encounter = ? AND expires_at <= ?",
                (encounter_id, now),
            )
            kept = sqlite_file.read_key(db, encounter_id, idempotency.key, now)
            if kept is not None:
                return kept[1] or Pending()
            db.execute(
                "INSERT INTO idempotency (encounter, key, expires_at, owner) VALUES (?, ?, ?, ?)",
                (
                    encounter_id,
                    idempotency.key,
                    now + self._limits.idempotency_pending_seconds,
                    idempotency.owner,
                ),
            )
            return None

        return await self._run(work)

    async def abandon(self, encounter_id: str, idempotency: Idempotency) -> None:
        def work(db: sqlite3.Connection, now: float) -> None:
            db.execute(
                "DELETE FROM idempotency WHERE encounter = ? AND key = ? AND owner = ?",
                (encounter_id, idempotency.key, idempotency.owner),
            )

        await self._run(work)

    async def commit(
        self,
        encounter_id: str,
        expected_version: int,
        changed: Mapping[str, bytes],
        removed: Collection[str],
        event: bytes,
        answer: bytes = b"",
        idempotency: Idempotency | None = None,
        undo: bytes | None = None,
        undo_pop: bool = False,
    ) -> Committed | Conflict:
        def work(db: sqlite3.Connection, now: float) -> Committed | Conflict:
            row = sqlite_file.live(db, encounter_id, now)
            if row is None:
                return Conflict(None)
            if row.ended or row.version != expected_version:
                return Conflict(sqlite_file.stored(db, encounter_id, row))
            if idempotency is not None:
                kept = sqlite_file.read_key(db, encounter_id, idempotency.key, now)
                if kept is None or kept[0] != idempotency.owner:
                    raise IdempotencyKeyLost(encounter_id)
            row.version += 1
            db.executemany(
                "INSERT OR REPLACE INTO fields VALUES (?, ?, ?)",
                ((encounter_id, name, value) for name, value in changed.items()),
            )
            db.executemany(
                "DELETE FROM fields WHERE encounter = ? AND name = ?",
                ((encounter_id, name) for name in removed),
            )
            event_id = self._append(db, encounter_id, row, event, now)
            self._change_undo(db, encounter_id, row, event_id, undo, undo_pop)
            row.expires_at = self._expiry(encounter_id, now)
            sqlite_file.save(db, encounter_id, row)
            return self._keep(db, encounter_id, event_id, answer, idempotency, now)

        outcome = await self._run(work)
        if isinstance(outcome, Committed):
            self._woken()
        return outcome

    async def undo_top(self, encounter_id: str) -> UndoTop | None:
        if self._limits.max_undo == 0:
            return None  # records kept under an earlier setting are not undone

        def work(db: sqlite3.Connection, now: float) -> UndoTop | None:
            row = sqlite_file.live(db, encounter_id, now)
            if row is None or row.ended or not row.undo_count:
                return None
            event_id, record = db.execute(
                "SELECT event_id, record FROM undo WHERE encounter = ?"
                " ORDER BY position DESC LIMIT 1",
                (encounter_id,),
            ).fetchone()
            return UndoTop(event_id, record, row.undo_count)

        return await self._run(work)

    async def delete(self, encounter_id: str, event: bytes) -> str | None:
        def work(db: sqlite3.Connection, now: float) -> str | None:
            row = sqlite_file.live(db, encounter_id, now)
            if row is None or row.ended:
                return None
            row.ended = True
            row.version += 1
            db.execute("DELETE FROM undo WHERE encounter = ?", (encounter_id,))
            row.undo_count = row.undo_bytes = 0
            event_id = self._append(db, encounter_id, row, event, now)
            row.expires_at = now + self._limits.ended_ttl_seconds
            sqlite_file.save(db, encounter_id, row)
            return event_id

        event_id = await self._run(work)
        if event_id is not None:
            self._woken()
        return event_id

    async def events_after(self, encounter_id: str, after: str, limit: int) -> Events:
        return await self._run(lambda db, now: self._after(db, encounter_id, after, limit, now))

    async def events_before(self, encounter_id: str, before: str | None, limit: int) -> Events:
        def work(db: sqlite3.Connection, now: float) -> Events:
            if sqlite_file.live(db, encounter_id, now) is None:
                return []
            ms, seq = (math.inf, math.inf) if before is None else parse_event_id(before)
            found = db.execute(
                "SELECT ms, seq, body FROM events WHERE encounter = ? AND (ms, seq) < (?, ?)"
                " ORDER BY ms DESC, seq DESC LIMIT ?",
                (encounter_id, ms, seq, limit),
            )
            return [(event_id(ms, seq), body) for ms, seq, body in found]

        return await self._run(work)

    async def last_event_id(self, encounter_id: str) -> str | None:
        newest = await self.events_before(encounter_id, None, 1)
        return newest[0][0] if newest else None

    async def encounter_ids(self) -> AsyncIterator[str]:
        # A page per transaction, in the order of the ids, so that the store's thread is never
        # held for the whole list.
        after = ""
        while True:

            def page(db: sqlite3.Connection, now: float, after: str = after) -> list[str]:
                found = db.execute(
                    "SELECT id FROM encounters WHERE id > ?"
                    " AND (expires_at IS NULL OR expires_at > ?) ORDER BY id LIMIT ?",
                    (after, now, IDS_PAGE),
                )
                return [encounter_id for (encounter_id,) in found]

            ids = await self._run(page)
            for encounter_id in ids:
                yield encounter_id
            if len(ids) < IDS_PAGE:
                return
            after = ids[-1]

    async def read_new(self, cursors: Mapping[str, str], timeout_s: float) -> dict[str, Events]:
        arrived = self._arrived
        found = await self._collect(cursors)
        if found:
            return found
        try:
            await asyncio.wait_for(arrived.wait(), timeout_s)
        except TimeoutError:
            return {}
        return await self._collect(cursors)

    async def _collect(self, cursors: Mapping[str, str]) -> dict[str, Events]:
        def work(db: sqlite3.Connection, now: float) -> dict[str, Events]:
            found = {}
            for encounter_id, cursor in cursors.items():
                events = self._after(db, encounter_id, cursor, 1000, now)
                if events:
                    found[encounter_id] = events
            return found

        return await self._run(work)

    async def ping(self) -> None:
        await self._run(lambda db, now: db.execute("SELECT 1").fetchone())

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True

        def shut() -> None:
            if self._db is not None:
                self._db.close()
                self._db = None

        await asyncio.get_running_loop().run_in_executor(self._thread, shut)
        self._thread.shutdown()

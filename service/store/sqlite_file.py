"""The SQLite store's file: its layout, how it is opened (one process at a time), and the
row-level steps the store's operations are made of (service/store/sqlite.py runs each operation
in one transaction of its own).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from service.store.base import Answered, StoredEncounter

# The file's layout; a file of a later one (a newer firefight) is refused, not rewritten.
SCHEMA_VERSION = 1

# Events and undo records are rowid tables keyed by encounter: an event may take hundreds of KiB,
# which a WITHOUT ROWID table stores badly. Times are Unix seconds; an encounter's `expires_at`
# is NULL when it is kept until it ends (no TTL configured).
SCHEMA = """
CREATE TABLE encounters (
  id TEXT PRIMARY KEY,
  version INTEGER NOT NULL,
  ended INTEGER NOT NULL DEFAULT 0,
  expires_at REAL,
  event_count INTEGER NOT NULL DEFAULT 0,
  event_bytes INTEGER NOT NULL DEFAULT 0,
  undo_count INTEGER NOT NULL DEFAULT 0,
  undo_bytes INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX encounters_by_expiry ON encounters (expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE fields (
  encounter TEXT NOT NULL,
  name TEXT NOT NULL,
  value BLOB NOT NULL,
  PRIMARY KEY (encounter, name)
);
CREATE TABLE events (
  encounter TEXT NOT NULL,
  ms INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  body BLOB NOT NULL,
  PRIMARY KEY (encounter, ms, seq)
);
CREATE TABLE undo (
  encounter TEXT NOT NULL,
  position INTEGER NOT NULL,
  event_id TEXT NOT NULL,
  record BLOB NOT NULL,
  PRIMARY KEY (encounter, position)
);
CREATE TABLE idempotency (
  encounter TEXT NOT NULL,
  key TEXT NOT NULL,
  expires_at REAL NOT NULL,
  owner TEXT,
  fingerprint TEXT,
  answer BLOB,
  event_id TEXT,
  PRIMARY KEY (encounter, key)
);
-- The newest event id given: ids never go back, even when every event was trimmed or deleted.
CREATE TABLE last_event (
  only INTEGER PRIMARY KEY CHECK (only = 0),
  ms INTEGER NOT NULL,
  seq INTEGER NOT NULL
);
"""

# The tables that hold an encounter's rows (besides `encounters`), all keyed by `encounter`.
PER_ENCOUNTER = ("fields", "events", "undo", "idempotency")

# Expired encounters deleted per sweep (a sweep runs in the transaction of a creation).
SWEEP_BATCH = 100

# How long opening the file waits for a process that holds it to let go (one stopping while the
# next starts) before it is refused.
OPEN_WAIT_SECONDS = 2.0

# A position in a stack or stream: (ms, seq) of an event, the number of an undo record.
P = TypeVar("P")


class StoreRefused(Exception):
    """The file cannot be this process's store: another process holds it, or it is not one."""


@dataclass
class Row:
    """An encounter's row in `encounters`."""

    version: int
    ended: bool
    expires_at: float | None
    event_count: int
    event_bytes: int
    undo_count: int
    undo_bytes: int


def event_id(ms: int, seq: int) -> str:
    return f"{ms}-{seq}"


def open_file(path: Path) -> tuple[sqlite3.Connection, tuple[int, int]]:
    """The file opened for this process alone, its layout made or checked; with the newest event
    id it gave."""
    # Autocommit: the store opens and ends every transaction itself.
    db = sqlite3.connect(path, timeout=OPEN_WAIT_SECONDS, isolation_level=None)
    try:
        # Exclusive before WAL: the lock is taken at the first access and held until the
        # connection closes, and WAL then needs no shared-memory index (no other process).
        db.execute("PRAGMA locking_mode=EXCLUSIVE")
        db.execute("PRAGMA journal_mode=WAL")
        # FULL: the WAL is synced at every commit, so a commit whose answer a client got
        # survives a power cut too, not only a crash of the process (NORMAL's promise). At
        # table speed one sync per change costs nothing anyone sees.
        db.execute("PRAGMA synchronous=FULL")
        db.execute("BEGIN IMMEDIATE")
        layout = db.execute("PRAGMA user_version").fetchone()[0]
        if layout == 0:
            for statement in SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            db.execute("INSERT INTO last_event VALUES (0, 0, 0)")
            db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        elif layout != SCHEMA_VERSION:
            raise StoreRefused(
                f"{path} was written by a newer firefight (layout {layout}; this one reads "
                f"layout {SCHEMA_VERSION})"
            )
        ms, seq = db.execute("SELECT ms, seq FROM last_event").fetchone()
        db.execute("COMMIT")
    except sqlite3.OperationalError as error:
        db.close()
        if "locked" in str(error):
            raise StoreRefused(
                f"{path} is in use by another firefight process: one process serves a data "
                "directory (for several, use Redis)"
            ) from None
        raise StoreRefused(f"{path} cannot be opened: {error}") from None
    except sqlite3.DatabaseError as error:
        db.close()
        raise StoreRefused(f"{path} is not a firefight store ({error})") from None
    except BaseException:
        db.close()
        raise
    return db, (ms, seq)


def drop(db: sqlite3.Connection, encounter_id: str) -> None:
    db.execute("DELETE FROM encounters WHERE id = ?", (encounter_id,))
    for table in PER_ENCOUNTER:
        db.execute(f"DELETE FROM {table} WHERE encounter = ?", (encounter_id,))


def sweep(db: sqlite3.Connection, now: float, limit: int = SWEEP_BATCH) -> None:
    """Deletes encounters whose time is up (ended ones after the ended TTL); -1: all of them."""
    expired = db.execute(
        "SELECT id FROM encounters WHERE expires_at <= ? LIMIT ?", (now, limit)
    ).fetchall()
    for (encounter_id,) in expired:
        drop(db, encounter_id)


def live(db: sqlite3.Connection, encounter_id: str, now: float) -> Row | None:
    """The encounter's row; None when there is none or its time is up (then it is deleted)."""
    found = db.execute(
        "SELECT version, ended, expires_at, event_count, event_bytes, undo_count, undo_bytes"
        " FROM encounters WHERE id = ?",
        (encounter_id,),
    ).fetchone()
    if found is None:
        return None
    row = Row(found[0], bool(found[1]), *found[2:])
    if row.expires_at is not None and row.expires_at <= now:
        drop(db, encounter_id)
        return None
    return row


def stored(db: sqlite3.Connection, encounter_id: str, row: Row) -> StoredEncounter:
    fields = db.execute("SELECT name, value FROM fields WHERE encounter = ?", (encounter_id,))
    return StoredEncounter(row.version, dict(fields.fetchall()), row.ended)


def save(db: sqlite3.Connection, encounter_id: str, row: Row) -> None:
    db.execute(
        "UPDATE encounters SET version = ?, ended = ?, expires_at = ?, event_count = ?,"
        " event_bytes = ?, undo_count = ?, undo_bytes = ? WHERE id = ?",
        (
            row.version,
            int(row.ended),
            row.expires_at,
            row.event_count,
            row.event_bytes,
            row.undo_count,
            row.undo_bytes,
            encounter_id,
        ),
    )


def oldest_to_trim(
    sizes: Iterable[tuple[P, int]], count: int, size: int, max_count: int, max_bytes: int
) -> tuple[P | None, int, int]:
    """Walks `sizes` ((position, bytes), oldest first) dropping the oldest until both caps hold,
    though the bytes cap never drops the last one: the last position dropped (None: none), and
    the count and bytes left."""
    cut = None
    for position, bytes_ in sizes:
        if count <= max_count and (count <= 1 or size <= max_bytes):
            break
        count -= 1
        size -= bytes_
        cut = position
    return cut, count, size


def read_key(
    db: sqlite3.Connection, encounter_id: str, key: str, now: float
) -> tuple[str | None, Answered | None] | None:
    """(owner, answer) of a key that has not expired; None when there is none."""
    found = db.execute(
        "SELECT expires_at, owner, fingerprint, answer, event_id FROM idempotency"
        " WHERE encounter = ? AND key = ?",
        (encounter_id, key),
    ).fetchone()
    if found is None:
        return None
    expires_at, owner, fingerprint, answer, answered_event = found
    if expires_at <= now:
        db.execute("DELETE FROM idempotency WHERE encounter = ? AND key = ?", (encounter_id, key))
        return None
    if fingerprint is None:
        return owner, None
    return owner, Answered(fingerprint, answer, answered_event)

"""A process that commits to a SQLite store in a loop, for the crash tests of
tests/test_store_sqlite.py: `python -m tests.sqlite_writer FILE [--die-in N]`.

It prints each commit's answer as the store gives it ("answered <version> <event id>"), which is
what a client would have been told; the test kills it and checks every answered commit is on
disk. With `--die-in N` it SIGKILLs itself inside commit N's transaction, when its writes are
done and its COMMIT starts, so that one crash lands mid-commit every time.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sqlite3
from pathlib import Path

from service.store import Committed, SQLiteStore, StoreLimits

ENCOUNTER = "crash"
# Every event kept (version = events), the default undo depth.
LIMITS = StoreLimits(ttl_seconds=None, max_events=1_000_000, max_event_stream_bytes=1024**3)
# Bytes of a field each commit rewrites, so a commit takes long enough to be caught inside.
PAD_BYTES = 64 * 1024


def body(version: int) -> bytes:
    return str(version).encode()


def die_at_commit(statement: str) -> None:
    if statement == "COMMIT":
        os.kill(os.getpid(), signal.SIGKILL)


async def write(path: Path, die_in: int | None) -> None:
    store = SQLiteStore(path, LIMITS)
    created = await store.create(ENCOUNTER, {"body": body(1)}, body(1))
    assert isinstance(created, Committed)
    print(f"answered 1 {created.event_id}", flush=True)
    version = 1
    while True:
        if die_in == version + 1:

            def arm(db: sqlite3.Connection) -> None:
                db.set_trace_callback(die_at_commit)

            await store._in_thread(arm)
        changed = {"body": body(version + 1), "pad": os.urandom(PAD_BYTES)}
        # Each change keeps the version it changes as its undo record.
        committed = await store.commit(
            ENCOUNTER, version, changed, (), body(version + 1), undo=body(version)
        )
        assert isinstance(committed, Committed)
        version += 1
        print(f"answered {version} {committed.event_id}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("path", type=Path)
    parser.add_argument("--die-in", type=int)
    args = parser.parse_args()
    asyncio.run(write(args.path, args.die_in))


if __name__ == "__main__":
    main()

"""The durable embedded store beyond the contract (tests/test_store_contract.py runs it too): what
a crash, a restart, a second process and the passing of time do to its file."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from service.store import (
    Answered,
    Committed,
    Idempotency,
    SQLiteStore,
    StoredEncounter,
    StoreLimits,
    StoreUnavailable,
    UndoTop,
)
from service.store.base import START, parse_event_id
from service.store.sqlite import StoreRefused
from tests import sqlite_writer

ROOT = Path(__file__).resolve().parent.parent
BODY = "body"
DAY = 24 * 3600


def writer(path: Path, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.sqlite_writer", str(path), *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def answers(lines: list[bytes]) -> dict[int, str]:
    """The writer's answered commits: version -> event id."""
    found = {}
    for line in lines:
        word, version, event_id = line.decode().split()
        assert word == "answered"
        found[int(version)] = event_id
    return found


async def check_whole(path: Path, answered: dict[int, str]) -> int:
    """Reopens the file: every answered commit is there, and the document, its events and its
    undo stack agree with one another (nothing half-written). The version found."""
    store = SQLiteStore(path, sqlite_writer.LIMITS)
    try:
        loaded = await store.load(sqlite_writer.ENCOUNTER)
        assert isinstance(loaded, StoredEncounter)
        version = loaded.version
        # At most the one commit under way when it died landed without its answer being printed.
        assert version in (max(answered), max(answered) + 1)
        assert loaded.fields[BODY] == sqlite_writer.body(version)
        events = await store.events_after(sqlite_writer.ENCOUNTER, START, 1_000_000)
        # Version n appended the event "n": one event per version, in order.
        expected = [sqlite_writer.body(n) for n in range(1, version + 1)]
        assert [event for _, event in events] == expected
        ids = dict(zip(range(1, version + 1), (event_id for event_id, _ in events), strict=True))
        assert {v: ids[v] for v in answered} == answered
        # The newest undo record takes version back to version - 1, tagged with its event; the
        # stack holds the default 20 records, or every change's when there were fewer.
        top = await store.undo_top(sqlite_writer.ENCOUNTER)
        assert top == UndoTop(ids[version], sqlite_writer.body(version - 1), min(20, version - 1))
        return version
    finally:
        await store.close()


async def test_a_process_killed_inside_a_commit_loses_that_commit_whole_and_nothing_else(
    tmp_path: Path,
) -> None:
    path = tmp_path / "firefight.sqlite3"
    # Killed at the COMMIT of version 5: versions 1 to 4 were answered, 5 never was.
    process = writer(path, "--die-in", "5")
    out, err = process.communicate(timeout=60)
    assert process.returncode == -signal.SIGKILL, err
    answered = answers(out.splitlines())
    assert sorted(answered) == [1, 2, 3, 4]
    assert await check_whole(path, answered) == 4
    # The store goes on from there, with ids after every id it gave before the crash.
    store = SQLiteStore(path, sqlite_writer.LIMITS)
    try:
        committed = await store.commit(sqlite_writer.ENCOUNTER, 4, {BODY: b"5"}, (), b"5")
        assert isinstance(committed, Committed)
        assert parse_event_id(committed.event_id) > parse_event_id(answered[4])
    finally:
        await store.close()


async def test_a_process_killed_while_it_commits_keeps_every_answered_commit(
    tmp_path: Path,
) -> None:
    path = tmp_path / "firefight.sqlite3"
    process = writer(path)
    assert process.stdout is not None
    lines = [process.stdout.readline() for _ in range(50)]
    # Killed from outside while it goes on committing, wherever it is.
    process.send_signal(signal.SIGKILL)
    # The rest read through the same reader as the lines above: it may hold answers it read
    # ahead, which communicate() (reading the pipe itself) would skip (a writer that got
    # twenty commits ahead on a loaded machine looked like twenty unanswered commits).
    out = process.stdout.read()
    process.wait(timeout=60)
    assert process.stderr is not None
    process.stderr.close()
    assert process.returncode == -signal.SIGKILL
    answered = answers(lines + out.splitlines())
    assert sorted(answered) == list(range(1, len(answered) + 1)) and len(answered) >= 50
    await check_whole(path, answered)


async def test_everything_is_there_after_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "firefight.sqlite3"
    key = Idempotency(key="k", fingerprint="request-a", owner="attempt-1")
    store = SQLiteStore(path)
    created = await store.create("e", {BODY: b"v1", "a:sam": b"sam"}, b"created")
    assert await store.begin("e", key) is None
    shot = await store.commit("e", 1, {BODY: b"v2"}, ["a:sam"], b"shot", b"answer", key, b"r1")
    assert isinstance(created, Committed) and isinstance(shot, Committed)
    await store.close()

    store = SQLiteStore(path)
    try:
        loaded = await store.load("e")
        assert (loaded.version, loaded.fields) == (2, {BODY: b"v2"})  # type: ignore[union-attr]
        assert await store.events_after("e", START, 10) == [
            (created.event_id, b"created"),
            (shot.event_id, b"shot"),
        ]
        # A retry after the restart gets the answer kept for its key, and the undo is there.
        retry = Idempotency(key="k", fingerprint="request-a", owner="attempt-2")
        assert await store.begin("e", retry) == Answered("request-a", b"answer", shot.event_id)
        assert await store.undo_top("e") == UndoTop(shot.event_id, b"r1", 1)
        later = await store.commit("e", 2, {BODY: b"v3"}, (), b"later")
        assert isinstance(later, Committed)
        assert parse_event_id(later.event_id) > parse_event_id(shot.event_id)
    finally:
        await store.close()


async def test_a_second_process_on_the_same_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "firefight.sqlite3"
    store = SQLiteStore(path)
    try:
        await store.create("e", {BODY: b"v1"}, b"created")
        opened = subprocess.run(
            [
                sys.executable,
                "-c",
                "import sys; from service.store import SQLiteStore; SQLiteStore(sys.argv[1])",
                str(path),
            ],
            cwd=ROOT,
            capture_output=True,
            timeout=60,
        )
        assert opened.returncode != 0
        assert f"{path} is in use by another firefight process" in opened.stderr.decode()
        # The first store goes on as before.
        assert (await store.load("e")).version == 1  # type: ignore[union-attr]
    finally:
        await store.close()


def test_a_file_that_is_not_a_store_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "firefight.sqlite3"
    path.write_bytes(b"this is a shopping list, not a database" * 100)
    with pytest.raises(StoreRefused, match=f"{path} is not a firefight store"):
        SQLiteStore(path)


async def test_an_encounter_never_expires_unless_a_ttl_is_set(tmp_path: Path) -> None:
    now = [1_000_000.0]
    store = SQLiteStore(tmp_path / "kept.sqlite3", StoreLimits(ttl_seconds=None), lambda: now[0])
    timed = SQLiteStore(tmp_path / "timed.sqlite3", StoreLimits(ttl_seconds=60), lambda: now[0])
    try:
        for each in (store, timed):
            await each.create("e", {BODY: b"v1"}, b"created")
        now[0] += 59
        assert isinstance(await timed.commit("e", 1, {BODY: b"v2"}, (), b"e"), Committed)
        now[0] += 59
        assert (await timed.load("e")).version == 2  # type: ignore[union-attr]
        # 59 + 59 + 61 = 179 s after its creation, 120 s after its last write: gone.
        now[0] += 61
        assert await timed.load("e") is None
        assert await timed.events_after("e", START, 10) == []
        # Without a TTL it is there a year later.
        now[0] += 365 * DAY
        assert (await store.load("e")).version == 1  # type: ignore[union-attr]
    finally:
        await store.close()
        await timed.close()


async def test_an_ended_encounter_is_deleted_from_the_file_after_the_ended_ttl(
    tmp_path: Path,
) -> None:
    now = [1_000_000.0]
    path = tmp_path / "firefight.sqlite3"
    limits = StoreLimits(ttl_seconds=None, ended_ttl_seconds=3600)
    store = SQLiteStore(path, limits, lambda: now[0])
    key = Idempotency(key="k", fingerprint="f", owner="o")
    await store.create("ended", {BODY: b"v1"}, b"created", b"answer", key)
    await store.commit("ended", 1, {BODY: b"v2"}, (), b"shot", undo=b"r1")
    await store.delete("ended", b"ended")
    now[0] += 3599
    # Within the ended TTL its last events are there for clients that resume.
    assert len(await store.events_after("ended", START, 10)) == 3
    now[0] += 1
    # Swept when the next encounter is made, whoever reads it or not.
    await store.create("next", {BODY: b"v1"}, b"created")
    await store.close()
    with sqlite3.connect(path) as raw:
        for table in ("encounters", "fields", "events", "undo", "idempotency"):
            column = "id" if table == "encounters" else "encounter"
            rows = raw.execute(f"SELECT {column} FROM {table}").fetchall()
            assert ("ended",) not in rows, table
    raw.close()


async def test_a_closed_store_is_unavailable(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "firefight.sqlite3")
    await store.close()
    with pytest.raises(StoreUnavailable, match="the store is closed"):
        await store.load("e")
    await store.close()  # closing twice does nothing

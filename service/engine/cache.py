"""The newest document of each encounter this process has read or written, by version, within a
budget of bytes.

A change starts from it without reading the store: its commit is compare-and-set on the cached
version, so a copy gone stale (another replica wrote since) only loses that compare-and-set, whose
answer carries the encounter as it is now. A read asks the store whether the version is still the
cached one, and gets the document only when it is not.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict

from service.engine.documents import Document


class DocumentCache:
    def __init__(self, max_bytes: int) -> None:
        self._max_bytes = max_bytes
        self._bytes = 0
        # Least recently used first.
        self._documents: OrderedDict[str, Document] = OrderedDict()

    def get(self, encounter_id: str) -> Document | None:
        document = self._documents.get(encounter_id)
        if document is not None:
            self._documents.move_to_end(encounter_id)
        return document

    def put(self, document: Document) -> None:
        """Keeps `document` unless a newer version of it is kept already (a request that read
        the encounter before another one's commit may finish after it)."""
        encounter_id = document.encounter_id
        kept = self._documents.get(encounter_id)
        if kept is not None:
            if kept.version > document.version:
                return
            self._bytes -= kept.size
            del self._documents[encounter_id]
        if document.size > self._max_bytes:
            return
        self._documents[encounter_id] = document
        self._bytes += document.size
        while self._bytes > self._max_bytes:
            _, evicted = self._documents.popitem(last=False)
            self._bytes -= evicted.size

    def drop(self, encounter_id: str) -> None:
        kept = self._documents.pop(encounter_id, None)
        if kept is not None:
            self._bytes -= kept.size

    def __len__(self) -> int:
        return len(self._documents)


class Turns:
    """Changes to one encounter in this process take turns: the next starts from what the one
    before it committed, instead of from the same copy, which would lose its compare-and-set to
    the commit in flight. Other replicas' changes are still caught by the compare-and-set."""

    def __init__(self) -> None:
        # The lock of each encounter with a change running or waiting, and how many there are.
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}

    def turn(self, encounter_id: str) -> _Turn:
        return _Turn(self._locks, encounter_id)


class _Turn:
    """One change's turn (an async context manager written out: this is on every change)."""

    __slots__ = ("_encounter_id", "_lock", "_locks")

    def __init__(self, locks: dict[str, tuple[asyncio.Lock, int]], encounter_id: str) -> None:
        self._locks = locks
        self._encounter_id = encounter_id
        lock, users = locks.get(encounter_id) or (asyncio.Lock(), 0)
        locks[encounter_id] = (lock, users + 1)
        self._lock = lock

    async def __aenter__(self) -> None:
        try:
            await self._lock.acquire()
        except BaseException:
            self._leave()
            raise

    async def __aexit__(self, *_: object) -> None:
        self._lock.release()
        self._leave()

    def _leave(self) -> None:
        lock, users = self._locks[self._encounter_id]
        if users == 1:
            del self._locks[self._encounter_id]
        else:
            self._locks[self._encounter_id] = (lock, users - 1)

"""Live events: one reader task per replica reads the watched streams and fans them out locally.

Each batch read is turned into WebSocket frames once per audience (the GM's, and the players',
redacted once) and the hub writes those same bytes to the transport of every live socket of that
audience: no queue, task or encoding per socket and event.

A socket subscribes first (live batches then wait in its queue), replays what it missed from the
store, then drains its queue, skipping what the replay already sent, and goes live in the same
step as it finds the queue empty: no event is lost between the replay and the live feed, and none
is sent twice. A live socket whose transport fills up goes back to its queue until it has drained.
"""

from __future__ import annotations

import asyncio
import struct
from collections.abc import Callable, Iterator

import structlog
from aiohttp import web
from aiohttp.abc import AbstractStreamWriter

from service.engine.events import ends_encounter, event_json, for_players
from service.engine.migrations import event as upgraded_event
from service.store import EncounterStore, StoreUnavailable
from service.store.base import START, Events, parse_event_id

log = structlog.get_logger("firefight.hub")

QUEUE_BATCHES = 1000
RETRY_SECONDS = 0.5

# What a dropped subscription's queue holds instead of the batches it could not keep up with (the
# hub never delivers an empty batch).
DROPPED: Events = []

# An event's place in its stream, as `parse_event_id` gives it.
Position = tuple[int, int]

# RFC 6455, 5.2: FIN and the text opcode; a server's frames are not masked.
_TEXT = 0x81
# A stored event starts with its type (as `ends_encounter` reads the end): this one gives,
# replaces or revokes a player's token.
_PLAYERS = b'{"type":"players"'


def changes_tokens(stored: bytes) -> bool:
    """Whether this stored event changed who holds a token (a player's given, replaced or
    revoked): a socket opened with a player's token is checked again before it gets it."""
    return stored.startswith(_PLAYERS)


def text_frame(payload: bytes) -> bytes:
    """One whole (unfragmented) WebSocket text frame from server to client."""
    length = len(payload)
    if length < 126:
        return struct.pack("!BB", _TEXT, length) + payload
    if length < 1 << 16:
        return struct.pack("!BBH", _TEXT, 126, length) + payload
    return struct.pack("!BBQ", _TEXT, 127, length) + payload


def event_frames(
    events: Events, players_only: bool, after: Position
) -> Iterator[tuple[bytes, bool, Position]]:
    """(frame, whether it ends the encounter, position) of each event past `after`, as its
    audience receives it: a player's token gets no frame for an event about a hidden actor
    (its position is still given, so the next starts after it)."""
    for event_id, kept in events:
        position = parse_event_id(event_id)
        if position <= after:
            continue
        after = position
        stored = upgraded_event(kept)
        seen = for_players(stored) if players_only else stored
        if seen is None:
            yield b"", False, position
            continue
        yield text_frame(event_json(event_id, seen)), ends_encounter(stored), position


class Frames:
    """One batch as one audience receives it: its frames joined, the position of its last event,
    and whether the encounter ended in it (nothing after that is sent)."""

    __slots__ = ("data", "ends", "last")

    def __init__(self, events: Events, players_only: bool) -> None:
        parts: list[bytes] = []
        self.ends = False
        self.last: Position = (0, 0)
        for frame, ends, position in event_frames(events, players_only, self.last):
            parts.append(frame)
            self.last = position
            if ends:
                self.ends = True
                break
        self.data = b"".join(parts)


class Batch:
    """New events of one encounter as the reader got them, with each audience's frames built
    the first time a socket of that audience needs them."""

    __slots__ = ("_frames", "changes_tokens", "events", "first")

    def __init__(self, events: Events) -> None:
        self.events = events
        self.first = parse_event_id(events[0][0])
        self._frames: dict[bool, Frames] = {}
        self.changes_tokens = any(changes_tokens(stored) for _, stored in events)

    def frames(self, players_only: bool) -> Frames:
        built = self._frames.get(players_only)
        if built is None:
            built = self._frames[players_only] = Frames(self.events, players_only)
        return built


class SocketFeed:
    """The end of one WebSocket that the hub writes prepared frames to.

    Per-message compression is off for these sockets (a compressor per socket could not share
    the frames), so aiohttp itself writes only control frames (ping, pong, close), each with one
    synchronous write: a frame written here can never land inside one of them. Nothing is
    written once the socket has begun to close."""

    __slots__ = ("_high", "_writer", "socket", "transport")

    def __init__(
        self,
        socket: web.WebSocketResponse,
        transport: asyncio.Transport,
        writer: AbstractStreamWriter,
    ) -> None:
        self.socket = socket
        self.transport = transport
        self._writer = writer
        # Above this the transport pauses its protocol: the client is not keeping up.
        self._high = transport.get_write_buffer_limits()[1]

    @property
    def full(self) -> bool:
        return self.transport.get_write_buffer_size() > self._high

    def write(self, data: bytes) -> bool:
        """Writes `data` unless the socket is closing; True when the transport is now full."""
        transport = self.transport
        if self.socket.closed or transport.is_closing():
            return False  # its handler is closing it, and will unsubscribe
        if data:
            transport.write(data)
        return transport.get_write_buffer_size() > self._high

    async def drained(self, timeout: float) -> None:
        """Returns once the client has taken what it was sent down to the transport's low-water
        mark; TimeoutError when it has not within `timeout` (it is not reading)."""
        if self.full:
            async with asyncio.timeout(timeout):
                await self._writer.drain()


class Subscription:
    """One watcher of an encounter. Its batches wait in `queue` until its socket goes live
    (`go_live`); from then on the hub writes them to the socket itself, until the transport is
    full or the encounter ends, which `wait_woken` returns for."""

    def __init__(
        self, encounter_id: str, queue_batches: int = QUEUE_BATCHES, players_only: bool = False
    ) -> None:
        self.encounter_id = encounter_id
        self.players_only = players_only
        self.queue: asyncio.Queue[Events] = asyncio.Queue(queue_batches)
        # Set when the socket fell too far behind: it is closed and its client resumes.
        self.overflowed = False
        # The position of the last event sent (or, for a player's token, passed over).
        self.last: Position = (0, 0)
        # The encounter's end was written to the socket: it is to be closed.
        self.ended = False
        self._feed: SocketFeed | None = None
        self._woken = asyncio.Event()

    def frames(self, events: Events) -> Iterator[tuple[bytes, bool]]:
        """The frames of what this socket has not had yet, one event at a time (the replay and
        the catching up), each with whether it ends the encounter."""
        for frame, ends, position in event_frames(events, self.players_only, self.last):
            self.last = position
            yield frame, ends

    def _unsent(self, events: Events) -> tuple[bytes, bool]:
        parts = []
        for frame, ends in self.frames(events):
            parts.append(frame)
            if ends:
                return b"".join(parts), True
        return b"".join(parts), False

    def go_live(self, feed: SocketFeed) -> None:
        """The hub writes the next batches to `feed` itself. Called with the queue found empty
        and nothing awaited since: no batch can come in between."""
        assert self.queue.empty()
        self._woken.clear()
        self._feed = feed

    async def wait_woken(self) -> None:
        """Returns once the live feed stopped: the encounter ended, or the socket is full."""
        await self._woken.wait()

    def deliver(self, batch: Batch) -> bool:
        """Writes the batch to the live socket, or queues it; False when it was dropped. A
        player's socket is not written a batch in which the tokens changed: it is queued, and
        the socket's task checks the token before it sends any of it."""
        feed = self._feed
        if feed is None:
            return self._enqueue(batch.events)
        if self.players_only and batch.changes_tokens:
            self._feed = None
            self._woken.set()
            return self._enqueue(batch.events)
        if batch.first > self.last:
            frames = batch.frames(self.players_only)
            data, ends, self.last = frames.data, frames.ends, frames.last
        else:
            # The replay read past what the reader had when the socket went live: what it sent
            # is skipped, for this socket alone.
            data, ends = self._unsent(batch.events)
        if feed.write(data) or ends:
            # Not live any more: the socket's task closes it, or waits until the client took
            # what it was sent and catches up from the queue.
            self.ended = ends
            self._feed = None
            self._woken.set()
        return True

    def _enqueue(self, events: Events) -> bool:
        try:
            self.queue.put_nowait(events)
        except asyncio.QueueFull:
            self.drop()
            return False
        return True

    def drop(self) -> None:
        """Dropped now: what it queued is let go at once (the client gets it again by resuming
        with `after`), and its socket learns it at its next read of the queue."""
        self.overflowed = True
        self._feed = None
        while not self.queue.empty():
            self.queue.get_nowait()
        self.queue.put_nowait(DROPPED)
        self._woken.set()


class EventHub:
    def __init__(
        self, store: EncounterStore, poll_seconds: float, queue_batches: int = QUEUE_BATCHES
    ) -> None:
        self._store = store
        self._poll_seconds = poll_seconds
        self._queue_batches = queue_batches
        self._subscriptions: dict[str, set[Subscription]] = {}
        self._cursors: dict[str, str] = {}
        self._watching = asyncio.Event()
        # Told how many events it hands to sockets, one per event and socket (their metric).
        self.on_fanned_out: Callable[[int], object] = lambda count: None

    async def subscribe(self, encounter_id: str, players_only: bool = False) -> Subscription:
        subscription = Subscription(encounter_id, self._queue_batches, players_only)
        if encounter_id not in self._cursors:
            # Live reading starts at the stream's end now; the socket's replay covers the rest.
            last = await self._store.last_event_id(encounter_id) or START
            self._cursors.setdefault(encounter_id, last)
        self._subscriptions.setdefault(encounter_id, set()).add(subscription)
        self._watching.set()
        return subscription

    def unsubscribe(self, subscription: Subscription) -> None:
        watchers = self._subscriptions.get(subscription.encounter_id)
        if watchers is None:
            return
        watchers.discard(subscription)
        if not watchers:
            del self._subscriptions[subscription.encounter_id]
            self._cursors.pop(subscription.encounter_id, None)

    async def run(self) -> None:
        task = asyncio.current_task()
        while True:
            if task is not None and task.cancelling():
                # A cancel that came as a read was answered can be swallowed on its way back
                # (redis-py's XREAD did, as a replica shut down when an encounter ended): the
                # reader still stops, or the shutdown waits on it for ever.
                raise asyncio.CancelledError
            if not self._cursors:
                self._watching.clear()
                await self._watching.wait()
                continue
            try:
                found = await self._store.read_new(dict(self._cursors), self._poll_seconds)
            except StoreUnavailable as error:
                log.warning("event_reader_store_unavailable", error=str(error))
                await asyncio.sleep(RETRY_SECONDS)
                continue
            for encounter_id, events in found.items():
                if encounter_id not in self._cursors or not events:
                    continue
                self._cursors[encounter_id] = events[-1][0]
                subscriptions = list(self._subscriptions.get(encounter_id, ()))
                self.on_fanned_out(len(events) * len(subscriptions))
                try:
                    batch = Batch(events)
                    for subscription in subscriptions:
                        if not subscription.deliver(batch):
                            self.unsubscribe(subscription)
                except Exception:
                    # An event this version cannot read must not stop the reader for every
                    # encounter: this one's sockets are closed 1013 and resume with `after`.
                    log.exception("event_fanout_failed", encounter=encounter_id)
                    for subscription in subscriptions:
                        subscription.drop()
                        self.unsubscribe(subscription)

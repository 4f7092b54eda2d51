"""A fault-injecting TCP proxy on 127.0.0.1 in front of a server (a redis-server in the tests).

Tests put it between the service and Redis to make a fault land exactly where they say: cut every
connection the moment a given command passes (before it reaches the server, or after the server
answered it and before the answer reaches the client), refuse new connections, cut everything.
Nothing here sleeps: each fault happens on the byte stream itself, and tests wait on its events.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field

CHUNK = 64 * 1024


@dataclass
class Cut:
    """One armed fault: when a client->server chunk containing `pattern` passes, every
    connection is cut. `done` is set once it happened."""

    pattern: bytes
    after_forwarding: bool
    refuse_after: bool
    done: asyncio.Event = field(default_factory=asyncio.Event)

    async def wait(self, seconds: float = 10) -> None:
        await asyncio.wait_for(self.done.wait(), seconds)


@dataclass
class Hold:
    """One armed pause: the first client->server chunk containing `pattern` waits in the proxy
    (`reached` is set) until `release()`, so a test can act while that command is in flight."""

    pattern: bytes
    reached: asyncio.Event = field(default_factory=asyncio.Event)
    released: asyncio.Event = field(default_factory=asyncio.Event)

    def release(self) -> None:
        self.released.set()

    async def wait_reached(self, seconds: float = 10) -> None:
        await asyncio.wait_for(self.reached.wait(), seconds)


class _Link:
    """One client connection and its connection to the server, pumped both ways."""

    def __init__(
        self,
        client: tuple[asyncio.StreamReader, asyncio.StreamWriter],
        server: tuple[asyncio.StreamReader, asyncio.StreamWriter],
    ) -> None:
        self.client_reader, self.client_writer = client
        self.server_reader, self.server_writer = server
        # Set by a cut after forwarding: the server's next answer is dropped and then all is cut.
        self.swallow: Cut | None = None
        self.tasks: list[asyncio.Task[None]] = []

    def abort(self) -> None:
        """As a crash would: a reset on both sides, no goodbye, nothing buffered delivered."""
        for writer in (self.client_writer, self.server_writer):
            writer.transport.abort()


class TcpProxy:
    """`async with TcpProxy(port) as proxy:` listens on `proxy.port` and forwards to `port`."""

    def __init__(self, target_port: int, target_host: str = "127.0.0.1") -> None:
        self.target = (target_host, target_port)
        self.port = 0
        self.accepted = 0  # connections forwarded so far
        self._server: asyncio.Server | None = None
        self._links: set[_Link] = set()
        self._cuts: list[Cut] = []
        self._holds: list[Hold] = []
        self._every_hold: list[Hold] = []
        self._refusing = False
        self._handlers: set[asyncio.Task[None]] = set()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def open_connections(self) -> int:
        return len(self._links)

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for hold in self._every_hold:
            hold.release()
        self.cut_all()
        # Cut links end their handlers; cancelling one instead makes asyncio log an error.
        handlers = list(self._handlers)
        if handlers:
            _, stuck = await asyncio.wait(handlers, timeout=10)
            for handler in stuck:
                handler.cancel()
            await asyncio.gather(*stuck, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()

    async def __aenter__(self) -> TcpProxy:
        await self.start()
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.close()

    # --- faults ------------------------------------------------------------------------------

    def cut_when(
        self, pattern: bytes, *, after_forwarding: bool = False, refuse_after: bool = False
    ) -> Cut:
        """Arms a one-shot cut: the first client->server chunk containing `pattern` cuts every
        connection. Before forwarding, the server never sees that chunk (the command does not
        run); after forwarding, the proxy waits for the server's answer to it, drops it, then
        cuts (the command ran, its reply is lost). `refuse_after` then refuses new connections
        until `accept()`, as a server that died there would."""
        cut = Cut(pattern, after_forwarding, refuse_after)
        self._cuts.append(cut)
        return cut

    def hold_when(self, pattern: bytes) -> Hold:
        """Arms a one-shot pause: the first client->server chunk containing `pattern` is held
        back (that connection only) until the test releases it."""
        hold = Hold(pattern)
        self._holds.append(hold)
        self._every_hold.append(hold)
        return hold

    def refuse(self) -> None:
        """New connections are reset at once (the port stays this proxy's); open ones go on."""
        self._refusing = True

    def accept(self) -> None:
        self._refusing = False

    def cut_all(self) -> None:
        for link in list(self._links):
            link.abort()
        self._links.clear()

    def _fire(self, cut: Cut) -> None:
        if cut.refuse_after:
            self._refusing = True
        self.cut_all()
        cut.done.set()

    # --- pumping -----------------------------------------------------------------------------

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._handlers.add(task)
        try:
            if self._refusing:
                writer.transport.abort()
                return
            try:
                server = await asyncio.open_connection(*self.target)
            except OSError:
                writer.transport.abort()
                return
            link = _Link((reader, writer), server)
            if self._refusing:  # refused while connecting upstream
                link.abort()
                return
            self.accepted += 1
            self._links.add(link)
            upstream = asyncio.create_task(self._client_to_server(link))
            downstream = asyncio.create_task(self._server_to_client(link))
            link.tasks = [upstream, downstream]
            try:
                await asyncio.wait(link.tasks, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for pump in link.tasks:
                    pump.cancel()
                await asyncio.gather(*link.tasks, return_exceptions=True)
                self._links.discard(link)
                link.abort()
        finally:
            self._handlers.discard(task)

    async def _client_to_server(self, link: _Link) -> None:
        tail = b""
        with contextlib.suppress(OSError):
            while chunk := await link.client_reader.read(CHUNK):
                # The tail lets a pattern split across two reads still match.
                seen = tail + chunk
                cut = next((c for c in self._cuts if c.pattern in seen), None)
                if cut is not None:
                    self._cuts.remove(cut)
                    if not cut.after_forwarding:
                        self._fire(cut)
                        return
                    link.swallow = cut
                hold = next((h for h in self._holds if h.pattern in seen), None)
                if hold is not None:
                    self._holds.remove(hold)
                    hold.reached.set()
                    await hold.released.wait()
                link.server_writer.write(chunk)
                await link.server_writer.drain()
                longest = max((len(p.pattern) for p in [*self._cuts, *self._holds]), default=1)
                tail = seen[-(longest - 1) :] if longest > 1 else b""

    async def _server_to_client(self, link: _Link) -> None:
        with contextlib.suppress(OSError):
            while chunk := await link.server_reader.read(CHUNK):
                if link.swallow is not None:
                    # The server answered the command: it ran. Its answer never arrives.
                    self._fire(link.swallow)
                    return
                link.client_writer.write(chunk)
                await link.client_writer.drain()

"""The encounter's WebSocket: missed events first, then live ones, each once and in order."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import structlog
from aiohttp import WSCloseCode, WSMsgType, web

from service.api.app_keys import CONFIG, ENCOUNTERS, HUB, METRICS, SOCKET_COUNTS, SOCKETS
from service.api.handling import admit, after_id
from service.api.hub import DROPPED, SocketFeed, Subscription, changes_tokens
from service.api.limits import (
    CLIENT_FRAME_BURST,
    CLIENT_FRAMES_PER_SECOND,
    CLIENT_MESSAGE_BYTES,
    RateLimiter,
)
from service.api.middlewares import RETRY_AFTER_HEADERS
from service.api.problems import ProblemError
from service.engine import Admitted, Encounters, Unauthorized
from service.engine.access import token_hash
from service.store import StoreUnavailable
from service.store.base import START, Events, parse_event_id

log = structlog.get_logger("firefight.api")

# The close code of a socket whose token was revoked or replaced (the private range of RFC 6455,
# 7.4.2; 4000 + the HTTP status a new socket with that token gets).
WS_TOKEN_REVOKED = 4401

# When a token that holds as many sockets as it may is told to try again.
TOO_MANY_SOCKETS_RETRY_SECONDS = 5

# How long a client that broke the protocol gets to take its close frame before it is cut.
CLIENT_CLOSE_SECONDS = 1.0


async def websocket(request: web.Request) -> web.WebSocketResponse:
    """Missed events first (after `after`), then live ones, each once and in order."""
    after = after_id(request)
    app = request.app
    # Refuse before the upgrade, so the client gets a problem it can read.
    admitted = await admit(request, "read", ended_ok=True, query_allowed=True)
    config = app[CONFIG]
    counts = app[SOCKET_COUNTS]
    if counts.total >= config.max_sockets:
        raise ProblemError(
            503,
            "sockets-full",
            "Too many sockets",
            f"this replica holds as many WebSockets as it may ({config.max_sockets}); retry in "
            "a moment",
            headers=RETRY_AFTER_HEADERS,
        )
    holder = (admitted.encounter_id, token_hash(admitted.credential or ""))
    held = counts.held(holder)
    if held >= config.max_sockets_per_token:
        raise ProblemError(
            429,
            "too-many-sockets",
            "Too many sockets",
            f"this token has {held} sockets open on this encounter, as many as one replica "
            f"allows ({config.max_sockets_per_token}); close one, or retry after "
            f"{TOO_MANY_SOCKETS_RETRY_SECONDS} s",
            headers={"Retry-After": str(TOO_MANY_SOCKETS_RETRY_SECONDS)},
        )
    counts.add(holder)
    try:
        return await _follow(request, admitted, after)
    finally:
        counts.remove(holder)


async def _follow(
    request: web.Request, admitted: Admitted, after: str | None
) -> web.WebSocketResponse:
    app = request.app
    encounters = app[ENCOUNTERS]
    config = app[CONFIG]
    # No per-message compression: the hub writes every socket of an audience the same prepared
    # frames, which a compressor per socket could not share. No message from the client is
    # read beyond a control frame's size, and pings are answered here, where they are counted.
    socket = web.WebSocketResponse(
        heartbeat=config.ws_heartbeat_seconds,
        compress=False,
        autoping=False,
        max_msg_size=CLIENT_MESSAGE_BYTES,
    )
    writer = await socket.prepare(request)
    # Kept from the start: once the socket closes, aiohttp no longer gives the request's.
    transport = request.transport
    if transport is None:  # the client left during the handshake
        return socket
    app[SOCKETS][socket] = transport
    app[METRICS].websockets_open.inc()
    try:
        players_only = admitted.role != "gm"
        subscription = await app[HUB].subscribe(admitted.encounter_id, players_only=players_only)
        credential = admitted.credential

        async def still_admitted() -> None:
            """Raises Unauthorized once this socket's token opens the encounter no more."""
            await encounters.admit(admitted.encounter_id, credential, "read", ended_ok=True)

        sender = asyncio.create_task(
            _send_events(
                SocketFeed(socket, transport, writer),
                encounters,
                subscription,
                after or START,
                config.ws_send_timeout_seconds,
                # The GM's token is never revoked; a player's is checked again on each change
                # of tokens.
                still_admitted if players_only else None,
            )
        )
        try:
            await _read_client(socket, transport)
        finally:
            sender.cancel()
            app[HUB].unsubscribe(subscription)
            if transport.get_write_buffer_size():
                # Closed (the heartbeat found it dead) with bytes it never read: the transport
                # would wait for them to be sent before it let go of the connection.
                transport.abort()
    finally:
        del app[SOCKETS][socket]
        app[METRICS].websockets_open.dec()
    return socket


async def _read_client(socket: web.WebSocketResponse, transport: asyncio.Transport) -> None:
    """Reads what the client sends until the socket closes: reading keeps the heartbeat and the
    close working. Pings are answered. Anything else the protocol does not need (a message:
    clients have nothing to say; more frames than a client needs) closes the socket 1008; a
    message above CLIENT_MESSAGE_BYTES is refused 1009 by aiohttp from its header, unread."""
    frames = RateLimiter(CLIENT_FRAMES_PER_SECOND, CLIENT_FRAME_BURST)
    async for message in socket:
        if message.type is WSMsgType.ERROR:
            # aiohttp closed it (1009 for a message too big); the loop ends next.
            log.info("socket_closed", reason=str(message.data), code=socket.close_code)
            continue
        if frames.retry_after("frames") is not None:
            reason = b"too many frames: this socket only sends events"
        elif message.type is WSMsgType.PING:
            await socket.pong(message.data)
            continue
        elif message.type is WSMsgType.PONG:
            continue  # the heartbeat's answer (aiohttp notes any data as the client alive)
        else:
            reason = b"clients send no messages on this socket; resume with ?after="
        log.info("socket_closed", reason=reason.decode(), code=WSCloseCode.POLICY_VIOLATION)
        try:
            async with asyncio.timeout(CLIENT_CLOSE_SECONDS):
                await socket.close(code=WSCloseCode.POLICY_VIOLATION, message=reason)
        except TimeoutError:
            transport.abort()
        return


# Events a socket's replay reads from the store at once: each may take up to
# FIREFIGHT_MAX_EVENT_BYTES, and a page is held in memory until the socket has taken it.
REPLAY_PAGE = 32


async def _send_events(
    feed: SocketFeed,
    encounters: Encounters,
    subscription: Subscription,
    after: str,
    send_timeout: float,
    still_admitted: Callable[[], Awaitable[None]] | None = None,
) -> None:
    """The replay, a page at a time; then what came live meanwhile (skipping what the replay
    sent, and for a player's token the events about hidden actors); then the hub writes the
    live events to the socket itself, and this task only wakes when the client falls behind
    (to wait until it has taken what it was sent, and catch up), the encounter ends, or, for
    a socket with `still_admitted`, the tokens changed.

    Before it sends events among which the tokens changed, `still_admitted` checks the
    socket's token against the encounter as it is now (on whichever replica the change was
    made: each reads the stream): a token revoked or replaced gets none of them, and its
    socket is closed WS_TOKEN_REVOKED at once.

    Every such wait and every close has `send_timeout`: a client that does not take what it is
    sent is not reading, and its connection is cut (aborted) rather than waited on: closing it
    would wait for its unsent bytes to be read first, which never happens, and it would never be
    reclaimed."""
    subscription.last = parse_event_id(after)
    socket, transport = feed.socket, feed.transport

    async def send(events: Events) -> bool:
        """Sends what the socket has not had of `events`; True when the encounter ended."""
        if still_admitted is not None and any(changes_tokens(stored) for _, stored in events):
            await still_admitted()
        for frame, ends in subscription.frames(events):
            if ends:
                feed.write(frame)
                return True
            if feed.write(frame):
                await feed.drained(send_timeout)
        return False

    async def close(code: int, message: bytes) -> None:
        async with asyncio.timeout(send_timeout):
            await socket.close(code=code, message=message)

    try:
        cursor = after
        while True:
            page = await encounters.store.events_after(
                subscription.encounter_id, cursor, REPLAY_PAGE
            )
            if await send(page):
                await close(WSCloseCode.OK, b"encounter ended")
                return
            if len(page) < REPLAY_PAGE:
                break
            cursor = page[-1][0]
        while True:
            while not subscription.queue.empty():
                batch = subscription.queue.get_nowait()
                if batch is DROPPED:
                    # Too far behind: the hub dropped it; the client resumes with `after`.
                    await close(WSCloseCode.TRY_AGAIN_LATER, b"resume with after")
                    return
                if await send(batch):
                    await close(WSCloseCode.OK, b"encounter ended")
                    return
            # The queue is empty and nothing was awaited since: from here the hub writes.
            subscription.go_live(feed)
            await subscription.wait_woken()
            if subscription.ended:
                await close(WSCloseCode.OK, b"encounter ended")
                return
            await feed.drained(send_timeout)
    except Unauthorized:
        log.info("socket_closed", reason="token revoked", code=WS_TOKEN_REVOKED)
        try:
            await close(WS_TOKEN_REVOKED, b"token revoked")
        except TimeoutError:
            transport.abort()
        return
    except StoreUnavailable as error:
        log.warning("socket_replay_store_unavailable", error=str(error))
    except ConnectionResetError:
        return
    except TimeoutError:
        log.info("socket_dropped", reason="not reading", timeout_s=send_timeout)
        transport.abort()
        return
    # The store failed mid-replay: the client resumes with `after`.
    try:
        await close(WSCloseCode.TRY_AGAIN_LATER, b"resume with after")
    except TimeoutError:
        transport.abort()

"""The keys of what the application and a request carry (aiohttp's typed keys), for the
application and its middlewares alike."""

from __future__ import annotations

import asyncio

from aiohttp import web

from service.api.admission import InFlight
from service.api.hub import EventHub
from service.api.limits import RateLimiter, SocketCounts
from service.api.metrics import Metrics
from service.config import Config
from service.engine import Admitted, Encounters
from service.store import EncounterStore

CONFIG = web.AppKey("config", Config)
STORE = web.AppKey("store", EncounterStore)
ENCOUNTERS = web.AppKey("encounters", Encounters)
HUB = web.AppKey("hub", EventHub)
# Open sockets and their connections (cut when a socket cannot be closed).
SOCKETS: web.AppKey[dict[web.WebSocketResponse, asyncio.Transport]] = web.AppKey("sockets")
# Open sockets in all and per (encounter, token), against their caps.
SOCKET_COUNTS = web.AppKey("socket_counts", SocketCounts)
# The per-encounter limit on state changes (None: no limit).
LIMITER: web.AppKey[RateLimiter | None] = web.AppKey("limiter")
# The requests this process is working on, and how many it may (FIREFIGHT_MAX_IN_FLIGHT).
IN_FLIGHT = web.AppKey("in_flight", InFlight)
# The app's series (GET /metrics: service/api/metrics.py).
METRICS = web.AppKey("metrics", Metrics)

# The encounter a request was admitted to, and its body as read: for the problem it may end in.
ADMITTED = web.RequestKey("admitted", Admitted)
BODY = web.RequestKey("body", bytes)

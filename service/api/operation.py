"""What an operation of the contract is: its method, path, types, who may call it, the problems
it may answer, its name and area (service/api/operations.py lists them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

# Who may call an operation: the server's admin key; a token of the encounter (the admin key acts
# as its GM); the same, or for a WebSocket `?token=` (browsers cannot set headers); the metrics
# token, or none from a loopback or allowed address.
Auth = Literal["admin", "encounter", "socket", "campaign", "metrics"]


# The areas operations are grouped by (an operation's `tag`), in the order `/docs` shows them.
TAGS: dict[str, str] = {
    "operations": "The service itself: alive, ready (no token), its metrics (Prometheus).",
    "rulesets": "What each ruleset supports (no token).",
    "encounters": "An encounter: start, read, correct, undo, end.",
    "play": "The fight: attacks, actions, the turn, suppression zones and their tests.",
    "odds": "The odds of an attack or a zone test before its dice (nothing written).",
    "initiative": "The initiative the service runs: passes, phases, who joins and leaves.",
    "scene": "The scene's actors and the players' tokens.",
    "monitors": "Condition monitors: the GM's edits, damage waiting for confirmation.",
    "imports": "Character files (Chummer, Foundry) onto a scene's or a campaign's actor.",
    "events": "The encounter's events: a page at a time, or live over the WebSocket.",
    "campaigns": "Characters and NPC templates kept between encounters.",
}

# What each problem status means; every status an operation can answer is listed with it.
PROBLEMS: dict[int, str] = {
    400: "Invalid request: malformed JSON, a field or parameter that does not fit, given dice "
    "that do not fit, or (WebSocket) a request that is not a WebSocket upgrade",
    401: "No credential, or one that is not valid here (see WWW-Authenticate)",
    403: "The credential's role may not do this (only the GM may), or a player's token acts "
    "for an actor its player does not control (the shared one: a GM's actor)",
    404: "No such encounter (it may have expired) or campaign, or no such actor in the scene "
    "or the campaign",
    409: "A request with this Idempotency-Key is still running (retry in a moment), the "
    "stored state does not fit this version's bounds (`path` says where; the GM reads it with "
    "GET and replaces it with PUT .../state), a PUT .../state whose `version` the encounter "
    "has moved past (`state-changed`: nothing written; read it again), or what the rules do "
    "not allow in this state of the fight",
    410: "The encounter has ended; its events stay readable a while",
    408: "The body did not all arrive within the body timeout; the connection is closed",
    413: "The body is larger than the service accepts",
    422: "Not allowed by the rules, past one of the service's limits, or an Idempotency-Key "
    "used before for another request (or whose kept answer has expired)",
    429: "The encounter changes state faster than the service allows, this address sent too "
    "many requests without a valid token, or (odds previews) the token or the encounter has "
    "as many previews in flight as it may (`too-many-previews`); retry after Retry-After",
    503: (
        "The store cannot be reached, the encounter kept changing, or the replica is working on "
        "as many requests as it may; retry after Retry-After"
    ),
}


@dataclass(frozen=True)
class Operation:
    method: str
    path: str
    summary: str
    # Stable and camelCase: what generated clients name their functions after
    # (openapi-python-client: `create_encounter`, in the module of its tag).
    operation_id: str = field(kw_only=True)
    # The area it belongs to (TAGS): a module of the Python client, a group in `/docs`.
    tag: str = field(kw_only=True)
    request: Any = None
    response: Any = None
    status: int = 200
    query_after: bool = False
    # Takes `?samples=`: the sample size of a sampled odds preview.
    query_samples: bool = False
    # Every problem status the operation can answer (application/problem+json).
    errors: tuple[int, ...] = ()
    auth: Auth | None = None
    # Takes an Idempotency-Key header: a retry with it gets the first answer back.
    idempotent: bool = False
    # Statuses answered with `response`'s type rather than a problem (/readyz's 503).
    also: tuple[int, ...] = ()
    # The body may be left out (the request's defaults).
    body_optional: bool = False
    # The body is a file's bytes as they are (any Content-Type), not JSON; and `?format=` says
    # which reader it is for (the import).
    file_body: bool = False
    # Takes `?carry=` and `?actors=` (an encounter's end: what goes back to its campaign).
    query_carry: bool = False
    # Another success: its status and the type it answers with (an encounter of a campaign's
    # end answers what it gave back).
    other_success: tuple[int, Any] | None = None
    # A WebSocket: described apart from the REST paths (`x-websockets`), as generators would
    # make a plain GET of it that can only be answered 400.
    websocket: bool = False
    # Answers text/plain (`response` is None): the metrics' exposition.
    text_answer: bool = False

"""Schemathesis fuzzes every operation of the OpenAPI document the service serves.

No request may get a 500, and every answer must be one the document describes: its status code,
content type, headers and body. The generated `{encounter}` is swapped for a real encounter most of
the time (live, ended, or one kept for DELETE), so the fuzzing gets past the lookup into the
handlers; the rest keep the generated id and must get a 404 the document lists.

Two passes over the embedded store: one with the admin key on every request, so authentication is
not what every case trips over (tests/test_fuzz_admin_play.py and tests/test_fuzz_admin_rest.py),
and one with whatever credential each case draws (none, malformed, another encounter's, the
player's, the GM's, the admin's), so 401 and 403 are checked against the document too
(tests/test_fuzz_credentials.py); then a shorter pass as the admin on the real Redis
(tests/test_fuzz_redis.py). What they share is tests/fuzzing.py; each file starts its own service,
so pytest-xdist runs them side by side. Generation is derandomized and bounded. Here: that the
document fuzzed is the one served, and what the fuzzing found, pinned by plain tests, on both
stores; and that what tests/fuzzing.py keeps of schemathesis' work draws the same cases.
"""

from __future__ import annotations

import json
import re
from typing import Any

import hypothesis
import pytest
from hypothesis import strategies as hypothesis_strategies
from schemathesis.generation.modes import GenerationMode

from service.api.openapi import document
from service.api.operations import OPERATIONS
from tests import fuzzing
from tests.fuzzing import (
    ADMIN,
    ANY_CREDENTIAL,
    AS_ADMIN,
    ON_REDIS,
    PLAY,
    Service,
    memory_service,
    redis_service,
    service,
)

__all__ = ["memory_service", "redis_service", "service"]


def test_the_fuzzed_document_is_the_served_one(service: Service) -> None:
    served = service.session.get(f"{service.url}/openapi.json", timeout=10)
    assert served.status_code == 200
    assert served.json() == json.loads(json.dumps(document()))
    # Every REST operation, every pass. The WebSocket is described apart (`x-websockets`), not
    # as a path: an HTTP client cannot finish its handshake, so all a fuzzer could send it is a
    # plain GET and get the 400 it deserves. Its refusals are pinned by the plain tests below.
    rest = [op for op in OPERATIONS if not op.websocket]
    assert len(AS_ADMIN) == len(ANY_CREDENTIAL) == len(ON_REDIS) == len(rest) == len(OPERATIONS) - 1
    # The first pass is split in two files, one including the paths PLAY matches and one
    # excluding them: PLAY must match some operations and not all.
    played = [op for op in rest if re.match(PLAY, op.path)]
    assert 0 < len(played) < len(rest)


# Found by the fuzzing (missing_required_header): with no credential at all, an unknown
# encounter was a 404 and a known one a 401. Now it is a 401 either way, before the lookup.
@pytest.mark.parametrize(
    ("method", "route"),
    [
        ("GET", ""),
        ("DELETE", ""),
        ("POST", "/attacks"),
        ("POST", "/attacks/odds?samples=5"),
        ("POST", "/actions"),
        ("POST", "/advance"),
        ("GET", "/events"),
        ("GET", "/ws"),
    ],
)
def test_no_credential_is_a_401_whether_the_encounter_exists_or_not(
    service: Service, method: str, route: str
) -> None:
    for encounter in (service.live[2].id, "no-such-encounter"):
        response = service.session.request(
            method, f"{service.url}/v1/encounters/{encounter}{route}", json={}, timeout=10
        )
        assert response.status_code == 401, (encounter, response.text)
        assert response.headers["WWW-Authenticate"].startswith("Bearer")


# Found next to the fuzzing (which, on `^\d+-\d+$`, made only ASCII digits): event ids the
# store's check let through to Redis, which refused them with an error, a 500. Now the API takes
# only what its document says: ASCII digits, 19 at most a side.
@pytest.mark.parametrize(
    "after",
    [
        "1-1\n",
        "\u0663-\u0663",  # Arabic-Indic digits
        "99999999999999999999-0",  # past 64 bits
        "18446744073709551615-18446744073709551615",  # the last id: nothing can come after it
    ],
)
@pytest.mark.parametrize("route", ["events", "ws"])
def test_an_event_id_redis_would_refuse_is_a_400(service: Service, route: str, after: str) -> None:
    response = service.session.get(
        f"{service.url}/v1/encounters/{service.live[0].id}/{route}",
        params={"after": after},
        headers={"Authorization": ADMIN},
        timeout=10,
    )
    assert response.status_code == 400, response.text
    assert response.json()["path"] == "after"


def test_the_largest_event_id_the_document_allows_is_answered(service: Service) -> None:
    response = service.session.get(
        f"{service.url}/v1/encounters/{service.live[0].id}/events",
        params={"after": "9999999999999999999-9999999999999999999"},
        headers={"Authorization": ADMIN},
        timeout=10,
    )
    assert response.status_code == 200, response.text
    assert response.json() == {"events": [], "last_event_id": None, "more": False}


# tests/fuzzing.py keeps the strategy schemathesis draws each JSON object through (`_KeptObjects`):
# the cases must be those a new strategy per object makes.
@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_kept_object_strategies_draw_what_new_ones_draw(
    monkeypatch: pytest.MonkeyPatch, mode: GenerationMode
) -> None:
    assert isinstance(fuzzing._object_drawing.st, fuzzing._KeptObjects)  # schemathesis 4.32
    kept = fuzzing._object_drawing.st
    operation = AS_ADMIN["/v1/encounters/{encounter}/attacks"]["POST"]

    def bodies() -> list[str]:
        found: list[str] = []

        @hypothesis.given(operation.as_strategy(generation_mode=mode))
        @hypothesis.settings(
            derandomize=True,
            max_examples=60,
            database=None,
            deadline=None,
            phases=[hypothesis.Phase.generate],
            suppress_health_check=list(hypothesis.HealthCheck),
        )
        def draw(case: Any) -> None:
            found.append(json.dumps(case.body, sort_keys=True, default=repr))

        draw()
        return found

    made: list[int] = []
    keep = type(kept).fixed_dictionaries

    def counted(*args: Any, **kwargs: Any) -> Any:
        made.append(1)
        return keep(kept, *args, **kwargs)

    monkeypatch.setattr(kept, "fixed_dictionaries", counted)
    before = len(kept._kept)
    with_kept = bodies()
    monkeypatch.setattr(fuzzing._object_drawing, "st", hypothesis_strategies)
    assert bodies() == with_kept
    # Objects were drawn, most of them through a strategy kept from an earlier one.
    assert made and len(kept._kept) - before < len(made) / 2, (len(made), len(kept._kept))

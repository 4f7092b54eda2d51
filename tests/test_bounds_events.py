"""What an event stores and what a page of events returns are bounded in bytes: 1,000 airburst
attacks stored events of 171 KB each, and one `GET .../events` page was 175 MB, built whole while
the loop served no one else for 7 s."""

from __future__ import annotations

from typing import Any

import msgspec

from tests import sr4_requests as make
from tests.test_api import new_encounter
from tests.test_bounds_previews import _airburst

# The least each may be configured to (service/config.py).
SMALLEST_EVENT = 16 * 1024
SMALLEST_PAGE = 64 * 1024
# What a page holds besides its events: {"events":[ ... ],"last_event_id":"<id>","more":false}.
ENVELOPE = 100


def _stored_sizes(event: dict[str, Any]) -> tuple[int, int]:
    """An event as the stream keeps it (without its id), in bytes, and its `request`'s."""
    stored = {k: v for k, v in event.items() if k != "id"}
    return len(msgspec.json.encode(stored)), len(msgspec.json.encode(event["request"]))


async def _events(client: Any, encounter: str, after: str = "") -> tuple[dict[str, Any], int]:
    response = await client.get(f"/v1/encounters/{encounter}/events?after={after}")
    assert response.status == 200, await response.text()
    # Streamed, it still carries what the middlewares add.
    assert response.headers["Content-Type"] == "application/json"
    assert "X-Request-Id" in response.headers
    raw = await response.read()
    return msgspec.json.decode(raw), len(raw)


async def test_an_event_over_the_bound_is_kept_without_its_request(make_client: Any) -> None:
    """The airburst's event, stored whole on a service without the bound, is larger than the
    bound set here (its size less half its request): stored again under it, it keeps its result
    and leaves out the request it echoed, and says so."""
    body = _airburst(40, 0)
    unbounded = await make_client()
    encounter = await new_encounter(unbounded, ruleset="sr4")
    assert (await unbounded.post(f"/v1/encounters/{encounter}/attacks", json=body)).status == 201
    page, _ = await _events(unbounded, encounter)
    whole, request = _stored_sizes(page["events"][-1])
    assert whole > SMALLEST_EVENT

    bounded = await make_client(max_event_bytes=whole - request // 2)
    encounter = await new_encounter(bounded, ruleset="sr4")
    response = await bounded.post(f"/v1/encounters/{encounter}/attacks", json=body)
    assert response.status == 201, await response.text()
    answer = await response.json()
    page, _ = await _events(bounded, encounter)
    event = page["events"][-1]
    assert event["id"] == answer["event_id"]
    assert "request" not in event
    assert event["trimmed"] == ["request"]
    assert event["result"] == answer["result"]


async def test_an_attack_whose_result_is_over_the_bound_is_refused(make_client: Any) -> None:
    """Its result alone is larger than the bound: the attack is refused before anything is
    written (no event, the same version), rather than stored in part."""
    body = _airburst(40, 0)
    client = await make_client(max_event_bytes=SMALLEST_EVENT)
    encounter = await new_encounter(client, ruleset="sr4")
    before = await (await client.get(f"/v1/encounters/{encounter}")).json()
    response = await client.post(f"/v1/encounters/{encounter}/attacks", json=body)
    assert response.status == 422, await response.text()
    problem = await response.json()
    assert problem["type"].endswith("/limit-exceeded")
    assert str(SMALLEST_EVENT) in problem["detail"]
    after = await (await client.get(f"/v1/encounters/{encounter}")).json()
    assert (after["version"], after["last_event_id"]) == (
        before["version"],
        before["last_event_id"],
    )
    # A small attack still goes through.
    small = await client.post(f"/v1/encounters/{encounter}/attacks", json=make.attack())
    assert small.status == 201, await small.text()


async def test_pages_are_bounded_in_bytes_and_followed_with_after(make_client: Any) -> None:
    """Ten airbursts among 20 actors each do not fit one page of 64 KiB: each page stops before
    it would pass the bound, says there is more, and following `after=` gives every event once,
    in order, in as few pages as the bound allows or a few more."""
    client = await make_client(events_page_bytes=SMALLEST_PAGE)
    encounter = await new_encounter(client, ruleset="sr4")
    made = []
    for _ in range(10):
        response = await client.post(f"/v1/encounters/{encounter}/attacks", json=_airburst(20, 0))
        assert response.status == 201, await response.text()
        made.append((await response.json())["event_id"])
    seen: list[str] = []
    after, pages, total = "", 0, 0
    while True:
        page, size = await _events(client, encounter, after)
        pages += 1
        total += size
        assert size <= SMALLEST_PAGE + ENVELOPE
        seen += [event["id"] for event in page["events"]]
        if not page["more"]:
            break
        assert page["events"]
        after = page["last_event_id"]
    # The creation's event first, then the attacks'.
    assert seen[1:] == made
    assert total > SMALLEST_PAGE
    assert -(-total // (SMALLEST_PAGE + ENVELOPE)) <= pages < len(made)


async def test_an_event_larger_than_a_page_comes_alone(make_client: Any) -> None:
    """A page always holds at least one event, so a reader never stalls: an event larger than
    the page bound comes in a page of its own."""
    client = await make_client(events_page_bytes=SMALLEST_PAGE)
    encounter = await new_encounter(client, ruleset="sr4")
    big = await client.post(f"/v1/encounters/{encounter}/attacks", json=_airburst(100, 50))
    assert big.status == 201, await big.text()
    small = await client.post(f"/v1/encounters/{encounter}/attacks", json=make.attack())
    assert small.status == 201
    first, _ = await _events(client, encounter)
    created = first["last_event_id"]
    page, size = await _events(client, encounter, created)
    assert size > SMALLEST_PAGE
    assert [e["id"] for e in page["events"]] == [(await big.json())["event_id"]]
    assert page["more"] is True
    rest, _ = await _events(client, encounter, page["last_event_id"])
    assert [e["id"] for e in rest["events"]] == [(await small.json())["event_id"]]
    assert rest["more"] is False

"""Issue 25: the web console says when an encounter expires ("kept until ..."), in Chromium against
services started with their own settings. With less than 24 hours left it warns, saying what keeps
it and how to keep a copy; each event it receives moves the time on (each write refreshes the TTL)
to what the service answers. With the default store and no TTL, nothing is shown."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

from tests import console_browser as console
from tests.test_console import browser

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

__all__ = ["browser"]


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    opened = context.new_page()
    opened.set_default_timeout(15_000)
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    yield opened
    context.close()
    assert errors == [], f"the page threw: {errors}"


def encounter_view(url: str, encounter: str, token: str) -> dict[str, Any]:
    """GET /v1/encounters/{id} as any client reads it."""
    request = urllib.request.Request(
        f"{url}/v1/encounters/{encounter}", headers={"Authorization": f"Bearer {token}"}
    )
    with urllib.request.urlopen(request, timeout=5) as response:
        view: dict[str, Any] = json.load(response)
    return view


def test_an_encounter_with_less_than_a_day_left_warns_and_follows_each_change(
    page: Page,
) -> None:
    from playwright.sync_api import expect

    with console.serve(env={"FIREFIGHT_ENCOUNTER_TTL_SECONDS": "3600"}) as url:
        console.open_console(page, url)
        encounter = console.create_encounter(page, name="Docks")
        gm = console.gm_token(page)
        view = encounter_view(url, encounter, gm)
        assert view["ttl_seconds"] == 3600
        kept = page.locator("#expiry")
        expect(kept).to_be_visible()
        expect(kept).to_contain_text("Kept until")
        expect(kept.locator("time")).to_have_attribute("datetime", view["expires_at"])

        warning = page.locator("#expiry-warning")
        expect(warning).to_be_visible()
        expect(warning).to_contain_text("Less than 24 hours left")
        expect(warning).to_contain_text("Any change to the encounter keeps it another 1 hour")
        expect(warning).to_contain_text(
            f"python -m service export --encounter {encounter} --out {encounter}.json"
        )

        # A change: its event reaches the page, and the time shown moves on with it.
        advanced = console.advance(page, "Next combat turn")
        expect(page.locator(f'#feed li[data-event-id="{advanced["event_id"]}"]')).to_have_count(1)
        after = encounter_view(url, encounter, gm)
        assert after["last_event_id"] == advanced["event_id"]
        assert after["expires_at"] != view["expires_at"]
        expect(kept.locator("time")).to_have_attribute("datetime", after["expires_at"])
        expect(warning).to_be_visible()

        # A player's page shows it too.
        player = page.context.new_page()
        player.goto(console.player_link(page))
        player.locator("body[data-ready=true]").wait_for()
        expect(player.locator("#expiry time")).to_have_attribute("datetime", after["expires_at"])
        expect(player.locator("#expiry-warning")).to_be_visible()


def test_an_encounter_with_more_than_a_day_left_shows_when_without_a_warning(
    page: Page,
) -> None:
    from playwright.sync_api import expect

    with console.serve(env={"FIREFIGHT_ENCOUNTER_TTL_SECONDS": str(2 * 24 * 3600)}) as url:
        console.open_console(page, url)
        encounter = console.create_encounter(page, name="Docks")
        view = encounter_view(url, encounter, console.gm_token(page))
        expect(page.locator("#expiry time")).to_have_attribute("datetime", view["expires_at"])
        expect(page.locator("#expiry-warning")).to_be_hidden()


def test_the_default_store_with_no_ttl_shows_no_expiry(page: Page) -> None:
    from playwright.sync_api import expect

    with console.serve() as url:
        console.open_console(page, url)
        encounter = console.create_encounter(page, name="Docks")
        view = encounter_view(url, encounter, console.gm_token(page))
        assert (view["expires_at"], view["ttl_seconds"]) == (None, None)
        advanced = console.advance(page, "Next combat turn")
        expect(page.locator(f'#feed li[data-event-id="{advanced["event_id"]}"]')).to_have_count(1)
        expect(page.locator("#expiry")).to_be_hidden()
        expect(page.locator("#expiry-warning")).to_be_hidden()
        assert page.locator("#expiry").text_content() == ""

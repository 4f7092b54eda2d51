"""Issue 25: the web console remembers the encounters this browser opened, in Chromium against a
service that is really stopped (SIGTERM) and started again on the same data directory and port
between two steps: the encounter is listed, reopens with one click and its attack is in the feed.
Started with `--store memory`, the restarted service has lost it, and the entry says so plainly.
The admin key is remembered only when the GM ticks its box."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests import console_browser as console
from tests.test_console import browser

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext

__all__ = ["browser"]

GONE = (
    "This encounter is gone from the service: it may have ended, or the service was started "
    "with --store memory."
)


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    """One browser profile: its tabs share localStorage, each has its own sessionStorage."""
    opened = browser.new_context(viewport={"width": 1400, "height": 1000})
    opened.set_default_timeout(15_000)
    errors: list[str] = []
    opened.on("weberror", lambda error: errors.append(str(error.error)))
    yield opened
    opened.close()
    assert errors == [], f"the page threw: {errors}"


def remembered(context: BrowserContext) -> list[dict[str, Any]]:
    """What the profile's localStorage keeps, as a fresh tab of it reads it."""
    storage = context.storage_state()["origins"]
    for origin in storage:
        for item in origin["localStorage"]:
            if item["name"] == "firefight.console.encounters":
                entries: list[dict[str, Any]] = json.loads(item["value"])
                return entries
    return []


def test_an_encounter_reopens_with_one_click_after_a_restart(
    context: BrowserContext, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    port = console.free_port()
    page = context.new_page()
    with console.serve_on(tmp_path, port) as url:
        console.open_console(page, url)
        # Nothing opened yet in this profile: no list.
        expect(page.locator("#remembered")).to_be_hidden()
        encounter = console.create_encounter(page, name="Warehouse")
        gm_token = console.gm_token(page)
        console.fill_readme_attack(page)
        attack = console.resolve(page)["event_id"]
        expect(page.locator(f'#feed li[data-event-id="{attack}"]')).to_have_count(1)
    # The service was stopped with SIGTERM; started again on the same data directory and port.
    with console.serve_on(tmp_path, port) as url:
        # The reloaded tab goes back into its encounter, with the attack in the feed.
        page.reload()
        page.locator("body[data-ready=true]").wait_for()
        expect(page.locator("#feed-status")).to_have_attribute("data-state", "live")
        expect(page.locator(f'#feed li[data-event-id="{attack}"]')).to_have_count(1)

        # A new tab of the same browser (the GM closed the console and came back): the list.
        fresh = context.new_page()
        console.open_console(fresh, url)
        entries = fresh.locator("#remembered-list li")
        expect(entries).to_have_count(1)
        entry = fresh.locator(f'#remembered-list li[data-encounter="{encounter}"]')
        expect(entry).to_contain_text("sr5, GM")
        entry.get_by_role("button", name="Open Warehouse").click()
        expect(fresh.locator("#feed-status")).to_have_attribute("data-state", "live")
        expect(fresh.locator("#info-id")).to_have_text(encounter)
        expect(fresh.locator(f'#feed li[data-event-id="{attack}"]')).to_have_count(1)
        expect(fresh.locator(f'#feed li[data-event-id="{attack}"]')).to_have_attribute(
            "data-type", "attack"
        )
        # Reopened as the GM it was created by: the GM token and the player link are back.
        expect(fresh.locator("#share-gm-token")).to_have_value(gm_token)
        expect(fresh.locator("#turn-panel")).to_be_visible()

        # Left, the encounter is still listed; Forget removes it and its token.
        fresh.get_by_role("button", name="Leave this encounter").click()
        expect(entry).to_be_visible()
        entry.get_by_role("button", name="Forget Warehouse").click()
        expect(fresh.locator("#remembered-list li")).to_have_count(0)
        expect(fresh.locator("#remembered")).to_be_hidden()
        # Chromium hands a tab's localStorage write to the profile's other tabs asynchronously
        # (the likely cause of one failure in a full run, the entry still there): once the first
        # tab sees the entry gone, the profile keeps nothing.
        page.wait_for_function(
            "() => JSON.parse(localStorage.getItem('firefight.console.encounters') ?? '[]')"
            ".length === 0"
        )
        assert remembered(context) == []


def test_after_a_restart_with_the_memory_store_the_entry_says_the_encounter_is_gone(
    context: BrowserContext, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    port = console.free_port()
    page = context.new_page()
    memory = ("--store", "memory")
    with console.serve_on(tmp_path, port, args=memory) as url:
        console.open_console(page, url)
        encounter = console.create_encounter(page, name="Docks")
    with console.serve_on(tmp_path, port, args=memory) as url:
        # The reloaded tab cannot go back into it: said plainly, not "opens no encounter".
        page.reload()
        page.locator("body[data-ready=true]").wait_for()
        expect(page.locator("#encounter-status")).to_have_text(GONE)
        expect(page.locator("#encounter-info")).to_be_hidden()

        entry = page.locator(f'#remembered-list li[data-encounter="{encounter}"]')
        entry.get_by_role("button", name="Open Docks").click()
        expect(entry).to_have_attribute("data-gone", "true")
        expect(entry.locator(".status")).to_have_text(f"{GONE} Forget removes it from this list.")
        expect(page.locator("#remembered")).not_to_contain_text("opens no encounter")
        entry.get_by_role("button", name="Forget Docks").click()
        expect(page.locator("#remembered-list li")).to_have_count(0)
        assert remembered(context) == []


def test_the_list_keeps_the_20_most_recently_opened(
    context: BrowserContext, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    page = context.new_page()
    with console.serve_on(tmp_path, console.free_port()) as url:
        console.open_console(page, url)
        # 20 encounters opened on days 20 (newest, first) down to 1 (oldest, last), as the page
        # writes them; they need not exist for the list.
        older = [
            {
                "id": f"old-{day}",
                "name": f"Fight {day}",
                "ruleset": "sr5",
                "role": "player",
                "player": None,
                "token": f"token-{day}",
                "tokens": None,
                "opened": f"2026-11-{day:02d}T20:00:00.000Z",
            }
            for day in range(20, 0, -1)
        ]
        page.evaluate(
            "(entries) => localStorage.setItem('firefight.console.encounters', "
            "JSON.stringify(entries))",
            older,
        )
        page.reload()
        page.locator("body[data-ready=true]").wait_for()
        expect(page.locator("#remembered-list li")).to_have_count(20)
        encounter = console.create_encounter(page, name="Newest")
        page.get_by_role("button", name="Leave this encounter").click()
        # The 21st pushes out the one opened longest ago (day 1); day 2 is now the last.
        ids = [entry["id"] for entry in remembered(context)]
        assert ids == [encounter] + [f"old-{day}" for day in range(20, 1, -1)]
        expect(page.locator("#remembered-list li")).to_have_count(20)
        expect(page.locator("#remembered-list li").first).to_contain_text("Open Newest")
        expect(page.locator('#remembered-list li[data-encounter="old-1"]')).to_have_count(0)


def test_the_admin_key_is_kept_only_when_its_box_is_ticked(
    context: BrowserContext, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    page = context.new_page()
    with console.serve_on(tmp_path, console.free_port()) as url:
        console.open_console(page, url)
        box = page.get_by_label("Remember this key in this browser")
        expect(box).not_to_be_checked()
        console.create_encounter(page, name="Not kept")
        page.get_by_role("button", name="Leave this encounter").click()
        page.reload()
        page.locator("body[data-ready=true]").wait_for()
        expect(page.get_by_label("Admin key")).to_have_value("")
        expect(box).not_to_be_checked()

        box.check()
        console.create_encounter(page, name="Kept")
        page.get_by_role("button", name="Leave this encounter").click()
        page.reload()
        page.locator("body[data-ready=true]").wait_for()
        expect(page.get_by_label("Admin key")).to_have_value(console.ADMIN_KEY)
        expect(box).to_be_checked()

        # Unticked, it is forgotten at once.
        box.uncheck()
        page.reload()
        page.locator("body[data-ready=true]").wait_for()
        expect(page.get_by_label("Admin key")).to_have_value("")
        expect(box).not_to_be_checked()

"""The console's accessibility, as axe-core (the axe-playwright-python package's axe.min.js, a
declared test dependency) judges each view in Chromium: the join page, the GM's encounter, a
player's encounter (the full table, and their own link's view on a phone), the dice walk open
on the GM's and the phone's, the campaign page, each in the dark and the light theme. Any serious
or critical violation fails."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from tests import console_browser as console
from tests import sr5_requests as make
from tests.test_console import browser, url

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

# The browser and the served console: tests/test_console.py\'s own.
__all__ = ["browser", "url"]

FAILING = {"serious", "critical"}


@pytest.fixture(params=["dark", "light"])
def scheme(request: pytest.FixtureRequest) -> str:
    value: str = request.param
    return value


def violations(page: Page) -> list[str]:
    """axe's serious and critical violations of the page as it is now, one line each (axe.run
    as axe_playwright_python's Axe().run calls it; axe.min.js, 570 kB, sent into the page only
    the first time the page is judged, not again for each view of it)."""
    from axe_playwright_python.sync_playwright import DEFAULT_OPTIONS, Axe

    axe = Axe()
    if not page.evaluate("() => typeof window.axe?.run === 'function'"):
        page.evaluate(axe.axe_script)
    results: dict[str, Any] = page.evaluate("options => axe.run(options)", DEFAULT_OPTIONS)
    found = []
    for violation in results["violations"]:
        if violation["impact"] in FAILING:
            for node in violation["nodes"]:
                found.append(
                    f"{violation['id']} ({violation['impact']}): {node['target']} "
                    f"{node.get('failureSummary', '')}"
                )
    return found


def new_page(browser: Browser, scheme: str, viewport: dict[str, int] | None = None) -> Page:
    context = browser.new_context(
        viewport=viewport or {"width": 1400, "height": 1000},  # type: ignore[arg-type]
        color_scheme=scheme,  # type: ignore[arg-type]
    )
    page = context.new_page()
    page.set_default_timeout(15_000)
    return page


def test_the_join_page(browser: Browser, url: str, scheme: str) -> None:
    page = new_page(browser, scheme)
    try:
        console.open_console(page, url)
        assert violations(page) == []
    finally:
        page.context.close()


def test_the_gm_and_player_views_of_an_encounter(browser: Browser, url: str, scheme: str) -> None:
    from playwright.sync_api import expect

    page = new_page(browser, scheme)
    player = None
    try:
        console.open_console(page, url)
        encounter = console.create_encounter(page, typed_in=False)
        console.put_actor(page, url, encounter, "sam", make.README_SAM)
        console.put_actor(
            page,
            url,
            encounter,
            "goon-1",
            {"position": {"x": 12, "y": 0}, "sheet": make.README_GANGER_SHEET},
        )
        page.get_by_role("button", name="Attacker: sam").click()
        page.get_by_role("button", name="Target goon-1").click()
        page.locator("#options summary").click()
        page.get_by_label("Smartlink").select_option("wireless_implant")
        console.give_dice(page, "#dice-steps", console.README_DICE)
        console.resolve(page)
        page.get_by_role("button", name="Add an actor").click()
        # The odds dim while they are worked out: judged once they are in.
        page.locator("#attack-odds:not([aria-busy=true])").wait_for()
        assert violations(page) == []
        # Rolling at the table: the walk open at its first step (tests/test_console_dice.py),
        # the dice typed for the attack above taken out (given, they would send it at once).
        console.give_dice(page, "#dice-steps", dict.fromkeys(console.README_DICE, ""))
        page.locator("#attack-walk-start").click()
        expect(page.locator("#attack-walk-prompt")).to_have_text("Sam: roll 13 dice")
        assert violations(page) == []
        page.locator("#attack-walk-cancel").click()

        player = new_page(browser, scheme)
        player.goto(console.player_link(page))
        player.locator("#feed-status[data-state=live]").wait_for()
        expect(player.locator("#feed li[data-type=attack]")).to_have_count(1)
        player.locator("#feed li[data-type=attack] button").click()
        assert violations(player) == []
        player.context.close()

        # A player's own link, on a phone: the view of their actor (tests/test_console_phone.py).
        player = new_page(browser, scheme, viewport={"width": 390, "height": 844})
        player.goto(console.players_link(page, "anna", "sam"))
        expect(player.locator("#pv-fire")).to_have_text("Attack goon-1")
        assert violations(player) == []
        # Its own walk through the dice (tests/test_console_fight.py), open at its first step.
        player.locator("#pv-roll").click()
        expect(player.locator("#pv-walk-prompt")).to_have_text("Sam: roll 11 dice")
        assert violations(player) == []
    finally:
        page.context.close()
        if player:
            player.context.close()


def test_the_campaign_page(browser: Browser, url: str, scheme: str) -> None:
    page = new_page(browser, scheme)
    try:
        console.open_console(page, url)
        page.get_by_label("Admin key").fill(console.ADMIN_KEY)
        page.get_by_label("Rules played").select_option("sr5")
        page.get_by_label("Campaign name").fill("Seattle")
        page.get_by_role("button", name="Create campaign").click()
        page.locator("#campaign-panel").wait_for()
        page.get_by_role("button", name="Add a character or template").click()
        assert violations(page) == []
    finally:
        page.context.close()

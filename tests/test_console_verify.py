"""Issue 30 in the browser: the console shows the encounter's dice commitment, and its "check the
dice" page checks a fight log pasted into it without a request to anyone (a fudged die is
named there), in Chromium, on the service as a user runs it.
"""

from __future__ import annotations

import copy
import json
import os
import urllib.request
from typing import TYPE_CHECKING, Any

from tests import console_browser as console
from tests import sr5_requests as sr5
from tests.test_console import browser, page, url

if TYPE_CHECKING:
    from playwright.sync_api import Page

__all__ = ["browser", "page", "url"]


def call(base: str, method: str, path: str, body: Any = None) -> Any:
    request = urllib.request.Request(
        base + path,
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={
            "Authorization": f"Bearer {console.ADMIN_KEY}",
            "Content-Type": "application/json",
        },
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        text = response.read()
    return json.loads(text) if text else None


def test_the_console_shows_the_commitment_and_its_page_checks_the_dice(
    page: Page, url: str
) -> None:
    encounter = console.create_encounter(page)
    view = call(url, "GET", f"/v1/encounters/{encounter}")
    from playwright.sync_api import expect

    expect(page.locator("#info-dice")).to_contain_text(view["dice"]["commitment"])
    base = f"/v1/encounters/{encounter}"
    call(url, "POST", f"{base}/attacks", sr5.attack(client_seed="from the browser test"))
    revealed = call(url, "POST", f"{base}/dice/reveal", {})
    # The new commitment reaches the console with the reveal's event.
    expect(page.locator("#info-dice")).to_contain_text(revealed["commitment"]["commitment"])
    if "FIREFIGHT_CONSTANT_DICE" in os.environ:
        # The served service's dice are one face (tests/constant_dice.py), not its secret's: the
        # page would rightly say so. Its derivation is checked in tests/test_verify_js.py.
        return
    events = call(url, "GET", f"{base}/events")

    sent: list[str] = []
    page.on("request", lambda request: sent.append(request.url))
    page.goto(f"{url}/console/verify.html")
    page.get_by_label("or paste it").fill(json.dumps(events))
    sent.clear()
    page.get_by_role("button", name="Check the dice").click()
    expect(page.locator("#verify-status")).to_have_text(
        f"Every die checks out ({len(events['events'])} events read)."
    )
    attack = page.locator("#verify-report li", has_text="(attack, change 2)")
    expect(attack).to_contain_text("dice are the secret's")

    fudged: dict[str, Any] = copy.deepcopy(events)
    rolled = next(e for e in fudged["events"] if e["type"] == "attack")
    roll = rolled["dice"]["rolls"][0]
    was = roll["values"][0]
    roll["values"][0] = was % 6 + 1
    page.get_by_label("or paste it").fill(json.dumps(fudged))
    page.get_by_role("button", name="Check the dice").click()
    expect(page.locator("#verify-status")).to_have_text("1 event does not check out.")
    expect(attack).to_contain_text(
        f"Step {roll['step']}, die 1: the secret gives {was}, the event shows {roll['values'][0]}."
    )
    # Nothing left the page.
    assert sent == []


def test_the_gm_reveals_the_dice_from_the_console_and_a_player_has_no_such_button(
    page: Page, url: str, browser: Any
) -> None:
    from playwright.sync_api import expect

    encounter = console.create_encounter(page)
    base = f"/v1/encounters/{encounter}"
    call(url, "PUT", f"{base}/actors/sam", sr5.README_SAM)
    before_dice = call(url, "GET", base)["dice"]
    before = before_dice["commitment"]
    # The secret drawn at the creation (change 1) covers the changes after it: Sam put on the
    # scene (2), the last before the reveal.
    page.get_by_role("button", name="Reveal the dice").click()
    expect(page.locator("#reveal-status")).to_have_text(
        'Revealed: changes 2 to 2 can be checked (export the fight, then "Check the dice").'
    )
    after = call(url, "GET", base)["dice"]
    # A new secret rolls from the change after the reveal (3) on (under tests/constant_dice.py
    # every secret is the same one, so its commitment is not compared).
    assert (before_dice["first_sequence"], after["first_sequence"]) == (2, 4)
    expect(page.locator("#info-dice")).to_contain_text(
        f"{after['commitment']} (hmac-sha256-1, from change 4)"
    )
    events = call(url, "GET", f"{base}/events")["events"]
    [revealed] = [e for e in events if e["type"] == "dice_revealed"]
    assert revealed["result"]["commitment"] == before
    # Pat's own link, the full table behind the phone view: the new commitment, no reveal.
    link = console.players_link(page, "pat", "sam")
    context = browser.new_context()
    pat = context.new_page()
    try:
        pat.goto(link)
        pat.locator("#pv-toggle").click()
        expect(pat.locator("#info-dice")).to_contain_text("from change 4")
        expect(pat.locator("#reveal-dice")).to_be_hidden()
    finally:
        context.close()

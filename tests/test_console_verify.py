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

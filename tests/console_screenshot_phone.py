"""Takes docs/img/console-phone.png and docs/img/console-phone-desktop.png: a player's own link
on a phone (390 x 844) and on a desktop, after the wounded Sam shot the ganger with one tap and
the player's own dice rolled at the table (tests/test_console_phone.py works the numbers
through).

Run it with `python -m tests.console_screenshot_phone [directory]` (it starts its own service and
uses Debian's Chromium, as the browser tests do)."""

from __future__ import annotations

import sys
from pathlib import Path

from tests import console_browser as console
from tests.test_console_phone import DESKTOP, PHONE, roll_phone_dice, set_table

OUTPUT = console.ROOT / "docs" / "img"


def take(directory: Path = OUTPUT) -> list[Path]:
    from playwright.sync_api import sync_playwright

    missing = console.chromium_missing()
    if missing:
        raise SystemExit(missing)
    taken = []
    with console.serve() as url, sync_playwright() as playwright:
        browser = console.launch(playwright)
        gm = browser.new_page(viewport={"width": 1400, "height": 1000})
        gm.set_default_timeout(15_000)
        console.open_console(gm, url)
        link = set_table(gm, url)["link"]
        shots = {"console-phone.png": PHONE, "console-phone-desktop.png": DESKTOP}
        for name, viewport in shots.items():
            context = browser.new_context(viewport=viewport, has_touch=viewport == PHONE)
            anna = context.new_page()
            anna.set_default_timeout(15_000)
            anna.goto(link)
            anna.locator("#feed-status[data-state=live]").wait_for(state="attached")
            anna.locator('#player-view [data-target="goon-1"][aria-pressed="true"]').wait_for()
            if name == "console-phone.png":
                # The shot once, from the phone; the desktop shows the same result read back.
                roll_phone_dice(anna)
                anna.locator("#player-view .pv-result-targets [data-target]").wait_for()
            else:
                anna.locator('#player-view .pv-feed li[data-type="attack"]').nth(1).wait_for()
            anna.evaluate("() => window.scrollTo(0, 0)")
            path = directory / name
            path.parent.mkdir(parents=True, exist_ok=True)
            anna.screenshot(path=str(path), full_page=True)
            taken.append(path)
            context.close()
        browser.close()
    return taken


if __name__ == "__main__":
    for path in take(Path(sys.argv[1]) if len(sys.argv) > 1 else OUTPUT):
        print(path)

"""Takes docs/img/console-dice.png: rolling at the table on a phone (390 x 844), the GM walking
the README's Sam through his shot: the attack given as faces, the ganger's defense as hits and
ones, the soak asked for next.

Run it with `python -m tests.console_screenshot_dice [path]` (it starts its own service and uses
Debian's Chromium, as the browser tests do)."""

from __future__ import annotations

import sys
from pathlib import Path

from tests import console_browser as console
from tests import sr5_requests as make

OUTPUT = console.ROOT / "docs" / "img" / "console-dice.png"
GANGER = {"name": "Ganger", "position": {"x": 12, "y": 0}, "sheet": make.README_GANGER_SHEET}


def take(path: Path = OUTPUT) -> Path:
    from playwright.sync_api import expect, sync_playwright

    missing = console.chromium_missing()
    if missing:
        raise SystemExit(missing)
    with console.serve() as url, sync_playwright() as playwright:
        browser = console.launch(playwright)
        page = browser.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2)
        page.set_default_timeout(15_000)
        console.open_console(page, url)
        encounter = console.create_encounter(page, name="Warehouse")
        console.put_actor(page, url, encounter, "sam", make.README_SAM)
        console.put_actor(page, url, encounter, "goon-1", GANGER)
        page.get_by_role("button", name="Attacker: sam").click()
        page.get_by_role("button", name="Target goon-1").click()
        page.get_by_role("button", name="Roll at the table").click()
        walk = page.locator("#attack-walk")
        prompt = walk.locator("#attack-walk-prompt")
        expect(prompt).to_have_text("Sam: roll 11 dice")
        walk.get_by_label("Faces", exact=True).check()
        walk.get_by_label("Faces rolled (11 dice, d6)").fill("6 6 5 5 3 2 1 1 4 4 3")
        walk.get_by_role("button", name="Enter dice").click()
        expect(prompt).to_have_text("Ganger: roll 6 dice")
        walk.get_by_label("Hits and ones").check()
        walk.get_by_role("button", name="Hits: one more").click()
        walk.get_by_role("button", name="Enter dice").click()
        expect(prompt).to_have_text("Ganger: roll 12 dice")
        walk.get_by_role("button", name="Hits: one more").click()
        walk.get_by_role("button", name="Hits: one more").click()
        walk.scroll_into_view_if_needed()
        path.parent.mkdir(parents=True, exist_ok=True)
        walk.screenshot(path=str(path))
        browser.close()
    return path


if __name__ == "__main__":
    print(take(Path(sys.argv[1]) if len(sys.argv) > 1 else OUTPUT))

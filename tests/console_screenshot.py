"""Takes docs/img/console.png: the console after a suppressive burst and the README's shot, with
the service running the initiative.

Run it with `python -m tests.console_screenshot [path]` (it starts its own service and uses
Debian's Chromium, as the browser tests do)."""

from __future__ import annotations

import sys
from pathlib import Path

from tests import console_browser as console
from tests import sr5_requests as make

OUTPUT = console.ROOT / "docs" / "img" / "console.png"
SAM = make.README_SAM
GOON = make.README_GANGER_SHEET


def take(path: Path = OUTPUT) -> Path:
    from playwright.sync_api import sync_playwright

    missing = console.chromium_missing()
    if missing:
        raise SystemExit(missing)
    with console.serve() as url, sync_playwright() as playwright:
        browser = console.launch(playwright)
        # The dark theme, as the docs have always shown it (a browser left alone prefers light).
        page = browser.new_page(viewport={"width": 1400, "height": 1000}, color_scheme="dark")
        page.set_default_timeout(15_000)
        console.open_console(page, url)
        encounter = console.create_encounter(page, name="Warehouse")
        # The scene: Sam, the goon in Sam's sights, and one the players do not see yet.
        for actor, body in {
            "sam": SAM,
            "goon-1": {"name": "Goon", "position": {"x": 12, "y": 0}, "sheet": GOON},
            "goon-2": {"position": {"x": 18, "y": 12}, "hidden": True, "sheet": GOON},
        }.items():
            console.put_actor(page, url, encounter, actor, body)
        # Rook (typed in) lays suppressive fire across the yard; then Sam takes the README's
        # shot, picked from the roster.
        page.get_by_label("Attacker id").fill("rook")
        page.get_by_label("Attacker id").press("Tab")
        page.get_by_label("rook y (m)").fill("-10")
        page.get_by_label("rook y (m)").press("Tab")
        page.get_by_label("Category").select_option("assault_rifle")
        page.locator("#weapon-modes-FA").check()
        page.get_by_label("Rounds loaded").fill("40")
        page.get_by_label("Firing mode").select_option("suppressive")
        page.get_by_label("aim point x (m)").fill("24")
        page.get_by_label("aim point y (m)").fill("10")
        page.get_by_label("aim point y (m)").press("Tab")
        console.resolve(page)
        page.get_by_label("Firing mode").select_option("SA")
        page.get_by_role("button", name="Attacker: sam").click()
        page.get_by_role("button", name="Target goon-1").click()
        page.locator("#options summary").click()
        page.get_by_label("Smartlink").select_option("wireless_implant")
        console.give_dice(page, "#dice-steps", console.README_DICE)
        console.resolve(page)
        page.locator("#options summary").click()  # closed again: the picture shows the result
        page.locator("#zone-list li[data-zone]").wait_for()
        # Then the service runs the initiative, scores as rolled at the table (sent the way a VTT
        # sends them, so the result panel keeps the shot): every console follows the order.
        scores = {"sam": 18, "goon-1": 11, "goon-2": 9}
        started = page.request.post(
            f"{url}/v1/encounters/{encounter}/initiative",
            headers={"Authorization": f"Bearer {console.gm_token(page)}"},
            data={"actors": [{"actor": a, "score": s} for a, s in scores.items()]},
        )
        assert started.ok, started.text()
        page.locator('#initiative-panel[data-current="sam"]').wait_for()
        path.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(path), full_page=True)
        browser.close()
    return path


if __name__ == "__main__":
    print(take(Path(sys.argv[1]) if len(sys.argv) > 1 else OUTPUT))

"""The web console in a real browser: the service as a user runs it, Debian's Chromium driven by
Playwright, and the steps a GM takes at the table. Used by tests/test_console.py and by
tests/console_screenshot.py (the picture in docs/console.md)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, Playwright, Response

ROOT = Path(__file__).resolve().parent.parent
ADMIN_KEY = "console-admin-key-0123456789"
# Debian's Chromium (scripts/ensure-chromium installs it); Playwright's own downloads are not
# used: the machines reach no browser download site.
CHROMIUM = os.environ.get("FIREFIGHT_CHROMIUM", "/usr/bin/chromium")
# The features Playwright's launch disables (chromiumSwitches in its driver): Chromium keeps only
# the last --disable-features it is given, so ours repeats them (tests/test_console_chromium.py
# fails when a Playwright upgrade disables one more).
PLAYWRIGHT_DISABLED_FEATURES = (
    "AvoidUnnecessaryBeforeUnloadCheckSync,DestroyProfileOnBrowserClose,HttpsUpgrades,"
    "HttpsFirstBalancedModeAutoEnable,LensOverlay,MediaRouter,PaintHolding,"
    "ThirdPartyStoragePartitioning,AvoidCorsURLLoaderRestartOnRedirect,TcpPortRandomizationWin,"
    "OptimizationHints,NetworkTimeServiceQuerying,AimEnabled,PreconnectToSearch,"
    "msForceBrowserSignIn,msEdgeUpdateLaunchServicesPreferredVersion"
)
# Headless Chromium gives each window (one for each context a test opens) the omnibox's popups,
# WebUI pages in a renderer of their own that cost more CPU than the console's page; no test
# types into an omnibox.
OMNIBOX_WEBUI = "WebUIOmniboxPopup,WebUIOmniboxAimPopup"
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    f"--disable-features={PLAYWRIGHT_DISABLED_FEATURES},{OMNIBOX_WEBUI}",
]

# The README's SR5 example: what the console must reproduce when typed in.
README_DICE = {
    "attack": "6 5 5 5 2 3 1 4 2 3 4 4 2",
    "defense:goon-1": "5 2 3 1 4 2",
    "soak:goon-1": "5 6 1 2 3 4 2 2 3 4 1 3",
}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def serve(admin_key: str = ADMIN_KEY, env: Mapping[str, str] | None = None) -> Iterator[str]:
    """`python -m service` on a free port, its data in a directory of its own (the default store,
    as `make run` keeps it), stopped at the end; `env`: FIREFIGHT_ settings of its own."""
    with (
        tempfile.TemporaryDirectory() as data,
        serve_on(Path(data), free_port(), admin_key, env=env) as url,
    ):
        yield url


@contextlib.contextmanager
def serve_on(
    data: Path,
    port: int,
    admin_key: str = ADMIN_KEY,
    args: tuple[str, ...] = (),
    env: Mapping[str, str] | None = None,
) -> Iterator[str]:
    """`python -m service` on `port` keeping its data in `data` (started again on both, it finds
    what it kept), its log in a file (a pipe nobody reads would fill up and stall the service),
    stopped with SIGTERM at the end, as an orchestrator or Ctrl-C stops it. Only the FIREFIGHT_
    settings in `env` reach it, none of this process's (but FIREFIGHT_CONSTANT_DICE)."""
    settings = dict(env or {})
    # The hunt for tests that pass on luck (tests/constant_dice.py) reaches the served service
    # too: `FIREFIGHT_CONSTANT_DICE=0.5 pytest -p tests.constant_dice tests/test_console_x.py`.
    module = "service"
    if "FIREFIGHT_CONSTANT_DICE" in os.environ:
        settings.setdefault("FIREFIGHT_CONSTANT_DICE", os.environ["FIREFIGHT_CONSTANT_DICE"])
        module = "tests.constant_dice_service"
    env = {k: v for k, v in os.environ.items() if not k.startswith("FIREFIGHT_")}
    env.update(settings)
    env["FIREFIGHT_ADMIN_KEY"] = admin_key
    env["FIREFIGHT_DATA_DIR"] = str(data)
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(
            [sys.executable, "-m", module, "--port", str(port), *args],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=log,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            _wait_ready(url, process, log)
            yield url
        finally:
            if process.poll() is None:
                process.terminate()
            process.wait(timeout=10)


def _wait_ready(url: str, process: subprocess.Popen[bytes], log: Any, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            log.seek(0)
            raise AssertionError(f"the service exited: {log.read().decode()[-2000:]}")
        try:
            with urllib.request.urlopen(url + "/readyz", timeout=1) as response:
                if response.status == 200:
                    return
        except OSError:
            # Polling a port that is not listening yet: there is no event to wait on.
            time.sleep(0.05)
    raise AssertionError(f"{url} was not ready within {seconds} s")


def rulesets(url: str) -> list[str]:
    with urllib.request.urlopen(url + "/v1/rulesets", timeout=5) as response:
        return [r["id"] for r in json.load(response)["rulesets"]]


def offered_rulesets(page: Page) -> list[str]:
    """The rulesets the open console offers to create (a ruleset it has no form for is listed,
    disabled)."""
    values: list[str] = page.locator("#create-ruleset option:not([disabled])").evaluate_all(
        "options => options.map(o => o.value)"
    )
    return values


def chromium_missing() -> str | None:
    """Why no browser can run, or None when one can."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install -e '.[test]')"
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        return f"no Chromium at {CHROMIUM} (scripts/ensure-chromium installs Debian's)"
    return None


def launch(playwright: Playwright) -> Browser:
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


# --- what a GM does -------------------------------------------------------------------------


def open_console(page: Page, url: str) -> None:
    page.goto(url + "/")
    page.locator("body[data-ready=true]").wait_for()


def create_encounter(
    page: Page, ruleset: str = "sr5", name: str = "Warehouse", typed_in: bool = True
) -> str:
    """Creates an encounter from the console's form; returns its id. `typed_in`: the attack
    form's typed-in sheet chosen (sam and goon-1 on the map), as most tests attack with it."""
    page.get_by_label("Admin key").fill(ADMIN_KEY)
    page.get_by_label("Ruleset").select_option(ruleset)
    page.get_by_label("Name", exact=True).fill(name)
    page.get_by_role("button", name="Create encounter").click()
    page.locator("#feed-status[data-state=live]").wait_for()
    if typed_in and page.locator("#scene-attacker").count():
        type_in(page)
    return page.locator("#info-id").inner_text()


def type_in(page: Page) -> None:
    """The attack form's typed-in sheet (its attacker "sam", its target "goon-1"), chosen as the
    attacker: a fresh encounter's form waits for a pick."""
    page.get_by_label("Attacker (from the roster)").select_option("typed")


def wait_picked(page: Page, actor: str) -> None:
    """Waits until the page's attack form has `actor` as its attacker (a player's page with one
    armed actor picks it by itself)."""
    from playwright.sync_api import expect

    expect(page.get_by_role("button", name=f"Attacker: {actor}")).to_have_attribute(
        "aria-pressed", "true"
    )


def player_link(page: Page) -> str:
    return page.locator("#share-player-link").input_value()


def players_link(page: Page, player: str, actors: str) -> str:
    """A player's own link, made by the GM under the roster: `player` plays `actors`."""
    from playwright.sync_api import expect

    page.get_by_label("Player id", exact=True).fill(player)
    page.get_by_label("Their actors (ids, separated by spaces)").fill(actors)
    page.get_by_role("button", name="Make the player's link").click()
    expect(page.locator("#player-link")).to_have_value(re.compile(f"player={player}"))
    link: str = page.locator("#player-link").input_value()
    return link


def fill_readme_attack(page: Page) -> None:
    """The README's example shot: a heavy pistol with an implanted smartlink at 12 m."""
    page.get_by_label("Agility").fill("6")
    page.get_by_label("Firearms skill").fill("6")
    page.locator("#options summary").click()
    page.get_by_label("Smartlink").select_option("wireless_implant")
    give_dice(page, "#dice-steps", README_DICE)


def place(page: Page, label: str, metres: float) -> None:
    """Types one coordinate into the map's positions table ("goon-2 y (m)", "aim point x (m)")
    and leaves the field, as the map takes it on change."""
    field = page.get_by_label(label)
    field.fill(f"{metres:g}")
    field.press("Tab")


def sr5_assault_rifle_on_suppressive(page: Page) -> None:
    """The SR5 form's assault rifle, full-auto capable and loaded with 40, on suppressive fire."""
    page.get_by_label("Category").select_option("assault_rifle")
    page.locator("#weapon-modes-FA").check()
    page.get_by_label("Rounds loaded").fill("40")
    page.get_by_label("Firing mode").select_option("suppressive")


def give_dice(page: Page, container: str, dice: dict[str, str]) -> None:
    """Types given dice into the inputs of each step under `container` ("#dice-steps",
    "#zone-test-dice")."""
    for step, faces in dice.items():
        page.locator(f'{container} input[data-step="{step}"]').fill(faces)


def resolve(page: Page) -> dict[str, Any]:
    """Clicks Resolve; returns the service's JSON answer once the page shows it."""
    with page.expect_response(
        lambda r: r.url.endswith("/attacks") and r.request.method == "POST"
    ) as answer:
        page.get_by_role("button", name="Resolve attack").click()
    response: Response = answer.value
    assert response.status == 201, response.text()
    body: dict[str, Any] = response.json()
    page.locator(f'#result[data-event="{body["event_id"]}"]').wait_for()
    return body


def shown(page: Page, selector: str) -> str:
    """The text of one element, as in the page (not as CSS transforms it)."""
    return (page.locator(selector).text_content() or "").strip()


def shown_modifiers(page: Page, table: str) -> list[dict[str, Any]]:
    """The rows of a modifier table on the page, as {source, value} (read in one call, not a
    round trip to the page for each cell)."""
    rows: list[list[str]] = page.locator(f"{table} tbody tr").evaluate_all(
        """rows => rows.map(row => [row.querySelector("th").textContent,
                                    row.querySelector("td").textContent])"""
    )
    return [
        {"source": source.strip(), "value": int(value.replace("+", ""))} for source, value in rows
    ]


def shown_dice(page: Page) -> list[dict[str, Any]]:
    """Every die on the page, by step, as the result's `dice` lists them (read in one call)."""
    steps: list[dict[str, Any]] = page.locator("#result .dice-step").evaluate_all(
        """steps => steps.map(step => ({
            step: step.getAttribute("data-step"),
            values: [...step.querySelectorAll(".die")].map(d => d.getAttribute("data-value")),
        }))"""
    )
    return [
        {"step": step["step"], "values": [int(value or 0) for value in step["values"]]}
        for step in steps
    ]


def answered_dice(dice: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A result's `dice` as `shown_dice` reads them from the page: step and values."""
    return [{"step": d["step"], "values": d["values"]} for d in dice]


def post_from(page: Page, endpoint: str, click: Any) -> dict[str, Any]:
    """Runs `click()` (a button of the page); returns the service's 201 answer to the POST whose
    path ends with `endpoint`, once the page shows it."""
    with page.expect_response(
        lambda r: r.url.endswith(endpoint) and r.request.method == "POST"
    ) as answer:
        click()
    response: Response = answer.value
    assert response.status == 201, response.text()
    body: dict[str, Any] = response.json()
    page.locator(f'#result[data-event="{body["event_id"]}"]').wait_for()
    return body


def advance(page: Page, button: str) -> dict[str, Any]:
    """Clicks a turn button ("Next combat turn", "Start action phase", ...)."""
    return post_from(page, "/advance", page.get_by_role("button", name=button).click)


def take_action(page: Page) -> dict[str, Any]:
    return post_from(page, "/actions", page.get_by_role("button", name="Take action").click)


def resolve_zone_test(page: Page) -> dict[str, Any]:
    return post_from(page, "/tests", page.get_by_role("button", name="Resolve zone test").click)


# --- the keyboard ----------------------------------------------------------------------------

# While a test presses Tab towards an element, the page drops (before any handler of its own sees
# it) every Tab pressed once that element has the focus: the presses go in batches, the focus read
# once a batch, and the ones pressed after it was reached change nothing, as if never pressed.
TAB_GUARD_JS = """selector => {
    window.__tabTo?.stop();
    const reached = () => document.activeElement?.matches(selector) ?? false;
    const guard = event => {
        if (event.key === "Tab" && reached()) {
            event.preventDefault();
            event.stopImmediatePropagation();
        }
    };
    window.addEventListener("keydown", guard, true);
    window.__tabTo = { reached, stop: () => window.removeEventListener("keydown", guard, true) };
}"""
TAB_REACHED_JS = """() => {
    const reached = window.__tabTo.reached();
    if (reached) window.__tabTo.stop();
    return reached;
}"""
TAB_BATCH = 8


def tab_to(page: Page, selector: str, limit: int = 250) -> None:
    """Presses Tab until `selector` has the focus, as a keyboard user would (the focus read after
    every TAB_BATCH presses, not after each: TAB_GUARD_JS)."""
    page.evaluate(TAB_GUARD_JS, selector)
    pressed = 0
    while not page.evaluate(TAB_REACHED_JS):
        if pressed >= limit:
            raise AssertionError(f"{selector} is not reachable with Tab")
        for _ in range(TAB_BATCH):
            page.keyboard.press("Tab")
        pressed += TAB_BATCH


# --- the scene ------------------------------------------------------------------------------


def gm_token(page: Page) -> str:
    return page.locator("#share-gm-token").input_value()


# The d100 scene the console's tests shoot in (docs/rulesets/d100.md): Vex's SMG (7 + 2 bonus
# dice, +10 within 10 m) against a ganger of Defense 30 and armour 2, 12.7 m away.
D100_SMG = {
    "id": "smg",
    "damage": 7,
    "bonus_dice": 2,
    "ammo": 30,
    "shot_rate": 3,
    "range_bands": [{"up_to_m": 10, "modifier": 10}, {"up_to_m": 50, "modifier": 0}],
}


def put_d100_vex_and_ganger(page: Page, url: str, encounter: str) -> None:
    vex = {"ruleset": "d100", "marksmanship": 55, "weapons": [D100_SMG]}
    put_actor(page, url, encounter, "vex", {"position": {"x": 0, "y": 0}, "sheet": vex})
    ganger = {"ruleset": "d100", "defense": 30, "armor": 2}
    put_actor(page, url, encounter, "ganger-1", {"position": {"x": 9, "y": 9}, "sheet": ganger})


def put_actor(page: Page, url: str, encounter: str, actor: str, body: dict[str, Any]) -> None:
    """Sets one scene actor with the GM's token, as a VTT or a script would."""
    answer = page.request.put(
        f"{url}/v1/encounters/{encounter}/actors/{actor}",
        headers={"Authorization": f"Bearer {gm_token(page)}"},
        data=body,
    )
    assert answer.ok, answer.text()


def drag_to(page: Page, actor: str, x: float, y: float) -> Response:
    """Drags an actor on the map to (x, y) in metres with the mouse; returns the answer to the
    move it sends."""
    from playwright.sync_api import Error as PlaywrightError

    token = page.locator(f'#map g[data-actor="{actor}"] circle')
    # The page redraws the map when an event makes it read the encounter again (a monitor
    # changed): a token found just before is replaced by the same token in the same place.
    # The locator finds it again; only a redraw three times over is an error.
    # A redraw between the scroll and the measure leaves no box (the token measured is gone).
    box = None
    for attempt in range(3):
        try:
            token.scroll_into_view_if_needed()
        except PlaywrightError as error:
            if "not attached" not in str(error) or attempt == 2:
                raise
            continue
        box = token.bounding_box()
        if box is not None:
            break
    assert box is not None, f"{actor}'s token was redrawn three times over"
    start = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    end = page.evaluate(
        """([x, y]) => {
            const svg = document.getElementById("map");
            const point = new DOMPoint(x, -y).matrixTransform(svg.getScreenCTM());
            return [point.x, point.y];
        }""",
        [x, y],
    )
    with page.expect_response(
        lambda r: r.url.endswith(f"/actors/{actor}/move") and r.request.method == "POST"
    ) as answer:
        page.mouse.move(*start)
        page.mouse.down()
        page.mouse.move(end[0], end[1], steps=5)
        page.mouse.up()
    response: Response = answer.value
    return response


def shown_position(page: Page, actor: str) -> tuple[str, str]:
    row = page.locator(f'#positions tr[data-actor="{actor}"]')
    return (
        row.locator('input[data-axis="x"]').input_value(),
        row.locator('input[data-axis="y"]').input_value(),
    )


def scene(page: Page, url: str, encounter: str) -> dict[str, Any]:
    """The scene as the GM's token reads it."""
    answer = page.request.get(
        f"{url}/v1/encounters/{encounter}/actors",
        headers={"Authorization": f"Bearer {gm_token(page)}"},
    )
    assert answer.ok, answer.text()
    actors: dict[str, Any] = answer.json()["actors"]
    return actors


def save_actor(page: Page, button: str = "Add actor") -> dict[str, Any]:
    """Submits the roster's actor form; returns the service's answer to the PUT."""
    with page.expect_response(
        lambda r: "/actors/" in r.url and r.request.method == "PUT"
    ) as answer:
        page.get_by_role("button", name=button, exact=True).click()
    response: Response = answer.value
    assert response.status == 200, response.text()
    body: dict[str, Any] = response.json()
    return body


# --- rolling at the table (service/console/dice-entry.js) -----------------------------------


def enter_step(
    page: Page, walk: str, prompt: str, dice: str | Mapping[str, int], tap: bool = False
) -> None:
    """One step of a dice walk (`walk`: its id, "attack-walk", "pv-walk"): waits for `prompt`
    ("Sam: roll 11 dice"), gives the step as faces (`"6 5 5 2"`) or as counts (`{"hits": 4,
    "ones": 1}`, typed into the steppers' numbers), and enters it, with a tap on a phone."""
    from playwright.sync_api import expect

    on = page.locator(f"#{walk}")
    expect(on.locator(f"#{walk}-prompt")).to_have_text(prompt)
    press = (lambda target: target.tap()) if tap else (lambda target: target.click())
    forms = on.locator(f"input[name={walk}-form]")
    if isinstance(dice, str):
        if forms.count():
            press(on.locator(f"#{walk}-as-faces"))
        on.locator(f"#{walk}-faces").fill(dice)
    else:
        press(on.locator(f"#{walk}-as-counts"))
        for count, value in dice.items():
            on.locator(f"#{walk}-{count}").fill(str(value))
    press(on.get_by_role("button", name="Enter dice"))

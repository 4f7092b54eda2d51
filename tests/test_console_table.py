"""Issue 27, "rough edges a GM hits in the first ten minutes": the console in Chromium against the
real service, each edge as the GM or a player meets it: what a fresh encounter shows, the roster's
editor, a player's page, the feed's words, the page's console, the export of the fight, the
theme, and the keyboard."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlparse

import pytest

from tests import console_browser as console
from tests import sr5_requests as make
from tests.test_console import browser, url

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

# The browser and the served console: tests/test_console.py\'s own.
__all__ = ["browser", "url"]

SAM = make.README_SAM
GOON = make.README_GANGER_SHEET


class Watched:
    """A page with what its console said: every error it logged and every exception it threw."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.errors: list[str] = []
        page.on("pageerror", lambda error: self.errors.append(f"threw: {error}"))
        page.on(
            "console",
            lambda message: (
                self.errors.append(f"{message.text} ({message.location})")
                if message.type == "error"
                else None
            ),
        )


@pytest.fixture
def watched(browser: Browser, url: str) -> Iterator[Watched]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(15_000)
    seen = Watched(page)
    console.open_console(page, url)
    yield seen
    context.close()


def open_player(browser: Browser, link: str, init_script: str | None = None) -> Page:
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    if init_script:
        page.add_init_script(init_script)
    page.goto(link)
    # A player's own link opens the view of their actor (tests/test_console_phone.py); these
    # tests play at the full table, one tap away.
    if "player=" in link:
        page.locator("#feed-status[data-state=live]").wait_for(state="attached")
        page.get_by_role("button", name="The full table").click()
    page.locator("#feed-status[data-state=live]").wait_for()
    return page


def options(page: Page, select: str) -> list[str]:
    values: list[str] = page.locator(f"{select} option").evaluate_all(
        "options => options.map(o => o.value)"
    )
    return values


def test_a_fresh_encounter_shows_nobody_the_scene_does_not_hold(watched: Watched) -> None:
    from playwright.sync_api import expect

    page = watched.page
    console.create_encounter(page, typed_in=False)
    expect(page.locator("#roster-list li.empty")).to_have_text("Nobody on the scene yet.")
    # Nobody on the map, and nobody to start a phase or act for.
    expect(page.locator("#map g.actor")).to_have_count(0)
    assert options(page, "#phase-actor") == []
    assert options(page, "#action-actor") == []
    expect(page.locator("#attacker-fieldset")).to_be_hidden()
    # Resolving asks for an attacker; nothing is sent.
    page.get_by_role("button", name="Resolve attack").click()
    expect(page.locator("#attack-error")).to_contain_text("Pick the attacker")
    # The typed-in sheet, chosen, brings its sam and goon-1 onto the map and into the lists.
    console.type_in(page)
    expect(page.locator("#attacker-fieldset")).to_be_visible()
    expect(page.locator("#map g.actor")).to_have_count(2)
    assert options(page, "#phase-actor") == ["sam", "goon-1"]
    assert options(page, "#action-actor") == ["sam", "goon-1"]
    # ... and leave again when the GM goes back to nobody.
    page.get_by_label("Attacker (from the roster)").select_option("")
    expect(page.locator("#map g.actor")).to_have_count(0)
    assert options(page, "#phase-actor") == []


def test_a_player_whose_link_plays_one_actor_attacks_with_it(
    watched: Watched, browser: Browser, url: str
) -> None:
    from playwright.sync_api import expect

    page = watched.page
    encounter = console.create_encounter(page, typed_in=False)
    console.put_actor(page, url, encounter, "sam", SAM)
    console.put_actor(
        page, url, encounter, "goon-1", {"position": {"x": 12, "y": 0}, "sheet": GOON}
    )
    anna = open_player(browser, console.players_link(page, "anna", "sam"))
    try:
        console.wait_picked(anna, "sam")
        expect(anna.locator("#scene-attacker")).to_have_value("sam")
        expect(anna.locator("#attacker-fieldset")).to_be_hidden()
        expect(anna.locator("#scene-target-goon-1")).to_be_visible()
        # The GM's page, with two armed actors of its own, waits for the GM's pick.
        expect(page.locator("#scene-attacker")).to_have_value("")
    finally:
        anna.context.close()


def test_the_roster_editor_lays_out_a_sheet_and_numbers_the_first_actor_1(
    watched: Watched, url: str
) -> None:
    from playwright.sync_api import expect

    page = watched.page
    console.create_encounter(page)
    page.get_by_role("button", name="Add an actor").click()
    expect(page.get_by_label("Actor id")).to_have_value("actor-1")
    # The sheet's fields several to a row across the form, the weapon's under its checkbox.
    form = page.locator("#roster-form").bounding_box()
    fields = page.locator("#roster-form fieldset.group").first.locator(".grid > .field")
    first, second = fields.nth(0).bounding_box(), fields.nth(1).bounding_box()
    sheet_grid = page.locator("#roster-form fieldset.group .grid").first.bounding_box()
    weapon_grid = page.locator("#roster-weapon").bounding_box()
    carries = page.locator("#roster-carries").bounding_box()
    assert form and first and second and sheet_grid and weapon_grid and carries
    assert abs(first["y"] - second["y"]) < 2 and second["x"] > first["x"], (first, second)
    assert sheet_grid["width"] > form["width"] * 0.8, (sheet_grid, form)
    assert weapon_grid["width"] > form["width"] * 0.8, (weapon_grid, form)
    assert weapon_grid["y"] > carries["y"] + carries["height"], (weapon_grid, carries)
    console.save_actor(page)
    expect(page.locator('#roster-list li[data-actor="actor-1"]')).to_have_count(1)


def label_boxes(page: Page) -> dict[str, Any]:
    boxes: dict[str, Any] = {}
    labels = page.locator("#map g.actor text")
    for i in range(labels.count()):
        actor = labels.nth(i).evaluate("t => t.closest('g.actor').dataset.actor")
        boxes[actor] = labels.nth(i).bounding_box()
    return boxes


def overlap(a: Any, b: Any) -> bool:
    return bool(
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


def test_a_duplicate_stands_where_its_label_is_clear_of_the_original(
    watched: Watched, url: str
) -> None:
    from playwright.sync_api import expect

    page = watched.page
    encounter = console.create_encounter(page, typed_in=False)
    console.put_actor(
        page, url, encounter, "goon-1", {"position": {"x": 12, "y": 0}, "sheet": GOON}
    )
    for copy in ("goon-2", "goon-3"):
        page.get_by_role("button", name="Duplicate goon-1").click()
        expect(page.get_by_label("Actor id")).to_have_value(copy)
        console.save_actor(page)
        expect(page.locator(f'#map g.actor[data-actor="{copy}"]')).to_have_count(1)
    # Below the original, one after the other: 2 m, then 4 m.
    positions = console.scene(page, url, encounter)
    assert positions["goon-2"]["position"] == {"x": 12, "y": -2}
    assert positions["goon-3"]["position"] == {"x": 12, "y": -4}
    boxes = label_boxes(page)
    names = sorted(boxes)
    assert names == ["goon-1", "goon-2", "goon-3"]
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            assert not overlap(boxes[a], boxes[b]), (a, b, boxes)


# Records whether any of the GM's controls was ever shown on the page, from the first paint on.
GM_CONTROLS_WATCH = """
window.__gmShown = [];
const GM_IDS = ["roster-gm", "roster-add", "initiative-gm", "initiative-next", "undo-gm",
  "turn-panel", "end-open"];
const shown = (name) => {
  if (!window.__gmShown.includes(name)) window.__gmShown.push(name);
};
const watch = () => {
  for (const id of GM_IDS) {
    if (document.getElementById(id)?.checkVisibility()) shown(id);
  }
  for (const button of document.querySelectorAll("#roster-list button")) {
    if (["Edit", "Hide", "Duplicate"].includes(button.textContent)) shown(button.textContent);
  }
};
new MutationObserver(watch).observe(document, { subtree: true, childList: true, attributes: true });
"""


@pytest.mark.parametrize("ruleset", ["sr5", "sr3-hardlife"])
def test_a_players_link_never_shows_the_gms_controls(
    watched: Watched, browser: Browser, url: str, ruleset: str
) -> None:
    from playwright.sync_api import expect

    page = watched.page
    encounter = console.create_encounter(page, ruleset=ruleset)
    sheet = {"position": {"x": 12, "y": 0}}
    answer = page.request.put(
        f"{url}/v1/encounters/{encounter}/actors/goon-1",
        headers={"Authorization": f"Bearer {console.gm_token(page)}"},
        data=sheet,
    )
    assert answer.ok, answer.text()
    player = open_player(browser, console.player_link(page), GM_CONTROLS_WATCH)
    try:
        expect(player.locator('#roster-list li[data-actor="goon-1"]')).to_have_count(1)
        assert player.evaluate("window.__gmShown") == []
    finally:
        player.context.close()


def test_a_player_token_typed_into_join_never_shows_the_gms_controls(
    watched: Watched, browser: Browser, url: str
) -> None:
    """The encounter's view says whose the token is, so the page knows before it draws."""
    from playwright.sync_api import expect

    page = watched.page
    encounter = console.create_encounter(page)
    console.put_actor(page, url, encounter, "sam", SAM)
    link = console.players_link(page, "anna", "sam")
    token = parse_qs(urlparse(link).fragment)["token"][0]
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    player = context.new_page()
    player.set_default_timeout(15_000)
    player.add_init_script(GM_CONTROLS_WATCH)
    try:
        console.open_console(player, url)
        player.locator("#join-encounter").fill(encounter)
        player.locator("#join-token").fill(token)
        player.locator("#join-form").get_by_role("button", name="Join encounter").click()
        # Anna's own token: the view of her actor, as her link opens it.
        expect(player.get_by_role("button", name="The full table")).to_be_visible()
        assert player.evaluate("window.__gmShown") == []
    finally:
        context.close()


def test_the_feed_says_what_a_players_link_did(
    watched: Watched, browser: Browser, url: str
) -> None:
    from playwright.sync_api import expect

    page = watched.page
    encounter = console.create_encounter(page)
    console.put_actor(page, url, encounter, "sam", SAM)
    link = console.players_link(page, "anna", "sam")
    line = page.locator("#feed li[data-type=players] .summary")
    expect(line).to_have_text("anna has a link of their own, playing sam.")
    # The player's page is not told whose link it was, and says so.
    anna = open_player(browser, link)
    try:
        expect(anna.locator("#feed li[data-type=players] .summary")).to_have_text(
            re.compile(r"^(anna has a link of their own, playing sam|A player's link changed.*)\.$")
        )
    finally:
        anna.context.close()


def test_a_gm_page_load_asks_for_no_initiative_that_does_not_run(watched: Watched) -> None:
    from playwright.sync_api import expect

    page = watched.page
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if r.url.endswith("/initiative") else None)
    console.create_encounter(page)
    expect(page.locator("#initiative-now")).to_contain_text("The service runs no initiative")
    page.reload()
    page.locator("#feed-status[data-state=live]").wait_for()
    expect(page.locator("#initiative-now")).to_contain_text("The service runs no initiative")
    console.type_in(page)
    # An attack (an initiative event) while none runs asks nothing either.
    console.fill_readme_attack(page)
    console.resolve(page)
    assert asked == []
    assert watched.errors == []
    # Its buttons that only move a running initiative wait for one to run.
    expect(page.get_by_role("button", name="Next phase")).to_be_hidden()
    expect(page.get_by_role("button", name="Roll initiative")).to_be_visible()


def test_a_refused_attack_leaves_no_field_marked_once_it_is_fixed(
    watched: Watched, url: str
) -> None:
    from playwright.sync_api import expect

    page = watched.page
    encounter = console.create_encounter(page, typed_in=False)
    console.put_actor(page, url, encounter, "sam", SAM)
    console.put_actor(
        page, url, encounter, "goon-1", {"position": {"x": 12, "y": 0}, "sheet": GOON}
    )
    gm = {"Authorization": f"Bearer {console.gm_token(page)}"}
    started = page.request.post(
        f"{url}/v1/encounters/{encounter}/initiative",
        headers=gm,
        data={"actors": [{"actor": "goon-1", "score": 10}, {"actor": "sam", "score": 5}]},
    )
    assert started.ok, started.text()
    page.get_by_role("button", name="Attacker: sam").click()
    page.get_by_role("button", name="Target goon-1").click()
    # sam fires in goon-1's phase: the service refuses, naming the attacker.
    with page.expect_response(lambda r: r.url.endswith("/attacks")) as refused:
        page.get_by_role("button", name="Resolve attack").click()
    assert refused.value.status == 409
    assert refused.value.json()["path"].startswith("$.attacker")
    marked = page.locator("#attack-form [aria-invalid=true]")
    expect(page.locator("#scene-attacker")).to_have_attribute("aria-invalid", "true")
    stopped = page.request.delete(f"{url}/v1/encounters/{encounter}/initiative", headers=gm)
    assert stopped.ok, stopped.text()
    console.give_dice(page, "#dice-steps", console.README_DICE)
    page.locator("#options summary").click()
    page.get_by_label("Smartlink").select_option("wireless_implant")
    console.resolve(page)
    expect(marked).to_have_count(0)
    expect(page.locator("#scene-attacker")).not_to_have_attribute("aria-invalid", "true")


def test_the_fight_exports_as_markdown_and_json_from_every_page_of_events(
    watched: Watched,
) -> None:
    page = watched.page
    encounter = console.create_encounter(page)
    console.fill_readme_attack(page)
    answer = console.resolve(page)
    with page.expect_download() as markdown:
        page.get_by_role("button", name="Export as Markdown").click()
    with page.expect_download() as as_json:
        page.get_by_role("button", name="Export as JSON").click()
    assert markdown.value.suggested_filename == f"fight-warehouse-{encounter}.md"
    text = open(markdown.value.path(), encoding="utf-8").read()
    lines = text.splitlines()
    assert lines[0] == "# Warehouse"
    assert lines[2] == f"Ruleset: sr5. Encounter id: `{encounter}`. 2 events."
    assert lines[4].endswith("(encounter_created): Encounter created.")
    assert lines[5].endswith(
        "(attack): sam fires predator (SA, pool 14): goon-1 hit, 9 physical boxes."
    )
    exported = json.loads(open(as_json.value.path(), encoding="utf-8").read())
    assert exported["encounter"] == {"id": encounter, "name": "Warehouse", "ruleset": "sr5"}
    assert [e["type"] for e in exported["events"]] == ["encounter_created", "attack"]
    assert exported["events"][1]["id"] == answer["event_id"]
    assert exported["events"][1]["result"]["targets"][0]["damage"]["boxes"] == 9


def test_the_fight_log_reads_every_page_the_service_gives(watched: Watched) -> None:
    """`readAllEvents` goes on while the service says `more`, from each page's last id."""
    page = watched.page
    pages = page.evaluate(
        """async () => {
            const { readAllEvents } = await import("/console/fight-log.js");
            const asked = [];
            const served = {
              null: { events: [{ id: "1-0" }, { id: "1-1" }], last_event_id: "1-1", more: true },
              "1-1": { events: [{ id: "2-0" }], last_event_id: "2-0", more: false },
            };
            const read = await readAllEvents("e", "t", async (id, token, after) => {
              asked.push(after);
              return served[after];
            });
            return { asked, ids: read.events.map((e) => e.id), truncated: read.truncated };
        }"""
    )
    assert pages == {"asked": [None, "1-1"], "ids": ["1-0", "1-1", "2-0"], "truncated": False}


def test_a_light_theme_follows_the_system_and_the_toggle_is_remembered(
    browser: Browser, url: str
) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(color_scheme="light")
    try:
        page = context.new_page()
        console.open_console(page, url)
        root = page.locator("html")
        expect(root).to_have_attribute("data-theme", "light")
        background = page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert background == "rgb(244, 242, 238)"
        toggle = page.get_by_role("button", name="Light theme")
        expect(toggle).to_have_attribute("aria-pressed", "true")
        toggle.click()
        expect(root).to_have_attribute("data-theme", "dark")
        assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(20, 23, 28)"
        page.reload()
        page.locator("body[data-ready=true]").wait_for()
        expect(root).to_have_attribute("data-theme", "dark")
        expect(toggle).to_have_attribute("aria-pressed", "false")
    finally:
        context.close()


def test_the_gm_ends_the_encounter_from_its_panel(watched: Watched) -> None:
    from playwright.sync_api import expect

    page = watched.page
    console.create_encounter(page)
    page.get_by_role("button", name="End this encounter").click()
    with page.expect_response(lambda r: r.request.method == "DELETE") as ended:
        page.get_by_role("button", name="End it now").click()
    assert ended.value.status == 204
    expect(page.locator("#feed li[data-type=encounter_ended]")).to_have_count(1)
    expect(page.locator("#attack")).to_be_hidden()


def test_keyboard_alone_ticks_targets_and_skips_to_the_attack_form(
    watched: Watched, url: str
) -> None:
    from playwright.sync_api import expect

    page = watched.page
    encounter = console.create_encounter(page, typed_in=False)
    console.put_actor(page, url, encounter, "sam", SAM)
    for goon, y in (("goon-1", 0), ("goon-2", 4)):
        console.put_actor(
            page, url, encounter, goon, {"position": {"x": 12, "y": y}, "sheet": GOON}
        )
    # The skip link, first on the page, lands on the attack form itself.
    page.locator("a.skip").focus()
    expect(page.locator("a.skip")).to_be_in_viewport()
    page.keyboard.press("Enter")
    expect(page.locator("#attack")).to_be_focused()
    # From there, the attacker is picked and the targets ticked by keys alone.
    page.keyboard.press("Tab")
    expect(page.locator("#scene-attacker")).to_be_focused()
    page.locator("#scene-attacker").select_option("sam")
    first = page.locator("#scene-target-goon-1")
    first.focus()
    page.keyboard.press("Space")
    expect(first).to_be_checked()
    expect(first).to_be_focused()
    page.keyboard.press("Tab")
    second = page.locator("#scene-target-goon-2")
    expect(second).to_be_focused()
    page.keyboard.press("Space")
    expect(second).to_be_checked()
    expect(second).to_be_focused()

"""The web console in a real browser (Debian's Chromium through Playwright), against the real
service: what the page shows is what the service answered, and what one page resolves another
page sees live."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlparse

import pytest

from tests import console_browser as console
from tests import sr5_requests as make

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, WebSocketRoute

IN_CI = os.environ.get("CI") == "true"
README_ATTACK = console.README_DICE["attack"]


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Chromium; under CI its absence fails the tests instead of skipping them."""
    missing = console.chromium_missing()
    if missing:
        if IN_CI:
            pytest.fail(missing)
        pytest.skip(missing)
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=15_000)
    with sync_playwright() as playwright:
        launched = console.launch(playwright)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with console.serve() as served:
        yield served


@pytest.fixture
def page(browser: Browser, url: str) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    opened = context.new_page()
    opened.set_default_timeout(15_000)
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    console.open_console(opened, url)
    yield opened
    context.close()
    assert errors == [], f"the page threw: {errors}"


def player_page(browser: Browser, link: str) -> Page:
    """A second browser (own storage, as a player's machine) opened on the player link."""
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.goto(link)
    page.locator("#feed-status[data-state=live]").wait_for()
    return page


def test_the_console_is_served_at_the_root_with_its_modules(page: Page, url: str) -> None:
    from playwright.sync_api import expect

    expect(page).to_have_title("firefight console")
    # The rulesets come from the service, so every ruleset it lists is offered.
    offered = page.locator("#create-ruleset option").evaluate_all(
        "options => options.map(o => o.value)"
    )
    assert offered == console.rulesets(url)
    assert "sr5" in offered
    stylesheet = page.request.get(url + "/console/console.css")
    assert stylesheet.ok and "text/css" in stylesheet.headers["content-type"]
    assert page.request.get(url + "/console/nothing.js").status == 404


def test_an_sr5_attack_with_given_dice_shows_what_the_service_computed(
    page: Page, browser: Browser
) -> None:
    from playwright.sync_api import expect

    console.create_encounter(page)
    player = player_page(browser, console.player_link(page))
    try:
        # The player's page joined from the link alone, and the link left the address bar.
        assert "token" not in player.url
        expect(player.locator("#feed li[data-type=encounter_created]")).to_have_count(1)

        console.fill_readme_attack(page)
        answer = console.resolve(page)
        result = answer["result"]
        target = result["targets"][0]

        # The README's numbers...
        assert result["pool"] == 14 and target["attack"]["pool"] == 13
        assert (target["attack_hits"], target["defense_hits"], target["net_hits"]) == (4, 1, 3)
        assert (target["damage"]["dv"], target["damage"]["armor"]) == (11, 8)
        assert (target["damage"]["soak_hits"], target["damage"]["boxes"]) == (2, 9)
        # ... and the page shows the service's, not numbers of its own.
        shown = console.shown
        assert shown(page, '#result [data-field="pool"]') == str(result["pool"])
        assert shown(page, '#result [data-field="limit"]') == str(result["limit"])
        assert (
            console.shown_modifiers(page, '#result [data-field="pool-modifiers"]')
            == result["modifiers"]
        )
        assert {"source": "smartlink (wireless_implant)", "value": 2} in result["modifiers"]
        on = '#result [data-target="goon-1"]'
        assert shown(page, f"{on} [data-field=outcome]") == target["outcome"] == "hit"
        for field in ("attack_hits", "defense_hits", "net_hits", "share"):
            assert shown(page, f"{on} [data-field={field}]") == str(target[field]), field
        assert shown(page, f"{on} [data-field=attack_pool]") == str(target["attack"]["pool"])
        assert shown(page, f"{on} [data-field=defense_pool]") == str(target["defense"]["pool"])
        damage = target["damage"]
        for field in ("dv", "armor", "soak_hits", "track"):
            assert shown(page, f"{on} [data-field={field}]") == str(damage[field]), field
        assert shown(page, f"{on} [data-field=boxes]") == str(damage["boxes"])
        # Each test once, on its own line: no row repeats the pool or the hits.
        card = page.locator(on).inner_text()
        assert card.count("13 dice, 4 hits") == 1, card
        assert card.count("6 dice, 1 hits") == 1, card
        assert (
            console.shown_modifiers(page, f'{on} [data-field="defense-modifiers"]')
            == target["defense_modifiers"]
        )
        assert console.shown_dice(page) == console.answered_dice(result["dice"])
        # Dice are drawn as dice: a six has six pips, and the hits are marked.
        first = page.locator('#result .dice-step[data-step="attack"] .die').first
        assert first.get_attribute("data-value") == "6"
        assert first.locator(".pip:not(.empty)").count() == 6
        assert "hit" in (first.get_attribute("class") or "")
        assert page.locator('#result .dice-step[data-step="attack"] .die.hit').count() == 4
        # The live region says it in one line.
        assert page.locator("#result-summary").get_attribute("role") == "status"
        expect(page.locator("#result-summary")).to_have_text(
            "sam fires predator (SA, pool 14): goon-1 hit, 9 physical boxes."
        )
        # The result is where the player looks: scrolled to and focused.
        expect(page.locator("#result-heading")).to_be_focused()
        expect(page.locator("#result-heading")).to_be_in_viewport()

        # The player's page got it over the WebSocket, and shows the same numbers.
        event = player.locator(f'#feed li[data-event-id="{answer["event_id"]}"]')
        expect(event).to_contain_text("goon-1 hit, 9 physical boxes")
        event.get_by_role("button").click()
        expect(player.locator('#result [data-target="goon-1"] [data-field=boxes]')).to_have_text(
            "9"
        )
        assert shown(player, '#result [data-field="pool"]') == "14"
        # The player's page shows no GM token.
        assert player.locator("#share").is_hidden()
        assert page.locator("#share-gm-token").input_value() not in player.content()
    finally:
        player.context.close()


def test_joining_by_id_and_token(page: Page, browser: Browser, url: str) -> None:
    from playwright.sync_api import expect

    encounter = console.create_encounter(page, name="Docks")
    token = parse_qs(urlparse(console.player_link(page)).fragment)["token"][0]
    context = browser.new_context()
    try:
        other = context.new_page()
        console.open_console(other, url)
        other.get_by_label("Encounter id").fill(encounter)
        other.get_by_label("Token (GM or player)").fill("not-the-token-at-all")
        other.get_by_role("button", name="Join encounter").click()
        expect(other.locator("#encounter-status")).to_contain_text("Not joined")
        assert other.locator("#attack").is_hidden()
        other.get_by_label("Token (GM or player)").fill(token)
        other.get_by_role("button", name="Join encounter").click()
        expect(other.locator("#feed-status")).to_have_attribute("data-state", "live")
        expect(other.locator("#info-name")).to_have_text("Docks")
        expect(other.locator("#attack")).to_be_visible()
        # The token is not left in the form once joined.
        assert other.get_by_label("Token (GM or player)").input_value() == ""
    finally:
        context.close()


def test_the_map_gives_the_distances_dragged_or_moved_by_keys(page: Page) -> None:
    from playwright.sync_api import expect

    console.create_encounter(page)
    distance = page.locator('fieldset.target[data-target="goon-1"] output')
    expect(distance).to_have_text("12")
    actor = page.locator('#map g[data-actor="goon-1"]')
    actor.focus()
    page.keyboard.press("ArrowRight")
    for _ in range(3):
        page.keyboard.press("ArrowUp")
    expect(distance).to_have_text("13.3")  # (13, 3): the square root of 178
    for _ in range(3):
        page.keyboard.press("ArrowDown")
    page.keyboard.press("Shift+ArrowRight")
    expect(distance).to_have_text("18")
    expect(page.locator("#map-status")).to_contain_text("goon-1 (target) at x 18 m, y 0 m")
    # A drag: the pointer moves the actor, the distance follows it.
    circle = actor.locator("circle")
    circle.scroll_into_view_if_needed()
    box = circle.bounding_box()
    assert box is not None
    centre = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.move(*centre)
    page.mouse.down()
    page.mouse.move(centre[0] - 200, centre[1], steps=4)
    page.mouse.up()
    expect(distance).not_to_have_text("18")
    dragged = float(distance.inner_text())
    assert 0 < dragged < 18
    # The request carries the distance the map shows.
    with page.expect_request(lambda r: r.url.endswith("/attacks")) as sent:
        page.get_by_role("button", name="Resolve attack").click()
    assert sent.value.post_data_json["targets"][0]["distance_m"] == dragged


UNLABELLED_JS = """() => [...document.querySelectorAll('input, select, textarea')]
    .filter(e => e.type !== 'hidden')
    .filter(e => !(e.labels && e.labels.length && e.labels[0].textContent.trim())
                 && !e.getAttribute('aria-label') && !e.getAttribute('aria-labelledby'))
    .map(e => e.id || e.outerHTML.slice(0, 80))"""


def test_every_input_has_a_label(page: Page, url: str) -> None:
    unlabelled_js = UNLABELLED_JS
    count_js = "() => document.querySelectorAll('input, select, textarea').length"
    before = page.evaluate(unlabelled_js)
    assert before == []
    # Every ruleset the console has a form for.
    console.open_console(page, url)
    offered = console.offered_rulesets(page)
    assert {"sr5", "d100", "sr3"} <= set(offered) <= set(console.rulesets(url))
    for ruleset in offered:
        console.open_console(page, url)
        if page.locator("#leave").is_visible():
            page.locator("#leave").click()
        console.create_encounter(page, ruleset=ruleset)
        page.get_by_role("button", name="Add target").click()
        page.locator("#options summary").click()
        for mode in page.locator("#attack-mode option").evaluate_all(
            "options => options.map(o => o.value)"
        ):
            page.get_by_label("Firing mode").select_option(mode)
            assert page.evaluate(unlabelled_js) == [], (ruleset, mode)
        # Each action's own fields (the zone test's are in the page already, hidden).
        for action in page.locator("#action-name option").evaluate_all(
            "options => options.map(o => o.value)"
        ):
            page.get_by_label("Action", exact=True).select_option(action)
            assert page.evaluate(unlabelled_js) == [], (ruleset, action)
        # The check saw the whole form: attacker, weapon, two targets, options, dice.
        assert page.evaluate(count_js) > 30
        # The roster's actor form, with its sheet and weapon; saved, then opened again, it holds
        # what it sent (a d100 weapon's range bands too).
        page.get_by_role("button", name="Add an actor").click()
        assert page.evaluate(unlabelled_js) == [], (ruleset, "roster")
        sent = console.save_actor(page)["result"]["state"]
        page.get_by_role("button", name="Edit actor-2").click()
        for field, value in sent["sheet"]["weapons"][0].items():
            if isinstance(value, int | str) and not isinstance(value, bool):
                shown_value = page.locator(f"#roster-weapon-{field}").input_value()
                assert shown_value == str(value), (ruleset, field)
        if ruleset == "d100":
            assert page.locator("#roster-weapon-range_bands").input_value() == (
                "short 10: +10, medium 30: 0, long 100: -20"
            )
        page.get_by_role("button", name="Cancel").click()
    # The map's actors are named for assistive technology and reachable by Tab.
    actors = page.locator("#map g.actor")
    assert actors.count() >= 3
    for i in range(actors.count()):
        assert actors.nth(i).get_attribute("tabindex") == "0"
        assert re.search(
            r"at x -?[\d.]+ m, y -?[\d.]+ m", actors.nth(i).get_attribute("aria-label") or ""
        )


def tab_to(page: Page, selector: str, limit: int = 250) -> None:
    """Presses Tab until `selector` has the focus, as a keyboard user would."""
    for _ in range(limit):
        if page.evaluate("s => document.activeElement?.matches(s) ?? false", selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"{selector} is not reachable with Tab")


def test_the_console_works_with_the_keyboard_alone(page: Page) -> None:
    from playwright.sync_api import expect

    tab_to(page, "#create-admin-key")
    page.keyboard.type(console.ADMIN_KEY)
    tab_to(page, "#create-name")
    page.keyboard.type("Keyboard")
    page.keyboard.press("Enter")
    expect(page.locator("#feed-status")).to_have_attribute("data-state", "live")
    # Move the target on the map by keys: 12 m -> 17 m.
    tab_to(page, '#map g[data-actor="goon-1"]')
    page.keyboard.press("Shift+ArrowRight")
    expect(page.locator('fieldset.target[data-target="goon-1"] output')).to_have_text("17")
    # Open the options and pick the smartlink by keys.
    tab_to(page, "#options summary")
    page.keyboard.press("Enter")
    tab_to(page, "#option-smartlink")
    page.keyboard.press("End")
    expect(page.locator("#option-smartlink")).to_have_value("wireless_implant")
    tab_to(page, '#dice-steps input[data-step="attack"]')
    page.keyboard.type("6 6 6 6 6 6 6 6 6 6 6 6 6")
    tab_to(page, "#resolve")
    with page.expect_response(lambda r: r.url.endswith("/attacks")) as answer:
        page.keyboard.press("Enter")
    result = answer.value.json()["result"]
    assert result["targets"][0]["range"] == "medium"
    assert result["targets"][0]["attack_hits_before_limit"] == 13
    expect(page.locator("#result-summary")).to_contain_text("goon-1")
    expect(page.locator('#result [data-field="pool"]')).to_have_text(str(result["pool"]))
    # The feed's entries open by keyboard too.
    tab_to(page, "#feed li[data-type=attack] button")
    page.keyboard.press("Enter")
    expect(page.locator("#result-heading")).to_be_focused()


def test_a_bad_request_shows_the_services_problem_at_the_field(page: Page) -> None:
    from playwright.sync_api import expect

    console.create_encounter(page)
    page.locator('#dice-steps input[data-step="attack"]').fill("6 6")
    page.get_by_role("button", name="Resolve attack").click()
    error = page.locator("#attack-error")
    expect(error).to_be_visible()
    assert error.get_attribute("role") == "alert"
    expect(error).to_contain_text("attack")
    # A field the service refuses is marked and focused.
    page.locator('#dice-steps input[data-step="attack"]').fill("")
    page.get_by_label("Rounds loaded").fill("0")
    page.get_by_role("button", name="Resolve attack").click()
    expect(error).to_contain_text("$.weapon.ammo")
    expect(page.get_by_label("Rounds loaded")).to_be_focused()
    expect(page.get_by_label("Rounds loaded")).to_have_attribute("aria-invalid", "true")


def test_suppressive_fire_draws_its_zone_with_who_is_inside(page: Page, browser: Browser) -> None:
    from playwright.sync_api import expect

    console.create_encounter(page)
    player = player_page(browser, console.player_link(page))
    try:
        page.get_by_role("button", name="Add target").click()
        console.sr5_assault_rifle_on_suppressive(page)
        # goon-2 stands well off the line of fire; the aim point is past goon-1.
        console.place(page, "goon-2 y (m)", 12)
        console.place(page, "aim point x (m)", 20)
        answer = console.resolve(page)
        zone = answer["result"]["zone"]
        assert zone["zone"]["points"][1] == {"x": 20.0, "y": 5.0}
        inside = [a["actor"] for a in zone["affected"] if a["inside"]]
        assert inside == ["goon-1"]
        for shown_on in (page, player):
            drawn = shown_on.locator('#map g.zone[data-zone="zone-1"] polygon')
            expect(drawn).to_have_count(1)
            assert drawn.get_attribute("points") == "0,0 20,-5 20,5"
            expect(shown_on.locator('#zone-list li[data-zone="zone-1"] .inside')).to_have_text(
                "Inside now: goon-1."
            )
        on = page.locator('#result .zone-result tr[data-actor="goon-1"]')
        expect(on).to_contain_text("yes")
    finally:
        player.context.close()


def test_a_drag_moves_a_scene_actor_on_every_console_with_its_zones(
    page: Page, browser: Browser, url: str
) -> None:
    from playwright.sync_api import expect

    encounter = console.create_encounter(page)
    # The scene, set as a VTT would: the attack form's sam and goon-1 are on it, and goon-3.
    console.put_actor(page, url, encounter, "sam", {"position": {"x": 0, "y": 0}})
    console.put_actor(page, url, encounter, "goon-1", {"position": {"x": 12, "y": 0}})
    console.put_actor(
        page, url, encounter, "goon-3", {"name": "Goon", "position": {"x": 30, "y": 12}}
    )
    player = player_page(browser, console.player_link(page))
    try:
        for shown_on in (page, player):
            expect(shown_on.locator('#map g[data-actor="goon-3"]')).to_have_count(1)
            expect(
                shown_on.locator('#positions tr[data-actor="goon-3"] input[data-axis="x"]')
            ).to_have_value("30")
        console.sr5_assault_rifle_on_suppressive(page)
        console.place(page, "aim point x (m)", 20)
        console.resolve(page)
        for shown_on in (page, player):
            expect(shown_on.locator('#zone-list li[data-zone="zone-1"] .inside')).to_have_text(
                "Inside now: goon-1."
            )

        moved = console.drag_to(page, "goon-3", 16, 1)
        assert moved.status == 201, moved.text()
        answer = moved.json()
        assert answer["result"]["state"]["position"] == {"x": 16.0, "y": 1.0}
        assert answer["result"]["must_test"] == ["zone-1"]
        # The player's console follows the move's event: the same place, the same zone.
        for shown_on in (page, player):
            row = shown_on.locator('#positions tr[data-actor="goon-3"]')
            expect(row.locator('input[data-axis="x"]')).to_have_value("16")
            expect(row.locator('input[data-axis="y"]')).to_have_value("1")
            expect(shown_on.locator('#zone-list li[data-zone="zone-1"] .inside')).to_have_text(
                "Inside now: goon-1, goon-3."
            )
        expect(player.locator('#feed li[data-type="scene"]').first).to_contain_text(
            "goon-3 moved to x 16 m, y 1 m"
        )
        # The shared token acts for no actor of the GM's (issue 23): a player's drag of the
        # goon is refused and put back; the GM drags it back out, and the player sees it.
        assert console.drag_to(player, "goon-3", 16, 10).status == 403
        expect(player.locator("#map-error")).to_contain_text("goon-3 was not moved")
        assert console.drag_to(page, "goon-3", 16, 10).status == 201
        expect(
            player.locator('#positions tr[data-actor="goon-3"] input[data-axis="y"]')
        ).to_have_value("10")
        expect(player.locator('#zone-list li[data-zone="zone-1"] .inside')).to_have_text(
            "Inside now: goon-1."
        )
    finally:
        player.context.close()


def test_the_gm_adds_edits_duplicates_and_hides_actors_in_the_roster(
    page: Page, browser: Browser, url: str
) -> None:
    from playwright.sync_api import expect

    encounter = console.create_encounter(page)
    player = player_page(browser, console.player_link(page))
    try:
        page.get_by_role("button", name="Add an actor").click()
        expect(page.locator("#roster-id")).to_be_focused()
        # Every input of the actor's form has its label.
        assert page.evaluate(UNLABELLED_JS) == []
        page.locator("#roster-id").fill("goon-7")
        page.get_by_label("Actor name").fill("Goon")
        page.get_by_label("Position x (m)").fill("20")
        page.get_by_label("Position y (m)").fill("-3")
        for field, value in {"reaction": "3", "intuition": "3", "body": "4", "armor": "9"}.items():
            page.locator(f"#sheet-{field}").fill(value)
        page.locator("#roster-weapon-id").fill("ares")
        page.locator("#roster-weapon-ammo").fill("12")
        console.save_actor(page)
        goon = console.scene(page, url, encounter)["goon-7"]
        assert goon["name"] == "Goon" and goon["position"] == {"x": 20.0, "y": -3.0}
        assert (goon["sheet"]["reaction"], goon["sheet"]["armor"]) == (3, 9)
        assert [(w["id"], w["ammo"]) for w in goon["sheet"]["weapons"]] == [("ares", 12)]
        # Every console has it, on the roster and on the map.
        for shown_on in (page, player):
            expect(shown_on.locator('#roster-list li[data-actor="goon-7"]')).to_contain_text(
                "Goon (goon-7)"
            )
            expect(
                shown_on.locator('#positions tr[data-actor="goon-7"] input[data-axis="x"]')
            ).to_have_value("20")
        assert player.get_by_role("button", name="Edit goon-7").count() == 0

        # Edit: the form holds what the scene has; a change is saved whole.
        page.get_by_role("button", name="Edit goon-7").click()
        expect(page.locator("#sheet-armor")).to_have_value("9")
        expect(page.locator("#roster-weapon-id")).to_have_value("ares")
        page.locator("#sheet-armor").fill("12")
        console.save_actor(page, "Save actor")
        assert console.scene(page, url, encounter)["goon-7"]["sheet"]["armor"] == 12

        # Duplicate: the same sheet and weapon, a free id, two metres along.
        page.get_by_role("button", name="Duplicate goon-7").click()
        copy = page.locator("#roster-id").input_value()
        assert copy != "goon-7"
        duplicated = console.save_actor(page)["result"]["state"]
        assert duplicated["sheet"] == console.scene(page, url, encounter)["goon-7"]["sheet"]
        assert duplicated["position"] == {"x": 22.0, "y": -3.0}
        expect(player.locator(f'#roster-list li[data-actor="{copy}"]')).to_have_count(1)

        # Hidden: the players' consoles lose it; the GM's marks it.
        page.get_by_role("button", name="Hide goon-7").click()
        expect(player.locator('#roster-list li[data-actor="goon-7"]')).to_have_count(0)
        expect(player.locator('#map g[data-actor="goon-7"]')).to_have_count(0)
        expect(page.locator('#roster-list li[data-actor="goon-7"] .badge')).to_have_text("hidden")
        expect(page.locator('#map g[data-actor="goon-7"]')).to_have_class(
            re.compile("hidden-actor")
        )
        page.get_by_role("button", name="Reveal goon-7").click()
        expect(player.locator('#roster-list li[data-actor="goon-7"]')).to_have_count(1)
    finally:
        player.context.close()


SAM = make.README_SAM
GOON = make.README_GANGER_SHEET


def test_a_players_own_link_attacks_by_names_and_only_with_their_actors(
    page: Page, browser: Browser, url: str
) -> None:
    from playwright.sync_api import expect

    encounter = console.create_encounter(page)
    console.put_actor(page, url, encounter, "sam", SAM)
    console.put_actor(
        page, url, encounter, "goon-1", {"position": {"x": 12, "y": 0}, "sheet": GOON}
    )
    armed_goon = {**SAM, "name": "", "position": {"x": 12, "y": 4}}
    console.put_actor(page, url, encounter, "goon-2", armed_goon)
    # The GM makes Anna's link from the roster: she plays sam.
    page.get_by_label("Player id").fill("anna")
    page.get_by_label("Their actors (ids, separated by spaces)").fill("sam")
    page.get_by_role("button", name="Make the player's link").click()
    expect(page.locator("#player-link")).to_have_value(re.compile("player=anna"))
    expect(page.locator('#roster-list li[data-actor="sam"]')).to_contain_text("played by anna")
    anna = player_page(browser, page.locator("#player-link").input_value())
    try:
        # Her page offers her actor alone as the attacker. Her feed replays the encounter from
        # its start: sam's `scene` event (played by the GM then) comes after the scene the page
        # read, and the `players` event after it makes the page read the scene again; only
        # once that read is in does the page show the scene as it is now.
        expect(anna.locator("#feed li[data-type=players]")).to_have_count(1)
        expect(anna.locator("#scene-attacker option")).to_have_count(2)
        assert anna.locator("#scene-attacker option").evaluate_all(
            "options => options.map(o => o.value)"
        ) == ["", "sam"]
        assert anna.get_by_role("button", name="Attack with goon-2").count() == 0

        # Picked from the roster: the form holds only the mode, options and dice.
        anna.get_by_role("button", name="Attack with sam").click()
        # ... and the target on the map: a click (no drag) picks it.
        with anna.expect_request(lambda r: "/move" in r.url) as moved:
            anna.locator('#map g[data-actor="goon-1"] circle').click()
            expect(anna.locator("#scene-target-goon-1")).to_be_checked()
            # A click is not a move: the page asks nothing of the service.
            anna.evaluate("() => fetch('/move-probe')")
        assert moved.value.url.endswith("/move-probe")
        expect(anna.get_by_role("button", name="Target goon-1")).to_have_attribute(
            "aria-pressed", "true"
        )
        expect(anna.locator("#attacker-fieldset")).to_be_hidden()
        expect(anna.locator("#targets-fieldset")).to_be_hidden()
        expect(anna.locator("#scene-target-goon-1")).to_be_checked()
        anna.locator("#options summary").click()
        anna.get_by_label("Smartlink").select_option("wireless_implant")
        console.give_dice(anna, "#dice-steps", {"attack": README_ATTACK})
        with anna.expect_request(lambda r: r.url.endswith("/attacks")) as sent:
            answer = console.resolve(anna)
        body = sent.value.post_data_json
        assert (body["attacker"], body["weapon"], body["targets"]) == (
            "sam",
            "predator",
            [{"id": "goon-1"}],
        )
        target = answer["result"]["targets"][0]
        # The README's shot, its numbers from the scene: 12 m, the goon's sheet.
        assert answer["result"]["pool"] == 14 and target["attack_hits"] == 4
        expect(anna.locator("#result-heading")).to_be_focused()
        expect(anna.locator("#result-heading")).to_be_in_viewport()

        # Another's actor: the service refuses the move, the page says so and puts it back.
        refused = console.drag_to(anna, "goon-1", 8, -6)
        assert refused.status == 403
        expect(anna.locator("#map-error")).to_contain_text("Refused (403)")
        expect(anna.locator("#map-error")).to_contain_text("goon-1 was not moved")
        for shown_on in (anna, page):
            row = shown_on.locator('#positions tr[data-actor="goon-1"]')
            expect(row.locator('input[data-axis="x"]')).to_have_value("12")
        # ... and an attack typed in for an actor the scene does not hold (a player names
        # only actors it sees on the scene, issue 23).
        anna.locator("#scene-attacker").select_option("")
        expect(anna.locator("#attacker-fieldset")).to_be_visible()
        anna.get_by_label("Attacker id").fill("goon-9")
        anna.get_by_label("Attacker id").press("Tab")
        with anna.expect_response(lambda r: r.url.endswith("/attacks")) as attempt:
            anna.get_by_role("button", name="Resolve attack").click()
        assert attempt.value.status == 404
        expect(anna.locator("#attack-error")).to_contain_text(
            "the scene has no actor 'goon-9' (at $.attacker.id)"
        )
        expect(anna.get_by_label("Attacker id")).to_be_focused()
    finally:
        anna.context.close()


def test_a_d100_attack_by_names_takes_the_distance_from_the_scene_rounded(
    page: Page, url: str
) -> None:
    from playwright.sync_api import expect

    encounter = console.create_encounter(page, ruleset="d100")
    smg = {
        "id": "smg",
        "damage": 7,
        "bonus_dice": 2,
        "ammo": 30,
        "shot_rate": 3,
        "range_bands": [{"up_to_m": 10, "modifier": 10}, {"up_to_m": 50, "modifier": 0}],
    }
    vex = {"ruleset": "d100", "marksmanship": 55, "weapons": [smg]}
    console.put_actor(page, url, encounter, "vex", {"position": {"x": 0, "y": 0}, "sheet": vex})
    ganger = {"ruleset": "d100", "defense": 30, "armor": 2}
    console.put_actor(
        page, url, encounter, "ganger-1", {"position": {"x": 9, "y": 9}, "sheet": ganger}
    )
    page.locator('#map g[data-actor="vex"]').focus()
    page.keyboard.press("Enter")
    page.locator('#map g[data-actor="ganger-1"]').focus()
    page.keyboard.press("Enter")
    expect(page.locator("#scene-target-ganger-1")).to_be_checked()
    # The sheet's defense and bonus dice decide the steps offered.
    steps = page.locator("#dice-steps input").evaluate_all(
        "inputs => inputs.map(i => i.dataset.step)"
    )
    assert steps == ["attack", "defense:ganger-1", "bonus:ganger-1", "location:ganger-1"]
    page.get_by_label("Firing mode").select_option("SR1")
    with page.expect_request(lambda r: r.url.endswith("/attacks")) as sent:
        answer = console.resolve(page)
    assert sent.value.post_data_json["targets"] == [{"id": "ganger-1"}]
    modifiers = answer["result"]["targets"][0]["modifiers"]
    # The service measured sqrt(162) m; the card shows a tenth of a metre.
    assert {"source": "range (band 2, 12.7279 m)", "value": 0} in modifiers
    row = page.locator('#result [data-target="ganger-1"] tr[data-source^="range"] th')
    expect(row).to_have_text("range (band 2, 12.7 m)")


def test_the_feed_reconnects_and_resumes_after_the_last_event(page: Page, browser: Browser) -> None:
    """A dropped socket (a replica going away) is reopened with `after` = the last event seen,
    and nothing is shown twice."""
    from playwright.sync_api import expect

    console.create_encounter(page)
    opened: list[str] = []
    context = browser.new_context()
    player = context.new_page()
    player.set_default_timeout(15_000)

    def relay(ws: WebSocketRoute) -> None:
        opened.append(ws.url)
        server = ws.connect_to_server()
        first = len(opened) == 1

        def to_page(message: str | bytes) -> None:
            ws.send(message)
            if first and '"type":"attack"' in str(message):
                # The server side goes away right after the first attack: 1013, resume.
                ws.close(code=1013, reason="resume with after")
                server.close()

        server.on_message(to_page)

    player.route_web_socket(re.compile(r".*/ws\?.*"), relay)
    try:
        player.goto(console.player_link(page))
        player.locator("#feed-status[data-state=live]").wait_for()
        first = console.resolve(page)
        expect(player.locator(f'#feed li[data-event-id="{first["event_id"]}"]')).to_have_count(1)
        # Reconnected, resuming after the attack it saw.
        expect(player.locator("#feed-status")).to_have_text(
            re.compile(f"resumed after {first['event_id']}")
        )
        assert len(opened) == 2
        assert parse_qs(urlparse(opened[1]).query)["after"] == [first["event_id"]]
        assert "after" not in parse_qs(urlparse(opened[0]).query)
        second = console.resolve(page)
        expect(player.locator(f'#feed li[data-event-id="{second["event_id"]}"]')).to_have_count(1)
        ids = player.locator("#feed li").evaluate_all("items => items.map(i => i.dataset.eventId)")
        assert len(ids) == len(set(ids)) == 3
    finally:
        context.close()


def test_a_d100_attack_shows_what_the_service_computed(page: Page, url: str) -> None:
    from playwright.sync_api import expect

    assert "d100" in console.rulesets(url)

    console.create_encounter(page, ruleset="d100", name="Night market")
    assert page.locator("#attacker-marksmanship").is_visible()
    page.get_by_label("Firing mode").select_option("SR2")
    dice = {
        "attack": "12",
        "defense:ganger-1": "80",
        "bonus:ganger-1": "4 5",
        "location:ganger-1": "3",
    }
    console.give_dice(page, "#dice-steps", dice)
    answer = console.resolve(page)
    result: dict[str, Any] = answer["result"]
    target = result["targets"][0]
    assert result["kind"] == "d100_attack"
    assert [d["values"] for d in result["dice"]] == [[12], [80], [4, 5], [3]]
    shown = console.shown
    assert shown(page, '#result [data-field="success_target"]') == str(result["success_target"])
    assert (
        console.shown_modifiers(page, '#result [data-field="success_target-modifiers"]')
        == (result["modifiers"])
    )
    on = '#result [data-target="ganger-1"]'
    assert shown(page, f"{on} [data-field=outcome]") == target["outcome"]
    assert shown(page, f"{on} [data-field=attack_roll]") == "12"
    assert shown(page, f"{on} [data-field=attack_hits]") == str(target["attack"]["hits"])
    assert shown(page, f"{on} [data-field=net_hits]") == str(target["net_hits"])
    if target["damage"]:
        assert shown(page, f"{on} [data-field=wound]") == str(target["damage"]["wound"])
        assert shown(page, f"{on} [data-field=damage]") == str(target["damage"]["damage"])
    # d100 dice show as numbers, the bonus d6 as faces.
    assert shown(page, '#result .dice-step[data-step="attack"] .die') == "12"
    assert page.locator('#result .dice-step[data-step="bonus:ganger-1"] .die.d6').count() == 2
    expect(page.locator("#result-summary")).to_contain_text("ganger-1")


def test_d100_suppressive_fire_draws_its_circle_with_who_is_inside(page: Page) -> None:
    from playwright.sync_api import expect

    console.create_encounter(page, ruleset="d100", name="Rooftops")
    page.get_by_role("button", name="Add target").click()
    page.get_by_label("Firing mode").select_option("suppressive")
    # ganger-2 takes cover: a bystander's own field, shown for suppressive fire only.
    page.locator('fieldset.target[data-target="ganger-2"]').get_by_label("In cover").check()
    console.place(page, "aim point x (m)", 12)
    console.place(page, "aim point y (m)", 1)
    page.locator('#dice-steps input[data-step="suppression"]').fill("5")
    with page.expect_request(lambda r: r.url.endswith("/attacks")) as sent:
        answer = console.resolve(page)
    request = sent.value.post_data_json
    assert request["suppressive"]["center"] == {"x": 12, "y": 1}
    assert [b["in_cover"] for b in request["bystanders"]] == [False, True]
    zone = answer["result"]["zone"]
    assert zone["zone"]["shape"] == "circle"
    affected = {a["actor"]: a for a in zone["affected"]}
    assert affected["ganger-1"]["inside"] and affected["ganger-1"]["must_test"]
    assert affected["ganger-2"]["inside"] and not affected["ganger-2"]["must_test"]
    circle = page.locator(f'#map g.zone[data-zone="{zone["zone"]["id"]}"] circle')
    expect(circle).to_have_count(1)
    centre, radius = zone["zone"]["center"], zone["zone"]["radius_m"]
    assert float(circle.get_attribute("cx") or "nan") == centre["x"]
    assert float(circle.get_attribute("cy") or "nan") == -centre["y"]
    assert float(circle.get_attribute("r") or "nan") == radius == 5
    expect(page.locator(f'#zone-list li[data-zone="{zone["zone"]["id"]}"] .inside')).to_have_text(
        "Inside now: ganger-1, ganger-2."
    )
    # Moving an actor out of the circle updates who is inside, on the map alone.
    console.place(page, "ganger-2 y (m)", 9)
    expect(page.locator(f'#zone-list li[data-zone="{zone["zone"]["id"]}"] .inside')).to_have_text(
        "Inside now: ganger-1."
    )


def test_a_gm_advances_turns_and_a_player_page_sees_it_live(page: Page, browser: Browser) -> None:
    from playwright.sync_api import expect

    console.create_encounter(page, name="Turns")
    player = player_page(browser, console.player_link(page))
    try:
        expect(page.locator("#turn-now")).to_have_text("combat turn 1, initiative pass 1")
        answer = console.advance(page, "Next initiative pass")
        assert answer["result"]["turn"]["initiative_pass"] == 2
        expect(page.locator("#turn-now")).to_have_text("combat turn 1, initiative pass 2")
        assert console.shown(page, '#result [data-field="initiative_pass"]') == "2"
        # goon-1 goes on full defense (an action), in its own action phase, picked from the map.
        page.get_by_label("Action phase of").select_option("goon-1")
        answer = console.advance(page, "Start action phase")
        assert answer["result"]["turn"]["action_phase"] == "goon-1"
        for shown_on in (page, player):
            expect(shown_on.locator("#info-turn")).to_have_text(
                "combat turn 1, initiative pass 2, goon-1's action phase"
            )
        page.get_by_label("Actor (from the map)").select_option("goon-1")
        page.get_by_label("Action", exact=True).select_option("full_defense")
        page.get_by_label("Full defense with").select_option("agile_defender")
        with page.expect_request(lambda r: r.url.endswith("/actions")) as sent:
            action = console.take_action(page)
        assert sent.value.post_data_json == {
            "ruleset": "sr5",
            "actor": "goon-1",
            "action": "full_defense",
            "full_defense": "agile_defender",
        }
        effects = page.locator('#result [data-field="effects"] li')
        expect(effects).to_have_text(action["result"]["effects"])
        # The next combat turn ends the full defense: the advance says so, on both pages.
        answer = console.advance(page, "Next combat turn")
        said = answer["result"]["effects"]
        assert said and "goon-1" in said[0]
        expect(effects).to_have_text(said)
        expect(page.locator("#turn-now")).to_have_text("combat turn 2, initiative pass 1")
        live = player.locator(f'#feed li[data-event-id="{answer["event_id"]}"]')
        expect(live).to_contain_text(f"Advance to combat turn: {said[0]}")
        expect(player.locator("#info-turn")).to_have_text("combat turn 2, initiative pass 1")
        live.get_by_role("button").click()
        expect(player.locator('#result [data-field="effects"] li')).to_have_text(said)
    finally:
        player.context.close()


def test_a_player_page_has_no_advance_controls(page: Page, browser: Browser, url: str) -> None:
    from playwright.sync_api import expect

    console.create_encounter(page, name="Players")
    advance = re.compile(r"Next combat turn|Next initiative pass|Start action phase")
    expect(page.get_by_role("button", name=advance)).to_have_count(3)
    player = player_page(browser, console.player_link(page))
    try:
        # The player link's page: actions yes, turn controls no.
        expect(player.locator("#action-panel")).to_be_visible()
        expect(player.locator("#turn-panel")).to_be_hidden()
        expect(player.get_by_role("button", name=advance)).to_have_count(0)
        # A player token typed into Join shows them until the service refuses it (403); then
        # they go, and the page says why.
        token = parse_qs(urlparse(console.player_link(page)).fragment)["token"][0]
        player.locator("#leave").click()
        player.get_by_label("Encounter id").fill(console.shown(page, "#info-id"))
        player.get_by_label("Token (GM or player)").fill(token)
        player.get_by_role("button", name="Join encounter").click()
        expect(player.locator("#feed-status")).to_have_attribute("data-state", "live")
        with player.expect_response(lambda r: r.url.endswith("/advance")) as refused:
            player.get_by_role("button", name="Next combat turn").click()
        assert refused.value.status == 403
        expect(player.get_by_role("button", name=advance)).to_have_count(0)
        expect(player.locator("#encounter-status")).to_contain_text("only the GM advances")
        # Nothing advanced.
        expect(page.locator("#turn-now")).to_have_text("combat turn 1, initiative pass 1")
    finally:
        player.context.close()


def test_a_d100_reload_shows_the_action_points_and_ammo_the_service_answered(page: Page) -> None:
    from playwright.sync_api import expect

    console.create_encounter(page, ruleset="d100", name="Reload")
    # d100 has no initiative passes.
    expect(page.get_by_role("button", name="Next initiative pass")).to_have_count(0)
    offered = page.locator("#action-name option").evaluate_all("os => os.map(o => o.value)")
    assert offered == ["reload", "move", "other", "free_action"]
    page.get_by_label("Action", exact=True).select_option("reload")
    # Loose rounds take the loader's Agility; a magazine does not.
    agility = page.get_by_label("Loader's Agility")
    expect(agility).to_be_hidden()
    page.get_by_label("Reload method").select_option("cylinder")
    expect(agility).to_be_visible()
    page.get_by_label("Capacity").fill("6")
    page.get_by_label("Rounds in it now").fill("1")
    agility.fill("40")
    # Too many rounds: the service's refusal points at the field.
    page.get_by_label("Rounds to load").fill("9")
    page.get_by_role("button", name="Take action").click()
    error = page.locator("#action-error")
    expect(error).to_contain_text("$.weapon.rounds")
    expect(page.get_by_label("Rounds to load")).to_be_focused()
    expect(page.get_by_label("Rounds to load")).to_have_attribute("aria-invalid", "true")
    page.get_by_label("Rounds to load").fill("")
    with page.expect_request(lambda r: r.url.endswith("/actions")) as sent:
        answer = console.take_action(page)
    assert sent.value.post_data_json == {
        "ruleset": "d100",
        "actor": "vex",
        "action": "reload",
        "weapon": {"id": "smg", "method": "cylinder", "capacity": 6, "loaded": 1},
        "agility": 40,
    }
    expect(error).to_be_hidden()
    result = answer["result"]
    # 5 rounds in batches of 40 / 5 = 8: one batch, one action point; 6 in the cylinder.
    assert (result["action_points"], result["ammo_left"], result["rounds_loaded"]) == (1, 6, 5)
    for field in ("action_points", "action_points_spent", "ammo_left", "rounds_loaded"):
        assert console.shown(page, f'#result [data-field="{field}"]') == str(result[field]), field
    expect(page.locator('#result [data-field="effects"] li')).to_have_text(result["effects"])
    # A move sends the actor's place on the map, and its cost; the turn's total adds up.
    page.get_by_label("Action", exact=True).select_option("move")
    page.get_by_label("Action points it costs").fill("2")
    console.place(page, "vex x (m)", 3)
    with page.expect_request(lambda r: r.url.endswith("/actions")) as sent:
        answer = console.take_action(page)
    assert sent.value.post_data_json == {
        "ruleset": "d100",
        "actor": "vex",
        "action": "move",
        "action_points": 2,
        "position": {"x": 3, "y": 0},
    }
    assert answer["result"]["action_points_spent"] == 3
    assert console.shown(page, '#result [data-field="action_points_spent"]') == "3"


def test_sr5_suppressive_fire_then_a_zone_test_from_the_zones_list(page: Page) -> None:
    from playwright.sync_api import expect

    console.create_encounter(page, name="Zone test")
    console.sr5_assault_rifle_on_suppressive(page)
    console.place(page, "aim point x (m)", 20)
    page.locator('#dice-steps input[data-step="suppression"]').fill("6 5 5 1 2 3 4 5 6 1 2 3")
    laid = console.resolve(page)
    assert laid["result"]["zone"]["zone"]["hits"] == 5
    # The zone's Test button, by keyboard: the form opens on the actor inside, with its numbers
    # from the attack form.
    test_button = page.get_by_role("button", name="Test an actor against zone-1")
    test_button.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#zone-test-actor")).to_be_focused()
    expect(page.locator("#zone-test-actor")).to_have_value("goon-1")
    expect(page.locator("#zt-defender-armor")).to_have_value("9")
    dice = {"zone_test:goon-1": "1 2 3", "soak:goon-1": "5 6 5 2 3 4 2 2 3 4 1 1"}
    console.give_dice(page, "#zone-test-dice", dice)
    with page.expect_request(lambda r: r.url.endswith("/zones/zone-1/tests")) as sent:
        answer = console.resolve_zone_test(page)
    request = sent.value.post_data_json
    assert request["actor"] == "goon-1" and request["avoid"] == "none"
    assert request["defender"] == {"reaction": 3, "intuition": 3, "body": 4, "armor": 9}
    assert request["dice"] == {
        "zone_test:goon-1": [1, 2, 3],
        "soak:goon-1": [5, 6, 5, 2, 3, 4, 2, 2, 3, 4, 1, 1],
    }
    result = answer["result"]
    # Reaction 3 against the zone's 5 hits: no hit, so it is hit: the predator's 8 P, AP -1 on
    # armor 9, Body 4 + 8 soaks 3: 5 boxes.
    assert (result["threshold"], result["test"]["hits"], result["hit"]) == (5, 0, True)
    assert (result["damage"]["soak_hits"], result["damage"]["boxes"]) == (3, 5)
    on = "#result .zone-test"
    assert console.shown(page, f"{on} [data-field=outcome]") == "hit"
    for field in ("threshold", "pool"):
        assert console.shown(page, f"{on} [data-field={field}]") == str(result[field]), field
    assert console.shown(page, f"{on} [data-field=hits]") == str(result["test"]["hits"])
    for field in ("dv", "armor", "soak_hits", "track"):
        assert console.shown(page, f"{on} [data-field={field}]") == str(result["damage"][field])
    assert console.shown(page, f"{on} [data-field=boxes]") == str(result["damage"]["boxes"])
    assert (
        console.shown_modifiers(page, f'{on} [data-field="pool-modifiers"]') == result["modifiers"]
    )
    assert console.shown_dice(page) == console.answered_dice(result["dice"])
    assert page.locator('#result .dice-step[data-step="soak:goon-1"] .die.hit').count() == 3
    expect(page.locator("#result-summary")).to_have_text(
        "goon-1 tests against zone-1: 0 hits of 5, hit, 5 physical boxes."
    )
    # A second test in the same phase: the service's 409 is shown at the form.
    page.get_by_role("button", name="Resolve zone test").click()
    expect(page.locator("#zone-test-error")).to_contain_text("already")


def test_d100_suppressive_fire_then_a_zone_test_from_the_zones_list(page: Page) -> None:
    from playwright.sync_api import expect

    console.create_encounter(page, ruleset="d100", name="Overpass")
    # Marksmanship 50 at a zone centred 30 m away (the medium band, +0): Success Target 50; a
    # roll of 25 is 1 + 25 div 10 = 3 hits, penalty -15.
    page.get_by_label("Marksmanship (%)").fill("50")
    page.get_by_label("Firing mode").select_option("suppressive")
    console.place(page, "aim point x (m)", 30)
    console.place(page, "aim point y (m)", 0)
    # ganger-1 stands inside the 10 m circle, (2, 3) from its centre.
    console.place(page, "ganger-1 x (m)", 28)
    console.place(page, "ganger-1 y (m)", 3)
    console.give_dice(page, "#dice-steps", {"suppression": "25"})
    laid = console.resolve(page)["result"]["zone"]
    assert (laid["test"]["success_target"], laid["test"]["roll"]) == (50, 25)
    # The zone's Success Target is shown once: in its test's line.
    card = page.locator("#result article.result").inner_text()
    assert card.count("against 50") == 1 and "Success Target\n50" not in card, card
    assert page.locator('#result [data-field="success_target-modifiers"]').count() == 0
    assert "rolled 25 against 50: success, 3 hits" in card
    zone = laid["zone"]
    assert (zone["id"], zone["hits"], zone["penalty"]) == ("zone-1", 3, -15)
    assert zone["center"] == {"x": 30, "y": 0}
    listed = page.locator('#zone-list li[data-zone="zone-1"]')
    expect(listed).to_contain_text("3 hits, penalty -15, circle of 5 m around (30, 0)")
    expect(listed.locator(".inside")).to_have_text("Inside now: ganger-1.")

    listed.get_by_role("button", name="Test an actor against zone-1").click()
    expect(page.locator("#zone-test-actor")).to_have_value("ganger-1")
    # The zone's weapon (the form's smg: 7 + 2d6) is read from the encounter's state.
    bonus = page.locator('#zone-test-dice input[data-step="bonus:ganger-1"][data-sides="6"]')
    expect(bonus).to_have_count(1)
    page.get_by_label("Athletics (%)").fill("45")
    form = page.locator("#zone-test-form")
    form.get_by_label("Passive Defense (%)").fill("35")
    form.get_by_label("Passive Defense (%)").press("Tab")
    dice = {
        "zone_test:ganger-1": "71",
        "bonus:ganger-1": "4 5",
        "passive_defense:ganger-1": "8",
        "location:ganger-1": "1",
    }
    expect(page.locator("#zone-test-dice input[data-step]")).to_have_count(len(dice))

    # Standing outside the circle, the test is refused, and the form marks whom it tested.
    console.place(page, "ganger-1 x (m)", 20)
    console.give_dice(page, "#zone-test-dice", dice)
    with page.expect_response(lambda r: r.url.endswith("/zones/zone-1/tests")) as refused:
        page.get_by_role("button", name="Resolve zone test").click()
    assert refused.value.status == 422
    problem = refused.value.json()
    assert problem["path"] == "$.defender.position"
    error = page.locator("#zone-test-error")
    expect(error).to_contain_text("(20, 3) is outside zone-1")
    expect(error).to_contain_text("$.defender.position")
    expect(page.locator("#zone-test-actor")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#zone-test-actor")).to_be_focused()

    # Back inside: Athletics 45 - 15 = 30 against 71 fails, so the zone's fire hits.
    console.place(page, "ganger-1 x (m)", 28)
    with page.expect_request(lambda r: r.url.endswith("/zones/zone-1/tests")) as sent:
        answer = console.resolve_zone_test(page)
    request = sent.value.post_data_json
    assert request["actor"] == "ganger-1" and request["avoid"] == "none"
    assert request["athletics"] == 45
    assert request["defender"] == {
        "passive_defense": 35,
        "armor": 2,
        "position": {"x": 28, "y": 3},
    }
    assert request["dice"] == {
        "zone_test:ganger-1": [71],
        "bonus:ganger-1": [4, 5],
        "passive_defense:ganger-1": [8],
        "location:ganger-1": [1],
    }
    expect(error).to_be_hidden()
    expect(page.locator("#zone-test-actor")).not_to_have_attribute("aria-invalid", "true")
    result = answer["result"]
    assert result["kind"] == "d100_zone_test" and result["hit"] is True
    assert result["modifiers"] == [
        {"source": "Athletics", "value": 45},
        {"source": "suppression (zone-1, 3 hits)", "value": -15},
    ]
    test = result["test"]
    assert (test["success_target"], test["roll"], test["success"], test["hits"]) == (
        30,
        71,
        False,
        0,
    )
    # Cold bonus dice 4 + 5 on the flat 7, less 2 Passive Defense hits (35 - 15 = 20 against
    # 8): damage 14 to the head; armour 2, no penetration: wound 12.
    damage = result["damage"]
    assert damage["passive_defense"]["success_target"] == 20
    assert (damage["bonus_hits"], damage["passive_defense_hits"]) == (9, 2)
    assert (damage["damage"], damage["location"], damage["effective_armor"]) == (14, "head", 2)
    assert damage["wound"] == 12

    # The page shows the service's numbers.
    on = '#result .zone-test[data-actor="ganger-1"]'
    shown = console.shown
    assert shown(page, f"{on} [data-field=outcome]") == "hit"
    assert shown(page, f"{on} [data-field=hit]") == "yes"
    for field in ("success_target", "roll", "hits"):
        assert shown(page, f"{on} [data-field={field}]") == str(test[field]), field
    assert (
        console.shown_modifiers(page, f'{on} [data-field="success_target-modifiers"]')
        == result["modifiers"]
    )
    for field in ("flat", "bonus_dice", "bonus_hits", "passive_defense_hits", "damage"):
        assert shown(page, f"{on} [data-field={field}]") == str(damage[field]), field
    for field in ("armor", "armor_penetration", "effective_armor"):
        assert shown(page, f"{on} [data-field={field}]") == str(damage[field]), field
    assert shown(page, f"{on} [data-field=location]") == damage["location"]
    assert shown(page, f"{on} [data-field=wound]") == str(damage["wound"])
    assert shown(page, f"{on} [data-field=wound]") == str(damage["wound"])
    assert console.shown_dice(page) == console.answered_dice(result["dice"])
    said = (
        f"ganger-1 tests against zone-1: rolled {test['roll']} against "
        f"{test['success_target']}, hit, wound {damage['wound']} to the head."
    )
    expect(page.locator("#result-summary")).to_have_text(said)
    # The encounter's feed has the zone test, saying the same.
    expect(page.locator(f'#feed li[data-event-id="{answer["event_id"]}"]')).to_contain_text(said)


def initiative_answer(page: Page, click: Any, method: str = "POST", status: int = 201) -> Any:
    """Runs `click()`; returns the service's answer to the request it sends to .../initiative
    (or .../actions, .../advance), once the page has read the order again after it."""
    endpoints = ("/initiative", "/actions", "/advance")
    with page.expect_response(
        lambda r: r.url.endswith(endpoints) and r.request.method == method
    ) as answered:
        click()
    response = answered.value
    assert response.status == status, response.text()
    body = response.json()
    if status < 300:
        page.locator(f'#result[data-event="{body["event_id"]}"]').wait_for()
        page.locator("#initiative-panel:not([aria-busy])").wait_for()
    return body


def shown_order(page: Page) -> list[tuple[str, int]]:
    items = page.locator("#initiative-order li[data-actor]")
    return [
        (
            items.nth(i).get_attribute("data-actor") or "",
            int(items.nth(i).get_attribute("data-score") or 0),
        )
        for i in range(items.count())
    ]


def test_the_gm_runs_the_services_initiative_and_every_console_follows_it(
    page: Page, browser: Browser, url: str
) -> None:
    from playwright.sync_api import expect

    encounter = console.create_encounter(page, name="Initiative")
    sheet = {**SAM["sheet"], "reaction": 5, "intuition": 4, "initiative_dice": 2}
    console.put_actor(page, url, encounter, "sam", {**SAM, "sheet": sheet})
    console.put_actor(
        page, url, encounter, "goon-1", {"position": {"x": 12, "y": 0}, "sheet": GOON}
    )
    console.put_actor(page, url, encounter, "rat", {"position": {"x": 6, "y": 6}})
    panel = page.locator("#initiative-panel")
    expect(panel).to_have_attribute("data-running", "false")
    expect(page.locator("#initiative-now")).to_contain_text("The service runs no initiative")
    # The roll form has a row per scene actor, saying what its sheet gives the roll.
    rows = page.locator("#initiative-rows tr[data-actor]")
    expect(rows).to_have_count(3)
    expect(page.locator('#initiative-rows tr[data-actor="sam"] .sheet')).to_have_text(
        "Reaction 5 + Intuition 4 + 2d6"
    )
    expect(page.locator('#initiative-rows tr[data-actor="rat"] .sheet')).to_contain_text(
        "no reaction or intuition on its sheet"
    )
    assert page.evaluate(UNLABELLED_JS) == []
    player = player_page(browser, console.player_link(page))
    try:
        expect(player.locator("#initiative-panel")).to_be_visible()
        expect(player.locator("#initiative-gm")).to_be_hidden()

        # The rat has no sheet to roll from: the service says what it needs, at its row.
        page.get_by_label("goon-1: score rolled at the table").fill("8")
        refused = initiative_answer(
            page, page.get_by_role("button", name="Roll initiative").click, status=422
        )
        assert refused["path"].endswith(".reaction")
        rat_score = page.get_by_label("rat: score rolled at the table")
        expect(page.locator("#initiative-error")).to_contain_text("rat's initiative needs")
        expect(rat_score).to_have_attribute("aria-invalid", "true")
        expect(rat_score).to_be_focused()

        # Rolled at the table for the rat, by the service from sam's sheet.
        rat_score.fill("25")
        with page.expect_request(lambda r: r.url.endswith("/initiative")) as sent:
            started = initiative_answer(
                page, page.get_by_role("button", name="Roll initiative").click
            )
        assert sorted(sent.value.post_data_json["actors"], key=lambda a: a["actor"]) == [
            {"actor": "goon-1", "score": 8},
            {"actor": "rat", "score": 25},
            {"actor": "sam"},
        ]
        result = started["result"]
        order = [(e["actor"], e["score"]) for e in result["entries"]]
        sam_score = dict(order)["sam"]
        assert [a for a, _ in order] == ["rat", "sam", "goon-1"] and 11 <= sam_score <= 21
        assert [d["step"] for d in result["dice"]] == ["initiative:sam"]
        for shown_on in (page, player):
            expect(shown_on.locator("#initiative-panel")).to_have_attribute("data-current", "rat")
            assert shown_order(shown_on) == order
            expect(shown_on.locator("#initiative-now")).to_have_text(
                "Combat turn 1, initiative pass 1: rat's phase."
            )
            expect(shown_on.locator("#info-turn")).to_have_text(
                "combat turn 1, initiative pass 1, rat's action phase"
            )
            expect(shown_on.locator("#initiative-left")).to_have_text(
                "rat has 1 free, 1 complex or 1 free, 2 simple left in this phase."
            )
            expect(shown_on.locator('#initiative-order li[data-actor="rat"]')).to_have_attribute(
                "aria-current", "true"
            )
            # The roster and the map mark who acts.
            expect(
                shown_on.locator('#roster-list li[data-actor="rat"] .badge.acting')
            ).to_have_text("acting now")
            expect(shown_on.locator('#map g[data-actor="rat"]')).to_have_class(re.compile("acting"))
        # The result shows the roll with its dice.
        expect(page.locator('#result [data-field="current"]')).to_have_text("rat")
        assert console.shown_dice(page) == console.answered_dice(result["dice"])

        # sam acts out of turn: the service refuses, the action form says why.
        page.get_by_label("Actor (from the map)").select_option("sam")
        page.get_by_label("Action", exact=True).select_option("take_aim")
        with page.expect_response(lambda r: r.url.endswith("/actions")) as refused_action:
            page.get_by_role("button", name="Take action").click()
        assert refused_action.value.status == 409
        expect(page.locator("#action-error")).to_contain_text("it is rat's combat phase, not sam's")

        # The rat holds its action: sam's phase; the rat steps in before sam has acted, so
        # sam's phase comes right after the rat's, then the goon's.
        held = initiative_answer(page, page.get_by_role("button", name="Hold rat's action").click)
        assert held["result"]["effects"][0] == "rat holds its action"
        expect(panel).to_have_attribute("data-current", "sam")
        expect(
            page.locator('#initiative-order li[data-actor="rat"] [data-field=state]')
        ).to_have_text("holds its action")
        expect(
            player.locator('#initiative-order li[data-actor="rat"] [data-field=state]')
        ).to_have_text("holds its action")
        assert player.get_by_role("button", name="Step in: rat").count() == 0
        with page.expect_request(lambda r: r.url.endswith("/advance")) as stepped:
            initiative_answer(page, page.get_by_role("button", name="Step in: rat").click)
        assert stepped.value.post_data_json == {"to": "action_phase", "actor": "rat"}
        expect(panel).to_have_attribute("data-current", "rat")
        expect(
            page.locator('#initiative-order li[data-actor="sam"]', has_text="has acted")
        ).to_have_count(0)
        initiative_answer(page, page.get_by_role("button", name="Next phase").click)
        expect(panel).to_have_attribute("data-current", "sam")
        expect(
            page.locator('#initiative-order li[data-actor="rat"] [data-field=state]')
        ).to_have_text("has acted")
        initiative_answer(page, page.get_by_role("button", name="Next phase").click)
        expect(panel).to_have_attribute("data-current", "goon-1")
        # The last phase of the pass: the next pass, 10 off every score.
        initiative_answer(page, page.get_by_role("button", name="Next phase").click)
        for shown_on in (page, player):
            expect(shown_on.locator("#initiative-panel")).to_have_attribute("data-pass", "2")
            expect(shown_on.locator("#initiative-panel")).to_have_attribute("data-current", "rat")
        assert shown_order(page) == [("rat", 15), ("sam", sam_score - 10), ("goon-1", -2)]
        expect(page.locator("#turn-now")).to_have_text(
            "combat turn 1, initiative pass 2, rat's action phase"
        )

        # The turn panel ends the combat turn: the next waits for its initiative.
        console.advance(page, "Next combat turn")
        for shown_on in (page, player):
            expect(shown_on.locator("#initiative-now")).to_have_text(
                "Combat turn 1 is over: roll initiative for combat turn 2."
            )
            expect(shown_on.locator("#roster-list li.acting")).to_have_count(0)
        expect(page.get_by_role("button", name="Next phase")).to_be_disabled()
        # A new combat turn rolls everyone again: the scores typed in cannot be, and it says so.
        initiative_answer(
            page, page.get_by_role("button", name="New combat turn").click, status=422
        )
        expect(page.locator("#initiative-error")).to_contain_text("had a score given at the table")
        # Stopped: the VTT's tracker (or the turn panel) runs the turn again, on every console.
        with page.expect_response(
            lambda r: r.url.endswith("/initiative") and r.request.method == "DELETE"
        ) as stopped:
            page.get_by_role("button", name="Stop").click()
        assert stopped.value.status == 200
        for shown_on in (page, player):
            expect(shown_on.locator("#initiative-panel")).to_have_attribute("data-running", "false")
            expect(
                shown_on.locator('#roster-list li[data-actor="rat"] .badge.acting')
            ).to_have_count(0)
        expect(page.locator("#initiative-now")).to_contain_text("The service runs no initiative")
    finally:
        player.context.close()


def test_d100_has_no_initiative_panel(page: Page) -> None:
    from playwright.sync_api import expect

    console.create_encounter(page, ruleset="d100", name="No passes")
    expect(page.locator("#initiative-panel")).to_be_hidden()


def test_sr3_has_the_initiative_panel_with_its_own_roll(page: Page, url: str) -> None:
    from playwright.sync_api import expect

    # GET /v1/rulesets says what sr3's initiative adds up: Reaction and the initiative dice.
    encounter = console.create_encounter(page, ruleset="sr3", name="SR3 passes")
    sheet = {"ruleset": "sr3", "reaction": 5, "initiative_dice": 2}
    console.put_actor(page, url, encounter, "sam", {"sheet": sheet})
    expect(page.locator("#initiative-panel")).to_be_visible()
    expect(page.locator('#initiative-rows tr[data-actor="sam"] .sheet')).to_have_text(
        "Reaction 5 + 2d6"
    )
    answer = initiative_answer(page, page.get_by_role("button", name="Roll initiative").click)
    [sam] = answer["result"]["entries"]
    assert sam["base"] == 5 and sam["initiative_dice"] == 2
    expect(page.locator("#initiative-panel")).to_have_attribute("data-current", "sam")
    # The document's phase: three ways to fill it.
    expect(page.locator("#initiative-left")).to_contain_text("3 free")


# --- sr3 ------------------------------------------------------------------------------------
# The first case of tests/test_sr3_http.py, typed in: Sam (skill 4, Combat Pool (5 + 4 + 3) / 2 =
# 6) adds 2 pool dice; the ganger 4 m away (heavy pistol short range, standard vision: TN 4, 002)
# has Body 4, a Combat Pool of (4 + 3 + 3) / 2 = 5 and an armour jacket 5/3, and commits one die
# to the dodge and one to the resistance test.
SR3_DICE = {"attack": "6 5 5 4 2 1", "dodge:goon-1": "4", "resist:goon-1": "4 2 1 1 5"}


def sr3_shot(page: Page, pool: int = 2, dodge: int = 1, resist: int = 1) -> None:
    page.get_by_label("Combat Pool dice added").fill(str(pool))
    target = page.locator('fieldset.target[data-target="goon-1"]')
    target.get_by_label("Combat Pool dice to dodge").fill(str(dodge))
    target.get_by_label("Combat Pool dice to resist damage").fill(str(resist))
    # The dodge's dice step shows once dice are committed to it.
    target.get_by_label("Combat Pool dice to resist damage").press("Tab")


def test_an_sr3_attack_shows_every_tn_with_its_sources_and_the_combat_pool_left(
    page: Page,
) -> None:
    from playwright.sync_api import expect

    console.create_encounter(page, ruleset="sr3", name="Redmond")
    console.place(page, "goon-1 x (m)", 4)
    sr3_shot(page)
    expect(page.locator('#dice-steps input[data-step="dodge:goon-1"]')).to_have_count(1)
    console.give_dice(page, "#dice-steps", SR3_DICE)
    with page.expect_request(lambda r: r.url.endswith("/attacks")) as sent:
        answer = console.resolve(page)
    request = sent.value.post_data_json
    assert request["ruleset"] == "sr3" and request["pool"] == 2 and "targets" not in request
    assert request["attacker"] == {
        "id": "sam",
        "skill": 4,
        "quickness": 5,
        "intelligence": 4,
        "willpower": 3,
        "wounds": "none",
    }
    assert request["target"]["distance_m"] == 4
    assert request["target"]["defender"]["armor"] == [
        {"name": "armor jacket", "ballistic": 5, "impact": 3}
    ]
    assert (request["target"]["dodge"], request["target"]["resist"]) == (1, 1)
    result = answer["result"]
    target = result["target"]
    damage = target["damage"]
    # The numbers worked by hand (tests/test_sr3_http.py)...
    assert (result["attack"]["target_number"], result["attack"]["successes"]) == (4, 4)
    assert (target["dodge_successes"], target["net_successes"]) == (1, 3)
    assert (damage["resist"]["target_number"], damage["resist"]["successes"]) == (4, 2)
    assert (damage["level"], damage["boxes"], damage["track"]) == ("M", 3, "physical")
    assert result["combat_pool"] == [
        {"actor": "sam", "spent": 2, "left": 4},
        {"actor": "goon-1", "spent": 2, "left": 3},
    ]
    # ... and the page shows the service's: each test's TN with every modifier and its source.
    shown = console.shown
    for name, test in (
        ("attack", result["attack"]),
        ("dodge", target["dodge"]),
        ("resist", damage["resist"]),
    ):
        on = f'#result [data-test="{name}"]'
        for field in ("target_number", "dice", "pool_dice", "successes"):
            assert shown(page, f"{on} [data-field={field}]") == str(test[field]), (name, field)
        assert shown(page, f"{on} [data-field=totals]") == ", ".join(map(str, test["totals"]))
        assert (
            console.shown_modifiers(page, f'{on} [data-field="{name}-modifiers"]')
            == test["modifiers"]
        ), name
    assert {"source": "range (short), standard vision", "value": 4} in result["attack"]["modifiers"]
    on = '#result [data-target="goon-1"]'
    assert shown(page, f"{on} [data-field=outcome]") == target["outcome"] == "hit"
    for field in ("range", "attack_successes", "dodge_successes", "net_successes"):
        assert shown(page, f"{on} [data-field={field}]") == str(target[field]), field
    assert shown(page, f"{on} [data-field=armor_ballistic]") == "5"
    for field in ("level", "boxes", "track", "power", "armor_rating", "stages"):
        assert shown(page, f"{on} [data-field={field}]").lstrip("+") == str(damage[field]), field
    for pool in result["combat_pool"]:
        row = f'#result [data-field=combat_pool] tr[data-actor="{pool["actor"]}"]'
        assert shown(page, f"{row} [data-field=spent]") == str(pool["spent"])
        assert shown(page, f"{row} [data-field=left]") == str(pool["left"])
    assert console.shown_dice(page) == console.answered_dice(result["dice"])
    expect(page.locator("#result-summary")).to_have_text(
        "sam fires predator (SA, TN 4): goon-1 hit, M: 3 physical boxes;"
        " Combat Pool left: sam 4, goon-1 3."
    )


def test_an_exhausted_sr3_combat_pool_is_refused_in_the_form_until_the_next_turn(
    page: Page,
) -> None:
    from playwright.sync_api import expect

    console.create_encounter(page, ruleset="sr3", name="Pool")
    # Four pool dice on a miss: the test is made, the dice are spent; 6 - 4 = 2 left.
    sr3_shot(page, pool=4, dodge=0, resist=0)
    console.give_dice(page, "#dice-steps", {"attack": "2 2 2 2 2 2 2 2"})
    first = console.resolve(page)["result"]
    assert first["target"]["outcome"] == "miss"
    assert first["combat_pool"][0] == {"actor": "sam", "spent": 4, "left": 2}
    assert console.shown(page, '#result tr[data-actor="sam"] [data-field=left]') == "2"
    # Three more: the service's 409 is shown in the form's alert.
    page.get_by_label("Combat Pool dice added").fill("3")
    page.get_by_label("Combat Pool dice added").press("Tab")
    console.give_dice(page, "#dice-steps", {"attack": "2 2 2 2 2 2 2"})
    with page.expect_response(lambda r: r.url.endswith("/attacks")) as refused:
        page.get_by_role("button", name="Resolve attack").click()
    assert refused.value.status == 409
    assert refused.value.json()["path"] == "$.pool"
    error = page.locator("#attack-error")
    expect(error).to_be_visible()
    expect(error).to_contain_text("2 Combat Pool dice left")
    # A new combat turn refreshes every pool (SR3 p. 103).
    turn = console.advance(page, "Next combat turn")
    assert "sam: Combat Pool refreshed to 6 (2 were left)" in turn["result"]["effects"]
    again = console.resolve(page)["result"]
    assert again["combat_pool"][0] == {"actor": "sam", "spent": 3, "left": 3}
    expect(error).to_be_hidden()


def test_sr3_aim_and_one_target_per_attack(page: Page) -> None:
    from playwright.sync_api import expect

    console.create_encounter(page, ruleset="sr3", name="Aim")
    offered = page.locator("#action-name option").evaluate_all("os => os.map(o => o.value)")
    assert "take_aim" in offered and "fire_weapon_sa_bf" in offered
    page.get_by_label("Action", exact=True).select_option("take_aim")
    page.get_by_label("Actor (from the map)").select_option("sam")
    with page.expect_request(lambda r: r.url.endswith("/actions")) as sent:
        aimed = console.take_action(page)
    assert sent.value.post_data_json == {"ruleset": "sr3", "actor": "sam", "action": "take_aim"}
    expect(page.locator('#result [data-field="effects"] li').first).to_be_visible()
    assert aimed["result"]["effects"]
    # The aim counts on the next shot: -1 TN, named.
    console.give_dice(page, "#dice-steps", {"attack": "2 2 2 2"})
    shot = console.resolve(page)["result"]
    aim = {"source": "aimed (1 simple actions)", "value": -1}
    assert aim in shot["attack"]["modifiers"]
    assert aim in console.shown_modifiers(page, '#result [data-field="attack-modifiers"]')
    # SR3 fires each attack at one target: a second one is refused before anything is sent.
    page.get_by_role("button", name="Add target").click()
    page.get_by_role("button", name="Resolve attack").click()
    expect(page.locator("#attack-error")).to_contain_text("one target")


def test_an_sr3_attack_by_names_is_filled_from_the_scenes_sheets(page: Page, url: str) -> None:
    from playwright.sync_api import expect

    encounter = console.create_encounter(page, ruleset="sr3", name="By names")
    predator = {
        "id": "predator",
        "category": "heavy_pistol",
        "power": 9,
        "damage_level": "M",
        "modes": ["SA"],
        "ammo": 15,
    }
    sam = {
        "ruleset": "sr3",
        "skill": 4,
        "quickness": 5,
        "intelligence": 4,
        "willpower": 3,
        "weapons": [predator],
    }
    console.put_actor(page, url, encounter, "sam", {"position": {"x": 0, "y": 0}, "sheet": sam})
    jacket = {"name": "armor jacket", "ballistic": 5, "impact": 3}
    goon = {"ruleset": "sr3", "body": 4, "armor": [jacket]}
    console.put_actor(page, url, encounter, "goon-7", {"position": {"x": 3, "y": 4}, "sheet": goon})
    page.get_by_role("button", name="Attack with sam").click()
    page.get_by_role("button", name="Target goon-7").click()
    expect(page.locator("#scene-target-goon-7")).to_be_checked()
    steps = page.locator("#dice-steps input").evaluate_all(
        "inputs => inputs.map(i => i.dataset.step)"
    )
    assert steps == ["attack", "resist:goon-7"]
    console.give_dice(page, "#dice-steps", {"attack": "6 5 2 2", "resist:goon-7": "5 2 2 2"})
    with page.expect_request(lambda r: r.url.endswith("/attacks")) as sent:
        answer = console.resolve(page)
    request = sent.value.post_data_json
    assert (request["attacker"], request["weapon"], request["target"]) == (
        "sam",
        "predator",
        {"id": "goon-7"},
    )
    result = answer["result"]
    # 5 m from the positions: heavy pistol short range, TN 4 (002); Body 4 against 9 - 5 = 4.
    assert result["target"]["range"] == "short"
    assert (result["attack"]["target_number"], result["attack"]["successes"]) == (4, 2)
    damage = result["target"]["damage"]
    assert (damage["resist"]["successes"], damage["level"], damage["boxes"]) == (1, "M", 3)
    on = '#result [data-target="goon-7"]'
    assert console.shown(page, f"{on} [data-field=boxes]") == "3"
    assert console.shown(page, f'{on} [data-test="resist"] [data-field=target_number]') == "4"


# --- sr4 ------------------------------------------------------------------------------------
# Sam (Agility 5, skill 4) fires a wide short burst (SB, the schema's BF) of a heavy pistol 5P,
# AP -1, at a ganger 4 m away (short range: 0, 001): recoil -2 (first burst in the phase), so 7
# dice; the wide burst takes 2 off the ganger's Reaction 3: 1 die. 3 hits against 1: 2 net, DV 7
# against his armour jacket 6 - 1 = 5: physical (001, "Compare Armor"); Body 4 + 5 = 9 soak dice,
# 2 hits: 5 boxes.
SR4_DICE = {
    "attack": "6 5 5 2 1 3 4",
    "defense:goon-1": "5",
    "soak:goon-1": "5 6 1 2 3 4 2 2 3",
}


def sr4_form(page: Page, modes: tuple[str, ...] = ("SA", "BF")) -> None:
    for mode in ("SS", "SA", "BF", "FA"):
        box = page.locator(f"#weapon-modes-{mode}")
        box.set_checked(mode in modes)
    page.locator("#options summary").click()


def test_an_sr4_wide_burst_through_the_form_shows_what_the_service_computed(page: Page) -> None:
    from playwright.sync_api import expect

    console.create_encounter(page, ruleset="sr4", name="Seattle")
    # The modes come from GET /v1/rulesets: SR4's short, long and full bursts.
    offered = page.locator("#attack-mode option").evaluate_all("o => o.map(x => x.value)")
    assert offered == ["SS", "SA", "BF", "LB", "FB", "suppressive"]
    console.place(page, "goon-1 x (m)", 4)
    sr4_form(page)
    page.get_by_label("Firing mode").select_option("BF")
    page.get_by_label("Burst", exact=True).select_option("wide")
    console.give_dice(page, "#dice-steps", SR4_DICE)
    with page.expect_request(lambda r: r.url.endswith("/attacks")) as sent:
        answer = console.resolve(page)
    request = sent.value.post_data_json
    assert (request["ruleset"], request["mode"], request["burst"]) == ("sr4", "BF", "wide")
    assert request["targets"][0]["defender"]["ballistic_armor"] == 6
    result = answer["result"]
    target = result["targets"][0]
    damage = target["damage"]
    # The numbers worked by hand...
    assert (result["recoil"]["penalty"], target["attack"]["pool"], target["defense"]["pool"]) == (
        -2,
        7,
        1,
    )
    assert (target["attack"]["hits"], target["defense_hits"], target["net_hits"]) == (3, 1, 2)
    assert (damage["dv"], damage["armor"], damage["track"], damage["boxes"]) == (
        7,
        5,
        "physical",
        5,
    )
    assert {"source": "wide burst", "value": -2} in target["defense_modifiers"]
    # ... and the page shows the service's.
    shown = console.shown
    assert shown(page, '#result [data-field="pool"]') == str(result["pool"])
    assert shown(page, '#result [data-field="recoil_penalty"]') == "-2"
    assert shown(page, '#result [data-field="ammo_left"]') == str(result["ammo_left"]) == "12"
    on = '#result [data-target="goon-1"]'
    assert shown(page, f"{on} [data-field=outcome]") == "hit"
    for field in ("attack_hits", "defense_hits", "net_hits"):
        assert shown(page, f"{on} [data-field={field}]") == str(
            target["attack"]["hits"] if field == "attack_hits" else target[field]
        ), field
    for field in ("dv", "compared_dv", "armor", "boxes", "track", "soak_hits"):
        assert shown(page, f"{on} [data-field={field}]") == str(damage[field]), field
    assert (
        console.shown_modifiers(page, f'{on} [data-field="defense-modifiers"]')
        == target["defense_modifiers"]
    )
    assert console.shown_dice(page) == console.answered_dice(result["dice"])
    expect(page.locator("#result-summary")).to_contain_text("goon-1 hit, 5 physical boxes")


def sr4_grenade(page: Page, airburst: bool) -> None:
    """A standard fragmentation grenade thrown at the aim point on the map, with goon-1 and goon-2
    where its blast may reach."""
    page.get_by_label("Category").select_option("standard_grenade")
    sr4_form(page, modes=("SS",))
    page.get_by_label("Firing mode").select_option("SS")
    page.get_by_label("Grenade", exact=True).select_option("fragmentation")
    if airburst:
        page.get_by_label("Airburst link (goes off at once)").check()
    page.get_by_label("Grenade aimed at").select_option("point")
    page.get_by_role("button", name="Add target").click()
    console.place(page, "goon-1 x (m)", 10)
    console.place(page, "goon-2 x (m)", 12)
    console.place(page, "goon-2 y (m)", 3)
    console.place(page, "aim point x (m)", 10)
    console.place(page, "aim point y (m)", 0)


def drawn(page: Page, selector: str, attribute: str) -> float:
    return float(page.locator(selector).first.get_attribute(attribute) or "nan")


def test_an_sr4_airburst_grenade_draws_its_scatter_and_blast_with_who_it_hit(page: Page) -> None:
    from playwright.sync_api import expect

    console.create_encounter(page, ruleset="sr4", name="Tacoma")
    sr4_grenade(page, airburst=True)
    # The aim point is on the map while the grenade goes at a point; the steps include the scatter.
    expect(page.locator('#map [data-actor="aim point"]')).to_have_count(1)
    console.give_dice(page, "#dice-steps", {"scatter_direction": "2", "scatter": "6"})
    with page.expect_request(lambda r: r.url.endswith("/attacks")) as sent:
        answer = console.resolve(page)
    request = sent.value.post_data_json
    assert request["aim_point"] == {"x": 10, "y": 0} and "targets" not in request
    assert request["grenade"] == {"type": "fragmentation", "delivery": "standard", "airburst": True}
    assert [b["id"] for b in request["bystanders"]] == ["goon-1", "goon-2"]
    result = answer["result"]
    scatter, blast = result["scatter"], result["blast"]
    assert scatter["direction"] == 2 and scatter["rolled_m"] == 6 and blast is not None
    # The scatter: a line from the aimed point to where it landed (the SVG's y points down).
    line = "#map .blast line.scatter"
    assert (drawn(page, line, "x1"), -drawn(page, line, "y1")) == (10, 0)
    assert drawn(page, line, "x2") == pytest.approx(scatter["landed"]["x"])
    assert -drawn(page, line, "y2") == pytest.approx(scatter["landed"]["y"])
    # The rings around the blast point: the outermost where the blast's DV runs out.
    outer = "#map .blast circle.ring.outer"
    assert drawn(page, outer, "cx") == pytest.approx(blast["point"]["x"])
    assert drawn(page, outer, "r") == pytest.approx(blast["dv"] / blast["falloff_per_m"])
    # Who it reached: ringed on the map, and each with its numbers in the result.
    hit = {h["actor"] for h in blast["hits"] if h["dv"] > 0}
    assert hit, "the blast reached someone"
    for actor in ("goon-1", "goon-2"):
        element = page.locator(f'#map [data-actor="{actor}"]')
        assert ("blast-hit" in (element.get_attribute("class") or "")) == (actor in hit)
    for h in blast["hits"]:
        row = f'#result .blast-hits tr[data-actor="{h["actor"]}"]'
        assert console.shown(page, f"{row} [data-field=boxes]") == f"{h['boxes']} {h['track']}"
        assert console.shown(page, f"{row} [data-field=dv]") == str(h["dv"])
    assert console.shown(page, "#result [data-field=rolled_m]") == "6"
    expect(page.locator("#blast-summary")).to_contain_text(f"Last blast: {blast['grenade']}")


def test_a_held_sr4_grenade_is_listed_on_the_map_until_the_advance_that_sets_it_off(
    page: Page, browser: Browser
) -> None:
    from playwright.sync_api import expect

    console.create_encounter(page, ruleset="sr4", name="Everett")
    player = player_page(browser, console.player_link(page))
    try:
        sr4_grenade(page, airburst=False)
        answer = console.resolve(page)
        held = answer["result"]["pending_grenade"]
        assert held and answer["result"]["blast"] is None
        landed = answer["result"]["scatter"]["landed"]
        # Held: listed and drawn where it landed, on this console and on the player's.
        for each in (page, player):
            expect(each.locator(f'#grenade-list li[data-grenade="{held}"]')).to_have_count(1)
            circle = f'#map .zone.grenade[data-zone="{held}"] circle'
            expect(each.locator(circle)).to_have_count(1)
            assert drawn(each, circle, "cx") == pytest.approx(landed["x"])
        expect(page.locator(f'#zone-list li[data-zone="{held}"]')).to_have_count(0)
        # The VTT runs the initiative: it goes off by the second pass boundary after the throw.
        went_off: list[Any] = []
        for _ in range(2):
            with page.expect_response(lambda r: r.url.endswith("/advance")) as advanced:
                page.get_by_role("button", name="Next initiative pass").click()
            went_off += advanced.value.json()["result"]["went_off"]
        [blast] = went_off
        assert blast["grenade"] == held
        for each in (page, player):
            expect(each.locator(f'#grenade-list li[data-grenade="{held}"]')).to_have_count(0)
            expect(each.locator(f'#map .zone[data-zone="{held}"]')).to_have_count(0)
            expect(each.locator("#blast-summary")).to_contain_text(f"Last blast: {held}")
        outer = "#map .blast circle.ring.outer"
        assert drawn(page, outer, "cx") == pytest.approx(landed["x"])
        expect(page.locator(f'#result .blast-result[data-grenade="{held}"]')).to_have_count(1)
    finally:
        player.context.close()


def test_sr4_suppressive_fire_then_a_zone_test_and_the_actions(page: Page) -> None:
    from playwright.sync_api import expect

    console.create_encounter(page, ruleset="sr4", name="Suppressed")
    page.get_by_label("Category").select_option("assault_rifle")
    sr4_form(page, modes=("SA", "BF", "FA"))
    page.get_by_label("Rounds loaded").fill("40")
    page.get_by_label("Firing mode").select_option("suppressive")
    console.place(page, "aim point x (m)", 20)
    page.locator('#dice-steps input[data-step="suppression"]').fill("6 5 5 1 2 3 4 2 2")
    laid = console.resolve(page)
    zone = laid["result"]["zone"]
    assert zone["suppression"]["hits"] == 3
    assert [a["actor"] for a in zone["affected"] if a["must_test"]] == ["goon-1"]
    # The zone's test: Reaction + Edge against its hits, the numbers from the attack form.
    page.get_by_role("button", name=f"Test an actor against {zone['zone']['id']}").click()
    expect(page.locator("#zone-test-actor")).to_have_value("goon-1")
    expect(page.locator("#zt-defender-ballistic_armor")).to_have_value("6")
    console.give_dice(page, "#zone-test-dice", {"zone_test:goon-1": "5 1 2"})
    with page.expect_request(lambda r: r.url.endswith("/tests")) as sent:
        answer = console.resolve_zone_test(page)
    assert sent.value.post_data_json["defender"]["reaction"] == 3
    result = answer["result"]
    assert (result["threshold"], result["test"]["hits"], result["hit"]) == (3, 1, True)
    on = "#result .zone-test"
    assert console.shown(page, f"{on} [data-field=outcome]") == "hit"
    assert console.shown(page, f"{on} [data-field=boxes]") == str(result["damage"]["boxes"])
    assert console.shown(page, f"{on} [data-field=threshold]") == "3"
    # The actions GET /v1/rulesets lists for sr4; a reload through the action panel.
    offered = page.locator("#action-name option").evaluate_all("os => os.map(o => o.value)")
    assert {"take_aim", "full_defense", "reload", "change_choke", "delay_action"} <= set(offered)
    page.get_by_label("Action", exact=True).select_option("reload")
    page.locator("#action-fields").get_by_label("Weapon id").fill("predator")
    page.get_by_label("Rounds in it after").fill("40")
    with page.expect_request(lambda r: r.url.endswith("/actions")) as sent:
        reloaded = console.take_action(page)
    assert sent.value.post_data_json == {
        "ruleset": "sr4",
        "actor": "sam",
        "action": "reload",
        "weapon": "predator",
        "rounds": 40,
    }
    assert reloaded["result"]["action"] == "reload"
    expect(page.locator("#result")).to_contain_text("reload")


def test_sr4_barriers_typed_in_are_drawn_and_a_bad_one_is_refused_at_its_field(
    page: Page,
) -> None:
    from playwright.sync_api import expect

    console.create_encounter(page, ruleset="sr4", name="Walls")
    sr4_grenade(page, airburst=True)
    barriers = page.get_by_label("Barriers (id: x1 y1 x2 y2 armor/structure [holds|falls]; …)")
    barriers.fill("wall: 11 -5 11 5 8/10 holds")
    barriers.press("Tab")
    wall = '#map .blast line.barrier[data-barrier="wall"]'
    expect(page.locator(wall)).to_have_count(1)
    assert (drawn(page, wall, "x1"), drawn(page, wall, "y1")) == (11, 5)
    with page.expect_request(lambda r: r.url.endswith("/attacks")) as sent:
        answer = console.resolve(page)
    assert sent.value.post_data_json["barriers"] == [
        {
            "id": "wall",
            "start": {"x": 11, "y": -5},
            "end": {"x": 11, "y": 5},
            "armor": 8,
            "structure": 10,
            "holds": True,
        }
    ]
    shielded = {h["actor"]: h["shielded_by"] for h in answer["result"]["blast"]["hits"]}
    for actor, by in shielded.items():
        cell = console.shown(
            page, f'#result .blast-hits tr[data-actor="{actor}"] [data-field=armor]'
        )
        assert ("shielded by wall" in cell) == (by == "wall")
    barriers.fill("wall: 11 -5")
    page.get_by_role("button", name="Resolve attack").click()
    expect(page.locator("#attack-error")).to_contain_text("armor/structure")
    expect(barriers).to_be_focused()


def test_an_sr4_grenade_by_names_reaches_the_scenes_actors_with_their_sheets(
    page: Page, url: str
) -> None:
    from playwright.sync_api import expect

    encounter = console.create_encounter(page, ruleset="sr4", name="By names")
    frag = {"id": "frag", "category": "standard_grenade", "damage": 0, "modes": ["SS"], "ammo": 2}
    sam = {"ruleset": "sr4", "agility": 5, "skill": 3, "weapons": [frag]}
    console.put_actor(page, url, encounter, "sam", {"position": {"x": 0, "y": 0}, "sheet": sam})
    for actor, at in (("goon-7", {"x": 10, "y": 0}), ("goon-8", {"x": 30, "y": 0})):
        goon = {"ruleset": "sr4", "reaction": 3, "body": 4, "impact_armor": 6}
        console.put_actor(page, url, encounter, actor, {"position": at, "sheet": goon})
    page.get_by_role("button", name="Attack with sam").click()
    page.get_by_label("Firing mode").select_option("SS")
    page.locator("#options summary").click()
    page.get_by_label("Grenade", exact=True).select_option("fragmentation")
    page.get_by_label("Airburst link (goes off at once)").check()
    page.get_by_label("Grenade aimed at").select_option("point")
    console.place(page, "aim point x (m)", 10)
    console.place(page, "aim point y (m)", 0)
    console.give_dice(page, "#dice-steps", {"scatter_direction": "1", "scatter": "1"})
    with page.expect_request(lambda r: r.url.endswith("/attacks")) as sent:
        answer = console.resolve(page)
    request = sent.value.post_data_json
    assert (request["attacker"], request["weapon"], request["aim_point"]) == (
        "sam",
        "frag",
        {"x": 10, "y": 0},
    )
    # The scene fills in who the blast may reach: no bystanders sent.
    assert "bystanders" not in request and "targets" not in request
    blast = answer["result"]["blast"]
    reached = {h["actor"]: h for h in blast["hits"]}
    # goon-7 stands by the blast; goon-8, 20 m off, is out of a 12 DV, -1 per metre blast's reach.
    assert "goon-7" in reached and "goon-8" not in reached
    assert reached["goon-7"]["soak"]["pool"] == 4 + reached["goon-7"]["armor"]
    assert "blast-hit" in (page.locator('#map [data-actor="goon-7"]').get_attribute("class") or "")
    assert "blast-hit" not in (
        page.locator('#map [data-actor="goon-8"]').get_attribute("class") or ""
    )
    row = '#result .blast-hits tr[data-actor="goon-7"]'
    expect(page.locator(row + " [data-field=boxes]")).to_have_text(
        f"{reached['goon-7']['boxes']} {reached['goon-7']['track']}"
    )


def test_sr4_has_the_initiative_panel_with_hits_and_counted_passes(page: Page, url: str) -> None:
    from playwright.sync_api import expect

    # GET /v1/rulesets says how sr4's initiative rolls: the hits of Reaction + Intuition dice,
    # in as many passes as the sheet's Initiative Passes.
    encounter = console.create_encounter(page, ruleset="sr4", name="SR4 passes")
    sheet = {"ruleset": "sr4", "reaction": 4, "intuition": 3, "initiative_passes": 2}
    console.put_actor(page, url, encounter, "sam", {"sheet": sheet})
    expect(page.locator('#initiative-rows tr[data-actor="sam"] .sheet')).to_have_text(
        "Reaction 4 + Intuition 3 + hits on 7d6, 2 passes"
    )
    answer = initiative_answer(page, page.get_by_role("button", name="Roll initiative").click)
    [sam] = answer["result"]["entries"]
    assert sam["passes"] == 2 and sam["base"] == 7
    expect(page.locator("#initiative-panel")).to_have_attribute("data-current", "sam")

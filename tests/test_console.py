"""The web console in a real browser (Debian's Chromium through Playwright), against the real
service: what the page shows is what the service answered, and what one page resolves another
page sees live."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlparse

import pytest

from tests import console_browser as console
from tests import sr5_requests as make

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Locator, Page, WebSocketRoute

README_ATTACK = console.README_DICE["attack"]


@pytest.fixture
def browser(chromium: Browser) -> Iterator[Browser]:
    """The worker's Chromium (tests/conftest.py); the contexts a test leaves open are closed
    after it, so that none of its pages (a live feed, a timer) runs beside the next test."""
    yield chromium
    for context in chromium.contexts:
        context.close()


@pytest.fixture
def url(console_service: str) -> str:
    """The worker's service (tests/conftest.py)."""
    return console_service


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
    # A player's own link opens the view of their actor (tests/test_console_phone.py); the
    # tests here play at the full table, one tap away.
    if "player=" in link:
        page.locator("#feed-status[data-state=live]").wait_for(state="attached")
        page.get_by_role("button", name="The full table").click()
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


# Each value chosen in a <select> as Playwright's select_option chooses it (the first option whose
# value or label it is, enabled, then `input` and `change`), the page's handlers left to run (a
# task later), then the inputs without a label: every choice in one call, not two round trips each.
UNLABELLED_AFTER_EACH_JS = (
    """async (select, values) => {
    const unlabelled = """
    + UNLABELLED_JS
    + """;
    if (!select.checkVisibility() || select.disabled) throw new Error("the select is not usable");
    const found = [];
    for (const value of values) {
        const option = [...select.options].find(o => o.value === value || o.label === value);
        if (!option || option.disabled) throw new Error(`no enabled option ${value}`);
        select.value = undefined;
        option.selected = true;
        select.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
        select.dispatchEvent(new Event("change", { bubbles: true }));
        await new Promise(resolve => setTimeout(resolve));
        // Drawn again, the select would be chosen in no more: fail rather than check nothing.
        if (!select.isConnected) throw new Error(`the select was replaced after ${value}`);
        const missing = unlabelled();
        if (missing.length) found.push([value, missing]);
    }
    return found;
}"""
)


def unlabelled_after_each(select: Locator, values: list[str]) -> list[list[object]]:
    """[value, its unlabelled inputs] for each of `values` chosen in `select` that leaves some."""
    found: list[list[object]] = select.evaluate(UNLABELLED_AFTER_EACH_JS, values)
    return found


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
        modes = page.locator("#attack-mode option").evaluate_all(
            "options => options.map(o => o.value)"
        )
        assert unlabelled_after_each(page.get_by_label("Firing mode"), modes) == [], ruleset
        # Each action's own fields (the zone test's are in the page already, hidden).
        actions = page.locator("#action-name option").evaluate_all(
            "options => options.map(o => o.value)"
        )
        assert unlabelled_after_each(page.get_by_label("Action", exact=True), actions) == [], (
            ruleset
        )
        # The check saw the whole form: attacker, weapon, two targets, options, dice.
        assert page.evaluate(count_js) > 30
        # The roster's actor form, with its sheet and weapon; saved, then opened again, it holds
        # what it sent (a d100 weapon's range bands too).
        page.get_by_role("button", name="Add an actor").click()
        assert page.evaluate(unlabelled_js) == [], (ruleset, "roster")
        sent = console.save_actor(page)["result"]["state"]
        page.get_by_role("button", name="Edit actor-1").click()
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


def test_the_console_works_with_the_keyboard_alone(page: Page) -> None:
    from playwright.sync_api import expect

    console.tab_to(page, "#create-admin-key")
    page.keyboard.type(console.ADMIN_KEY)
    console.tab_to(page, "#create-name")
    page.keyboard.type("Keyboard")
    page.keyboard.press("Enter")
    expect(page.locator("#feed-status")).to_have_attribute("data-state", "live")
    # The typed-in sheet, chosen by keys (the option after "nobody yet").
    console.tab_to(page, "#scene-attacker")
    page.keyboard.press("ArrowDown")
    expect(page.locator("#scene-attacker")).to_have_value("typed")
    # Move the target on the map by keys: 12 m -> 17 m.
    console.tab_to(page, '#map g[data-actor="goon-1"]')
    page.keyboard.press("Shift+ArrowRight")
    expect(page.locator('fieldset.target[data-target="goon-1"] output')).to_have_text("17")
    # Open the options and pick the smartlink by keys.
    console.tab_to(page, "#options summary")
    page.keyboard.press("Enter")
    console.tab_to(page, "#option-smartlink")
    page.keyboard.press("End")
    expect(page.locator("#option-smartlink")).to_have_value("wireless_implant")
    console.tab_to(page, '#dice-steps input[data-step="attack"]')
    page.keyboard.type("6 6 6 6 6 6 6 6 6 6 6 6 6")
    console.tab_to(page, "#resolve")
    with page.expect_response(lambda r: r.url.endswith("/attacks")) as answer:
        page.keyboard.press("Enter")
    result = answer.value.json()["result"]
    assert result["targets"][0]["range"] == "medium"
    assert result["targets"][0]["attack_hits_before_limit"] == 13
    expect(page.locator("#result-summary")).to_contain_text("goon-1")
    expect(page.locator('#result [data-field="pool"]')).to_have_text(str(result["pool"]))
    # The feed's entries open by keyboard too.
    console.tab_to(page, "#feed li[data-type=attack] button")
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
        # goon-1 is the GM's typed-in target, not on the scene: the player's map has nobody
        # inside (it never draws another page's typed-in actors).
        for shown_on, inside_now in ((page, "goon-1"), (player, "nobody")):
            drawn = shown_on.locator('#map g.zone[data-zone="zone-1"] polygon')
            expect(drawn).to_have_count(1)
            assert drawn.get_attribute("points") == "0,0 20,-5 20,5"
            expect(shown_on.locator('#zone-list li[data-zone="zone-1"] .inside')).to_have_text(
                f"Inside now: {inside_now}."
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

        # Duplicate: the same sheet and weapon, a free id, two metres below (its label clear).
        page.get_by_role("button", name="Duplicate goon-7").click()
        copy = page.locator("#roster-id").input_value()
        assert copy != "goon-7"
        duplicated = console.save_actor(page)["result"]["state"]
        assert duplicated["sheet"] == console.scene(page, url, encounter)["goon-7"]["sheet"]
        assert duplicated["position"] == {"x": 20.0, "y": -5.0}
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
        expect(anna.locator("#scene-attacker option")).to_have_count(3)
        assert anna.locator("#scene-attacker option").evaluate_all(
            "options => options.map(o => o.value)"
        ) == ["", "typed", "sam"]
        assert anna.get_by_role("button", name="Attacker: goon-2").count() == 0

        # Picked from the roster: the form holds only the mode, options and dice.
        # Her link plays one armed actor: her page attacks with it without asking.
        console.wait_picked(anna, "sam")
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
        anna.locator("#scene-attacker").select_option("typed")
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
    console.put_d100_vex_and_ganger(page, url, encounter)
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

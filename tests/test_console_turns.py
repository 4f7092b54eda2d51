"""The web console in a real browser: d100 attacks and zones, zone tests from the zones list,
the GM's turns seen live on a player's page, and the initiative the service runs; what the page
shows is what the service answered (tests/test_console.py has the console's common paths)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlparse

from tests import console_browser as console
from tests.test_console import GOON, SAM, UNLABELLED_JS, browser, page, player_page, url

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

__all__ = ["browser", "page", "url"]


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
        # A player token typed into Join: the encounter's view says whose it is, so the turn
        # controls never show (tests/test_console_table.py watches that from the first paint).
        token = parse_qs(urlparse(console.player_link(page)).fragment)["token"][0]
        player.locator("#leave").click()
        player.get_by_label("Encounter id").fill(console.shown(page, "#info-id"))
        player.get_by_label("Token (GM or player)").fill(token)
        player.get_by_role("button", name="Join encounter").click()
        expect(player.locator("#feed-status")).to_have_attribute("data-state", "live")
        expect(player.locator("#turn-panel")).to_be_hidden()
        expect(player.get_by_role("button", name=advance)).to_have_count(0)
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


def test_a_score_being_typed_keeps_its_field_when_the_scene_changes(page: Page, url: str) -> None:
    """The roll form redraws its rows when the scene changes (a player moves a token): the GM
    typing a score at that moment goes on typing into the same actor's field, the text kept
    and the focus with it, not into a row the page no longer shows."""
    from playwright.sync_api import expect

    encounter = console.create_encounter(page, name="Typing")
    console.put_actor(page, url, encounter, "sam", SAM)
    goon = {"position": {"x": 12, "y": 0}, "sheet": GOON}
    console.put_actor(page, url, encounter, "goon-1", goon)
    expect(page.locator("#initiative-rows tr[data-actor]")).to_have_count(2)
    score = page.get_by_label("goon-1: score rolled at the table")
    score.click()
    page.keyboard.type("1")
    row = page.locator('#initiative-rows tr[data-actor="goon-1"]').element_handle()
    console.put_actor(page, url, encounter, "goon-1", {**goon, "position": {"x": 10, "y": 0}})
    page.wait_for_function("row => !row.isConnected", arg=row)
    page.keyboard.type("2")
    expect(score).to_have_value("12")
    expect(score).to_be_focused()


def test_a_position_being_typed_is_taken_when_the_scene_changes(page: Page, url: str) -> None:
    """The map's positions table is drawn again when the scene changes (another actor moves):
    a coordinate the GM is typing at that moment keeps its field and the focus, and leaving the
    field with Tab moves the token (a full run lost such a move: the redraw took the focus, and
    leaving the field sent nothing)."""
    from playwright.sync_api import expect

    encounter = console.create_encounter(page, name="Typing a position")
    console.put_actor(page, url, encounter, "sam", SAM)
    goon = {"position": {"x": 12, "y": 0}, "sheet": GOON}
    console.put_actor(page, url, encounter, "goon-1", goon)
    field = page.get_by_label("goon-1 x (m)")
    expect(field).to_have_value("12")
    field.fill("17")
    moved_sam = {**SAM, "position": {"x": 3, "y": 4}}
    console.put_actor(page, url, encounter, "sam", moved_sam)
    expect(page.get_by_label("sam y (m)")).to_have_value("4")
    expect(field).to_be_focused()
    expect(field).to_have_value("17")
    with page.expect_request(lambda r: r.url.endswith("/actors/goon-1/move")) as moved:
        page.keyboard.press("Tab")
    assert (moved.value.post_data_json or {})["position"]["x"] == 17
    expect(page.locator('#map g[data-actor="goon-1"]')).to_have_count(1)

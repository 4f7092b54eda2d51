"""The web console in a real browser with Shadowrun 3 and 4 encounters: every target number
with its sources and the Combat Pool left (sr3), SR4's bursts, grenades with their scatter and
blast, barriers, zone tests and the initiative with counted passes; what the page shows is what
the service answered (tests/test_console.py has the console's common paths and SR5/d100)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from tests import console_browser as console
from tests.test_console import browser, page, player_page, url
from tests.test_console_turns import initiative_answer

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

__all__ = ["browser", "page", "url"]


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
    page.get_by_role("button", name="Attacker: sam").click()
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
    page.get_by_role("button", name="Attacker: sam").click()
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

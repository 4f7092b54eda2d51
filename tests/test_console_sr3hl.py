"""Hard Life (`sr3-hardlife`) in the web console, in a real browser against the real service: the
called shot picked on the body map, the shot's result drawn on it (each round's scatter path and
landing hex) with every armour test, damage test and wound as answered, the monitors panel of
every actor live on the GM's and a player's console with the GM's recovery roll, and suppression
fire over an area clicked on the map, drawn as a polygon zone whose test a move asks for. The
GM's edits in the monitors panel: tests/test_console_sr3hl_panel.py.

The numbers worked by hand come from 004_afd6299c3d537f5c.txt ("004"), its Carter example, with
the decisions of rules-sources/README.md."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import pytest

from tests import console_browser as console
from tests.test_console import browser, page, url

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

# The browser, the served console and a fresh page: tests/test_console.py's own.
__all__ = ["browser", "page", "url"]


def sent_body(request: Any) -> dict[str, Any]:
    body = request.post_data_json
    assert isinstance(body, dict), body
    return body


def player_page(browser: Browser, link: str) -> Page:
    """A second browser (own storage, as a player's machine) opened on the player link."""
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    opened = context.new_page()
    opened.set_default_timeout(15_000)
    opened.goto(link)
    opened.locator("#feed-status[data-state=live]").wait_for()
    return opened


def hardlife(page: Page, name: str = "Hard Life") -> str:
    encounter = console.create_encounter(page, ruleset="sr3-hardlife", name=name)
    page.locator("#called-shot-map .hex").first.wait_for()
    return encounter


def centre(q: int, r: int) -> tuple[float, float]:
    """A flat-topped hex's centre (schemas/sr3hl.py, BodyHex): x = 1.5 q, y = sqrt(3) (r + q/2)."""
    return 1.5 * q, math.sqrt(3) * (r + q / 2)


def click_map(page: Page, x: float, y: float) -> None:
    """A click on the scene map at (x, y) metres (y up)."""
    page.locator("#map").scroll_into_view_if_needed()
    at = page.evaluate(
        """([x, y]) => {
            const svg = document.getElementById("map");
            const p = new DOMPoint(x, -y).matrixTransform(svg.getScreenCTM());
            return [p.x, p.y];
        }""",
        [x, y],
    )
    page.mouse.click(at[0], at[1])


def fill_target(page: Page, fields: dict[str, str]) -> None:
    target = page.locator('fieldset.target[data-target="goon-1"]')
    for label, value in fields.items():
        target.get_by_label(label, exact=True).fill(value)
    target.get_by_label(next(iter(fields)), exact=True).press("Tab")


# --- the form -------------------------------------------------------------------------------


def test_the_called_shot_is_picked_on_the_served_body_map_by_keyboard(page: Page, url: str) -> None:
    from playwright.sync_api import expect

    hardlife(page)
    served = page.request.get(f"{url}/v1/rulesets/sr3-hardlife").json()["body_map"]
    hexes = page.locator("#called-shot-map .hex")
    # Every hex the service serves is drawn once, where its numbers put it.
    assert hexes.count() == len(served["hexes"])
    pairs = hexes.evaluate_all("hs => hs.map(h => [h.dataset.hex, h.dataset.location])")
    drawn = {(hex_id, location) for hex_id, location in pairs}
    assert drawn == {(f"{h['q']},{h['r']}", h["location"]) for h in served["hexes"]}
    assert {h["location"] for h in served["hexes"]} == {
        "head", "vitals", "torso", "groin", "right_arm", "left_arm", "right_hand", "left_hand",
        "right_thigh", "left_thigh", "right_leg", "left_leg", "right_foot", "left_foot",
    }  # fmt: skip
    # Tab to the left hand's hex and press Enter: the called shot is the left hand.
    console.tab_to(page, '[data-location="left_hand"]', limit=400)
    page.keyboard.press("Enter")
    expect(page.locator("#option-called_shot")).to_have_value("left_hand")
    expect(page.locator('#called-shot-map [data-location="left_hand"]')).to_have_attribute(
        "aria-pressed", "true"
    )
    expect(page.locator("#called-shot-map .hex.picked")).to_have_count(
        sum(1 for h in served["hexes"] if h["location"] == "left_hand")
    )
    # The select says the same, and picking "none" there clears the map.
    page.locator("#option-called_shot").select_option("")
    expect(page.locator("#called-shot-map .hex.picked")).to_have_count(0)
    page.locator('#called-shot-map [data-location="head"]').first.click()
    with page.expect_request(lambda r: r.url.endswith("/attacks")) as sent:
        page.get_by_role("button", name="Resolve attack").click()
    request = sent_body(sent.value)
    assert request["ruleset"] == "sr3-hardlife" and request["called_shot"] == "head"
    assert request["target"]["defender"]["armor"] == [{"garment": "jacket"}]
    assert request["target"]["dodge"] == {
        "combat_pool": 0,
        "dodge_pool": 0,
        "prone": False,
        "visibility": {"vision": "normal", "light": "full", "obscurant": "none"},
    }
    assert "suppression" not in request


def test_suppression_fire_takes_its_area_from_clicks_on_the_map(page: Page) -> None:
    from playwright.sync_api import expect

    hardlife(page, "Suppression form")
    page.get_by_label("Firing mode").select_option("suppression")
    # An area, not a location: the called shot goes, the area's fields show.
    expect(page.locator("#called-shot-map")).to_be_hidden()
    expect(page.get_by_label("Bullets per square metre")).to_be_visible()
    for x, y in ((10, -3), (16, -3), (16, 3), (10, 3)):
        click_map(page, x, y)
    area = page.get_by_label("Suppressed area (corners x y; …, m)")
    expect(area).to_have_value("10 -3; 16 -3; 16 3; 10 3")
    # The corners so far are drawn, y up on the map (-y in the SVG).
    expect(page.locator("#map polygon.draft-area")).to_have_attribute(
        "points", "10,3 16,3 16,-3 10,-3"
    )
    page.get_by_label("Bullets per square metre").fill("2")
    page.locator("#weapon-modes-FA").check()
    # 2 bullets on each of 36 m2 are 72 rounds: more than the 15 loaded, refused at the field.
    with page.expect_response(lambda r: r.url.endswith("/attacks")) as answered:
        page.get_by_role("button", name="Resolve attack").click()
    assert answered.value.status == 422
    assert answered.value.json()["path"] == "$.weapon.ammo"
    expect(page.locator("#attack-error")).to_contain_text("72 rounds")
    expect(page.get_by_label("Rounds loaded")).to_be_focused()
    page.get_by_label("Rounds loaded").fill("100")
    with page.expect_request(lambda r: r.url.endswith("/attacks")) as sent:
        page.get_by_role("button", name="Resolve attack").click()
    request = sent_body(sent.value)
    assert request["mode"] == "FA"
    assert request["suppression"] == {
        "bullets_per_m2": 2,
        "area": [{"x": 10, "y": -3}, {"x": 16, "y": -3}, {"x": 16, "y": 3}, {"x": 10, "y": 3}],
    }
    assert "target" not in request and "called_shot" not in request
    page.locator("#result .zone-result").wait_for()
    # Two corners are no area: refused at the field before anything is sent.
    area.fill("1 1; 2 2")
    page.get_by_role("button", name="Resolve attack").click()
    expect(page.locator("#attack-error")).to_contain_text("at least 3 corners")
    expect(area).to_be_focused()


# --- the shot, through the service ------------------------------------------------------------
# 004's Carter example: the HK 45 (9M) at a security goon 4 m away (heavy pistol, short: TN 4).
# 8 dice 6 6 5 5 4 4 4 2: 7 successes; the goon's 3 Combat Pool dice 5 4 2 dodge 2 (TN 4): 5 net,
# no scatter (Table 1, 4+), the torso. The jacket's torso row (Table 7, 6/4): 6 dice against
# 9 - 6 = 3, 6 5 3 2 1 1: 3 successes, under M's soak number 4 (Table 2): it penetrates. Damage:
# 9 + 1 (Table 3, 5 net) = 10 dice, 1 1 2 3 4 4 4 5 5 6: 6 successes - 2 ones + 1 six = 5, less the
# armour's 3 = 2 net: one stage, M -> S. Stun: half Power 4 less impact 4, TN 2 at least: Body 4,
# 3 2 1 1: 2 successes, the base M staged down one: L; Table 4's M row at 2: knocked back 3 m.
# Monitors: the torso S (6 boxes, Table 6 +0), the trauma monitor S (shift 0), the torso's stun L
# (1 box). Recovery: Willpower 4 against 2 + 3 (S) + 1 (L stun) = 6, 6 3 2 1: 1 success of the 3
# S needs (Table 5): failed.
CARTER_DICE = {
    "attack": "6 6 5 5 4 4 4 2",
    "dodge:goon-1": "5 4 2",
    "armor:goon-1": "6 5 3 2 1 1",
    "damage:goon-1": "1 1 2 3 4 4 4 5 5 6",
    "stun:goon-1": "3 2 1 1",
    "recovery:goon-1": "6 3 2 1",
}


def carters_shot(page: Page) -> dict[str, Any]:
    page.get_by_label("Attacker id").fill("carter")
    page.get_by_label("Attacker id").press("Tab")
    page.get_by_label("Weapon skill").fill("8")
    page.get_by_label("Weapon id").fill("hk45")
    page.get_by_label("Rounds loaded").fill("12")
    console.place(page, "goon-1 x (m)", 4)
    fill_target(page, {"Willpower": "4", "Combat Pool dice to dodge": "3"})
    console.give_dice(page, "#dice-steps", CARTER_DICE)
    return console.resolve(page)


def test_carters_shot_on_the_body_map_with_every_test_as_answered(page: Page) -> None:
    from playwright.sync_api import expect

    hardlife(page, "Carter")
    answer = carters_shot(page)
    result = answer["result"]
    target = result["target"]
    # The numbers worked by hand from 004 ...
    assert (result["attack"]["target_number"], result["attack"]["successes"]) == (4, 7)
    assert (target["dodge_successes"], target["net_successes"]) == (2, 5)
    [landed] = target["rounds"]
    assert landed["location"] == "torso" and landed["scatter"]["hexes"] == 0
    [hit] = target["hits"]
    [armor] = hit["armor"]
    assert (armor["rating"], armor["test"]["target_number"], armor["test"]["successes"]) == (
        6,
        3,
        3,
    )
    assert (armor["soak"], armor["stopped"]) == (4, False)
    [damage] = hit["damage"]
    # Six dice of 4 or more, two ones and a six: 6 - 2 + 1 = 5, less the armour's 3.
    assert (damage["dice"], damage["successes"], damage["ones"], damage["sixes"]) == (10, 6, 2, 1)
    assert (damage["armor_successes"], damage["net"], damage["level"]) == (3, 2, "S")
    stun = hit["stun"]
    assert (stun["resist"]["target_number"], stun["resist"]["successes"]) == (2, 2)
    assert (stun["level"], stun["knock_back"], stun["metres"]) == ("L", "knocked_back", 3)
    wounds = {(w["monitor"], w["track"]): w for w in hit["wounds"]}
    assert (wounds["torso", "physical"]["level"], wounds["torso", "physical"]["boxes_now"]) == (
        "S",
        6,
    )
    assert wounds["trauma", "physical"]["level"] == "S"
    assert wounds["torso", "stun"]["level"] == "L"
    recovery = target["recovery"]
    assert (recovery["test"]["target_number"], recovery["needed"], recovery["passed"]) == (
        6,
        3,
        False,
    )
    assert (target["knock_back"], target["knock_back_m"]) == ("knocked_back", 3)

    # ... and the page shows the service's numbers.
    shown = console.shown
    on = '#result [data-target="goon-1"]'
    for field in ("range", "attack_successes", "dodge_successes", "net_successes"):
        assert shown(page, f"{on} > dl [data-field={field}]") == str(target[field]), field
    assert shown(page, f"{on} > dl [data-field=knock_back]") == "knocked back 3 m"
    row = f'{on} [data-field=rounds] tr[data-round="1"]'
    assert shown(page, f"{row} [data-field=target_number]") == str(landed["target_number"])
    assert shown(page, f"{row} [data-field=successes]") == str(landed["successes"])
    assert shown(page, f"{row} [data-field=scatter]") == "none"
    assert shown(page, f"{row} [data-field=landed]").startswith("torso")
    # On the body map: the torso's hexes marked hit, the landing hex ringed where it landed.
    expect(page.locator(f"{on} .body-map .hex.hit").first).to_have_attribute(
        "data-location", "torso"
    )
    assert {
        h.get_attribute("data-location") for h in page.locator(f"{on} .body-map .hex.hit").all()
    } == {"torso"}
    ring = page.locator(f'{on} .body-map .round-path[data-round="1"] circle.landed')
    q, r = landed["scatter"]["landed"]["q"], landed["scatter"]["landed"]["r"]
    assert ring.get_attribute("data-landed") == f"{q},{r}"
    x, y = centre(q, r)
    assert float(ring.get_attribute("cx") or "nan") == pytest.approx(x, abs=1e-3)
    assert float(ring.get_attribute("cy") or "nan") == pytest.approx(y, abs=1e-3)
    loc = f'{on} section.location-hit[data-location="torso"]'
    armor_row = f'{loc} [data-field=armor-tests] tr[data-armor-test="0"]'
    for field, value in (
        ("rating", armor["rating"]),
        ("target_number", armor["test"]["target_number"]),
        ("successes", armor["test"]["successes"]),
        ("soak", armor["soak"]),
        ("degraded", armor["degraded"]),
        ("rating_after", armor["rating_after"]),
    ):
        assert shown(page, f"{armor_row} [data-field={field}]") == str(value), field
    assert shown(page, f"{armor_row} [data-field=stopped]") == "penetrated"
    damage_row = f'{loc} [data-field=damage-tests] tr[data-round="1"]'
    for field in ("dice", "successes", "ones", "sixes", "armor_successes", "net", "level"):
        assert shown(page, f"{damage_row} [data-field={field}]") == str(damage[field]), field
    assert shown(page, f"{damage_row} [data-field=totals]") == ", ".join(map(str, damage["totals"]))
    assert shown(page, f"{loc} [data-field=stun_level]") == "L"
    for w in hit["wounds"]:
        monitor, track = w["monitor"], w["track"]
        wound_row = f'{loc} [data-field=wounds] tr[data-monitor="{monitor}"][data-track="{track}"]'
        for field in ("level", "boxes", "boxes_now", "level_now"):
            assert shown(page, f"{wound_row} [data-field={field}]") == str(w[field]), field
    assert shown(page, f"{on} [data-field=recovery_needed]") == "3"
    assert shown(page, f'{on} [data-test="recovery"] [data-field=successes]') == "1"
    assert console.shown_dice(page) == console.answered_dice(result["dice"])
    expect(page.locator("#result-summary")).to_have_text(
        "carter fires hk45 (SA, TN 4): goon-1 hit (torso S, torso L stun), knocked back 3 m,"
        " loses the next action."
    )


def test_the_monitors_follow_every_hit_live_and_the_gm_rolls_what_is_due(
    page: Page, browser: Browser, url: str
) -> None:
    from playwright.sync_api import expect

    hardlife(page, "Monitors")
    player = player_page(browser, console.player_link(page))
    answer = carters_shot(page)
    target = answer["result"]["target"]
    for seen in (page, player):
        goon = seen.locator('#monitors-list li[data-actor="goon-1"]')
        torso = goon.locator('tr[data-monitor="torso"]')
        # 6 physical boxes (S) and 1 stun (L) on the torso, 6 (S) on the trauma monitor.
        expect(torso.locator("[data-field=physical]")).to_have_text("6")
        expect(torso.locator("[data-field=physical_level]")).to_have_text("S")
        expect(torso.locator("[data-field=stun]")).to_have_text("1")
        expect(torso.locator("[data-field=stun_level]")).to_have_text("L")
        trauma = goon.locator('tr[data-monitor="trauma"]')
        expect(trauma.locator("[data-field=physical]")).to_have_text("6")
        expect(goon.locator('tr[data-monitor="head"] [data-field=physical]')).to_have_text("0")
        # What it means: the service's condition, and the recovery roll due again.
        condition = target["condition"]
        expect(goon.locator("p.condition")).to_contain_text(
            f"TN modifier +{condition['target_number_modifier']}"
        )
        expect(goon.locator("[data-field=due]")).to_contain_text("recovery roll due (against S)")
        # The jacket it wears now, worn 3 on the torso (004: 2 for S, +1 as it penetrated).
        expect(goon.locator('[data-field=armor] tr[data-piece="0"] th')).to_have_text("jacket")
        expect(
            goon.locator('[data-field=armor] tr[data-piece="0"] [data-field=wear]')
        ).to_have_text("torso 3")
    # The GM rolls it from the panel; a player's console has no such button.
    expect(player.get_by_role("button", name="Recovery roll: goon-1")).to_be_hidden()
    roll = page.get_by_role("button", name="Recovery roll: goon-1")
    # The goon was typed in (no sheet on the scene): its Willpower is typed beside the button.
    page.get_by_label("Willpower of goon-1 (empty: the sheet's)").fill("4")
    with page.expect_request(lambda r: r.url.endswith("/actions")) as sent:
        answered = console.post_from(page, "/actions", roll.click)
    assert sent_body(sent.value) == {
        "ruleset": "sr3-hardlife",
        "actor": "goon-1",
        "action": "recovery_roll",
        "willpower": 4,
    }
    assert answered["result"]["action"] == "recovery_roll"
    assert [d["step"] for d in answered["result"]["dice"]] == ["recovery:goon-1"]
    expect(page.locator("#result [data-kind=action]")).to_be_visible()
    # The GM heals the torso by hand (PUT .../state, what the table decided): both consoles
    # follow the state_edited event.
    encounter = page.locator("#info-id").inner_text()
    headers = {"Authorization": f"Bearer {console.gm_token(page)}"}
    combat = page.request.get(f"{url}/v1/encounters/{encounter}", headers=headers).json()["combat"]
    combat["actors"]["goon-1"]["monitors"]["torso"] = {"stun": 1}
    edited = page.request.put(
        f"{url}/v1/encounters/{encounter}/state",
        headers=headers,
        data={"combat": combat, "reason": "first aid"},
    )
    assert edited.ok, edited.text()
    for seen in (page, player):
        torso = seen.locator('#monitors-list li[data-actor="goon-1"] tr[data-monitor="torso"]')
        expect(torso.locator("[data-field=physical]")).to_have_text("0")
        expect(torso.locator("[data-field=physical_level]")).to_have_text("—")
        expect(torso.locator("[data-field=stun]")).to_have_text("1")
    player.close()


def test_a_called_shot_at_the_head_scatters_down_the_body_and_draws_its_path(page: Page) -> None:
    hardlife(page, "Called shot")
    # The head's aim point is column 2, row 1: axial (2, 0). The called shot adds 4 to the TN
    # (short range 4 + 4 = 8): 6 rolls again and adds 2 (Rule of Six), 8: one success, no dodge,
    # 1 net: Table 1 scatters 3 hexes; the scatter die 4 is straight down (0, +1) three times:
    # (2, 1) head, (2, 2) vitals, (2, 3) the torso, where it lands.
    page.locator('#called-shot-map [data-location="head"]').first.click()
    console.place(page, "goon-1 x (m)", 4)
    console.give_dice(page, "#dice-steps", {"attack": "6 2 3 1 2", "scatter:goon-1": "4"})
    result = console.resolve(page)["result"]
    target = result["target"]
    assert result["attack"]["target_number"] == 8
    assert {"source": "called shot", "value": 4} in result["attack"]["modifiers"] or any(
        "called" in m["source"] for m in result["attack"]["modifiers"]
    )
    [landed] = target["rounds"]
    scatter = landed["scatter"]
    assert scatter["aim"] == {"q": 2, "r": 0}
    assert (scatter["hexes"], scatter["direction"]) == (3, 4)
    assert scatter["path"] == [{"q": 2, "r": 1}, {"q": 2, "r": 2}, {"q": 2, "r": 3}]
    assert (scatter["location"], landed["location"], target["aim"]) == ("torso", "torso", "head")
    on = '#result [data-target="goon-1"]'
    path = page.locator(f'{on} .body-map .round-path[data-round="1"] polyline.path')
    points = [
        tuple(float(n) for n in pair.split(","))
        for pair in (path.get_attribute("points") or "").split()
    ]
    expected = [centre(2, 0), centre(2, 1), centre(2, 2), centre(2, 3)]
    assert len(points) == len(expected)
    for drawn, want in zip(points, expected, strict=True):
        assert drawn == pytest.approx(want, abs=1e-3)
    row = f'{on} [data-field=rounds] tr[data-round="1"]'
    assert console.shown(page, f"{row} [data-field=scatter]") == "3 hexes in direction 4"
    assert console.shown(page, f"{row} [data-field=landed]") == "torso (2, 3)"


# --- suppression fire, through the service ---------------------------------------------------


def test_suppression_fire_is_a_polygon_zone_and_a_move_into_it_asks_for_its_test(
    page: Page, url: str
) -> None:
    from playwright.sync_api import expect

    encounter = hardlife(page, "Suppression")
    rifle = {
        "id": "ak97",
        "category": "assault_rifle",
        "power": 8,
        "damage_level": "M",
        "modes": ["SA", "BF", "FA"],
        "ammo": 200,
    }
    sheet = {"ruleset": "sr3-hardlife", "skill": 5, "body": 4, "willpower": 4, "weapons": [rifle]}
    console.put_actor(page, url, encounter, "pete", {"position": {"x": 0, "y": 0}, "sheet": sheet})
    goon = {"ruleset": "sr3-hardlife", "body": 4, "willpower": 3, "armor": [{"garment": "vest"}]}
    console.put_actor(
        page, url, encounter, "whisper", {"position": {"x": 30, "y": 8}, "sheet": goon}
    )
    page.locator('#map g[data-actor="whisper"]').wait_for()
    # Every actor of the scene has its monitors listed, empty before anything hits it.
    for actor in ("pete", "whisper"):
        listed = page.locator(f'#monitors-list li[data-actor="{actor}"]')
        expect(listed.locator('tr[data-monitor="trauma"] [data-field=physical]')).to_have_text("0")
        expect(listed.locator("[data-field=armor]")).to_contain_text("not hit yet")
    page.get_by_label("Attacker (from the roster)").select_option("pete")
    page.get_by_label("Firing mode").select_option("suppression")
    for x, y in ((10, -3), (16, -3), (16, 3), (10, 3)):
        click_map(page, x, y)
    page.get_by_label("Bullets per square metre").fill("1")
    laid = console.resolve(page)["result"]
    zone = laid["suppression"]["zone"]
    # 6 m x 6 m: 36 m2 at 1 bullet each.
    assert (zone["shape"], laid["suppression"]["area_m2"]) == ("polygon", 36)
    drawn = page.locator(f'#map g.zone[data-zone="{zone["id"]}"] polygon')
    expect(drawn).to_have_attribute("points", "10,3 16,3 16,-3 10,-3")
    item = page.locator(f'#zone-list li[data-zone="{zone["id"]}"]')
    expect(item).to_contain_text("1 bullets per m², area (10, -3) (16, -3) (16, 3) (10, 3)")
    expect(item.locator(".inside")).to_have_text("Inside now: nobody.")
    # Whisper walks into the area: the move's answer asks for the test, and the form opens on
    # it for that zone.
    console.place(page, "whisper y (m)", 0)
    expect(page.locator("#zone-test-form")).to_be_hidden()
    with page.expect_response(
        lambda r: (
            r.url.endswith("/actors/whisper/move")
            and (r.request.post_data_json or {}).get("position", {}).get("x") == 12
        )
    ) as moved:
        console.place(page, "whisper x (m)", 12)
    assert moved.value.json()["result"]["must_test"] == [zone["id"]]
    expect(item.locator(".inside")).to_have_text("Inside now: whisper.")
    expect(page.locator("#zone-test-form")).to_be_visible()
    expect(page.locator("#zone-test-zone")).to_have_text(zone["id"])
    expect(page.locator("#zone-test-actor")).to_have_value("whisper")
    with page.expect_request(lambda r: r.url.endswith(f"/zones/{zone['id']}/tests")) as sent:
        tested = console.resolve_zone_test(page)
    request = sent_body(sent.value)
    assert request["ruleset"] == "sr3-hardlife" and request["actor"] == "whisper"
    # 12 m from Pete at (0, 0): the distance Table 9's range band is read from.
    assert request["distance_m"] == 12
    result = tested["result"]
    assert result["kind"] == "sr3_hardlife_zone_test"
    on = "#result .zone-test"
    assert console.shown(page, f"{on} > dl [data-field=successes]") == str(
        result["attack"]["successes"]
    )
    assert console.shown_dice(page) == console.answered_dice(result["dice"])


def test_whispers_full_auto_draws_each_rounds_path_and_groups_the_locations(page: Page) -> None:
    hardlife(page, "Whisper")
    # 004's Whisper: 5 rounds of full auto from an Ingram (RC 2): rounds 1-3 at the base TN 4,
    # the 4th at 5, the 5th at 6. Dice 4 4 4 4 5 5 6; Pete dodges at 4 + 1 (5 rounds: +1 per 3)
    # with one die, 5: one success, which takes the highest die, the 6. Each die counts for the
    # tier it reaches and the next does not: rounds 1-3 share the four 4s (4 successes: no
    # scatter, the torso's aim hex (2, 2)); round 4 has the two 5s (2 successes: Table 1 scatters
    # 2 hexes; the die 2 is up and right, (+1, -1) twice, from where round 3 landed: (3, 1) the
    # torso, (4, 0) the left arm); round 5 has nothing left: a miss.
    page.get_by_label("Weapon skill").fill("7")
    page.get_by_label("Weapon id").fill("ingram")
    page.get_by_label("Category").select_option("smg")
    page.get_by_label("Power", exact=True).fill("7")
    page.locator("#weapon-modes-SA").uncheck()
    page.locator("#weapon-modes-FA").check()
    page.get_by_label("Recoil compensation").fill("2")
    page.get_by_label("Rounds loaded").fill("30")
    page.get_by_label("Firing mode").select_option("FA")
    page.get_by_label("Rounds fired (BF, FA)").fill("5")
    console.place(page, "goon-1 x (m)", 4)
    fill_target(page, {"Combat Pool dice to dodge": "1"})
    given = {"attack": "4 4 4 4 5 5 6", "dodge:goon-1": "5", "scatter:goon-1": "2"}
    console.give_dice(page, "#dice-steps", given)
    with page.expect_request(lambda r: r.url.endswith("/attacks")) as sent:
        result = console.resolve(page)["result"]
    assert (sent_body(sent.value)["mode"], sent_body(sent.value)["rounds"]) == ("FA", 5)
    target = result["target"]
    assert result["rounds_fired"] == 5
    assert (target["dodge"]["target_number"], target["dodge_successes"]) == (5, 1)
    rounds = target["rounds"]
    assert [r["target_number"] for r in rounds] == [4, 4, 4, 5, 6]
    assert [r["successes"] for r in rounds] == [4, 4, 4, 2, 0]
    assert [r["location"] for r in rounds] == ["torso", "torso", "torso", "left_arm", None]
    fourth = rounds[3]["scatter"]
    assert (fourth["aim"], fourth["hexes"], fourth["direction"]) == ({"q": 2, "r": 2}, 2, 2)
    assert fourth["path"] == [{"q": 3, "r": 1}, {"q": 4, "r": 0}]
    assert {h["location"]: h["rounds"] for h in target["hits"]} == {
        "torso": [1, 2, 3],
        "left_arm": [4],
    }
    on = '#result [data-target="goon-1"]'
    # Every round in the table as answered; the 4th's path drawn through the hexes it crossed.
    for r in rounds:
        row = f'{on} [data-field=rounds] tr[data-round="{r["round"]}"]'
        assert console.shown(page, f"{row} [data-field=target_number]") == str(r["target_number"])
        assert console.shown(page, f"{row} [data-field=successes]") == str(r["successes"])
        assert console.shown(page, f"{row} .outcome") == r["outcome"]
    row = f'{on} [data-field=rounds] tr[data-round="4"]'
    assert console.shown(page, f"{row} [data-field=landed]") == "left arm (4, 0)"
    path = page.locator(f'{on} .body-map .round-path[data-round="4"] polyline.path')
    points = [
        tuple(float(n) for n in pair.split(","))
        for pair in (path.get_attribute("points") or "").split()
    ]
    expected = [centre(2, 2), centre(3, 1), centre(4, 0)]
    assert len(points) == len(expected)
    for drawn, want in zip(points, expected, strict=True):
        assert drawn == pytest.approx(want, abs=1e-3)
    hit_locations = {
        h.get_attribute("data-location") for h in page.locator(f"{on} .body-map .hex.hit").all()
    }
    assert hit_locations == {"torso", "left_arm"}
    # One label per hex landed on: rounds 1-3 on (2, 2), the 4th on (4, 0).
    labels = page.locator(f"{on} .body-map text.round-label")
    assert {
        (labels.nth(i).get_attribute("data-landed"), labels.nth(i).text_content())
        for i in range(labels.count())
    } == {("2,2", "1, 2, 3"), ("4,0", "4")}
    assert page.locator(f"{on} section.location-hit").count() == 2
    torso = f'{on} section.location-hit[data-location="torso"]'
    assert console.shown(page, f"{torso} h5").endswith("rounds 1, 2, 3")


def test_a_deadly_head_shot_asks_for_the_consciousness_test_the_gm_rolls(page: Page) -> None:
    from playwright.sync_api import expect

    hardlife(page, "Deadly")
    # A called shot at the head (TN 4 + 4 = 8): eight 6s, each rolled again (Rule of Six) for 2s:
    # totals of 8, eight successes; no dodge: 8 net, no scatter, the head (no armour there: the
    # jacket covers no head row, Table 7). Damage: 9 + 2 (Table 3, 6+) = 11 dice; the head's
    # own monitor stages it 4 more successes (Table 6), the trauma monitor as it is.
    page.locator('#called-shot-map [data-location="head"]').first.click()
    page.get_by_label("Weapon skill").fill("8")
    console.place(page, "goon-1 x (m)", 4)
    fill_target(page, {"Willpower": "4"})
    # 11 damage dice, seven of 4 or more, no ones, one six: 7 + 1 = 8 successes: 4 stages on
    # M: deadly, and the trauma monitor's deadly too.
    given = {
        "attack": "6 6 6 6 6 6 6 6 2 2 2 2 2 2 2 2",
        "damage:goon-1": "6 5 5 5 4 4 4 3 2 2 2",
    }
    console.give_dice(page, "#dice-steps", given)
    result = console.resolve(page)["result"]
    target = result["target"]
    assert (result["attack"]["target_number"], result["attack"]["successes"]) == (8, 8)
    [hit] = target["hits"]
    assert hit["location"] == "head"
    [damage] = hit["damage"]
    assert (damage["dice"], damage["net"], damage["level"]) == (11, 8, "D")
    trauma = next(w for w in hit["wounds"] if w["monitor"] == "trauma" and w["track"] == "physical")
    assert trauma["level"] == "D"
    assert target["condition"]["deadly"] is True
    goon = page.locator('#monitors-list li[data-actor="goon-1"]')
    expect(goon.locator('tr[data-monitor="head"] [data-field=physical_level]')).to_have_text("D")
    expect(goon.locator("p.condition")).to_contain_text("deadly: consciousness test due")
    button = page.get_by_role("button", name="Consciousness test: goon-1")
    page.get_by_label("Willpower of goon-1 (empty: the sheet's)").fill("4")
    answered = console.post_from(page, "/actions", button.click)
    tested = answered["result"]
    assert tested["action"] == "consciousness_test"
    [roll] = [d for d in tested["dice"] if d["step"] == "consciousness:goon-1"]
    # Willpower 4: four dice, and each 6 short of the TN rolled again (Rule of Six).
    assert len(roll["values"]) >= 4
    # 004: no success, unconscious; one, free actions only; k, acts in k - 1 phases. The
    # panel, read again after the action's event, says which the dice gave.
    from_state = page.locator('#monitors-list li[data-actor="goon-1"] [data-field=due]')
    expect(from_state).not_to_contain_text("consciousness test due")
    shown = from_state.text_content() or ""
    assert "unconscious" in shown or "free actions only" in shown or "more phase" in shown


def test_after_a_hard_life_encounter_a_map_click_moves_the_aim_point_again(
    page: Page, url: str
) -> None:
    from playwright.sync_api import expect

    hardlife(page, "Areas")
    page.get_by_label("Firing mode").select_option("suppression")
    click_map(page, 10, -3)
    expect(page.get_by_label("Suppressed area (corners x y; …, m)")).to_have_value("10 -3")
    page.locator("#leave").click()
    console.create_encounter(page, ruleset="sr5", name="No areas")
    console.sr5_assault_rifle_on_suppressive(page)
    click_map(page, 20, 4)
    # The click put SR5's aim point there: no area is drawn any more.
    expect(page.locator("#map polygon.draft-area, #map polyline.draft-area")).to_have_count(0)
    assert console.shown_position(page, "aim point") == ("20", "4")

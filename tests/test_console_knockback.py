"""A Hard Life hit that knocks its target back moves the target's token on every console (issue
27, "A hit that knocks a target back 1 m leaves its token where it stood"), in Chromium against
the real service: the GM fires from the console's own attack form, by names from the roster, with
given dice; the GM's map and a player's phone view (their own link, then the full table behind
it) show the token where the rules put it.

The service moves the target in the attack's own change (service/engine/aftermath.py,
`knocked_back`); no scene event tells of it, so a console that does not read the scene again after
a knock-back keeps the token where it stood.

"004" is rules-sources/004_afd6299c3d537f5c.txt; the tables are docs/rulesets/sr3-hardlife.md's
rows of it (and sr3.md's range table, 002)."""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any

import pytest

from tests import console_browser as console
from tests.test_console import browser, page, url
from tests.test_console_phone import PHONE, open_link

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

# The browser, the served console and a fresh page: tests/test_console.py's own.
__all__ = ["browser", "page", "url"]

RULESET = "sr3-hardlife"
HK45 = {
    "id": "hk45",
    "category": "heavy_pistol",
    "power": 9,
    "damage_level": "M",
    "modes": ["SA"],
    "ammo": 12,
}
# Carter, the GM's shooter: skill 8, no attributes (so no Combat Pool), the HK 45 (9M).
CARTER = {
    "name": "Carter",
    "position": {"x": 1, "y": 1},
    "sheet": {"ruleset": RULESET, "skill": 8, "weapons": [HK45]},
}
# Rook, the player's runner: Body 4, Willpower 4, an armoured jacket (Table 7, torso 6/4), no
# pools (so no dodge: the form by names asks none). 4 m from Carter: (2.4, 3.2) = 4 x (0.6, 0.8).
ROOK_AT = (3.4, 4.2)
ROOK = {
    "name": "Rook",
    "position": {"x": ROOK_AT[0], "y": ROOK_AT[1]},
    "sheet": {"ruleset": RULESET, "body": 4, "willpower": 4, "armor": [{"garment": "jacket"}]},
}

# The shot, worked by hand:
# - Range 4 m, a heavy pistol: short (002, up to 5 m), base TN 4; the target walking by default
#   (sr3.md: no modifier), nothing else: TN 4. 8 dice 6 6 5 5 4 4 4 2: 7 successes.
# - No dodge: 7 net successes. Table 1, 4+: no scatter; no called shot: the torso.
# - Armour (Table 2): the jacket's torso 6 dice against 9 - 6 = 3; 6 5 3 2 1 1: 3 successes,
#   under M's soak number 4: it penetrates.
# - Damage (Table 3, 6+ net: +2): 9 + 2 = 11 dice against 4; 1 1 2 2 3 4 4 4 5 5 6: six at 4 or
#   more, two ones off, one six on: 5, less the armour's 3: 2 net, M staged up one: S.
# - Stun and knock-back (Table 4): Body 4 against 9 // 2 - impact 4 = 0, so 2 (the least);
#   3 2 1 1: 2 successes; the M row at 2: knocked back 3 m.
# - Recovery (Table 5, S: 3 needed): Willpower 4 against 2 + 3 (S) + 1 (the L stun) = 6;
#   6 3 2 1: 1 success, failed (it does not move anyone; given so that nothing is left to luck).
ROOK_DICE = {
    "attack": "6 6 5 5 4 4 4 2",
    "armor:rook": "6 5 3 2 1 1",
    "damage:rook": "1 1 2 2 3 4 4 4 5 5 6",
    "stun:rook": "3 2 1 1",
    "recovery:rook": "6 3 2 1",
}
KNOCKED_BACK_M = 3
# Straight away from Carter: (3.4, 4.2) + 3 x (0.6, 0.8) = (3.4 + 1.8, 4.2 + 2.4) = (5.2, 6.6),
# 4 + 3 = 7 m from him. Carter stays at (1, 1).
ROOK_KNOCKED_TO = (5.2, 6.6)
ROOK_FROM_CARTER_M = 7


def set_scene(page: Page, url: str, hidden_shooter: bool = False) -> tuple[str, str]:
    """A Hard Life encounter from the GM's console with Carter (hidden from the players, or not)
    and Rook on the scene, Rook played by Pat; returns the encounter and Pat's own link."""
    encounter = console.create_encounter(page, ruleset=RULESET, name="Knock-back", typed_in=False)
    carter = {**CARTER, "hidden": hidden_shooter}
    for actor, body in (("carter", carter), ("rook", ROOK)):
        console.put_actor(page, url, encounter, actor, body)
    page.locator('#map g[data-actor="rook"]').wait_for()
    return encounter, console.players_link(page, "pat", "rook")


def fire_from_the_form(page: Page) -> dict[str, Any]:
    """Carter's shot at Rook, from the GM's form by names, with ROOK_DICE given."""
    from playwright.sync_api import expect

    page.get_by_label("Attacker (from the roster)").select_option("carter")
    expect(page.locator("#scene-weapon")).to_have_value("hk45")
    page.locator("#scene-target-rook").check()
    page.locator('#dice-steps input[data-step="damage:rook"]').wait_for()
    console.give_dice(page, "#dice-steps", ROOK_DICE)
    return console.resolve(page)


def drawn_at(page: Page, selector: str) -> tuple[float, float]:
    """Where a `translate(x y)` group is drawn, in its SVG's user units."""
    transform = page.locator(selector).get_attribute("transform") or ""
    matched = re.fullmatch(r"translate\((\S+) (\S+)\)", transform)
    assert matched, transform
    return float(matched[1]), float(matched[2])


def expect_on_the_table_map(seen: Page, at: tuple[float, float], carter: bool = True) -> None:
    """The full table's map (metres, y up: drawn at (x, -y)) and its positions table; Carter
    where he stood, or (`carter` False: hidden from this page) nowhere."""
    from playwright.sync_api import expect

    x, y = at
    expect(seen.locator('#map g[data-actor="rook"]')).to_have_attribute(
        "transform", f"translate({x:g} {-y:g})"
    )
    assert console.shown_position(seen, "rook") == (f"{x:g}", f"{y:g}")
    if carter:
        assert drawn_at(seen, '#map g[data-actor="carter"]') == (1, -1)
    else:
        assert seen.locator('#map g[data-actor="carter"]').count() == 0


def phone_map_offset(seen: Page) -> tuple[float, float]:
    """Rook's token less Carter's on the phone view's map, back in metres (y up): the map fits
    the scene to the screen, its scale bar says how many pixels a metre is."""
    bar = seen.locator(".pv-map g.scale line")
    metres = float((seen.locator(".pv-map g.scale text").text_content() or "").removesuffix(" m"))
    pixels = float(bar.get_attribute("x2") or "nan") - float(bar.get_attribute("x1") or "nan")
    rook = drawn_at(seen, '.pv-map g[data-actor="rook"]')
    carter = drawn_at(seen, '.pv-map g[data-actor="carter"]')
    per_metre = pixels / metres
    return (rook[0] - carter[0]) / per_metre, -(rook[1] - carter[1]) / per_metre


def test_a_knocked_back_target_moves_on_the_gms_map_and_the_players_phone(
    page: Page, browser: Browser, url: str
) -> None:
    from playwright.sync_api import expect

    encounter, link = set_scene(page, url)
    errors: list[str] = []
    pat = open_link(browser, link, PHONE, errors)
    try:
        view = pat.locator("#player-view")
        expect(view.locator("#pv-heading")).to_have_text("Rook (rook)")
        # Before: 4 m from Carter on the phone, where the GM put Rook on the GM's map.
        expect(view.locator('[data-target="carter"] [data-field="distance"]')).to_have_text("4 m")
        assert phone_map_offset(pat) == pytest.approx((2.4, 3.2), abs=0.05)
        expect_on_the_table_map(page, ROOK_AT)

        answer = fire_from_the_form(page)
        target = answer["result"]["target"]
        # The numbers worked by hand above, as the service answered them.
        assert (answer["result"]["attack"]["target_number"], target["net_successes"]) == (4, 7)
        [landed] = target["rounds"]
        assert landed["location"] == "torso" and landed["scatter"]["hexes"] == 0
        [hit] = target["hits"]
        assert (hit["armor"][0]["test"]["successes"], hit["armor"][0]["stopped"]) == (3, False)
        assert (hit["damage"][0]["net"], hit["damage"][0]["level"]) == (2, "S")
        assert (hit["stun"]["resist"]["successes"], hit["stun"]["level"]) == (2, "L")
        assert (target["knock_back"], target["knock_back_m"]) == ("knocked_back", KNOCKED_BACK_M)
        # The service moved Rook in the attack's own change.
        scene = console.scene(page, url, encounter)
        assert scene["rook"]["position"] == {"x": ROOK_KNOCKED_TO[0], "y": ROOK_KNOCKED_TO[1]}
        assert scene["carter"]["position"] == {"x": 1, "y": 1}

        # The GM's map follows: Rook's token where the rules put it, Carter's where he stood.
        expect_on_the_table_map(page, ROOK_KNOCKED_TO)
        far = math.dist(ROOK_KNOCKED_TO, (1, 1))
        assert far == pytest.approx(ROOK_FROM_CARTER_M)
        x, y = ROOK_KNOCKED_TO
        expect(page.locator('#map g[data-actor="rook"]')).to_have_attribute(
            "aria-label", re.compile(f"at x {x:g} m, y {y:g} m, {ROOK_FROM_CARTER_M} m from carter")
        )

        # The player's phone follows the same event: 7 m from Carter, along the same line.
        expect(view.locator('[data-target="carter"] [data-field="distance"]')).to_have_text(
            f"{ROOK_FROM_CARTER_M} m"
        )
        expect(pat.locator('.pv-map g[data-actor="carter"]')).to_have_attribute(
            "aria-label", re.compile(f", {ROOK_FROM_CARTER_M} m away")
        )
        assert phone_map_offset(pat) == pytest.approx((4.2, 5.6), abs=0.05)
        # And so does the full table behind the view, on Pat's own machine.
        pat.locator("#pv-toggle").click()
        expect(pat.locator("#map")).to_be_visible()
        expect_on_the_table_map(pat, ROOK_KNOCKED_TO)

        # The GM takes the shot back: Rook stands where he stood again, on both consoles.
        with page.expect_response(
            lambda r: r.url.endswith("/undo") and r.request.method == "POST"
        ) as undone:
            page.get_by_role("button", name="Undo").click()
        assert undone.value.status == 200, undone.value.text()
        assert undone.value.request.post_data_json == {"event": answer["event_id"]}
        for seen in (page, pat):
            expect_on_the_table_map(seen, ROOK_AT)
        pat.locator("#pv-toggle").click()
        expect(view.locator('[data-target="carter"] [data-field="distance"]')).to_have_text("4 m")
        assert phone_map_offset(pat) == pytest.approx((2.4, 3.2), abs=0.05)
        assert errors == [], f"the page threw: {errors}"
    finally:
        pat.context.close()


def test_a_shooter_hidden_from_the_players_still_moves_their_knocked_back_token(
    page: Page, browser: Browser, url: str
) -> None:
    """The players' event names the hidden shooter "someone" but keeps the target's knock-back:
    Pat's console reads the scene again and moves Rook, still without Carter anywhere."""
    from playwright.sync_api import expect

    _, link = set_scene(page, url, hidden_shooter=True)
    errors: list[str] = []
    pat = open_link(browser, link, PHONE, errors)
    try:
        expect(pat.locator("#pv-heading")).to_have_text("Rook (rook)")
        pat.locator("#pv-toggle").click()
        expect_on_the_table_map(pat, ROOK_AT, carter=False)
        answer = fire_from_the_form(page)
        assert answer["result"]["target"]["knock_back_m"] == KNOCKED_BACK_M
        # The shot reached Pat's feed, Carter's name not with it; Rook moved on Pat's map.
        shot = pat.locator(f'#feed li[data-event-id="{answer["event_id"]}"]')
        expect(shot).to_have_count(1)
        expect_on_the_table_map(pat, ROOK_KNOCKED_TO, carter=False)
        expect_on_the_table_map(page, ROOK_KNOCKED_TO)
        assert "carter" not in (pat.locator("body").text_content() or "").lower()
        assert errors == [], f"the page threw: {errors}"
    finally:
        pat.context.close()

"""The condition monitors the service keeps (issue 24), in the web console, in Chromium against the
real service: boxes filled on the roster's monitors by an attack with given dice, the wound
modifier beside the actor, an actor out of the fight greyed in the roster and crossed on the map,
the GM's heal, set and clear, damage waiting for confirmation applied by the target's player,
and the GM's Undo next to the feed; on the GM's console and on a player's.

Every number is worked by hand below from the rules sources (file and section) or the published
core rules that rules-sources/README.md points to where they are silent."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from tests import console_browser as console
from tests import sr5_requests as make
from tests.test_console import browser, page, player_page, url

if TYPE_CHECKING:
    from playwright.sync_api import Page

# The browser, the served console and a fresh page: tests/test_console.py's own.
__all__ = ["browser", "page", "url"]

SAM = make.README_SAM
# The README's ganger, with Willpower 2 to size its stun track.
GANGER = {**make.README_GANGER_SHEET, "willpower": 2}
# The README's Predator, loaded to stun (a stun weapon's damage stays stun: 000, "3b").
STUNNER = {**make.README_PREDATOR, "id": "stunner", "damage_type": "S"}


def expect_boxes(page: Page, actor: str, track: str, filled: int, drawn: int) -> None:
    from playwright.sync_api import expect

    on = f'#roster-list [data-monitor="{actor}"] [data-track="{track}"]'
    expect(page.locator(f"{on} .box")).to_have_count(drawn)
    expect(page.locator(f"{on} .box.marked")).to_have_count(filled)
    expect(page.locator(f'{on} [data-field="{track}"]')).to_have_text(str(filled))


def wound(page: Page, actor: str) -> Any:
    return page.locator(f'#roster-list li[data-actor="{actor}"] [data-field="wound_modifier"]')


def gm_read_version(page: Page, url: str, encounter: str) -> int:
    answer = page.request.get(
        f"{url}/v1/encounters/{encounter}",
        headers={"Authorization": f"Bearer {console.gm_token(page)}"},
    )
    assert answer.ok, answer.text()
    version: int = answer.json()["version"]
    return version


def any_dice(page: Page, url: str, encounter: str) -> None:
    """The GM lets players give every step's dice (the defender's too), so a player's attack
    rolls nothing."""
    answer = page.request.put(
        f"{url}/v1/encounters/{encounter}/state",
        headers={"Authorization": f"Bearer {console.gm_token(page)}"},
        data={"dice_policy": "any"},
    )
    assert answer.ok, answer.text()


def attack_by_names(
    page: Page, attacker: str, target: str, dice: dict[str, str], weapon: str = ""
) -> dict[str, Any]:
    picker = page.get_by_role("button", name=f"Attacker: {attacker}")
    # A player's page with one armed actor has it picked already: a click would put it back.
    if picker.get_attribute("aria-pressed") != "true":
        picker.click()
    page.get_by_role("button", name=f"Target {target}").click()
    if weapon:
        page.locator("#scene-weapon").select_option(weapon)
    console.give_dice(page, "#dice-steps", dice)
    return console.resolve(page)


def monitor_edit(page: Page, click: Any) -> dict[str, Any]:
    """Runs `click()` (a monitor control); returns the request body it sent and the answer."""
    with page.expect_response(
        lambda r: r.url.endswith("/monitor") and r.request.method == "POST"
    ) as answer:
        click()
    response = answer.value
    assert response.status == 200, response.text()
    body = response.request.post_data_json
    assert isinstance(body, dict), body
    return {"sent": body, "answer": response.json()}


def undo(page: Page) -> dict[str, Any]:
    """Clicks the GM's Undo; returns the body it sent and the service's answer."""
    with page.expect_response(
        lambda r: r.url.endswith("/undo") and r.request.method == "POST"
    ) as answer:
        page.get_by_role("button", name="Undo").click()
    response = answer.value
    assert response.status == 200, response.text()
    body = response.request.post_data_json
    assert isinstance(body, dict), body
    return {"sent": body, "answer": response.json()}


# --- sr5 ------------------------------------------------------------------------------------
# The README's shot (tests/test_console.py, the README's dice): 4 hits against 1, 3 net hits;
# DV 8 + 3 = 11 (000, "3b"), armour 9 - AP 1 = 8 below 11: physical; Body 4 + 8 = 12 soak dice,
# 2 hits: 11 - 2 = 9 boxes (000, "Defender rolls their Body + Modified Armor Value").
SR5_BOXES = 9
# The ganger's tracks: physical 8 + ceil(Body 4 / 2) = 10, stun 8 + ceil(Willpower 2 / 2) = 9
# (SR5 core pp. 169-170, Condition Monitor, as rules-sources/README.md takes the core rules).
SR5_PHYSICAL = 8 + 2
SR5_STUN = 8 + 1
# -1 per 3 boxes of each track, both tracks added (000, "Character wounded"; SR5 core p. 169).
SR5_WOUND_9 = -(9 // 3)
SR5_HEALED = 9 - 3
SR5_WOUND_6 = -(6 // 3)


def test_sr5_monitors_on_the_gms_and_a_players_console(page: Page, browser: Any, url: str) -> None:
    from playwright.sync_api import expect

    encounter = console.create_encounter(page, name="Monitors")
    console.put_actor(page, url, encounter, "sam", SAM)
    console.put_actor(
        page, url, encounter, "goon-1", {"position": {"x": 12, "y": 0}, "sheet": GANGER}
    )
    boss = {**SAM, "name": "Boss", "position": {"x": 24, "y": 0}}
    boss["sheet"] = {**SAM["sheet"], "weapons": [STUNNER]}
    console.put_actor(page, url, encounter, "boss", boss)
    console.put_actor(
        page, url, encounter, "lurker",
        {"hidden": True, "position": {"x": 5, "y": 5}, "sheet": GANGER},
    )  # fmt: skip
    # Every actor has its monitor from the start: empty tracks of the sheet's sizes.
    expect_boxes(page, "goon-1", "physical", 0, SR5_PHYSICAL)
    expect_boxes(page, "goon-1", "stun", 0, SR5_STUN)
    expect(wound(page, "goon-1")).to_have_count(0)
    any_dice(page, url, encounter)
    anna = player_page(browser, console.players_link(page, "anna", "sam"))
    try:
        # A player sees the monitors of the actors it sees, not the hidden one's, and no Undo.
        expect_boxes(anna, "goon-1", "physical", 0, SR5_PHYSICAL)
        expect(page.locator('#roster-list [data-monitor="lurker"]')).to_have_count(1)
        expect(anna.locator('#roster-list [data-monitor="lurker"]')).to_have_count(0)
        expect(anna.locator("#undo")).to_be_hidden()
        expect(page.locator("#undo")).to_be_visible()
        # ... nor any GM edit.
        expect(anna.locator(".monitor-edit")).to_have_count(0)

        # Anna shoots the ganger with the README's dice: 9 boxes on every console, at once.
        anna.locator("#scene-attacker").wait_for()
        # Her link plays one armed actor: her page attacks with it without asking.
        console.wait_picked(anna, "sam")
        anna.get_by_role("button", name="Target goon-1").click()
        anna.locator("#options summary").click()
        anna.get_by_label("Smartlink").select_option("wireless_implant")
        console.give_dice(anna, "#dice-steps", console.README_DICE)
        answer = console.resolve(anna)
        damage = answer["result"]["targets"][0]["damage"]
        assert (damage["boxes"], damage["track"]) == (SR5_BOXES, "physical")
        for shown_on in (page, anna):
            expect_boxes(shown_on, "goon-1", "physical", SR5_BOXES, SR5_PHYSICAL)
            expect_boxes(shown_on, "goon-1", "stun", 0, SR5_STUN)
            expect(wound(shown_on, "goon-1")).to_have_text(str(SR5_WOUND_9))
        # The -1 marks of the paper sheet: boxes 3, 6 and 9.
        marks = page.locator('[data-monitor="goon-1"] [data-track="physical"] .box[data-mark]')
        assert marks.evaluate_all("boxes => boxes.map(b => b.dataset.mark)") == ["-1", "-2", "-3"]

        # The GM heals 3 boxes (first aid) from the roster, on the version read.
        page.get_by_text("Monitor of goon-1: heal, set, clear").click()
        heal = page.get_by_label("Physical boxes to heal (goon-1)")
        heal.fill("3")
        read = gm_read_version(page, url, encounter)
        # Enter in the field sends it, as a keyboard user would.
        edit = monitor_edit(page, lambda: heal.press("Enter"))
        assert edit["sent"] == {"heal": {"physical": 3}, "version": read}
        for shown_on in (page, anna):
            expect_boxes(shown_on, "goon-1", "physical", SR5_HEALED, SR5_PHYSICAL)
            expect(wound(shown_on, "goon-1")).to_have_text(str(SR5_WOUND_6))
        expect(page.locator("#feed li[data-type=monitor]")).to_have_count(1)
        expect(anna.locator("#feed li[data-type=monitor]")).to_have_count(1)
        # The roster was drawn again from the state; the editor stays open, the focus where
        # it was, and the field empty for the next heal.
        expect(heal).to_be_focused()
        expect(heal).to_have_value("")

        # The GM takes the heal back: Undo sends the newest event the feed shows, and every
        # console draws the 9 boxes again; the feed says so.
        newest = page.locator("#feed li").first
        expect(newest).to_have_attribute("data-type", "monitor")
        healed_event = newest.get_attribute("data-event-id")
        undone = undo(page)
        assert undone["sent"] == {"event": healed_event}
        assert (
            undone["answer"]["result"]["undone"],
            undone["answer"]["result"]["undone_type"],
        ) == (
            healed_event,
            "monitor",
        )
        for shown_on in (page, anna):
            expect_boxes(shown_on, "goon-1", "physical", SR5_BOXES, SR5_PHYSICAL)
            expect(wound(shown_on, "goon-1")).to_have_text(str(SR5_WOUND_9))
            expect(shown_on.locator("#feed li[data-type=undo]")).to_have_count(1)
            expect(shown_on.locator(f'#feed li[data-event-id="{healed_event}"]')).to_have_class(
                re.compile(r"\bundone\b")
            )
        # The next Undo would take back Anna's attack.
        attack_event = page.locator("#feed li[data-type=attack]").first.get_attribute(
            "data-event-id"
        )
        expect(page.locator("#undo-next")).to_contain_text(f"event {attack_event}")

        # The boss stuns the ganger (its own shot, the same 13 dice from 12 m, 4 hits). The
        # wounds flow into the ganger's defense: Reaction 3 + Intuition 3 = 6, -3 for its 9
        # boxes, -1 for its earlier defense (rules-sources/README.md): 2 dice, 1 hit (a 5).
        # 3 net hits again: 9 stun boxes, as above; they fill the 9-box stun track, so the
        # ganger is unconscious (SR5 core p. 170, Condition Monitor).
        page.get_by_role("button", name="Attacker: boss").click()
        page.get_by_role("button", name="Target goon-1").click()
        page.locator("#options summary").click()
        page.get_by_label("Smartlink").select_option("wireless_implant")
        console.give_dice(page, "#dice-steps", {**console.README_DICE, "defense:goon-1": "5 2"})
        shot = console.resolve(page)["result"]["targets"][0]
        assert shot["defense"]["pool"] == 3 + 3 - 3 - 1
        stunned = shot["damage"]
        assert (stunned["boxes"], stunned["track"]) == (SR5_BOXES, "stun")
        for shown_on in (page, anna):
            expect_boxes(shown_on, "goon-1", "stun", SR5_STUN, SR5_STUN)
            # -3 of the 9 physical boxes and -3 of the 9 stun boxes.
            expect(wound(shown_on, "goon-1")).to_have_text(str(-3 - 3))
            on_map = shown_on.locator('#map g.actor[data-actor="goon-1"]')
            expect(on_map).to_have_class(re.compile(r"\bdown\b.*\bunconscious\b"))
            expect(on_map.locator("line.down-mark")).to_have_count(2)
            expect(on_map).to_have_attribute("aria-label", re.compile("unconscious"))
            item = shown_on.locator('#roster-list li[data-actor="goon-1"]')
            expect(item).to_have_attribute("data-condition", "unconscious")
            expect(item.locator('[data-field="condition"]').first).to_have_text("unconscious")

        # Undo again: the stun shot is taken back, the ganger stands again on every console.
        undo(page)
        for shown_on in (page, anna):
            expect_boxes(shown_on, "goon-1", "stun", 0, SR5_STUN)
            expect(shown_on.locator('#map g.actor[data-actor="goon-1"]')).not_to_have_class(
                re.compile(r"\bdown\b")
            )
            expect(shown_on.locator('#roster-list li[data-actor="goon-1"]')).not_to_have_attribute(
                "data-condition", "unconscious"
            )
        # The others stand as they were.
        expect(page.locator('#map g.actor[data-actor="sam"]')).not_to_have_class(
            re.compile(r"\bdown\b")
        )
    finally:
        anna.context.close()


# --- sr3 ------------------------------------------------------------------------------------
# tests/test_console.py's attack by names: the Predator (9M) from 5 m, short range, TN 4 (002,
# the weapon range table): "6 5 2 2" are 2 successes; the goon resists with Body 4 against
# Power 9 - its jacket's ballistic 5 = TN 4: "5 2 2 2" is 1 success; 2 against 1 stages
# nothing, so a Moderate wound: 3 boxes (SR3 core p. 125, L 1 M 3 S 6 D 10, as
# rules-sources/README.md takes them).
SR3_PREDATOR = {
    "id": "predator",
    "category": "heavy_pistol",
    "power": 9,
    "damage_level": "M",
    "modes": ["SA"],
    "ammo": 15,
}
SR3_SHOOTER = {
    "ruleset": "sr3",
    "skill": 4,
    "quickness": 5,
    "intelligence": 4,
    "willpower": 3,
    "weapons": [SR3_PREDATOR],
}
SR3_TARGET = {
    "ruleset": "sr3",
    "body": 4,
    "armor": [{"name": "armor jacket", "ballistic": 5, "impact": 3}],
}
SR3_DICE = {"attack": "6 5 2 2", "resist:{target}": "5 2 2 2"}
SR3_M_BOXES = 3
# Each track is 10 boxes whatever the sheet (SR3 core p. 125); the paper sheet's marks: the
# levels at their boxes (rules-sources/README.md: L 1, M 3, S 6, D 10).
SR3_TRACK = 10
SR3_MARKS = ["1L", "3M", "6S", "10D"]
# The wound modifiers are target-number modifiers: L +1, M +2 (rules-sources/README.md).
SR3_M_TN = "+2 TN"
SR3_L_TN = "+1 TN"


def sr3_dice(target: str) -> dict[str, str]:
    return {step.format(target=target): faces for step, faces in SR3_DICE.items()}


def test_sr3_monitors_on_the_gms_and_a_players_console(page: Page, browser: Any, url: str) -> None:
    from playwright.sync_api import expect

    encounter = console.create_encounter(page, ruleset="sr3", name="SR3 monitors")
    # Nothing has changed yet: nothing to undo.
    expect(page.get_by_role("button", name="Undo")).to_be_disabled()
    expect(page.locator("#undo-next")).to_have_text("Nothing to undo.")
    console.put_actor(
        page, url, encounter, "sam", {"position": {"x": 0, "y": 0}, "sheet": SR3_SHOOTER}
    )
    console.put_actor(
        page, url, encounter, "goon-7", {"position": {"x": 3, "y": 4}, "sheet": SR3_TARGET}
    )
    console.put_actor(
        page,
        url,
        encounter,
        "sniper",
        {"hidden": True, "position": {"x": 9, "y": 9}, "sheet": SR3_TARGET},
    )
    any_dice(page, url, encounter)
    anna = player_page(browser, console.players_link(page, "anna", "sam"))
    try:
        # A player's link is never taken back: the GM's Undo says so and waits.
        expect(page.get_by_role("button", name="Undo")).to_be_disabled()
        expect(page.locator("#undo-next")).to_contain_text("player's link")
        expect(anna.locator("#undo")).to_be_hidden()
        expect(page.locator('#roster-list [data-monitor="sniper"]')).to_have_count(1)
        expect(anna.locator('#roster-list [data-monitor="sniper"]')).to_have_count(0)
        expect_boxes(anna, "goon-7", "physical", 0, SR3_TRACK)
        marks = anna.locator('[data-monitor="goon-7"] [data-track="physical"] .box[data-mark]')
        assert (
            marks.evaluate_all("boxes => boxes.map(b => b.dataset.box + b.dataset.mark)")
            == SR3_MARKS
        )

        console.wait_picked(anna, "sam")
        answer = attack_by_names(anna, "sam", "goon-7", sr3_dice("goon-7"))
        damage = answer["result"]["target"]["damage"]
        assert (damage["level"], damage["boxes"]) == ("M", SR3_M_BOXES)
        for shown_on in (page, anna):
            expect_boxes(shown_on, "goon-7", "physical", SR3_M_BOXES, SR3_TRACK)
            expect(wound(shown_on, "goon-7")).to_have_text(SR3_M_TN)

        # The GM heals 2 boxes: 1 left, a Light wound, +1 TN.
        page.get_by_text("Monitor of goon-7: heal, set, clear").click()
        page.get_by_label("Physical boxes to heal (goon-7)").fill("2")
        read = gm_read_version(page, url, encounter)
        edit = monitor_edit(page, page.get_by_role("button", name="Heal goon-7").click)
        assert edit["sent"] == {"heal": {"physical": 2}, "version": read}
        for shown_on in (page, anna):
            expect_boxes(shown_on, "goon-7", "physical", SR3_M_BOXES - 2, SR3_TRACK)
            expect(wound(shown_on, "goon-7")).to_have_text(SR3_L_TN)
        # ... and takes it back: the Moderate wound again.
        undo(page)
        for shown_on in (page, anna):
            expect_boxes(shown_on, "goon-7", "physical", SR3_M_BOXES, SR3_TRACK)
            expect(wound(shown_on, "goon-7")).to_have_text(SR3_M_TN)

        # The GM sets sam's stun monitor full (a stun grenade the table rolled): 10 stun
        # boxes are a Deadly stun wound, unconscious (SR3 core p. 126).
        page.get_by_text("Monitor of sam: heal, set, clear").click()
        page.get_by_label("Stun boxes of sam").fill(str(SR3_TRACK))
        edit = monitor_edit(page, page.get_by_role("button", name="Set sam's monitor").click)
        assert edit["sent"]["set"] == {"physical": 0, "stun": SR3_TRACK, "overflow": 0}
        for shown_on in (page, anna):
            expect_boxes(shown_on, "sam", "stun", SR3_TRACK, SR3_TRACK)
            on_map = shown_on.locator('#map g.actor[data-actor="sam"]')
            expect(on_map).to_have_class(re.compile(r"\bdown\b.*\bunconscious\b"))
            expect(on_map).to_have_attribute("aria-label", re.compile(r"^sam \(\w+, unconscious\)"))
            expect(shown_on.locator('#roster-list li[data-actor="sam"]')).to_have_class(
                re.compile(r"\bdown\b")
            )
        # Anna's unconscious sam cannot shoot: the service's 409 in the attack form's alert.
        # (sam and goon-7 are still picked from the first shot.)
        expect(anna.get_by_role("button", name="Target goon-7")).to_have_attribute(
            "aria-pressed", "true"
        )
        console.give_dice(anna, "#dice-steps", sr3_dice("goon-7"))
        with anna.expect_response(lambda r: r.url.endswith("/attacks")) as refused:
            anna.get_by_role("button", name="Resolve attack").click()
        assert refused.value.status == 409
        expect(anna.locator("#attack-error")).to_contain_text("'sam' is unconscious")
    finally:
        anna.context.close()


def test_sr3_confirmed_damage_is_declined_by_the_gm_and_applied_by_the_targets_player(
    page: Page, browser: Any, url: str
) -> None:
    from playwright.sync_api import expect

    page.get_by_label("Damage applied by").select_option("confirm")
    encounter = console.create_encounter(page, ruleset="sr3", name="Confirmed")
    expect(page.locator("#info-damage")).to_contain_text("confirms each hit")
    # The goon (the GM's) shoots Anna's sam: the same shot as above, the other way round.
    console.put_actor(
        page, url, encounter, "goon", {"position": {"x": 0, "y": 0}, "sheet": SR3_SHOOTER}
    )
    console.put_actor(
        page, url, encounter, "sam", {"position": {"x": 3, "y": 4}, "sheet": SR3_TARGET}
    )
    anna = player_page(browser, console.players_link(page, "anna", "sam"))
    try:
        answer = attack_by_names(page, "goon", "sam", sr3_dice("sam"))
        assert answer["result"]["target"]["damage"]["boxes"] == SR3_M_BOXES
        # Nothing is written yet: the 3 boxes wait, on both consoles.
        for shown_on in (page, anna):
            expect_boxes(shown_on, "sam", "physical", 0, SR3_TRACK)
            expect(shown_on.locator('[data-actor="sam"] .pending-damage li')).to_have_count(1)
        waiting = page.locator('[data-actor="sam"] .pending-damage li')
        assert "3 physical" in (waiting.text_content() or "")
        # The GM may apply or decline; Anna may apply her actor's damage, not decline it.
        expect(anna.get_by_role("button", name="Apply 3 physical to sam")).to_be_visible()
        expect(anna.get_by_role("button", name="Decline 3 physical for sam")).to_have_count(0)
        with page.expect_response(lambda r: "/pending/" in r.url) as declined:
            page.get_by_role("button", name="Decline 3 physical for sam").click()
        assert (declined.value.request.method, declined.value.status) == ("DELETE", 200)
        for shown_on in (page, anna):
            expect(shown_on.locator('[data-actor="sam"] .pending-damage')).to_have_count(0)
            expect_boxes(shown_on, "sam", "physical", 0, SR3_TRACK)
        # The GM thinks again: Undo puts the damage back, and Anna applies it.
        undo(page)
        apply = anna.get_by_role("button", name="Apply 3 physical to sam")
        with anna.expect_response(lambda r: "/pending/" in r.url) as applied:
            apply.click()
        assert (applied.value.request.method, applied.value.status) == ("POST", 200)
        for shown_on in (page, anna):
            expect_boxes(shown_on, "sam", "physical", SR3_M_BOXES, SR3_TRACK)
            expect(wound(shown_on, "sam")).to_have_text(SR3_M_TN)
            expect(shown_on.locator('[data-actor="sam"] .pending-damage')).to_have_count(0)
        # On a phone's width the roster and its monitors fit: nothing scrolls sideways.
        anna.set_viewport_size({"width": 375, "height": 800})
        for panel in ("#roster-panel", "#feed-panel"):
            scroll, client = anna.locator(panel).evaluate("p => [p.scrollWidth, p.clientWidth]")
            assert scroll <= client, (panel, scroll, client)
        last_box = anna.locator('[data-monitor="sam"] [data-track="stun"] .box').last
        last_box.scroll_into_view_if_needed()
        drawn = last_box.bounding_box()
        assert drawn is not None and drawn["x"] + drawn["width"] <= 375, drawn
    finally:
        anna.context.close()


# --- Edge (issue 25) --------------------------------------------------------------------------
# Push the Limit spends one point of Edge (SR5 core, "Push the Limit"): Sam's Edge 3 leaves 2.
# 6 Agility + 6 skill + 2 implanted smartlink + 3 Edge = a pool of 17; - 1 for medium range: 16
# dice, no hit.
PUSHED_MISS = {"attack": "2 3 4 2 3 4 2 3 4 2 3 4 2 3 4 2"}


def test_the_roster_shows_edge_left_and_the_gm_sets_what_was_spent(
    page: Page, browser: Any, url: str
) -> None:
    from playwright.sync_api import expect

    encounter = console.create_encounter(page, name="Edge")
    # The VTT keeps the monitors: the roster follows the Edge spent all the same.
    answer = page.request.put(
        f"{url}/v1/encounters/{encounter}/state",
        headers={"Authorization": f"Bearer {console.gm_token(page)}"},
        data={"damage": "vtt"},
    )
    assert answer.ok, answer.text()
    console.put_actor(page, url, encounter, "sam", {**SAM, "sheet": {**SAM["sheet"], "edge": 3}})
    console.put_actor(
        page, url, encounter, "goon-1", {"position": {"x": 12, "y": 0}, "sheet": GANGER}
    )
    any_dice(page, url, encounter)
    edge = '#roster-list li[data-actor="{}"] [data-field="edge"]'
    anna = player_page(browser, console.players_link(page, "anna", "sam"))
    try:
        for shown_on in (page, anna):
            expect(shown_on.locator(edge.format("sam"))).to_have_text("Edge 3/3")
            # The ganger's sheet has no Edge: nothing to show.
            expect(shown_on.locator(edge.format("goon-1"))).to_have_count(0)
        # Anna pushes the limit and misses: every console shows Edge 2/3.
        anna.locator("#scene-attacker").wait_for()
        # Her link plays one armed actor: her page attacks with it without asking.
        console.wait_picked(anna, "sam")
        anna.get_by_role("button", name="Target goon-1").click()
        anna.locator("#options summary").click()
        anna.get_by_label("Smartlink").select_option("wireless_implant")
        anna.locator("#options").get_by_label("Edge", exact=True).select_option("push_the_limit")
        console.give_dice(anna, "#dice-steps", PUSHED_MISS)
        result = console.resolve(anna)["result"]
        assert (result["pool"], result["edge_spent"]) == (17, 1)
        for shown_on in (page, anna):
            expect(shown_on.locator(edge.format("sam"))).to_have_text("Edge 2/3")

        # A new session: the GM sets sam's Edge spent back to 0 in the actor's editor.
        page.get_by_role("button", name="Edit sam").click()
        spent = page.get_by_label("Edge spent")
        expect(spent).to_have_value("1")
        spent.fill("0")
        saved = console.save_actor(page, "Save actor")
        assert "edge_spent" not in saved["result"]["state"]
        assert "edge_spent" not in console.scene(page, url, encounter)["sam"]
        for shown_on in (page, anna):
            expect(shown_on.locator(edge.format("sam"))).to_have_text("Edge 3/3")
    finally:
        anna.context.close()

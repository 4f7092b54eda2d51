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


def marked(page: Page, actor: str, track: str) -> tuple[int, int]:
    """(boxes filled, boxes drawn) of one track of an actor's monitor in the roster."""
    on = f'#roster-list [data-monitor="{actor}"] [data-track="{track}"]'
    return page.locator(f"{on} .box.marked").count(), page.locator(f"{on} .box").count()


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


def players_link(page: Page, player: str, actors: str) -> str:
    from playwright.sync_api import expect

    page.get_by_label("Player id").fill(player)
    page.get_by_label("Their actors (ids, separated by spaces)").fill(actors)
    page.get_by_role("button", name="Make the player's link").click()
    expect(page.locator("#player-link")).to_have_value(re.compile(f"player={player}"))
    link: str = page.locator("#player-link").input_value()
    return link


def attack_by_names(page: Page, attacker: str, target: str, dice: dict[str, str], weapon: str = "") -> dict[str, Any]:
    page.get_by_role("button", name=f"Attack with {attacker}").click()
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
    console.put_actor(page, url, encounter, "goon-1", {"position": {"x": 12, "y": 0}, "sheet": GANGER})
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
    anna = player_page(browser, players_link(page, "anna", "sam"))
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
        anna.get_by_role("button", name="Attack with sam").click()
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
        page.get_by_label("Physical boxes to heal (goon-1)").fill("3")
        read = gm_read_version(page, url, encounter)
        edit = monitor_edit(page, page.get_by_role("button", name="Heal goon-1").click)
        assert edit["sent"] == {"heal": {"physical": 3}, "version": read}
        for shown_on in (page, anna):
            expect_boxes(shown_on, "goon-1", "physical", SR5_HEALED, SR5_PHYSICAL)
            expect(wound(shown_on, "goon-1")).to_have_text(str(SR5_WOUND_6))
        expect(page.locator("#feed li[data-type=monitor]")).to_have_count(1)
        expect(anna.locator("#feed li[data-type=monitor]")).to_have_count(1)

        # The boss stuns the ganger (its own shot, the same 13 dice from 12 m, 4 hits). The
        # wounds flow into the ganger's defense: Reaction 3 + Intuition 3 = 6, -2 for its 6
        # boxes, -1 for its earlier defense (rules-sources/README.md): 3 dice, 1 hit (a 5).
        # 3 net hits again: 9 stun boxes, as above; they fill the 9-box stun track, so the
        # ganger is unconscious (SR5 core p. 170, Condition Monitor).
        page.get_by_role("button", name="Attack with boss").click()
        page.get_by_role("button", name="Target goon-1").click()
        page.locator("#options summary").click()
        page.get_by_label("Smartlink").select_option("wireless_implant")
        console.give_dice(page, "#dice-steps", {**console.README_DICE, "defense:goon-1": "5 2 3"})
        shot = console.resolve(page)["result"]["targets"][0]
        assert shot["defense"]["pool"] == 3 + 3 - 2 - 1
        stunned = shot["damage"]
        assert (stunned["boxes"], stunned["track"]) == (SR5_BOXES, "stun")
        for shown_on in (page, anna):
            expect_boxes(shown_on, "goon-1", "stun", SR5_STUN, SR5_STUN)
            # -2 of the 6 physical boxes and -3 of the 9 stun boxes.
            expect(wound(shown_on, "goon-1")).to_have_text(str(-2 - 3))
            on_map = shown_on.locator('#map g.actor[data-actor="goon-1"]')
            expect(on_map).to_have_class(re.compile(r"\bdown\b.*\bunconscious\b"))
            expect(on_map.locator("line.down-mark")).to_have_count(2)
            expect(on_map).to_have_attribute("aria-label", re.compile("unconscious"))
            item = shown_on.locator('#roster-list li[data-actor="goon-1"]')
            expect(item).to_have_attribute("data-condition", "unconscious")
            expect(item.locator('[data-field="condition"]').first).to_have_text("unconscious")
        # The others stand as they were.
        expect(page.locator('#map g.actor[data-actor="sam"]')).not_to_have_class(
            re.compile(r"\bdown\b")
        )
    finally:
        anna.context.close()

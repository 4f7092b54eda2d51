"""Issue 27, "Tests that can fail": a whole short fight played in Chromium against the real
service, the GM at a desktop's size (1280 x 800) and Anna on her phone (390 x 844) with her own
link, each in a browser context of its own. The service runs the initiative; the dice are rolled
at the table and entered in the console's dice walk, as faces and as hits and ones, on both
screens; after each exchange both screens are checked against the numbers worked by hand below
(the prompts' dice counts from the sheets, net hits, DV, boxes, wound modifiers, rounds left,
whose phase it is). axe-core judges both screens with a walk open.

SR5 as the README plays it (000, "3a" and "3b"; "Defender rolls their Body + Modified Armor
Value"; the tracks and wound modifiers from the SR5 core rules, pp. 169-170, as
rules-sources/README.md takes them); then a d100 shot on a phone, where every step is faces."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

from tests import console_browser as console
from tests import sr5_requests as make
from tests.test_console import browser, url
from tests.test_console_a11y import violations
from tests.test_console_dice import pick
from tests.test_console_monitors import any_dice, expect_boxes, wound
from tests.test_console_phone import PHONE, SAM, expect_compact, expect_monitor, open_link
from tests.test_console_turns import initiative_answer

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, Response

# The browser and the served console: tests/test_console.py's own.
__all__ = ["browser", "url"]

DESKTOP = {"width": 1280, "height": 800}

# --- the table ------------------------------------------------------------------------------
# Sam (Anna's): Agility 6, Firearms 6, the Predator (8P, AP -1, Accuracy 5, 15 rounds);
# Reaction 3 + Intuition 3 to defend; Body 6: 8 + 3 = 11 physical boxes; Willpower 3: 8 + 2 =
# 10 stun; armour 9. At (0, 0).
SAM_PHYSICAL, SAM_STUN = 8 + 3, 8 + 2
# The ganger (the GM's), 12 m away: Agility 4, Strength 3, Firearms 4, a Colt Manhunter (7P, AP -1,
# Accuracy 5, 16 rounds); Reaction 3 + Intuition 3; Body 4: 10 physical boxes; Willpower 2:
# 9 stun; armour 9.
MANHUNTER = {**make.README_PREDATOR, "id": "manhunter", "damage": 7, "ammo": 16}
GANGER_SHEET = {
    **make.README_GANGER_SHEET,
    "willpower": 2,
    "agility": 4,
    "strength": 3,
    "skill": 4,
    "weapons": [MANHUNTER],
}
GANGER = {"name": "Ganger", "position": {"x": 12, "y": 0}, "sheet": GANGER_SHEET}
GANGER_PHYSICAL, GANGER_STUN = 8 + 2, 8 + 1
# Initiative rolled at the table and typed in by the GM: Sam 12, the ganger 8. Pass 1: Sam,
# then the ganger; pass 2 (10 off each): Sam alone (2; the ganger's -2 has no phase).
SCORES = {"sam": 12, "goon-1": 8}

# --- exchange 1: Sam's phase, pass 1; the GM lets Anna's phone give every die ---------------
# Sam: 6 + 6 - 1 (12 m is the Predator's medium range) = 11 dice, as faces: 4 hits, 2 ones.
# The ganger's defense, 3 + 3 = 6 dice: 1 hit. 3 net hits: DV 8 + 3 = 11 against armour
# 9 - 1 = 8: physical. Soak Body 4 + 8 = 12 dice: 2 hits; 11 - 2 = 9 boxes of 10: -3.
SAM_FACES = "6 6 5 5 3 2 1 1 4 4 3"
EXCHANGE_1 = {"attack": 11, "defense": 6, "soak": 12, "net": 3, "dv": 11, "boxes": 9}
GANGER_WOUND = -(9 // 3)
# --- exchange 2: the ganger's phase; the GM walks its shot at Sam ---------------------------
# The ganger: 4 + 4 - 3 (its wounds) - 1 (12 m: medium) = 4 dice, as counts: 3 hits, 1 one.
# Sam's defense, 3 + 3 = 6 dice, as faces (5 4 3 2 2 1): 1 hit. 2 net hits: DV 7 + 2 = 9
# against 9 - 1 = 8: physical. Soak Body 6 + 8 = 14 dice, as counts: 4 hits; 9 - 4 = 5 boxes
# of Sam's 11: -1.
SAM_DEFENSE_FACES = "5 4 3 2 2 1"
EXCHANGE_2 = {"attack": 4, "defense": 6, "soak": 14, "net": 2, "dv": 9, "boxes": 5}
SAM_WOUND = -(5 // 3)
# --- exchange 3: Sam's phase, pass 2; the dice policy back to each player's own --------------
# Sam, wounded: 6 + 6 - 1 - 1 = 10 dice, as counts: 5 hits (the Predator's Accuracy 5), 1 one.
# The ganger's steps are the service's to roll: its defense is 3 + 3 - 3 = 3 dice, so 3 hits at
# most and the shot hits whatever they show, with 2 to 5 net hits.
EXCHANGE_3 = {"attack": 10, "hits": 5, "defense_pool": 3}
# The ganger's physical track, drawn in the result on Anna's phone.
GANGER_TRACK = '[data-monitor="goon-1"] [data-track="physical"]'
# One semi-automatic shot each time: 15, 14, 13 rounds.
PREDATOR_ROUNDS = 15


@pytest.fixture
def gm(browser: Browser, url: str) -> Iterator[Page]:
    """The GM's console at a desktop's size."""
    context = browser.new_context(viewport=DESKTOP)  # type: ignore[arg-type]
    opened = context.new_page()
    opened.set_default_timeout(15_000)
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    console.open_console(opened, url)
    yield opened
    context.close()
    assert errors == [], f"the GM's page threw: {errors}"


def sent_and_answered(page: Page, endpoint: str, click: Callable[[], Any]) -> tuple[Any, Any]:
    """Runs `click()` (the walk's last step); returns the request sent to the POST ending in
    `endpoint` and the service's 201 answer."""
    with (
        page.expect_request(lambda r: r.url.endswith(endpoint) and r.method == "POST") as sent,
        page.expect_response(
            lambda r: r.url.endswith(endpoint) and r.request.method == "POST"
        ) as answered,
    ):
        click()
    response: Response = answered.value
    assert response.status == 201, response.text()
    return sent.value.post_data_json, response.json()


def dice_policy(gm: Page, url: str, encounter: str, policy: str) -> None:
    answer = gm.request.put(
        f"{url}/v1/encounters/{encounter}/state",
        headers={"Authorization": f"Bearer {console.gm_token(gm)}"},
        data={"dice_policy": policy},
    )
    assert answer.ok, answer.text()


def expect_phase(gm: Page, anna: Page, text: str, anna_acts: bool) -> None:
    """Whose phase it is, on the GM's initiative panel and at the top of Anna's phone."""
    from playwright.sync_api import expect

    expect(gm.locator("#initiative-now")).to_have_text(text)
    now = anna.locator("#player-view .pv-now-text")
    expect(now).to_have_text(f"Your phase: {text}" if anna_acts else text)
    expect(now).to_have_attribute("data-yours", "true" if anna_acts else "false")


def next_phase(gm: Page) -> None:
    initiative_answer(gm, gm.get_by_role("button", name="Next phase").click)


def given(page: Page, result: str) -> dict[str, str]:
    """Each step of the result card under `result` and how it was given (rolled, faces, counts)."""
    steps = page.locator(f"{result} .dice-step")
    return {
        steps.nth(i).get_attribute("data-step") or "": steps.nth(i).get_attribute("data-given")
        or ""
        for i in range(steps.count())
    }


def test_a_short_sr5_fight_between_the_gms_screen_and_a_players_phone(
    gm: Page, browser: Browser, url: str
) -> None:
    from playwright.sync_api import expect

    encounter = console.create_encounter(gm, name="Docks", typed_in=False)
    console.put_actor(gm, url, encounter, "sam", SAM)
    console.put_actor(gm, url, encounter, "goon-1", GANGER)
    link = console.players_link(gm, "anna", "sam")
    # The GM calls out the ganger's dice and Anna types them too, for this exchange.
    any_dice(gm, url, encounter)
    # The initiative, rolled at the table: the GM types both scores.
    gm.get_by_label("sam: score rolled at the table").fill(str(SCORES["sam"]))
    gm.get_by_label("goon-1: score rolled at the table").fill(str(SCORES["goon-1"]))
    started = initiative_answer(gm, gm.get_by_role("button", name="Roll initiative").click)
    order = [(e["actor"], e["score"]) for e in started["result"]["entries"]]
    assert order == [("sam", 12), ("goon-1", 8)]

    errors: list[str] = []
    anna = open_link(browser, link, PHONE, errors)
    try:
        view = anna.locator("#player-view")
        expect(view.locator("#pv-heading")).to_have_text("Sam (sam)")
        expect_phase(gm, anna, "Combat turn 1, initiative pass 1: sam's phase.", anna_acts=True)
        expect(view.locator(".pv-now .pv-help")).to_have_text(
            "sam has 1 free, 1 complex or 1 free, 2 simple left in this phase."
        )
        expect_monitor(anna, "sam", (0, SAM_PHYSICAL), (0, SAM_STUN))
        expect(anna.locator("#pv-fire")).to_have_text("Attack goon-1")

        # --- exchange 1: Anna rolls at the table, every step on her phone ------------------
        anna.locator("#pv-roll").tap()
        walk = view.locator("#pv-walk")
        prompt = walk.locator("#pv-walk-prompt")
        expect(prompt).to_have_text(f"Sam: roll {EXCHANGE_1['attack']} dice")
        # The one-tap attack waits while the walk is open.
        expect(anna.locator("#pv-fire")).to_be_disabled()
        expect_compact(anna, PHONE["width"])
        assert violations(anna) == []
        console.enter_step(
            anna, "pv-walk", f"Sam: roll {EXCHANGE_1['attack']} dice", SAM_FACES, tap=True
        )
        expect(walk.locator('#pv-walk-so-far li[data-step="attack"]')).to_have_text(
            f"Sam, attack (faces): {SAM_FACES}: 4 hits, 2 ones"
        )
        console.enter_step(
            anna,
            "pv-walk",
            f"Ganger: roll {EXCHANGE_1['defense']} dice",
            {"hits": 1, "ones": 0},
            tap=True,
        )
        sent, answer = sent_and_answered(
            anna,
            "/attacks",
            lambda: console.enter_step(
                anna,
                "pv-walk",
                f"Ganger: roll {EXCHANGE_1['soak']} dice",
                {"hits": 2, "ones": 1},
                tap=True,
            ),
        )
        assert sent == {
            "ruleset": "sr5",
            "attacker": "sam",
            "weapon": "predator",
            "mode": "SA",
            "targets": [{"id": "goon-1"}],
            "dice": {
                "attack": [int(face) for face in SAM_FACES.split()],
                "defense:goon-1": {"hits": 1, "ones": 0},
                "soak:goon-1": {"hits": 2, "ones": 1},
            },
        }
        target = answer["result"]["targets"][0]
        assert target["attack"]["pool"] == EXCHANGE_1["attack"]
        assert (target["attack_hits"], target["defense_hits"], target["net_hits"]) == (4, 1, 3)
        damage = target["damage"]
        assert (damage["dv"], damage["soak_hits"], damage["boxes"], damage["track"]) == (
            EXCHANGE_1["dv"],
            2,
            EXCHANGE_1["boxes"],
            "physical",
        )
        # The phone: the result, the ganger's monitor and line, one round gone, the walk closed.
        expect(walk).to_be_hidden()
        expect(view.locator(".pv-summary")).to_have_text(
            f"sam fires predator (SA, pool {6 + 6}): goon-1 hit, {EXCHANGE_1['boxes']} physical"
            " boxes."
        )
        hit = view.locator('.pv-result-targets [data-target="goon-1"]')
        expect(hit.locator('[data-field="boxes"]')).to_have_text(str(EXCHANGE_1["boxes"]))
        expect(hit.locator(f"{GANGER_TRACK} .box.marked")).to_have_count(EXCHANGE_1["boxes"])
        expect(
            view.locator('.pv-targets [data-target="goon-1"] [data-field="condition"]')
        ).to_have_text(f"9/{GANGER_PHYSICAL} physical, 0/{GANGER_STUN} stun; wounds {GANGER_WOUND}")
        expect(view.locator('[data-weapon="predator"] [data-field="ammo"]')).to_have_text(
            str(PREDATOR_ROUNDS - 1)
        )
        expect(view.locator(".pv-now .pv-help")).to_have_text(
            "sam has 1 free, 1 simple left in this phase."
        )
        given_on_phone = given(anna, ".pv-result .pv-detail")
        assert given_on_phone == {
            "attack": "faces",
            "defense:goon-1": "counts",
            "soak:goon-1": "counts",
        }
        # The GM's screen: the same shot in the feed, the ganger's monitor and wounds.
        expect(gm.locator(f'#feed li[data-event-id="{answer["event_id"]}"]')).to_have_count(1)
        expect_boxes(gm, "goon-1", "physical", EXCHANGE_1["boxes"], GANGER_PHYSICAL)
        expect(wound(gm, "goon-1")).to_have_text(str(GANGER_WOUND))

        # --- the ganger's phase: the GM walks its shot at Sam ------------------------------
        next_phase(gm)
        expect_phase(gm, anna, "Combat turn 1, initiative pass 1: goon-1's phase.", anna_acts=False)
        expect(view.locator(".pv-help", has_text="It is goon-1's phase")).to_have_text(
            "It is goon-1's phase: sam attacks in its own."
        )
        pick(gm, "goon-1", "sam")
        gm.locator("#attack-walk-start").click()
        gm_walk = gm.locator("#attack-walk")
        gm_prompt = gm_walk.locator("#attack-walk-prompt")
        expect(gm_prompt).to_have_text(f"Ganger: roll {EXCHANGE_2['attack']} dice")
        assert violations(gm) == []
        console.enter_step(
            gm, "attack-walk", f"Ganger: roll {EXCHANGE_2['attack']} dice", {"hits": 3, "ones": 1}
        )
        # Sam's dice are Anna's, read off the table: the GM's screen says so.
        expect(gm_walk.locator("#attack-walk-whose")).to_have_text(
            "Sam is played by anna: ask what they rolled."
        )
        console.enter_step(
            gm, "attack-walk", f"Sam: roll {EXCHANGE_2['defense']} dice", SAM_DEFENSE_FACES
        )
        sent, answer = sent_and_answered(
            gm,
            "/attacks",
            lambda: console.enter_step(
                gm, "attack-walk", f"Sam: roll {EXCHANGE_2['soak']} dice", {"hits": 4, "ones": 2}
            ),
        )
        assert sent["dice"] == {
            "attack": {"hits": 3, "ones": 1},
            "defense:sam": [int(face) for face in SAM_DEFENSE_FACES.split()],
            "soak:sam": {"hits": 4, "ones": 2},
        }
        target = answer["result"]["targets"][0]
        assert target["attack"]["pool"] == EXCHANGE_2["attack"]
        assert (target["attack_hits"], target["defense_hits"], target["net_hits"]) == (3, 1, 2)
        damage = target["damage"]
        assert (damage["dv"], damage["armor"], damage["boxes"], damage["track"]) == (
            EXCHANGE_2["dv"],
            8,
            EXCHANGE_2["boxes"],
            "physical",
        )
        gm.locator(f'#result[data-event="{answer["event_id"]}"]').wait_for()
        on = '#result [data-target="sam"]'
        for field, value in (("net_hits", 2), ("dv", 9), ("soak_hits", 4), ("boxes", 5)):
            expect(gm.locator(f"{on} [data-field={field}]")).to_have_text(str(value))
        assert given(gm, "#result") == {
            "attack": "counts",
            "defense:sam": "faces",
            "soak:sam": "counts",
        }
        expect_boxes(gm, "sam", "physical", EXCHANGE_2["boxes"], SAM_PHYSICAL)
        # Anna's phone: Sam's monitor and wound modifier, and the shot in what happened to Sam.
        expect_monitor(anna, "sam", (EXCHANGE_2["boxes"], SAM_PHYSICAL), (0, SAM_STUN))
        expect(view.locator('.pv-wound [data-field="wound_modifier"]')).to_have_text(str(SAM_WOUND))
        expect(view.locator(f'.pv-feed li[data-event-id="{answer["event_id"]}"]')).to_contain_text(
            f"sam hit, {EXCHANGE_2['boxes']} physical boxes"
        )

        # --- pass 2: Sam alone; the ganger's dice are the service's again -----------------
        next_phase(gm)
        expect_phase(gm, anna, "Combat turn 1, initiative pass 2: sam's phase.", anna_acts=True)
        dice_policy(gm, url, encounter, "own")
        anna.locator("#pv-roll").tap()
        expect(prompt).to_have_text(f"Sam: roll {EXCHANGE_3['attack']} dice")
        expect(walk.get_by_label("Hits and ones")).to_be_checked()
        more = walk.get_by_role("button", name="Hits: one more")
        for _ in range(EXCHANGE_3["hits"]):
            more.tap()
        walk.get_by_role("button", name="Ones: one more").tap()
        walk.get_by_role("button", name="Enter dice").tap()
        expect(prompt).to_have_text(
            "Waiting for Ganger's dice: not this page's to give. Let the service roll the rest."
        )
        sent, answer = sent_and_answered(
            anna, "/attacks", walk.get_by_role("button", name="Let the service roll the rest").tap
        )
        assert sent["dice"] == {"attack": {"hits": 5, "ones": 1}}
        target = answer["result"]["targets"][0]
        assert target["attack"]["pool"] == EXCHANGE_3["attack"]
        assert target["defense"]["pool"] == EXCHANGE_3["defense_pool"]
        net = target["net_hits"]
        assert target["attack_hits"] == EXCHANGE_3["hits"] and 2 <= net <= 5
        assert target["outcome"] == "hit"
        boxes = target["damage"]["boxes"]
        assert target["damage"]["dv"] == 8 + net and target["damage"]["track"] == "physical"
        marked = min(GANGER_PHYSICAL, 9 + boxes)
        assert given(anna, ".pv-result .pv-detail") == {
            "attack": "counts",
            "defense:goon-1": "rolled",
            "soak:goon-1": "rolled",
        }
        # Both screens show what the service rolled for the ganger, drawn on its monitor.
        expect(hit.locator('[data-field="boxes"]')).to_have_text(str(boxes))
        expect(hit.locator(f"{GANGER_TRACK} .box.marked")).to_have_count(marked)
        expect_boxes(gm, "goon-1", "physical", marked, GANGER_PHYSICAL)
        expect(view.locator('[data-weapon="predator"] [data-field="ammo"]')).to_have_text(
            str(PREDATOR_ROUNDS - 2)
        )

        # The last phase of the combat turn: the next waits for its initiative, on both.
        next_phase(gm)
        expect_phase(
            gm, anna, "Combat turn 1 is over: roll initiative for combat turn 2.", anna_acts=False
        )
        expect(view.locator(".pv-now .pv-help")).to_have_text("The GM starts the next combat turn.")
        expect_compact(anna, PHONE["width"])
        assert violations(anna) == []
        assert errors == [], f"Anna's page threw: {errors}"
    finally:
        anna.context.close()


# --- d100 on a phone: every step is faces ---------------------------------------------------
# Vex (Bo's): Marksmanship 55, Active Defense 40, 30 hit points, armour 3, an SMG (7 + 2d6, 30
# rounds). The ganger (the GM's), 12.7 m away at (9, 9): Marksmanship 45, Active Defense 30,
# 30 hit points, armour 2, a pistol (5 + 1d6). docs/rulesets/d100.md: hits = 1 + (Success
# Target - roll) div 10 on a success; damage = flat + bonus dice + net hits; the d10 location
# (1 head, 4-8 torso); the wound = damage - armour; -10 once half the hit points are gone.
SMG = console.D100_SMG
PISTOL = {
    "id": "pistol",
    "damage": 5,
    "bonus_dice": 1,
    "ammo": 12,
    "shot_rate": 0,
    "range_bands": [{"up_to_m": 20, "modifier": 0}],
}
VEX = {
    "name": "Vex",
    "position": {"x": 0, "y": 0},
    "sheet": {
        "ruleset": "d100",
        "marksmanship": 55,
        "defense": 40,
        "hit_points": 30,
        "armor": 3,
        "weapons": [SMG],
    },
}
D100_GANGER = {
    "name": "Ganger",
    "position": {"x": 9, "y": 9},
    "sheet": {
        "ruleset": "d100",
        "marksmanship": 45,
        "defense": 30,
        "hit_points": 30,
        "armor": 2,
        "weapons": [PISTOL],
    },
}
# Vex, a single shot (Shot Rate 0) at 12.7 m (band 2: +0): 05 against 55 is 1 + 50 div 10 = 6
# hits; the ganger's 99 against 30 fails: 6 net. Bonus 3 + 4 = 7: 7 + 7 + 6 = 20 damage; a 5
# is the torso: 20 - 2 = 18 of the ganger's 30 hit points, half gone: -10.
VEX_DICE = [("Vex: roll 1d100", "5"), ("Ganger: roll 1d100", "99")]
VEX_DICE += [("Vex: roll 2 dice", "3 4"), ("Vex: roll 1d10", "5")]
GANGER_WOUND_D100 = 18
# The ganger back, wounded: 45 - 10 = 35; 23 is 1 + 12 div 10 = 2 hits; Vex's 87 against 40
# fails: 2 net. 5 + 4 + 2 = 11 damage at the head (a 1): 11 - 3 = 8 of Vex's 30, no penalty.
GANGER_DICE = [("Ganger: roll 1d100", "23"), ("Vex: roll 1d100", "87")]
GANGER_DICE += [("Ganger: roll 1 die", "4"), ("Ganger: roll 1d10", "1")]
VEX_WOUND = 8


def test_a_d100_exchange_on_a_phone_is_faces_only(gm: Page, browser: Browser, url: str) -> None:
    from playwright.sync_api import expect

    encounter = console.create_encounter(gm, ruleset="d100", name="Rooftop", typed_in=False)
    console.put_actor(gm, url, encounter, "vex", VEX)
    console.put_actor(gm, url, encounter, "ganger-1", D100_GANGER)
    link = console.players_link(gm, "bo", "vex")
    any_dice(gm, url, encounter)
    errors: list[str] = []
    bo = open_link(browser, link, PHONE, errors)
    try:
        view = bo.locator("#player-view")
        expect(bo.locator("#pv-fire")).to_have_text("Attack ganger-1")
        bo.locator("#pv-mode").select_option("SR0")
        bo.locator("#pv-roll").tap()
        walk = view.locator("#pv-walk")
        # Faces only, every step: no choice of form, no hits and ones.
        for number, (prompt, faces) in enumerate(VEX_DICE):
            expect(walk.locator("#pv-walk-prompt")).to_have_text(prompt)
            expect(walk.locator("input[type=radio]")).to_have_count(0)
            expect(walk.locator(".walk-counts")).to_have_count(0)
            if number == 0:
                expect(walk.get_by_label("Faces rolled (1 die, d100)")).to_be_focused()
                expect_compact(bo, PHONE["width"])
            if number < len(VEX_DICE) - 1:
                console.enter_step(bo, "pv-walk", prompt, faces, tap=True)
        prompt, faces = VEX_DICE[-1]
        sent, answer = sent_and_answered(
            bo, "/attacks", lambda: console.enter_step(bo, "pv-walk", prompt, faces, tap=True)
        )
        assert sent["dice"] == {
            "attack": [5],
            "defense:ganger-1": [99],
            "bonus:ganger-1": [3, 4],
            "location:ganger-1": [5],
        }
        target = answer["result"]["targets"][0]
        assert (target["attack"]["hits"], target["net_hits"]) == (6, 6)
        damage = target["damage"]
        assert (damage["damage"], damage["location"], damage["wound"]) == (20, "torso", 18)
        # Bo's phone: the wound on the ganger's line, 29 rounds left.
        expect(
            view.locator('.pv-targets [data-target="ganger-1"] [data-field="condition"]')
        ).to_have_text(f"{GANGER_WOUND_D100}/30 hit points lost; wounds -10")
        expect(view.locator('[data-weapon="smg"] [data-field="ammo"]')).to_have_text("29")
        assert set(given(bo, ".pv-result .pv-detail").values()) == {"faces"}

        # The GM's ganger shoots back, wounded, from the desktop: faces only there too.
        pick(gm, "ganger-1", "vex")
        gm.locator("#attack-walk-start").click()
        for prompt, faces in GANGER_DICE[:-1]:
            console.enter_step(gm, "attack-walk", prompt, faces)
        prompt, faces = GANGER_DICE[-1]
        sent, answer = sent_and_answered(
            gm, "/attacks", lambda: console.enter_step(gm, "attack-walk", prompt, faces)
        )
        target = answer["result"]["targets"][0]
        assert target["attack"]["success_target"] == 45 - 10
        assert (target["attack"]["hits"], target["net_hits"]) == (2, 2)
        damage = target["damage"]
        assert (damage["damage"], damage["location"], damage["wound"]) == (11, "head", VEX_WOUND)
        # Bo's phone: Vex's hit points lost, no penalty yet (8 of 30), the shot in Vex's feed.
        on = '#player-view .pv-monitor [data-monitor="vex"]'
        expect(bo.locator(f'{on} [data-field="physical"]')).to_have_text(str(VEX_WOUND))
        expect(view.locator('.pv-wound [data-field="wound_modifier"]')).to_have_text("0")
        expect(view.locator(f'.pv-feed li[data-event-id="{answer["event_id"]}"]')).to_have_count(1)
        assert errors == [], f"Bo's page threw: {errors}"
    finally:
        bo.context.close()

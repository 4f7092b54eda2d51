"""Issue 27, physical dice first, in Chromium: "Roll at the table" walks the table through a
request's dice step by step, as POST .../dice says them ("Sam: roll 11 dice", then the
ganger's), each step entered as faces or as hits and ones, a step that follows from the dice
before it (the soak after the net hits, d100's bonus dice) asked for in its turn, and the
request sent once every die is in. The counts and the results are worked by hand from the sheets
below."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tests import console_browser as console
from tests import sr5_requests as make
from tests.test_console import browser, page, url

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Locator, Page

# The browser, the served console and a fresh page: tests/test_console.py's own.
__all__ = ["browser", "page", "url"]

# The README's Sam (Agility 6, Firearms 6, the Predator: 8P, AP -1) 12 m from the ganger
# (Reaction 3, Intuition 3, Body 4, armour 9): Sam rolls 6 + 6 - 1 (medium range) = 11 dice;
# the ganger defends with 3 + 3 = 6 and soaks with 4 + 9 - 1 (AP) = 12.
SAM = make.README_SAM
GANGER = {"name": "Ganger", "position": {"x": 12, "y": 0}, "sheet": make.README_GANGER_SHEET}
# 4 hits (the 5s and 6s) and 2 ones of 11.
ATTACK_FACES = "6 6 5 5 3 2 1 1 4 4 3"


def sr5_scene(page: Page, url: str) -> str:
    encounter = console.create_encounter(page)
    console.put_actor(page, url, encounter, "sam", SAM)
    console.put_actor(page, url, encounter, "goon-1", GANGER)
    return encounter


def pick(page: Page, attacker: str, target: str) -> None:
    from playwright.sync_api import expect

    picker = page.get_by_role("button", name=f"Attacker: {attacker}")
    # A player's page with one armed actor has it picked already: a click would put it back.
    if picker.get_attribute("aria-pressed") != "true":
        picker.click()
    expect(picker).to_have_attribute("aria-pressed", "true")
    page.get_by_role("button", name=f"Target {target}").click()
    expect(page.locator(f"#scene-target-{target}")).to_be_checked()


def walk_of(page: Page) -> Locator:
    return page.locator("#attack-walk")


def answer_of(page: Page, click: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """Runs `click()`, the last step of a walk; returns the attack sent and the service's 201
    answer, once the page shows it."""
    with (
        page.expect_request(lambda r: r.url.endswith("/attacks") and r.method == "POST") as sent,
        page.expect_response(
            lambda r: r.url.endswith("/attacks") and r.request.method == "POST"
        ) as answered,
    ):
        click()
    response = answered.value
    assert response.status == 201, response.text()
    body: dict[str, Any] = response.json()
    page.locator(f'#result[data-event="{body["event_id"]}"]').wait_for()
    request: dict[str, Any] = sent.value.post_data_json
    return request, body


def given_as(page: Page) -> dict[str, str]:
    """Each step of the result's dice, as the page says it was given."""
    steps = page.locator("#result .dice-step")
    return {
        steps.nth(i).get_attribute("data-step") or "": steps.nth(i).get_attribute("data-given")
        or ""
        for i in range(steps.count())
    }


def test_the_gm_walks_an_sr5_attack_faces_then_hits_and_ones_then_the_soak(
    page: Page, url: str
) -> None:
    from playwright.sync_api import expect

    sr5_scene(page, url)
    # No target yet: the form's problem is said in the walk, at the field.
    page.get_by_role("button", name="Attacker: sam").click()
    page.get_by_role("button", name="Roll at the table").click()
    walk = walk_of(page)
    expect(walk.locator("#attack-walk-error")).to_have_text("Pick a target from the scene")
    expect(page.locator("#scene-target-goon-1")).to_be_focused()
    page.get_by_role("button", name="Target goon-1").click()
    page.get_by_role("button", name="Roll at the table").click()
    prompt = walk.locator("#attack-walk-prompt")
    expect(prompt).to_have_text("Sam: roll 11 dice")
    expect(walk.locator("#attack-walk-error")).to_be_hidden()
    expect(walk.locator("#attack-walk-later")).to_have_text(
        "Then: Ganger: roll 6 dice (if it comes to it); Ganger: roll 12 dice (if it comes to it);"
        " then more, once these are known."
    )
    # The attack as faces: one too many first, refused by the service at that step.
    walk.get_by_label("Faces", exact=True).check()
    faces = walk.get_by_label("Faces rolled (11 dice, d6)")
    expect(faces).to_be_focused()
    faces.fill(ATTACK_FACES + " 2")
    faces.press("Enter")
    expect(walk.locator("#attack-walk-error")).to_contain_text('dice["attack"]')
    expect(prompt).to_have_text("Sam: roll 11 dice")
    expect(faces).to_be_focused()
    expect(faces).to_have_attribute("aria-invalid", "true")
    faces.fill(ATTACK_FACES)
    faces.press("Enter")
    # The defense, now certain (the attack has hits), as hits and ones with the steppers.
    expect(prompt).to_have_text("Ganger: roll 6 dice")
    expect(walk.locator('#attack-walk-so-far li[data-step="attack"]')).to_have_text(
        f"Sam, attack (faces): {ATTACK_FACES}: 4 hits, 2 ones"
    )
    walk.get_by_label("Hits and ones").check()
    hits = walk.get_by_label("Hits", exact=True)
    expect(hits).to_be_focused()
    walk.get_by_role("button", name="Hits: one more").click()
    walk.get_by_role("button", name="Hits: one more").click()
    walk.get_by_role("button", name="Hits: one fewer").click()
    expect(hits).to_have_value("1")
    walk.get_by_role("button", name="Enter dice").click()
    # 4 hits against 1: a hit, so the soak of 12 dice is asked for now.
    expect(prompt).to_have_text("Ganger: roll 12 dice")
    expect(walk.locator('#attack-walk-so-far li[data-step="defense:goon-1"]')).to_have_text(
        "Ganger, defense:goon-1 (counts): 1 hit, 0 ones"
    )
    # The form last used is offered first.
    expect(walk.get_by_label("Hits and ones")).to_be_checked()
    walk.get_by_label("Hits", exact=True).fill("2")
    walk.get_by_label("Ones", exact=True).fill("1")
    request, answer = answer_of(page, walk.get_by_role("button", name="Enter dice").click)

    assert request["dice"] == {
        "attack": [6, 6, 5, 5, 3, 2, 1, 1, 4, 4, 3],
        "defense:goon-1": {"hits": 1, "ones": 0},
        "soak:goon-1": {"hits": 2, "ones": 1},
    }
    assert (request["attacker"], request["weapon"]) == ("sam", "predator")
    # Net hits 4 - 1 = 3; DV 8 + 3 = 11 against armour 9 - 1 = 8: physical; soak 2 of 12:
    # 11 - 2 = 9 boxes.
    target = answer["result"]["targets"][0]
    assert (target["attack_hits"], target["defense_hits"], target["net_hits"]) == (4, 1, 3)
    damage = target["damage"]
    assert (damage["dv"], damage["armor"], damage["soak_hits"], damage["boxes"]) == (11, 8, 2, 9)
    on = '#result [data-target="goon-1"]'
    for field, shown in (("net_hits", "3"), ("dv", "11"), ("soak_hits", "2"), ("boxes", "9")):
        expect(page.locator(f"{on} [data-field={field}]")).to_have_text(shown)
    # The result says which form each step was given in.
    forms = {"attack": "faces", "defense:goon-1": "counts", "soak:goon-1": "counts"}
    assert given_as(page) == forms
    expect(page.locator('#result .dice-step[data-step="soak:goon-1"] h4')).to_have_text(
        "soak:goon-1 — 12d6, given as counts (2 hits, 1 one)"
    )
    # The walk is done; the result has the focus.
    expect(walk).to_be_hidden()
    expect(page.locator("#result-heading")).to_be_focused()


def test_a_player_on_a_phone_gives_their_own_dice_and_leaves_the_rest_to_the_service(
    page: Page, url: str, browser: Browser
) -> None:
    """Anna plays Sam on a 390 x 844 phone: her attack's dice as hits and ones with the steppers,
    then the ganger's step is not hers to give (the default dice policy): the service rolls it."""
    from playwright.sync_api import expect

    sr5_scene(page, url)
    link = console.players_link(page, "anna", "sam")
    # The GM's screen gives every step, saying whose player rolls it; Cancel gives the focus back.
    pick(page, "sam", "goon-1")
    page.get_by_role("button", name="Roll at the table").click()
    expect(page.locator("#attack-walk-prompt")).to_have_text("Sam: roll 11 dice")
    expect(page.locator("#attack-walk-whose")).to_have_text(
        "Sam is played by anna: ask what they rolled."
    )
    page.locator("#attack-walk").get_by_role("button", name="Cancel").click()
    expect(page.locator("#attack-walk")).to_be_hidden()
    expect(page.get_by_role("button", name="Roll at the table")).to_be_focused()
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True)
    phone = context.new_page()
    phone.set_default_timeout(15_000)
    try:
        phone.goto(link)
        # Her own link opens the view of her actor (its own walk: tests/test_console_fight.py);
        # the full table's form, one tap away, walks the same.
        phone.locator("#feed-status[data-state=live]").wait_for(state="attached")
        phone.get_by_role("button", name="The full table").tap()
        phone.locator("#feed-status[data-state=live]").wait_for()
        # Her link plays one armed actor: her page attacks with it without asking.
        console.wait_picked(phone, "sam")
        pick(phone, "sam", "goon-1")
        phone.get_by_role("button", name="Roll at the table").tap()
        walk = walk_of(phone)
        prompt = walk.locator("#attack-walk-prompt")
        expect(prompt).to_have_text("Sam: roll 11 dice")
        # Hits and ones first: what a Shadowrun player counts.
        expect(walk.get_by_label("Hits and ones")).to_be_checked()
        more = walk.get_by_role("button", name="Hits: one more")
        for _ in range(4):
            more.tap()
        walk.get_by_role("button", name="Ones: one more").tap()
        expect(walk.get_by_label("Hits", exact=True)).to_have_value("4")
        # A thumb's width, and nothing wider than the phone.
        for control in (more, walk.get_by_label("Hits", exact=True)):
            box = control.bounding_box()
            assert box is not None and box["height"] >= 44 and box["width"] >= 44, box
        box = walk.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
        assert walk.evaluate("w => w.scrollWidth <= w.clientWidth")
        walk.get_by_role("button", name="Enter dice").tap()
        expect(prompt).to_have_text(
            "Waiting for Ganger's dice: not this page's to give. Let the service roll the rest."
        )
        expect(walk.get_by_role("button", name="Enter dice")).to_have_count(0)
        expect(walk.get_by_role("button", name="Let the service roll the rest")).to_be_focused()
        request, answer = answer_of(
            phone, walk.get_by_role("button", name="Let the service roll the rest").tap
        )
        assert request["dice"] == {"attack": {"hits": 4, "ones": 1}}
        target = answer["result"]["targets"][0]
        assert target["attack_hits"] == 4
        shown_hits = phone.locator('#result [data-target="goon-1"] [data-field=attack_hits]')
        expect(shown_hits).to_have_text("4")
        shown = given_as(phone)
        assert shown["attack"] == "counts" and shown["defense:goon-1"] == "rolled", shown
    finally:
        context.close()


def test_an_sr3_target_number_test_is_given_as_successes_and_ones(page: Page, url: str) -> None:
    """SR3 by names (tests/test_console_sr3_sr4.py's scene): Sam's skill 4 at TN 4 (heavy pistol,
    short range at 5 m), the goon's Body 4 against Power 9 - ballistic 5 = 4. 2 successes, then
    1 against Moderate: staged to M, 3 boxes."""
    from playwright.sync_api import expect

    encounter = console.create_encounter(page, ruleset="sr3", name="Redmond")
    predator = {
        "id": "predator",
        "category": "heavy_pistol",
        "power": 9,
        "damage_level": "M",
        "modes": ["SA"],
        "ammo": 15,
    }
    sam = {"ruleset": "sr3", "skill": 4, "quickness": 5, "intelligence": 4, "willpower": 3}
    sam["weapons"] = [predator]  # type: ignore[assignment]
    console.put_actor(page, url, encounter, "sam", {"position": {"x": 0, "y": 0}, "sheet": sam})
    jacket = {"name": "armor jacket", "ballistic": 5, "impact": 3}
    goon = {"ruleset": "sr3", "body": 4, "armor": [jacket]}
    console.put_actor(page, url, encounter, "goon-7", {"position": {"x": 3, "y": 4}, "sheet": goon})
    pick(page, "sam", "goon-7")
    # From the keyboard alone: the focus goes to the number to give, arrows count, Enter enters.
    page.get_by_role("button", name="Roll at the table").focus()
    page.keyboard.press("Enter")
    walk = walk_of(page)
    prompt = walk.locator("#attack-walk-prompt")
    expect(prompt).to_have_text("sam: roll 4 dice against 4")
    expect(walk.get_by_label("Successes and ones")).to_be_checked()
    successes = walk.get_by_label("Successes", exact=True)
    expect(successes).to_be_focused()
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowUp")
    page.keyboard.press("Enter")
    expect(prompt).to_have_text("goon-7: roll 4 dice against 4")
    expect(walk.locator('#attack-walk-so-far li[data-step="attack"]')).to_have_text(
        "sam, attack (counts): 3 successes, 0 ones"
    )
    # Back a step: the attack is asked again, as it was typed.
    walk.get_by_role("button", name="Back a step").click()
    expect(prompt).to_have_text("sam: roll 4 dice against 4")
    expect(successes).to_have_value("3")
    expect(successes).to_be_focused()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    expect(prompt).to_have_text("goon-7: roll 4 dice against 4")
    expect(successes).to_be_focused()
    page.keyboard.press("ArrowUp")
    request, answer = answer_of(page, lambda: page.keyboard.press("Enter"))
    assert request["dice"] == {
        "attack": {"successes": 2, "ones": 0},
        "resist:goon-7": {"successes": 1, "ones": 0},
    }
    result = answer["result"]
    assert (result["attack"]["target_number"], result["attack"]["successes"]) == (4, 2)
    damage = result["target"]["damage"]
    assert (damage["resist"]["successes"], damage["level"], damage["boxes"]) == (1, "M", 3)
    expect(page.locator('#result [data-target="goon-7"] [data-field=boxes]')).to_have_text("3")
    assert given_as(page) == {"attack": "counts", "resist:goon-7": "counts"}


def test_d100_takes_faces_only_and_asks_for_the_bonus_dice_after_the_hit(
    page: Page, url: str
) -> None:
    """Vex (Marksmanship 55, SMG 7 + 2d6) at ganger-1 (Active Defense 30, armour 2) 12.7 m
    away (band 2: +0), single shot: 05 against 55 is 1 + 50 div 10 = 6 hits; 99 against 30 fails:
    6 net. The bonus 3 + 4 = 7: damage 7 + 7 + 6 = 20; a 5 on the d10 is the torso: 20 - 2 = 18."""
    from playwright.sync_api import expect

    encounter = console.create_encounter(page, ruleset="d100")
    console.put_d100_vex_and_ganger(page, url, encounter)
    pick(page, "vex", "ganger-1")
    page.get_by_label("Firing mode").select_option("SR0")
    page.get_by_role("button", name="Roll at the table").click()
    walk = walk_of(page)
    prompt = walk.locator("#attack-walk-prompt")
    expect(prompt).to_have_text("vex: roll 1d100")
    # Faces only: no choice of form, no counts.
    expect(walk.locator("input[type=radio]")).to_have_count(0)
    expect(walk.locator(".walk-counts")).to_have_count(0)
    for step, faces in (
        ("ganger-1: roll 1d100", "5"),
        ("vex: roll 2 dice", "99"),
        ("vex: roll 1d10", "3 4"),
    ):
        walk.get_by_label("Faces rolled", exact=False).fill(faces)
        walk.get_by_role("button", name="Enter dice").click()
        expect(prompt).to_have_text(step)
        expect(walk.locator("input[type=radio]")).to_have_count(0)
    walk.get_by_label("Faces rolled", exact=False).fill("5")
    request, answer = answer_of(page, walk.get_by_role("button", name="Enter dice").click)
    assert request["dice"] == {
        "attack": [5],
        "defense:ganger-1": [99],
        "bonus:ganger-1": [3, 4],
        "location:ganger-1": [5],
    }
    target = answer["result"]["targets"][0]
    assert (target["attack"]["hits"], target["net_hits"]) == (6, 6)
    damage = target["damage"]
    assert (damage["bonus_hits"], damage["damage"], damage["location"]) == (7, 20, "torso")
    assert (damage["effective_armor"], damage["wound"]) == (2, 18)
    assert set(given_as(page).values()) == {"faces"}


def test_a_zone_test_is_walked_through_its_test_then_its_soak(page: Page) -> None:
    """tests/test_console_turns.py's suppressive burst (5 hits on the zone) and goon-1's test in
    it: Reaction 3 dice, then, 0 hits of 5 (hit), the soak of Body 4 + armour 9 - 1 = 12: 3 hits
    take the Predator's 8 to 5 boxes."""
    from playwright.sync_api import expect

    console.create_encounter(page, name="Zone test")
    console.sr5_assault_rifle_on_suppressive(page)
    console.place(page, "aim point x (m)", 20)
    page.locator('#dice-steps input[data-step="suppression"]').fill("6 5 5 1 2 3 4 5 6 1 2 3")
    console.resolve(page)
    page.get_by_role("button", name="Test an actor against zone-1").click()
    expect(page.locator("#zone-test-actor")).to_have_value("goon-1")
    page.get_by_role("button", name="Roll the test at the table").click()
    walk = page.locator("#zone-test-walk")
    prompt = walk.locator("#zone-test-walk-prompt")
    expect(prompt).to_have_text("goon-1: roll 3 dice")
    walk.get_by_role("button", name="Ones: one more").click()
    walk.get_by_role("button", name="Enter dice").click()
    expect(prompt).to_have_text("goon-1: roll 12 dice")
    walk.get_by_label("Hits", exact=True).fill("3")
    with (
        page.expect_request(lambda r: r.url.endswith("/zones/zone-1/tests")) as sent,
        page.expect_response(lambda r: r.url.endswith("/zones/zone-1/tests")) as answered,
    ):
        walk.get_by_role("button", name="Enter dice").click()
    assert sent.value.post_data_json["dice"] == {
        "zone_test:goon-1": {"hits": 0, "ones": 1},
        "soak:goon-1": {"hits": 3, "ones": 0},
    }
    result = answered.value.json()["result"]
    assert (result["threshold"], result["test"]["hits"], result["hit"]) == (5, 0, True)
    assert (result["damage"]["soak_hits"], result["damage"]["boxes"]) == (3, 5)
    expect(page.locator("#result-summary")).to_have_text(
        "goon-1 tests against zone-1: 0 hits of 5, hit, 5 physical boxes."
    )


def test_the_walk_asks_again_while_the_tokens_previews_are_busy(page: Page, url: str) -> None:
    """POST .../dice counts as a preview: while the token's previews are all in flight (on a
    slow machine a Hard Life preview takes seconds) it is answered 429. The walk asks again
    until it is answered, here after five busy answers (about 4.5 s of them), and shows the
    first step: it does not leave the table stuck on an error."""
    from playwright.sync_api import Route, expect

    encounter = sr5_scene(page, url)
    busy = {"left": 5}

    def dice(route: Route) -> None:
        if route.request.method == "POST" and busy["left"] > 0:
            busy["left"] -= 1
            route.fulfill(
                status=429,
                content_type="application/problem+json",
                headers={"Retry-After": "1"},
                body='{"type": "https://firefight.dev/problems/too-many-previews", '
                '"title": "Too many previews", "status": 429, '
                '"detail": "this token has 2 previews in flight"}',
            )
        else:
            route.continue_()

    page.route(f"**/v1/encounters/{encounter}/dice", dice)
    pick(page, "sam", "goon-1")
    page.get_by_role("button", name="Roll at the table").click()
    expect(walk_of(page).locator("#attack-walk-prompt")).to_have_text(
        "Sam: roll 11 dice", timeout=15_000
    )
    assert busy["left"] == 0

"""A player's own link on a phone (issue 27, "Players on their phones"), in Chromium against the
real service: the view of their own actor at 390 x 844 and at a desktop's size, with the numbers
a given-dice attack left worked by hand, a one-tap attack with the player's own dice, and nothing
of a hidden actor.

The SR5 numbers below follow the README's shot (000, "3b" and "Defender rolls their Body +
Modified Armor Value"; the tracks and wound modifiers from the SR5 core rules, pp. 169-170, as
rules-sources/README.md takes them), without a smartlink: the phone's one tap asks the plain
attack, the gun's default mode and no options."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from tests import console_browser as console
from tests import sr5_requests as make
from tests.test_console import browser, page, url
from tests.test_console_monitors import any_dice

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

# The browser, the served console and a fresh page: tests/test_console.py's own.
__all__ = ["browser", "page", "url"]

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
# A page a player scrolls on a phone, not the 10,915 px the full table was at this width.
MAX_HEIGHT_PX = 2500
TAP_PX = 44
TEXT_PX = 14

PREDATOR = make.README_PREDATOR
# Sam as the README has it, with what a defender needs: Reaction 3 + Intuition 3 dice to
# defend, Body 6 (11 physical boxes: 8 + ceil(6 / 2)), Willpower 3 (10 stun: 8 + ceil(3 / 2)).
SAM = {
    "name": "Sam",
    "position": {"x": 0, "y": 0},
    "sheet": {
        **make.README_SAM["sheet"],
        "reaction": 3,
        "intuition": 3,
        "body": 6,
        "willpower": 3,
        "armor": 9,
    },
}
SAM_PHYSICAL = 8 + 3
SAM_STUN = 8 + 2
# Kit: Anna's second actor, with a gun of its own.
ARES = {**PREDATOR, "id": "ares", "category": "light_pistol", "damage": 6, "ap": 0, "ammo": 12}
KIT = {"name": "Kit", "position": {"x": 0, "y": -4}, "sheet": {**SAM["sheet"], "weapons": [ARES]}}
# The README's ganger (Body 4: 10 physical boxes; Willpower 2: 9 stun), 12 m from Sam.
GANGER = {**make.README_GANGER_SHEET, "willpower": 2}
GOON = {"name": "Goon", "position": {"x": 12, "y": 0}, "sheet": GANGER}
GOON_PHYSICAL = 8 + 2
GOON_STUN = 8 + 1
# The GM's shooter, 15 m from Sam, with Sam's numbers and gun.
BOSS = {"name": "Boss", "position": {"x": 0, "y": 15}, "sheet": make.README_SAM["sheet"]}
# Hidden from the players, nearer to Sam than anyone.
LURKER = {"hidden": True, "position": {"x": 3, "y": 3}, "sheet": GANGER}

# The boss shoots Sam at 15 m (medium range, -1): Agility 6 + Firearms 6 - 1 = 11 dice, 4 hits
# (limit: Accuracy 5); Sam's Reaction 3 + Intuition 3 = 6 dice, 1 hit; 3 net hits. DV 8 + 3 =
# 11 against armour 9 - AP 1 = 8: physical. Body 6 + 8 = 14 soak dice, 2 hits: 11 - 2 = 9 boxes
# of Sam's 11; -1 per 3 boxes: a wound modifier of -3.
BOSS_DICE = {
    "attack": [6, 5, 5, 5, 2, 3, 1, 4, 2, 3, 4],
    "defense:sam": [5, 2, 3, 1, 4, 2],
    "soak:sam": [5, 6, 1, 2, 3, 4, 2, 2, 3, 4, 1, 3, 2, 1],
}
SAM_BOXES = 11 - 2
SAM_WOUND = -(SAM_BOXES // 3)
# Then Sam, wounded, shoots the ganger at 12 m with one tap: 6 + 6 - 3 (wounds) - 1 (range) = 8
# dice, 4 hits; the ganger's 6 dice, 1 hit; 3 net: DV 11 against armour 8, physical; Body 4 + 8
# = 12 soak dice, 2 hits: 9 of the ganger's 10 boxes, -3. (The shot's pool before the range is
# the one its summary names.)
SAM_SHOT_POOL = 6 + 6 + SAM_WOUND
SAM_POOL = SAM_SHOT_POOL - 1
PHONE_DICE = {
    "attack": "6 5 5 5 2 3 1 4",
    "defense:goon-1": "5 2 3 1 4 2",
    "soak:goon-1": "5 6 1 2 3 4 2 2 3 4 1 3",
}
GOON_BOXES = 11 - 2
GOON_WOUND = -(GOON_BOXES // 3)
# One semi-automatic shot: 15 rounds loaded, 14 left.
AMMO_LEFT = 15 - 1


def open_link(browser: Browser, link: str, viewport: dict[str, int], errors: list[str]) -> Page:
    """The player's link on a machine of their own (own storage), at `viewport`; what the page
    throws goes into `errors`."""
    context = browser.new_context(viewport=viewport, has_touch=viewport == PHONE)
    opened = context.new_page()
    opened.set_default_timeout(15_000)
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.goto(link)
    opened.locator("#feed-status[data-state=live]").wait_for(state="attached")
    return opened


def gm_post(page: Page, url: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    answer = page.request.post(
        f"{url}{path}",
        headers={"Authorization": f"Bearer {console.gm_token(page)}"},
        data=body,
    )
    assert answer.ok, answer.text()
    answered: dict[str, Any] = answer.json()
    return answered


def layout(page: Page) -> dict[str, Any]:
    """What a phone's user meets: the page's size, and every control of the view smaller than a
    tap target or text smaller than 14 px that is shown (a picture's marks aside)."""
    measured: dict[str, Any] = page.evaluate(
        """([tap, text]) => {
          const root = document.getElementById("player-view");
          const shown = (e) => {
            const r = e.getBoundingClientRect();
            return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== "hidden";
          };
          const name = (e) =>
            e.id || e.dataset.target || e.dataset.actor || e.textContent.trim().slice(0, 30);
          const controls = root.querySelectorAll(
            "button, select, input:not([type=radio]), summary, label.pv-weapon, [role=button]");
          const size = (e) => {
            const r = e.getBoundingClientRect();
            return [Math.round(r.width), Math.round(r.height)];
          };
          const small = [...controls].filter(shown)
            .filter((e) => Math.min(...size(e)) < tap)
            .map((e) => `${name(e)}: ${size(e).join("x")}`);
          const tiny = [];
          const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
          while (walker.nextNode()) {
            const node = walker.currentNode;
            const parent = node.parentElement;
            const picture = parent.closest("[aria-hidden=true]");
            if (!node.textContent.trim() || !shown(parent) || picture) continue;
            const size = parseFloat(getComputedStyle(parent).fontSize);
            if (size < text) tiny.push(`${node.textContent.trim().slice(0, 30)}: ${size}px`);
          }
          const page = document.documentElement;
          return { width: page.scrollWidth, height: page.scrollHeight, small, tiny };
        }""",
        [TAP_PX, TEXT_PX],
    )
    return measured


def roll_phone_dice(anna: Page, tap: bool = True) -> None:
    """Anna's shot at the ganger rolled at the table (the GM lets players give every die):
    PHONE_DICE's faces, step by step, as the walk asks for them; the attack goes with the last."""
    anna.locator("#pv-roll").tap() if tap else anna.locator("#pv-roll").click()
    prompts = {
        "attack": f"Sam: roll {SAM_POOL} dice",
        "defense:goon-1": "Goon: roll 6 dice",
        "soak:goon-1": "Goon: roll 12 dice",
    }
    for step, faces in PHONE_DICE.items():
        console.enter_step(anna, "pv-walk", prompts[step], faces, tap=tap)


def expect_compact(page: Page, width: int) -> None:
    measured = layout(page)
    assert measured["width"] <= width, f"scrolls sideways: {measured['width']} px"
    assert measured["height"] < MAX_HEIGHT_PX, f"{measured['height']} px tall"
    assert measured["small"] == [], f"smaller than {TAP_PX} px: {measured['small']}"
    assert measured["tiny"] == [], f"text under {TEXT_PX} px: {measured['tiny']}"


def expect_monitor(
    page: Page, actor: str, physical: tuple[int, int], stun: tuple[int, int]
) -> None:
    from playwright.sync_api import expect

    on = f'#player-view .pv-monitor [data-monitor="{actor}"]'
    for track, (marked, size) in (("physical", physical), ("stun", stun)):
        expect(page.locator(f'{on} [data-track="{track}"] .box')).to_have_count(size)
        expect(page.locator(f'{on} [data-track="{track}"] .box.marked')).to_have_count(marked)
        expect(page.locator(f'{on} [data-field="{track}"]')).to_have_text(str(marked))


def set_table(page: Page, url: str) -> dict[str, Any]:
    """The GM's table, from the GM's console on `page`: Sam and Kit (Anna's), the ganger, the
    boss and a hidden lurker on an sr5 scene where players give every die; the boss has shot Sam
    (9 boxes) and the service runs the initiative, Sam first. Returns the encounter, Anna's link
    and the boss's shot's event id. (tests/console_screenshot_phone.py sets the same table.)"""
    encounter = console.create_encounter(page, name="Docks")
    for actor, body in {
        "sam": SAM,
        "kit": KIT,
        "goon-1": GOON,
        "boss": BOSS,
        "lurker": LURKER,
    }.items():
        console.put_actor(page, url, encounter, actor, body)
    any_dice(page, url, encounter)
    shot = gm_post(
        page,
        url,
        f"/v1/encounters/{encounter}/attacks",
        {
            "ruleset": "sr5",
            "attacker": "boss",
            "weapon": "predator",
            "mode": "SA",
            "targets": [{"id": "sam"}],
            "dice": BOSS_DICE,
        },
    )
    damage = shot["result"]["targets"][0]["damage"]
    assert (damage["boxes"], damage["track"]) == (SAM_BOXES, "physical")
    scores = {"sam": 18, "goon-1": 11, "boss": 9, "kit": 7}
    gm_post(
        page,
        url,
        f"/v1/encounters/{encounter}/initiative",
        {"actors": [{"actor": a, "score": s} for a, s in scores.items()]},
    )
    link = console.players_link(page, "anna", "sam kit")
    return {"encounter": encounter, "link": link, "boss_event": shot["event_id"]}


@pytest.fixture
def table(page: Page, url: str) -> dict[str, Any]:
    return set_table(page, url)


def test_a_player_plays_their_actor_on_a_phone(
    page: Page, browser: Browser, table: dict[str, Any]
) -> None:
    from playwright.sync_api import expect

    errors: list[str] = []
    anna = open_link(browser, table["link"], PHONE, errors)
    try:
        view = anna.locator("#player-view")
        expect(view).to_be_visible()
        # The full table hides behind the view: no roster, no GM form.
        expect(anna.locator("main.layout")).to_be_hidden()
        expect(view.locator("#pv-heading")).to_have_text("Sam (sam)")
        # Sam's monitor: the boss's 9 boxes of 11, and the wound modifier they give.
        expect_monitor(anna, "sam", (SAM_BOXES, SAM_PHYSICAL), (0, SAM_STUN))
        expect(view.locator('.pv-wound [data-field="wound_modifier"]')).to_have_text(str(SAM_WOUND))
        # Sam's gun and its rounds; whose phase it is and what Sam has left of it.
        expect(view.locator('[data-weapon="predator"] [data-field="ammo"]')).to_have_text("15")
        expect(view.locator(".pv-now-text")).to_have_text(
            "Your phase: Combat turn 1, initiative pass 1: sam's phase."
        )
        expect(view.locator(".pv-now .pv-help")).to_contain_text("sam has")
        # The boss's shot is in what happened to Sam; the ganger's arrival is not.
        feed = view.locator(".pv-feed")
        expect(feed.locator(f'li[data-event-id="{table["boss_event"]}"]')).to_contain_text(
            "sam hit, 9 physical boxes"
        )
        expect(feed.locator("li", has_text="goon-1 set on the scene")).to_have_count(0)

        # The targets: the ganger (nearest of the GM's, picked), the boss, never the lurker.
        targets = view.locator(".pv-targets [data-target]")
        assert targets.evaluate_all("ts => ts.map(t => t.dataset.target)") == ["goon-1", "boss"]
        expect(view.locator('[data-target="goon-1"]')).to_have_attribute("aria-pressed", "true")
        expect(view.locator('[data-target="goon-1"] [data-field="distance"]')).to_have_text("12 m")
        assert view.locator('.pv-map [data-actor="lurker"]').count() == 0
        assert "lurker" not in (view.text_content() or "")
        # The map: a tap on the boss picks it, a tap on the ganger picks it back.
        anna.locator('.pv-map [data-actor="boss"]').tap()
        expect(view.locator('[data-target="boss"]')).to_have_attribute("aria-pressed", "true")
        expect(anna.locator("#pv-fire")).to_have_text("Attack boss")
        anna.locator('.pv-map [data-actor="goon-1"]').tap()
        expect(anna.locator("#pv-fire")).to_have_text("Attack goon-1")
        expect_compact(anna, PHONE["width"])

        # Anna rolls at the table (the GM lets players give every die): her 8 dice, then the
        # ganger's, as faces; the attack goes once the last is in.
        with anna.expect_response(
            lambda r: r.url.endswith("/attacks") and r.request.method == "POST"
        ) as answered:
            roll_phone_dice(anna)
        response = answered.value
        assert response.status == 201, response.text()
        sent = response.request.post_data_json
        assert sent == {
            "ruleset": "sr5",
            "attacker": "sam",
            "weapon": "predator",
            "mode": "SA",
            "targets": [{"id": "goon-1"}],
            "dice": {step: [int(f) for f in faces.split()] for step, faces in PHONE_DICE.items()},
        }
        answer = response.json()
        target = answer["result"]["targets"][0]
        assert target["attack"]["pool"] == SAM_POOL
        assert (target["attack_hits"], target["defense_hits"], target["net_hits"]) == (4, 1, 3)
        assert (target["damage"]["boxes"], target["damage"]["track"]) == (GOON_BOXES, "physical")

        # The result on the phone, and the ganger's monitor as the player may see it.
        result = view.locator(".pv-result")
        expect(result).to_have_attribute("data-event", answer["event_id"])
        expect(view.locator(".pv-summary")).to_have_text(
            f"sam fires predator (SA, pool {SAM_SHOT_POOL}): goon-1 hit, "
            f"{GOON_BOXES} physical boxes."
        )
        hit = result.locator('.pv-result-targets [data-target="goon-1"]')
        expect(hit.locator('[data-field="outcome"]')).to_have_text("hit")
        expect(hit.locator('[data-field="boxes"]')).to_have_text(str(GOON_BOXES))
        on = '[data-monitor="goon-1"] [data-track="physical"]'
        expect(hit.locator(f"{on} .box.marked")).to_have_count(GOON_BOXES)
        expect(hit.locator(f"{on} .box")).to_have_count(GOON_PHYSICAL)
        expect(view.locator('[data-target="goon-1"] [data-field="condition"]')).to_have_text(
            f"{GOON_BOXES}/{GOON_PHYSICAL} physical, 0/{GOON_STUN} stun; wounds {GOON_WOUND}"
        )
        expect(view.locator("#pv-result-heading")).to_be_focused()
        # One round fired; the walk is closed; the shot is in Sam's feed.
        expect(view.locator('[data-weapon="predator"] [data-field="ammo"]')).to_have_text(
            str(AMMO_LEFT)
        )
        expect(view.locator("#pv-walk")).to_be_hidden()
        expect(feed.locator(f'li[data-event-id="{answer["event_id"]}"]')).to_have_count(1)
        # Every number and die of it stays a tap away.
        result.locator("summary").tap()
        expect(result.locator('.pv-detail [data-field="net_hits"]')).to_have_text("3")
        result.locator("summary").tap()
        expect_compact(anna, PHONE["width"])

        # Two actors: the switcher shows Kit, its own gun and monitor, and back.
        anna.locator('.pv-switcher [data-actor="kit"]').tap()
        expect(view.locator("#pv-heading")).to_have_text("Kit (kit)")
        expect(view.locator('[data-weapon="ares"] [data-field="ammo"]')).to_have_text("12")
        expect_monitor(anna, "kit", (0, SAM_PHYSICAL), (0, SAM_STUN))
        expect(view.locator(".pv-help", has_text="It is sam's phase")).to_be_visible()
        anna.locator('.pv-switcher [data-actor="sam"]').tap()
        expect(view.locator("#pv-heading")).to_have_text("Sam (sam)")

        # The full attack form stays reachable, opened on Sam and the ganger; and back.
        anna.locator("#pv-full-form").tap()
        expect(anna.locator("#attack")).to_be_visible()
        expect(anna.locator("#scene-attacker")).to_have_value("sam")
        expect(anna.locator("#scene-target-goon-1")).to_be_checked()
        anna.get_by_role("button", name="Back to sam").tap()
        expect(anna.locator("main.layout")).to_be_hidden()
        expect(view.locator("#pv-heading")).to_be_visible()
        assert errors == [], f"the page threw: {errors}"
    finally:
        anna.context.close()


def test_the_same_view_on_a_desktop_is_wider(
    page: Page, browser: Browser, table: dict[str, Any]
) -> None:
    from playwright.sync_api import expect

    errors: list[str] = []
    anna = open_link(browser, table["link"], DESKTOP, errors)
    try:
        view = anna.locator("#player-view")
        expect(view.locator("#pv-heading")).to_have_text("Sam (sam)")
        expect_monitor(anna, "sam", (SAM_BOXES, SAM_PHYSICAL), (0, SAM_STUN))
        # Two columns side by side: the actor on the left, the attack on the right.
        actor = view.locator(".pv-actor").bounding_box()
        attack = view.locator("#pv-fire").bounding_box()
        assert actor and attack and attack["x"] > actor["x"] + actor["width"]
        targets = view.locator(".pv-targets [data-target]")
        assert targets.evaluate_all("ts => ts.map(t => t.dataset.target)") == ["goon-1", "boss"]
        assert view.locator('.pv-map [data-actor="lurker"]').count() == 0
        with anna.expect_response(lambda r: r.url.endswith("/attacks")) as answered:
            roll_phone_dice(anna, tap=False)
        assert answered.value.status == 201, answered.value.text()
        hit = view.locator('.pv-result-targets [data-target="goon-1"]')
        expect(hit.locator('[data-field="boxes"]')).to_have_text(str(GOON_BOXES))
        expect_compact(anna, DESKTOP["width"])
        # The GM's console saw it too, from the same event.
        shot = answered.value.json()["event_id"]
        expect(page.locator(f'#feed li[data-event-id="{shot}"]')).to_have_count(1)
        assert errors == [], f"the page threw: {errors}"
    finally:
        anna.context.close()


def test_a_hidden_actor_never_reaches_the_phone(
    page: Page, browser: Browser, table: dict[str, Any], url: str
) -> None:
    """Revealed, the lurker is a target on the list and the map; hidden again, it is gone from
    both, and an attack on it by name is refused as an unknown actor's."""
    from playwright.sync_api import expect

    errors: list[str] = []
    anna = open_link(browser, table["link"], PHONE, errors)
    try:
        view = anna.locator("#player-view")
        expect(view.locator('[data-target="goon-1"]')).to_be_visible()
        assert view.locator('[data-target="lurker"]').count() == 0
        console.put_actor(page, url, table["encounter"], "lurker", {**LURKER, "hidden": False})
        # Nearest of the GM's actors: 4.2 m from Sam (3, 3), before the ganger.
        expect(view.locator(".pv-targets [data-target]").first).to_have_attribute(
            "data-target", "lurker"
        )
        expect(view.locator('[data-target="lurker"] [data-field="distance"]')).to_have_text("4.2 m")
        expect(view.locator('.pv-map [data-actor="lurker"]')).to_have_count(1)
        console.put_actor(page, url, table["encounter"], "lurker", LURKER)
        expect(view.locator('[data-target="lurker"]')).to_have_count(0)
        expect(view.locator('.pv-map [data-actor="lurker"]')).to_have_count(0)
        expect(view.locator('[data-target="goon-1"]')).to_have_attribute("aria-pressed", "true")
        assert errors == [], f"the page threw: {errors}"
    finally:
        anna.context.close()

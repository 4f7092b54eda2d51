"""Hard Life (`sr3-hardlife`) in the web console, the GM's edits in the monitors panel, in a real
browser against the real service: the trauma monitor healed and the condition following on the
GM's and a player's console, an edit made stale by an attack between its read and its write (a
409), and the armour's wear and unconsciousness cleared.

The numbers worked by hand come from 004_afd6299c3d537f5c.txt ("004"), its Ripley and Carter
examples (tests/test_sr3hl_rules.py), with the decisions of rules-sources/README.md."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tests import console_browser as console
from tests.test_console import browser, page, url
from tests.test_console_sr3hl import hardlife, player_page, sent_body
from tests.test_sr3hl_rules import carter_at_the_goon, ripley_shot

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

# The browser, the served console and a fresh page: tests/test_console.py's own.
__all__ = ["browser", "page", "url"]


def ripleys_leg_shot() -> dict[str, Any]:
    """004's Ripley, shot 1 (tests/test_sr3hl_rules.py): the right leg M (3 boxes); trauma 0 - 2
    successes (Table 6's shift), one stage down: L (1 box). Body 6, 6, 6, 6: no stun. Her
    recovery roll, Willpower 5 against 2 + 1 (trauma L) = 3, rolls five 1s: none of M's 2
    (Table 5), so it stands."""
    body = ripley_shot("right_leg", "M", [6, 6, 6, 6])
    body["dice"]["recovery:ripley"] = [1, 1, 1, 1, 1]
    return body


def api(page: Page, url: str, method: str, path: str, body: Any = None) -> Any:
    """The service's answer to one call with the GM's token, as a VTT or a script makes it."""
    headers = {"Authorization": f"Bearer {console.gm_token(page)}"}
    encounter = page.locator("#info-id").inner_text()
    response = page.request.fetch(
        f"{url}/v1/encounters/{encounter}{path}", method=method, headers=headers, data=body
    )
    assert response.ok, response.text()
    return response.json()


def open_edit(page: Page, actor: str) -> None:
    """Opens an actor's edit controls with the keyboard (its summary focused, Enter)."""
    from playwright.sync_api import expect

    summary = page.locator(f'#monitors-list li[data-actor="{actor}"] [data-field=edit] summary')
    summary.focus()
    page.keyboard.press("Enter")
    expect(page.get_by_label(f"Physical boxes of {actor}")).to_be_visible()


def set_trauma(page: Page, actor: str, physical: int) -> Any:
    """Types the trauma monitor's physical boxes and presses Enter; returns the PUT's response."""
    page.get_by_label(f"Monitor of {actor}").select_option("trauma")
    field = page.get_by_label(f"Physical boxes of {actor}")
    field.fill(str(physical))
    with page.expect_response(
        lambda r: r.url.endswith("/state") and r.request.method == "PUT"
    ) as answer:
        field.press("Enter")
    return answer.value


def test_the_gm_heals_the_trauma_monitor_in_the_panel_and_the_condition_follows(
    page: Page, browser: Browser, url: str
) -> None:
    from playwright.sync_api import expect

    hardlife(page, "Heal")
    player = player_page(browser, console.player_link(page))
    api(page, url, "POST", "/attacks", ripleys_leg_shot())
    ripley = page.locator('#monitors-list li[data-actor="ripley"]')
    trauma = ripley.locator('tr[data-monitor="trauma"]')
    expect(trauma.locator("[data-field=physical]")).to_have_text("1")
    expect(ripley.locator('tr[data-monitor="right_leg"] [data-field=physical]')).to_have_text("3")
    # Trauma L: +1 to target numbers, -1 initiative (the leg is a limb: not counted unless used).
    expect(ripley.locator("p.condition")).to_have_text("TN modifier +1; initiative modifier -1.")
    expect(ripley.locator("[data-field=due]")).to_contain_text("recovery roll due (against M)")
    # A player's console shows the monitors and no edit.
    seen = player.locator('#monitors-list li[data-actor="ripley"]')
    expect(seen.locator('tr[data-monitor="trauma"] [data-field=physical]')).to_have_text("1")
    expect(seen.locator("[data-field=edit]")).to_be_hidden()
    expect(player.get_by_role("button", name="Set monitor: ripley")).to_have_count(0)

    read = api(page, url, "GET", "")
    open_edit(page, "ripley")
    # The picked monitor's boxes now, to change from.
    expect(page.get_by_label("Physical boxes of ripley")).to_have_value("1")
    expect(page.get_by_label("Stun boxes of ripley")).to_have_value("0")
    response = set_trauma(page, "ripley", 0)
    assert response.status == 201, response.text()
    sent = sent_body(response.request)
    # The state as read, on its version, with only Ripley's trauma monitor gone.
    assert sent["version"] == read["version"] == 2
    expected = read["combat"]["actors"]["ripley"]
    expected["monitors"] = {"right_leg": {"physical": 3}}
    actors = {**read["combat"]["actors"], "ripley": expected}
    assert sent["combat"] == {**read["combat"], "actors": actors}
    # The service settles the condition from the monitors it now keeps: no primary location
    # and no trauma wounded, so no modifier; the panel shows what it says, on both consoles.
    assert api(page, url, "GET", "")["combat"]["actors"]["ripley"].get("condition", {}) == {}
    for on in (page, player):
        shown = on.locator('#monitors-list li[data-actor="ripley"]')
        expect(shown.locator('tr[data-monitor="trauma"] [data-field=physical]')).to_have_text("0")
        expect(shown.locator("p.condition")).to_have_text("TN modifier 0; initiative modifier 0.")
    expect(page.locator("#monitors-edited")).to_have_text(
        "Written: ripley's trauma monitor set to 0 physical, 0 stun (version 3)."
    )
    # The edit stays open across the reads; the standing recovery roll is cleared by keyboard.
    clear = page.get_by_role("button", name="Clear recovery roll: ripley")
    clear.focus()
    with page.expect_response(lambda r: r.url.endswith("/state")) as answered:
        page.keyboard.press("Enter")
    assert answered.value.status == 201
    assert "recovery" not in sent_body(answered.value.request)["combat"]["actors"]["ripley"]
    due = page.locator('#monitors-list li[data-actor="ripley"] [data-field=due]')
    expect(due).not_to_contain_text("recovery roll")
    # The phase the failed roll lost is the turn's, not the roll's: it stays lost.
    expect(due).to_have_text("1 action phase lost.")
    expect(page.get_by_role("button", name="Clear recovery roll: ripley")).to_have_count(0)
    # Heal all: every monitor empty.
    with page.expect_response(lambda r: r.url.endswith("/state")) as answered:
        page.get_by_role("button", name="Heal all monitors: ripley").click()
    assert answered.value.status == 201
    right_leg = page.locator('#monitors-list li[data-actor="ripley"] tr[data-monitor="right_leg"]')
    expect(right_leg.locator("[data-field=physical]")).to_have_text("0")
    player.close()


def test_an_attack_between_the_panels_read_and_its_edit_makes_the_edit_a_409(
    page: Page, url: str
) -> None:
    from playwright.sync_api import Route, expect

    hardlife(page, "Race")
    api(page, url, "POST", "/attacks", ripleys_leg_shot())
    trauma = page.locator('#monitors-list li[data-actor="ripley"] tr[data-monitor="trauma"]')
    expect(trauma.locator("[data-field=physical]")).to_have_text("1")
    open_edit(page, "ripley")
    # Carter's shot at the goon lands after the panel read the state (version 2) and before
    # its edit arrives: the edit is sent on version 2, the encounter is at 3.
    shots: list[Any] = []
    goons_shot = carter_at_the_goon(**{"stun:goon": [2, 2, 1, 1], "recovery:goon": [6, 2, 2, 2]})

    def race(route: Route) -> None:
        if route.request.method == "PUT" and not shots:
            shots.append(api(page, url, "POST", "/attacks", goons_shot))
        route.continue_()

    page.route("**/state", race)
    response = set_trauma(page, "ripley", 0)
    page.unroute("**/state")
    assert shots and sent_body(response.request)["version"] == 2
    assert response.status == 409
    assert response.json()["path"] == "$.version"
    alert = page.locator("#monitors-error")
    expect(alert).to_be_visible()
    expect(alert).to_contain_text("Not written: the encounter changed since the monitors were read")
    expect(alert).to_contain_text("version 3, not 2")
    # Nothing was lost: the goon's wound (Carter's shot: torso S, 6 boxes; trauma 6) is kept,
    # Ripley's trauma is as it was, and the panel read it again.
    state = api(page, url, "GET", "")
    assert state["version"] == 3
    goon = state["combat"]["actors"]["goon"]["monitors"]
    assert (goon["torso"]["physical"], goon["trauma"]["physical"]) == (6, 6)
    assert state["combat"]["actors"]["ripley"]["monitors"]["trauma"] == {"physical": 1}
    shown = page.locator('#monitors-list li[data-actor="goon"] tr[data-monitor="torso"]')
    expect(shown.locator("[data-field=physical]")).to_have_text("6")
    expect(trauma.locator("[data-field=physical]")).to_have_text("1")
    # Made again on what the panel now shows, the edit is written and the goon keeps his wound.
    response = set_trauma(page, "ripley", 0)
    assert response.status == 201, response.text()
    assert sent_body(response.request)["version"] == 3
    expect(alert).to_be_hidden()
    state = api(page, url, "GET", "")
    assert "trauma" not in state["combat"]["actors"]["ripley"]["monitors"]
    assert state["combat"]["actors"]["goon"]["monitors"] == {**goon}


def test_the_gm_clears_the_armours_wear_and_unconsciousness_in_the_panel(
    page: Page, url: str
) -> None:
    from playwright.sync_api import expect

    hardlife(page, "Repairs")
    # The goon as the table left him: unconscious (a failed consciousness test) with the head at
    # D (10 boxes), his jacket worn 3 on the torso and 1 on the left arm, his helmet 2 on the head.
    goon = {
        "body": 4,
        "unconscious": True,
        "monitors": {"head": {"physical": 10}},
        "armor": [
            {"garment": "jacket", "wear": {"torso": 3, "left_arm": 1}},
            {"garment": "helmet", "wear": {"head": 2}},
        ],
    }
    api(
        page,
        url,
        "PUT",
        "/state",
        {"combat": {"ruleset": "sr3-hardlife", "actors": {"goon": goon}}},
    )
    item = page.locator('#monitors-list li[data-actor="goon"]')
    jacket = item.locator('[data-field=armor] tr[data-piece="0"] [data-field=wear]')
    helmet = item.locator('[data-field=armor] tr[data-piece="1"] [data-field=wear]')
    expect(jacket).to_have_text("torso 3, left arm 1")
    expect(helmet).to_have_text("head 2")
    expect(item.locator("[data-field=due]")).to_contain_text("unconscious")
    open_edit(page, "goon")

    def edit(button: str) -> dict[str, Any]:
        with page.expect_response(lambda r: r.url.endswith("/state")) as answered:
            page.get_by_role("button", name=button).click()
        assert answered.value.status == 201, answered.value.text()
        sent: dict[str, Any] = sent_body(answered.value.request)["combat"]["actors"]["goon"]
        return sent

    # The pieces as the service keeps them (every field written out).
    jacket_kept, helmet_kept = api(page, url, "GET", "")["combat"]["actors"]["goon"]["armor"]
    assert (jacket_kept["wear"], helmet_kept["wear"]) == ({"torso": 3, "left_arm": 1}, {"head": 2})
    unworn = [{k: v for k, v in p.items() if k != "wear"} for p in (jacket_kept, helmet_kept)]
    # One piece: the helmet's wear cleared, the jacket's kept.
    sent = edit("Clear wear: helmet (piece 2 of goon)")
    assert sent["armor"] == [jacket_kept, unworn[1]]
    expect(helmet).to_have_text("none")
    expect(jacket).to_have_text("torso 3, left arm 1")
    # All of it.
    sent = edit("Clear all wear: goon")
    assert sent["armor"] == unworn
    expect(jacket).to_have_text("none")
    expect(page.get_by_role("button", name="Clear all wear: goon")).to_have_count(0)
    # Unconsciousness cleared: the head is still at D, deadly on a primary location, so the
    # service's settled state asks for the consciousness test again (004, "Death and Injury").
    sent = edit("Clear unconsciousness: goon")
    assert "unconscious" not in sent
    due = item.locator("[data-field=due]")
    expect(due).not_to_contain_text("unconscious")
    expect(due).to_contain_text("consciousness test due")
    state = api(page, url, "GET", "")["combat"]["actors"]["goon"]
    assert state.get("unconscious", False) is False and state["consciousness_due"] is True
    expect(page.get_by_role("button", name="Consciousness test: goon")).to_be_visible()

"""The console's odds previews (issue 16, docs/console.md "Odds before you roll"), in a real browser
against the real service: the attack form's body is asked of POST .../attacks/odds as the form
changes, and the panel shows the service's numbers for it (hit, graze, expected boxes, glitch, the
damage as bars with their text alternative); only the latest request's answer is shown, a refusal
is a quiet line of the panel, and a preview changes nothing in the encounter."""

from __future__ import annotations

import math
import re
from collections import defaultdict
from typing import TYPE_CHECKING, Any

import pytest

from tests import console_browser as console
from tests.test_console import browser, page, url

if TYPE_CHECKING:
    from playwright.sync_api import Page, Request

# The browser, the served console and a fresh page: tests/test_console.py's own.
__all__ = ["browser", "page", "url"]

PANEL = "#attack-odds"


def percent(p: float) -> str:
    """What the panel shows for a probability (service/console/odds.js, `percent`)."""
    if 0 < p < 0.0005:
        return "<0.1%"
    if 0.9995 <= p < 1:
        return ">99.9%"
    return f"{p * 100:.1f}%"


def same_percent(shown: str, p: float) -> bool:
    """`shown` is `p` as the panel writes it (JavaScript's and Python's rounding of a tie may
    differ in the last decimal, so the text is read back as a number within half a tenth)."""
    if shown.startswith(("<", ">")):
        return shown == percent(p)
    return abs(float(shown.rstrip("%")) - p * 100) <= 0.05 + 1e-9


class OddsLog:
    """Every odds request the page sends, in order; `last()` is the last one sent with its answer
    (body, status, JSON)."""

    def __init__(self, page: Page) -> None:
        self.requests: list[Request] = []
        page.on("request", self._record)

    def _record(self, request: Request) -> None:
        if request.method == "POST" and request.url.endswith("/attacks/odds"):
            self.requests.append(request)

    def answer(self, request: Request) -> tuple[dict[str, Any], int, dict[str, Any]]:
        response = request.response()
        assert response is not None
        body: dict[str, Any] = request.post_data_json
        return body, response.status, response.json()

    def last(self) -> tuple[dict[str, Any], int, dict[str, Any]]:
        return self.answer(self.requests[-1])


def shown_after(page: Page, answered: int) -> None:
    """Waits until the panel has had more than `answered` answers, none is due or awaited, so it
    shows the answer to the last request sent."""
    page.wait_for_function(
        """([selector, answered]) => {
            const panel = document.querySelector(selector);
            return Number(panel.dataset.answered || 0) > answered
                && !panel.hasAttribute("aria-busy") && panel.dataset.pending === undefined;
        }""",
        arg=[PANEL, answered],
    )


def answered(page: Page) -> int:
    return int(page.locator(PANEL).get_attribute("data-answered") or 0)


def gm_post(page: Page, url: str, path: str, body: dict[str, Any]) -> Any:
    return page.request.post(
        url + path, headers={"Authorization": f"Bearer {console.gm_token(page)}"}, data=body
    )


def encounter_view(page: Page, url: str, encounter: str) -> dict[str, Any]:
    answer = page.request.get(
        f"{url}/v1/encounters/{encounter}",
        headers={"Authorization": f"Bearer {console.gm_token(page)}"},
    )
    assert answer.ok, answer.text()
    view: dict[str, Any] = answer.json()
    return view


# One target's part of the panel as the page holds it, read in one call (not a round trip to the
# page for each bar's attribute): every match of each selector, so that one too many shows.
READ_TARGET_JS = """([panel, target]) => {
    const all = (root, selector) => [...root.querySelectorAll(selector)];
    return all(document, `${panel} .odds-target[data-target="${target}"]`).map(on => ({
        fields: Object.fromEntries(["hit", "damage_mean", "glitch", "graze"].map(field => [
            field,
            all(on, `[data-field=${field}]`).map(value => ({
                value: value.getAttribute("data-value"), text: value.innerText,
            })),
        ])),
        bars: all(on, "svg.odds-chart g.bar").map(bar => ({
            boxes: bar.getAttribute("data-boxes"),
            p: bar.getAttribute("data-p"),
            titles: all(bar, "title").map(title => title.textContent),
            labels: all(bar, "text.boxes").map(label => label.textContent),
        })),
        charts: all(on, "svg.odds-chart").map(chart => ({
            role: chart.getAttribute("role"), label: chart.getAttribute("aria-label"),
        })),
    }));
}"""


def check_panel_shows(page: Page, odds: dict[str, Any]) -> None:
    """The panel's numbers are the answer's, target by target."""
    # d100 counts damage points, every Shadowrun boxes.
    unit = "damage" if odds["ruleset"] == "d100" else "boxes"
    for target in odds["targets"]:
        found = page.evaluate(READ_TARGET_JS, [PANEL, target["target"]])
        assert len(found) == 1, (target["target"], found)
        on = found[0]
        fields = {}
        for field in ("hit", "damage_mean", "glitch"):
            assert len(on["fields"][field]) == 1, (field, on["fields"][field])
            fields[field] = on["fields"][field][0]
            assert float(fields[field]["value"] or "nan") == target[field], field
        assert same_percent(fields["hit"]["text"], target["hit"])
        assert same_percent(fields["glitch"]["text"], target["glitch"])
        # Two decimals (read back as a number: a tie may round either way).
        mean = fields["damage_mean"]["text"]
        assert re.fullmatch(r"\d+\.\d\d", mean), mean
        assert abs(float(mean) - target["damage_mean"]) <= 0.005 + 1e-9, mean
        graze = on["fields"]["graze"]
        if target["graze"] > 0:
            assert len(graze) == 1, graze
            assert float(graze[0]["value"] or "nan") == target["graze"]
        else:
            assert graze == []
        # One bar per distinct number of boxes, the tracks added up, labelled with it.
        bars: dict[int, float] = defaultdict(float)
        for entry in target["damage"]:
            bars[entry["boxes"]] += entry["p"]
        drawn = on["bars"]
        assert len(drawn) == len(bars)
        for bar, boxes in zip(drawn, sorted(bars), strict=True):
            assert bar["boxes"] == str(boxes)
            assert math.isclose(float(bar["p"] or "nan"), bars[boxes])
            assert len(bar["titles"]) == 1, bar["titles"]
            title = bar["titles"][0] or ""
            assert title.startswith(f"{boxes} {unit}: "), title
            assert same_percent(title.removeprefix(f"{boxes} {unit}: "), bars[boxes]), title
        # The first and the last bar are labelled with their boxes below.
        assert drawn[0]["labels"] == [str(min(bars))]
        assert drawn[-1]["labels"] == [str(max(bars))]
        # The chart's text alternative says every bar.
        assert len(on["charts"]) == 1, on["charts"]
        chart = on["charts"][0]
        assert chart["role"] == "img"
        label = chart["label"] or ""
        for boxes in sorted(bars):
            assert f"{boxes} {unit}: " in label, label


def test_the_panel_shows_the_services_odds_for_an_sr5_attack(page: Page, url: str) -> None:
    from playwright.sync_api import expect

    log = OddsLog(page)
    encounter = console.create_encounter(page, name="Odds")
    shown_after(page, 0)
    seen = answered(page)
    # The README's shot, its dice left out: the odds are of dice not yet rolled.
    console.fill_readme_attack(page)
    shown_after(page, seen)
    expect(page.locator(PANEL)).to_have_attribute("data-state", "exact")
    body, status, odds = log.last()
    assert status == 200, odds
    assert "dice" not in body, "given dice are never sent with a preview"
    assert body["smartlink"] == "wireless_implant" and body["targets"][0]["id"] == "goon-1"
    assert odds["kind"] == "attack_odds" and odds["method"] == "exact"
    # The service answers the same for the same body, asked by anyone.
    again = gm_post(page, url, f"/v1/encounters/{encounter}/attacks/odds", body)
    assert again.status == 200 and again.json() == odds
    check_panel_shows(page, odds)
    # The live line says it in words, once per target.
    status_line = page.locator("#attack-odds-status")
    assert status_line.get_attribute("role") == "status"
    target = odds["targets"][0]
    expect(status_line).to_contain_text(f"goon-1: {percent(target['hit'])} hit")
    # One target: no whole-attack line.
    assert page.locator(f"{PANEL} [data-field=whole]").count() == 0
    # The given dice typed in for the roll are still there, and nothing was posted but odds.
    assert page.locator('#dice-steps input[data-step="attack"]').input_value()


def test_a_d100_attack_shows_its_expected_damage(page: Page) -> None:
    from playwright.sync_api import expect

    log = OddsLog(page)
    console.create_encounter(page, ruleset="d100", name="Night market odds")
    shown_after(page, 0)
    seen = answered(page)
    page.get_by_label("Firing mode").select_option("SR2")
    shown_after(page, seen)
    body, status, odds = log.last()
    assert status == 200, odds
    assert body["ruleset"] == "d100" and body["shot_rate"] == 2 and "dice" not in body
    assert odds["ruleset"] == "d100"
    check_panel_shows(page, odds)
    on = page.locator(f'{PANEL} .odds-target[data-target="ganger-1"]')
    expect(on.locator("dt").nth(1)).to_have_text("Expected damage")
    expect(on.locator("figcaption")).to_have_text("Damage points")


@pytest.mark.parametrize("ruleset", ["sr3", "sr4", "sr3-hardlife"])
def test_each_rulesets_form_shows_its_odds(page: Page, url: str, ruleset: str) -> None:
    log = OddsLog(page)
    encounter = console.create_encounter(page, ruleset=ruleset, name=f"{ruleset} odds")
    shown_after(page, 0)
    body, status, odds = log.last()
    assert status == 200, odds
    assert body["ruleset"] == odds["ruleset"] == ruleset and odds["targets"]
    again = gm_post(page, url, f"/v1/encounters/{encounter}/attacks/odds", body)
    assert again.json() == odds
    check_panel_shows(page, odds)


def test_the_odds_change_live_and_the_preview_changes_nothing(page: Page, url: str) -> None:
    from playwright.sync_api import expect

    log = OddsLog(page)
    encounter = console.create_encounter(page, name="Live odds")
    shown_after(page, 0)
    before = encounter_view(page, url, encounter)
    first = log.last()[2]

    # Push the Limit (Sam has 3 Edge): the sixes explode and the limit goes; asked again.
    page.locator("#attacker-edge").fill("3")
    page.locator("#options summary").click()
    seen = answered(page)
    page.locator("#option-edge").select_option("push_the_limit")
    shown_after(page, seen)
    body, status, pushed = log.last()
    assert status == 200 and body["edge"] == "push_the_limit"
    assert pushed["targets"][0]["hit"] > first["targets"][0]["hit"]
    check_panel_shows(page, pushed)

    # A modifier of the target: good cover, fewer hits.
    seen = answered(page)
    page.locator("#target-1-cover").select_option("good")
    shown_after(page, seen)
    body, status, covered = log.last()
    assert status == 200 and body["targets"][0]["cover"] == "good"
    assert covered["targets"][0]["hit"] < pushed["targets"][0]["hit"]
    check_panel_shows(page, covered)

    # A burst at a second target: the whole attack's line, with the service's numbers.
    page.locator("#weapon-modes-BF").check()
    page.get_by_label("Firing mode").select_option("BF")
    seen = answered(page)
    page.get_by_role("button", name="Add target").click()
    shown_after(page, seen)
    _, status, split = log.last()
    assert status == 200, split
    assert len(split["targets"]) == 2
    check_panel_shows(page, split)
    whole = page.locator(f"{PANEL} [data-field=whole]")
    expect(whole).to_be_visible()
    any_hit = float(whole.locator("[data-field=any_hit]").get_attribute("data-value") or "nan")
    assert any_hit == split["any_hit"]
    total = whole.locator("[data-field=total_damage_mean]")
    assert float(total.get_attribute("data-value") or "nan") == split["damage_mean"]

    # All that asking changed nothing: the same version, no event.
    after = encounter_view(page, url, encounter)
    assert after["version"] == before["version"]
    assert after["last_event_id"] == before["last_event_id"]
    assert after["combat"] == before["combat"]
    assert page.locator("#feed li").count() == 1, "only the encounter's creation"


# The page's fetch, wrapped: once armed, the next odds request goes out at once but its answer
# is handed to the page only when the test releases it.
HOLD_NEXT_ODDS = """() => {
    const real = window.fetch;
    window.heldOdds = null;
    window.holdOdds = true;
    window.fetch = (url, init) => {
        const answer = real(url, init);
        if (!window.holdOdds || !String(url).endsWith("/attacks/odds")) return answer;
        window.holdOdds = false;
        return new Promise((resolve, reject) => {
            window.heldOdds = { release: () => answer.then(resolve, reject) };
        });
    };
}"""


def test_an_answer_to_an_older_request_never_overwrites_a_newer_one(page: Page) -> None:
    from playwright.sync_api import expect

    log = OddsLog(page)
    console.create_encounter(page, name="Stale odds")
    shown_after(page, 0)
    page.locator("#attacker-edge").fill("3")
    shown_after(page, 0)
    # The first change's answer is held back on its way...
    page.evaluate(HOLD_NEXT_ODDS)
    page.locator("#target-1-cover").select_option("good")
    page.wait_for_function("() => window.heldOdds !== null")
    older_request = log.requests[-1]
    # ... the second change's is answered, and shown.
    seen = answered(page)
    page.locator("#options summary").click()
    page.locator("#option-edge").select_option("push_the_limit")
    shown_after(page, seen)
    _, _, newer = log.last()
    check_panel_shows(page, newer)
    shown = page.locator(PANEL).get_attribute("data-shown")
    # The older answer arrives last: it is read, and dropped.
    seen = answered(page)
    page.evaluate("() => window.heldOdds.release()")
    shown_after(page, seen)
    older_body, _, older = log.answer(older_request)
    assert older_body["targets"][0]["cover"] == "good"
    assert older_body.get("edge") != "push_the_limit"
    assert older["targets"][0]["hit"] != newer["targets"][0]["hit"]
    expect(page.locator(PANEL)).to_have_attribute("data-shown", shown or "")
    check_panel_shows(page, newer)


def test_a_refused_body_shows_the_problem_in_the_panel_not_as_an_error(page: Page) -> None:
    from playwright.sync_api import expect

    log = OddsLog(page)
    console.create_encounter(page, name="Refused odds")
    shown_after(page, 0)
    # The heavy pistol's extreme range is 50 m: at 400 m the service refuses the attack.
    page.get_by_label("Map width (m)").select_option("1000")
    seen = answered(page)
    console.place(page, "goon-1 x (m)", 400)
    shown_after(page, seen)
    _, status, problem = log.last()
    assert 400 <= status < 500, problem
    panel = page.locator(PANEL)
    expect(panel).to_have_attribute("data-state", "problem")
    expect(page.locator("#attack-odds-status")).to_contain_text(problem["detail"])
    assert page.locator(f"{PANEL} .odds-target").count() == 0
    # Quietly: the attack form's alert is not raised, no field is marked invalid.
    expect(page.locator("#attack-error")).to_be_hidden()
    assert page.locator("[aria-invalid=true]").count() == 0
    # Back in range, the odds come back.
    seen = answered(page)
    console.place(page, "goon-1 x (m)", 12)
    shown_after(page, seen)
    expect(panel).to_have_attribute("data-state", "exact")
    # An empty gun: Resolve's refusal marks the field; the preview that follows leaves the mark
    # and says the same quietly.
    rounds = page.get_by_label("Rounds loaded")
    seen = answered(page)
    rounds.fill("0")
    page.get_by_role("button", name="Resolve attack").click()
    expect(page.locator("#attack-error")).to_contain_text("$.weapon.ammo")
    shown_after(page, seen)
    _, status, empty = log.last()
    assert 400 <= status < 500 and empty["path"] == "$.weapon.ammo", empty
    expect(panel).to_have_attribute("data-state", "problem")
    expect(page.locator("#attack-odds-status")).to_contain_text("$.weapon.ammo")
    expect(rounds).to_have_attribute("aria-invalid", "true")


def test_an_incomplete_form_asks_nothing_and_says_what_is_missing(page: Page) -> None:
    from playwright.sync_api import expect

    log = OddsLog(page)
    console.create_encounter(page, name="Incomplete odds")
    shown_after(page, 0)
    asked = len(log.requests)
    page.get_by_label("Agility").fill("")
    panel = page.locator(PANEL)
    expect(panel).to_have_attribute("data-state", "incomplete")
    expect(page.locator("#attack-odds-status")).to_contain_text("Agility")
    seen = answered(page)
    page.get_by_label("Agility").fill("5")
    shown_after(page, seen)
    assert len(log.requests) == asked + 1
    assert log.last()[0]["attacker"]["agility"] == 5


def test_a_zone_test_shows_its_odds_before_it_is_rolled(page: Page, url: str) -> None:
    from playwright.sync_api import expect

    encounter = console.create_encounter(page, name="Zone odds")
    console.sr5_assault_rifle_on_suppressive(page)
    console.place(page, "aim point x (m)", 20)
    page.locator('#dice-steps input[data-step="suppression"]').fill("6 5 5 1 2 3 4 5 6 1 2 3")
    laid = console.resolve(page)
    assert laid["result"]["zone"]["zone"]["hits"] == 5
    with page.expect_response(lambda r: r.url.endswith("/zones/zone-1/tests/odds")) as asked:
        page.get_by_role("button", name="Test an actor against zone-1").click()
    response = asked.value
    assert response.status == 200, response.text()
    odds = response.json()
    body = response.request.post_data_json
    assert odds["kind"] == "zone_test_odds" and odds["actor"] == "goon-1"
    assert "dice" not in body
    again = gm_post(page, url, f"/v1/encounters/{encounter}/zones/zone-1/tests/odds", body)
    assert again.json() == odds
    panel = page.locator("#zone-test-odds")
    expect(panel).to_have_attribute("data-state", odds["method"])
    on = panel.locator('.odds-target[data-target="goon-1"]')
    hit = on.locator("[data-field=hit]")
    assert float(hit.get_attribute("data-value") or "nan") == odds["target"]["hit"]
    damage = on.locator("[data-field=damage_mean]")
    assert float(damage.get_attribute("data-value") or "nan") == odds["target"]["damage_mean"]
    assert on.locator("svg.odds-chart").get_attribute("aria-label")
    # The test's own numbers change them: more armour, fewer boxes.
    with page.expect_response(lambda r: r.url.endswith("/zones/zone-1/tests/odds")) as changed:
        page.locator("#zt-defender-armor").fill("20")
    assert changed.value.request.post_data_json["defender"]["armor"] == 20
    assert changed.value.status == 200, changed.value.text()
    more_armour = changed.value.json()
    assert more_armour["target"]["damage_mean"] < odds["target"]["damage_mean"]
    page.wait_for_function(
        """mean => {
            const shown = document.querySelector("#zone-test-odds [data-field=damage_mean]");
            return Number(shown?.dataset.value) === mean;
        }""",
        arg=more_armour["target"]["damage_mean"],
    )


def test_a_sampled_answer_says_so_with_its_samples_and_margin(page: Page) -> None:
    from playwright.sync_api import expect

    log = OddsLog(page)
    console.create_encounter(page, ruleset="sr3-hardlife", name="Sampled odds")
    page.locator("#called-shot-map .hex").first.wait_for()
    shown_after(page, 0)
    # Hard Life's 10 rounds of full auto at a dodging target: the chain of where each round
    # lands passes its 2,000 states (docs/odds.md), so it is sampled (a burst is exact);
    # bench/previews.py's body: an SMG with recoil compensation 2, the target 10 m away
    # dodging with 3 dice.
    page.get_by_label("Category").select_option("smg")
    page.get_by_label("Recoil compensation").fill("2")
    page.get_by_label("Rounds loaded").fill("30")
    console.place(page, "goon-1 x (m)", 10)
    page.locator("#target-1-dodge-combat_pool").fill("3")
    page.locator("#weapon-modes-FA").check()
    page.get_by_label("Firing mode").select_option("FA")
    seen = answered(page)
    page.get_by_label("Rounds fired (BF, FA)").fill("10")
    shown_after(page, seen)
    body, status, odds = log.last()
    assert status == 200, odds
    assert (body["mode"], body["rounds"]) == ("FA", 10) and odds["method"] == "sampled"
    sampling = odds["sampling"]
    expect(page.locator(PANEL)).to_have_attribute("data-state", "sampled")
    line = page.locator(f"{PANEL} [data-field=sampling]").inner_text()
    said = re.match(r"Sampled, (\d+) samples, ±([^ ]+) \((\d+)% confidence\): ", line)
    assert said, line
    assert int(said[1]) == sampling["samples"]
    assert same_percent(said[2], sampling["margin"])
    assert int(said[3]) == round(sampling["confidence"] * 100)
    assert line.endswith(f"{sampling['what']}.")
    expect(page.locator("#attack-odds-status")).to_contain_text("Sampled odds: ")
    check_panel_shows(page, odds)

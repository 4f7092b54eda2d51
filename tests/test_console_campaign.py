"""Issue 25: the console's campaign page and a player's campaign link, in Chromium against a service
that is really stopped (SIGTERM) and started again on the same data directory and port between two
steps. The GM creates a campaign, drops a Chummer 5 file on the page, adds a template with the
editor, gives anna a token and starts an encounter with Kestrel and 2 gangers; after the restart
the console finds the campaign again, anna's link shows her character (never the template) and
opens the encounter, and the GM ends it carrying the monitor only.

The numbers are tests/data/imports/kestrel.chum5's (tests/test_imports_chummer5.py): Body 4,
Willpower 3, Edge 3, the Ares Predator V with 12 rounds, the Ares Alpha 30, the Enfield AS-7 10.
SR5's tracks: physical 8 + ceil(4 / 2) = 10 boxes, stun 8 + ceil(3 / 2) = 10. The GM sets
Kestrel's monitor to 4 physical and 1 stun in the fight: 4 // 3 + 1 // 3 = a wound modifier
of -1."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlparse

import pytest

from tests import console_browser as console
from tests.sr5_requests import README_GANGER_SHEET
from tests.test_console import UNLABELLED_JS, browser, page, url

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page

__all__ = ["browser", "page", "url"]

KESTREL = Path(__file__).parent / "data" / "imports" / "kestrel.chum5"
GHOST = Path(__file__).parent / "data" / "imports" / "ghost.chum"
KESTREL_GUNS = (
    "Guns: ares-predator-v (12 rounds), ares-alpha (30 rounds), enfield-as-7 (10 rounds)."
)


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    """The GM's browser profile: its tabs share localStorage."""
    opened = browser.new_context(viewport={"width": 1400, "height": 1000})
    opened.set_default_timeout(15_000)
    opened.grant_permissions(["clipboard-read", "clipboard-write"])
    errors: list[str] = []
    opened.on("weberror", lambda error: errors.append(str(error.error)))
    yield opened
    opened.close()
    assert errors == [], f"the page threw: {errors}"


def campaign_token(page: Page) -> str:
    """The GM's campaign token, as this tab keeps it."""
    saved: dict[str, str] = page.evaluate(
        "() => JSON.parse(sessionStorage.getItem('firefight.console.campaign'))"
    )
    return saved["token"]


def call(page: Page, method: str, url: str, token: str, body: Any = None) -> Any:
    answer = page.request.fetch(
        url, method=method, headers={"Authorization": f"Bearer {token}"}, data=body
    )
    assert answer.ok, answer.text()
    return answer.json()


def drop(page: Page, selector: str, path: Path) -> None:
    """A real DataTransfer holding the file, dropped on `selector`."""
    transfer = page.evaluate_handle(
        """([text, name]) => {
            const transfer = new DataTransfer();
            transfer.items.add(new File([text], name));
            return transfer;
        }""",
        [path.read_text(encoding="utf-8"), path.name],
    )
    page.locator(selector).dispatch_event("drop", {"dataTransfer": transfer})


def boxes(page: Page, scope: str, actor: str, track: str, only: str = "") -> Any:
    """The boxes of one track of an actor's monitor under `scope` (`only=".marked"`: the
    marked ones)."""
    return page.locator(f'{scope} [data-monitor="{actor}"] [data-track="{track}"] .box{only}')


def create_campaign(page: Page, name: str = "Seattle") -> str:
    page.get_by_label("Admin key").fill(console.ADMIN_KEY)
    page.get_by_label("Rules played").select_option("sr5")
    page.get_by_label("Campaign name").fill(name)
    page.get_by_role("button", name="Create campaign").click()
    page.locator("#campaign-panel").wait_for()
    return page.locator("#campaign-info-id").inner_text()


def shown_count(page: Page, scope: str, actor: str, track: str) -> Any:
    """The count of marked boxes a track of an actor's monitor says in words."""
    return page.locator(
        f'{scope} [data-monitor="{actor}"] [data-track="{track}"] [data-field="{track}"]'
    )


def test_a_campaign_from_its_creation_to_the_end_of_its_encounter_across_a_restart(
    browser: Browser, context: BrowserContext, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    port = console.free_port()
    gm = context.new_page()
    with console.serve_on(tmp_path, port) as url:
        console.open_console(gm, url)
        gm.get_by_label("Admin key").fill(console.ADMIN_KEY)
        gm.get_by_label("Rules played").select_option("sr5")
        gm.get_by_label("Campaign name").fill("Seattle")
        gm.get_by_role("button", name="Create campaign").click()
        expect(gm.locator("#campaign-panel")).to_be_visible()
        expect(gm.locator("#campaign-info-role")).to_have_text("the GM")
        campaign = gm.locator("#campaign-info-id").inner_text()
        assert campaign.startswith("campaign-")
        # The page's address names the campaign, never its token.
        assert urlparse(gm.url).fragment == f"campaign={campaign}"
        token = campaign_token(gm)

        # Kestrel's file dropped on the page: a new character, its id from the file's name.
        drop(gm, "#campaign-panel", KESTREL)
        report = gm.locator("#campaign-import-report")
        expect(report.locator("h3")).to_have_text("Imported Kestrel as kestrel")
        expect(report).to_contain_text("kestrel.chum5 (chummer5, sr5)")
        expect(report.locator('li[data-field="agility"]')).to_contain_text("agility = 6")
        kestrel = gm.locator('#campaign-actors li[data-actor="kestrel"]')
        expect(kestrel.locator("strong")).to_have_text("Kestrel (kestrel)")
        expect(kestrel.locator('[data-field="kind"]')).to_have_text("character")
        expect(kestrel.locator('[data-field="edge"]')).to_have_text("Edge spent 0 of 3.")
        expect(kestrel.locator('[data-field="guns"]')).to_have_text(KESTREL_GUNS)

        # The ganger template, typed into the editor.
        gm.get_by_role("button", name="Add a character or template").click()
        gm.get_by_label("Its id").fill("ganger")
        gm.get_by_label("Its name").fill("Ganger")
        gm.get_by_label("Kind").select_option("template")
        for field, value in README_GANGER_SHEET.items():
            if field != "ruleset":
                gm.locator(f"#campaign-sheet-{field}").fill(str(value))
        gm.get_by_role("button", name="Add it").click()
        ganger = gm.locator('#campaign-actors li[data-actor="ganger"]')
        expect(ganger.locator('[data-field="kind"]')).to_have_text("template")
        # The editor's weapon as the SR5 form fills it: the Predator with 15 rounds.
        expect(ganger.locator('[data-field="guns"]')).to_have_text("Guns: predator (15 rounds).")
        kept = call(gm, "GET", f"{url}/v1/campaigns/{campaign}", token)["actors"]["ganger"]
        assert (kept["kind"], kept["name"], kept["controller"]) == ("template", "Ganger", "gm")
        assert {k: kept["sheet"][k] for k in README_GANGER_SHEET} == README_GANGER_SHEET

        # anna gets a token for Kestrel; her link, copied.
        gm.get_by_label("Player (an id: anna)").fill("anna")
        gm.locator("#campaign-player-character-kestrel").check()
        gm.get_by_role("button", name="Give the player a token").click()
        link_field = gm.locator("#campaign-player-link")
        expect(link_field).to_be_visible()
        link = link_field.input_value()
        fragment = parse_qs(urlparse(link).fragment)
        assert (fragment["campaign"], fragment["player"]) == ([campaign], ["anna"])
        gm.get_by_role("button", name="Copy the link").click()
        expect(gm.locator("#campaign-status")).to_have_text("The player's link is copied.")
        assert gm.evaluate("() => navigator.clipboard.readText()") == link
        expect(kestrel.locator('[data-field="controller"]')).to_have_text(" — played by anna")

        # An encounter with Kestrel and 2 gangers, opened with the campaign's token.
        gm.locator("#campaign-bring-kestrel").check()
        gm.get_by_label("Copies of Ganger (ganger)").fill("2")
        gm.get_by_label("Encounter name").fill("Docks")
        gm.get_by_role("button", name="Start the encounter").click()
        expect(gm.locator("#feed-status")).to_have_attribute("data-state", "live")
        encounter = gm.locator("#info-id").inner_text()
        for actor, name in (
            ("kestrel", "Kestrel"),
            ("ganger-1", "Ganger 1"),
            ("ganger-2", "Ganger 2"),
        ):
            item = gm.locator(f'#roster-list li[data-actor="{actor}"]')
            expect(item.locator("strong")).to_have_text(f"{name} ({actor})")
            expect(gm.locator(f'#map g[data-actor="{actor}"]')).to_have_count(1)
        expect(gm.locator("#turn-panel")).to_be_visible()
        # The fight's numbers, given: 4 physical and 1 stun on Kestrel, 2 Edge spent.
        path = f"{url}/v1/encounters/{encounter}/actors/kestrel"
        call(gm, "POST", f"{path}/monitor", token, {"set": {"physical": 4, "stun": 1}})
        call(gm, "PATCH", path, token, {"edge_spent": 2})
        expect(boxes(gm, "#roster-list", "kestrel", "physical", ".marked")).to_have_count(4)

    # Stopped with SIGTERM; started again on the same data directory and port.
    with console.serve_on(tmp_path, port) as url:
        # The reloaded tab goes back into the encounter, and from it to the campaign.
        gm.reload()
        gm.locator("body[data-ready=true]").wait_for()
        expect(gm.locator("#feed-status")).to_have_attribute("data-state", "live")
        gm.get_by_role("button", name="Back to the campaign").click()
        expect(gm.locator("#campaign-panel")).to_be_visible()
        expect(gm.locator('#campaign-actors li[data-actor="ganger"]')).to_have_count(1)

        # A new tab of the GM's browser: the campaign is listed, and opens with one click.
        fresh = context.new_page()
        console.open_console(fresh, url)
        entry = fresh.locator(f'#remembered-campaigns-list li[data-campaign="{campaign}"]')
        expect(entry).to_contain_text("sr5, GM")
        entry.get_by_role("button", name="Open Seattle").click()
        expect(fresh.locator("#campaign-title")).to_have_text("Seattle")
        expect(fresh.locator("#campaign-actors > li")).to_have_count(2)
        docks = fresh.locator(f'#campaign-encounters li[data-campaign-encounter="{encounter}"]')
        expect(docks.locator('[data-field="state"]')).to_contain_text("open")

        # anna's link, on her own machine: her character, never the template, and the fight.
        theirs = browser.new_context(viewport={"width": 1200, "height": 900})
        try:
            anna = theirs.new_page()
            anna.set_default_timeout(15_000)
            anna.goto(link)
            anna.locator("body[data-ready=true]").wait_for()
            expect(anna.locator("#campaign-info-role")).to_have_text("anna (a player)")
            # The token is taken out of the address bar.
            assert urlparse(anna.url).fragment == f"campaign={campaign}"
            mine = anna.locator('#campaign-actors li[data-actor="kestrel"]')
            expect(mine.locator('[data-field="edge"]')).to_have_text("Edge spent 0 of 3.")
            expect(mine.locator('[data-field="guns"]')).to_have_text(KESTREL_GUNS)
            expect(anna.locator("#campaign-actors > li")).to_have_count(1)
            expect(anna.locator("#campaign-panel")).not_to_contain_text("anger")
            expect(anna.locator("#campaign-gm")).to_be_hidden()
            expect(anna.get_by_role("button", name="Edit kestrel")).to_have_count(0)
            anna.get_by_role("button", name="Open Docks").click()
            expect(anna.locator("#feed-status")).to_have_attribute("data-state", "live")
            # Her link opens the view of her actor first (tests/test_console_phone.py).
            expect(anna.locator("#pv-heading")).to_have_text("Kestrel (kestrel)")
            anna.get_by_role("button", name="The full table").click()
            expect(anna.locator("#info-id")).to_have_text(encounter)
            # Her campaign token is her player token here: Kestrel is hers, the gangers are not.
            expect(anna.get_by_role("button", name="Attacker: kestrel")).to_be_visible()
            expect(anna.get_by_role("button", name="Attacker: ganger-1")).to_have_count(0)
            expect(anna.locator("#turn-panel")).to_be_hidden()
            expect(anna.get_by_role("button", name="End this encounter")).to_have_count(0)

            # The GM opens the fight from the campaign page and ends it, carrying the monitor only.
            docks.get_by_role("button", name="Open Docks").click()
            expect(fresh.locator("#feed-status")).to_have_attribute("data-state", "live")
            fresh.get_by_role("button", name="End this encounter").click()
            fresh.get_by_label("the rounds left in their guns").uncheck()
            fresh.get_by_label("the Edge they spent").uncheck()
            with fresh.expect_response(lambda r: r.request.method == "DELETE") as answered:
                fresh.get_by_role("button", name="End it now").click()
            response = answered.value
            assert response.url == f"{url}/v1/encounters/{encounter}?carry=monitor"
            assert response.status == 200
            assert response.json() == {
                "campaign": campaign,
                "carried": {"kestrel": ["monitor"]},
                "skipped": {},
            }
            expect(fresh.locator("#campaign-status")).to_have_text(
                "Docks ended: kestrel took back its monitor."
            )
            back = fresh.locator('#campaign-actors li[data-actor="kestrel"]')
            expect(boxes(fresh, "#campaign-actors", "kestrel", "physical")).to_have_count(10)
            expect(
                boxes(fresh, "#campaign-actors", "kestrel", "physical", ".marked")
            ).to_have_count(4)
            expect(boxes(fresh, "#campaign-actors", "kestrel", "stun", ".marked")).to_have_count(1)
            expect(back.locator('[data-track="physical"] [data-field="physical"]')).to_have_text(
                "4"
            )
            expect(shown_count(fresh, "#campaign-actors", "kestrel", "stun")).to_have_text("1")
            # SR5's wound modifier counts against the initiative score as well.
            expect(back.locator('[data-field="status"]')).to_have_text(
                "wound modifier -1; initiative -1; ok."
            )
            # The Edge spent in the fight stays there.
            expect(back.locator('[data-field="edge"]')).to_have_text("Edge spent 0 of 3.")
            expect(docks.locator('[data-field="state"]')).to_contain_text(
                "ended: kestrel took back its monitor"
            )
            expect(docks.get_by_role("button")).to_have_count(0)

            # anna's console sees the end; back on her campaign page, Kestrel's damage.
            expect(anna.locator("#encounter-status")).to_have_text("The encounter has ended.")
            anna.get_by_role("button", name="Back to the campaign").click()
            hers = anna.locator('#campaign-actors li[data-actor="kestrel"]')
            expect(hers.locator('[data-track="physical"] [data-field="physical"]')).to_have_text(
                "4"
            )
            expect(anna.locator("#campaign-encounters")).to_have_text("No open encounter.")
        finally:
            theirs.close()


def test_the_gm_imports_edits_and_deletes_and_the_page_says_what_it_refuses(
    page: Page, url: str, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    campaign = create_campaign(page)
    token = campaign_token(page)
    base = f"{url}/v1/campaigns/{campaign}"
    # Through the file picker this time.
    page.get_by_label("Character file", exact=True).set_input_files(KESTREL)
    kestrel = page.locator('#campaign-actors li[data-actor="kestrel"]')
    expect(kestrel.locator("strong")).to_have_text("Kestrel (kestrel)")
    expect(page.locator("#campaign-import-report h3")).to_have_text("Imported Kestrel as kestrel")

    # A Chummer 4 file is an sr4 character: refused in the page's alert, nothing added.
    page.get_by_label("Character file", exact=True).set_input_files(GHOST)
    alert = page.locator("#campaign-error")
    expect(alert).to_contain_text("ghost.chum not imported as ghost")
    expect(alert).to_contain_text("this campaign plays sr5")
    expect(page.locator('#campaign-actors li[data-actor="ghost"]')).to_have_count(0)

    # A file of no known extension waits for its format.
    renamed = tmp_path / "kestrel-backup.xml"
    renamed.write_bytes(KESTREL.read_bytes())
    page.get_by_label("Character file", exact=True).set_input_files(renamed)
    expect(alert).to_contain_text("Which format is kestrel-backup.xml?")
    expect(page.get_by_label("Read the file as")).to_be_focused()
    page.get_by_label("Read the file as").select_option("chummer5")
    backup = page.locator('#campaign-actors li[data-actor="kestrel-backup"]')
    expect(backup.locator("strong")).to_have_text("Kestrel (kestrel-backup)")
    page.get_by_label("Read the file as").select_option("")
    # Dropped on a listed actor, the file goes onto that one.
    drop(page, '#campaign-actors li[data-actor="kestrel-backup"] strong', KESTREL)
    expect(page.locator("#campaign-import-report h3")).to_have_text(
        "Imported Kestrel as kestrel-backup"
    )

    # An edit changes what the form shows and keeps the rest: the damage Kestrel carries, the
    # sheet's fields the form has none for (Charisma 2), its other guns.
    call(page, "PATCH", f"{base}/actors/kestrel", token, {"monitor": {"physical": 2}})
    page.get_by_role("button", name="Read it again").click()
    expect(shown_count(page, "#campaign-actors", "kestrel", "physical")).to_have_text("2")
    page.get_by_role("button", name="Edit kestrel", exact=True).click()
    # Every field of the page, the editor's and the lists' included, has its label.
    assert page.evaluate(UNLABELLED_JS) == []
    expect(page.locator("#campaign-sheet-body")).to_have_value("4")
    expect(page.get_by_label("Its id")).to_have_js_property("readOnly", True)
    page.get_by_label("Its name").fill("Kestrel Prime")
    page.get_by_label("Brought in hidden from the players").check()
    page.locator("#campaign-sheet-body").fill("6")
    with page.expect_response(lambda r: r.request.method == "PATCH") as answered:
        page.get_by_role("button", name="Save it").click()
    assert answered.value.status == 200
    expect(kestrel.locator("strong")).to_have_text("Kestrel Prime (kestrel)")
    expect(kestrel.locator(".badge", has_text="hidden")).to_have_count(1)
    expect(kestrel.locator('[data-field="guns"]')).to_have_text(KESTREL_GUNS)
    # Body 6: physical 8 + 3 = 11 boxes, 2 of them still marked.
    expect(boxes(page, "#campaign-actors", "kestrel", "physical")).to_have_count(11)
    expect(boxes(page, "#campaign-actors", "kestrel", "physical", ".marked")).to_have_count(2)
    kept = call(page, "GET", base, token)["actors"]["kestrel"]
    assert (kept["sheet"]["body"], kept["sheet"]["charisma"], kept["hidden"]) == (6, 2, True)

    page.get_by_role("button", name="Delete kestrel-backup").click()
    expect(backup).to_have_count(0)
    assert "kestrel-backup" not in call(page, "GET", base, token)["actors"]

    # More copies of a template than an encounter takes: said at the field, nothing started.
    call(page, "PUT", f"{base}/actors/ganger", token, {"kind": "template", "name": "Ganger"})
    page.get_by_role("button", name="Read it again").click()
    copies = page.get_by_label("Copies of Ganger (ganger)")
    copies.fill("21")
    page.get_by_role("button", name="Start the encounter").click()
    expect(alert).to_have_text("Copies of Ganger (ganger): a whole number from 0 to 20.")
    expect(copies).to_be_focused()
    assert call(page, "GET", base, token)["encounters"] == []

    # Left, the campaign is listed on the start page; an encounter of no campaign ends plainly.
    page.get_by_role("button", name="Leave this campaign").click()
    expect(
        page.locator(f'#remembered-campaigns-list li[data-campaign="{campaign}"]')
    ).to_be_visible()
    assert urlparse(page.url).fragment == ""
    console.create_encounter(page, name="Alley")
    expect(page.get_by_role("button", name="Back to the campaign")).to_be_hidden()
    page.get_by_role("button", name="End this encounter").click()
    expect(page.locator("#end-carry")).to_be_hidden()
    with page.expect_response(lambda r: r.request.method == "DELETE") as ended:
        page.get_by_role("button", name="End it now").click()
    assert ended.value.status == 204
    expect(page.locator("#encounter-status")).to_have_text("The encounter has ended.")
    expect(page.get_by_role("button", name="End this encounter")).to_have_count(0)

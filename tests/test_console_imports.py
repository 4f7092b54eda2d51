"""Issue 25: the GM imports a character file in the web console's roster, in Chromium against the
real service: the Chummer 5 test character through the labelled file input onto a new actor (its
sheet's numbers in the roster and the editor, the import's report), then dropped on an actor of
the roster (it keeps its name and place), and a file of another ruleset refused in the roster's
alert.

The numbers are tests/data/imports/kestrel.chum5's, worked by hand in
tests/test_imports_chummer5.py: Body 4, Agility 6, Reaction 5; SR5 physical track 8 + ceil(4 / 2)
= 10 boxes (the runner's Body 8: 8 + 4 = 12)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from tests import console_browser as console
from tests.test_console import browser, page, url

if TYPE_CHECKING:
    from playwright.sync_api import Page

__all__ = ["browser", "page", "url"]

DATA = Path(__file__).parent / "data" / "imports"
KESTREL = DATA / "kestrel.chum5"
GHOST = DATA / "ghost.chum"


def test_the_gm_imports_a_chum5_and_sees_its_numbers_and_the_report(page: Page, url: str) -> None:
    from playwright.sync_api import expect

    encounter = console.create_encounter(page, ruleset="sr5")
    page.get_by_label("Import from file", exact=True).set_input_files(KESTREL)

    # A new actor, its id from the file's name and its name from the file.
    kestrel = page.locator('#roster-list li[data-actor="kestrel"]')
    expect(kestrel.locator("strong")).to_have_text("Kestrel (kestrel)")
    expect(kestrel).to_contain_text("carries ares-predator-v, ares-alpha, enfield-as-7")
    # Its physical track sized by Body 4: 8 + 2 = 10 boxes.
    expect(kestrel.locator('[data-monitor="kestrel"] [data-track="physical"] .box')).to_have_count(
        10
    )

    report = page.locator("#import-report")
    expect(report.locator("h3")).to_have_text("Imported Kestrel onto kestrel")
    expect(report).to_contain_text("kestrel.chum5 (chummer5, sr5)")
    expect(report.locator('li[data-field="agility"]')).to_contain_text("agility = 6")
    expect(report.locator('li[data-field="agility"]')).to_contain_text(
        "/character/attributes/attribute[name='AGI']/totalvalue"
    )
    expect(report.locator(".import-left-out")).to_contain_text(
        "/character/weapons/weapon[1] (Unarmed Attack): a melee weapon"
    )

    # The sheet's numbers in the GM's editor.
    page.get_by_role("button", name="Edit kestrel").click()
    expect(page.locator("#sheet-agility")).to_have_value("6")
    expect(page.locator("#sheet-body")).to_have_value("4")
    expect(page.locator("#sheet-reaction")).to_have_value("5")
    page.get_by_role("button", name="Cancel").click()

    # Dropped on an actor of the roster: that actor takes the sheet, keeps its name and place.
    console.put_actor(
        page,
        url,
        encounter,
        "runner",
        {"name": "Runner", "position": {"x": 3, "y": 4}, "sheet": {"ruleset": "sr5", "body": 8}},
    )
    runner = page.locator('#roster-list li[data-actor="runner"]')
    expect(runner.locator('[data-track="physical"] .box')).to_have_count(12)
    dropped = page.evaluate_handle(
        """(text) => {
            const transfer = new DataTransfer();
            transfer.items.add(new File([text], "kestrel.chum5"));
            return transfer;
        }""",
        KESTREL.read_text(encoding="utf-8"),
    )
    runner.dispatch_event("drop", {"dataTransfer": dropped})
    expect(report.locator("h3")).to_have_text("Imported Kestrel onto runner")
    expect(runner.locator("strong")).to_have_text("Runner (runner)")
    expect(runner).to_contain_text("at (3, 4)")
    expect(runner.locator('[data-track="physical"] .box')).to_have_count(10)

    # A Chummer 4 file is an sr4 character: refused in the roster's alert, nothing added.
    page.get_by_label("Import from file", exact=True).set_input_files(GHOST)
    alert = page.locator("#roster-error")
    expect(alert).to_be_visible()
    expect(alert).to_contain_text("ghost.chum not imported onto ghost")
    expect(alert).to_contain_text("this encounter plays sr5")
    expect(page.locator('#roster-list li[data-actor="ghost"]')).to_have_count(0)


def test_a_file_of_no_known_extension_is_imported_once_its_format_is_chosen(
    page: Page, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    console.create_encounter(page, ruleset="sr5")
    renamed = tmp_path / "kestrel-backup.xml"
    renamed.write_bytes(KESTREL.read_bytes())
    page.get_by_label("Import from file", exact=True).set_input_files(renamed)
    alert = page.locator("#roster-error")
    expect(alert).to_contain_text("Which format is kestrel-backup.xml?")
    expect(page.get_by_label("Format")).to_be_focused()
    page.get_by_label("Format").select_option("chummer5")
    expect(page.locator('#roster-list li[data-actor="kestrel-backup"] strong')).to_have_text(
        "Kestrel (kestrel-backup)"
    )
    expect(alert).to_be_hidden()

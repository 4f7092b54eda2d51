"""The Chromium the browser tests drive, as tests/console_browser.py launches it: the features
Playwright disables stay disabled beside ours, and a window opens no browser UI of its own (the
omnibox's WebUI popups cost each new context more CPU than the console's page)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from tests import console_browser as console
from tests.test_console import browser, page, url

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

# The browser and the served console: tests/test_console.py's own.
__all__ = ["browser", "page", "url"]


def descendants(pid: int) -> list[int]:
    """The processes started, directly or not, by `pid` (this worker's Playwright driver and the
    Chromium it launched among them)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat[stat.rfind(")") + 2 :].split()[1])
    found = [pid]
    for process in found:
        found.extend(child for child, parent in parents.items() if parent == process)
    return found[1:]


def browser_command_lines() -> list[list[str]]:
    """The command line of each Chromium browser process this worker launched (its renderers
    and helpers, started with a --type, left out)."""
    lines = []
    for pid in descendants(os.getpid()):
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")
        except OSError:
            continue
        if "--remote-debugging-pipe" in argv and not any(a.startswith("--type=") for a in argv):
            lines.append(argv)
    return lines


def test_the_features_playwright_disables_stay_disabled(browser: Browser) -> None:
    # Chromium keeps the last --disable-features only: ours must carry Playwright's too.
    lines = browser_command_lines()
    assert lines, "no Chromium started by this worker"
    for argv in lines:
        switch = "--disable-features="
        given = [a.removeprefix(switch).split(",") for a in argv if a.startswith(switch)]
        earlier = {feature for features in given[:-1] for feature in features}
        assert earlier, "Playwright's own --disable-features is gone: is ours still needed?"
        assert earlier <= set(given[-1]), earlier - set(given[-1])
        assert set(console.OMNIBOX_WEBUI.split(",")) <= set(given[-1])


def test_a_console_window_loads_no_browser_ui(browser: Browser, page: Page) -> None:
    session = browser.new_browser_cdp_session()
    try:
        targets = session.send("Target.getTargets")["targetInfos"]
    finally:
        session.detach()
    assert [t["url"] for t in targets if t["type"] == "page"] == [page.url]
    assert [t["url"] for t in targets if t["url"].startswith("chrome:")] == []

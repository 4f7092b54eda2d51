"""The initiative engine's page (docs/initiative.md): its combat turn of three actors over three
passes, run as written against a real service, prints what the page says it prints."""

from __future__ import annotations

import re

from tests.test_api_examples import example, run_curl_example
from tests.test_cli import ROOT, served

__all__ = ["served"]

PAGE = "initiative.md"
TEST = "tests/test_initiative_examples.py"


def printed_on_the_page() -> list[str]:
    """The lines the page shows under "It prints:"."""
    text = (ROOT / "docs" / PAGE).read_text()
    match = re.search(r"It prints:\n\n```\n(.*?)```", text, re.S)
    assert match is not None
    return match.group(1).splitlines()


def test_the_combat_turn_of_the_page_runs_as_it_says(served: str) -> None:
    lines = run_curl_example(example("sh", PAGE, TEST), served).splitlines()
    assert lines == printed_on_the_page()
    # Three passes: 21, 11 and 1 for Sam; 14 and 4 for Kim; 8 for the ganger.
    assert [line.split(" phase ")[0] for line in lines[:9]] == [
        *["turn 1 pass 1"] * 6,
        "turn 1 pass 2",
        "turn 1 pass 2",
        "turn 1 pass 3",
    ]

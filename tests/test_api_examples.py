"""The API guide's examples for other VTTs (docs/api.md), run as written against a real service."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.test_cli import ADMIN_KEY, ROOT, served

__all__ = ["served"]


def example(language: str, page: str = "api.md", test: str = "tests/test_api_examples.py") -> str:
    """The block of `language` in docs/`page` that `test` says it runs."""
    guide = (ROOT / "docs" / page).read_text()
    marker = re.escape(f"<!-- example: {test} runs this block -->")
    blocks = re.findall(marker + r"\n```(\w+)\n(.*?)```", guide, re.S)
    return next(code for lang, code in blocks if lang == language)


def documents(text: str) -> list[Any]:
    """The JSON documents curl printed one after another."""
    decoder, found, at = json.JSONDecoder(), [], 0
    while at < len(text):
        document, at = decoder.raw_decode(text, at)
        found.append(document)
        while at < len(text) and text[at].isspace():
            at += 1
    return found


def run_curl_example(script: str, served: str) -> str:
    """What a page's shell example prints, run against the service at `served`."""
    run = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script.replace("http://127.0.0.1:8080", served)],
        capture_output=True,
        timeout=60,
        env={**os.environ, "ADMIN_KEY": ADMIN_KEY},
    )
    assert run.returncode == 0, run.stderr
    return run.stdout.decode()


def test_the_curl_example_plays_a_d100_turn_as_the_guide_says(served: str) -> None:
    answer, page = documents(run_curl_example(example("sh"), served))
    attack = answer["result"]
    target = attack["targets"][0]
    # The numbers the guide states.
    assert attack["success_target"] == 60
    assert (target["attack"]["hits"], target["defense"]["hits"], target["net_hits"]) == (5, 1, 4)
    damage = target["damage"]
    assert (damage["bonus_hits"], damage["damage"], damage["location"]) == (8, 19, "torso")
    assert (damage["effective_armor"], damage["wound"]) == (1, 18)
    assert (attack["action_points"], attack["rounds_fired"], attack["ammo_left"]) == (2, 6, 24)
    assert [e["type"] for e in page["events"]] == ["encounter_created", "advance", "attack"]


def test_the_javascript_example_attacks_and_hears_it_live(served: str, tmp_path: Path) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.fail("Node 20 is needed for the JavaScript examples (the README's requirement)")
    script = tmp_path / "example.mjs"
    script.write_text(example("js"))
    run = subprocess.run(
        [node, "--experimental-websocket", str(script)],
        capture_output=True,
        timeout=60,
        env={**os.environ, "ADMIN_KEY": ADMIN_KEY, "FIREFIGHT_URL": served},
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.decode().splitlines() == [
        "goon-1: hit, 9 boxes physical",
        "live: attack by sam, 3 net hits",
    ]

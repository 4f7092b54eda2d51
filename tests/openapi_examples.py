"""The contract's examples (service/api/examples.json), played as a table would: the scenario of
tests/openapi_scenario.py (the README's quickstart, then the guides' calls) against a fresh
service. `python -m tests.openapi_examples` writes what it answered; tests/test_openapi_examples.py
plays it again and checks the file says what the service answers.

Ids, tokens and times differ run to run: they are written as the run made them and compared as
placeholders (`masked`)."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import re
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp

from service.api.operations import OPERATIONS
from tests.console_browser import free_port, serve_on
from tests.openapi_scenario import README_ATTACK, README_CREATE, SCENARIO, Step
from tests.test_cli import ADMIN_KEY, ROOT

# The README's quickstart bodies, which tests/test_openapi_clients.py plays through the
# generated clients.
__all__ = ["README_ATTACK", "README_CREATE", "masked", "play", "serve"]

EXAMPLES_FILE = ROOT / "service" / "api" / "examples.json"
BY_ID = {op.operation_id: op for op in OPERATIONS}
# Created by an operation, different every run: its answer's field, and the placeholder it is
# compared as.
_CREATED = {
    "createEncounter": "encounter",
    "startCampaignEncounter": "campaign encounter",
    "createCampaign": "campaign",
    "givePlayerToken": "anna",
    "giveCampaignPlayerToken": "anna's campaign",
}


@contextlib.contextmanager
def serve() -> Iterator[str]:
    """The service on the memory store (nothing outlives the run: campaigns never expire), with
    one face on every die it picks under `FIREFIGHT_CONSTANT_DICE` (tests/constant_dice.py)."""
    with tempfile.TemporaryDirectory() as data:
        yield from _served(Path(data))


def _served(data: Path) -> Iterator[str]:
    with serve_on(data, free_port(), ADMIN_KEY, args=("--store", "memory")) as url:
        yield url


def _call(url: str, method: str, step: Step, token: str | None) -> tuple[int, Any]:
    body: bytes | None = None
    if step.file is not None:  # a file, as it is
        body = step.file.read_bytes()
    elif step.request is not None:
        body = json.dumps(step.request).encode()
    request = urllib.request.Request(url, data=body, method=method.upper())
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    if step.request is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            text = response.read()
            if response.headers.get_content_type() == "text/plain":  # the metrics
                return response.status, text.decode()
            return response.status, json.loads(text) if text else None
    except urllib.error.HTTPError as refused:
        return refused.code, json.load(refused)


async def _first_message(url: str, token: str) -> Any:
    async with aiohttp.ClientSession() as session:
        socket = await session.ws_connect(url, headers={"Authorization": f"Bearer {token}"})
        async with socket:
            message = await socket.receive_json(timeout=10)
    return message


def play(base: str) -> dict[str, dict[str, Any]]:
    """Every step against the service at `base`: what each recorded step sent and got."""
    played: dict[str, dict[str, Any]] = {}
    answers: dict[str, Any] = {}
    tokens: dict[str, str] = {"admin": ADMIN_KEY}
    ids: dict[str, str] = {}
    for step in SCENARIO:
        op = BY_ID[step.operation_id]
        path = op.path.format(**{**ids, **step.ids})
        query = dict(step.query)
        if step.after is not None:
            query["after"] = answers[step.after]["event_id"]
        url = base + path + ("?" + urllib.parse.urlencode(query) if query else "")
        token = None if step.who is None else tokens[step.who]
        if op.websocket:
            assert token is not None
            message = asyncio.run(_first_message(url, token))
            played[step.operation_id] = {"message": message}
            continue
        status, answer = _call(url, op.method, step, token)
        allowed = {op.status} | ({op.other_success[0]} if op.other_success else set())
        assert status in allowed, (step, status, answer)
        answers[step.operation_id] = answer
        _remember(step, answer, ids, tokens)
        if step.record:
            played[step.operation_id] = {
                **({} if step.request is None else {"request": step.request}),
                "status": status,
                "answer": answer,
            }
    return played


def _remember(step: Step, answer: Any, ids: dict[str, str], tokens: dict[str, str]) -> None:
    """The ids and tokens later steps call with."""
    if step.operation_id == "createEncounter":
        ids["encounter"] = answer["id"]
        tokens.update(answer["tokens"])
    elif step.operation_id == "createCampaign":
        ids["campaign"] = answer["id"]
        tokens["campaign_gm"] = answer["token"]
    elif step.operation_id == "startCampaignEncounter":
        ids["encounter"] = answer["id"]


# What differs run to run, by key (the dice secret and its commitment too): replaced by a
# placeholder before comparing; and what the run created (`_CREATED`) wherever it is.
_VOLATILE = {"created_at", "at", "expires_at", "seed", "commitment", "secret"}
_EVENT_ID = re.compile(r"^[0-9]+-[0-9]+$")  # event ids, wherever they are
# The value of each sample of a metrics answer (durations, times, and how often the start-up
# polled /readyz): its series are compared, not their numbers.
_SAMPLE = re.compile(r"^([a-z_]+(?:\{[^}]*\})?) \S+$", re.M)


def masked(played: dict[str, dict[str, Any]]) -> Any:
    """`played` with ids, tokens, times and server seeds replaced by placeholders."""
    names: dict[str, str] = {}
    for operation_id, name in _CREATED.items():
        answer = played[operation_id]["answer"]
        if "id" in answer:
            names[answer["id"]] = f"<{name}>"
        for role, token in answer.get("tokens", {}).items():
            names[token] = f"<{name} {role} token>"
        if "token" in answer:
            names[answer["token"]] = f"<{name} token>"

    def visit(node: Any) -> Any:
        if isinstance(node, dict):
            return {
                key: f"<{key}>" if key in _VOLATILE else visit(value) for key, value in node.items()
            }
        if isinstance(node, list):
            return [visit(item) for item in node]
        if isinstance(node, str):
            if node.startswith("# HELP "):
                return _SAMPLE.sub(r"\1 <value>", node)
            return "<event id>" if _EVENT_ID.match(node) else names.get(node, node)
        return node

    return visit(copy.deepcopy(played))


def main() -> None:
    with serve() as url:
        played = play(url)
    EXAMPLES_FILE.write_text(
        json.dumps(
            {
                "about": "Written by `python -m tests.openapi_examples`: see that module.",
                "operations": played,
            },
            indent=1,
        )
        + "\n"
    )


if __name__ == "__main__":
    main()

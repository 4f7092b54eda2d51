"""The contract's examples (service/api/examples.json) played as a table would: the README's
quickstart, then the API guide's bodies on the same encounter. `python -m tests.openapi_examples`
plays them against a fresh service and writes what it answered; tests/test_openapi_examples.py
plays them again and checks the file says what the service answers.

Ids, tokens and times differ run to run: they are written as the run made them and compared as
placeholders (`masked`)."""

from __future__ import annotations

import copy
import json
import re
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from service.api.operations import OPERATIONS
from tests import sr5_requests as make
from tests.test_cli import ADMIN_KEY, ROOT, serve

EXAMPLES_FILE = ROOT / "service" / "api" / "examples.json"
Who = Literal["admin", "gm", "player"]


def readme_shell_bodies(page: Path) -> list[tuple[str, str, dict[str, Any]]]:
    """Every `curl -X METHOD URL ... -d '{json}'` of a page's shell blocks (the URL on
    `http://127.0.0.1:8080` or `$BASE`): the method, the operation's path (`$ENCOUNTER` read as
    `{encounter}`) and the body."""
    found = []
    for block in re.findall(r"```sh\n(.*?)```", page.read_text(), re.S):
        for call in re.split(r"\n(?=(?:\w+=\$\()?curl )", block):
            body = re.search(r"-d '(\{.*?\})'", call, re.S)
            method = re.search(r"-X (\w+)", call)
            url = re.search(r'"?(?:http://127\.0\.0\.1:8080|\$BASE)(/[^"\s]*)"?', call)
            if body is None or method is None or url is None or "..." in body.group(1):
                continue
            path = re.sub(r"\$(\w+)", lambda m: "{" + m.group(1).lower() + "}", url.group(1))
            found.append((method.group(1).lower(), path, json.loads(body.group(1))))
    return found


README = {(m, p): body for m, p, body in readme_shell_bodies(ROOT / "README.md")}
README_CREATE = README[("post", "/v1/encounters")]
README_ATTACK = README[("post", "/v1/encounters/{encounter}/attacks")]
# The README's odds: "the same body without `dice`".
README_ODDS = {key: value for key, value in README_ATTACK.items() if key != "dice"}


@dataclass(frozen=True)
class Step:
    operation_id: str
    who: Who
    request: dict[str, Any] | None = None
    actor: str | None = None


# In the order they are played. Bodies from the README's quickstart and docs/api.md.
SCENARIO = (
    Step("createEncounter", "admin", README_CREATE),
    Step("previewAttackOdds", "player", README_ODDS),
    Step("resolveAttack", "player", README_ATTACK),
    Step(
        "putActor",
        "gm",
        {"name": "Goon", "position": {"x": 12.0, "y": 0.0}, "sheet": make.README_GANGER_SHEET},
        actor="goon-1",
    ),
    Step("moveActor", "gm", {"position": {"x": 4.5, "y": -2}}, actor="goon-1"),
    Step("editMonitor", "gm", {"set": {"physical": 4}}, actor="goon-1"),
    Step("takeAction", "gm", {"actor": "sam", "action": "other"}),
    Step("advanceTurn", "gm", {"to": "initiative_pass"}),
    Step("undoChange", "gm"),
    Step("getEncounter", "player"),
)
BY_ID = {op.operation_id: op for op in OPERATIONS}


def _call(url: str, method: str, body: Any, token: str) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method.upper())
    request.add_header("Authorization", f"Bearer {token}")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as refused:
        return refused.code, json.load(refused)


def play(base: str) -> dict[str, dict[str, Any]]:
    """Every step against the service at `base`: its request and the answer it got."""
    played: dict[str, dict[str, Any]] = {}
    tokens = {"admin": ADMIN_KEY}
    encounter = ""
    for step in SCENARIO:
        op = BY_ID[step.operation_id]
        path = op.path.format(encounter=encounter, actor=step.actor)
        status, answer = _call(base + path, op.method, step.request, tokens[step.who])
        assert status == op.status, (step, answer)
        if step.operation_id == "createEncounter":
            encounter = answer["id"]
            tokens.update(answer["tokens"])
        played[step.operation_id] = {
            **({} if step.request is None else {"request": step.request}),
            "answer": answer,
        }
    return played


# What differs run to run, by key: replaced by a placeholder before comparing; and the
# encounter's id and tokens (from its creation's answer) wherever they are.
_VOLATILE = {"created_at", "at", "expires_at", "seed"}
_EVENT_ID = re.compile(r"^[0-9]+-[0-9]+$")  # event ids, wherever they are


def masked(played: dict[str, dict[str, Any]]) -> Any:
    """`played` with ids, tokens, times and server seeds replaced by placeholders."""
    created = played["createEncounter"]["answer"]
    names = {created["id"]: "<encounter>"}
    names.update({token: f"<{role} token>" for role, token in created["tokens"].items()})

    def visit(node: Any) -> Any:
        if isinstance(node, dict):
            return {
                key: f"<{key}>" if key in _VOLATILE else visit(value) for key, value in node.items()
            }
        if isinstance(node, list):
            return [visit(item) for item in node]
        if isinstance(node, str):
            return "<event id>" if _EVENT_ID.match(node) else names.get(node, node)
        return node

    return visit(copy.deepcopy(played))


def main() -> None:
    with serve() as (url, _):
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

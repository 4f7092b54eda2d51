"""What tests/openapi_examples.py plays to make the contract's examples: the shell calls of the
README and the guides (each `curl` read back into its operation, path ids and body), and the
scenario, a table's evening that calls every operation once for the record, in order.

Every body comes from a page's `curl -d`: the README's quickstart, then docs/api.md's and
docs/campaigns.md's examples. A few calls are played but not recorded (`record=False`): what a
later example stands on (Sam on the scene beside the ganger; the suppressive fire a zone test is
made in)."""

from __future__ import annotations

import functools
import json
import re
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from service.api.operations import OPERATIONS, Operation
from tests.test_cli import ROOT

# Whose token a call carries: the server's admin key, the encounter's GM or shared player token,
# the campaign's GM token; None for the public operations.
Who = Literal["admin", "gm", "player", "campaign_gm"] | None
PAGES = ("README.md", "docs/api.md", "docs/campaigns.md")
IMPORTS = ROOT / "tests" / "data" / "imports"


@dataclass(frozen=True)
class ShellCall:
    """One `curl` of a page's shell blocks."""

    page: str
    operation: Operation
    # The path's ids the page writes out (`goon-1`, `zone-1`); those it writes as variables
    # (`$ENCOUNTER`, `$CAMPAIGN`) are the scenario's.
    ids: dict[str, str]
    body: dict[str, Any] | None
    # Its query (`?format=chummer5`) and the file it sends as it is (`--data-binary @file`:
    # one of tests/data/imports/).
    query: dict[str, str] = field(default_factory=dict)
    file: Path | None = None


def _operation_at(method: str, path: str) -> tuple[Operation, dict[str, str]]:
    for op in OPERATIONS:
        pattern = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(op.path))
        found = re.fullmatch(pattern, path)
        if op.method == method and not op.websocket and found:
            ids = {k: v for k, v in found.groupdict().items() if not v.startswith("{")}
            return op, ids
    raise AssertionError(f"no operation is {method.upper()} {path}")


@functools.cache
def shell_calls(page: str) -> tuple[ShellCall, ...]:
    """Every `curl` of a page's shell blocks on `http://127.0.0.1:8080` or `$BASE`: its
    operation, the ids its path writes out (`$ENCOUNTER` is read as `{encounter}`) and its body
    (`-d '{json}'`; None when it sends none or a file)."""
    found = []
    for block in re.findall(r"```sh\n(.*?)```", (ROOT / page).read_text(), re.S):
        for call in re.split(r"\n(?=(?:\w+=\$\()?curl )", block):
            url = re.search(r'"?(?:http://127\.0\.0\.1:8080|\$BASE)(/[^"\s?]*)\??([^"\s]*)', call)
            if not call.startswith(("curl ", "CREATED=$(curl ")) or url is None:
                continue
            body = re.search(r"-d '(\{.*?\})'", call, re.S)
            if body is not None and "..." in body.group(1):
                continue  # the README's "the same body without dice"
            method = re.search(r"-X (\w+)", call)
            path = re.sub(r"\$(\w+)", lambda m: "{" + m.group(1).lower() + "}", url.group(1))
            op, ids = _operation_at("get" if method is None else method.group(1).lower(), path)
            query = dict(urllib.parse.parse_qsl(url.group(2)))
            file = re.search(r"--data-binary @(\S+)", call)
            found.append(
                ShellCall(
                    page,
                    op,
                    ids,
                    None if body is None else json.loads(body[1]),
                    query,
                    None if file is None else IMPORTS / file[1],
                )
            )
    return tuple(found)


def documented(page: str, operation_id: str, nth: int = 0) -> ShellCall:
    """The page's `nth` call of the operation."""
    calls = [c for c in shell_calls(page) if c.operation.operation_id == operation_id]
    return calls[nth]


def body_of(page: str, operation_id: str) -> dict[str, Any]:
    """The body of the page's first call of the operation."""
    body = documented(page, operation_id).body
    assert body is not None, (page, operation_id)
    return body


@dataclass(frozen=True)
class Step:
    operation_id: str
    who: Who
    request: dict[str, Any] | None = None
    # The path's ids besides the encounter's and the campaign's.
    ids: dict[str, str] = field(default_factory=dict)
    # Kept in the examples; a step that only sets the scene up for a later one is not.
    record: bool = True
    # A file body, sent as it is (an import), and the query (its `format`).
    file: Path | None = None
    query: dict[str, str] = field(default_factory=dict)
    # `?after=` the event id of an earlier step's answer (its operationId).
    after: str | None = None


def step(
    page: str, operation_id: str, who: Who, nth: int = 0, *, record: bool = True, **more: Any
) -> Step:
    """The page's call of the operation, as a step of the scenario."""
    call = documented(page, operation_id, nth)
    return Step(operation_id, who, call.body, call.ids, record, call.file, call.query, **more)


README = "README.md"
GUIDE = "docs/api.md"
CAMPAIGNS = "docs/campaigns.md"
README_CREATE = body_of(README, "createEncounter")
README_ATTACK = body_of(README, "resolveAttack")
# The README's odds: "the same body without `dice`".
README_ODDS = {key: value for key, value in README_ATTACK.items() if key != "dice"}
GOON_ZONE_TEST = body_of(GUIDE, "resolveZoneTest")
# docs/api.md, "Suppression zones": "the same test body without `dice`".
GOON_ZONE_ODDS = {key: value for key, value in GOON_ZONE_TEST.items() if key != "dice"}

# In the order they are played.
SCENARIO = (
    # The service itself, without a token.
    Step("getHealth", None),
    Step("getReadiness", None),
    # docs/api.md, "The service's metrics": from this machine, no token needed.
    step(GUIDE, "getMetrics", None),
    Step("listRulesets", None),
    Step("getRuleset", None, ids={"ruleset": "sr5"}),
    # The README's quickstart.
    Step("createEncounter", "admin", README_CREATE),
    Step("previewAttackOdds", "player", README_ODDS),
    Step("resolveAttack", "player", README_ATTACK),
    # docs/api.md, "The scene" and "Importing a character" (the actor the scene's example
    # takes off).
    step(GUIDE, "putActor", "gm", 0, record=False),
    step(GUIDE, "putActor", "gm", 1),
    step(GUIDE, "listActors", "player"),
    step(GUIDE, "getActor", "player"),
    # "What to roll, before rolling", on Sam and the ganger 12 m apart.
    step(GUIDE, "previewDiceNeeds", "player"),
    step(GUIDE, "moveActor", "gm"),
    step(GUIDE, "patchActor", "gm"),
    step(GUIDE, "importActor", "gm"),
    step(GUIDE, "removeActor", "gm"),
    # "Actions and the turn", and "Undo".
    step(GUIDE, "takeAction", "player"),
    step(GUIDE, "advanceTurn", "gm"),
    step(GUIDE, "undoChange", "gm"),
    step(GUIDE, "startInitiative", "gm"),
    step(GUIDE, "getInitiative", "player"),
    step(GUIDE, "joinInitiative", "gm"),
    step(GUIDE, "leaveInitiative", "gm"),
    step(GUIDE, "stopInitiative", "gm"),
    # "Players and their actors".
    step(GUIDE, "givePlayerToken", "gm"),
    step(GUIDE, "revokePlayerToken", "gm"),
    # "Condition monitors and damage" and "Suppression zones".
    step(GUIDE, "editState", "gm"),
    step(GUIDE, "editMonitor", "gm"),
    step(GUIDE, "resolveAttack", "gm", 0, record=False),
    step(GUIDE, "listZones", "player"),
    Step("previewZoneTestOdds", "gm", GOON_ZONE_ODDS, ids={"zone": "zone-1"}),
    step(GUIDE, "resolveZoneTest", "gm", 0),
    step(GUIDE, "resolveZoneTest", "gm", 1, record=False),
    step(GUIDE, "applyPendingDamage", "gm"),
    step(GUIDE, "declinePendingDamage", "gm"),
    # "Events and live updates": what came after the damage applied (its decline).
    step(GUIDE, "listEvents", "player", after="applyPendingDamage"),
    Step("watchEvents", "player", after="applyPendingDamage"),
    # "Dice": a player's own seed, then the GM reveals the secret (no undo passes it).
    step(GUIDE, "setClientSeed", "player"),
    step(GUIDE, "revealDice", "gm"),
    Step("getEncounter", "player"),
    # docs/campaigns.md.
    step(CAMPAIGNS, "createCampaign", "admin"),
    step(CAMPAIGNS, "putCampaignActor", "campaign_gm"),
    step(CAMPAIGNS, "importCampaignActor", "campaign_gm"),
    step(CAMPAIGNS, "patchCampaignActor", "campaign_gm"),
    step(CAMPAIGNS, "giveCampaignPlayerToken", "campaign_gm"),
    Step("getCampaign", "campaign_gm"),
    step(CAMPAIGNS, "startCampaignEncounter", "campaign_gm"),
    # Its end gives Kestrel back what the fight changed (200; an encounter of no campaign: 204).
    Step("endEncounter", "campaign_gm"),
    Step("revokeCampaignPlayerToken", "campaign_gm", ids={"player": "anna"}),
    step(CAMPAIGNS, "removeCampaignActor", "campaign_gm"),
)

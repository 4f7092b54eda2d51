"""The README's quickstart through the Python client openapi-python-client generates from the
served /openapi.json: tests/test_openapi_clients.py generates `firefight_client` and runs this
with the README's bodies (a JSON object: `create`, `attack`) as its argument."""

from __future__ import annotations

import json
import os
import sys

from firefight_client import AuthenticatedClient
from firefight_client.api.encounters import create_encounter, get_encounter
from firefight_client.api.play import resolve_attack
from firefight_client.models import (
    AttackOutcome,
    EncounterCreate,
    EncounterCreated,
    Problem,
    SR5AttackAsk,
    SR5AttackResult,
)


def main() -> None:
    bodies = json.loads(sys.argv[1])
    base = os.environ["FIREFIGHT_URL"]
    admin = AuthenticatedClient(base_url=base, token=os.environ["ADMIN_KEY"])
    created = create_encounter.sync(client=admin, body=EncounterCreate.from_dict(bodies["create"]))
    assert isinstance(created, EncounterCreated), created
    player = AuthenticatedClient(base_url=base, token=created.tokens.player)
    outcome = resolve_attack.sync(
        encounter=created.id, client=player, body=SR5AttackAsk.from_dict(bodies["attack"])
    )
    assert isinstance(outcome, AttackOutcome), outcome
    result = outcome.result
    assert isinstance(result, SR5AttackResult), result
    for target in result.targets:
        damage = target.damage
        boxes = "no damage" if not damage else f"{damage.boxes} boxes {damage.track}"
        print(f"{target.target}: {target.outcome}, {boxes}")
    missing = get_encounter.sync(encounter="no-such-encounter", client=admin)
    assert isinstance(missing, Problem), missing
    print(missing.type_)


if __name__ == "__main__":
    main()

"""Issue 11, players bound to their actors: a player's own token acts and moves only for the
actors it controls, and gives dice only for their steps unless the GM's dice policy says any."""

from __future__ import annotations

from typing import Any

from tests import sr5_requests as make
from tests.conftest import ADMIN_KEY
from tests.test_scene import SAM
from tests.test_trust import bearer, open_table

GOON = {"name": "Ganger", "position": {"x": 12.0, "y": 0.0}}


async def bound_table(anonymous: Any) -> tuple[str, dict[str, str], dict[str, str], str]:
    """An encounter with Sam (the player's) and a ganger (the GM's), and the player's token."""
    encounter, tokens = await open_table(anonymous)
    base, gm = f"/v1/encounters/{encounter}", bearer(tokens["gm"])
    for actor_id, actor in (("sam", {**SAM, "controller": "gm"}), ("goon-1", GOON)):
        assert (await anonymous.put(f"{base}/actors/{actor_id}", json=actor, headers=gm)).ok
    issued = await anonymous.post(f"{base}/players/anna", json={"actors": ["sam"]}, headers=gm)
    assert issued.status == 201, await issued.text()
    outcome = await issued.json()
    assert outcome["result"] == {
        "kind": "player",
        "player": "anna",
        "actors": ["sam"],
        "has_token": True,
    }
    return base, gm, bearer(outcome["token"]), outcome["token"]


async def test_the_gm_gives_a_player_a_token_and_its_actors(anonymous: Any) -> None:
    base, gm, anna, token = await bound_table(anonymous)
    sam = await (await anonymous.get(f"{base}/actors/sam", headers=anna)).json()
    assert sam["controller"] == "anna"
    # The token is in the answer only: never in an event.
    page = await (await anonymous.get(f"{base}/events", headers=gm)).json()
    assert token not in str(page)
    assert page["events"][-1]["type"] == "players"
    # The player's token reads and plays, but does not run the table.
    assert (await anonymous.get(base, headers=anna)).status == 200
    advance = await anonymous.post(f"{base}/advance", json={"to": "combat_turn"}, headers=anna)
    assert advance.status == 403
    put = await anonymous.put(f"{base}/actors/sam", json=SAM, headers=anna)
    assert put.status == 403
    issue = await anonymous.post(f"{base}/players/bob", json={}, headers=anna)
    assert issue.status == 403


async def test_the_view_tells_each_token_what_it_is(anonymous: Any) -> None:
    """A console joined with a token typed in learns from its first read which controls to
    show: the GM's token (or the admin key) is the GM, the shared player token a player, and a
    player's own token that player."""
    base, gm, anna, _ = await bound_table(anonymous)
    view = await (await anonymous.get(base, headers=gm)).json()
    assert (view["role"], view["player"]) == ("gm", None)
    admin = await (await anonymous.get(base, headers=bearer(ADMIN_KEY))).json()
    assert (admin["role"], admin["player"]) == ("gm", None)
    own = await (await anonymous.get(base, headers=anna)).json()
    assert (own["role"], own["player"]) == ("player", "anna")
    encounter, tokens = await open_table(anonymous)
    player = await (
        await anonymous.get(f"/v1/encounters/{encounter}", headers=bearer(tokens["player"]))
    ).json()
    assert (player["role"], player["player"]) == ("player", None)


async def test_a_player_acts_and_moves_only_for_its_actors(anonymous: Any) -> None:
    base, _, anna, _ = await bound_table(anonymous)
    shot = await anonymous.post(f"{base}/attacks", json=make.attack(), headers=anna)
    assert shot.status == 201, await shot.text()
    as_goon = make.attack(attacker=make.attacker(id="goon-1"))
    refused = await anonymous.post(f"{base}/attacks", json=as_goon, headers=anna)
    assert refused.status == 403
    problem = await refused.json()
    assert problem["path"] == "$.attacker.id"
    assert "does not control 'goon-1'" in problem["detail"]
    action = {"actor": "goon-1", "action": "take_aim"}
    refused = await anonymous.post(f"{base}/actions", json=action, headers=anna)
    assert (refused.status, (await refused.json())["path"]) == (403, "$.actor")
    move = {"position": {"x": 1.0, "y": 2.0}}
    assert (await anonymous.post(f"{base}/actors/sam/move", json=move, headers=anna)).status == 201
    refused = await anonymous.post(f"{base}/actors/goon-1/move", json=move, headers=anna)
    assert (refused.status, (await refused.json())["path"]) == (403, "actor")


async def test_a_player_gives_dice_only_for_its_own_steps_unless_the_gm_allows_any(
    anonymous: Any,
) -> None:
    base, gm, anna, _ = await bound_table(anonymous)
    theirs = make.attack(dice={"defense:goon-1": [1, 1, 1, 1, 1, 1]})
    refused = await anonymous.post(f"{base}/attacks", json=theirs, headers=anna)
    assert refused.status == 403
    assert (await refused.json())["path"] == '$.dice["defense:goon-1"]'
    policy = await anonymous.put(f"{base}/state", json={"dice_policy": "any"}, headers=gm)
    assert policy.status == 201, await policy.text()
    assert (await anonymous.get(base, headers=gm)).ok
    assert (await (await anonymous.get(base, headers=gm)).json())["dice_policy"] == "any"
    allowed = await anonymous.post(f"{base}/attacks", json=theirs, headers=anna)
    assert allowed.status == 201, await allowed.text()
    # Its own attack's dice it gives whatever the policy.
    await anonymous.put(f"{base}/state", json={"dice_policy": "own"}, headers=gm)
    own = make.attack(dice={"attack": [6, 5, 5, 1, 2, 3, 4, 2, 3, 4]})
    assert (await anonymous.post(f"{base}/attacks", json=own, headers=anna)).status == 201


async def test_a_new_token_replaces_the_old_and_a_revoked_one_opens_nothing(
    anonymous: Any,
) -> None:
    base, gm, anna, _ = await bound_table(anonymous)
    again = await anonymous.post(f"{base}/players/anna", json={}, headers=gm)
    assert again.status == 201, await again.text()
    # Sam stays Anna's; the old token is gone.
    assert (await again.json())["result"]["actors"] == ["sam"]
    assert (await anonymous.get(base, headers=anna)).status == 401
    fresh = bearer((await again.json())["token"])
    assert (await anonymous.get(base, headers=fresh)).status == 200
    revoked = await anonymous.delete(f"{base}/players/anna", headers=gm)
    assert revoked.status == 200
    assert (await revoked.json())["result"]["has_token"] is False
    assert (await anonymous.get(base, headers=fresh)).status == 401


async def test_a_players_token_is_not_kept_for_retries(anonymous: Any) -> None:
    base, gm, _, _ = await bound_table(anonymous)
    keyed = await anonymous.post(
        f"{base}/players/bob", json={}, headers={**gm, "Idempotency-Key": "players-1"}
    )
    assert keyed.status == 400
    assert (await keyed.json())["path"] == "Idempotency-Key"
    unknown = await anonymous.post(f"{base}/players/bob", json={"actors": ["nobody"]}, headers=gm)
    assert unknown.status == 404


async def test_the_shared_player_token_gives_only_the_acting_actors_dice_by_default(
    anonymous: Any,
) -> None:
    encounter, tokens = await open_table(anonymous)
    base, gm, player = f"/v1/encounters/{encounter}", bearer(tokens["gm"]), bearer(tokens["player"])
    own = make.attack(dice={"attack": [6, 5, 5, 1, 2, 3, 4, 2, 3, 4]})
    assert (await anonymous.post(f"{base}/attacks", json=own, headers=player)).status == 201
    theirs = make.attack(dice={"soak:goon-1": [1] * 12})
    refused = await anonymous.post(f"{base}/attacks", json=theirs, headers=player)
    assert refused.status == 403
    assert (await refused.json())["path"] == '$.dice["soak:goon-1"]'
    # The GM's own rolls are the GM's to type, whatever the policy.
    assert (await anonymous.post(f"{base}/attacks", json=theirs, headers=gm)).status != 403
    await anonymous.put(f"{base}/state", json={"dice_policy": "any"}, headers=gm)
    allowed = await anonymous.post(f"{base}/attacks", json=theirs, headers=player)
    assert allowed.status != 403, await allowed.text()

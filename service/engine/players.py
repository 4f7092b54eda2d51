"""Players bound to their actors: a player's own token acts and moves only for the actors it
controls, and gives dice only for their steps unless the encounter's dice policy is "any"."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from schemas.encounter import EncounterState
from schemas.scene import MAX_PLAYERS, PlayerBinding, PlayerResult
from service.engine.access import PLAYER_PREFIX, Forbidden
from service.engine.errors import LimitExceeded
from service.engine.scene import ActorNotFound
from service.rules import Resolution, Ruleset


def acting_actor(request: Any) -> tuple[str, str]:
    """Who acts in an attack, action or zone test, and the field that names it."""
    actor = getattr(request, "actor", None)
    if isinstance(actor, str):
        return actor, "$.actor"
    return request.attacker.id, "$.attacker.id"


def controlled_by(state: EncounterState, player: str) -> list[str]:
    return sorted(i for i, actor in state.scene.items() if actor.controller == player)


def check_acts_for(state: EncounterState, player: str, actor_id: str, path: str) -> None:
    actor = state.scene.get(actor_id)
    if actor is None or actor.controller != player:
        raise Forbidden(f"player '{player}' does not control '{actor_id}'", path)


def check_dice(
    state: EncounterState,
    ruleset: Ruleset,
    player: str | None,
    acting: str,
    given: Mapping[str, Any],
) -> None:
    """Given dice only for the player's own steps: the acting actor's own rolls, and those
    named after an actor the player controls (its defense, its soak). The shared player token
    (`player` None) owns the acting actor's alone: another actor's defense is not its to roll."""
    own = set(controlled_by(state, player)) if player is not None else {acting}
    who = f"player '{player}'" if player is not None else "the player token"
    for step in given:
        kind, _, subject = step.partition(":")
        if not subject or subject in own or (kind in ruleset.attacker_steps and acting in own):
            continue
        raise Forbidden(
            f"{who} may not give the dice of '{step}': the GM's dice policy lets players give "
            "the dice of their own actors' steps only (the GM may set it to 'any')",
            f'$.dice["{step}"]',
        )


def with_token(
    state: EncounterState, player: str, token_hash: str, binding: PlayerBinding
) -> EncounterState:
    """The state with `player`'s token (replacing any earlier one) and the named actors its."""
    hashes = dict(state.token_hashes)
    if PLAYER_PREFIX + player not in hashes and _players(hashes) >= MAX_PLAYERS:
        raise LimitExceeded(f"an encounter gives tokens to at most {MAX_PLAYERS} players")
    hashes[PLAYER_PREFIX + player] = token_hash
    scene = dict(state.scene)
    for actor_id in binding.actors:
        if actor_id not in scene:
            raise ActorNotFound(actor_id)
        scene[actor_id] = msgspec.structs.replace(scene[actor_id], controller=player)
    return msgspec.structs.replace(state, token_hashes=hashes, scene=scene)


def without_token(state: EncounterState, player: str) -> EncounterState:
    hashes = dict(state.token_hashes)
    hashes.pop(PLAYER_PREFIX + player, None)
    return msgspec.structs.replace(state, token_hashes=hashes)


def resolution(state: EncounterState, player: str) -> Resolution[PlayerResult]:
    result = PlayerResult(
        player=player,
        actors=controlled_by(state, player),
        has_token=PLAYER_PREFIX + player in state.token_hashes,
    )
    return Resolution(result=result, state=state.combat)


def _players(hashes: Mapping[str, str]) -> int:
    return sum(1 for role in hashes if role.startswith(PLAYER_PREFIX))

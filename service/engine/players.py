"""Players bound to their actors: a player's own token acts and moves only for the actors it
controls, and gives dice only for their steps unless the encounter's dice policy is "any"."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from schemas.encounter import EncounterState
from schemas.scene import GM, MAX_PLAYERS, PlayerBinding, PlayerResult, SceneActor
from service.engine.access import PLAYER_PREFIX, Forbidden
from service.engine.errors import LimitExceeded
from service.engine.scene import ActorNotFound
from service.rules import Resolution, Ruleset, RuleViolation


def acting_actor(request: Any) -> tuple[str, str]:
    """Who acts in an attack, action or zone test, and the field that names it."""
    actor = getattr(request, "actor", None)
    if isinstance(actor, str):
        return actor, "$.actor"
    attacker = request.attacker
    if isinstance(attacker, str):
        return attacker, "$.attacker"
    return attacker.id, "$.attacker.id"


def controlled_by(state: EncounterState, player: str) -> list[str]:
    # "gm" names the GM as controller: no player is ever it (a token for one is refused).
    if player == GM:
        return []
    return sorted(i for i, actor in state.scene.items() if actor.controller == player)


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
    if player == GM:
        raise RuleViolation(
            f"'{GM}' names the GM as an actor's controller: a player may not be called so",
            path="player",
            kind="reserved-name",
        )
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


def named(request: Any) -> list[tuple[str, str]]:
    """The actors a request names, each with the field that names it: who acts, its targets,
    and an action's target."""
    names = [acting_actor(request)]
    for index, target in enumerate(getattr(request, "targets", None) or ()):
        names.append((target.id, f"$.targets[{index}].id"))
    target = getattr(request, "target", None)
    if isinstance(target, str):
        names.append((target, "$.target"))
    return names


def _sheet_held(scene: Mapping[str, SceneActor], actor_id: str) -> bool:
    actor = scene.get(actor_id)
    return actor is not None and actor.sheet is not None


def _weapon_held(scene: Mapping[str, SceneActor], actor_id: str, weapon_id: str) -> bool:
    sheet = scene[actor_id].sheet if _sheet_held(scene, actor_id) else None
    return sheet is not None and any(w.id == weapon_id for w in sheet.weapons)


def by_name(asked: Any, scene: Mapping[str, SceneActor]) -> tuple[Any, list[tuple[str, str]]]:
    """A player's request with every actor and gun the scene holds a sheet for named instead of
    typed (the scene then fills their numbers in), and where each typed one was, as
    (field in the request, JSON path) for `check_typed`."""
    replaced: dict[str, Any] = {}
    typed: list[tuple[str, str]] = []
    attacker = getattr(asked, "attacker", None)
    shooter = attacker if isinstance(attacker, str) else getattr(attacker, "id", None)
    if isinstance(shooter, str) and shooter != attacker and _sheet_held(scene, shooter):
        replaced["attacker"] = shooter
        typed.append(("attacker", "$.attacker"))
    for name in ("weapon", "second_weapon"):
        weapon = getattr(asked, name, None)
        weapon_id = getattr(weapon, "id", None)
        if (
            shooter is not None
            and isinstance(weapon_id, str)
            and _weapon_held(scene, shooter, weapon_id)
        ):
            replaced[name] = weapon_id
            typed.append((name, f"$.{name}"))
    targets = getattr(asked, "targets", None)
    if targets:
        named_targets = []
        for index, target in enumerate(targets):
            if getattr(target, "defender", None) is not None and _sheet_held(scene, target.id):
                target = msgspec.structs.replace(target, defender=None)
                typed.append((f"targets.{index}.defender", f"$.targets[{index}].defender"))
            named_targets.append(target)
        replaced["targets"] = named_targets
    actor = getattr(asked, "actor", None)
    if getattr(asked, "defender", None) is not None and _sheet_held(scene, str(actor)):
        replaced["defender"] = None
        typed.append(("defender", "$.defender"))
    return (msgspec.structs.replace(asked, **replaced) if replaced else asked), typed


def _part(value: Any, field: str) -> Any:
    for step in field.split("."):
        value = value[int(step)] if step.isdigit() else getattr(value, step)
    return value


def _typed_part(body: Any, field: str) -> Any:
    for step in field.split("."):
        body = body[int(step)] if step.isdigit() else body.get(step)
        if body is None:
            return None
    return body


def check_typed(body: bytes, filled: Any, typed: list[tuple[str, str]]) -> None:
    """Every number a player typed for an actor or gun the scene holds must be the scene's
    (the request then takes the scene's): one that contradicts it is refused, naming it."""
    if not typed:
        return
    given = msgspec.json.decode(body)
    for field, path in typed:
        numbers = _typed_part(given, field)
        if not isinstance(numbers, dict):
            continue
        held = _part(filled, field)
        for name, value in numbers.items():
            if name == "id" or not hasattr(held, name):
                continue
            if msgspec.to_builtins(getattr(held, name)) != value:
                raise Forbidden(
                    f"{path}.{name} is {value!r}, but the scene's sheet says "
                    f"{msgspec.to_builtins(getattr(held, name))!r}: a player's request takes "
                    "the scene's numbers (the GM may set the encounter's sheet_policy to "
                    "'typed' to let players type their own)",
                    f"{path}.{name}",
                )

"""Initiative scores rolled: each actor's roll filled from its sheet (what it leaves out),
its score by the ruleset's dice, its tie-breakers, and a new combat turn's rolls made again from
the last one's. Pure; the turn itself is service/rules/initiative.py.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from schemas.encounter import TurnState
from schemas.initiative import (
    InitiativeEntry,
    InitiativeRoll,
)
from schemas.scene import SceneActor
from service.rules.dice import HIT_MINIMUM, Dice
from service.rules.ruleset import InitiativeRules, RuleViolation

# Every crossing is an advance as a VTT would have sent it.


# The fields a roll may take from the actor's sheet when it leaves them out, and the sheet's
# name for each.
_FROM_SHEET = {
    "reaction": "reaction",
    "intuition": "intuition",
    "edge": "edge",
    "initiative_dice": "initiative_dice",
    "passes": "initiative_passes",
}


# A tie-breaker that is no field of the roll: what the ruleset adds up before the dice (SR4's
# Initiative attribute).
BASE_TIE = "base"


def step(actor: str) -> str:
    """The dice step of an actor's initiative roll."""
    return f"initiative:{actor}"


def _filled(
    rules: InitiativeRules,
    roll: InitiativeRoll,
    scene: Mapping[str, SceneActor],
    from_state: int | None = None,
) -> InitiativeRoll:
    """What the roll leaves out, from the actor's sheet on the scene (what it gives wins); a
    roll without `modifier` takes `from_state` (the wounds the combat state keeps, Hard Life)
    when there is one, else the sheet's."""
    actor = scene.get(roll.actor)
    sheet = actor.sheet if actor is not None else None
    if roll.modifier is None and from_state is not None:
        roll = msgspec.structs.replace(roll, modifier=from_state)
    if sheet is None:
        return roll if roll.modifier is not None else msgspec.structs.replace(roll, modifier=0)
    found = {
        name: value
        for name, on_sheet in _FROM_SHEET.items()
        if getattr(roll, name) is None and (value := getattr(sheet, on_sheet, None)) is not None
    }
    if roll.modifier is None:
        found["modifier"] = rules.sheet_modifier(sheet)
    return msgspec.structs.replace(roll, **found) if found else roll


def roll_entries(
    rules: InitiativeRules,
    rolls: Sequence[InitiativeRoll],
    scene: Mapping[str, SceneActor],
    dice: Dice,
    path: str = "$.actors",
    combat: Any = None,
) -> list[InitiativeEntry]:
    """Each actor's score: as given, or the ruleset's base + modifier + its initiative dice
    (step `initiative:<actor id>`; SR4: the hits of base + modifier dice), in the order of
    `rolls`. A roll without `modifier` takes the wounds the ruleset reads off the `combat`
    state (`InitiativeRules.state_modifier`), else the sheet's."""
    entries: list[InitiativeEntry] = []
    seen: set[str] = set()
    for index, asked in enumerate(rolls):
        here = f"{path}[{index}]"
        if asked.actor in seen:
            raise RuleViolation(
                f"{asked.actor} rolls initiative once a combat turn", path=f"{here}.actor"
            )
        seen.add(asked.actor)
        from_state = (
            rules.state_modifier(combat, asked.actor)
            if asked.modifier is None and combat is not None
            else None
        )
        roll = _filled(rules, asked, scene, from_state)
        passes = (roll.passes or 1) if rules.passes == "count" else None
        if roll.score is not None:
            ties = _ties(rules, roll, None)
            entries.append(
                InitiativeEntry(
                    actor=roll.actor, score=roll.score, ties=ties, modifier=0, passes=passes
                )
            )
            continue
        missing = [name for name in rules.base if getattr(roll, name) is None]
        if missing:
            raise RuleViolation(
                f"{roll.actor}'s initiative needs {' and '.join(missing)}: give "
                f"{'them' if len(missing) > 1 else 'it'} (or the score rolled at the table), "
                "or put it on the actor's sheet",
                path=f"{here}.{missing[0]}",
                kind="initiative-incomplete",
            )
        base = sum(getattr(roll, name) for name in rules.base)
        modifier = roll.modifier or 0
        count = None if rules.dice == "hits" else roll.initiative_dice or rules.default_dice
        entries.append(
            InitiativeEntry(
                actor=roll.actor,
                score=_rolled_score(rules, roll.actor, base, modifier, count, dice),
                ties=_ties(rules, roll, base),
                base=base,
                initiative_dice=count,
                modifier=modifier,
                passes=passes,
                modifier_from_state=from_state is not None,
            )
        )
    return entries


def _ties(rules: InitiativeRules, roll: InitiativeRoll, base: int | None) -> list[int]:
    if base is None and BASE_TIE in rules.ties:
        given = [getattr(roll, name) for name in rules.base]
        base = None if None in given else sum(given)
    return [(base or 0) if name == BASE_TIE else (getattr(roll, name) or 0) for name in rules.ties]


def _rolled_score(
    rules: InitiativeRules, actor: str, base: int, modifier: int, count: int | None, dice: Dice
) -> int:
    """SR3, SR5: base + modifier + the initiative dice added up; SR4 (`dice` "hits"): base +
    modifier + the hits of as many dice (rules-sources/README.md: hits are 5 and 6)."""
    if rules.dice == "hits":
        rolled = dice.roll(step(actor), max(0, base + modifier))
        return base + modifier + sum(1 for face in rolled if face >= HIT_MINIMUM)
    return base + modifier + sum(dice.roll(step(actor), count or rules.default_dice))


def roll_again(
    turn: TurnState, rules: InitiativeRules, dice: Dice, combat: Any = None
) -> list[InitiativeEntry]:
    """Everyone of the last combat turn rolled again from what their rolls were made of, with
    the tie-breakers they had; a modifier that came from the combat state's wounds is read off
    `combat` again (they may have changed since)."""
    initiative = turn.initiative
    if initiative is None or not initiative.entries:
        raise RuleViolation(
            "no combat turn to roll again: give the actors and their initiative",
            path="$.actors",
            kind="initiative-incomplete",
        )
    given = [
        e.actor
        for e in initiative.entries
        if e.base is None or (rules.dice == "sum" and e.initiative_dice is None)
    ]
    if given:
        raise RuleViolation(
            f"{', '.join(given)} had a score given at the table, which the service cannot roll "
            "again: give every actor's roll",
            path="$.actors",
            kind="initiative-incomplete",
        )
    again: list[InitiativeEntry] = []
    for e in initiative.entries:
        modifier = e.modifier
        if e.modifier_from_state and combat is not None:
            now = rules.state_modifier(combat, e.actor)
            modifier = now if now is not None else 0
        again.append(
            msgspec.structs.replace(
                e,
                score=_rolled_score(rules, e.actor, e.base or 0, modifier, e.initiative_dice, dice),
                modifier=modifier,
                acted=False,
                holding=False,
                lost=0,
            )
        )
    return again

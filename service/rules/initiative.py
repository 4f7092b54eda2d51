"""The initiative engine, shared by every ruleset with initiative passes: scores, the order,
passes (10 off every score at the end of each, or, SR4, as many passes as each actor has),
whose phase it is, what the acting actor has used of it, holds, interrupts and phases given up
ahead. Pure: a turn in, a turn out.

The procedure is rules-sources/002_65e09aecd368bc68.txt, "INITIATIVE" (SR3; SR5 runs the same
one; SR4 counts passes instead), with each ruleset's own numbers (`InitiativeRules`). A change
that crosses into a new action phase, pass or combat turn says so (`Crossing`), so that the
engine can let the ruleset do what those moments do to the combat state (`Ruleset.on_advance`,
`Ruleset.went_off`).

The scores themselves are rolled in service/rules/initiative_roll.py.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import NoReturn

import msgspec

from schemas.encounter import AdvanceRequest, RulesetInitiative, TurnState
from schemas.initiative import (
    MAX_LOST_PHASES,
    ActionKind,
    ActionsUsed,
    Initiative,
    InitiativeEntry,
)

# The rolls, offered here with the rest of the engine.
from service.rules.initiative_roll import BASE_TIE as BASE_TIE
from service.rules.initiative_roll import roll_again as roll_again
from service.rules.initiative_roll import roll_entries as roll_entries
from service.rules.initiative_roll import step as step
from service.rules.ruleset import ActionCost, InitiativeRules, RuleViolation

# Every crossing is an advance as a VTT would have sent it.
Crossing = AdvanceRequest
# The actors out of the fight (unconscious, dying, dead: the monitors the engine keeps), each
# with why: their phases are passed over.
Out = Mapping[str, str]
NOBODY_OUT: Out = {}
_START_HINT = "start the next with POST .../initiative"


def _conflict(detail: str, kind: str = "initiative-conflict", path: str | None = None) -> NoReturn:
    raise RuleViolation(detail, path=path, kind=kind, status=409)


# --- rolling -----------------------------------------------------------------------------------


def ordered(entries: Iterable[InitiativeEntry]) -> list[InitiativeEntry]:
    """Highest score first, then the ruleset's tie-breakers; a tie they leave keeps the order
    the actors were given in (the service never rolls off a tie by itself)."""
    return sorted(entries, key=lambda e: (-e.score, *(-t for t in e.ties)))


# --- the turn ----------------------------------------------------------------------------------


def has_begun(turn: TurnState) -> bool:
    """The combat turn under way has begun: starting initiative now starts the next one."""
    if turn.initiative is not None:
        return not turn.initiative.over
    return turn.action_phase is not None or turn.initiative_pass > 1


def running(turn: TurnState) -> Initiative | None:
    """The initiative the service runs now (None: the VTT runs its own, or the turn is over)."""
    initiative = turn.initiative
    return initiative if initiative is not None and not initiative.over else None


def _has_phase(entry: InitiativeEntry, pass_number: int) -> bool:
    """Acts in this pass: a score above 0 and, where passes are counted (SR4), one left."""
    return entry.score > 0 and (entry.passes is None or entry.passes >= pass_number)


def _up_next(entries: Sequence[InitiativeEntry], pass_number: int) -> InitiativeEntry | None:
    """Who acts next in this pass: the highest score with a phase in it that has not acted;
    once everyone else has, those who held their action, ordered as an initiative tie (the
    document): by the ruleset's tie-breakers alone, not by their scores."""
    waiting = [e for e in entries if _has_phase(e, pass_number) and not e.acted]
    up = next((e for e in waiting if not e.holding), None)
    if up is not None or not waiting:
        return up
    # Only holders are left: their scores do not count, their tie-breakers do (highest
    # first); holders tied on those too keep their place in the order (the stable sort).
    return min(waiting, key=lambda e: tuple(-t for t in e.ties))


def _next_up(
    initiative: Initiative, pass_number: int, effects: list[str], out: Out
) -> tuple[Initiative, InitiativeEntry | None]:
    """Who acts next, once those who gave their next phase up ahead, and those out of the
    fight (`out`: unconscious and worse), have been passed by."""
    while True:
        up = _up_next(initiative.entries, pass_number)
        if up is None or (not up.lost and up.actor not in out):
            return initiative, up
        if up.actor in out:
            # Its phase comes and goes: nothing is given up ahead (it may wake up).
            effects.append(f"{up.actor} is {out[up.actor]}: its phase is passed over")
            lost = up.lost
        else:
            effects.append(f"{up.actor} has given this phase up (taken ahead)")
            lost = up.lost - 1
        initiative = msgspec.structs.replace(
            initiative,
            entries=[
                msgspec.structs.replace(e, acted=True, holding=False, lost=lost)
                if e.actor == up.actor
                else e
                for e in initiative.entries
            ],
        )


def _phases_left(entry: InitiativeEntry, rules: InitiativeRules, pass_number: int) -> int:
    """The action phases the actor still has in this combat turn, less those given up ahead."""
    first = pass_number + (1 if entry.acted else 0)
    if entry.passes is not None:
        phases = max(0, entry.passes - first + 1) if entry.score > 0 else 0
    elif rules.pass_cost > 0:
        later = first - pass_number
        phases = max(0, -(-(entry.score - later * rules.pass_cost) // rules.pass_cost))
    else:
        phases = 1 if entry.score > 0 and not entry.acted else 0
    return phases - entry.lost


def phases_left(turn: TurnState, rules: InitiativeRules, actor: str) -> int | None:
    """The action phases `actor` still has in this combat turn (the one under way included
    when it is its own), less those given up ahead; None when the service runs no initiative
    or the actor is not in it."""
    initiative = running(turn)
    if initiative is None:
        return None
    entry = next((e for e in initiative.entries if e.actor == actor), None)
    if entry is None:
        return None
    return max(0, _phases_left(entry, rules, turn.initiative_pass))


def lose_next_phase(turn: TurnState, rules: InitiativeRules, actor: str) -> TurnState | None:
    """The turn with `actor`'s next action phase in this combat turn lost (Hard Life's failed
    recovery roll): the engine passes it by when it comes. None when the service runs no
    initiative, the actor is not in it, or it has no phase left in this combat turn (the
    ruleset then keeps the loss itself, for the VTT's tracker or the next combat turn)."""
    initiative = running(turn)
    if initiative is None:
        return None
    entry = next((e for e in initiative.entries if e.actor == actor), None)
    if entry is None or entry.lost >= MAX_LOST_PHASES:
        return None
    # The phase under way is the actor's own: the next one is lost, not this.
    if (
        _phases_left(entry, rules, turn.initiative_pass) - (1 if initiative.current == actor else 0)
        < 1
    ):
        return None
    entries = [
        msgspec.structs.replace(e, lost=e.lost + 1) if e.actor == actor else e
        for e in initiative.entries
    ]
    return msgspec.structs.replace(
        turn, initiative=msgspec.structs.replace(initiative, entries=entries)
    )


def _begin_phase(
    turn: TurnState, initiative: Initiative, actor: str, effects: list[str]
) -> tuple[TurnState, list[Crossing]]:
    entries = [
        msgspec.structs.replace(e, holding=False) if e.actor == actor else e
        for e in initiative.entries
    ]
    score = next(e.score for e in entries if e.actor == actor)
    effects.append(f"{actor}'s combat phase (pass {turn.initiative_pass}, score {score})")
    after = msgspec.structs.replace(
        turn,
        action_phase=actor,
        phase=turn.phase + 1,
        initiative=msgspec.structs.replace(
            initiative, entries=entries, current=actor, used=ActionsUsed()
        ),
    )
    return after, [Crossing(to="action_phase", actor=actor)]


def start(
    turn: TurnState,
    rules: InitiativeRules,
    entries: list[InitiativeEntry],
    out: Out = NOBODY_OUT,
) -> tuple[TurnState, list[Crossing], list[str]]:
    """A combat turn begins with these scores: the next one if the turn under way has begun,
    then its first pass and the highest score's phase (of those not `out`)."""
    crossings: list[Crossing] = []
    effects: list[str] = []
    if has_begun(turn):
        turn, crossings = _end_turn(turn, effects)
    order = ordered(entries)
    effects.append(
        f"combat turn {turn.combat_turn}: " + ", ".join(f"{e.actor} {e.score}" for e in order)
    )
    initiative = Initiative(entries=order)
    turn = msgspec.structs.replace(
        turn, initiative_pass=1, action_phase=None, initiative=initiative
    )
    if _up_next(order, 1) is None:
        turn, ended = _end_turn(turn, effects)
        return turn, crossings + ended, effects
    initiative, first = _next_up(initiative, 1, effects, out)
    if first is None:  # everyone with a phase in the first pass is out of the fight
        turn, more, effects = _end_pass(turn, rules, initiative, effects, out)
        return turn, crossings + more, effects
    turn, began = _begin_phase(turn, initiative, first.actor, effects)
    return turn, crossings + began, effects


def _end_turn(turn: TurnState, effects: list[str]) -> tuple[TurnState, list[Crossing]]:
    """The combat turn is over: the next one waits for its initiative."""
    effects.append(f"combat turn {turn.combat_turn} is over; {_START_HINT}")
    initiative = turn.initiative
    if initiative is not None:
        initiative = msgspec.structs.replace(
            initiative,
            entries=[
                msgspec.structs.replace(e, acted=False, holding=False, lost=0)
                for e in initiative.entries
            ],
            current=None,
            used=ActionsUsed(),
            over=True,
        )
    after = msgspec.structs.replace(
        turn,
        combat_turn=turn.combat_turn + 1,
        initiative_pass=1,
        action_phase=None,
        initiative=initiative,
    )
    return after, [Crossing(to="combat_turn")]


def _end_pass(
    turn: TurnState,
    rules: InitiativeRules,
    initiative: Initiative,
    effects: list[str],
    out: Out = NOBODY_OUT,
) -> tuple[TurnState, list[Crossing], list[str]]:
    """10 off every score (SR4: none); a new pass for those with a phase in it, or the end of
    the combat turn."""
    entries = ordered(
        msgspec.structs.replace(
            e, score=max(e.score - rules.pass_cost, -1000), acted=False, holding=False
        )
        for e in initiative.entries
    )
    initiative = msgspec.structs.replace(
        initiative, entries=entries, current=None, used=ActionsUsed()
    )
    next_pass = turn.initiative_pass + 1
    if _up_next(entries, next_pass) is None:
        effects.append(
            f"pass {turn.initiative_pass} is over; "
            + ("no score is left above 0" if rules.passes == "score" else "nobody has a pass left")
        )
        turn, ended = _end_turn(msgspec.structs.replace(turn, initiative=initiative), effects)
        return turn, ended, effects
    turn = msgspec.structs.replace(
        turn, initiative_pass=next_pass, action_phase=None, initiative=initiative
    )
    effects.append(
        f"pass {next_pass}: "
        + (f"{rules.pass_cost} off every score; " if rules.pass_cost else "")
        + ", ".join(f"{e.actor} {e.score}" for e in entries if _has_phase(e, next_pass))
    )
    initiative, first = _next_up(initiative, next_pass, effects, out)
    if first is None:  # everyone left gave this pass up ahead, or is out of the fight
        turn, crossings, effects = _end_pass(turn, rules, initiative, effects, out)
        return turn, [Crossing(to="initiative_pass"), *crossings], effects
    turn, began = _begin_phase(turn, initiative, first.actor, effects)
    return turn, [Crossing(to="initiative_pass"), *began], effects


def _entry(initiative: Initiative, actor: str, path: str | None = None) -> InitiativeEntry:
    entry = next((e for e in initiative.entries if e.actor == actor), None)
    if entry is None:
        _conflict(
            f"{actor} is not in this combat turn's initiative: join it with "
            "POST .../initiative/actors",
            kind="not-in-initiative",
            path=path,
        )
    return entry


def _holder(initiative: Initiative, actor: str | None, pass_number: int) -> InitiativeEntry | None:
    """The holder named to step in, once it is shown it may have a phase now (None when no
    actor is named, or one who does not hold its action)."""
    if actor is None:
        return None
    entry = _entry(initiative, actor, "$.actor")
    if entry.acted:
        _conflict(f"{actor} has had its phase in this pass", path="$.actor")
    if not _has_phase(entry, pass_number):
        _conflict(f"{actor} has no phase in this pass (score {entry.score})", path="$.actor")
    return entry if entry.holding else None


def advance(
    turn: TurnState, rules: InitiativeRules, request: AdvanceRequest, out: Out = NOBODY_OUT
) -> tuple[TurnState, list[Crossing], list[str]]:
    """`advance` while the service runs the initiative: the next phase in its order (or the one
    of an actor who steps in with its held action), the end of the pass, or of the turn; the
    phases of those `out` of the fight are passed over, and none of them may step in."""
    initiative = turn.initiative
    assert initiative is not None
    effects: list[str] = []
    if initiative.over:
        # The service counted the next combat turn when this one ended: moving the turn on
        # again would skip one.
        _conflict(
            f"combat turn {turn.combat_turn} has no initiative yet: {_START_HINT} (or stop the "
            "service's initiative with DELETE .../initiative to move the turn yourself)"
        )
    if request.to == "combat_turn":
        turn, crossings = _end_turn(turn, effects)
        return turn, crossings, effects
    if request.to == "initiative_pass":
        return _end_pass(turn, rules, initiative, effects, out)
    if request.actor is not None and request.actor in out:
        _conflict(
            f"'{request.actor}' is {out[request.actor]}: it cannot act",
            kind="actor-incapacitated",
            path="$.actor",
        )
    stepping_in = _holder(initiative, request.actor, turn.initiative_pass)
    if stepping_in is not None and initiative.used == ActionsUsed():
        # A holder steps in before the acting actor has done anything: that phase waits, and
        # comes right after the holder's.
        effects.append(f"{stepping_in.actor} steps in before {initiative.current} acts")
        turn, began = _begin_phase(turn, initiative, stepping_in.actor, effects)
        return turn, began, effects
    # The phase that ends counts as the actor's for this pass.
    entries = [
        msgspec.structs.replace(e, acted=True) if e.actor == initiative.current else e
        for e in initiative.entries
    ]
    initiative = msgspec.structs.replace(initiative, entries=entries)
    initiative, up = _next_up(initiative, turn.initiative_pass, effects, out)
    if request.actor is not None:
        if stepping_in is None and (up is None or up.actor != request.actor):
            _conflict(
                f"{request.actor} is not next ({up.actor if up else 'nobody'} is): an actor "
                "steps in before its turn only with a held action",
                path="$.actor",
            )
        turn, began = _begin_phase(turn, initiative, request.actor, effects)
        return turn, began, effects
    if up is None:
        return _end_pass(turn, rules, initiative, effects, out)
    turn, began = _begin_phase(turn, initiative, up.actor, effects)
    return turn, began, effects


# --- what actions take -------------------------------------------------------------------------


def _fits(used: ActionsUsed, budgets: Sequence[ActionsUsed]) -> bool:
    return any(
        used.free <= b.free and used.simple <= b.simple and used.complex <= b.complex
        for b in budgets
    )


def actions_left(used: ActionsUsed, budgets: Sequence[ActionsUsed]) -> list[str]:
    """The ways the rest of a phase may still be filled, e.g. ["1 free, 1 complex", "3 free"]."""
    left: list[str] = []
    for b in budgets:
        if not _fits(used, [b]):
            continue
        rest = [
            f"{count} {kind}"
            for kind, count in (
                ("free", b.free - used.free),
                ("simple", b.simple - used.simple),
                ("complex", b.complex - used.complex),
            )
            if count
        ]
        line = ", ".join(rest)
        if line and line not in left:
            left.append(line)
    return left


def described(rules: InitiativeRules) -> RulesetInitiative:
    """A ruleset's initiative numbers as `GET /v1/rulesets` tells them."""
    return RulesetInitiative(
        base=list(rules.base),
        ties=list(rules.ties),
        phase=actions_left(ActionsUsed(), rules.budgets),
        source=rules.source,
        dice=rules.dice,
        passes=rules.passes,
        pass_cost=rules.pass_cost,
    )


def _one_more(
    used: ActionsUsed, kind: ActionKind, budgets: Sequence[ActionsUsed]
) -> ActionsUsed | None:
    """What is used once one more action of `kind` is taken, or None when no way of filling
    the phase holds it (the count is checked before it is kept: a fourth free action of the
    document's three must be refused, not counted as the third again)."""
    counts = {"free": used.free, "simple": used.simple, "complex": used.complex}
    counts[kind] += 1
    if not any(all(count <= getattr(b, name) for name, count in counts.items()) for b in budgets):
        return None
    return ActionsUsed(**counts)


def spend(
    turn: TurnState,
    rules: InitiativeRules,
    actor: str,
    cost: ActionCost,
    what: str,
    path: str,
) -> tuple[TurnState, list[str]]:
    """The turn once `actor` has done `what` at `cost`: its room in the phase used, or the
    initiative an interrupt costs taken off its score. A 409 says what is left when it does
    not fit. While the service runs no initiative, nothing is counted."""
    initiative = turn.initiative
    if initiative is None or (cost.kind is None and not cost.interrupt):
        return turn, []
    if initiative.over:
        _conflict(f"combat turn {turn.combat_turn} has no initiative yet: {_START_HINT}")
    effects: list[str] = []
    if cost.or_next_phase and actor != initiative.current:
        entry = _entry(initiative, actor, path)
        if _phases_left(entry, rules, turn.initiative_pass) < 1 or entry.lost >= MAX_LOST_PHASES:
            _conflict(
                f"{what} takes {actor}'s next action phase and it has none left in this "
                "combat turn",
                kind="no-action-left",
                path=path,
            )
        effects.append(f"{actor} gives its next action phase to {what}")
        entries = [
            msgspec.structs.replace(e, lost=e.lost + 1) if e.actor == actor else e
            for e in initiative.entries
        ]
        initiative = msgspec.structs.replace(initiative, entries=entries)
        return msgspec.structs.replace(turn, initiative=initiative), effects
    if cost.interrupt:
        entry = _entry(initiative, actor, path)
        if entry.score < cost.interrupt:
            _conflict(
                f"{what} costs {cost.interrupt} initiative and {actor}'s score is {entry.score}",
                kind="initiative-too-low",
                path=path,
            )
        score = entry.score - cost.interrupt
        effects.append(f"{actor}: initiative {entry.score} -> {score} ({what})")
        entries = ordered(
            msgspec.structs.replace(e, score=score) if e.actor == actor else e
            for e in initiative.entries
        )
        initiative = msgspec.structs.replace(initiative, entries=entries)
    if cost.kind is not None:
        if actor != initiative.current:
            holding = _entry(initiative, actor, path).holding
            _conflict(
                f"it is {initiative.current}'s combat phase, not {actor}'s"
                + (
                    f": {actor} holds its action; step in first with advance "
                    f'{{"to": "action_phase", "actor": "{actor}"}}'
                    if holding
                    else ""
                ),
                kind="not-your-phase",
                path=path,
            )
        used = _one_more(initiative.used, cost.kind, rules.budgets)
        if used is None:
            left = actions_left(initiative.used, rules.budgets)
            _conflict(
                f"{what} takes a {cost.kind} action and {actor} has "
                + (" or ".join(left) if left else "nothing")
                + " left in this phase",
                kind="no-action-left",
                path=path,
            )
        initiative = msgspec.structs.replace(initiative, used=used)
    return msgspec.structs.replace(turn, initiative=initiative), effects


def hold(
    turn: TurnState, rules: InitiativeRules, actor: str, path: str, out: Out = NOBODY_OUT
) -> tuple[TurnState, list[Crossing], list[str]]:
    """The acting actor holds its action: its whole phase waits until it steps in later in the
    pass (advance with its id), or until everyone else has acted."""
    del rules
    initiative = turn.initiative
    if initiative is None:
        return turn, [], []
    if initiative.over:
        _conflict(f"combat turn {turn.combat_turn} has no initiative yet: {_START_HINT}")
    if actor != initiative.current:
        _conflict(
            f"only the actor whose phase it is holds its action; it is {initiative.current}'s",
            kind="not-your-phase",
            path=path,
        )
    if initiative.used != ActionsUsed():
        _conflict(
            f"{actor} has acted in this phase: a held action is the whole phase",
            kind="no-action-left",
            path=path,
        )
    entries = [
        msgspec.structs.replace(e, holding=True) if e.actor == actor else e
        for e in initiative.entries
    ]
    pass_number = turn.initiative_pass
    later = [
        e
        for e in entries
        if _has_phase(e, pass_number) and not e.acted and not e.holding and e.actor not in out
    ]
    if not later:
        _conflict(
            f"nobody acts after {actor} in this pass: there is no later phase to hold for",
            kind="nothing-to-hold-for",
            path=path,
        )
    effects = [f"{actor} holds its action"]
    initiative, up = _next_up(
        msgspec.structs.replace(initiative, entries=entries), pass_number, effects, out
    )
    assert up is not None  # the holder itself waits, at the least
    turn, began = _begin_phase(turn, initiative, up.actor, effects)
    return turn, began, effects


def join(turn: TurnState, entries: list[InitiativeEntry]) -> tuple[TurnState, list[str]]:
    """Actors join the combat turn under way, each in its place by score."""
    initiative = running(turn)
    if initiative is None:
        _conflict(
            "no combat turn is under way in the service's initiative: start one with "
            "POST .../initiative",
            kind="no-initiative",
        )
    there = {e.actor for e in initiative.entries}
    for index, entry in enumerate(entries):
        if entry.actor in there:
            _conflict(
                f"{entry.actor} is in this combat turn already",
                path=f"$.actors[{index}].actor",
            )
    order = ordered([*initiative.entries, *entries])
    effects = [f"{e.actor} joins with {e.score}" for e in entries]
    return msgspec.structs.replace(
        turn, initiative=msgspec.structs.replace(initiative, entries=order)
    ), effects


def leave(
    turn: TurnState, rules: InitiativeRules, actor: str, out: Out = NOBODY_OUT
) -> tuple[TurnState, list[Crossing], list[str]]:
    """An actor leaves the combat turn; if it was acting, the next phase begins."""
    initiative = turn.initiative
    if initiative is None:
        _conflict("the service runs no initiative in this encounter", kind="no-initiative")
    _entry(initiative, actor, "actor")
    entries = [e for e in initiative.entries if e.actor != actor]
    effects = [f"{actor} leaves the combat turn"]
    was_acting = initiative.current == actor
    initiative = msgspec.structs.replace(
        initiative,
        entries=entries,
        current=None if was_acting else initiative.current,
        used=ActionsUsed() if was_acting else initiative.used,
    )
    turn = msgspec.structs.replace(
        turn,
        initiative=initiative,
        action_phase=None if was_acting else turn.action_phase,
    )
    if not was_acting or initiative.over:
        return turn, [], effects
    initiative, up = _next_up(initiative, turn.initiative_pass, effects, out)
    if up is None:
        turn, crossings, more = _end_pass(turn, rules, initiative, effects, out)
        return turn, crossings, more
    turn, began = _begin_phase(turn, initiative, up.actor, effects)
    return turn, began, effects

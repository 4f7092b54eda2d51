"""The dice a request needs, before it is rolled (POST .../dice): an attack, an action or a zone
test, filled in and checked as its own route would, resolved by the probes of
service/rules/dice_needs.py, nothing stored or published; a preview, bounded as the odds are.
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
from collections.abc import Callable, Iterator
from typing import Any

import msgspec

from schemas.common import Id, Request
from schemas.dice_needs import DiceNeeds, DiceStepNeed
from service.engine import damage, players, sight
from service.engine.access import player_of
from service.engine.core import Admitted, Loaded
from service.engine.play import PlayUses
from service.engine.sight import Sight
from service.rules import Ruleset, dice_needs
from service.rules.dice import Dice, check_given
from service.rules.dice_needs import Ask

# The requests a needs body may name, each as its route's body type.
_BODY_TYPES = {
    "attack": "attack_ask_type",
    "action": "action_type",
    "zone_test": "zone_test_ask_type",
}
_AT = re.compile(r" - at `\$([^`]*)`$")


class _Asked(Request):
    """The body as read here: the request left as its bytes, read as its ruleset's below."""

    # Left out: empty (a Raw takes no None).
    attack: msgspec.Raw = msgspec.Raw()
    action: msgspec.Raw = msgspec.Raw()
    zone_test: msgspec.Raw = msgspec.Raw()
    zone: Id | None = None


_decoder = msgspec.json.Decoder(_Asked)


def _named(body: bytes) -> tuple[str, bytes, str | None]:
    """Which request the body names, its bytes and its zone (a 400 naming the field when it
    names none, several, or a zone where it may not)."""
    asked = _decoder.decode(body)
    named = [name for name in _BODY_TYPES if len(getattr(asked, name))]
    if len(named) != 1:
        raise msgspec.ValidationError(
            "name exactly one request: attack, action or zone_test"
            + (f" (not {' and '.join(named)})" if named else "")
            + f" - at `$.{named[-1] if named else 'attack'}`"
        )
    what = named[0]
    if (what == "zone_test") != (asked.zone is not None):
        raise msgspec.ValidationError(
            (
                "a zone test names its zone"
                if what == "zone_test"
                else "only a zone test names a zone"
            )
            + " - at `$.zone`"
        )
    return what, bytes(getattr(asked, what)), asked.zone


@contextlib.contextmanager
def _under(what: str) -> Iterator[None]:
    """Problems about the request, their paths said from the needs body (`$.attack...`)."""
    try:
        yield
    except msgspec.ValidationError as error:
        message = str(error)
        at = _AT.search(message)
        inner = at.group(1) if at else ""
        raise msgspec.ValidationError(
            (_AT.sub("", message) if at else message) + f" - at `$.{what}{inner}`"
        ) from None
    except Exception as error:
        path = getattr(error, "path", None)
        if isinstance(path, str):
            if path == "zone":
                error.path = "$.zone"  # type: ignore[attr-defined]
            elif path.startswith("$"):
                error.path = f"$.{what}{path[1:]}"  # type: ignore[attr-defined]
        raise


def _resolver(
    what: str, ruleset: Ruleset, request: Any, loaded: Loaded, zone: str | None, earlier: Any
) -> Callable[[Dice], Any]:
    combat, turn = loaded.state.combat, loaded.state.turn
    if what == "attack":
        return lambda dice: ruleset.resolve_attack(request, combat, turn, dice)
    if what == "action":
        return lambda dice: ruleset.resolve_action(request, combat, turn, dice, earlier)
    return lambda dice: ruleset.resolve_zone_test(str(zone), request, combat, turn, dice)


def _steps_of(what: str, ruleset: Ruleset, request: Any) -> dict[str, int]:
    if what == "attack":
        return ruleset.dice_steps(request)
    if what == "action":
        return ruleset.action_dice_steps(request)
    return ruleset.zone_test_dice_steps(request)


def _roll_words(ask: Ask) -> str:
    words = f"roll {ask.count}d{ask.sides}"
    if ask.target_number is not None:
        words += f" against {ask.target_number}"
    if ask.explodes:
        words += " (each six adds a die)"
    if ask.tests > 1:
        words += f" ({ask.tests} tests, in order)"
    if 0 < ask.given < ask.count:
        words += f", {ask.given} given: {ask.count - ask.given} more"
    elif ask.given >= ask.count:
        words += ": given"
    return words


class DiceNeedsUses(PlayUses):
    """The use case of POST .../dice."""

    async def dice_needs(self, admitted: Admitted, body: bytes) -> DiceNeeds | Any:
        """The steps the request the body names rolls, as far as its given dice tell; as the
        token may see it (a player's answer is what it would be if the hidden actors were
        actors the scene does not hold)."""
        what, request_body, zone = _named(body)
        async with self.previews.slot(admitted.encounter_id, admitted.credential):
            with _under(what):
                answer = await self._needs(admitted, what, request_body, zone)
        shown = Sight.of(self._loaded(admitted).state, admitted.role)
        shown = shown.but_what_was_asked(body.decode(errors="replace"))
        return answer if shown.everything else shown.redact(msgspec.to_builtins(answer))

    async def _needs(
        self, admitted: Admitted, what: str, body: bytes, zone: str | None
    ) -> DiceNeeds:
        body_type = _BODY_TYPES[what]
        loaded, request, masked = self._asked(admitted, body_type, body, zone, all_unseen=True)
        if masked:
            loaded = dataclasses.replace(loaded, state=sight.without_actors(loaded.state, masked))
        ruleset, state = loaded.ruleset, loaded.state
        check_given(request.dice, _steps_of(what, ruleset, request))
        # Who may ask, as the request itself: a player for the actors it acts for, with dice
        # of its own steps only where the dice policy says so.
        self._check_acts_for(admitted, loaded, request)
        acting, path = players.acting_actor(request)
        if acting not in masked:
            damage.check_able(ruleset, state, acting, path)
        if admitted.role != "gm" and state.dice_policy == "own":
            player = player_of(admitted.role)
            players.check_dice(state, ruleset, player, acting, request.dice)
        earlier = None
        follows = ruleset.follows_up(request) if what == "action" else None
        if follows is not None:
            earlier = await self._attacks.last_attack(
                self._store, admitted.encounter_id, follows, admitted.envelope.ruleset
            )
        resolve = _resolver(what, ruleset, request, loaded, zone, earlier)
        attacker_steps = ruleset.attacker_steps

        def owner(step: str) -> str | None:
            kind, _, subject = step.partition(":")
            if not subject or kind in attacker_steps or subject == acting:
                return acting
            return subject if subject in known else None

        known = {i for i in state.scene if i not in masked}
        known.update(name for name, _ in players.named(request))
        target_id = getattr(getattr(request, "target", None), "id", None)
        if isinstance(target_id, str):
            known.add(target_id)
        found = await self.previews.run(
            dice_needs.needs, resolve, request.dice, lambda step: owner(step) == acting
        )
        names = {i: a.name for i, a in state.scene.items() if i not in masked and a.name}
        steps = [_step(ask, owner(ask.step), names) for ask in found.steps]
        waiting = [s.label for s in steps if not s.given and s.certain]
        label = "; ".join(waiting)
        if found.more:
            label += ("; then " if label else "") + "more, once these are known"
        return DiceNeeds(
            request=what,  # type: ignore[arg-type]
            steps=steps,
            more=found.more,
            ready=found.ready,
            label=label,
        )


def _step(ask: Ask, actor: str | None, names: dict[str, str]) -> DiceStepNeed:
    who = names.get(actor, actor) if actor is not None else ask.step
    counts: list[Any] = []
    if ask.counts:
        counts = ["hits", "ones"] if ask.kind == "pool" else ["successes", "ones"]
    return DiceStepNeed(
        step=ask.step,
        actor=actor,
        sides=ask.sides,
        count=ask.count,
        given=ask.given >= ask.count,
        given_dice=ask.given,
        forms=["faces", "counts"] if ask.counts else ["faces"],
        label=f"{who}: {_roll_words(ask)}" + ("" if ask.certain else " (if it comes to it)"),
        certain=ask.certain,
        given_as=ask.given_as,
        counts=counts,
        explodes=ask.explodes,
        target_number=ask.target_number,
    )

"""SR5 Second Chance (000, "Edge"): the dice of one target's attack test that scored no hit
rolled again, and what follows from the new hits resolved again."""

from __future__ import annotations

from typing import Literal

import msgspec

from schemas.sr5 import SR5ActorState, SR5AttackRequest, SR5AttackResult, SR5State
from service.rules.dice import HIT_MINIMUM, Dice, count_pool
from service.rules.ruleset import EarlierAttack, RuleViolation
from service.rules.sr5 import attack
from service.rules.sr5.defense import test_of


def second_chance(
    actor_id: str,
    target_id: str | None,
    state: SR5State,
    dice: Dice,
    earlier: EarlierAttack | None,
) -> tuple[SR5AttackResult, SR5State, str]:
    """SR5 Second Chance on one target's attack test of the actor's last attack: re-roll the
    dice that scored no hit, and resolve again what follows from the new hits. The defense and
    soak the defender already rolled stand; a defense is rolled only if none was needed before."""
    actors = dict(state.actors)
    shooter = actors.get(actor_id, SR5ActorState())
    last = shooter.last_attack
    if last is None or earlier is None:
        raise RuleViolation(
            f"{actor_id} has no attack to re-roll", path="$.actor", kind="no-attack"
        )
    request: SR5AttackRequest = earlier.request
    first = earlier.result
    assert isinstance(first, SR5AttackResult)
    if request.edge == "push_the_limit":
        raise RuleViolation(
            "Second Chance cannot follow Push the Limit on the same test",
            path="$.action",
            kind="edge-already-used",
        )
    if request.attacker.edge < 1:
        raise RuleViolation(f"{actor_id} has no Edge to spend", path="$.actor", kind="no-edge")
    names = [t.target for t in first.targets]
    if target_id is None and len(names) == 1:
        target_id = names[0]
    if target_id not in names:
        raise RuleViolation(
            f"name the target whose attack test to re-roll: one of {', '.join(names)}",
            path="$.target",
            kind="rule-violation",
        )
    assert target_id is not None
    if target_id in last.second_chances:
        raise RuleViolation(
            f"the attack on {target_id} has had its Second Chance",
            path="$.target",
            kind="edge-already-used",
        )
    index = names.index(target_id)
    before, target = first.targets[index], request.targets[index]
    rolled = next(r.values for r in first.dice if r.step == attack.attack_step(request, target_id))
    kept = [v for v in rolled if v >= HIT_MINIMUM]
    again = dice.pool(f"second_chance:{target_id}", len(rolled) - len(kept), attack.EDITION)
    values = [*kept, *again.values]
    final = test_of(count_pool(values, len(rolled), attack.EDITION))
    # The limit of the gun that shot at this target (they differ only with two guns).
    limit = first.limit - request.weapon.accuracy + attack.gun(request, target).accuracy
    attack_hits = min(final.hits, limit)

    defender = actors.get(target_id, SR5ActorState())
    defense, defense_hits = before.defense, before.defense_hits
    if before.attack_hits == 0 and attack_hits > 0:  # the defender now has to defend
        roll = dice.pool(f"defense:{target_id}", before.defense.pool, attack.EDITION)
        defense_hits = (
            roll.hits if before.defense_limit is None else min(roll.hits, before.defense_limit)
        )
        defense = msgspec.structs.replace(test_of(roll), hits=defense_hits)
        actors[target_id] = attack.defended(defender)
    damage = None
    outcome: Literal["hit", "graze", "miss"] = "miss"
    if attack_hits > 0 and attack_hits > defense_hits:
        outcome = "hit"
        soak = before.damage.soak if before.damage is not None else None
        damage = attack.damage_of(request, target, attack_hits - defense_hits, dice, soak)
    elif attack_hits > 0 and attack_hits == defense_hits:
        outcome = "graze"
    contact, contact_effect = attack.contact_of(request, target, outcome)
    after = msgspec.structs.replace(
        before,
        outcome=outcome,
        attack=final,
        attack_hits_before_limit=final.hits,
        attack_hits=attack_hits,
        defense=defense,
        defense_hits=defense_hits,
        net_hits=max(0, attack_hits - defense_hits),
        contact=contact,
        contact_effect=contact_effect,
        damage=damage,
    )
    result = msgspec.structs.replace(
        first, targets=[after], dice=dice.rolls, seed=dice.seed, edge_spent=1
    )
    actors[actor_id] = msgspec.structs.replace(
        actors.get(actor_id, shooter),
        last_attack=msgspec.structs.replace(last, second_chances=[*last.second_chances, target_id]),
    )
    summary = (
        f"Second Chance on {target_id}: {before.attack_hits} -> {attack_hits} hits, "
        f"{before.outcome} -> {outcome}"
    )
    return result, msgspec.structs.replace(state, actors=actors), summary

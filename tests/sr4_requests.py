"""Builders for SR4 attack bodies, as a VTT would send them (plain JSON-able dicts).

The defaults, worked out once: Sam has Agility 4 and Pistols 4 (a pool of 8), Intuition 3,
Edge 2; the Ares Predator is 5P, AP -1, semi-automatic, 15 rounds; the ganger has Reaction 3,
Body 3, Dodge 2, Edge 1, an armour jacket 6 ballistic / 4 impact, 4 m away (heavy pistol short
range, 002's table: 0-5 m).
"""

from __future__ import annotations

from typing import Any


def attacker(**fields: Any) -> dict[str, Any]:
    return {"id": "sam", "agility": 4, "skill": 4, "intuition": 3, "edge": 2, **fields}


def weapon(**fields: Any) -> dict[str, Any]:
    base = {
        "id": "predator",
        "category": "heavy_pistol",
        "damage": 5,
        "ap": -1,
        "modes": ["SA"],
        "ammo": 15,
    }
    return {**base, **fields}


RIFLE = weapon(
    id="ak", category="assault_rifle", damage=6, ap=-1, modes=["SA", "BF", "FA"], ammo=30
)
SHOTGUN = weapon(id="remington", category="shotgun", damage=7, ap=-1, modes=["SA", "BF"], ammo=8)


def defender(**fields: Any) -> dict[str, Any]:
    base = {"reaction": 3, "body": 3, "dodge": 2, "edge": 1}
    return {**base, "ballistic_armor": 6, "impact_armor": 4, **fields}


def target(**fields: Any) -> dict[str, Any]:
    return {"id": "goon-1", "distance_m": 4, "defender": defender(), **fields}


def attack(**fields: Any) -> dict[str, Any]:
    base = {"attacker": attacker(), "weapon": weapon(), "mode": "SA", "targets": [target()]}
    return {**base, **fields}

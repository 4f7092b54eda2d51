"""Builders for SR3 attack bodies, as a VTT would send them (plain JSON-able dicts).

The defaults, worked out once: Sam has skill 4 and a Combat Pool of (Quickness 5 +
Intelligence 4 + Willpower 3) / 2 = 6; the Ares Predator is 9M, semi-automatic, 15 rounds, no
recoil compensation; the ganger has Body 4, a Combat Pool of (4 + 3 + 3) / 2 = 5 and an armour
jacket of 5 ballistic / 3 impact, 4 m away (heavy pistol short range, 002).
"""

from __future__ import annotations

from typing import Any


def attacker(**fields: Any) -> dict[str, Any]:
    base = {"id": "sam", "skill": 4, "quickness": 5, "intelligence": 4, "willpower": 3}
    return {**base, **fields}


def weapon(**fields: Any) -> dict[str, Any]:
    base = {
        "id": "predator",
        "category": "heavy_pistol",
        "power": 9,
        "damage_level": "M",
        "modes": ["SA"],
        "ammo": 15,
    }
    return {**base, **fields}


JACKET = {"name": "armor jacket", "ballistic": 5, "impact": 3}


def defender(**fields: Any) -> dict[str, Any]:
    base = {"body": 4, "quickness": 4, "intelligence": 3, "willpower": 3, "armor": [JACKET]}
    return {**base, **fields}


def target(**fields: Any) -> dict[str, Any]:
    base = {"id": "goon-1", "distance_m": 4, "defender": defender()}
    return {**base, **fields}


def attack(**fields: Any) -> dict[str, Any]:
    base = {"attacker": attacker(), "weapon": weapon(), "mode": "SA", "target": target()}
    return {**base, **fields}

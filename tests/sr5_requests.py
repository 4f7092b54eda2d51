"""Builders for SR5 attack bodies, as a VTT would send them (plain JSON-able dicts)."""

from __future__ import annotations

from typing import Any


def attacker(**fields: Any) -> dict[str, Any]:
    return {"id": "sam", "agility": 5, "strength": 4, "skill": 5, "willpower": 3, **fields}


def weapon(**fields: Any) -> dict[str, Any]:
    base = {
        "id": "ares-predator",
        "category": "heavy_pistol",
        "damage": 8,
        "damage_type": "P",
        "ap": -1,
        "accuracy": 5,
        "rc": 0,
        "modes": ["SA"],
        "ammo": 15,
    }
    return {**base, **fields}


def defender(**fields: Any) -> dict[str, Any]:
    return {"reaction": 3, "intuition": 3, "body": 4, "willpower": 3, "armor": 9, **fields}


def target(**fields: Any) -> dict[str, Any]:
    base = {"id": "goon-1", "distance_m": 4, "defender": defender()}
    return {**base, **fields}


def attack(**fields: Any) -> dict[str, Any]:
    base = {
        "attacker": attacker(),
        "weapon": weapon(),
        "mode": "SA",
        "targets": [target()],
    }
    return {**base, **fields}

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


# The README's quickstart on the scene: Sam with the Predator, and the ganger's sheet (pool 14,
# 13 dice at 12 m, 4 hits against 1, 9 boxes with the README's dice).
README_PREDATOR = {
    "id": "predator",
    "category": "heavy_pistol",
    "damage": 8,
    "ap": -1,
    "accuracy": 5,
    "rc": 0,
    "modes": ["SA"],
    "ammo": 15,
}
README_SAM = {
    "name": "Sam",
    "position": {"x": 0.0, "y": 0.0},
    "sheet": {
        "ruleset": "sr5",
        "agility": 6,
        "strength": 4,
        "skill": 6,
        "weapons": [README_PREDATOR],
    },
}
README_GANGER_SHEET = {"ruleset": "sr5", "reaction": 3, "intuition": 3, "body": 4, "armor": 9}

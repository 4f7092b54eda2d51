"""Builders for d100 bodies, as a VTT would send them (plain JSON-able dicts)."""

from __future__ import annotations

from typing import Any

# Out to 10 m +10, to 50 m +0, to 200 m -20: bands as a weapon table would list them.
BANDS = [
    {"up_to_m": 10, "modifier": 10, "name": "close"},
    {"up_to_m": 50, "modifier": 0, "name": "medium"},
    {"up_to_m": 200, "modifier": -20, "name": "long"},
]


def attacker(**fields: Any) -> dict[str, Any]:
    return {"id": "vex", "marksmanship": 50, "recoil_control": 3, **fields}


def weapon(**fields: Any) -> dict[str, Any]:
    base = {
        "id": "smg",
        "damage": 7,
        "bonus_dice": 2,
        "armor_penetration": 2,
        "shot_rate": 6,
        "ammo": 30,
        "range_bands": BANDS,
    }
    return {**base, **fields}


def defender(**fields: Any) -> dict[str, Any]:
    return {"defense": 30, "passive_defense": 20, "armor": 3, **fields}


def target(**fields: Any) -> dict[str, Any]:
    return {"id": "goon-1", "distance_m": 20, "defender": defender(), **fields}


def attack(**fields: Any) -> dict[str, Any]:
    return {"attacker": attacker(), "weapon": weapon(), "targets": [target()], **fields}


def suppressive(x: float = 30, y: float = 0, **fields: Any) -> dict[str, Any]:
    order = {"origin": {"x": 0, "y": 0}, "center": {"x": x, "y": y}}
    return attack(targets=[], suppressive=order, **fields)

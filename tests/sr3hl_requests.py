"""Builders for Hard Life (`sr3-hardlife`) request bodies, as a VTT would send them (plain
JSON-able dicts); every field can be overridden.

The defaults, worked out once: Carter has skill 6, no Combat Pool counted (no attributes
given); the Heckler & Koch .45 is 9M, SA, 10 rounds; the goon has Body 4, Willpower 4, an
armoured jacket (Table 7: torso and vitals 6/4, arms 3/1), no pools, 4 m away (heavy pistol
short range: base target number 4, 002), standing still (SR3: -1), so the shot's target
number is 4 - 1 = 3 unless a test says otherwise.
"""

from __future__ import annotations

from typing import Any


def attacker(**fields: Any) -> dict[str, Any]:
    return {"id": "carter", "skill": 6, **fields}


def weapon(**fields: Any) -> dict[str, Any]:
    base = {
        "id": "hk45",
        "category": "heavy_pistol",
        "power": 9,
        "damage_level": "M",
        "modes": ["SA"],
        "ammo": 10,
    }
    return {**base, **fields}


def jacket(**fields: Any) -> dict[str, Any]:
    return {"garment": "jacket", **fields}


def defender(**fields: Any) -> dict[str, Any]:
    base = {"body": 4, "willpower": 4, "armor": [jacket()]}
    return {**base, **fields}


def target(**fields: Any) -> dict[str, Any]:
    base = {
        "id": "goon",
        "distance_m": 4,
        "defender": defender(),
        "movement": "stationary",
    }
    return {**base, **fields}


def attack(**fields: Any) -> dict[str, Any]:
    base = {"attacker": attacker(), "weapon": weapon(), "mode": "SA", "target": target()}
    return {**base, **fields}


def smg(**fields: Any) -> dict[str, Any]:
    """An SMG firing bursts and full auto (7M, no recoil compensation unless given)."""
    base = {
        "id": "smg",
        "category": "smg",
        "power": 7,
        "damage_level": "M",
        "modes": ["SA", "BF", "FA"],
        "ammo": 30,
    }
    return {**base, **fields}

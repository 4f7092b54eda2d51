"""A Hard Life attack or zone test as a client may ask it, filled from the scene. TO BE
WRITTEN (helper B)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from schemas.scene import SceneActor
from schemas.sr3hl import HLAttackRequest, HLZoneTestRequest


def fill_attack(asked: Any, scene: Mapping[str, SceneActor]) -> HLAttackRequest:
    raise NotImplementedError


def fill_zone_test(asked: Any, scene: Mapping[str, SceneActor]) -> HLZoneTestRequest:
    raise NotImplementedError


def ammo_left(request: Any, result: Any) -> dict[str, int]:
    raise NotImplementedError

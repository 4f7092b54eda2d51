"""The use cases, one per request, put together: each group lives in a module of its own on
top of service/engine/core.py (who asks, the encounter as loaded, the commit)."""

from __future__ import annotations

from service.engine.campaigns import CampaignUses
from service.engine.core import EVENTS_PAGE, PREVIEW_THREADS, Admitted, Answer, EventsPage
from service.engine.lifecycle import EncounterUses
from service.engine.monitors import MonitorUses
from service.engine.needs import DiceNeedsUses
from service.engine.reveal import RevealUses
from service.engine.staging import SceneUses
from service.engine.turn import TurnUses
from service.engine.undo import UndoUses

__all__ = ["EVENTS_PAGE", "PREVIEW_THREADS", "Admitted", "Answer", "Encounters", "EventsPage"]


class Encounters(
    CampaignUses,
    EncounterUses,
    SceneUses,
    DiceNeedsUses,
    TurnUses,
    MonitorUses,
    UndoUses,
    RevealUses,
):
    """Every use case of the service."""

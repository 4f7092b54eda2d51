"""A Foundry actor exported as JSON from the shadowrun5e, shadowrun4e or sr3e system into the
sheet of its ruleset, each system read where the release line the export was made by keeps its
data (foundry_sr5.py, foundry_sr4.py, foundry_sr3.py: one table of paths per system, those of the
firefight module's sr5-actor.mjs, sr4-actor.mjs and sr3-actor.mjs, which cite the systems'
DataModels; the line chosen as foundry_release.py says), with the report of the import
(docs/imports.md)."""

from __future__ import annotations

from schemas.imports import ImportReport
from schemas.sr3 import SR3Sheet
from schemas.sr4 import SR4Sheet
from schemas.sr5 import SR5Sheet
from service.imports.errors import ImportRefused
from service.imports.foundry_json import parse_actor, system_id
from service.imports.foundry_sr3 import read_sr3
from service.imports.foundry_sr4 import read_sr4
from service.imports.foundry_sr5 import read_sr5
from service.imports.report import Reading

SYSTEMS = ("shadowrun5e", "shadowrun4e", "sr3e")


def import_foundry(data: bytes) -> tuple[SR5Sheet | SR4Sheet | SR3Sheet, ImportReport]:
    """The sheet of an exported actor, of the ruleset of the system it was exported from."""
    actor = parse_actor(data)
    system = system_id(actor)
    reading = Reading()
    name = str(actor.get("name") or "")
    if system == "shadowrun5e":
        read_sr5(actor, reading)
        return reading.sheet(SR5Sheet), reading.report("foundry-shadowrun5e", "sr5", name)
    if system == "shadowrun4e":
        read_sr4(actor, reading)
        return reading.sheet(SR4Sheet), reading.report("foundry-shadowrun4e", "sr4", name)
    if system == "sr3e":
        read_sr3(actor, reading)
        return reading.sheet(SR3Sheet), reading.report("foundry-sr3e", "sr3", name)
    raise ImportRefused(
        f"an actor of the {system!r} system: the imports read {', '.join(SYSTEMS)}",
        "$._stats.systemId",
    )

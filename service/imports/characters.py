"""The imports by the format a client names (`?format=` of the import route): one entry point
for the API, so a later route (a campaign's actors) reads files the same way."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import get_args

from schemas.imports import ImportFormat, ImportReport
from schemas.sr3 import SR3Sheet
from schemas.sr4 import SR4Sheet
from schemas.sr5 import SR5Sheet
from service.imports.chummer4 import import_chummer4
from service.imports.chummer5 import import_chummer5
from service.imports.foundry import import_foundry

ImportedSheet = SR5Sheet | SR4Sheet | SR3Sheet

IMPORTERS: Mapping[ImportFormat, Callable[[bytes], tuple[ImportedSheet, ImportReport]]] = {
    "chummer5": import_chummer5,
    "chummer4": import_chummer4,
    "foundry": import_foundry,
}
IMPORT_FORMATS: tuple[ImportFormat, ...] = get_args(ImportFormat)


def import_character(
    source_format: ImportFormat, data: bytes
) -> tuple[ImportedSheet, ImportReport]:
    """The sheet and report of a character file in `source_format`; ImportRefused names what
    of it cannot be read."""
    return IMPORTERS[source_format](data)

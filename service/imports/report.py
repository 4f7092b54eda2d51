"""What an import keeps note of as it reads: each sheet field with its source, and each part of
the file it leaves out with the reason (schemas/imports.py)."""

from __future__ import annotations

import re
from typing import Any

import msgspec

from schemas.common import ID_MAX_LENGTH
from schemas.imports import ImportReport, LeftOut, ReadField, Ruleset, SourceFormat
from service.imports.errors import ImportRefused

_NOT_ID = re.compile(r"[^a-z0-9]+")


class Reading:
    """The notes of one import, and the sheet's fields as they are read."""

    def __init__(self) -> None:
        self.read: list[ReadField] = []
        self.left_out: list[LeftOut] = []
        self.fields: dict[str, Any] = {}
        self._ids: set[str] = set()

    def keep(self, field: str, value: Any, source: str) -> Any:
        """Puts `value` into the sheet's `field` and notes where it came from."""
        self.fields[field] = value
        self.read.append(ReadField(field, source, str(value)))
        return value

    def note(self, field: str, value: Any, source: str) -> Any:
        """Notes a value read into a part of the sheet built elsewhere (a weapon's field)."""
        self.read.append(ReadField(field, source, str(value)))
        return value

    def leave_out(self, source: str, reason: str) -> None:
        self.left_out.append(LeftOut(source, reason))

    def keep_weapons(self, weapons: list[dict[str, Any]], weapon_skills: dict[str, int]) -> None:
        """The sheet's guns and their skills, each gun's numbers noted, and the first gun's
        skill as the sheet's own."""
        self.fields["weapons"] = weapons
        self.fields["weapon_skills"] = weapon_skills
        for index, gun in enumerate(weapons):
            for field, value in gun.items():
                if field != "id":
                    self.note(f"weapons[{index}].{field}", value, f"weapon {gun['id']}")
        if weapons:
            first = str(weapons[0]["id"])
            self.keep("skill", weapon_skills[first], f"weapon_skills.{first} (the first gun's)")

    def weapon_id(self, name: str) -> str:
        """An id for a weapon from its name ("Ares Predator V" -> "ares-predator-v"), unique in
        the sheet, so an attack can name it."""
        base = _NOT_ID.sub("-", name.lower()).strip("-")[: ID_MAX_LENGTH - 4] or "weapon"
        made, n = base, 1
        while made in self._ids:
            n += 1
            made = f"{base}-{n}"
        self._ids.add(made)
        return made

    def report(self, source_format: SourceFormat, ruleset: Ruleset, name: str) -> ImportReport:
        return ImportReport(source_format, ruleset, name, self.read, self.left_out)

    def sheet(self, sheet_type: type[Any]) -> Any:
        """The sheet of the fields kept, checked by its own type: a value out of its bounds is
        refused naming where the file had it."""
        try:
            return msgspec.convert({"ruleset": ruleset_of(sheet_type), **self.fields}, sheet_type)
        except msgspec.ValidationError as exc:
            field = str(exc).rpartition("`$.")[2].rstrip("`")
            top = field.split(".")[0].split("[")[0]
            sources = [r.source for r in self.read if r.field.split("[")[0].split(".")[0] == top]
            raise ImportRefused(
                f"the sheet cannot hold what was read: {exc}", sources[-1] if sources else None
            ) from exc


def ruleset_of(sheet_type: type[Any]) -> str:
    return str(sheet_type.__struct_config__.tag)

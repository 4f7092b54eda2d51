"""Character imports: a file a player already has (a Chummer 5 or Chummer 4 character, a Foundry
actor's JSON export) into a sheet of its ruleset and a report of what was read from where and
what was left out. Pure functions of the bytes given; ImportRefused names what cannot be read."""

from service.imports.characters import IMPORT_FORMATS, ImportedSheet, import_character
from service.imports.chummer4 import import_chummer4
from service.imports.chummer5 import import_chummer5
from service.imports.errors import ImportRefused
from service.imports.foundry import import_foundry
from service.imports.xml_document import MAX_IMPORT_BYTES

__all__ = [
    "IMPORT_FORMATS",
    "MAX_IMPORT_BYTES",
    "ImportRefused",
    "ImportedSheet",
    "import_character",
    "import_chummer4",
    "import_chummer5",
    "import_foundry",
]

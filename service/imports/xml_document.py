"""Untrusted character XML, read safely: a size bound, no DTD, no entities, no external
references (defusedxml), and small readers that name the element they could not read."""

from __future__ import annotations

import re
from xml.etree.ElementTree import Element, ParseError

from defusedxml import DefusedXmlException, DTDForbidden, EntitiesForbidden
from defusedxml import ElementTree as SafeElementTree

from service.imports.errors import ImportRefused

# A real Chummer 5 character with a base64 mugshot is about 1 MB (chummer5a's own test
# characters reach 0.95 MB); four times that lets any real character in and keeps a hostile
# upload from costing more than a few MB of parsing.
MAX_IMPORT_BYTES = 4 * 1024 * 1024

_FIRST_INTEGER = re.compile(r"[-+]?\d+")


def parse_character(data: bytes, expected_root: str = "character") -> Element:
    """The root element of a character file, or ImportRefused saying why it is not read."""
    if len(data) > MAX_IMPORT_BYTES:
        raise ImportRefused(
            f"the file is {len(data)} bytes, more than the {MAX_IMPORT_BYTES} an import reads",
            "/",
            kind="import-too-large",
            status=413,
        )
    try:
        # forbid_dtd: a document type declaration is where entities (billion laughs) and
        # external references live; no character file needs one.
        root = SafeElementTree.fromstring(
            data, forbid_dtd=True, forbid_entities=True, forbid_external=True
        )
    except DTDForbidden as exc:
        raise ImportRefused(
            f"the file declares a DTD (<!DOCTYPE {exc.name}>): DTDs, entities and external "
            "references are never read",
            "/",
        ) from exc
    except EntitiesForbidden as exc:
        raise ImportRefused(
            f"the file declares the entity {exc.name!r}: entities are never expanded", "/"
        ) from exc
    except DefusedXmlException as exc:
        raise ImportRefused(
            f"the file refers to an external resource ({exc}): never fetched", "/"
        ) from exc
    except ParseError as exc:
        raise ImportRefused(f"not well-formed XML: {exc}", "/") from exc
    if root.tag != expected_root:
        raise ImportRefused(f"the root element is <{root.tag}>, not <{expected_root}>", "/")
    return root


def text(element: Element, tag: str) -> str | None:
    """The stripped text of `element`'s child `tag`, or None when the child is missing."""
    child = element.find(tag)
    if child is None:
        return None
    return (child.text or "").strip()


def integer(element: Element, tag: str, where: str) -> int | None:
    """`tag`'s whole-number text, None when missing or empty; anything else is refused."""
    value = text(element, tag)
    if value is None or value == "":
        return None
    try:
        return int(value)
    except ValueError:
        raise ImportRefused(f"{value!r} is not a whole number", f"{where}/{tag}") from None


def first_integer(value: str | None) -> int | None:
    """The first whole number in a Chummer value such as "15(c)", "1(2)" or "10(c) or 24(d)"."""
    if not value:
        return None
    found = _FIRST_INTEGER.search(value)
    return int(found.group()) if found else None


def is_true(element: Element, tag: str) -> bool:
    return (text(element, tag) or "").lower() == "true"

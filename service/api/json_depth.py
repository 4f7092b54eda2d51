"""How deep a JSON body nests, found before it is decoded: msgspec recurses once per level (to
skip a value while it looks for a tagged union's tag, among others) and raises RecursionError
past Python's limit, which is no answer to give a client."""

from __future__ import annotations

import re

# A JSON string, escapes and all: the brackets inside one are no nesting.
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_OPENS = frozenset(b"[{")
_NOT_BRACKETS = bytes(set(range(256)) - set(b"[]{}"))


def deeper_than(body: bytes, limit: int) -> bool:
    """Whether `body` nests arrays and objects more than `limit` deep. Counting the opening
    brackets settles almost every body at C speed; only one with more of them than `limit` is
    scanned (its strings taken out, then its brackets counted up and down)."""
    if body.count(b"[") + body.count(b"{") <= limit:
        return False
    brackets = _STRING.sub(b"", body).translate(None, _NOT_BRACKETS)
    depth = 0
    for bracket in brackets:
        if bracket in _OPENS:
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False

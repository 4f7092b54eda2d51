"""`Problem.type` lists every problem the service can answer: the code's one list
(service/api/problems.py, PROBLEM_KINDS) is checked against what the code raises, read from the
source: every ProblemError and RuleViolation (and what forwards a `kind` to one)."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

import pytest

from service.api.problems import HTTP_KINDS, OTHER_HTTP_KIND, PROBLEM_KINDS

SERVICE = Path(__file__).resolve().parent.parent / "service"
# What raises a problem, with where its `kind` is among the positional arguments and the kind it
# has when none is given.
RAISERS = {
    "ProblemError": (1, None),
    "RuleViolation": (2, "rule-violation"),
    "ImportRefused": (2, "import-refused"),
}


def _callee(call: ast.Call) -> str | None:
    function = call.func
    if isinstance(function, ast.Name):
        return function.id
    return function.attr if isinstance(function, ast.Attribute) else None


def _kind(call: ast.Call, position: int) -> ast.expr | None:
    for keyword in call.keywords:
        if keyword.arg == "kind":
            return keyword.value
    return call.args[position] if len(call.args) > position else None


def _forwarders(trees: list[ast.Module], raisers: dict[str, tuple[int, str | None]]) -> None:
    """Adds to `raisers` the functions that take a `kind` and raise with it (`_refuse(detail,
    kind, path)`), with the default their `kind` has."""
    found = True
    while found:
        found = False
        for tree in trees:
            for function in ast.walk(tree):
                if not isinstance(function, ast.FunctionDef) or function.name in raisers:
                    continue
                names = [a.arg for a in function.args.args]
                if "kind" not in names:
                    continue
                forwards = any(
                    isinstance(call, ast.Call)
                    and _callee(call) in raisers
                    and isinstance(kind := _kind(call, raisers[_callee(call) or ""][0]), ast.Name)
                    and kind.id == "kind"
                    for call in ast.walk(function)
                )
                if forwards:
                    at = names.index("kind")
                    defaults = function.args.defaults
                    first_default = len(names) - len(defaults)
                    default = None
                    if at >= first_default:
                        value = defaults[at - first_default]
                        default = value.value if isinstance(value, ast.Constant) else None
                    raisers[function.name] = (at, default)
                    found = True


def raised_kinds(sources: Iterable[str]) -> set[str]:
    """Every problem kind the sources raise. A kind that is not written out (a variable) fails,
    unless it is the one a forwarder was given, an error's own (`error.kind`, counted where it
    was raised) or an HTTP error's (HTTP_KINDS)."""
    trees = [ast.parse(source) for source in sources]
    raisers = dict(RAISERS)
    _forwarders(trees, raisers)
    kinds: set[str] = set()
    for tree in trees:
        for call in ast.walk(tree):
            if not isinstance(call, ast.Call) or _callee(call) not in raisers:
                continue
            position, default = raisers[_callee(call) or ""]
            kind = _kind(call, position)
            if kind is None:
                assert default is not None, ast.unparse(call)
                kinds.add(default)
            elif isinstance(kind, ast.Constant) and isinstance(kind.value, str):
                kinds.add(kind.value)
            elif isinstance(kind, ast.Name) and kind.id == "kind":
                pass  # a forwarder's own parameter: its callers are read
            elif isinstance(kind, ast.Attribute) and kind.attr == "kind":
                pass  # a RuleViolation's own kind, passed on
            elif ast.unparse(kind) == "HTTP_KINDS.get(error.status, OTHER_HTTP_KIND)":
                kinds.update([*HTTP_KINDS.values(), OTHER_HTTP_KIND])
            else:
                raise AssertionError(f"a problem kind that is not written out: {ast.unparse(call)}")
    return kinds


def test_the_list_is_every_kind_the_code_raises() -> None:
    sources = [path.read_text() for path in sorted(SERVICE.rglob("*.py"))]
    raised = raised_kinds(sources)
    assert sorted(raised - set(PROBLEM_KINDS)) == [], "raised but not listed"
    assert sorted(set(PROBLEM_KINDS) - raised) == [], "listed but never raised"
    assert list(PROBLEM_KINDS) == sorted(set(PROBLEM_KINDS))
    # Some the API guide names, by hand.
    assert {"validation", "dice", "out-of-ammo", "not-your-phase", "sockets-full"} <= raised


def test_the_reader_finds_a_new_kind_and_refuses_a_computed_one() -> None:
    source = """
def _refuse(detail, kind="too-far", path=None):
    raise RuleViolation(detail, path=path, kind=kind, status=409)

def check(x):
    _refuse("no", "out-of-breath", "$.x")
    _refuse("no")
    raise RuleViolation("no")
    raise ProblemError(400, "new-kind", "New", "detail")
"""
    assert raised_kinds([source]) == {"out-of-breath", "too-far", "rule-violation", "new-kind"}
    with pytest.raises(AssertionError, match="not written out"):
        raised_kinds(["raise ProblemError(400, 'a' + b, 'title', 'detail')"])

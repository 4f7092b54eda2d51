"""The contract's schemas, made from `schemas/` for client generators: what a client sends and
what it reads are published apart, each with a `required` that tells the truth on its side.

Naming: a struct keeps its name for what a client sends (`SR5Sheet`, `EncounterCreate`); one that
a client also reads is published a second time with `Out` after its name (`SR5SheetOut`), and one
that is only read keeps its name (`SR5AttackResult`, `Problem`)."""

from __future__ import annotations

import typing
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import msgspec

from schemas.encounter import CombatState, RulesetId
from schemas.scene import ActorSheet

_REF = "#/components/schemas/{name}"
OUT = "Out"
RULESET = "Ruleset"
# A corner of a zone's polygon: `[x, y]` in metres (a `tuple[float, float]` in `schemas/`). Not
# `Point`, which is the `{"x", "y"}` object every position is.
VERTEX = "PolygonVertex"
RULESET_IDS = sorted(typing.get_args(RulesetId))

_NAMED = {
    RULESET: {
        "title": RULESET,
        "description": "A ruleset's id: what an encounter or a campaign plays by.",
        "type": "string",
        "enum": RULESET_IDS,
    },
    VERTEX: {
        "title": VERTEX,
        "description": "A corner of a zone's polygon: [x, y] in metres on the scene plane.",
        "type": "array",
        "items": {"type": "number"},
        "minItems": 2,
        "maxItems": 2,
    },
}

# The combat states (a creation's or a state edit's `combat`) and the actors' sheets are decoded
# as unions, where the "ruleset" tag tells them apart and is required.
_UNION_DECODED = {
    member.__name__ for union in (CombatState, ActorSheet) for member in typing.get_args(union)
}


def ref(name: str) -> dict[str, str]:
    return {"$ref": _REF.format(name=name)}


def walk(node: Any) -> Iterator[dict[str, Any]]:
    """Every object in a JSON document, outermost first."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from walk(value)
    elif isinstance(node, list | tuple):
        for value in node:
            yield from walk(value)


def _structs(kinds: Iterable[Any]) -> dict[str, type[msgspec.Struct]]:
    """Every Struct the types reach, by the name msgspec gives its schema."""
    found: dict[str, type[msgspec.Struct]] = {}
    seen: set[int] = set()

    def visit(info: Any) -> None:
        if id(info) in seen:
            return
        seen.add(id(info))
        if isinstance(info, msgspec.inspect.StructType):
            found.setdefault(info.cls.__name__, info.cls)
        if isinstance(info, msgspec.Struct):
            for field in msgspec.structs.fields(info):
                visit(getattr(info, field.name))
        elif isinstance(info, tuple | list):
            for item in info:
                visit(item)

    visit(msgspec.inspect.multi_type_info(list(kinds)))
    return found


def _input(name: str, schema: dict[str, Any]) -> None:
    """msgspec needs a struct's tag only to pick a member of a union. A body decoded as the
    encounter's ruleset's type (an attack, an action, a zone test) may leave it out: say so."""
    if name in _UNION_DECODED:
        return
    properties = schema.get("properties", {})
    required = schema.get("required", [])
    for tag in ("ruleset", "kind"):
        if tag in required and len(properties[tag].get("enum", ())) == 1:
            required.remove(tag)
    if "required" in schema and not required:
        del schema["required"]


def _output(cls: type[msgspec.Struct], schema: dict[str, Any]) -> None:
    """What the service writes: every field, unless the struct leaves out those at their
    default (`omit_defaults`) or the field is left out while unset (`UNSET`); the tag always.
    Answers may gain fields in a later version, so their objects are not closed."""
    config = cls.__struct_config__

    def always_written(field: msgspec.structs.FieldInfo) -> bool:
        if field.default is msgspec.UNSET:
            return False
        no_default = field.default is field.default_factory is msgspec.NODEFAULT
        return no_default or not config.omit_defaults

    required = [field.encode_name for field in msgspec.structs.fields(cls) if always_written(field)]
    if config.tag_field is not None:
        required.insert(0, config.tag_field)
    if required:
        schema["required"] = required
    else:
        schema.pop("required", None)
    schema.pop("additionalProperties", None)


def _fix_tuples(node: Any) -> None:
    """A tuple is `prefixItems` with `items: false` to msgspec, a `false` schema some generators
    cannot read: a pair of numbers is a PolygonVertex, any other tuple of one type a fixed-length
    array of it."""
    for schema in walk(node):
        items = schema.get("prefixItems")
        if items is None:
            continue
        assert all(item == items[0] for item in items), f"a tuple of mixed types: {schema}"
        for key in ("prefixItems", "items", "minItems", "maxItems", "type"):
            schema.pop(key, None)
        if items == [{"type": "number"}] * 2:
            schema["$ref"] = _REF.format(name=VERTEX)
        else:
            schema.update(type="array", items=items[0], minItems=len(items), maxItems=len(items))


def _name_rulesets(node: Any) -> None:
    """The ruleset enum is one named schema, not the same list inline under every name."""
    for schema in walk(node):
        if sorted(schema.get("enum", ())) == RULESET_IDS and set(schema) <= {"enum", "default"}:
            del schema["enum"]
            schema["$ref"] = _REF.format(name=RULESET)


def _drop_loose_discriminators(node: Any, components: dict[str, Any]) -> None:
    """A `discriminator` is only for a union whose members all require its property (an
    answer's `kind`, a sheet's `ruleset`); an attack body may leave its `ruleset` out."""
    for schema in walk(node):
        discriminator = schema.get("discriminator")
        if discriminator is None:
            continue
        tag = discriminator["propertyName"]
        members = [target.rsplit("/", 1)[-1] for target in discriminator["mapping"].values()]
        if not all(tag in components[m].get("required", ()) for m in members):
            del schema["discriminator"]


def _renamed(node: Any, rename: Callable[[str], str]) -> None:
    for schema in walk(node):
        target = schema.get("$ref")
        if isinstance(target, str):
            schema["$ref"] = _REF.format(name=rename(target.rsplit("/", 1)[-1]))


def build(
    inputs: list[Any], outputs: list[Any], extra: dict[str, Callable[[dict[str, Any]], None]]
) -> tuple[dict[Any, dict[str, Any]], dict[Any, dict[str, Any]], dict[str, Any]]:
    """The schemas of what clients send (`inputs`) and read (`outputs`): the reference to each
    type on its side, and the components. `extra`: a component's own touch, by its name."""
    in_schemas, in_components = msgspec.json.schema_components(inputs, ref_template=_REF)
    out_schemas, out_components = msgspec.json.schema_components(outputs, ref_template=_REF)
    structs = _structs([*inputs, *outputs])
    for name, schema in in_components.items():
        _input(name, schema)
    for name, schema in out_components.items():
        if name in structs:
            _output(structs[name], schema)
    both = set(in_components) & set(out_components)

    def out_name(name: str) -> str:
        return name + OUT if name in both else name

    _renamed([out_schemas, out_components], out_name)
    for name, schema in out_components.items():
        if "title" in schema:  # what generators name their models after
            schema["title"] = out_name(name)
    components = {
        **in_components,
        **{out_name(name): schema for name, schema in out_components.items()},
    }
    everything = [in_schemas, out_schemas, components]
    _fix_tuples(everything)
    _name_rulesets(everything)
    _drop_loose_discriminators(everything, components)
    for name, touch in extra.items():
        touch(components[name])
    components.update(_NAMED)
    in_refs = dict(zip(inputs, in_schemas, strict=True))
    out_refs = dict(zip(outputs, out_schemas, strict=True))
    return in_refs, out_refs, dict(sorted(components.items()))

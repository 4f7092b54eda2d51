"""firefight's wire vocabulary: msgspec Structs for every request, result, event and problem.

Garbage collection: a Struct type is declared `gc=False` (never tracked by the cycle collector;
msgspec's "Disabling Garbage Collection") when it can never be part of a reference cycle: its
fields are, by type, scalars, or containers and Structs of types that cannot hold it in turn.
Every type here is such a tree, with two exceptions that stay tracked: `StateChanges`, whose
`combat` holds `Any`, and the outcomes that hold one. A type added with an `Any` field, or one
that may contain itself, must leave `gc` at its default.
"""

"""The contract's examples: for an operation (by its operationId) a request body and the answer
the service gave it, taken from the README's quickstart and the API and campaigns guides
(docs/api.md, docs/campaigns.md).

They are data (`examples.json` beside this file). tests/test_openapi_examples.py checks that
each validates against its operation's schemas, that the README's and the guide's bodies are
these, and that the service, given them in order, answers these (ids, tokens and times aside)."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any


def _load() -> dict[str, dict[str, Any]]:
    text = resources.files(__package__).joinpath("examples.json").read_text(encoding="utf-8")
    examples: dict[str, dict[str, Any]] = json.loads(text)["operations"]
    return examples


EXAMPLES = _load()

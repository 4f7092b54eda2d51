"""Clients generated from the contract, as another VTT's developer makes them: from the
document a running service serves, with the generators and flags docs/api.md names, each
plays the README's quickstart against that service.

- Python: openapi-python-client (pinned in pyproject's test extra), then clients/quickstart.py.
- TypeScript: openapi-typescript's types and openapi-fetch (pinned in clients/package.json,
  installed by `make test` with npm ci), clients/quickstart.ts compiled with `tsc --strict` and
  run on Node. The README's bodies are written as constants of the generated request types, so
  the compiler checks them against the contract.

Both generate at once; the whole takes about 20-40 s on two cores."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.openapi_examples import README_ATTACK, README_CREATE
from tests.test_cli import ADMIN_KEY, ROOT, served

__all__ = ["served"]

CLIENTS = ROOT / "clients"
GENERATED = CLIENTS / "generated"
BIN = CLIENTS / "node_modules" / ".bin"
# What the quickstart prints through either client: the README's 9 boxes, and a problem's type.
EXPECTED = [
    "goon-1: hit, 9 boxes physical",
    "https://firefight.invalid/problems/encounter-not-found",
]
# The flag docs/api.md says to use: a property with a default is optional in what a client sends.
TYPESCRIPT_FLAGS = ["--default-non-nullable", "false"]


def _request_type(path: str) -> str:
    return f'NonNullable<paths["{path}"]["post"]["requestBody"]>["content"]["application/json"]'


def readme_module() -> str:
    """The README's bodies as constants of the generated request types."""
    return "\n".join(
        [
            'import type { paths } from "./firefight.js";',
            f"export const creation: {_request_type('/v1/encounters')} = "
            f"{json.dumps(README_CREATE, indent=2)};",
            f"export const attack: {_request_type('/v1/encounters/{encounter}/attacks')} = "
            f"{json.dumps(README_ATTACK, indent=2)};",
            "",
        ]
    )


def _finish(process: subprocess.Popen[str], what: str) -> str:
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, f"{what} failed:\n{out[-3000:]}\n{err[-3000:]}"
    return out


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.fail("Node 20 is needed for the generated TypeScript client (the README's need)")
    if not (BIN / "tsc").exists():
        pytest.fail("clients/node_modules is missing: `make test` runs `npm ci` in clients/")
    return node


def test_generated_clients_play_the_readme_quickstart(served: str, tmp_path: Path) -> None:
    node = _node()
    document = tmp_path / "openapi.json"
    with urllib.request.urlopen(served + "/openapi.json", timeout=10) as response:
        document.write_bytes(response.read())
    if GENERATED.exists():
        shutil.rmtree(GENERATED)
    GENERATED.mkdir()
    (GENERATED / "readme.ts").write_text(readme_module())
    python_client = tmp_path / "firefight_client"
    python_generator = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "openapi-python-client"),
            "generate",
            "--path",
            str(document),
            "--output-path",
            str(python_client),
            "--meta",
            "none",
            "--config",
            str(CLIENTS / "openapi-python-client.yaml"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    typescript = subprocess.Popen(
        [
            "bash",
            "-euc",
            '"$BIN/openapi-typescript" "$DOC" -o generated/firefight.ts '
            + " ".join(TYPESCRIPT_FLAGS)
            + ' && "$BIN/tsc" -p tsconfig.json',
        ],
        cwd=CLIENTS,
        env={**os.environ, "BIN": str(BIN), "DOC": str(document)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    generated = _finish(python_generator, "openapi-python-client")
    # It reads the whole document: no schema or response left out.
    assert "Warning" not in generated and "Unable" not in generated, generated[-3000:]
    _finish(typescript, "openapi-typescript and tsc --strict")

    env = {**os.environ, "FIREFIGHT_URL": served, "ADMIN_KEY": ADMIN_KEY}
    bodies = json.dumps({"create": README_CREATE, "attack": README_ATTACK})
    python_run = subprocess.run(
        [sys.executable, str(CLIENTS / "quickstart.py"), bodies],
        env={**env, "PYTHONPATH": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert python_run.returncode == 0, python_run.stderr
    assert python_run.stdout.splitlines() == EXPECTED
    typescript_run = subprocess.run(
        [node, str(GENERATED / "out" / "quickstart.js")],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert typescript_run.returncode == 0, typescript_run.stderr
    assert typescript_run.stdout.splitlines() == EXPECTED

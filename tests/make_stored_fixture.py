"""Makes the stored fixtures of tests/fixtures/stored/: what an earlier landed state of main
stored for an SR5 encounter (and a campaign), written by THAT version's own service.

For each release below: a temporary `git worktree` of its commit, its own `python -m service` on
the real Redis (127.0.0.1:6379, db 0 unless FIREFIGHT_FIXTURE_REDIS_URL), the README's quickstart
bodies of that commit played over HTTP, and what the store then holds written out in the backup
format (`"firefight_export": 1`, service/backup.py): by that version's own `python -m service
export` where it had one, else read from its Redis keys as they are (the hash's fields but the
store's own, the stream's entries). The bytes are never decoded nor re-encoded on the way: a field
or an event is base64 of what that version wrote. Beside each, `<label>.meta.json` keeps what the
store does not: the tokens the creation answered, the commit, and the answers it gave.

    .venv/bin/python -m tests.make_stored_fixture            # every release
    .venv/bin/python -m tests.make_stored_fixture stop07     # one
    .venv/bin/python -m tests.make_stored_fixture --check    # made again in a temporary
        directory and compared with the files kept, but for what each run draws anew (ids,
        tokens, times, seeds): exit 1 naming what differs

The keys it wrote are deleted from Redis after, the worktrees removed.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "stored"
REDIS_URL = os.environ.get("FIREFIGHT_FIXTURE_REDIS_URL", "redis://127.0.0.1:6379/0")
ADMIN_KEY = "fixture-admin-key-0123456789abcdef"
# Fields the Redis store keeps for itself in an encounter's hash (service/store/base.py).
STORE_FIELDS = {b"v", b"nonce", b"eid", b"ended", b"eb", b"ub"}

# The README's quickstart attack: the same body at every release below.
ATTACK = {
    "attacker": {"id": "sam", "agility": 6, "strength": 4, "skill": 6},
    "weapon": {
        "id": "predator",
        "category": "heavy_pistol",
        "damage": 8,
        "ap": -1,
        "accuracy": 5,
        "rc": 0,
        "modes": ["SA"],
        "ammo": 15,
    },
    "mode": "SA",
    "smartlink": "wireless_implant",
    "targets": [
        {
            "id": "goon-1",
            "distance_m": 12,
            "defender": {"reaction": 3, "intuition": 3, "body": 4, "armor": 9},
        }
    ],
    "dice": {
        "attack": [6, 5, 5, 5, 2, 3, 1, 4, 2, 3, 4, 4, 2],
        "defense:goon-1": [5, 2, 3, 1, 4, 2],
        "soak:goon-1": [5, 6, 1, 2, 3, 4, 2, 2, 3, 4, 1, 3],
    },
}


@dataclass(frozen=True)
class Release:
    """A landed stop's last commit whose stored shape differs from the next one's."""

    commit: str
    why: str
    # The README's creation body at that commit.
    create: dict[str, Any]
    # Scene actors put before the attack (the scene came with stop 17).
    actors: dict[str, dict[str, Any]] = field(default_factory=dict)
    # Whether that version had `python -m service export` (stop 32 on).
    export: bool = False
    campaign: bool = False


SCENE = {"sam": {"name": "Sam", "controller": "anna"}, "goon-1": {"name": "Goon"}}
TYPED_ANY = {"ruleset": "sr5", "name": "Warehouse", "dice_policy": "any", "sheet_policy": "typed"}

RELEASES: dict[str, Release] = {
    "stop07": Release(
        "31e83dc",
        "the first landed stop (issues 2-4): the earliest service that stores an SR5 attack; "
        "the whole document in one field ('doc'), no scene",
        {"ruleset": "sr5", "name": "Warehouse"},
    ),
    "stop17": Release(
        "7c3f345",
        "the last stop before the per-field documents (stop 18): one 'doc' field, with the "
        "scene, players' tokens and the dice policy",
        {"ruleset": "sr5", "name": "Warehouse", "dice_policy": "any"},
        SCENE,
    ),
    "stop31": Release(
        "a4f2c22",
        "per-field documents (head, a:, s:), before condition monitors, damage modes and undo "
        "(stop 32)",
        TYPED_ANY,
        SCENE,
    ),
    "stop32": Release(
        "3425e6a",
        "the last stop before campaigns (stop 33): monitors kept by the service, undo records, "
        "the backup tool",
        TYPED_ANY,
        SCENE,
        export=True,
    ),
    "stop34": Release(
        "fa8cc03",
        "the last landed stop, the shape before schema versions: campaigns and an encounter "
        "started in one",
        TYPED_ANY,
        SCENE,
        export=True,
        campaign=True,
    ),
}


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.strip()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class OldService:
    """That version's `python -m service`, from its own worktree, on Redis."""

    def __init__(self, tree: Path, log: Path) -> None:
        self.port = _free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        env = {k: v for k, v in os.environ.items() if not k.startswith("FIREFIGHT_")}
        env.update(
            FIREFIGHT_HOST="127.0.0.1",
            FIREFIGHT_PORT=str(self.port),
            FIREFIGHT_ADMIN_KEY=ADMIN_KEY,
            FIREFIGHT_REDIS_URL=REDIS_URL,
            FIREFIGHT_DATA_DIR=str(log.parent / "data"),
            PYTHONDONTWRITEBYTECODE="1",
        )
        self._log = log.open("wb")
        # `-m service` from the worktree: its own code, not the checkout installed in the venv.
        self.process = subprocess.Popen(
            [sys.executable, "-m", "service"], cwd=tree, env=env, stdout=self._log, stderr=self._log
        )
        self.tree, self.env = tree, env
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                self.call("GET", "/v1/rulesets")
                return
            except (urllib.error.URLError, ConnectionError):
                if self.process.poll() is not None:
                    raise RuntimeError(log.read_text()) from None
                time.sleep(0.2)
        raise RuntimeError(f"the service at {tree} did not answer: {log.read_text()}")

    def call(self, method: str, path: str, token: str = ADMIN_KEY, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.base + path,
            data=data,
            method=method,
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                text = response.read()
        except urllib.error.HTTPError as error:
            raise RuntimeError(f"{method} {path}: {error.code} {error.read()!r}") from None
        return json.loads(text) if text else None

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(30)
        self._log.close()


def _from_redis(ids: list[str]) -> bytes:
    """The backup format of what Redis holds for these documents, their bytes as stored."""
    client = redis.Redis.from_url(REDIS_URL)
    encounters = []
    for document_id in ids:
        stored = client.hgetall(f"ff:{{{document_id}}}:state")
        fields = {
            name.decode(): base64.b64encode(value).decode()
            for name, value in sorted(stored.items())
            if name not in STORE_FIELDS
        }
        events = [
            {"id": event_id.decode(), "body": base64.b64encode(entry[b"e"]).decode()}
            for event_id, entry in client.xrange(f"ff:{{{document_id}}}:events")
        ]
        encounters.append(
            {
                "id": document_id,
                "version": int(stored[b"v"]),
                "ended": b"ended" in stored,
                "fields": fields,
                "events": events,
            }
        )
    return json.dumps({"firefight_export": 1, "encounters": encounters}).encode() + b"\n"


def _exported(service: OldService, ids: list[str], out: Path) -> bytes:
    """That version's own export of these documents."""
    args = [arg for document_id in ids for arg in ("--encounter", document_id)]
    done = subprocess.run(
        [sys.executable, "-m", "service", "export", *args, "--out", str(out)],
        cwd=service.tree,
        env=service.env,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the export of {service.tree} failed: {done.stderr}")
    return out.read_bytes()


def _forget(ids: list[str]) -> None:
    client = redis.Redis.from_url(REDIS_URL)
    for document_id in ids:
        keys = list(client.scan_iter(match=f"ff:{{{document_id}}}:*"))
        if keys:
            client.delete(*keys)


def _play(service: OldService, release: Release) -> tuple[list[str], dict[str, Any]]:
    """The quickstart played on that version: the ids it stored and what to keep beside them."""
    meta: dict[str, Any] = {}
    ids: list[str] = []
    if release.campaign:
        made = service.call("POST", "/v1/campaigns", body={"ruleset": "sr5", "name": "Seattle"})
        campaign, campaign_gm = made["id"], made["token"]
        ids.append(campaign)
        sam = {"kind": "character", "name": "Sam", "controller": "anna"}
        base = f"/v1/campaigns/{campaign}"
        service.call("PUT", f"{base}/actors/sam", campaign_gm, sam)
        goon = {"kind": "template", "name": "Goon"}
        service.call("PUT", f"{base}/actors/goon", campaign_gm, goon)
        anna = service.call("POST", f"{base}/players/anna", campaign_gm, {"characters": ["sam"]})
        created = service.call(
            "POST",
            f"{base}/encounters",
            campaign_gm,
            {
                **{k: v for k, v in release.create.items() if k != "ruleset"},
                "bring": [{"actor": "sam"}, {"actor": "goon"}],
            },
        )
        meta["campaign"] = {"id": campaign, "gm": campaign_gm, "anna": anna["token"]}
    else:
        created = service.call("POST", "/v1/encounters", body=release.create)
    encounter = created["id"]
    ids.append(encounter)
    gm, player = created["tokens"]["gm"], created["tokens"]["player"]
    path = f"/v1/encounters/{encounter}"
    for actor, body in ({} if release.campaign else release.actors).items():
        service.call("PUT", f"{path}/actors/{actor}", gm, body)
    meta["attack"] = service.call("POST", f"{path}/attacks", player, ATTACK)
    meta["view"] = service.call("GET", path, gm)
    meta.update(encounter=encounter, tokens={"gm": gm, "player": player})
    return ids, meta


def make(label: str, into: Path) -> None:
    release = RELEASES[label]
    commit = _git("rev-parse", release.commit)
    tree = Path(f"/tmp/old-{commit[:12]}")
    _git("worktree", "add", "--detach", str(tree), commit)
    ids: list[str] = []
    try:
        with tempfile.TemporaryDirectory() as scratch:
            service = OldService(tree, Path(scratch) / "service.log")
            try:
                ids, meta = _play(service, release)
                if release.export:
                    stored = _exported(service, ids, Path(scratch) / "export.json")
                else:
                    stored = _from_redis(ids)
            finally:
                service.stop()
        into.mkdir(parents=True, exist_ok=True)
        (into / f"{label}.json").write_bytes(stored)
        meta = {"label": label, "commit": commit, "why": release.why, **meta}
        (into / f"{label}.meta.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
    finally:
        _forget(ids)
        _git("worktree", "remove", "--force", str(tree))


# What each run draws anew, left out of --check's comparison: these keys, and any id the
# service drew (an encounter's or a campaign's, where a result names it).
_DRAWN_ID = re.compile(r"(campaign-)?[0-9a-f]{32}")
VOLATILE = {"id", "encounter", "campaign", "created_at", "at", "event_id", "seed", "token_hashes"}


def _comparable(value: Any) -> Any:
    """A fixture's content with its bytes decoded (msgpack or JSON) and what each run draws anew
    left out."""
    import msgspec

    if isinstance(value, dict):
        return {k: _comparable(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [_comparable(v) for v in value]
    if isinstance(value, str) and _DRAWN_ID.fullmatch(value):
        return "<id>"
    if isinstance(value, str) and len(value) > 8:
        try:
            raw = base64.b64decode(value, validate=True)
            decoded = json.loads(raw) if raw[:1] == b"{" else msgspec.msgpack.decode(raw)
        except (ValueError, msgspec.DecodeError):
            return value
        return _comparable(decoded)
    return value


def check(labels: list[str]) -> int:
    differ = []
    with tempfile.TemporaryDirectory() as scratch:
        for label in labels:
            make(label, Path(scratch))
            made = json.loads((Path(scratch) / f"{label}.json").read_text())
            kept = json.loads((FIXTURES / f"{label}.json").read_text())
            if _comparable(made) != _comparable(kept):
                differ.append(label)
    for label in differ:
        print(f"{label}: made again, it differs from {FIXTURES / label}.json", file=sys.stderr)
    return 1 if differ else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("labels", nargs="*", help=f"of {', '.join(RELEASES)} (default: all)")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    labels = args.labels or list(RELEASES)
    unknown = [label for label in labels if label not in RELEASES]
    if unknown:
        parser.error(f"no release {unknown[0]!r}: {', '.join(RELEASES)}")
    if args.check:
        return check(labels)
    for label in labels:
        make(label, FIXTURES)
        print(f"{FIXTURES / label}.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())

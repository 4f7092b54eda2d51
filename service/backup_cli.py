"""`python -m service export` and `python -m service import`: the backup commands, on the store
the same settings as the service's choose (FIREFIGHT_* and the flags: a data directory, memory,
or a Redis URL)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from service.backup import (
    BackupError,
    ExportedEncounter,
    checked_id,
    export_encounter,
    import_encounter,
    missing_or_refused,
    read_document,
    write_document,
)
from service.config import Config, ConfigError, load_config
from service.data_dir import DATA_FILE
from service.store import EncounterStore, StoreRefused, StoreUnavailable
from service.store.choice import store_for

# What a SQLite data directory held by a running service asks of the user.
STOP_FIRST = (
    "stop the service first (the SQLite store is one process's alone); with Redis the "
    "commands may run beside it"
)


def _parser(command: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=f"firefight {command}",
        description="the store's settings are the service's: FIREFIGHT_* or --data-dir, "
        "--store, --redis-url, --redis-cluster, --redis-password",
    )
    if command == "export":
        parser.add_argument(
            "--encounter", action="append", default=[], help="an encounter's id (repeatable)"
        )
        parser.add_argument("--all", action="store_true", help="every encounter in the store")
        parser.add_argument("--out", default="-", help="the file written (default: stdout)")
    else:
        parser.add_argument("file", help="a file `firefight export` wrote")
    return parser


def _open_store(config: Config, reading: bool) -> EncounterStore:
    if config.store == "sqlite" and not config.redis_url:
        if reading and not (Path(config.data_dir) / DATA_FILE).is_file():
            raise BackupError(f"{Path(config.data_dir) / DATA_FILE} does not exist: no store there")
    try:
        return store_for(config)
    except StoreRefused as error:
        raise BackupError(f"{error}; {STOP_FIRST}") from None


async def _export(config: Config, ids: list[str], every: bool) -> list[ExportedEncounter]:
    store = _open_store(config, reading=True)
    try:
        if every:
            ids = sorted({*ids, *[encounter_id async for encounter_id in store.encounter_ids()]})
        return [await export_encounter(store, encounter_id) for encounter_id in ids]
    finally:
        await store.close()


async def _import(config: Config, path: Path) -> list[str]:
    try:
        text = path.read_bytes()
    except OSError as error:
        raise BackupError(f"{path} cannot be read: {error.strerror}") from None
    # Checked whole before the store is opened: a file refused writes nothing.
    document = read_document(text, str(path))
    store = _open_store(config, reading=False)
    imported: list[str] = []
    try:
        await missing_or_refused(store, document)
        for encounter in document.encounters:
            version = await import_encounter(store, encounter)
            imported.append(
                f"imported {encounter.id} ({len(encounter.events)} events, version {version})"
            )
    except (BackupError, StoreUnavailable) as error:
        what = error if isinstance(error, BackupError) else f"the store failed: {error}"
        done = "; ".join(imported)
        raise BackupError(f"{what}{f' (before it: {done})' if done else ''}") from None
    finally:
        await store.close()
    return imported


def main(command: str, argv: list[str]) -> int:
    """Exit code 0, or 2 with what went wrong on stderr."""
    args, store_flags = _parser(command).parse_known_args(argv)
    try:
        config = load_config(store_flags)
        if command == "export":
            if not args.all and not args.encounter:
                raise BackupError("name the encounters (--encounter ID, repeatable) or --all")
            ids = [checked_id(encounter_id) for encounter_id in args.encounter]
            encounters = asyncio.run(_export(config, ids, args.all))
            written = write_document(encounters)
            if args.out == "-":
                sys.stdout.buffer.write(written)
            else:
                Path(args.out).write_bytes(written)
            events = sum(len(e.events) for e in encounters)
            sys.stderr.write(
                f"firefight: exported {len(encounters)} encounter(s), {events} events, "
                f"to {'stdout' if args.out == '-' else args.out}\n"
            )
        else:
            for line in asyncio.run(_import(config, Path(args.file))):
                sys.stderr.write(f"firefight: {line}\n")
    except (BackupError, ConfigError) as error:
        sys.stderr.write(f"firefight {command}: {error}\n")
        return 2
    except StoreUnavailable as error:
        sys.stderr.write(f"firefight {command}: the store cannot be reached: {error}\n")
        return 2
    return 0

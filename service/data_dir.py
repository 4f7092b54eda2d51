"""The data directory (`--data-dir`): where the durable embedded store keeps its file, and the
admin key a localhost service made at its first start, so that the next start has the same."""

from __future__ import annotations

import os
import tempfile
from dataclasses import replace
from pathlib import Path

from service.config import MIN_ADMIN_KEY_LENGTH, Config, ConfigError

# The SQLite store's file, in the data directory.
DATA_FILE = "firefight.sqlite3"
# The admin key made when none was configured (mode 0600).
ADMIN_KEY_FILE = "admin-key"


def prepare(data_dir: str) -> Path:
    """The directory, made (mode 0700: encounters and the admin key are the owner's alone) when
    it is not there; ConfigError naming it when it is not a directory this process can write."""
    path = Path(data_dir)
    named = f"FIREFIGHT_DATA_DIR (--data-dir) {path}"
    if path.exists() and not path.is_dir():
        raise ConfigError(f"{named} is not a directory")
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as error:
        raise ConfigError(f"{named} cannot be made: {error.strerror}") from None
    try:
        # Can files be written there? (Permissions alone do not tell: root, read-only mounts.)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as error:
        raise ConfigError(f"{named} is not writable: {error.strerror}") from None
    return path


def keep_generated_key(config: Config) -> tuple[Config, str | None]:
    """With the SQLite store and no configured admin key, the key kept in the data directory
    (made and kept there at the first start) instead of this run's own; with what to tell the
    console (None: nothing). Raises ConfigError for a data directory or key file it cannot use."""
    if not config.admin_key_generated:
        return config, None
    if config.store != "sqlite":
        return config, (
            "no FIREFIGHT_ADMIN_KEY is set, so this run made one (it listens on localhost "
            f"only).\nfirefight: admin key: {config.admin_key}"
        )
    kept = prepare(config.data_dir) / ADMIN_KEY_FILE
    key, made = _kept_key(kept, config.admin_key)
    config = replace(config, admin_key=key)
    if made:
        return config, (
            "no FIREFIGHT_ADMIN_KEY is set, so this first start made one, kept in "
            f"{kept} for the next starts (it listens on localhost only).\n"
            f"firefight: admin key: {key}"
        )
    return config, f"no FIREFIGHT_ADMIN_KEY is set: the admin key kept in {kept} applies"


def _kept_key(path: Path, new_key: str) -> tuple[str, bool]:
    """The key in `path`, or `new_key` written there (mode 0600) when there is none; with
    whether it was written now."""
    try:
        # O_EXCL: of two processes starting at once, one writes the key, the other reads it.
        handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    except OSError as error:
        raise ConfigError(f"the admin key cannot be kept in {path}: {error.strerror}") from None
    else:
        with os.fdopen(handle, "w") as kept:
            kept.write(new_key + "\n")
            kept.flush()
            os.fsync(kept.fileno())
        return new_key, True
    try:
        key = path.read_text().strip()
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"the admin key in {path} cannot be read: {error}") from None
    if len(key) < MIN_ADMIN_KEY_LENGTH or not key.isascii() or not key.isprintable():
        raise ConfigError(
            f"{path} holds no usable admin key (printable ASCII, at least "
            f"{MIN_ADMIN_KEY_LENGTH} characters): delete it to make a new one, or set "
            "FIREFIGHT_ADMIN_KEY"
        )
    return key, False

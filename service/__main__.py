"""`python -m service` / `firefight`: serve the API."""

from __future__ import annotations

import sys

import structlog
from aiohttp import web

from service.api import create_app
from service.config import ConfigError, load_config
from service.logs import configure_logging


def main(argv: list[str] | None = None) -> int:
    try:
        config = load_config(argv)
    except ConfigError as error:
        sys.stderr.write(f"firefight: {error}\n")
        return 2
    if config.admin_key_generated:
        # Printed once, on the console only: keys never go into the logs.
        sys.stderr.write(
            "firefight: no FIREFIGHT_ADMIN_KEY is set, so this run made one (it listens on "
            f"localhost only).\nfirefight: admin key: {config.admin_key}\n"
        )
    configure_logging(config)
    log = structlog.get_logger("firefight")
    log.info(
        "starting",
        host=config.host,
        port=config.port,
        store="redis" if config.redis_url else "memory",
    )
    web.run_app(create_app(config), host=config.host, port=config.port, print=None, access_log=None)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

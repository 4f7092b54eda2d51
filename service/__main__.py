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

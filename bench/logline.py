"""`python -m bench.logline`: CPU per request log line, structlog set up as before issue 12
(the standard library's json, text writes, loggers assembled on every call) and as now
(service.logs), in one process, interleaved, to /dev/null. Both write the same bytes.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from collections.abc import Callable

import structlog

from service import logs
from service.config import Config
from service.logs import configure_logging

ADMIN_KEY = "logline-admin-key-0123456789"
ROUNDS = 5


def configure_as_before(config: Config) -> None:
    """service/logs.py as it was at fd3c2ae."""
    level = logging.getLevelNamesMapping().get(config.log_level.upper(), logging.INFO)
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            structlog.processors.JSONRenderer(),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.WriteLoggerFactory(sys.stderr),
        cache_logger_on_first_use=False,
    )


def per_line_us(configure: Callable[[Config], None], count: int) -> float:
    """The request line of the middleware, `count` times; CPU µs per line. Before, through
    structlog and its contextvars; now as the middleware writes it (service.logs)."""
    with open(os.devnull, "w") as sink:
        saved, sys.stderr = sys.stderr, sink
        try:
            configure(Config(log_format="json", admin_key=ADMIN_KEY))
            log = structlog.get_logger("firefight.api")
            structlog.contextvars.bind_contextvars(request_id="0" * 32, encounter="0" * 32)
            logs.new_context(request_id="0" * 32, encounter="0" * 32)
            started = time.process_time()
            if configure is configure_as_before:
                for _ in range(count):
                    log.info("request", method="POST", path="/v1/x", status=201, duration_ms=1.0)
            else:
                for _ in range(count):
                    line = {"method": "POST", "path": "/v1/x", "status": 201, "duration_ms": 1.0}
                    logs.request_line(line)
            return (time.process_time() - started) / count * 1e6
        finally:
            structlog.contextvars.clear_contextvars()
            logs.new_context()
            sys.stderr = saved


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.logline", description=__doc__)
    parser.add_argument("--count", type=int, default=20_000, help="lines per round")
    args = parser.parse_args(argv)
    before: list[float] = []
    after: list[float] = []
    for _ in range(ROUNDS):
        before.append(per_line_us(configure_as_before, args.count))
        after.append(per_line_us(configure_logging, args.count))
    print(f"request log line, CPU µs (best of {ROUNDS}, rounds interleaved):")
    print(f"  before (stdlib json, text writes, uncached): {min(before):.2f}")
    print(f"  now (service.logs):                          {min(after):.2f}")
    print(f"  now / before: {min(after) / min(before):.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())

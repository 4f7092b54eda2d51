"""structlog set-up: JSON lines in production, a console renderer on a terminal.

Every request writes one line, so the JSON path is kept cheap, as structlog's "performance" page
advises: the native filtering logger, loggers cached on first use, msgspec as the serializer and
bytes written straight to stderr's buffer. The lines are the ones the standard library's `json`
wrote before (same keys, same `": "` and `", "` separators), so nothing that reads them changes.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from types import MappingProxyType
from typing import Any

import msgspec
import structlog

from service.config import Config


def _fallback(value: Any) -> Any:
    """What structlog's own JSON renderer does with what JSON cannot carry: the object's
    `__structlog__()` when it has one, else its repr."""
    render = getattr(value, "__structlog__", None)
    return render() if callable(render) else repr(value)


_encode = msgspec.json.Encoder(enc_hook=_fallback).encode
_format = msgspec.json.format


def json_line(event_dict: Any, **_: Any) -> bytes:
    """One event as the standard library's `json.dumps` lays it out (`indent=0` is msgspec's
    name for one line with a space after each `:` and `,`), in a fraction of its time."""
    return _format(_encode(event_dict), indent=0)


class UtcTimeStamper:
    """`timestamp` as structlog's `TimeStamper(fmt="iso", utc=True)` writes it
    (`2026-12-01T07:30:00.123456Z`, no fraction on a whole second), at a fifth of its cost: the
    date and time of day are formatted once a second, not once a line."""

    def __init__(self) -> None:
        self._second = -1
        self._prefix = ""

    def __call__(self, logger: Any, method: str, event_dict: Any) -> Any:
        now = time.time()
        second = int(now)
        if second != self._second:
            self._second = second
            self._prefix = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
        micro = int((now - second) * 1_000_000)
        event_dict["timestamp"] = f"{self._prefix}.{micro:06d}Z" if micro else f"{self._prefix}Z"
        return event_dict


# What every line logged while a request is handled carries (its id, its encounter...): one
# context variable holding a dict never changed once set, so a task started during a request
# sees what was bound before it and binds apart from it, as structlog's own contextvars do; at
# a fraction of their CPU, which look through every variable of the context on every line
# (docs/performance.md, "Issue 28").
_CONTEXT: ContextVar[Mapping[str, Any]] = ContextVar(
    "firefight_log_context", default=MappingProxyType({})
)


def new_context(**values: Any) -> None:
    """A context of its own for what is handled from here on (a request's): `values` alone."""
    _CONTEXT.set(values)


def bind(**values: Any) -> None:
    """Adds `values` to every line logged from here on in this context."""
    _CONTEXT.set({**_CONTEXT.get(), **values})


def merge_context(logger: Any, method: str, event_dict: Any) -> Any:
    """The processor that adds the context to a line (what the line says itself wins)."""
    for key, value in _CONTEXT.get().items():
        event_dict.setdefault(key, value)
    return event_dict


log = structlog.get_logger("firefight.api")
# Set by configure_logging: the request line written without structlog's generic steps (JSON
# lines at the info level or lower), or not at all (above the info level).
_request_line: Callable[[dict[str, Any]], None] | None = None


def request_line(fields: dict[str, Any]) -> None:
    """The one line every request ends with (its method, path, status...): the very bytes
    structlog's chain writes for `log.info("request", **fields)`, written straight by the JSON
    set-up, without the bound logger's copy of its context, its loop over the processors and
    the checks of their results (docs/performance.md, "Issue 28"); any other set-up logs it
    through structlog. `fields` is the caller's to give away."""
    if _request_line is None:
        log.info("request", **fields)
    else:
        _request_line(fields)


def _unlogged(fields: dict[str, Any]) -> None:
    """The request line above the info level: nothing to write, nothing done."""


def _straight_request_line(
    stamper: UtcTimeStamper, worker: int | None, out: structlog.BytesLogger
) -> Callable[[dict[str, Any]], None]:
    def write(fields: dict[str, Any]) -> None:
        # The JSON chain's processors, in order: the event, the context, the level, the time,
        # the worker (format_exc_info has nothing to do: no exc_info).
        fields["event"] = "request"
        for key, value in _CONTEXT.get().items():
            fields.setdefault(key, value)
        fields["level"] = "info"
        stamper(None, "info", fields)
        if worker is not None:
            fields["worker"] = worker
        out.msg(json_line(fields))

    return write


def configure_logging(config: Config, worker: int | None = None) -> None:
    """Sets up structlog for this process; `worker` (with `--workers` above 1) is added to every
    line so an operator can tell the processes' lines apart."""
    level = logging.getLevelNamesMapping().get(config.log_level.upper(), logging.INFO)
    global _request_line
    _request_line = None
    stamper = UtcTimeStamper()
    processors: list[structlog.types.Processor] = [
        merge_context,
        structlog.processors.add_log_level,
        stamper,
        structlog.processors.format_exc_info,
    ]
    if worker is not None:
        processors.append(_add_worker(worker))
    logger_factory: Any
    # Written through stderr's byte buffer when it has one (a replaced stderr may not).
    stderr_bytes = getattr(sys.stderr, "buffer", None)
    if config.log_format == "console":
        processors.append(structlog.dev.ConsoleRenderer())
        logger_factory = structlog.WriteLoggerFactory(sys.stderr)
    elif stderr_bytes is None:
        processors.append(structlog.processors.JSONRenderer())
        logger_factory = structlog.WriteLoggerFactory(sys.stderr)
    else:
        # Whatever was written to the text layer first (the admin key notice) goes out before
        # the first byte line.
        sys.stderr.flush()
        processors.append(structlog.processors.JSONRenderer(serializer=json_line))
        logger_factory = structlog.BytesLoggerFactory(stderr_bytes)
        if level <= logging.INFO:
            _request_line = _straight_request_line(
                stamper, worker, structlog.BytesLogger(stderr_bytes)
            )
    if level > logging.INFO:
        _request_line = _unlogged
    structlog.configure(
        processors=processors,
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=logger_factory,
        # A logger is assembled once per proxy instead of on every line. A later configure() does
        # not reach loggers already used, so a process configures before it logs (a worker
        # process configures again before its first line).
        cache_logger_on_first_use=True,
    )


def _add_worker(worker: int) -> structlog.types.Processor:
    def add(logger: Any, method: str, event_dict: Any) -> Any:
        event_dict["worker"] = worker
        return event_dict

    return add

"""Serving the API until SIGTERM, in one process or several (`--workers`): what `python -m
service` does once its settings are read. Apart from service/__main__.py so that what answers
without serving (`--help`, a refused setting, the backup commands) imports none of the web app."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import structlog
from aiohttp import web

from service.api import create_app, metrics
from service.api.app import health_only
from service.api.app_keys import METRICS
from service.api.connections import ConnectionCap
from service.collector import tune_for_serving
from service.config import Config
from service.event_loop import resolved, run
from service.logs import configure_logging
from service.store import StoreRefused
from service.workers import supervise


async def serve(
    config: Config, gc_tuning: bool = True, supervisor_gone_fd: int | None = None
) -> None:
    """Serves until SIGTERM or SIGINT, then shuts down gracefully: stops listening, closes the
    WebSockets going away, lets requests in flight finish (for the shutdown timeout at most),
    then closes the store.

    aiohttp's `run_app` would do the same with its own sites; the listener is made here so that
    connections beyond the cap are refused before aiohttp takes them in (`ConnectionCap`).
    A worker of `--workers` shares the port with the others (SO_REUSEPORT: the kernel spreads
    new connections over them) and also stops when its supervisor is gone."""
    log = structlog.get_logger("firefight")
    app = create_app(config)
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=config.shutdown_timeout_seconds)
    await runner.setup()
    # Answers health checks on the few connections taken in above the cap.
    health = web.Server(health_only(app), access_log=None)
    try:
        assert runner.server is not None
        if gc_tuning:
            # Everything is imported and the app, its store and its client are built.
            tune_for_serving()
        loop = asyncio.get_running_loop()
        stopping = asyncio.Event()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stopping.set)
        if supervisor_gone_fd is not None:
            loop.add_reader(supervisor_gone_fd, stopping.set)
        cap = ConnectionCap(runner.server, config.max_connections, health)
        cap.on_refused = app[METRICS].shed["connections"].inc
        listener = await loop.create_server(
            cap,
            config.host,
            config.port,
            reuse_port=config.workers > 1,
        )
        if config.workers > 1:
            log.info("listening", pid=os.getpid())
        try:
            await stopping.wait()
            log.info("stopping")
        finally:
            listener.close()
            if supervisor_gone_fd is not None:
                loop.remove_reader(supervisor_gone_fd)
    finally:
        await health.shutdown(1.0)
        await runner.cleanup()


def serve_until_stopped(config: Config, url: str, gc_tuning: bool = True) -> int:
    """Logs the startup line (`url`: the console's address), serves, and gives the exit code."""
    configure_logging(config)
    log = structlog.get_logger("firefight")
    log.info(
        "starting",
        # The console's address, to open in a browser (docs/console.md).
        url=url,
        host=config.host,
        port=config.port,
        store=config.store,
        event_loop=resolved(config.event_loop),
        **({"data_dir": str(Path(config.data_dir).resolve())} if config.store == "sqlite" else {}),
        **({"workers": config.workers} if config.workers > 1 else {}),
    )
    if config.workers == 1:
        try:
            run(serve(config, gc_tuning), config.event_loop)
        except StoreRefused as error:
            sys.stderr.write(f"firefight: {error}\n")
            return 2
        return 0

    def work(index: int, supervisor_gone_fd: int) -> int:
        configure_logging(config, worker=index)
        run(serve(config, gc_tuning, supervisor_gone_fd), config.event_loop)
        return 0

    shared = metrics.share_between_workers()
    try:
        return supervise(config.workers, work, gc_tuning)
    finally:
        metrics.remove_shared(shared)

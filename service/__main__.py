"""`python -m service` / `firefight`: serve the API; `export` and `import` back encounters up
(service/backup_cli.py)."""

from __future__ import annotations

import asyncio
import ipaddress
import os
import signal
import socket
import sys
from collections.abc import Callable
from pathlib import Path

import structlog
from aiohttp import web

from service import backup_cli
from service.api import create_app, metrics
from service.api.app import health_only
from service.api.app_keys import METRICS
from service.api.connections import ConnectionCap
from service.collector import tune_for_serving
from service.config import Config, ConfigError, load_config
from service.data_dir import keep_generated_key, prepare
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


# What a log line says when no address of this machine on the table's network could be found.
SOME_ADDRESS = "<this machine's address>"


def network_address() -> str | None:
    """This machine's address on its network, as others there reach it: the source address of a
    route to a documentation address (RFC 5737). A UDP socket's connect sends nothing."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))
            address = str(probe.getsockname()[0])
    except OSError:
        return None
    return None if ipaddress.ip_address(address).is_loopback else address


def console_url(config: Config, find_address: Callable[[], str | None] = network_address) -> str:
    """The address to open the console at, for the startup line: the public URL when one is
    set; on every interface (0.0.0.0, ::), this machine's address on its network, which the
    players' browsers reach; otherwise the host listened on."""
    if config.public_url:
        return config.public_url.rstrip("/") + "/"
    host = config.host
    if host in ("0.0.0.0", "::", ""):
        host = find_address() or SOME_ADDRESS
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}:{config.port}/"


def main(argv: list[str] | None = None, *, gc_tuning: bool = True) -> int:
    """`gc_tuning=False` keeps Python's default garbage collection (the benchmarks' "before")."""
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] in ("export", "import"):
        return backup_cli.main(args[0], args[1:])
    try:
        config, key_note = keep_generated_key(load_config(argv))
        if config.store == "sqlite":
            prepare(config.data_dir)
    except ConfigError as error:
        sys.stderr.write(f"firefight: {error}\n")
        return 2
    if key_note is not None:
        # On the console only (a made key printed once): keys never go into the logs.
        sys.stderr.write(f"firefight: {key_note}\n")
    configure_logging(config)
    log = structlog.get_logger("firefight")
    log.info(
        "starting",
        # The console's address, to open in a browser (docs/console.md).
        url=console_url(config),
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


if __name__ == "__main__":
    raise SystemExit(main())

"""`python -m service` / `firefight`: serve the API (service/serving.py); `export` and `import`
back encounters up (service/backup_cli.py)."""

from __future__ import annotations

import ipaddress
import socket
import sys
from collections.abc import Callable

from service import backup_cli
from service.config import Config, ConfigError, load_config
from service.data_dir import keep_generated_key, prepare

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
    # Imported only to serve: the web app, its engine and rules take most of a start.
    from service.serving import serve_until_stopped

    return serve_until_stopped(config, console_url(config), gc_tuning)


if __name__ == "__main__":
    raise SystemExit(main())

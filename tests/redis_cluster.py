"""A real three-node Redis Cluster for the tests: redis-server with --cluster-enabled."""

from __future__ import annotations

import random
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import redis

from tests.redis_server import OwnRedis

SLOTS = 16384
# A node's cluster bus listens 10,000 ports above its own, so its port must leave room for it.
BUS_OFFSET = 10_000


def free_cluster_port() -> int:
    """A port that is free, and whose cluster bus port is free too."""
    for _ in range(200):
        port = random.randint(20_000, 65_535 - BUS_OFFSET)
        try:
            for candidate in (port, port + BUS_OFFSET):
                with socket.socket() as probe:
                    probe.bind(("127.0.0.1", candidate))
        except OSError:
            continue
        return port
    raise AssertionError("found no free pair of ports for a cluster node")


def _wait(condition: str, check: object, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if check():  # type: ignore[operator]
                return
        except redis.RedisError:
            pass
        time.sleep(0.05)
    raise AssertionError(f"the test cluster did not {condition} within {seconds} s")


def start_cluster(directory: Path, nodes: int = 3) -> Iterator[str]:
    """Yields a URL of one node (the client discovers the others) and stops them after."""
    servers = []
    try:
        for index in range(nodes):
            node_dir = directory / f"node{index}"
            node_dir.mkdir()
            server = OwnRedis(
                node_dir,
                free_cluster_port(),
                "--cluster-enabled",
                "yes",
                "--cluster-config-file",
                "nodes.conf",
                "--cluster-node-timeout",
                "2000",
            )
            server.start()
            servers.append(server)
        clients = [redis.Redis(port=s.port) for s in servers]
        per_node = SLOTS // nodes
        for index, client in enumerate(clients):
            first = index * per_node
            last = SLOTS - 1 if index == nodes - 1 else first + per_node - 1
            client.execute_command("CLUSTER", "ADDSLOTSRANGE", first, last)
        for client in clients[1:]:
            client.execute_command("CLUSTER", "MEET", "127.0.0.1", servers[0].port)

        def every_node_sees_an_ok_cluster() -> bool:
            for client in clients:
                info = client.execute_command("CLUSTER", "INFO")
                text = info.decode() if isinstance(info, bytes) else str(info)
                if "cluster_state:ok" not in text or f"cluster_known_nodes:{nodes}" not in text:
                    return False
            return True

        _wait("become ok", every_node_sees_an_ok_cluster)
        yield f"redis://127.0.0.1:{servers[0].port}/0"
    finally:
        for server in servers:
            server.stop()

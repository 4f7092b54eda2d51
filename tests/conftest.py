"""Shared fixtures: the real Redis (required under CI), stores of every kind, and the app."""

from __future__ import annotations

import os
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import fakeredis
import pytest
import redis
from aiohttp import web
from aiohttp.test_utils import TestClient

from service.api import create_app
from service.config import Config
from service.store import MemoryStore, RedisStore, SQLiteStore, StoreLimits
from tests.redis_cluster import start_cluster
from tests.redis_server import OwnRedis

if TYPE_CHECKING:
    from playwright.sync_api import Browser

REDIS_URL = os.environ.get("FIREFIGHT_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
# What the tests write to the shared Redis expires soon after, not a week later.
TEST_TTL_SECONDS = 600
ADMIN_KEY = "test-admin-key-0123456789"
IN_CI = os.environ.get("CI") == "true"


@pytest.fixture(scope="session")
def redis_url() -> str:
    """The real Redis: under CI its absence fails the test instead of skipping it."""
    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1).ping()
    except redis.RedisError as error:
        message = f"no Redis at {REDIS_URL} ({error}); `make test` starts one"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    return REDIS_URL


LASTING_KEYS = "ff:{campaign-*}:*"
_LASTING_BEFORE = pytest.StashKey[set[bytes]]()


def _lasting_keys() -> set[bytes] | None:
    try:
        client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1)
        with client:
            return set(client.scan_iter(match=LASTING_KEYS, count=1000))
    except redis.RedisError:
        return None


def _is_worker(session: pytest.Session) -> bool:
    """A pytest-xdist worker: the tests run there, the session's start and end in the
    controller, which outlives every worker."""
    return hasattr(session.config, "workerinput")


def pytest_sessionstart(session: pytest.Session) -> None:
    """Campaigns never expire, on Redis too: the keys the session finds are remembered, and the
    ones it leaves in the shared Redis removed at its end (those there before it stay). Done by
    the controller alone: a worker that ends first would remove the others' campaigns. The
    session's own Redis Cluster goes with its temporary directory."""
    if not _is_worker(session):
        before = _lasting_keys()
        if before is not None:
            session.config.stash[_LASTING_BEFORE] = before


def pytest_sessionfinish(session: pytest.Session) -> None:
    before = session.config.stash.get(_LASTING_BEFORE, None)
    if before is None or _is_worker(session):
        return
    left = [key for key in _lasting_keys() or () if key not in before]
    if left:
        with redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1) as client:
            for start in range(0, len(left), 500):
                client.delete(*left[start : start + 500])


# The order pytest-xdist hands the files out in (`--dist loadfile`; pyproject's addopts turn off
# its own reordering, most tests first, which handed the fuzzing's files out last: for minutes
# one worker ran them alone). The fuzzing's files first, the longest first, beside the other
# files; the browser files last, so that none waits on its page beside the fuzzing's CPU (three
# browser tests timed out there when the longest files went first); in each of the other two
# groups the files with the most tests first, as pytest-xdist would.
FIRST_FILES = (
    "tests/test_fuzz_admin_play.py",
    "tests/test_fuzz_admin_rest.py",
    "tests/test_fuzz_credentials.py",
    "tests/test_fuzz_redis.py",
)
LAST_FILES = "tests/test_console"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    files = [item.nodeid.partition("::")[0] for item in items]
    counts = Counter(files)

    def rank(file: str) -> tuple[int, int, str]:
        if file in FIRST_FILES:
            return (0, FIRST_FILES.index(file), file)
        return (2 if file.startswith(LAST_FILES) else 1, -counts[file], file)

    # Stable: a file's tests keep their order.
    order = sorted(range(len(items)), key=lambda i: rank(files[i]))
    items[:] = [items[i] for i in order]


@pytest.fixture(scope="session")
def own_redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A redis-server of this test session's alone, for the tests that count what Redis did
    (commands run, clients connected): on the shared one, the tests of another pytest-xdist
    worker (or another suite) would be counted too."""
    server = OwnRedis(tmp_path_factory.mktemp("own-redis"))
    server.start()
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture(scope="session")
def redis_cluster_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real three-node Redis Cluster, started for this test session."""
    yield from start_cluster(tmp_path_factory.mktemp("cluster"))


# The contract is what a store does, not how fast: on a CI machine busy with the rest of the suite
# a burst's connections took more than the service's 2 s to open (stop 19, and again in issue
# 14's fresh-clone run, with the connections already capped at 64), so the contract's stores
# wait longer. The service's own timeouts are tested on their own (test_faults.py, and
# test_an_unreachable_redis_is_store_unavailable).
CONTRACT_TIMEOUT_S = 10.0


# What the contract's stores keep: caps small enough for a test to reach.
CONTRACT_LIMITS = StoreLimits(
    ttl_seconds=TEST_TTL_SECONDS,
    ended_ttl_seconds=60,
    max_events=100,
    max_event_stream_bytes=64 * 1024,
    max_undo=5,
    max_undo_bytes=32 * 1024,
)

# Makes a store with the limits given; memory and SQLite read the time from `clock` (a test's
# fake one moves it past a TTL), Redis from its own.
StoreFactory = Callable[..., Any]


@pytest.fixture(params=["memory", "sqlite", "fakeredis", "redis", "cluster"])
async def make_store(request: pytest.FixtureRequest) -> AsyncIterator[StoreFactory]:
    """Makes stores of one kind with the limits a test gives, and closes them after it."""
    made: list[Any] = []

    def make(limits: StoreLimits, clock: Callable[[], float] = time.time) -> Any:
        if request.param == "memory":
            store: Any = MemoryStore(limits, clock=clock)
        elif request.param == "sqlite":
            # A file of its own in the test's directory, as `--data-dir` names one.
            path = request.getfixturevalue("tmp_path") / f"store-{len(made)}.sqlite3"
            store = SQLiteStore(path, limits, clock=clock)
        elif request.param == "fakeredis":
            server = fakeredis.FakeServer()
            store = RedisStore(
                "redis://fake",
                limits,
                client=fakeredis.FakeAsyncRedis(server=server, max_connections=1000),
                reader=fakeredis.FakeAsyncRedis(server=server),
            )
        elif request.param == "redis":
            store = RedisStore(
                request.getfixturevalue("redis_url"), limits, command_timeout_s=CONTRACT_TIMEOUT_S
            )
        else:
            store = RedisStore(
                request.getfixturevalue("redis_cluster_url"),
                limits,
                cluster=True,
                command_timeout_s=CONTRACT_TIMEOUT_S,
            )
        made.append(store)
        return store

    yield make
    for store in made:
        await store.close()


@pytest.fixture
def store(make_store: StoreFactory) -> Any:
    """One store of each kind, so one contract suite runs against all five."""
    return make_store(CONTRACT_LIMITS)


def new_id() -> str:
    return uuid.uuid4().hex


AppFactory = Callable[..., Awaitable[TestClient[web.Request, web.Application]]]


STORE_KINDS = ("memory", "redis", "cluster")


@pytest.fixture(params=STORE_KINDS)
def store_kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def once_per_store(
    rows: Sequence[Any], ids: Sequence[str], kind: Callable[[Any], Hashable] = lambda row: None
) -> list[Any]:
    """The rows of a table test on `client`, each as (store_kind, *row): the first row of each
    `kind` (a refusal's status, say; by default the first row alone) on every store, the others
    on the embedded store alone. The rows test the rules or a request's checks, which are the
    same on every store; what a store gets wrong (a key, a value it refuses, a write half made)
    shows on one row as well as on forty. Use it as
    `parametrize(("store_kind", "case", ...), once_per_store(CASES, ids))`."""
    seen: set[Hashable] = set()
    params = []
    for row, row_id in zip(rows, ids, strict=True):
        values = row if isinstance(row, tuple) else (row,)
        stores = ("memory",) if kind(row) in seen else STORE_KINDS
        seen.add(kind(row))
        params += [pytest.param(store, *values, id=f"{store}-{row_id}") for store in stores]
    return params


def refusals_once_per_store(rows: Sequence[tuple[Any, ...]]) -> list[Any]:
    """Refusals as rows of (..., status, path): each status on every store, its other rows on the
    embedded store alone (once_per_store), each named by its status and path."""
    return once_per_store(rows, [f"{row[-2]} {row[-1]}" for row in rows], kind=lambda row: row[-2])


@pytest.fixture
def make_client(aiohttp_client: Any, request: pytest.FixtureRequest) -> AppFactory:
    """A test client on a fresh app; `redis=True` puts it on the real Redis.

    It sends the admin key (which acts as GM on every encounter) unless a test sends its own
    Authorization header, or `admin=False`."""

    async def make(
        *, redis: bool = False, cluster: bool = False, admin: bool = True, **overrides: Any
    ) -> Any:
        if redis:
            overrides["redis_url"] = request.getfixturevalue("redis_url")
        if cluster:
            overrides["redis_url"] = request.getfixturevalue("redis_cluster_url")
            overrides["redis_cluster"] = True
        overrides.setdefault("encounter_ttl_seconds", TEST_TTL_SECONDS)
        overrides.setdefault("admin_key", ADMIN_KEY)
        # Tests fire faster than any table; the rate limit has its own tests.
        overrides.setdefault("rate_limit_per_second", 0)
        overrides.setdefault("refusals_per_second", 0)
        headers = {"Authorization": f"Bearer {ADMIN_KEY}"} if admin else {}
        return await aiohttp_client(create_app(Config(**overrides)), headers=headers)

    return make


@pytest.fixture
async def client(make_client: AppFactory, store_kind: str) -> Any:
    """The app on the embedded store, on the real Redis and on a real Redis Cluster."""
    return await make_client(redis=store_kind == "redis", cluster=store_kind == "cluster")


@pytest.fixture
async def memory_client(make_client: AppFactory) -> Any:
    """The app on the embedded store alone: for the many table rows that test the rules, not
    the store."""
    return await make_client()


@pytest.fixture
async def anonymous(make_client: AppFactory, store_kind: str) -> Any:
    """A client that sends no credentials of its own."""
    return await make_client(
        redis=store_kind == "redis", cluster=store_kind == "cluster", admin=False
    )


@pytest.fixture(params=["memory", "redis"])
async def store_client(make_client: Any, request: pytest.FixtureRequest) -> Any:
    """The app on the embedded store and on the real Redis."""
    return await make_client(redis=request.param == "redis")


# --- the browser tests' Chromium and service (tests/console_browser.py, tests/test_console*.py)


@pytest.fixture(scope="session")
def chromium() -> Iterator[Browser]:
    """Chromium, once for each pytest-xdist worker (each browser test opens contexts of its own,
    closed after it: tests/test_console.py's `browser`); under CI its absence fails the tests
    instead of skipping them. Launched once per test file, it cost the suite 17 launches."""
    from tests import console_browser as console

    missing = console.chromium_missing()
    if missing:
        if IN_CI:
            pytest.fail(missing)
        pytest.skip(missing)
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=15_000)
    with sync_playwright() as playwright:
        launched = console.launch(playwright)
        yield launched
        launched.close()


@pytest.fixture(scope="session")
def console_service() -> Iterator[str]:
    """`python -m service` as `make run` serves it, once for each pytest-xdist worker: the
    browser tests make encounters and campaigns of their own on it (the tests that restart a
    service, or set it up otherwise, start their own)."""
    from tests import console_browser as console

    with console.serve() as served:
        yield served

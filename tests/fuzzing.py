"""What the fuzzing of the OpenAPI document shares: schemathesis' configuration, the service it
runs against (on the embedded store or the real Redis, with encounters and a campaign to aim at),
and how a case is aimed and credentialed.

The passes are split over several test files (tests/test_fuzz_*.py) so that pytest-xdist runs
them side by side: each file starts its own service. tests/test_fuzz.py checks that the document
fuzzed is the one served and pins what the fuzzing found.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import importlib
import json
import threading
import zlib
from collections.abc import Coroutine, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import pytest
import requests
import schemathesis
from aiohttp import web
from hypothesis import strategies as hypothesis_strategies
from schemathesis import Case
from schemathesis.config import ProjectConfig
from schemathesis.core import NotSet
from schemathesis.core.parameters import ParameterLocation
from schemathesis.generation.meta import CoveragePhaseData
from schemathesis.generation.modes import GenerationMode

from service.api import create_app
from service.api.openapi import document
from service.config import Config
from tests import sr5_requests as make
from tests.conftest import ADMIN_KEY, TEST_TTL_SECONDS

# What the fuzzing leaves in the shared Redis still expires, within the hour.
FUZZ_TTL_SECONDS = 6 * TEST_TTL_SECONDS

T = TypeVar("T")
ADMIN = f"Bearer {ADMIN_KEY}"

# Statuses a schema-valid request may get besides a success. The defaults would call a 410 or 422
# a rejected valid request; here they answer state, not shape: an ended encounter refuses every
# change (410), and the rules refuse what the schema cannot know (422: out of ammo, out of range,
# too many actors, an Idempotency-Key used before for another body). 5xx is NOT in the list.
POSITIVE_STATUSES = ["2xx", "401", "403", "404", "409", "410", "422", "429"]
# Statuses that count as refusing a schema-violating request: the defaults plus 410 (an ended
# encounter refuses everything, whatever the body) and 413.
NEGATIVE_STATUSES = [
    "400",
    "401",
    "403",
    "404",
    "405",
    "406",
    "409",
    "410",
    "413",
    "415",
    "422",
    "428",
    "429",
]


def _generation(examples: int, admin: bool) -> dict[str, Any]:
    return {
        "max-examples": examples,
        "deterministic": True,
        # No example database: a run never depends on an earlier one.
        "database": "none",
        # The second pass draws its own credentials: schemathesis generating (or leaving out,
        # as negative data) the `bearer` header would be undone by them.
        "with-security-parameters": admin,
    }


def _config(*, examples: int, admin: bool, coverage: bool) -> schemathesis.Config:
    return schemathesis.Config.from_dict(
        {
            # With `deterministic` below, the same cases every run (the coverage phase too).
            "seed": 20261130,
            # The admin key for the document's `bearer` scheme: schemathesis sends it as
            # configured auth, so its ignored_auth check also tries each operation without it.
            **({"auth": {"openapi": {"bearer": {"bearer": ADMIN_KEY}}}} if admin else {}),
            "request-timeout": 10,
            "generation": _generation(examples, admin),
            # Nothing learned from responses: ids, tokens and rolled dice differ run to run, and
            # cases built from them would too. Encounters are aimed at by `Service.aim` instead.
            "phases": {
                "examples": {"extra-data-sources": {"responses": False}},
                # The coverage phase (boundary and invalid values, unexpected methods) once, in
                # the first pass on the embedded store: the second is about credentials, the
                # one on Redis about the store.
                "coverage": {"enabled": coverage, "extra-data-sources": {"responses": False}},
                "fuzzing": {
                    "extra-data-sources": {"responses": False},
                    "error-feedback": {"enabled": False},
                },
            },
            # Every built-in check stays on (not_a_server_error, status_code_conformance,
            # content_type_conformance, response_schema_conformance, response_headers_conformance,
            # negative_data_rejection, positive_data_acceptance, missing_required_header,
            # ignored_auth, unsupported_method, ...); two get this service's expectations.
            "checks": {
                "positive_data_acceptance": {"expected-statuses": POSITIVE_STATUSES},
                "negative_data_rejection": {"expected-statuses": NEGATIVE_STATUSES},
            },
            "operations": [
                {
                    "include-path": path,
                    "checks": {
                        "positive_data_acceptance": {
                            "expected-statuses": [*POSITIVE_STATUSES, "400"]
                        }
                    },
                    # The campaigns' bodies are the scene's (a sheet, a monitor), fuzzed in full
                    # on the scene's routes: a third of the cases here keeps the suite short.
                    **(
                        {"generation": _generation(max(examples // 3, 5), admin)}
                        if path.startswith("/v1/campaigns")
                        else {}
                    ),
                }
                for path in VALID_YET_400
            ],
        }
    )


# Operations where a schema-valid request may still rightly get a 400:
VALID_YET_400 = (
    # Given dice are checked against the steps the request rolls, which no JSON Schema can say:
    # a valid-looking `dice` map may get a 400 `dice` problem (attacks, actions, zone tests).
    "/v1/encounters/{encounter}/attacks",
    "/v1/encounters/{encounter}/actions",
    "/v1/encounters/{encounter}/zones/{zone}/tests",
    # Their odds take the same bodies; and the schema's union of every ruleset's body admits
    # another ruleset's, which the encounter's ruleset refuses with a 400 naming its field (as
    # the attack does).
    "/v1/encounters/{encounter}/attacks/odds",
    "/v1/encounters/{encounter}/zones/{zone}/tests/odds",
    # The dice needs take those bodies too, one of them named (which the schema cannot require).
    "/v1/encounters/{encounter}/dice",
    "/v1/encounters/{encounter}/initiative",
    "/v1/encounters/{encounter}/initiative/actors",
    # An actor's id in the path is any string to the document but checked as an id by the route.
    "/v1/encounters/{encounter}/initiative/actors/{actor}",
    # JSON Schema counts 468461.0 as an integer; msgspec, like the service, wants an integer
    # written as one: a 400 naming the field is right for it (a state edit, or the combat state
    # a creation starts from).
    "/v1/encounters/{encounter}/state",
    "/v1/encounters",
    # The same for an actor's sheet (its numbers), set whole or in part; and an actor's or a
    # player's id in the path is any string to the document but checked as an id by the route.
    "/v1/encounters/{encounter}/actors/{actor}",
    "/v1/encounters/{encounter}/actors/{actor}/move",
    "/v1/encounters/{encounter}/actors/{actor}/import",
    "/v1/encounters/{encounter}/players/{player}",
    # The same for a monitor edit's numbers, and a pending damage's id in the path.
    "/v1/encounters/{encounter}/actors/{actor}/monitor",
    "/v1/encounters/{encounter}/actors/{actor}/monitor/pending/{damage}",
    # The campaigns' actors and players: ids in the path checked by the route, numbers in a
    # sheet or monitor, as above; a start's template count and combat state.
    "/v1/campaigns",
    "/v1/campaigns/{campaign}/actors/{actor}",
    "/v1/campaigns/{campaign}/actors/{actor}/import",
    "/v1/campaigns/{campaign}/players/{player}",
    "/v1/campaigns/{campaign}/encounters",
    # An encounter's end: `carry` is a list in a string.
    "/v1/encounters/{encounter}",
)


class _SettledConfig(ProjectConfig):
    """The schema's configuration, each operation's and phase's share worked out once.

    Schemathesis (4.32) merges the per-operation entries of `_config` (`VALID_YET_400`) into
    the project's for every case it sends and checks, twice a case: profiled on the coverage
    phase's cases, a third of each case's CPU (10 ms a case, the service's share of it 1 ms).
    The configuration never changes once the schema is loaded, so each merge is kept: the same
    checks with the same settings, once per operation and phase instead of once per case."""

    __slots__ = ()

    def phases_for(self, *, operation: Any = None) -> Any:
        return _settled(
            self,
            "phases",
            operation,
            None,
            lambda: super(_SettledConfig, self).phases_for(operation=operation),
        )

    def generation_for(self, *, operation: Any = None, phase: str | None = None) -> Any:
        return _settled(
            self,
            "generation",
            operation,
            phase,
            lambda: super(_SettledConfig, self).generation_for(operation=operation, phase=phase),
        )

    def checks_config_for(self, *, operation: Any = None, phase: str | None = None) -> Any:
        return _settled(
            self,
            "checks",
            operation,
            phase,
            lambda: super(_SettledConfig, self).checks_config_for(operation=operation, phase=phase),
        )


# (the configuration's id, what, the operation's label, the phase) -> (the configuration, its
# merge): the configuration is held, so its id is never another's.
_SETTLED: dict[tuple[int, str, str | None, str | None], tuple[ProjectConfig, Any]] = {}


def _settled(
    config: ProjectConfig, kind: str, operation: Any, phase: str | None, merge: Any
) -> Any:
    key = (id(config), kind, None if operation is None else operation.label, phase)
    if key not in _SETTLED:
        _SETTLED[key] = (config, merge())
    return _SETTLED[key][1]


# What the coverage phase made of a body schema, by everything it was made from: the values are
# a function of those (the phase is deterministic), so an operation whose body schema another's
# equals gets copies of that one's instead of making them again (the odds previews take their
# play routes' bodies: about a tenth of the first pass's CPU on the play routes).
# It wraps a private function of schemathesis 4.32: where a later 4.x has none of that name,
# nothing is wrapped and every operation makes its own values, as before (the same cases).
_BODY_VALUES: dict[str, list[Any]] = {}
try:
    _coverage_operation: Any = importlib.import_module(
        "schemathesis.specs.openapi.coverage._operation"
    )
except ImportError:
    _coverage_operation = None
_made_body_values = getattr(_coverage_operation, "drop_negatives_any_draft_admits", None)


def _body_values(context: Any, schema: Any, values: Iterator[Any]) -> Iterator[Any]:
    """Schemathesis' (4.32) body values of the coverage phase, each body schema's made once."""
    key = json.dumps(
        [
            schema,
            str(context.location),
            context.media_type,
            [str(mode) for mode in context.generation_modes],
            context.is_required,
            context.allow_extra_parameters,
            context.validator_cls.__name__,
            sorted((name, repr(strategy)) for name, strategy in context.custom_formats.items()),
            getattr(context.update_pattern, "__qualname__", None),
        ],
        sort_keys=True,
        default=repr,
    )
    if key not in _BODY_VALUES:
        assert _made_body_values is not None  # wrapped only when there
        _BODY_VALUES[key] = list(_made_body_values(context, schema, values))
        return iter(_BODY_VALUES[key])
    # Copies: each case holds its own body.
    return iter(copy.deepcopy(_BODY_VALUES[key]))


if _made_body_values is not None:
    _coverage_operation.drop_negatives_any_draft_admits = _body_values


class _KeptObjects:
    """Hypothesis' strategies, but `fixed_dictionaries` made once per set of keys and values.

    Schemathesis (4.32) draws every JSON object of a generated case through a new
    `st.fixed_dictionaries` of the keys it picked for it (`_drawn_object`, `_named_object`), and
    Hypothesis builds and validates each new strategy (its emptiness, over the subtree) at its
    first draw. The same keys with the same value strategies come back nine times in ten (5,260
    of 5,867 objects in tests/test_fuzz_admin_rest.py): kept, 3 to 6% less CPU in the admin and
    credential passes (the short one on Redis, 0 to 3%). Given the same mapping, the kept
    strategy draws exactly what a new one would: the sent cases are the same
    (`test_kept_object_strategies_draw_what_new_ones_draw`)."""

    def __init__(self, strategies: Any) -> None:
        self._strategies = strategies
        # Each key by the ids of its value strategies, kept alive in the entry beside it.
        self._kept: dict[tuple[tuple[Any, int], ...], tuple[dict[Any, Any], Any]] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._strategies, name)

    def fixed_dictionaries(self, mapping: dict[Any, Any], *, optional: Any = None) -> Any:
        if optional is not None or type(mapping) is not dict:
            return self._strategies.fixed_dictionaries(mapping, optional=optional)
        key = tuple((name, id(values)) for name, values in mapping.items())
        if key not in self._kept:
            self._kept[key] = (mapping, self._strategies.fixed_dictionaries(mapping))
        return self._kept[key][1]


# It replaces the `st` of a private module of schemathesis 4.32; where a later 4.x has no such
# module, or draws objects otherwise, nothing is replaced and every object gets a new strategy,
# as before (the same cases).
try:
    _object_drawing: Any = importlib.import_module("schemathesis.generation.jsonschema.strategy")
except ImportError:
    _object_drawing = None
if getattr(_object_drawing, "st", None) is hypothesis_strategies and hasattr(
    _object_drawing, "_drawn_object"
):
    _object_drawing.st = _KeptObjects(hypothesis_strategies)


def _schema(*, examples: int, admin: bool, coverage: bool) -> Any:
    # The document the service serves (test_the_fuzzed_document_is_the_served_one), loaded at
    # import so that pytest collects one test per operation.
    raw = json.loads(json.dumps(document()))
    config = _config(examples=examples, admin=admin, coverage=coverage)
    schema = schemathesis.openapi.from_dict(raw, config=config)
    schema.config.__class__ = _SettledConfig
    return schema


# The contract (statuses, bodies, credentials) is the same on every store, and is fuzzed in full
# on the embedded one; the pass on Redis looks for what only a store can get wrong (an id, a
# key, a value Redis refuses), with fewer cases: the module's two passes on both stores took
# five of the suite's fifteen minutes.
AS_ADMIN = _schema(examples=40, admin=True, coverage=True)
ANY_CREDENTIAL = _schema(examples=25, admin=False, coverage=False)
ON_REDIS = _schema(examples=10, admin=True, coverage=False)

# Bodies the coverage phase refuses on another operation already, through the same decoding:
# the engine decodes the body of an attack, of its odds and of its dice needs (and those of a
# zone test) with one decoder per ruleset and kind (`Encounters._asked`). An odds preview's
# refused bodies below the top level (one of the rulesets' bodies, `/anyOf/...`) are those of
# its play route, sent there; its query, headers, methods and top level stay. The dice needs
# wrap the attack's, action's or zone test's body under its name and rewrite the decoder's
# error path under it (`needs._under`): one in eight of those refused bodies stays (about
# 600, each kind's dozens of times at least). 8,140 of the phase's 40,700 cases no longer sent,
# none of them reaching a line of service/ the others do not: docs/performance.md, "Issue 28:
# the test suite".
REFUSED_ELSEWHERE = {
    "/v1/encounters/{encounter}/attacks/odds": ("/anyOf/",),
    "/v1/encounters/{encounter}/zones/{zone}/tests/odds": ("/anyOf/",),
}
DICE_NEEDS = "/v1/encounters/{encounter}/dice"
DICE_NEEDS_BODIES = ("/properties/attack/", "/properties/action/", "/properties/zone_test/")
DICE_NEEDS_KEPT = 8
# The accepted bodies of the odds previews, which their play routes decode with the same
# decoder: one in two sent (780 cases fewer). Line-traced, the half no longer sent reached no
# line of service/ and no (operation, status, problem type) the rest do not; one in four lost
# the odds' out-of-ammo 422. (The dice needs' accepted bodies all stay: one in two lost the
# zone test without its zone, which only the dice needs refuse.)
PREVIEW_BODIES = (
    "/v1/encounters/{encounter}/attacks/odds",
    "/v1/encounters/{encounter}/zones/{zone}/tests/odds",
)
PREVIEW_BODIES_KEPT = 2


@AS_ADMIN.hook
def filter_case(context: Any, case: Case) -> bool:
    """Whether the case is sent, in the coverage phase: all but the bodies aimed where they are
    not read (`_body_read`), the refused bodies of `REFUSED_ELSEWHERE` and most of the dice
    needs' (`DICE_NEEDS_KEPT`), half the accepted bodies of `PREVIEW_BODIES`."""
    meta = case.meta
    if meta is None:
        return True
    data = meta.phase.data
    if not isinstance(data, CoveragePhaseData) or data.parameter_location != ParameterLocation.BODY:
        return True
    seed = case_seed(case)
    path = case.operation.path
    negative = meta.generation.mode == GenerationMode.NEGATIVE
    if "{encounter}" in path and not _body_read(case, seed, negative):
        return False
    if not negative:
        return path not in PREVIEW_BODIES or _crc(seed) % PREVIEW_BODIES_KEPT == 0
    location = data.location or ""
    if path == DICE_NEEDS and location.startswith(DICE_NEEDS_BODIES):
        return _crc(seed) % DICE_NEEDS_KEPT == 0
    return not location.startswith(REFUSED_ELSEWHERE.get(path, ("\0",)))


def _body_read(case: Case, seed: str, negative: bool) -> bool:
    """Whether a case varying the body is sent where it `Service.aimed`: at a live encounter
    (a doomed one for DELETE), or, refused bodies only, at the ended one; not at a generated id.

    The service answers an unknown encounter (404) and an ended one (410) before it reads a
    body, so every case aimed there reaches what the others aimed there do; the refused bodies
    aimed at the ended encounter stay for the operations whose only 410 they are (an actor's
    move, monitor and sheet). Line-traced over both admin passes, the 6,550 cases no longer
    sent (of 34,000) reached no line of service/ and no (operation, status, problem type) that
    the cases still sent do not."""
    aimed, pool = _aim(case.method, seed)
    return aimed < pool or (aimed == pool and negative)


def _aim(method: str, seed: str) -> tuple[int, int]:
    """Where `Service.aimed` points a case at an encounter: an index into (*the pool, the ended
    encounter, the generated id), and the pool's size (the live encounters, the doomed ones for
    DELETE)."""
    pool = DOOMED_ENCOUNTERS if method.upper() == "DELETE" else LIVE_ENCOUNTERS
    return _crc(seed) % (pool + 2), pool


def _crc(seed: str) -> int:
    return zlib.crc32(seed.encode("utf-8", "surrogatepass"))


# --- the service under test ----------------------------------------------------------------

# The encounters a case may be aimed at (`Service.aimed`): those that stay live, and those
# DELETE may end.
LIVE_ENCOUNTERS = 3
DOOMED_ENCOUNTERS = 4


@dataclass(frozen=True)
class Encounter:
    id: str
    gm: str
    player: str


@dataclass(frozen=True)
class Campaign:
    id: str
    gm: str


@dataclass(frozen=True)
class Service:
    url: str
    session: requests.Session
    # Encounters that stay live, one that has ended, and the ones DELETE may end.
    live: tuple[Encounter, ...]
    ended: Encounter
    doomed: tuple[Encounter, ...]
    campaign: Campaign

    @contextlib.contextmanager
    def aimed(self, case: Case, seed: str) -> Iterator[Encounter | None]:
        """Points the case at a real encounter, or leaves the generated id (a 404) in place.

        The case gets its own path back afterwards: the coverage phase's cases are explicit
        examples, the same objects for both stores."""
        path = case.path_parameters or {}
        target = None
        if "campaign" in path and _pick((True, True, False), f"campaign {seed}"):
            # The campaign's routes reach the one campaign most of the time (its GM's token is
            # among the credentials the second pass draws).
            case.path_parameters = {**path, "campaign": self.campaign.id}
            try:
                yield None
            finally:
                case.path_parameters = path
            return
        if "encounter" in path:
            pool = self.doomed if case.method.upper() == "DELETE" else self.live
            aimed, size = _aim(case.method, seed)
            assert len(pool) == size, (len(pool), size)
            target = (*pool, self.ended, None)[aimed]
        if target is None:
            yield None
            return
        # Assigned, not changed in place, so schemathesis re-reads what the case now holds.
        case.path_parameters = {**path, "encounter": target.id}
        try:
            yield target
        finally:
            case.path_parameters = path

    def check(self, case: Case) -> None:
        """A case as the admin: aimed, sent and checked against the document."""
        with self.aimed(case, case_seed(case)):
            case.call_and_validate(base_url=self.url, session=self.session)

    def credential(self, seed: str, target: Encounter | None) -> str | None:
        """The Authorization header a case of the second pass sends; None: no header."""
        other = self.live[0] if target != self.live[0] else self.live[1]
        choices: list[str | None] = [
            None,
            "Basic Zm9vOmJhcg==",
            "Bearer",
            "Bearer not-a-token",
            f"Bearer {other.gm}",
            ADMIN,
            f"Bearer {self.campaign.gm}",
        ]
        if target is not None:
            choices += [f"Bearer {target.player}", f"Bearer {target.gm}"]
        return _pick(choices, f"credential {seed}")


def case_seed(case: Case) -> str:
    """What the choices for a case are drawn from: the case as generated (so, before `aim`).
    The whole of it, not the generated id alone: the coverage phase varies the body under one
    id, and its cases should not all land on the same encounter."""
    body = None if isinstance(case.body, NotSet) else case.body  # NotSet's repr has an address
    return repr((case.path_parameters, case.query, body))


def _pick(choices: Sequence[T], seed: str) -> T:
    """A choice that depends only on `seed`: derandomized generation makes the same ones."""
    return choices[_crc(seed) % len(choices)]


@contextlib.contextmanager
def _serving(config: Config) -> Iterator[str]:
    """The app on a free port, run by its own event loop in a thread."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="fuzzed-service", daemon=True)
    thread.start()

    def run(coroutine: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, loop).result(timeout=30)

    runner = web.AppRunner(create_app(config), access_log=None)
    try:
        run(runner.setup())
        run(web.TCPSite(runner, "127.0.0.1", 0).start())
        host, port = runner.addresses[0][:2]
        yield f"http://{host}:{port}"
    finally:
        run(runner.cleanup())
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        loop.close()


def _encounter(session: requests.Session, url: str) -> Encounter:
    response = session.post(
        f"{url}/v1/encounters",
        json={"ruleset": "sr5", "name": "fuzzed"},
        headers={"Authorization": ADMIN},
        timeout=10,
    )
    assert response.status_code == 201, response.text
    body = response.json()
    return Encounter(body["id"], body["tokens"]["gm"], body["tokens"]["player"])


def _campaign(session: requests.Session, url: str) -> Campaign:
    """A campaign with a character and a template, to aim the campaigns' routes at."""
    response = session.post(
        f"{url}/v1/campaigns",
        json={"ruleset": "sr5", "name": "fuzzed"},
        headers={"Authorization": ADMIN},
        timeout=10,
    )
    assert response.status_code == 201, response.text
    campaign = Campaign(response.json()["id"], response.json()["token"])
    for actor, body in (
        ("sam", {"name": "Sam", "sheet": {"ruleset": "sr5", "body": 4}}),
        ("ganger", {"kind": "template", "name": "Ganger"}),
    ):
        put = session.put(
            f"{url}/v1/campaigns/{campaign.id}/actors/{actor}",
            json=body,
            headers={"Authorization": f"Bearer {campaign.gm}"},
            timeout=10,
        )
        assert put.status_code == 201, put.text
    return campaign


def _play(session: requests.Session, url: str, encounter: Encounter) -> None:
    """An attack, an action and an advance, so states and event pages carry every result kind."""
    for path, body in (
        ("attacks", make.attack(seed=7)),
        ("actions", {"actor": "sam", "action": "other"}),
        ("advance", {"to": "initiative_pass"}),
    ):
        response = session.post(
            f"{url}/v1/encounters/{encounter.id}/{path}",
            json=body,
            headers={"Authorization": f"Bearer {encounter.gm}"},
            timeout=10,
        )
        assert response.status_code == 201, response.text


def _service(redis_url: str | None) -> Iterator[Service]:
    """The service on the embedded store (no `redis_url`) or the real Redis, with encounters
    and a campaign to aim at."""
    config = Config(
        admin_key=ADMIN_KEY,
        # The fuzzer changes one encounter far faster than a table; 429 has its own tests.
        rate_limit_per_second=0,
        refusals_per_second=0,
        # The encounters aimed at are made once for the module, whose passes may outlast
        # TEST_TTL_SECONDS on a loaded machine (a live one expired: a 404 where a 200 was due).
        encounter_ttl_seconds=FUZZ_TTL_SECONDS,
        redis_url=redis_url,
    )
    with _serving(config) as url, requests.Session() as session:
        # No proxy, netrc or CA bundle from the environment for a service on 127.0.0.1:
        # requests looked them up again for every case (a tenth of a case's CPU).
        session.trust_env = False
        live = tuple(_encounter(session, url) for _ in range(LIVE_ENCOUNTERS))
        for encounter in live[:2]:
            _play(session, url, encounter)
        ended = _encounter(session, url)
        _play(session, url, ended)
        ending = session.delete(
            f"{url}/v1/encounters/{ended.id}", headers={"Authorization": ADMIN}, timeout=10
        )
        assert ending.status_code == 204, ending.text
        doomed = tuple(_encounter(session, url) for _ in range(DOOMED_ENCOUNTERS))
        yield Service(url, session, live, ended, doomed, _campaign(session, url))


@pytest.fixture(scope="module")
def memory_service() -> Iterator[Service]:
    """The service on the embedded store."""
    yield from _service(None)


@pytest.fixture(scope="module")
def redis_service(redis_url: str) -> Iterator[Service]:
    """The service on the real Redis."""
    yield from _service(redis_url)


@pytest.fixture(params=["memory", "redis"])
def service(request: pytest.FixtureRequest) -> Service:
    """The service on the embedded store and on the real Redis (one of each per module)."""
    return request.getfixturevalue(f"{request.param}_service")


# The campaigns' routes, left out of the pass on Redis (tests/test_campaigns.py checks their
# store behaviour on Redis and the cluster).
CAMPAIGNS = "^/v1/campaigns"
# The routes that roll, preview or change the combat state: the first pass as the admin fuzzes
# them in one file (tests/test_fuzz_admin_play.py) and every other route in another
# (tests/test_fuzz_admin_rest.py), about half of the pass's time each, side by side.
PLAY = r"^/v1/encounters/\{encounter\}/(attacks|actions|dice|advance|initiative|undo|state|zones)"


# Each pass is one test, its operations reported one by one (subtests), its cases generated when
# it runs: generated at collection (`AS_ADMIN.parametrize()`), the coverage phase's took every
# pytest-xdist worker 40 s of CPU, for the one worker that runs the file.
@pytest.fixture(autouse=True)
def node_id_for_schemathesis(request: pytest.FixtureRequest) -> None:
    """Schemathesis' lazy tests (4.32) read the test's `_nodeid`, which pytest 9.2's nodes no
    longer have: given here, the operations' reports are named as schemathesis means them."""
    if not hasattr(request.node, "_nodeid"):
        request.node._nodeid = request.node.nodeid


@pytest.fixture(scope="module")
def as_admin() -> Any:
    return AS_ADMIN


@pytest.fixture(scope="module")
def any_credential() -> Any:
    return ANY_CREDENTIAL


@pytest.fixture(scope="module")
def on_redis() -> Any:
    return ON_REDIS

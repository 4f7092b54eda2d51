"""The third pass of the fuzzing (tests/fuzzing.py), shorter, as the admin on the real Redis:
what only a store can get wrong (an id, a key, a value Redis refuses). The campaigns' routes are
left out."""

from __future__ import annotations

import schemathesis
from schemathesis import Case

from tests.fuzzing import (
    CAMPAIGNS,
    Service,
    node_id_for_schemathesis,
    on_redis,
    redis_service,
)

__all__ = ["node_id_for_schemathesis", "on_redis", "redis_service"]


@schemathesis.pytest.from_fixture("on_redis").exclude(path_regex=CAMPAIGNS).parametrize()
def test_fuzz_on_redis(case: Case, redis_service: Service) -> None:
    redis_service.check(case)

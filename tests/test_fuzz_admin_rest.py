"""The first pass of the fuzzing (tests/fuzzing.py), as the admin on the embedded store, coverage
phase included: every route but those of tests/test_fuzz_admin_play.py."""

from __future__ import annotations

import schemathesis
from schemathesis import Case

from tests.fuzzing import (
    PLAY,
    Service,
    as_admin,
    memory_service,
    node_id_for_schemathesis,
)

__all__ = ["as_admin", "memory_service", "node_id_for_schemathesis"]


@schemathesis.pytest.from_fixture("as_admin").exclude(path_regex=PLAY).parametrize()
def test_fuzz_as_admin(case: Case, memory_service: Service) -> None:
    memory_service.check(case)

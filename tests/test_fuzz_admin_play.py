"""The first pass of the fuzzing (tests/fuzzing.py), as the admin on the embedded store, coverage
phase included: the routes that roll, preview or change the combat state (`PLAY`)."""

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


@schemathesis.pytest.from_fixture("as_admin").include(path_regex=PLAY).parametrize()
def test_fuzz_as_admin(case: Case, memory_service: Service) -> None:
    memory_service.check(case)

"""The second pass of the fuzzing (tests/fuzzing.py), on the embedded store, with whatever
credential each case draws (none, malformed, another encounter's, the player's, the GM's, the
admin's), so that 401 and 403 are checked against the document too."""

from __future__ import annotations

import schemathesis
from schemathesis import Case

from tests.fuzzing import (
    Service,
    any_credential,
    case_seed,
    memory_service,
    node_id_for_schemathesis,
)

__all__ = ["any_credential", "memory_service", "node_id_for_schemathesis"]


@schemathesis.pytest.from_fixture("any_credential").parametrize()
def test_fuzz_with_any_credential(case: Case, memory_service: Service) -> None:
    seed = case_seed(case)
    with memory_service.aimed(case, seed) as target:
        # Sent as an explicit header, which ignored_auth takes for a valid credential (it then
        # checks that the operation refuses the request without it).
        credential = memory_service.credential(seed, target)
        headers = {} if credential is None else {"Authorization": credential}
        case.call_and_validate(
            base_url=memory_service.url, session=memory_service.session, headers=headers
        )

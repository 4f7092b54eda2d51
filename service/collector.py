"""Python's garbage collector set for a long-running server: what was built at start is frozen
out of every collection, and young collections are rarer, so full ones stop pausing requests.

The cyclic collector's defaults suit short scripts. A server builds everything it keeps at start
(modules, the app, its routes, the store's client) and then makes, per request, short-lived
objects that reference counting frees at once. With the defaults every full collection walked
the whole heap (the imported modules are most of it) for ten milliseconds and more, several
times a second under load (docs/performance.md, "The server process").
"""

from __future__ import annotations

import gc

# Container allocations (net of frees) between young collections: Python's 700 fires one every
# few requests, and each promotes whatever a request in flight happens to hold at that moment to
# the older generations, which then fill with the dead and are collected more often. At 20 000
# a young collection comes every few dozen requests and finds most of their objects already
# freed; the objects a collection looks at are still only those alive then.
YOUNG_THRESHOLD = 20_000
# Young collections between middle ones, and middle ones between full ones (Python's: 10, 10).
# A full collection also waits until a quarter more objects than it last kept have survived.
MIDDLE_THRESHOLD = 10
OLD_THRESHOLD = 10


def tune_for_serving() -> None:
    """Called once the app is built, before the first request: collects what starting left
    behind (so no garbage is frozen for good), moves every object alive now into the permanent
    generation that collections skip, and sets the thresholds above. In a process about to fork
    workers it also keeps the collector from writing to the pages the workers share."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, MIDDLE_THRESHOLD, OLD_THRESHOLD)

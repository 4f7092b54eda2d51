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

# Container allocations (net of frees) between young collections. Python's 700 is reached by
# the objects of the requests in flight alone, so a young collection came several times a
# second, each promoting those objects (alive for a moment longer) to the older generations,
# which then filled with the dead and were collected in turn. From 5 000 up a young collection
# came about once in 20 s at 400 requests/s (docs/performance.md); 10 000 leaves room for
# bursts with more requests in flight, and a collection still walks only what is alive then.
YOUNG_THRESHOLD = 10_000
# Young collections between middle ones, and middle ones between full ones: Python's own, kept.
# Once start is frozen a full collection walks only what survived since (a few milliseconds
# where it was tens), and it also waits until a quarter more objects than it last kept have
# survived; making it rarer still would only let cyclic garbage grow.
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

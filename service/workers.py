"""`--workers N`: N processes serving one port (SO_REUSEPORT), each its own event loop and app,
under one supervising process.

The supervisor forks the workers once everything is imported, forwards SIGTERM and SIGINT to
them (each then shuts down gracefully, as a single process does) and exits 0 when all have
stopped. A worker that stops by itself takes the service down: the supervisor stops the others
and exits 1, and whatever runs the service (systemd, Docker, Kubernetes) restarts it whole. It
does not restart workers itself: a worker that died once usually dies again, and a service that
silently serves with fewer processes than configured is harder to notice than one that stops.
A worker whose supervisor is gone (killed with SIGKILL) shuts down gracefully by itself.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import traceback
from collections.abc import Callable
from types import FrameType

import structlog

from service.collector import tune_for_serving

# What the supervisor forwards; anything else reaches it alone.
FORWARDED = (signal.SIGTERM, signal.SIGINT)
# A worker's own exit code when its work raised.
FAILED = 1


def supervise(count: int, work: Callable[[int, int], int], gc_tuning: bool = True) -> int:
    """Runs `work(index, supervisor_gone_fd)` in `count` forked processes; the exit code.

    `supervisor_gone_fd` is the read end of a pipe whose write end only the supervisor holds:
    it becomes readable (end of file) when the supervisor is gone, however it went."""
    log = structlog.get_logger("firefight")
    gone_read, gone_write = os.pipe()
    if gc_tuning:
        # Objects alive now are the workers' shared start: frozen, no collection in a worker
        # writes to their pages, and forking them costs no copies.
        tune_for_serving()
    workers: dict[int, int] = {}  # pid -> worker index
    stopping: list[int] = []  # the signal forwarded, once one was

    def forward(signum: int, frame: FrameType | None) -> None:
        stopping.append(signum)
        for pid in workers:
            _signal(pid, signum)

    # Blocked while forking: a signal cannot reach the supervisor before it knows its workers,
    # nor a new worker before it has put back the default handlers.
    signal.pthread_sigmask(signal.SIG_BLOCK, FORWARDED)
    try:
        for index in range(count):
            pid = os.fork()
            if pid == 0:
                os.close(gone_write)
                _run_worker(index, gone_read, work)
            workers[pid] = index
        for signum in FORWARDED:
            signal.signal(signum, forward)
    except OSError as error:
        # Could not fork them all: the ones started are stopped below.
        log.error("workers_not_started", error=str(error), started=len(workers))
        stopping.append(signal.SIGTERM)
        for pid in workers:
            _signal(pid, signal.SIGTERM)
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, FORWARDED)
    os.close(gone_read)
    log.info("workers_started", workers=len(workers), pids=sorted(workers))

    failed = len(workers) < count
    while workers:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            break
        if pid not in workers:
            continue
        index = workers.pop(pid)
        code = os.waitstatus_to_exitcode(status)
        # A worker told to stop before it had put up its own handlers dies of the signal.
        expected = bool(stopping) and code in (0, *(-s for s in stopping))
        if not expected:
            failed = True
            log.error("worker_exited", worker=index, pid=pid, exit_code=code)
            if not stopping:
                stopping.append(signal.SIGTERM)
                for other in workers:
                    _signal(other, signal.SIGTERM)
    os.close(gone_write)
    return FAILED if failed else 0


def _signal(pid: int, signum: int) -> None:
    # One that exited already is let be: waitpid tells why.
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signum)


def _run_worker(index: int, gone_fd: int, work: Callable[[int, int], int]) -> None:
    """The forked worker's whole life: it never returns into the supervisor's code."""
    code = FAILED
    try:
        for signum in FORWARDED:
            signal.signal(signum, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, FORWARDED)
        code = work(index, gone_fd)
    except BaseException:
        traceback.print_exc()
    finally:
        # os._exit: the supervisor's atexit handlers and buffers are not the worker's to run.
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(code)

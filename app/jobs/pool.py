"""Solves run in solver processes (app.jobs.processes), never in the API's event loop or its
threads: the heuristics are numpy/Python code that holds the GIL for long stretches, so a solve
in a thread would make /health wait. What crosses the process boundary is pickled: the checked
`PlanSpec` going in (so nothing is validated twice), the `SolvedPlan` or an `ErrorBody` coming
back (raised again here as the same class, so the HTTP mapping is unchanged).

Two pools: `plans` (RWAOPT_SOLVER_PROCESSES processes) for plans and reproductions, and one
`quick` process for small POST /api/v1/rwa stages, so a tiny stage is not queued behind
minutes of plan solving. A call whose client went away (`disconnected`), whose job was
cancelled, or that is running at shutdown ends its solver process within POLL_S.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import tempfile
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from app.errors import ErrorBody, ShuttingDownError, error_body, from_body, internal
from app.jobs.executors import SharedExecutor
from app.jobs.processes import SolverPool
from app.persistence.store import Reproduction
from app.planning import PlanProgress, PlanSpec
from app.schemas.requests import ReproductionRequest, RwaInput, SolveSettings
from app.schemas.results import RwaResponse
from app.service import SolvedPlan, execute, reproduce, rwa
from app.settings import get_settings
from models.errors import RwaoptError
from solver.outcome import Method

T = TypeVar("T")
log = logging.getLogger(__name__)
QUICK_RWA_LIGHTPATHS = 20_000  # a /rwa stage this small goes to the quick process
Disconnected = Callable[[], Awaitable[bool]]

_pools: dict[str, SolverPool] = {}
_lock = threading.Lock()
# Threads that wait on solver processes for async callers (they only wait on a pipe).
_callers = SharedExecutor(
    lambda workers: ThreadPoolExecutor(max_workers=workers, thread_name_prefix="rwaopt-call")
)


def pool(processes: int, kind: str = "plans") -> SolverPool:
    with _lock:
        if kind not in _pools:
            _pools[kind] = SolverPool(
                processes if kind == "plans" else 1, get_settings().solve_memory_bytes()
            )
        return _pools[kind]


def shutdown() -> None:
    """End every running solve now (its job stays queued/running for the next start) and
    every solver process."""
    with _lock:
        pools = list(_pools.values())
        _pools.clear()
    for each in pools:
        each.close()
    _callers.shutdown()


def _guarded(work: Callable[[], T]) -> T | ErrorBody:
    """In the solver process: the answer, or the RwaoptError as its body; any other
    exception (a bug) is logged here with its traceback and answered as an internal error
    (500). It killed the process, which the caller reported as 503 "out of memory?" (review,
    session 34: HiGHS's infinite bound at its time limit). Running out of memory still ends
    the process, as the caller expects."""
    try:
        return work()
    except RwaoptError as error:
        return error_body(error)
    except MemoryError:
        raise
    except Exception as error:
        log.exception("solver process: unexpected error")
        return error_body(internal(error))


def _plan(spec: PlanSpec, progress: PlanProgress | None = None) -> SolvedPlan | ErrorBody:
    return _guarded(lambda: execute(spec, progress))


def _rwa(data: RwaInput, settings: SolveSettings) -> RwaResponse | ErrorBody:
    return _guarded(lambda: rwa(data, settings))


def _reproduce(request: ReproductionRequest, database_url: str) -> Reproduction | ErrorBody:
    def work() -> Reproduction:
        with tempfile.TemporaryDirectory(prefix="rwaopt-reproduction-") as out:
            cache = get_settings().reproduction_cache
            return reproduce(request, Path(out), cache, database_url)

    return _guarded(work)


def _answer(outcome: T | ErrorBody) -> T:
    if isinstance(outcome, ErrorBody):
        raise from_body(outcome)
    return outcome


def plan_in_pool(
    spec: PlanSpec,
    processes: int,
    progress: PlanProgress | None = None,
    stop: threading.Event | None = None,
) -> SolvedPlan:
    """Blocking: solve a checked plan in a solver process (raises the solver's RwaoptError);
    `progress` (picklable) runs in the solver process after each stage; setting `stop` ends
    the solve (JobCancelledError)."""
    limit = get_settings().max_solve_s
    outcome: SolvedPlan | ErrorBody = pool(processes).run(
        _plan, spec, progress, stop=stop, limit_s=limit
    )
    return _answer(outcome)


def reproduce_in_pool(
    request: ReproductionRequest, processes: int, database_url: str
) -> Reproduction:
    """Blocking: a reproduction in a solver process (its report written to a temporary
    directory; plans summarised in the database at `database_url` are reused)."""
    limit = get_settings().max_solve_s
    outcome: Reproduction | ErrorBody = pool(processes).run(
        _reproduce, request, database_url, limit_s=limit
    )
    return _answer(outcome)


async def plan_async(
    spec: PlanSpec,
    processes: int,
    disconnected: Disconnected | None = None,
    wait_s: float | None = None,
) -> SolvedPlan:
    return await _in_pool(pool(processes), disconnected, wait_s, _plan, spec)


async def rwa_async(
    data: RwaInput,
    settings: SolveSettings,
    processes: int,
    disconnected: Disconnected | None = None,
    wait_s: float | None = None,
) -> RwaResponse:
    # the quick process is for small stages solved quickly: an exact method may take its
    # whole time limit on a small stage (review, session 34: three exact calls of 8 s held
    # it 30 s in turn, and every one-demand call meanwhile waited out its 503)
    exact = settings.method in (Method.EXACT, Method.EXACT_HIGHS)
    small = sum(int(row[2]) for row in data.demands) <= QUICK_RWA_LIGHTPATHS
    target = pool(processes, "quick" if small and not exact else "plans")
    return await _in_pool(target, disconnected, wait_s, _rwa, data, settings)


# Set when the server is told to stop (SIGTERM, `rwaopt serve`): calls waiting for a solve
# (`wait=true`) end it and answer 503 shutting_down in the error format at once, instead of
# being cut off by the server's graceful-shutdown timeout with a plain-text 500.
shutting_down = threading.Event()


async def _in_pool(
    target: SolverPool,
    disconnected: Disconnected | None,
    wait_s: float | None,
    work: Callable[..., T | ErrorBody],
    *args: Any,
) -> T:
    """Run `work` in `target` from the event loop; a client that goes away or a cancelled
    request ends the solve."""
    stop = threading.Event()
    limit = get_settings().max_solve_s
    call = functools.partial(target.run, work, *args, stop=stop, wait_s=wait_s, limit_s=limit)
    future = asyncio.get_running_loop().run_in_executor(_callers.get(64), call)
    try:
        while True:
            done, _ = await asyncio.wait({future}, timeout=0.25)
            if done:
                break
            if disconnected is not None and await disconnected():
                stop.set()
            if shutting_down.is_set():
                stop.set()
                # the solve ends with JobCancelledError, which no one awaits any more: read
                # it when it comes, or asyncio logs "Future exception was never retrieved"
                future.add_done_callback(_read_exception)
                raise ShuttingDownError(
                    "the server is shutting down and this answer was not finished; nothing "
                    "was stored: send it again once the server is back (a plan posted with "
                    "wait=false is stored at once and runs again at the next start)"
                )
    except asyncio.CancelledError:
        stop.set()
        future.add_done_callback(_read_exception)
        raise
    outcome: T | ErrorBody = future.result()
    return _answer(outcome)


def _read_exception(future: asyncio.Future[Any]) -> None:
    """Mark an abandoned solve's outcome as read (its error was answered already)."""
    if not future.cancelled():
        future.exception()

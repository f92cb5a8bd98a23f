"""Solves run in a pool of solver processes, never in the API's event loop or its threads:
the heuristics are numpy/Python code that holds the GIL for long stretches, so a solve in a
thread would make /health wait. What crosses the process boundary is pickled: the checked
`PlanSpec` going in (so nothing is validated twice), the `SolvedPlan` or an `ErrorBody`
coming back (raised again here as the same class, so the HTTP mapping is unchanged).

The pool uses the 'spawn' start method: the API process runs threads (uvicorn, SQLAlchemy
pools), which 'fork' would copy in an undefined state.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import tempfile
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from app.errors import ErrorBody, SolverCrashedError, error_body, from_body
from app.jobs.executors import SharedExecutor
from app.persistence.store import Reproduction
from app.planning import PlanProgress, PlanSpec
from app.schemas.requests import ReproductionRequest, RwaInput, SolveSettings
from app.schemas.results import RwaResponse
from app.service import SolvedPlan, execute, reproduce, rwa
from app.settings import get_settings
from models.errors import RwaoptError

T = TypeVar("T")


def _stdout_to_stderr() -> None:
    """In each solver process: the solvers' C++ code (HiGHS) prints debug lines straight to
    file descriptor 1; send them to stderr, so `rwaopt sweep > results.csv` stays CSV."""
    os.dup2(2, 1)


_pool = SharedExecutor(
    lambda processes: ProcessPoolExecutor(
        processes, mp_context=multiprocessing.get_context("spawn"), initializer=_stdout_to_stderr
    )
)


def pool(processes: int) -> ProcessPoolExecutor:
    return _pool.get(processes)


def shutdown() -> None:
    """Cancel solves not started yet; wait for the running ones."""
    _pool.shutdown()


def _guarded(work: Callable[[], T]) -> T | ErrorBody:
    """In the solver process: the answer, or the RwaoptError as its body."""
    try:
        return work()
    except RwaoptError as error:
        return error_body(error)


def _plan(spec: PlanSpec, progress: PlanProgress | None = None) -> SolvedPlan | ErrorBody:
    return _guarded(lambda: execute(spec, progress))


def _rwa(data: RwaInput, settings: SolveSettings) -> RwaResponse | ErrorBody:
    return _guarded(lambda: rwa(data, settings))


def _reproduce(request: ReproductionRequest) -> Reproduction | ErrorBody:
    def work() -> Reproduction:
        with tempfile.TemporaryDirectory(prefix="rwaopt-reproduction-") as out:
            return reproduce(request, Path(out), get_settings().reproduction_cache)

    return _guarded(work)


def _answer(outcome: T | ErrorBody) -> T:
    if isinstance(outcome, ErrorBody):
        raise from_body(outcome)
    return outcome


def plan_in_pool(
    spec: PlanSpec, processes: int, progress: PlanProgress | None = None
) -> SolvedPlan:
    """Blocking: solve a checked plan in the pool (raises the solver's RwaoptError);
    `progress` (picklable) runs in the solver process after each stage."""
    with _crash_guard():
        return _answer(pool(processes).submit(_plan, spec, progress).result())


def reproduce_in_pool(request: ReproductionRequest, processes: int) -> Reproduction:
    """Blocking: a reproduction in the pool (its report written to a temporary directory)."""
    with _crash_guard():
        return _answer(pool(processes).submit(_reproduce, request).result())


async def plan_async(spec: PlanSpec, processes: int) -> SolvedPlan:
    with _crash_guard():
        outcome = await asyncio.wrap_future(pool(processes).submit(_plan, spec))
    return _answer(outcome)


async def rwa_async(data: RwaInput, settings: SolveSettings, processes: int) -> RwaResponse:
    with _crash_guard():
        outcome = await asyncio.wrap_future(pool(processes).submit(_rwa, data, settings))
    return _answer(outcome)


@contextmanager
def _crash_guard() -> Iterator[None]:
    """A solver process that dies (e.g. killed for memory) breaks the pool: start a new one
    next time and tell the caller."""
    try:
        yield
    except BrokenProcessPool:
        shutdown()
        raise SolverCrashedError(
            "the solver process died (out of memory?); try a smaller ring or the heuristic method"
        ) from None

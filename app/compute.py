"""Solves run in a pool of solver processes, never in the API's event loop or its threads:
the heuristics are numpy/Python code that holds the GIL for long stretches, so a solve in a
thread would make /health wait. Arguments and results cross the process boundary as plain
JSON-ready data and bytes.

The pool uses the 'spawn' start method: the API process runs threads (uvicorn, SQLAlchemy
pools), which 'fork' would copy in an undefined state.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import threading
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from typing import Any, Literal, cast

from app.errors import SolverCrashedError, error_body, from_body
from app.persistence.store import Solution
from app.plans import execute, spec_from_request
from app.schemas import ErrorBody, PlanRequest, RwaInput
from app.service import rwa, rwa_payload
from models.errors import RwaoptError
from models.ring import Ring

PlanOutcome = tuple[dict[str, Any], list[Solution], float]

_pool: ProcessPoolExecutor | None = None
_lock = threading.Lock()


def pool(processes: int) -> ProcessPoolExecutor:
    global _pool
    with _lock:
        if _pool is None:
            _pool = ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("spawn"))
        return _pool


def shutdown() -> None:
    """Cancel solves not started yet; wait for the running ones."""
    global _pool
    with _lock:
        executor, _pool = _pool, None
    if executor is not None:
        executor.shutdown(wait=True, cancel_futures=True)


# In the solver process: the answer, or the RwaoptError as its body (same class on return).
Outcome = tuple[Literal["ok"], Any] | tuple[Literal["error"], ErrorBody]


def _plan(request: dict[str, Any]) -> Outcome:
    try:
        return "ok", execute(spec_from_request(PlanRequest.model_validate(request)))
    except RwaoptError as error:
        return "error", error_body(error)


def _rwa(body: dict[str, Any], method: str, time_limit_s: float) -> Outcome:
    data = RwaInput.model_validate(body)
    try:
        stage, result = rwa(data, method, time_limit_s)
    except RwaoptError as error:
        return "error", error_body(error)
    return "ok", rwa_payload(stage, result, Ring(data.nodes, data.fibers, data.wavelengths))


def _answer(outcome: Outcome) -> Any:
    kind, value = outcome
    if kind == "error":
        raise from_body(value)
    return value


def plan_here(request: dict[str, Any]) -> PlanOutcome:
    """Solve a plan request in this process (an RQ work horse is a process of its own)."""
    return cast(PlanOutcome, _answer(_plan(request)))


def plan_in_pool(request: dict[str, Any], processes: int) -> PlanOutcome:
    """Blocking: solve a plan request in the pool (raises the solver's RwaoptError)."""
    with _crash_guard():
        return cast(PlanOutcome, _answer(pool(processes).submit(_plan, request).result()))


async def plan_async(request: dict[str, Any], processes: int) -> PlanOutcome:
    with _crash_guard():
        outcome = await asyncio.wrap_future(pool(processes).submit(_plan, request))
    return cast(PlanOutcome, _answer(outcome))


async def rwa_async(
    body: dict[str, Any], method: str, time_limit_s: float, processes: int
) -> dict[str, Any]:
    with _crash_guard():
        outcome = await asyncio.wrap_future(
            pool(processes).submit(_rwa, body, method, time_limit_s)
        )
    return cast(dict[str, Any], _answer(outcome))


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

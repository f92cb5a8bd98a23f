"""The per-solve memory budget (issue 27, item 10): a plan estimated past it is refused up
front with the largest ring that fits; a solve that grows past it anyway is ended with a 413,
not killed by the kernel; the RQ work horse fails its job before the out-of-memory killer."""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import rq
from fastapi.testclient import TestClient

from app.jobs import queue
from app.jobs.processes import SolverPool, resident_bytes
from app.persistence.store import PlanStore
from app.planning import prepare
from app.schemas.requests import PlanRequest
from app.settings import get_settings
from models.errors import LimitExceededError
from solver.memory import all_choices, estimate_mb


def _request(nodes: int, algorithms: list[str] | str, shape: str = "paper") -> PlanRequest:
    return PlanRequest.model_validate(
        {
            "ring": {"nodes": nodes, "wavelengths_per_fiber": 64},
            "collective": "allgather",
            "algorithms": algorithms,
            "message_sizes_bytes": [4 * 2**20],
            "shape": shape,
        }
    )


@pytest.fixture
def budget(monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    monkeypatch.setenv("RWAOPT_SOLVE_MEMORY_MB", "512")
    get_settings.cache_clear()
    yield 512
    get_settings.cache_clear()


def test_a_plan_past_the_budget_is_refused_with_the_largest_ring_that_fits(budget: int) -> None:
    with pytest.raises(LimitExceededError) as refused:
        prepare(_request(4096, ["osm"]))
    detail = refused.value.detail
    estimated = detail["estimated_mb"]
    assert detail["budget_mb"] == budget and isinstance(estimated, int) and estimated > budget
    assert "RWAOPT_SOLVE_MEMORY_MB" in refused.value.message
    fits = detail["largest_nodes"]
    assert isinstance(fits, int) and 2 <= fits < 4096
    assert f"N = {fits}" in refused.value.message
    prepare(_request(fits, ["osm"]))  # what it names is admitted
    assert estimate_mb("allgather", fits, [("osm", False)]) <= budget
    assert estimate_mb("allgather", fits + 1, [("osm", False)]) > budget
    with pytest.raises(LimitExceededError):
        prepare(_request(fits + 1, ["osm"]))


def test_n_8192_is_accepted_by_the_schema_and_admitted_or_refused_by_memory(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """N = 8192 passes the request schema. With a budget just below the default all-gather's
    estimate there (every algorithm, best shapes) the plan is refused up front, naming a
    ring between 4096 and 8192 that fits; with one just above it, it is admitted."""
    best = estimate_mb("allgather", 8192, all_choices("allgather", True))
    for budget, admitted in ((0.97 * best, False), (1.01 * best, True)):
        monkeypatch.setenv("RWAOPT_SOLVE_MEMORY_MB", str(int(budget)))
        get_settings.cache_clear()
        try:
            if admitted:
                prepare(_request(8192, "all", shape="best"))
                continue
            with pytest.raises(LimitExceededError) as refused:
                prepare(_request(8192, "all", shape="best"))
            assert 4096 < refused.value.detail["largest_nodes"] < 8192
        finally:
            get_settings.cache_clear()


def test_the_budget_defaults_to_a_share_of_the_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RWAOPT_SOLVE_MEMORY_MB", raising=False)
    monkeypatch.setenv("RWAOPT_SOLVER_PROCESSES", "4")
    get_settings.cache_clear()
    try:
        machine = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        assert get_settings().solve_memory_bytes() == int(0.8 * machine / 4)
    finally:
        get_settings.cache_clear()


def test_the_api_answers_413_and_stores_nothing(
    budget: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RWAOPT_DATABASE_URL", f"sqlite:///{tmp_path / 'm.db'}")
    get_settings.cache_clear()
    from app.main import app

    body = _request(4096, ["osm"]).model_dump(mode="json")
    with TestClient(app) as client:
        for wait in ("true", "false"):
            r = client.post(f"/api/v1/plans?wait={wait}", json=body)
            assert r.status_code == 413, r.text
            error = r.json()
            assert error["code"] == "limit_exceeded"
            assert error["detail"]["largest_nodes"] < 4096
        assert client.get("/api/v1/plans").json()["total"] == 0


def _allocate(megabytes: int) -> int:
    block = bytearray(megabytes * 2**20)
    for i in range(0, len(block), 4096):  # touch every page: resident, not just reserved
        block[i] = 1
    time.sleep(5)  # hold it: the pool must notice within MEMORY_EVERY_S
    return len(block)


def test_a_solve_growing_past_the_budget_is_ended_and_its_process_replaced() -> None:
    pool = SolverPool(1, memory_bytes=300 * 2**20)
    try:
        with pytest.raises(LimitExceededError, match="RWAOPT_SOLVE_MEMORY_MB"):
            pool.run(_allocate, 600)
        assert pool.pids() == []  # ended, not returned to the pool
        assert pool.run(len, "ok") == 2  # and replaced on next use
        (pid,) = pool.pids()
        assert 0 < resident_bytes(pid) < 300 * 2**20
    finally:
        pool.close()


def test_the_work_horse_fails_its_job_before_the_kernel_kills_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, budget: int
) -> None:
    store = PlanStore(f"sqlite:///{tmp_path / 'h.db'}")
    store.migrate()
    row = store.create(_request(8, ["ring"]))
    assert store.mark_running(row.id)
    exited = threading.Event()
    monkeypatch.setattr(rq, "get_current_job", lambda: object())
    monkeypatch.setattr("app.jobs.queue.os._exit", lambda _code: exited.set())
    monkeypatch.setattr("app.jobs.processes.resident_bytes", lambda _pid: 10 * budget * 2**20)
    with queue._horse_memory_guard(store, row.id):
        assert exited.wait(5)
    failed = store.get(row.id)
    assert failed is not None and failed.status == "failed" and failed.error is not None
    assert failed.error.code == "limit_exceeded"
    assert "RWAOPT_SOLVE_MEMORY_MB" in failed.error.message


def test_outside_a_work_horse_there_is_no_guard() -> None:
    store: Any = None
    assert isinstance(queue._horse_memory_guard(store, "x"), contextlib.nullcontext)


def test_at_the_least_budget_the_refusal_says_which_algorithms_fit_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Review (session 33): at RWAOPT_SOLVE_MEMORY_MB = 256 (the least allowed) every
    algorithm of N = 8 together was refused with '...; not even the smallest ring fits with
    these algorithms, or plan fewer algorithms'. It names the algorithms that fit alone,
    each of which then plans."""
    monkeypatch.setenv("RWAOPT_SOLVE_MEMORY_MB", "256")
    get_settings.cache_clear()
    try:
        with pytest.raises(LimitExceededError) as refused:
            prepare(_request(8, "all"))
        message = refused.value.message
        assert "not even" not in message and "; planned alone, " in message
        alone = message.split("; planned alone, ")[1].removesuffix(" fit").split(", ")
        assert "ring" in alone
        for name in alone:
            prepare(_request(8, [name]))
    finally:
        get_settings.cache_clear()

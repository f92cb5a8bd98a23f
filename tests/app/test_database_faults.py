"""Database faults are bounded (issue 27, items 2 and 3): a frozen PostgreSQL (its host still
accepts TCP and acknowledges data, nothing answers) gives 503 within the configured timeout,
on calls and on /ready, and the service recovers when it answers again; a plan whose run died
on a database error is failed with the reason (or finished) once the database answers."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError

from app.jobs import queue
from app.jobs.queue import run_plan_job
from app.persistence.store import PlanStore
from app.schemas.requests import PlanRequest
from app.settings import get_settings
from tests.app.conftest import fresh_postgres

PROXY = Path(__file__).with_name("tcp_proxy.py")
SMALL = {
    "ring": {"nodes": 8, "wavelengths_per_fiber": 2},
    "collective": "allgather",
    "algorithms": ["ring"],
    "message_sizes_bytes": [4096],
}


@contextmanager
def proxied(url: str) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """`url` reached through a TCP proxy process the test can freeze (SIGSTOP)."""
    target = make_url(url)
    proxy = subprocess.Popen(
        [sys.executable, str(PROXY), target.host or "127.0.0.1", str(target.port or 5432)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proxy.stdout is not None
        port = int(proxy.stdout.readline())
        yield target.set(port=port).render_as_string(hide_password=False), proxy
    finally:
        os.kill(proxy.pid, signal.SIGCONT)
        proxy.kill()
        proxy.wait()
        if proxy.stdout is not None:
            proxy.stdout.close()


@pytest.fixture
def frozen_setup(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[TestClient, int]]:
    with fresh_postgres() as url, proxied(url) as (via_proxy, proxy):
        monkeypatch.setenv("RWAOPT_DATABASE_URL", via_proxy)
        monkeypatch.setenv("RWAOPT_JOBS", "inline")
        monkeypatch.setenv("RWAOPT_DATABASE_STATEMENT_TIMEOUT_S", "2")
        monkeypatch.setenv("RWAOPT_DATABASE_CONNECT_TIMEOUT_S", "2")
        monkeypatch.setenv("RWAOPT_DATABASE_POOL_TIMEOUT_S", "2")
        get_settings.cache_clear()
        from app.main import app

        with TestClient(app) as client:
            yield client, proxy.pid
    get_settings.cache_clear()


def _timed(call: Callable[[], Any]) -> tuple[Any, float]:
    start = time.monotonic()
    answer = call()
    return answer, time.monotonic() - start


def test_a_frozen_postgresql_is_503_within_the_timeout_and_recovers(
    frozen_setup: tuple[TestClient, int],
) -> None:
    client, proxy_pid = frozen_setup
    made = client.post("/api/v1/plans", json=SMALL).json()
    assert made["status"] == "done"
    assert client.get("/ready").json() == {"status": "ready"}

    os.kill(proxy_pid, signal.SIGSTOP)
    try:
        for path in (f"/api/v1/plans/{made['id']}", "/api/v1/plans", "/api/v1/plans"):
            r, seconds = _timed(partial(client.get, path))
            assert r.status_code == 503, r.text
            assert r.json()["code"] == "database_unavailable" and r.headers["Retry-After"]
            assert seconds < 2 + 2 + 3, f"{path} took {seconds:.1f} s"
        r, seconds = _timed(lambda: client.get("/ready"))
        assert r.status_code == 503 and r.json()["reason"] == "database unreachable"
        assert seconds < 2 + 2 + 3
        assert client.get("/health").status_code == 200
    finally:
        os.kill(proxy_pid, signal.SIGCONT)

    r = client.get(f"/api/v1/plans/{made['id']}")
    assert r.status_code == 200 and r.json()["status"] == "done"
    assert client.get("/ready").json() == {"status": "ready"}


# --- item 2: a job whose database went away ------------------------------------------------


@pytest.fixture(params=["sqlite", "postgresql"])
def job_store(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[PlanStore]:
    monkeypatch.setattr(queue, "RETRY_FIRST_S", 0.01)
    if request.param == "sqlite":
        store = PlanStore(f"sqlite:///{tmp_path / 'jobs.db'}")
        store.migrate()
        yield store
        return
    with fresh_postgres() as url:
        store = PlanStore(url)
        store.migrate()
        yield store


def _flaky(method, failures: int):  # type: ignore[no-untyped-def]
    """`method`, raising the driver's OperationalError on its first `failures` calls."""
    calls = {"n": 0}

    def call(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] <= failures:
            raise OperationalError("SELECT", {}, Exception("server closed the connection"))
        return method(*args, **kwargs)

    return call


def test_a_result_computed_while_the_database_is_away_is_stored_once_it_answers(
    job_store: PlanStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    row = job_store.create(PlanRequest.model_validate(SMALL))
    monkeypatch.setattr(PlanStore, "finish", _flaky(PlanStore.finish, 3))
    assert run_plan_job(row.id, job_store.url) == "done"
    done = job_store.get(row.id)
    assert done is not None and done.status == "done" and done.result is not None


def test_a_run_the_database_broke_is_failed_with_the_reason_once_it_answers(
    job_store: PlanStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    row = job_store.create(PlanRequest.model_validate(SMALL))

    def broken(*_: object) -> None:
        raise OperationalError("SELECT", {}, Exception("server closed the connection"))

    monkeypatch.setattr(queue, "execute", broken)
    monkeypatch.setattr(PlanStore, "fail", _flaky(PlanStore.fail, 2))
    assert run_plan_job(row.id, job_store.url) == "failed"
    failed = job_store.get(row.id)
    assert failed is not None and failed.status == "failed" and failed.error is not None
    assert failed.error.code == "database_unavailable"
    assert "stopped answering" in failed.error.message


def test_a_job_waiting_for_the_database_stops_at_shutdown(
    job_store: PlanStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    row = job_store.create(PlanRequest.model_validate(SMALL))
    monkeypatch.setattr(PlanStore, "finish", _flaky(PlanStore.finish, 10**9))
    monkeypatch.setattr(queue, "_stopping", threading.Event())
    threading.Timer(0.3, queue._stopping.set).start()
    assert run_plan_job(row.id, job_store.url) == "interrupted"
    left = job_store.get(row.id)
    assert left is not None and left.status == "running"  # requeued at the next start


def test_a_plan_running_while_postgresql_freezes_is_done_once_it_thaws(
    frozen_setup: tuple[TestClient, int],
) -> None:
    """The probe's case: the solve ends while the database is frozen (>= the statement
    timeout); before, the plan stayed `running` until the next restart."""
    client, proxy_pid = frozen_setup
    body = dict(SMALL, ring={"nodes": 511, "wavelengths_per_fiber": 16}, algorithms=["wrht"])
    plan = client.post("/api/v1/plans?wait=false", json=body).json()
    deadline = time.monotonic() + 30
    while client.get(f"/api/v1/plans/{plan['id']}").json()["status"] == "queued":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    os.kill(proxy_pid, signal.SIGSTOP)
    time.sleep(6)  # the solve (about 1 s) ends meanwhile; its write fails and waits
    os.kill(proxy_pid, signal.SIGCONT)
    deadline = time.monotonic() + 60
    while (doc := client.get(f"/api/v1/plans/{plan['id']}").json())["status"] == "running":
        assert time.monotonic() < deadline, "the plan stayed running after the database thawed"
        time.sleep(0.2)
    assert doc["status"] == "done" and doc["result"]["algorithms"][0]["algorithm"] == "wrht"

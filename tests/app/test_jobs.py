"""Queued plans on the compose deployment's real parts: an RQ worker process reading the local
Redis, writing to the local PostgreSQL; and the job function's own edge cases."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.jobs.queue import maintenance_lease, run_plan_job
from app.persistence.store import PlanStore
from app.schemas.documents import JobStatus
from app.schemas.requests import PlanRequest
from app.settings import get_settings
from tests.app.conftest import fresh_postgres

SMALL = {
    "ring": {"nodes": 8, "wavelengths_per_fiber": 2},
    "collective": "allgather",
    "algorithms": ["ring", "optree"],
    "message_sizes_bytes": [4096],
}


@pytest.fixture(scope="module")
def rq_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    with fresh_postgres() as url:
        env = {
            "RWAOPT_DATABASE_URL": url,
            "RWAOPT_JOBS": "rq",
            "RWAOPT_QUEUE_NAME": f"rwaopt-test-{uuid.uuid4().hex[:8]}",
        }
        log = tmp_path_factory.mktemp("worker") / "worker.log"
        with log.open("wb") as out:
            worker = subprocess.Popen(
                [sys.executable, "-m", "app.cli", "worker"],
                env=dict(os.environ, **env),
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        try:
            yield env
        finally:
            worker.terminate()
            worker.wait(timeout=30)


@pytest.fixture
def rq_client(rq_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    for key, value in rq_env.items():
        monkeypatch.setenv(key, value)
    get_settings.cache_clear()
    from app.main import app

    with TestClient(app) as client:
        yield client
    get_settings.cache_clear()


def wait_until_finished(client: TestClient, plan_id: str, timeout_s: float = 120) -> Any:
    deadline = time.monotonic() + timeout_s
    while (doc := client.get(f"/api/v1/plans/{plan_id}").json())["status"] in (
        "queued",
        "running",
    ):
        assert time.monotonic() < deadline, "the worker did not finish the plan"
        time.sleep(0.2)
    return doc


def _timeless(value: Any) -> Any:
    """The document without its wall-clock fields (solve and search seconds)."""
    if isinstance(value, dict):
        return {k: _timeless(v) for k, v in value.items() if k != "seconds"}
    if isinstance(value, list):
        return [_timeless(v) for v in value]
    return value


def test_rq_worker_solves_a_queued_plan(rq_client: TestClient) -> None:
    r = rq_client.post("/api/v1/plans", json=SMALL, params={"wait": "false"})
    assert r.status_code == 202
    doc = wait_until_finished(rq_client, r.json()["id"])
    assert doc["status"] == "done", doc
    direct = rq_client.post("/api/v1/plans", json=SMALL).json()
    assert _timeless(doc["result"]) == _timeless(direct["result"])
    assert rq_client.get(f"/api/v1/plans/{doc['id']}/assignment").status_code == 200


def test_a_queued_job_carries_its_id_only(rq_client: TestClient, rq_env: dict[str, str]) -> None:
    """RQ logs a job's description (its arguments) and keeps it in Redis: the database URL,
    password and all, was one of them. Workers read RWAOPT_DATABASE_URL themselves."""
    from redis import Redis
    from rq.job import Job

    r = rq_client.post("/api/v1/plans", json=SMALL, params={"wait": "false"})
    plan_id = r.json()["id"]
    assert wait_until_finished(rq_client, plan_id)["status"] == "done"
    job = Job.fetch(plan_id, connection=Redis.from_url(get_settings().redis_url))
    assert job.args == (plan_id,)
    assert rq_env["RWAOPT_DATABASE_URL"] not in (job.description or "")


def test_an_idle_worker_heartbeats_within_the_health_checks_minute(
    rq_client: TestClient, rq_env: dict[str, str]
) -> None:
    """RQ's default worker_ttl (420 s) made an idle worker heartbeat every 405 s, so
    `rwaopt worker --check` (a heartbeat within a minute) failed for idle workers: it is
    RWAOPT_WORKER_HEARTBEAT_S + 15 now, and the worker's key lives worker_ttl + 60 s."""
    from redis import Redis
    from rq import Queue, Worker

    settings = get_settings()
    connection = Redis.from_url(settings.redis_url)
    queue = Queue(rq_env["RWAOPT_QUEUE_NAME"], connection=connection)
    deadline = time.monotonic() + 30  # the module's worker may still be starting
    while not (workers := Worker.all(queue=queue)):
        assert time.monotonic() < deadline, "the worker never registered"
        time.sleep(0.2)
    (worker,) = workers
    assert 0 < connection.ttl(worker.key) <= settings.worker_heartbeat_s + 15 + 60


def test_rq_job_failure_is_reported(rq_client: TestClient) -> None:
    # An oversized exact model is refused at the request (413); a node-limited schedule
    # beyond the first-fit scheduler's limit is found only while solving, in the worker.
    body = SMALL | {
        "ring": {"nodes": 12, "wavelengths_per_fiber": 1},
        "collective": "alltoall",
        "algorithms": ["tra2"],
        "max_tx_per_node": 1,
    }
    r = rq_client.post("/api/v1/plans", json=body, params={"wait": "false"})
    assert r.status_code == 202, r.text
    doc = wait_until_finished(rq_client, r.json()["id"])
    assert doc["status"] == "failed" and doc["result"] is None
    assert doc["error"]["code"] == "limit_exceeded"
    r = rq_client.get(f"/api/v1/plans/{doc['id']}/plots/time-vs-message.png")
    assert r.status_code == 409


def test_job_of_a_deleted_plan_does_nothing(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'jobs.db'}"
    store = PlanStore(url)
    store.migrate()
    row = store.create(PlanRequest.model_validate(SMALL))
    assert store.delete(row.id)
    assert run_plan_job(row.id, url) == "gone"
    assert run_plan_job("no-such-plan", url) == "gone"


def test_job_runs_once(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'jobs.db'}"
    store = PlanStore(url)
    store.migrate()
    row = store.create(PlanRequest.model_validate(SMALL))
    assert run_plan_job(row.id, url) == "done"
    assert run_plan_job(row.id, url) == "gone"  # a duplicate delivery does not re-solve
    done = store.get(row.id)
    assert done is not None and done.status == "done"
    assert [s.stage_index for s in store.solutions(row.id, "ring")] == [0]


def test_rq_failure_callback_marks_the_plan_failed(tmp_path: Path) -> None:
    """What RQ calls when a work horse times out or dies (abandoned job)."""
    from types import SimpleNamespace

    from app.jobs.queue import on_job_failure

    url = f"sqlite:///{tmp_path / 'jobs.db'}"
    store = PlanStore(url)
    store.migrate()
    row = store.create(PlanRequest.model_validate(SMALL), JobStatus.RUNNING)
    job = SimpleNamespace(
        args=(row.id, url), func_name="app.jobs.queue.run_plan_job", retries_left=2
    )
    on_job_failure(job, None, MemoryError, MemoryError())
    retried = store.get(row.id)  # retries left: queued again for the next run
    assert retried is not None and retried.status == "queued"
    assert store.mark_running(row.id)
    job.retries_left = 0
    on_job_failure(job, None, MemoryError, MemoryError())
    failed = store.get(row.id)
    assert failed is not None and failed.status == "failed"
    assert failed.error is not None and failed.error.code == "worker_failed"
    assert "MemoryError" in failed.error.message
    done = store.create(PlanRequest.model_validate(SMALL), JobStatus.DONE)
    job = SimpleNamespace(
        args=(done.id, url), func_name="app.jobs.queue.run_plan_job", retries_left=None
    )
    on_job_failure(job, None, MemoryError, MemoryError())
    again = store.get(done.id)
    assert again is not None and again.status == "done"


def test_unreachable_queue_is_503(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RWAOPT_JOBS", "rq")
    monkeypatch.setenv("RWAOPT_REDIS_URL", "redis://127.0.0.1:1/0")  # nothing listens there
    get_settings.cache_clear()
    before = client.get("/api/v1/plans").json()["total"]
    r = client.post("/api/v1/plans", json=SMALL, params={"wait": "false"})
    assert r.status_code == 503 and r.json()["code"] == "unavailable"
    assert int(r.headers["Retry-After"]) > 0
    assert client.get("/api/v1/plans").json()["total"] == before  # nothing left half-made


def test_the_failure_callback_of_a_job_with_its_id_only_uses_the_workers_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from types import SimpleNamespace

    from app.jobs.queue import on_job_failure

    url = f"sqlite:///{tmp_path / 'jobs.db'}"
    monkeypatch.setenv("RWAOPT_DATABASE_URL", url)
    get_settings.cache_clear()
    try:
        store = PlanStore(url)
        store.migrate()
        row = store.create(PlanRequest.model_validate(SMALL), JobStatus.RUNNING)
        job = SimpleNamespace(
            args=(row.id,), func_name="app.jobs.queue.run_plan_job", retries_left=0
        )
        on_job_failure(job, None, RuntimeError, RuntimeError(""))
    finally:
        get_settings.cache_clear()
    failed = store.get(row.id)
    assert failed is not None and failed.error is not None
    # an empty exception text is left out ('AbandonedJobError: )'), and a plan is not told
    # to use quick=true (a reproduction's option)
    assert "(RuntimeError)" in failed.error.message and "quick" not in failed.error.message


def test_rq_failure_callback_marks_a_reproduction_failed(tmp_path: Path) -> None:
    from types import SimpleNamespace

    from app.jobs.queue import on_job_failure
    from app.persistence.store import ReproductionStore
    from app.schemas.requests import ReproductionRequest

    url = f"sqlite:///{tmp_path / 'jobs.db'}"
    store = ReproductionStore(url)
    store.migrate()
    row = store.create(ReproductionRequest(targets=["tra"], quick=True))
    job = SimpleNamespace(
        args=(row.id, url), func_name="app.jobs.queue.run_reproduction_job", retries_left=None
    )
    on_job_failure(job, None, TimeoutError, TimeoutError())
    failed = store.get(row.id)
    assert failed is not None and failed.status == "failed"
    assert failed.error is not None and failed.error.code == "worker_failed"


def test_worker_health_check_fails_without_a_live_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from app.cli import cli

    monkeypatch.setenv("RWAOPT_QUEUE_NAME", f"rwaopt-nobody-{uuid.uuid4().hex[:8]}")
    get_settings.cache_clear()
    try:
        result = CliRunner().invoke(cli, ["worker", "--check"])
    finally:
        get_settings.cache_clear()
    assert result.exit_code == 3
    assert "no worker of host" in result.output


def test_the_health_check_keeps_the_redis_password_out(monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from app.cli import cli

    monkeypatch.setenv("RWAOPT_REDIS_URL", "redis://:secret@127.0.0.1:1/0?password=secret2")
    get_settings.cache_clear()
    try:
        result = CliRunner().invoke(cli, ["worker", "--check"])
    finally:
        get_settings.cache_clear()
    assert result.exit_code == 3 and "unreachable" in result.output
    assert "secret" not in result.output


HOLDER = """
import sys, time
from redis import Redis
from app.jobs.queue import maintenance_lease
with maintenance_lease(Redis.from_url(sys.argv[1]), sys.argv[2], 1.0) as held:
    print("held" if held else "free", flush=True)
    time.sleep(60)
"""


def test_a_reaper_killed_while_it_cleans_frees_the_maintenance_key_within_its_lease() -> None:
    """RQ's maintenance lock lives 899 s: a worker SIGKILLed while its reaper held it stopped
    every retry of a dead worker's job for 15 minutes (a sweep stuck with a point `running`).
    The lease is renewed while its holder lives (still held after three leases) and ends
    within a lease of its death."""
    from redis import Redis

    url = get_settings().redis_url
    key = f"rwaopt-test-lease-{uuid.uuid4().hex[:8]}"
    with subprocess.Popen(
        [sys.executable, "-c", HOLDER, url, key], stdout=subprocess.PIPE, text=True
    ) as holder:
        try:
            assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
            connection = Redis.from_url(url)
            time.sleep(3.0)  # three leases: renewed, not expired
            with maintenance_lease(connection, key, 1.0) as held:
                assert not held
            holder.kill()
            holder.wait(timeout=10)
            killed = time.monotonic()
            while True:
                with maintenance_lease(connection, key, 1.0) as held:
                    if held:
                        break
                assert time.monotonic() - killed < 1.5, "the dead holder's lease did not end"
                time.sleep(0.05)
            assert connection.exists(key) == 0  # released on leaving the block
        finally:
            holder.kill()


def test_rqs_own_clean_up_holds_the_maintenance_key_as_a_lease(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Session 32 left RQ's own periodic clean-up (every ten minutes and at a worker's start)
    taking the maintenance key for 899 s: a worker killed inside it kept the reapers out for
    15 minutes. The worker's clean-up now holds it as the reaper's lease: while it cleans the
    key lives at most a lease, and it is free when the clean-up is done."""
    from redis import Redis
    from rq import Queue

    import app.jobs.queue as jobs

    settings = get_settings().model_copy(
        update={"queue_name": f"rwaopt-test-{uuid.uuid4().hex[:8]}", "worker_heartbeat_s": 1}
    )
    connection = Redis.from_url(settings.redis_url)
    key = Queue(settings.queue_name, connection=connection).registry_cleaning_key
    seen: list[int] = []

    def cleaning(queue: Any, *_: Any) -> None:
        seen.append(int(connection.pttl(key)))

    monkeypatch.setattr("rq.registry.clean_registries", cleaning)
    worker = jobs.make_worker(settings)
    worker.clean_registries()
    lease_ms = jobs.maintenance_lease_s(settings) * 1000
    assert len(seen) == 1 and 0 < seen[0] <= lease_ms  # RQ's own: 899000
    assert connection.exists(key) == 0 and worker.last_cleaned_at is not None
    # and a clean-up that finds the key held (a reaper cleaning) leaves it to that holder
    with maintenance_lease(connection, key, 5.0) as held:
        assert held
        worker.clean_registries()
    assert len(seen) == 1


def test_an_rq_job_past_its_timeout_is_failed_as_a_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review (session 33): RQ raises JobTimeoutException in the work horse when a job runs
    past its timeout (RWAOPT_MAX_SOLVE_S + 60 s); the job was failed as 'internal error
    (JobTimeoutException)'. It is the limit: 413's limit_exceeded, with the time it had.
    A real RQ worker (in this process, burst) on the real Redis, a solve that sleeps."""
    from redis import Redis
    from rq import Queue, SimpleWorker

    url = f"sqlite:///{tmp_path / 'jobs.db'}"
    store = PlanStore(url)
    store.migrate()
    row = store.create(PlanRequest.model_validate(SMALL))
    monkeypatch.setattr("app.jobs.queue.execute", lambda spec, watch: time.sleep(30))
    connection = Redis.from_url(get_settings().redis_url)
    queue = Queue(f"rwaopt-test-{uuid.uuid4().hex[:8]}", connection=connection)
    queue.enqueue(run_plan_job, row.id, url, job_timeout=1, job_id=row.id)
    started = time.monotonic()
    SimpleWorker([queue], connection=connection).work(burst=True)
    assert time.monotonic() - started < 20
    failed = store.get(row.id)
    assert failed is not None and failed.status == "failed" and failed.error is not None
    assert failed.error.code == "limit_exceeded"
    assert failed.error.message.startswith("the solve ran past its limit (1 s on the queue")


def test_a_bug_in_a_solver_process_is_an_internal_error_not_a_dead_process() -> None:
    """Review (session 34): any exception but an RwaoptError killed the solver process, and
    the caller answered 503 "the solver process died (out of memory?)". It is answered as
    an internal error (500, the exception named, nothing more) and the process lives on."""
    from app.jobs.pool import _guarded

    body = _guarded(lambda: 1 // 0)
    assert body.code == "internal_error"
    assert body.message == "internal error (ZeroDivisionError); it has been logged"
    with pytest.raises(MemoryError):  # still ends the process: the caller's memory answer
        _guarded(lambda: (_ for _ in ()).throw(MemoryError()))


@pytest.mark.parametrize(("method", "kind"), [("exact", "plans"), ("exact-highs", "plans"),
                                              ("heuristic", "quick"), ("auto", "quick")])
def test_an_exact_rwa_of_a_small_stage_does_not_take_the_quick_process(
    monkeypatch: pytest.MonkeyPatch, method: str, kind: str
) -> None:
    """Review (session 34): small /rwa stages went to the one quick solver process whatever
    their method; three exact calls of 8 s held it 30 s in turn, and every one-demand call
    meanwhile waited out its 503. An exact method goes to the plans' pool."""
    import asyncio

    from app.jobs import pool as pools
    from app.schemas.requests import RwaInput, SolveSettings

    asked: list[str] = []

    class InProcess:
        def run(self, work: Any, *args: Any, **_: Any) -> Any:
            return work(*args)

    def fake_pool(processes: int, which: str = "plans") -> InProcess:
        asked.append(which)
        return InProcess()

    monkeypatch.setattr(pools, "pool", fake_pool)
    data = RwaInput.model_validate({"nodes": 4, "wavelengths": 1, "demands": [[0, 1, 1]]})
    answer = asyncio.run(pools.rwa_async(data, SolveSettings(method=method), 1))
    assert answer.chi == 1 and asked == [kind]


def test_a_plan_queued_in_the_database_but_lost_from_redis_is_queued_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review (session 35): with Redis's data lost (a new volume, or the last second of its
    append-only file), a plan queued in PostgreSQL never ran: nothing queued it again, and a
    sweep sharing it never finished. The reaper's `requeue_lost` queues again a row queued a
    minute or more without its RQ job (not a fresh one, which the API queues right after
    committing it; not one whose job is still queued)."""
    from datetime import UTC, datetime, timedelta

    from redis import Redis
    from rq import Queue
    from rq.job import Job
    from sqlalchemy import update

    from app.jobs.queue import LOST_AFTER_S, requeue_lost
    from app.persistence.database import session_factory
    from app.persistence.tables import PlanRow

    url = f"sqlite:///{tmp_path / 'jobs.db'}"
    monkeypatch.setenv("RWAOPT_DATABASE_URL", url)
    monkeypatch.setenv("RWAOPT_JOBS", "rq")
    monkeypatch.setenv("RWAOPT_QUEUE_NAME", f"rwaopt-test-{uuid.uuid4().hex[:8]}")
    get_settings.cache_clear()
    settings = get_settings()
    connection = Redis.from_url(settings.redis_url)
    store = PlanStore(url)
    store.migrate()
    lost, _fresh, waiting = (store.create(PlanRequest.model_validate(SMALL)).id for _ in range(3))
    old = datetime.now(UTC) - timedelta(seconds=LOST_AFTER_S + 5)
    with session_factory(url).begin() as session:
        session.execute(update(PlanRow).where(PlanRow.id.in_([lost, waiting]))
                        .values(created_at=old))
    queue = Queue(settings.queue_name, connection=connection)
    try:
        queue.enqueue(run_plan_job, waiting, job_id=waiting)  # its job is still queued
        assert requeue_lost(settings, connection) == [lost]
        assert Job.fetch(lost, connection=connection).get_status() == "queued"
        assert set(queue.job_ids) == {waiting, lost}
        assert requeue_lost(settings, connection) == []  # queued now: not again
    finally:
        queue.empty()
        get_settings.cache_clear()

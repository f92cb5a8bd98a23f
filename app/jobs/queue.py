"""Queued jobs (plans, reproductions): run in threads of the API process (embedded default)
or by RQ workers reading Redis (`RWAOPT_JOBS=rq`, workers started with `rwaopt worker`).

Both run `run_plan_job`, which reads the request from the database (validated there: it crossed
a storage boundary) and writes the result back in one transaction, so a job that dies leaves
the plan queued/running, never half-written.
"""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Callable
from concurrent.futures import CancelledError, ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from app.errors import WorkerFailedError, error_body, internal
from app.jobs.executors import SharedExecutor
from app.jobs.pool import plan_in_pool, reproduce_in_pool
from app.persistence.store import JobStore, PlanStore, ReproductionStore
from app.planning import prepare
from app.schemas.documents import JobStatus, PlanDocument, ReproductionDocument
from app.service import execute, reproduce
from app.settings import Settings, get_settings
from models.errors import RwaoptError

log = logging.getLogger("rwaopt.jobs")
Doc = TypeVar("Doc", PlanDocument, ReproductionDocument)

JOB_TIMEOUT_S = 24 * 3600


def run_plan_job(
    plan_id: str, database_url: str | None = None, solver_processes: int | None = None
) -> str:
    """Solve a queued plan; returns 'done', 'failed', 'gone' (deleted, or taken by another
    worker) or 'interrupted' (the API stopped; the plan stays running and is requeued).
    With `solver_processes` the solve runs in the API's solver pool (inline jobs); without,
    in this process (an RQ work horse is a process of its own)."""
    store = PlanStore(database_url or get_settings().database_url)

    def solve(row: PlanDocument) -> bool:
        spec = prepare(row.request)
        done = execute(spec) if solver_processes is None else plan_in_pool(spec, solver_processes)
        return store.finish(plan_id, done.result, done.solutions, done.seconds)

    return _run_job(store, plan_id, store.get, solve)


def run_reproduction_job(
    reproduction_id: str, database_url: str | None = None, solver_processes: int | None = None
) -> str:
    """Rebuild a queued reproduction's report and store it (see `run_plan_job`)."""
    store = ReproductionStore(database_url or get_settings().database_url)

    def solve(row: ReproductionDocument) -> bool:
        if solver_processes is not None:
            return store.finish(reproduction_id, reproduce_in_pool(row.request, solver_processes))
        with tempfile.TemporaryDirectory(prefix="rwaopt-reproduction-") as out:
            cache = get_settings().reproduction_cache
            return store.finish(reproduction_id, reproduce(row.request, Path(out), cache))

    return _run_job(store, reproduction_id, store.get, solve)


def _run_job(
    store: JobStore[Any],
    job_id: str,
    load: Callable[[str], Doc | None],
    solve: Callable[[Doc], bool],
) -> str:
    """queued -> running -> done or failed, written in one transaction each; a job that dies
    stays queued/running, never half-written."""
    row = load(job_id)
    if row is None or not store.mark_running(job_id):
        return "gone"
    try:
        finished = solve(row)
    except CancelledError:  # the API is shutting down: leave it to the next start
        return "interrupted"
    except RwaoptError as error:
        store.fail(job_id, error_body(error))
        return "failed"
    except Exception as error:  # a bug: keep the job readable and say what happened
        log.exception("job %s failed", job_id)
        store.fail(job_id, error_body(internal(error)))
        return "failed"
    return "done" if finished else "gone"


_threads = SharedExecutor(
    lambda workers: ThreadPoolExecutor(max_workers=workers, thread_name_prefix="rwaopt-plan")
)


def shutdown() -> None:
    """Stop inline jobs: queued ones are dropped (they stay queued in the database and are
    resubmitted at the next start), running ones finish first."""
    _threads.shutdown()


def submit(plan_id: str, settings: Settings | None = None) -> None:
    _enqueue(run_plan_job, plan_id, settings or get_settings())


def submit_reproduction(reproduction_id: str, settings: Settings | None = None) -> None:
    _enqueue(run_reproduction_job, reproduction_id, settings or get_settings())


def _enqueue(job: Callable[[str, str, int | None], str], job_id: str, settings: Settings) -> None:
    if settings.jobs == "inline":
        _threads.get(settings.inline_workers).submit(
            job, job_id, settings.database_url, settings.solver_processes
        )
        return
    from redis import Redis
    from rq import Callback, Queue

    queue = Queue(settings.queue_name, connection=Redis.from_url(settings.redis_url))
    queue.enqueue(
        job,
        job_id,
        settings.database_url,
        job_timeout=JOB_TIMEOUT_S,
        job_id=job_id,
        on_failure=Callback(on_job_failure),
    )


def on_job_failure(job: Any, _connection: Any, kind: type, value: BaseException, *_: Any) -> None:
    """RQ failure callback: the work horse raised past run_plan_job, hit its timeout, or died
    (RQ's registry clean-up reports an abandoned job). Marks a still-unfinished plan failed,
    so it does not stay `running` for ever."""
    job_id, database_url = job.args[0], job.args[1]
    reproduction = str(job.func_name).endswith("run_reproduction_job")
    store: PlanStore | ReproductionStore = (
        ReproductionStore(database_url) if reproduction else PlanStore(database_url)
    )
    row = store.get(job_id)
    if row is not None and row.status in (JobStatus.QUEUED, JobStatus.RUNNING):
        failure = WorkerFailedError(
            f"the worker stopped this job ({kind.__name__}: {value}); post it again, perhaps "
            "with a shorter time limit, a smaller ring or quick=true"
        )
        store.fail(job_id, error_body(failure))


def run_worker(settings: Settings | None = None, burst: bool = False) -> None:
    """An RQ worker on the plans queue (blocks; `burst` stops when the queue is empty)."""
    from redis import Redis
    from rq import Queue, Worker

    settings = settings or get_settings()
    connection = Redis.from_url(settings.redis_url)
    worker = Worker([Queue(settings.queue_name, connection=connection)], connection=connection)
    worker.work(burst=burst)

"""Queued plans: run in threads of the API process (embedded default) or by RQ workers
reading Redis (`RWAOPT_JOBS=rq`, workers started with `rwaopt worker`).

Both run `run_plan_job`, which reads the request from the database (validated there: it crossed
a storage boundary) and writes the result back in one transaction, so a job that dies leaves
the plan queued/running, never half-written.
"""

from __future__ import annotations

import logging
from concurrent.futures import CancelledError, ThreadPoolExecutor
from typing import Any

from app.errors import WorkerFailedError, error_body, internal
from app.jobs.executors import SharedExecutor
from app.jobs.pool import plan_in_pool
from app.persistence.store import PlanStore
from app.planning import prepare
from app.schemas.documents import JobStatus
from app.service import execute
from app.settings import Settings, get_settings
from models.errors import RwaoptError

log = logging.getLogger("rwaopt.jobs")

JOB_TIMEOUT_S = 24 * 3600


def run_plan_job(
    plan_id: str, database_url: str | None = None, solver_processes: int | None = None
) -> str:
    """Solve a queued plan; returns 'done', 'failed', 'gone' (deleted, or taken by another
    worker) or 'interrupted' (the API stopped; the plan stays running and is requeued).
    With `solver_processes` the solve runs in the API's solver pool (inline jobs); without,
    in this process (an RQ work horse is a process of its own)."""
    store = PlanStore(database_url or get_settings().database_url)
    row = store.get(plan_id)
    if row is None or not store.mark_running(plan_id):
        return "gone"
    try:
        spec = prepare(row.request)
        solved = execute(spec) if solver_processes is None else plan_in_pool(spec, solver_processes)
    except CancelledError:  # the API is shutting down: leave it to the next start
        return "interrupted"
    except RwaoptError as error:
        store.fail(plan_id, error_body(error))
        return "failed"
    except Exception as error:  # a bug: keep the plan readable and say what happened
        log.exception("plan %s failed", plan_id)
        store.fail(plan_id, error_body(internal(error)))
        return "failed"
    finished = store.finish(plan_id, solved.result, solved.solutions, solved.seconds)
    return "done" if finished else "gone"


_threads = SharedExecutor(
    lambda workers: ThreadPoolExecutor(max_workers=workers, thread_name_prefix="rwaopt-plan")
)


def shutdown() -> None:
    """Stop inline jobs: queued ones are dropped (they stay queued in the database and are
    resubmitted at the next start), running ones finish first."""
    _threads.shutdown()


def submit(plan_id: str, settings: Settings | None = None) -> None:
    settings = settings or get_settings()
    if settings.jobs == "inline":
        _threads.get(settings.inline_workers).submit(
            run_plan_job, plan_id, settings.database_url, settings.solver_processes
        )
        return
    from redis import Redis
    from rq import Callback, Queue

    queue = Queue(settings.queue_name, connection=Redis.from_url(settings.redis_url))
    queue.enqueue(
        run_plan_job,
        plan_id,
        settings.database_url,
        job_timeout=JOB_TIMEOUT_S,
        job_id=plan_id,
        on_failure=Callback(on_job_failure),
    )


def on_job_failure(job: Any, _connection: Any, kind: type, value: BaseException, *_: Any) -> None:
    """RQ failure callback: the work horse raised past run_plan_job, hit its timeout, or died
    (RQ's registry clean-up reports an abandoned job). Marks a still-unfinished plan failed,
    so it does not stay `running` for ever."""
    plan_id, database_url = job.args[0], job.args[1]
    store = PlanStore(database_url)
    row = store.get(plan_id)
    if row is not None and row.status in (JobStatus.QUEUED, JobStatus.RUNNING):
        failure = WorkerFailedError(
            f"the worker stopped solving this plan ({kind.__name__}: {value}); "
            "post it again, perhaps with a shorter time limit or a smaller ring"
        )
        store.fail(plan_id, error_body(failure))


def run_worker(settings: Settings | None = None, burst: bool = False) -> None:
    """An RQ worker on the plans queue (blocks; `burst` stops when the queue is empty)."""
    from redis import Redis
    from rq import Queue, Worker

    settings = settings or get_settings()
    connection = Redis.from_url(settings.redis_url)
    worker = Worker([Queue(settings.queue_name, connection=connection)], connection=connection)
    worker.work(burst=burst)

"""Queued jobs (plans, reproductions): run in threads of the API process (embedded default)
or by RQ workers reading Redis (`RWAOPT_JOBS=rq`, workers started with `rwaopt worker`).

Both run `run_plan_job`, which reads the request from the database (validated there: it crossed
a storage boundary) and writes the result back in one transaction, so a job that dies leaves
the plan queued/running, never half-written.

Exactly once on RQ: the worker heartbeats every RWAOPT_WORKER_HEARTBEAT_S; a job whose worker
(and work horse) died is found by the reaper thread every surviving `rwaopt worker` runs, once
RWAOPT_ABANDONED_AFTER_S passed without a heartbeat, and retried (RQ's `Retry`) on another
worker, at most RWAOPT_JOB_ATTEMPTS runs in all; then the plan is failed with the reason. The
plan's result is written once: only by the run that holds it `running` (`PlanStore.finish`).

The database away: a job's reads and writes of its own row wait for the database to answer
again (`_answered`, backing off up to RETRY_MAX_S), so a result computed while it was away is
stored once it is back, and a run the database broke (a read mid-solve) is failed with that
reason, never left `running`. Inline jobs stop waiting at shutdown (the plan is requeued at
the next start).
"""

from __future__ import annotations

import contextlib
import logging
import os
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import CancelledError, ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy.exc import SQLAlchemyError

from app.errors import (
    DatabaseUnavailableError,
    JobCancelledError,
    UnavailableError,
    WorkerFailedError,
    error_body,
    internal,
)
from app.jobs.executors import SharedExecutor
from app.jobs.pool import plan_in_pool, reproduce_in_pool
from app.jobs.processes import MemoryWatch, PoolClosedError, over_memory
from app.jobs.watch import CancelWatch, stop_when_cancelled
from app.persistence.store import JobStore, PlanStore, ReproductionStore
from app.planning import prepare
from app.schemas.documents import JobStatus, PlanDocument, ReproductionDocument
from app.service import execute, reproduce
from app.settings import Settings, get_settings
from models.errors import LimitExceededError, RwaoptError

log = logging.getLogger("rwaopt.jobs")
Doc = TypeVar("Doc", PlanDocument, ReproductionDocument)
T = TypeVar("T")
RETRY_FIRST_S, RETRY_MAX_S = 0.5, 30.0
_stopping = threading.Event()  # set by shutdown(): inline jobs stop waiting for the database


class JobInterruptedError(Exception):
    """The process is stopping while a job waited for the database."""


def _answered(call: Callable[[], T], job_id: str, what: str) -> T:
    """`call()`, repeated while the database does not answer (backing off from RETRY_FIRST_S
    to RETRY_MAX_S), until it does or the process stops."""
    pause = RETRY_FIRST_S
    while True:
        try:
            return call()
        except SQLAlchemyError as error:
            log.warning(
                "job %s: %s: the database does not answer (%s); retrying in %.1f s",
                job_id,
                what,
                type(error).__name__,
                pause,
            )
        if _stopping.wait(pause):
            raise JobInterruptedError(job_id)
        pause = min(2 * pause, RETRY_MAX_S)


def run_plan_job(
    plan_id: str, database_url: str | None = None, solver_processes: int | None = None
) -> str:
    """Solve a queued plan; returns 'done', 'failed', 'cancelled', 'gone' (deleted, or taken
    by another worker) or 'interrupted' (the API stopped; the plan stays running and is
    requeued). With `solver_processes` the solve runs in the API's solver pool (inline jobs);
    without, in this process (an RQ work horse is a process of its own). Between stages the
    solve checks whether the plan was cancelled meanwhile."""
    url = database_url or get_settings().database_url
    store = PlanStore(url)
    watch = CancelWatch(url, plan_id)

    def solve(row: PlanDocument) -> bool:
        spec = prepare(row.request)
        if solver_processes is None:
            with _horse_memory_guard(store, plan_id):
                done = execute(spec, watch)
        else:
            with stop_when_cancelled(url, plan_id) as stop:
                done = plan_in_pool(spec, solver_processes, watch, stop)
        return _answered(
            lambda: store.finish(plan_id, done.result, done.solutions, done.seconds),
            plan_id,
            "storing the result",
        )

    return _run_job(store, plan_id, store.get, solve)


def _horse_memory_guard(
    store: JobStore[Any], job_id: str
) -> contextlib.AbstractContextManager[Any]:
    """In an RQ work horse (the solve runs in the horse itself): past the memory budget the
    job is failed with the reason and the horse exits at once, before the kernel's
    out-of-memory killer picks a process. Elsewhere (tests, the CLI) nothing."""
    from rq import get_current_job

    if get_current_job() is None:
        return contextlib.nullcontext()
    limit = get_settings().solve_memory_bytes()

    def exceeded() -> None:
        log.error("job %s: past the memory budget; failing it and ending the work horse", job_id)
        try:
            store.fail(job_id, error_body(over_memory(limit)))
        finally:
            os._exit(1)

    return MemoryWatch(limit, exceeded)


def run_reproduction_job(
    reproduction_id: str, database_url: str | None = None, solver_processes: int | None = None
) -> str:
    """Rebuild a queued reproduction's report and store it (see `run_plan_job`)."""
    store = ReproductionStore(database_url or get_settings().database_url)

    def solve(row: ReproductionDocument) -> bool:
        if solver_processes is not None:
            done = reproduce_in_pool(row.request, solver_processes, store.url)
        else:
            with tempfile.TemporaryDirectory(prefix="rwaopt-reproduction-") as out:
                cache = get_settings().reproduction_cache
                done = reproduce(row.request, Path(out), cache, store.url)
        return _answered(
            lambda: store.finish(reproduction_id, done), reproduction_id, "storing the result"
        )

    return _run_job(store, reproduction_id, store.get, solve)


def _run_job(
    store: JobStore[Any],
    job_id: str,
    load: Callable[[str], Doc | None],
    solve: Callable[[Doc], bool],
) -> str:
    """queued -> running -> done or failed, written in one transaction each; a job that dies
    stays queued/running, never half-written. Its own row's reads and writes wait for the
    database (`_answered`)."""

    def fail(error: RwaoptError) -> str:
        _answered(lambda: store.fail(job_id, error_body(error)), job_id, "storing the failure")
        return "failed"

    try:
        row = _answered(lambda: load(job_id), job_id, "reading the job")
        if row is None or not _answered(
            lambda: store.mark_running(job_id), job_id, "marking it running"
        ):
            return "gone"
        try:
            finished = solve(row)
        except (CancelledError, PoolClosedError):  # shutting down: left to the next start
            return "interrupted"
        except JobCancelledError:  # a user cancelled it: it is stored as cancelled already
            return "cancelled"
        except RwaoptError as error:
            return fail(error)
        except SQLAlchemyError as error:  # a read of the run broke: say so once it is back
            log.warning("job %s: the database stopped answering during the run: %s", job_id, error)
            return fail(
                DatabaseUnavailableError(
                    "the database stopped answering while this job ran; post it again"
                )
            )
        except JobInterruptedError:
            raise
        except Exception as error:  # a bug: keep the job readable and say what happened
            timed_out = _rq_timeout(error)
            if timed_out is not None:
                return fail(timed_out)
            log.exception("job %s failed", job_id)
            return fail(internal(error))
        return "done" if finished else "gone"
    except JobInterruptedError:  # stopping while the database was away: the next start
        return "interrupted"


def _rq_timeout(error: Exception) -> LimitExceededError | None:
    """RQ's job timeout (RWAOPT_MAX_SOLVE_S of the service that queued the job, plus RQ's
    60 s: `_enqueue`) raised in the work horse, as the limit it is (it was failed as an
    internal error); None for any other exception."""
    from rq import get_current_job
    from rq.timeouts import JobTimeoutException

    if not isinstance(error, JobTimeoutException):
        return None
    job = get_current_job()
    return _timeout_error(job.timeout if job is not None else None)


def _timeout_error(timeout: float | None) -> LimitExceededError:
    allowed = f"{timeout:g} s" if timeout else "its time"
    return LimitExceededError(
        f"the solve ran past its limit ({allowed} on the queue: RWAOPT_MAX_SOLVE_S of the "
        "service that queued it, plus 60 s) and was ended; ask for less: a smaller ring, "
        "fewer algorithms, a shorter time_limit_s or search_budget_s"
    )


_threads = SharedExecutor(
    lambda workers: ThreadPoolExecutor(max_workers=workers, thread_name_prefix="rwaopt-plan")
)


def shutdown() -> None:
    """Stop inline jobs: queued ones are dropped (they stay queued in the database and are
    resubmitted at the next start), running ones finish first (one waiting for the database
    stops waiting)."""
    _stopping.set()
    try:
        _threads.shutdown()
    finally:
        _stopping.clear()  # every job has returned; the next start's jobs wait again


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
    from rq import Callback, Queue, Retry

    queue = Queue(settings.queue_name, connection=Redis.from_url(settings.redis_url))
    retries = settings.job_attempts - 1
    # The job id only: RQ logs a job's arguments and keeps them in Redis (its description),
    # and the database URL carries its password. Workers read RWAOPT_DATABASE_URL themselves.
    queue.enqueue(
        job,
        job_id,
        job_timeout=int(settings.max_solve_s) + 60,  # the horse is killed past it
        job_id=job_id,
        on_failure=Callback(on_job_failure),
        retry=Retry(max=retries) if retries else None,
    )


def stop(plan_ids: list[str], settings: Settings | None = None) -> None:
    """Stop cancelled plans' solves now: on RQ, kill the work horse of a running one and drop
    a queued one from Redis. Inline jobs need nothing here: a queued one is skipped (it is no
    longer queued in the database) and a running one stops at its next stage (CancelWatch)."""
    settings = settings or get_settings()
    if settings.jobs == "inline" or not plan_ids:
        return
    from redis import Redis
    from rq.command import send_stop_job_command
    from rq.exceptions import InvalidJobOperation, NoSuchJobError
    from rq.job import Job

    connection = Redis.from_url(settings.redis_url)
    for plan_id in plan_ids:
        try:
            send_stop_job_command(connection, plan_id)
        except InvalidJobOperation:  # not running: queued, or between retries
            Job.fetch(plan_id, connection=connection).cancel()
        except NoSuchJobError:
            continue


def _job_store(job: Any) -> tuple[PlanStore | ReproductionStore, bool]:
    """The store of an RQ job's row (the worker's own database: jobs carry their id only;
    older ones the URL too), and whether it is a reproduction."""
    database_url = job.args[1] if len(job.args) > 1 else get_settings().database_url
    reproduction = str(job.func_name).endswith("run_reproduction_job")
    store: PlanStore | ReproductionStore = (
        ReproductionStore(database_url) if reproduction else PlanStore(database_url)
    )
    return store, reproduction


class WorkHorseDiedError(Exception):
    """The work horse ended without a result: killed (out of memory, a signal), or crashed."""


def horse_died(job: Any, ret_val: int | None, working_s: float) -> None:
    """A work horse that died while its worker lives: RQ 3.0 retries or fails such a job
    (`monitor_work_horse`) without the failure callback, so the plan stayed `running` and its
    retry, finding it taken, ended at once ('gone'): it stayed `running` for ever (review,
    session 35: a horse SIGKILLed mid-solve, as an out-of-memory kill does). Said as the
    callback says it: with retries left the plan is queued again for the retry; else it is
    failed. A horse RQ's monitor killed past the job's time limit (the solve could not be
    interrupted) is failed with that limit, as one the timeout interrupted is."""
    if job.timeout not in (None, -1) and working_s > job.timeout:
        store, _ = _job_store(job)
        timed_out = _timeout_error(job.timeout)
        store.fail(job.args[0], error_body(timed_out))
        return
    if ret_val is not None and os.WIFSIGNALED(ret_val):
        why = f"killed by signal {os.WTERMSIG(ret_val)}"
    elif ret_val is not None:
        why = f"exit status {os.waitstatus_to_exitcode(ret_val)}"  # not the raw 256
    else:
        why = "no exit status"
    on_job_failure(job, None, WorkHorseDiedError, WorkHorseDiedError(f"the work horse died: {why}"))


def on_job_failure(job: Any, _connection: Any, kind: type, value: BaseException, *_: Any) -> None:
    """RQ failure callback: the work horse raised past run_plan_job, hit its timeout, or died
    (the reaper reports an abandoned job; `horse_died` one that died under a live worker).
    With retries left the job is about to run again: its plan goes back to queued. Otherwise
    a still-unfinished plan is failed with the reason, so it does not stay `running` for
    ever."""
    job_id = job.args[0]
    store, reproduction = _job_store(job)
    if job.retries_left:
        log.warning(
            "job %s: %s; retrying (%d retries left)", job_id, kind.__name__, job.retries_left
        )
        store.requeue(job_id)
        return
    why = f"{kind.__name__}: {value}" if str(value) else kind.__name__
    smaller = (
        "quick=true or fewer targets"
        if reproduction
        else "a shorter time limit or a smaller ring"
    )
    failure = WorkerFailedError(
        f"the worker stopped this job ({why}) and its retries are used up; post it again, "
        f"perhaps with {smaller}"
    )
    store.fail(job_id, error_body(failure))


def run_worker(settings: Settings | None = None, burst: bool = False) -> None:
    """An RQ worker on the plans queue (blocks; `burst` stops when the queue is empty), with
    the reaper thread that retries the jobs of dead workers."""
    settings = settings or get_settings()
    worker = make_worker(settings)
    stopping = threading.Event()
    reaper = threading.Thread(
        target=_reap, args=(settings, stopping), name="rwaopt-reaper", daemon=True
    )
    reaper.start()
    try:
        worker.work(burst=burst)
    finally:
        stopping.set()


PR_SET_PDEATHSIG = 1  # prctl(2): the signal a process gets when its parent thread ends


def die_with_parent(parent: int | None = None) -> None:
    """Have the kernel SIGKILL this process when its parent ends (Linux; elsewhere nothing);
    with `parent` (its pid before the fork), end at once if it ended already, before the
    request could be made."""
    import ctypes
    import signal
    import sys

    if not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if parent is not None and os.getppid() != parent:
        os._exit(1)


def make_worker(settings: Settings) -> Any:
    """The RQ worker of `run_worker`: its heartbeat grace is RWAOPT_ABANDONED_AFTER_S, and
    RQ's own periodic clean-up (every ten minutes, and when a worker starts) holds the
    maintenance key under the reaper's lease (`maintenance_lease`), not for RQ's 899 s."""
    from redis import Redis
    from rq import Queue, Worker, worker_registration
    from rq.registry import clean_registries
    from rq.utils import now

    grace = settings.abandoned_after_s
    lease = maintenance_lease_s(settings)

    class RwaoptWorker(Worker):
        def setup_work_horse_signals(self) -> None:
            """RQ's, and (Linux) the horse dies with its worker: SIGKILLed alone, a worker
            left its horse solving on (parent 1) while the reaper retried the job elsewhere,
            twice the CPU and memory, and no DELETE stopped it (review, session 35)."""
            super().setup_work_horse_signals()  # type: ignore[no-untyped-call]
            die_with_parent(self._worker_pid)

        def fork_work_horse(self, job: Any, queue: Any) -> None:
            self._worker_pid = os.getpid()  # the horse's parent, read in the horse
            super().fork_work_horse(job, queue)

        def handle_work_horse_killed(self, job: Any, retpid: int, ret_val: int,
                                     rusage: Any) -> None:
            """RQ's hook for a horse that died under this worker: the plan is requeued for
            RQ's retry, or failed (`horse_died`)."""
            super().handle_work_horse_killed(  # type: ignore[no-untyped-call]
                job, retpid, ret_val, rusage
            )
            started = job.started_at
            working = (now() - started).total_seconds() if started is not None else 0.0
            try:
                horse_died(job, ret_val, working)
            except Exception:  # the database away: the retry or the reaper says it later
                self.log.exception("job %s: its dead work horse could not be recorded", job.id)

        def get_heartbeat_ttl(self, job: Any, working_time: float = 0.0) -> int:
            """RQ allows a silent minute past its monitoring interval; here the grace is
            RWAOPT_ABANDONED_AFTER_S, so a dead worker's job is retried soon."""
            return int(self.job_monitoring_interval) + grace

        def clean_registries(self) -> None:
            """RQ 3.0's `Worker.clean_registries` with the key held as a lease: RQ sets it
            for 899 s and deletes it when done, so a worker SIGKILLed mid-clean-up would
            keep every reaper (and every retry of a dead worker's job) out for 15 minutes."""
            for queue in self.queues:
                with maintenance_lease(self.connection, queue.registry_cleaning_key, lease) as held:
                    if held:
                        self.log.info("Worker %s: cleaning registries for queue: %s",
                                      self.name, queue.name)
                        clean_registries(queue, self._exc_handlers)
                        worker_registration.clean_worker_registry(queue)
                        queue.intermediate_queue.cleanup(self, queue)
            self.last_cleaned_at = now()  # type: ignore[assignment]  # RQ annotates None

    connection = Redis.from_url(settings.redis_url)
    queue = Queue(settings.queue_name, connection=connection)
    # worker_ttl: an idle worker waits worker_ttl - 15 s in its blocking pop and heartbeats
    # after it (RQ's default: 405 s, so `rwaopt worker --check` failed for idle workers);
    # log_job_description off: a job's arguments are not for the log.
    return RwaoptWorker(
        [queue],
        connection=connection,
        job_monitoring_interval=settings.worker_heartbeat_s,
        worker_ttl=settings.worker_heartbeat_s + 15,
        log_job_description=False,
    )


def shown_redis_url(url: str) -> str:
    """The Redis URL for a message: without its password, in the userinfo or in the query
    (redis-py reads `?password=` too)."""
    from sqlalchemy.engine import make_url

    try:
        return make_url(url).set(query={}).render_as_string(hide_password=True)
    except Exception:
        return "RWAOPT_REDIS_URL"


def redis_reachable(url: str) -> bool:
    from redis import Redis

    try:
        return bool(Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2).ping())
    except Exception:
        return False


def worker_alive(settings: Settings) -> None:
    """The worker container's health check: a worker of this host is registered on the queue
    and heartbeat within three intervals (and a minute); raises UnavailableError if not."""
    import socket
    from datetime import UTC, datetime, timedelta

    from redis import Redis
    from rq import Queue, Worker

    try:
        connection = Redis.from_url(settings.redis_url)
        queue = Queue(settings.queue_name, connection=connection)
        workers = Worker.all(connection=connection, queue=queue)
    except Exception as error:
        shown = shown_redis_url(settings.redis_url)
        raise UnavailableError(f"Redis at {shown} is unreachable: {error}") from None
    host = socket.gethostname()
    limit = timedelta(seconds=max(60, 3 * settings.worker_heartbeat_s))
    now = datetime.now(UTC)
    for worker in workers:
        beat = worker.last_heartbeat
        if worker.hostname == host and beat is not None:
            beat = beat if beat.tzinfo else beat.replace(tzinfo=UTC)
            if now - beat < limit:
                return
    raise UnavailableError(
        f"no worker of host {host} on queue {settings.queue_name} heartbeat in the last "
        f"{limit.total_seconds():.0f} s"
    )


def _reap(settings: Settings, stopping: threading.Event) -> None:
    """Every heartbeat interval: retry (or fail) the jobs whose worker stopped heartbeating
    (RQ's StartedJobRegistry clean-up, under a lease on RQ's maintenance key, so one worker
    at a time does it, and a worker killed while it cleans blocks the others for a few
    heartbeats only: `maintenance_lease`); and, every LOST_CHECK_EVERY_S, queue again the
    rows queued in the database whose RQ job Redis lost (`requeue_lost`). Runs in a thread of
    the worker's main process, so it goes on while that worker waits for a long solve."""
    from redis import Redis
    from rq import Queue
    from rq.registry import StartedJobRegistry
    from rq.timeouts import TimerDeathPenalty

    connection = Redis.from_url(settings.redis_url)
    queue = Queue(settings.queue_name, connection=connection)
    # The failure callback's time limit: a timer, since SIGALRM works in the main thread only.
    registry = StartedJobRegistry(
        queue.name, connection=connection, death_penalty_class=TimerDeathPenalty
    )
    lease = maintenance_lease_s(settings)
    checked_at = 0.0
    while not stopping.wait(settings.worker_heartbeat_s):
        try:
            with maintenance_lease(connection, queue.registry_cleaning_key, lease) as held:
                if held:
                    registry.cleanup()
                    if time.monotonic() - checked_at >= LOST_CHECK_EVERY_S:
                        checked_at = time.monotonic()
                        requeue_lost(settings, connection)
        except Exception as error:  # Redis away for a moment: try again next interval
            log.warning("reaper: clean-up of %s failed (%s); trying again", queue.name, error)


LOST_AFTER_S = 60.0  # a row queued this long without its RQ job was lost from Redis
LOST_CHECK_EVERY_S = 30.0  # how often a reaper looks for such rows


def requeue_lost(settings: Settings, connection: Any) -> list[str]:
    """Queue again the plans and reproductions queued in the database whose RQ job Redis no
    longer holds (its data lost: a new volume, the last second of its append-only file) or
    holds as ended: nothing would run them, and they stayed `queued` for ever, with every
    sweep point sharing one (review, session 35). Only rows queued LOST_AFTER_S or more ago:
    the API queues a job right after committing its row. Returns their ids."""
    from datetime import UTC, datetime, timedelta

    from rq.exceptions import NoSuchJobError
    from rq.job import Job
    from rq.job import JobStatus as RqStatus

    ended = {RqStatus.FINISHED, RqStatus.FAILED, RqStatus.STOPPED, RqStatus.CANCELED}
    cutoff = datetime.now(UTC) - timedelta(seconds=LOST_AFTER_S)
    lost = []
    stores: tuple[tuple[JobStore[Any], Callable[[str, str, int | None], str]], ...] = (
        (PlanStore(settings.database_url), run_plan_job),
        (ReproductionStore(settings.database_url), run_reproduction_job),
    )
    for store, function in stores:
        for job_id in store.queued_before(cutoff):
            try:
                status = Job.fetch(job_id, connection=connection).get_status()
            except NoSuchJobError:
                status = None
            # a row taken and finished meanwhile reads as an ended job: queued no more
            if (status is None or status in ended) and store.status(job_id) == JobStatus.QUEUED:
                log.warning("job %s: queued in the database but not in Redis; queueing it again",
                            job_id)
                _enqueue(function, job_id, settings)
                lost.append(job_id)
    return lost


def maintenance_lease_s(settings: Settings) -> float:
    """How long a reaper's hold on the maintenance key outlives its last renewal: three
    heartbeats, at least 5 s (the holder renews it every third of that while it cleans)."""
    return max(5.0, 3.0 * settings.worker_heartbeat_s)


@contextlib.contextmanager
def maintenance_lease(connection: Any, key: str, lease_s: float) -> Iterator[bool]:
    """Hold Redis `key` (RQ's per-queue maintenance key, so RQ's own clean-ups are excluded
    too) while the block runs, yielding whether it was free. RQ takes that key for 899 s and
    releases it when it is done: a worker SIGKILLed mid-clean-up (the reaper cleans every
    heartbeat) would leave it held for 15 minutes, and no job of a dead worker would be
    retried in that time. Here the hold is a redis-py lock of `lease_s` seconds renewed every
    third of that by a thread of the holder: it ends within `lease_s` of the holder's death,
    and a long clean-up (a failure callback waiting for the database) keeps it."""
    from redis.exceptions import LockError, RedisError

    lock = connection.lock(key, timeout=lease_s, blocking=False, thread_local=False)
    if not lock.acquire(blocking=False):
        yield False
        return
    done = threading.Event()

    def renew() -> None:
        while not done.wait(lease_s / 3):
            try:
                lock.reacquire()
            except LockError:  # lost it (Redis away past the lease): nothing to renew
                return
            except RedisError:  # Redis away for a moment: renew at the next turn
                continue

    keeper = threading.Thread(target=renew, name="rwaopt-lease", daemon=True)
    keeper.start()
    try:
        yield True
    finally:
        done.set()
        keeper.join()
        with contextlib.suppress(LockError):
            lock.release()

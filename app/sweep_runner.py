"""`rwaopt sweep`'s two ways to run a grid, both ending with the results as CSV:

- locally: the sweep is stored in RWAOPT_DATABASE_URL (SQLite by default) like a posted one,
  so points solved before are reused, and its new points run on this process's solver pool
  (RWAOPT_SOLVER_PROCESSES at a time);
- on a server: posted to POST /api/v1/sweeps and followed until it finishes.

Both show a progress bar of points on stderr when it is a terminal.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from app.errors import ErrorBody, UnavailableError, from_body
from app.jobs import pool
from app.jobs.queue import run_plan_job
from app.persistence.database import migrate
from app.persistence.store import SweepStore
from app.schemas.sweeps import SweepDocument, SweepPoints, SweepRequest
from app.settings import Settings
from app.sweeps import csv_lines, result_rows, start

POLL_S = 0.5


class PointsBar:
    """Finished points of total, with done / cached / failed counts (rich, on stderr)."""

    def __init__(self, total: int, show: bool) -> None:
        self.bar = Progress(
            TextColumn("points"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[counts]}"),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            disable=not show,
        )
        self.task = self.bar.add_task("sweep", total=total, counts="")

    def __enter__(self) -> PointsBar:
        self.bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.bar.stop()

    def show(self, points: SweepPoints) -> None:
        finished = points.done + points.failed + points.cancelled
        counts = f"{points.cached} cached, {points.failed} failed, {points.running} running"
        self.bar.update(self.task, completed=finished, counts=counts)


def run_local(request: SweepRequest, settings: Settings, show: bool) -> tuple[str, bool]:
    """Run a sweep here; returns the results CSV and whether every point finished."""
    url = settings.database_url
    migrate(url)
    store = SweepStore(url)
    new: list[str] = []
    document = start(store, request, settings.shape_search_budget_s, new.append)
    workers = settings.solver_processes
    try:
        with (
            PointsBar(document.points.total, show) as bar,
            ThreadPoolExecutor(workers, thread_name_prefix="rwaopt-sweep") as threads,
        ):
            bar.show(document.points)
            futures = [threads.submit(run_plan_job, p, url, workers) for p in new]
            try:
                for future in as_completed(futures):
                    future.result()
                    bar.show(_current(store, document.id).points)
            except KeyboardInterrupt:
                store.cancel(document.id)
                for future in futures:
                    future.cancel()
                raise
    finally:
        pool.shutdown()
    final = _current(store, document.id)
    text = "".join(csv_lines(request, result_rows(request, store.points(document.id))))
    return text, final.points.queued + final.points.running == 0


def _current(store: SweepStore, sweep_id: str) -> SweepDocument:
    document = store.get(sweep_id)
    # stored by `start` above; only DELETE through the API removes a sweep, not a local run
    assert document is not None
    return document


def follow_remote(
    request: SweepRequest, server: str, show: bool, api_key: str | None = None
) -> tuple[str, bool]:
    """Post the sweep to `server`, follow it, and fetch its results CSV; `api_key` goes in
    the X-API-Key header of every request (a server with RWAOPT_API_KEYS needs one)."""
    base = server.rstrip("/")
    headers = {} if api_key is None else {"X-API-Key": api_key}
    document = SweepDocument.model_validate(
        _call("POST", f"{base}/api/v1/sweeps", headers, request.model_dump(mode="json"))
    )
    where = f"{base}/api/v1/sweeps/{document.id}"
    with PointsBar(document.points.total, show) as bar:
        while not document.status.finished:
            bar.show(document.points)
            time.sleep(POLL_S)
            document = SweepDocument.model_validate(_call("GET", where, headers))
        bar.show(document.points)
    text = _fetch(f"{where}/results?format=csv", headers).decode()
    return text, document.points.queued + document.points.running == 0


def _call(method: str, url: str, headers: dict[str, str], body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    return json.loads(_fetch(url, headers, method, data))


def _fetch(
    url: str, headers: dict[str, str], method: str = "GET", data: bytes | None = None
) -> bytes:
    """The answer's body; an error answer raised as the rwaopt error it carries."""
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            body: bytes = answer.read()
            return body
    except urllib.error.HTTPError as error:
        try:
            raise from_body(ErrorBody.model_validate_json(error.read())) from None
        except ValueError:
            raise UnavailableError(f"{url} answered {error.code} {error.reason}") from None
    except OSError as error:
        raise UnavailableError(f"cannot reach {url}: {error}") from None

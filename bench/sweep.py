"""Benchmark of batch sweeps on the compose deployment's real parts (natively: RQ workers on the
local Redis, results in the local PostgreSQL). One grid, run three ways in the same run:

1. one `rwaopt worker` on an empty database (the baseline);
2. two workers on another empty database: points per minute and the ratio to (1);
3. the same grid posted again on database (2): every point reused; the ratio to (2).

Also: peak RSS of the workers (largest worker or work horse, from getrusage of the children).

    .venv/bin/python bench/sweep.py                 # writes docs/bench-sweep.md
    .venv/bin/python bench/sweep.py --quick         # a smaller grid
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.persistence.database import dispose_all, migrate  # noqa: E402
from app.persistence.store import SweepStore  # noqa: E402
from app.schemas.sweeps import SweepRequest  # noqa: E402
from app.settings import Settings  # noqa: E402
from app.sweeps import start  # noqa: E402
from tests.app.conftest import fresh_postgres  # noqa: E402

GRID = {
    "collective": "allgather",
    "algorithms": "all",
    "nodes": [64, 128],
    "wavelengths_per_fiber": [4, 8],
    "fibers_per_direction": [1, 2],
    "message_sizes_bytes": [65536, 4194304],
    "search_budget_s": 5,
}
QUICK = {**GRID, "nodes": [16, 32], "search_budget_s": 2}


@contextmanager
def workers(count: int, env: dict[str, str], log: Path) -> Iterator[list[subprocess.Popen[bytes]]]:
    with log.open("ab") as out:
        procs = [
            subprocess.Popen(
                [sys.executable, "-m", "app.cli", "worker"],
                env=dict(os.environ, **env),
                stdout=out,
                stderr=subprocess.STDOUT,
            )
            for _ in range(count)
        ]
    try:
        yield procs
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait(timeout=60)


def wait_registered(count: int, settings: Settings) -> None:
    """Time points, not interpreter start-up: wait until the workers listen."""
    from redis import Redis
    from rq import Queue, Worker

    connection = Redis.from_url(settings.redis_url)
    queue = Queue(settings.queue_name, connection=connection)
    while len(Worker.all(connection=connection, queue=queue)) < count:
        time.sleep(0.2)


def run_sweep(grid: dict, settings: Settings) -> tuple[float, dict[str, int]]:
    """Post the grid (through the same `start` the REST route calls) and wait until done."""
    from app.jobs.queue import submit

    store = SweepStore(settings.database_url)
    started = time.monotonic()
    document = start(
        store,
        SweepRequest.model_validate(grid),
        settings.shape_search_budget_s,
        lambda plan_id: submit(plan_id, settings),
    )
    while True:
        current = store.get(document.id)
        assert current is not None
        if current.status.finished:
            return time.monotonic() - started, current.points.model_dump()
        time.sleep(0.2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "bench-sweep.md")
    args = parser.parse_args()
    grid = QUICK if args.quick else GRID
    log = Path("/tmp/rwaopt-bench-sweep.log")
    rows = []
    reuse = None
    for count in (1, 2):
        with fresh_postgres() as url:
            env = {
                "RWAOPT_DATABASE_URL": url,
                "RWAOPT_JOBS": "rq",
                "RWAOPT_QUEUE_NAME": f"rwaopt-bench-{uuid.uuid4().hex[:8]}",
            }
            settings = Settings(**{k.removeprefix("RWAOPT_").lower(): v for k, v in env.items()})
            migrate(url)
            with workers(count, env, log):
                wait_registered(count, settings)
                seconds, points = run_sweep(grid, settings)
                rows.append((count, seconds, points))
                print(f"{count} worker(s): {points['done']} points in {seconds:.1f} s", flush=True)
                if count == 2:
                    again, again_points = run_sweep(grid, settings)
                    reuse = (again, again_points)
                    print(f"again: {again_points['cached']} reused in {again:.3f} s", flush=True)
            dispose_all()
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    base = rows[0][1]
    lines = [
        "# Batch sweeps: points per minute and reuse (`bench/sweep.py`)",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}. "
        f"Grid: `{grid}` ({rows[0][2]['total']} points). RQ workers on the local Redis, results "
        "in the local PostgreSQL (a fresh database per worker count, so nothing is reused "
        "until the repeat).",
        "",
        "| run | points | seconds | points / minute | ratio to 1 worker |",
        "|---|---:|---:|---:|---:|",
    ]
    for count, seconds, points in rows:
        lines.append(
            f"| {count} worker(s) | {points['done']} done, {points['failed']} failed | "
            f"{seconds:.1f} | {points['total'] / seconds * 60:.1f} | {base / seconds:.2f} |"
        )
    assert reuse is not None
    again, again_points = reuse
    lines += [
        f"| same grid again (2 workers) | {again_points['cached']} reused | {again:.3f} | "
        f"{again_points['total'] / again * 60:.0f} | {base / again:.0f} |",
        "",
        f"Reuse speed-up against the 2-worker run: {rows[1][1] / again:.0f}x.",
        f"Peak RSS of a worker process (worker or work horse): {peak_mb:.0f} MB.",
        "",
    ]
    args.out.write_text("\n".join(lines))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

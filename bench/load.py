"""Load on a real `rwaopt serve` (loopback, SQLite, inline jobs): throughput and latency
percentiles of /health, a tiny POST /api/v1/rwa and a small plan, first on an idle server (the
baseline), then while long solves hold both plan solver processes (two queued OSM plans at
N = 2048, still running when the measurement ends: the script checks). The ratio of the two runs shows what admission control
buys: small rwa stages have a solver process of their own, so their p99 stays near the idle
one; plans wait for a plan process (at most RWAOPT_SOLVE_WAIT_S, then 503 with Retry-After).

    .venv/bin/python bench/load.py            # writes docs/bench-load.md (about a minute)
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.app.server import Server  # noqa: E402

RWA = {"nodes": 6, "wavelengths": 2, "demands": [[0, 3, 2], [1, 4, 1], [2, 5, 1]]}
PLAN = {
    "ring": {"nodes": 8, "wavelengths_per_fiber": 2},
    "collective": "allgather",
    "algorithms": ["ring"],
    "message_sizes_bytes": [4096],
    "shape": "paper",
}
LONG = {  # OSM at odd N = 2047 (even N is constructed): 4.2M lightpaths, a minute of solving
    "ring": {"nodes": 2047, "wavelengths_per_fiber": 64},
    "collective": "allgather",
    "algorithms": ["osm"],
    "message_sizes_bytes": [1048576],
    "shape": "paper",
}
CASES = [("GET /health", "GET", "/health", None), ("POST /api/v1/rwa", "POST", "/api/v1/rwa", RWA),
         ("POST /api/v1/plans (small)", "POST", "/api/v1/plans", PLAN)]  # fmt: skip


def measure(server: Server, method: str, path: str, body: object, requests: int, clients: int):  # type: ignore[no-untyped-def]
    """Latencies (s) and statuses of `requests` calls from `clients` threads."""
    latencies: list[float] = []
    statuses: list[int] = []
    lock = threading.Lock()

    def one(_: int) -> None:
        started = time.perf_counter()
        status, _, _ = server.request(method, path, body, timeout_s=120)
        elapsed = time.perf_counter() - started
        with lock:
            latencies.append(elapsed)
            statuses.append(status)

    started = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(one, range(requests)))
    wall = time.perf_counter() - started
    return latencies, statuses, wall


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run(server: Server, requests: dict[str, int], clients: int) -> list[dict]:
    rows = []
    for name, method, path, body in CASES:
        measure(server, method, path, body, clients, clients)  # warm: every process started
        latencies, statuses, wall = measure(server, method, path, body, requests[name], clients)
        rows.append(
            {
                "case": name,
                "requests": len(latencies),
                "ok": sum(1 for s in statuses if s < 300),
                "busy": sum(1 for s in statuses if s in (429, 503)),
                "per_s": len(latencies) / wall,
                "p50_ms": 1000 * statistics.median(latencies),
                "p99_ms": 1000 * percentile(latencies, 0.99),
            }
        )
        print(rows[-1], flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "bench-load.md")
    parser.add_argument("--clients", type=int, default=4)
    args = parser.parse_args()
    requests = {CASES[0][0]: 400, CASES[1][0]: 100, CASES[2][0]: 40}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        server = Server(
            f"sqlite:///{root / 'load.db'}", root / "uvicorn.log", env={"RWAOPT_SOLVE_WAIT_S": "5"}
        ).start()
        try:
            idle = run(server, requests, args.clients)
            held = []
            for _ in range(2):  # both plan solver processes busy for minutes
                status, body, _ = server.request("POST", "/api/v1/plans?wait=false", LONG)
                assert status == 202, body
                held.append(json.loads(body)["id"])
            time.sleep(3)
            busy = run(server, requests, args.clients)
            still = [
                json.loads(server.request("GET", f"/api/v1/plans/{p}")[1])["status"] for p in held
            ]
            assert still == ["running", "running"], f"the long solves ended early: {still}"
            for plan_id in held:
                server.request("DELETE", f"/api/v1/plans/{plan_id}")
        finally:
            server.stop()
    lines = [
        "# Load: latency with and without long solves (`bench/load.py`)",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}. A real `rwaopt serve` on loopback (SQLite, inline jobs, "
        f"2 plan solver processes + 1 for small rwa stages), {args.clients} client threads, "
        "RWAOPT_SOLVE_WAIT_S=5. 'busy' = answered 429/503 with Retry-After.",
        "",
        "| case | server | requests | ok | busy | per s | p50 ms | p99 ms | p99 ratio to idle |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for before, after in zip(idle, busy, strict=True):
        for label, row in (("idle", before), ("2 long solves", after)):
            lines.append(
                f"| {row['case']} | {label} | {row['requests']} | {row['ok']} | {row['busy']} | "
                f"{row['per_s']:.1f} | {row['p50_ms']:.1f} | {row['p99_ms']:.1f} | "
                f"{row['p99_ms'] / before['p99_ms']:.2f} |"
            )
    lines.append("")
    args.out.write_text("\n".join(lines))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

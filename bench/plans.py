"""Whole plans as a user runs them: `rwaopt plan --shape paper` in a fresh process, every
algorithm of a collective, w = 64, at N = 1024 and 4096. Prints wall time and peak RSS (and
the planning alone: prepare + run_plan in a warm process, as a solver process runs it), and
the ratio to a baseline measured in the same run: the same command with solver.constructions
switched off (every stage coloured by the heuristic, as before the constructions landed) and
the configuration bound too.
The CLI's start is measured too (`--help`, `--version`, against `python -c pass`).

    .venv/bin/python bench/plans.py            # about 15 minutes (the baseline is slow)
    .venv/bin/python bench/plans.py --quick    # N = 1024 only
    .venv/bin/python bench/plans.py --default-only  # default plans at N = 4096, 8192 (~8 min)
Then the default plans (`--shape best`) at N = 4096 and 8192 from the CLI (at 8192 the memory
admission refuses or runs each), with each search's state.
Output: docs/bench-plans.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = str(ROOT / ".venv" / "bin" / "python")
RWAOPT = str(ROOT / ".venv" / "bin" / "rwaopt")

# In-process: prepare + run_plan only (no imports, no output), as the service's solver
# process runs them; printed seconds.
PLANNING = (
    "import sys, time; from app.planning import prepare, run_plan; "
    "from app.schemas.requests import PlanRequest; "
    "r = PlanRequest.model_validate({'ring': {'nodes': int(sys.argv[2]), "
    "'wavelengths_per_fiber': 64}, 'collective': sys.argv[1], "
    "'message_sizes_bytes': [4194304], 'shape': 'paper'}); "
    "t = time.monotonic(); run_plan(prepare(r)); print(time.monotonic() - t)"
)

# The baseline: the same CLI with the constructions refused (solver.solve asks structure_of())
# and without the configuration bound (which would spend its share of every stage the
# heuristic leaves open: the baseline would measure that, not the constructions).
BASELINE = (
    "import sys, solver.solve as s; s.structure_of = lambda stage: None; "
    "s.configuration_bound = lambda *args: None; "
    "from app.cli import cli; sys.argv[0] = 'rwaopt'; cli()"
)


def run(argv: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one child process; its output is discarded."""
    started = time.monotonic()
    with subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) as child:
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode != 0:
            raise SystemExit(f"{' '.join(argv)} failed: {child.stderr.read().decode()[-2000:]}")
    return time.monotonic() - started, usage.ru_maxrss / 1024


def run_json(argv: list[str], refusal: str | None = None) -> tuple[float, float, str]:
    """`run` keeping the child's stdout (a plan's --json answer); a failure whose message
    holds `refusal` is returned as "refused: <message>"."""
    started = time.monotonic()
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as child:
        out = child.stdout.read().decode() if child.stdout else ""
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode != 0:
            error = child.stderr.read().decode() if child.stderr else ""
            if refusal is None or refusal not in error:
                raise SystemExit(f"{' '.join(argv)} failed: {error[-2000:]}")
            out = "refused: " + error.strip().removeprefix("error: ")
    return time.monotonic() - started, usage.ru_maxrss / 1024, out


def _searches(answer: str) -> str:
    """Each searched algorithm's search: exhaustive, or cut with its note."""
    import json

    out = []
    for algorithm in json.loads(answer)["algorithms"]:
        search = (algorithm.get("shapes") or {}).get("search")
        if search:
            state = "exhaustive" if search["exhaustive"] else f"cut ({search['note']})"
            out.append(f"{algorithm['algorithm']} {search['seconds']:.1f} s {state}")
    return "; ".join(out)


def default_plans() -> list[str]:
    """Default plans (`--shape best`) at N = 4096 and 8192 from the CLI (admitted or refused
    up front by the memory estimate)."""
    lines = [
        "## Default plans (`--shape best`: every family searched, 30 s budget each)",
        "",
        f"Load average at the start: {os.getloadavg()[0]:.2f} (2 shared cores: timings vary).",
        "",
        "| N | collective | wall (s) | peak RSS (MB) | searches |",
        "|---|---|---|---|---|",
    ]
    for n in (4096, 8192):
        for collective in ("allgather", "reducescatter", "allreduce", "alltoall"):
            argv = [
                RWAOPT, "plan", "--collective", collective, "--nodes", str(n),
                "--wavelengths", "64", "--message-bytes", "4MiB", "--json",
            ]  # fmt: skip
            seconds, mb, out = run_json(argv, refusal="estimated to need")
            searches = out.strip() if out.startswith("refused") else _searches(out)
            row = f"| {n} | {collective} | {seconds:.1f} | {mb:.0f} | {searches} |"
            lines.append(row)
            print(row, flush=True)
    return lines


def best_of(argv: list[str], times: int) -> float:
    return min(run(argv)[0] for _ in range(times))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="N = 1024 only")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "bench-plans.md")
    parser.add_argument(
        "--default-only",
        action="store_true",
        help="only the default plans (--shape best) at N = 4096 and 8192: replaces that "
        "section of --out",
    )
    args = parser.parse_args()
    if args.default_only:
        text = args.out.read_text() if args.out.exists() else ""
        kept = text.split("\n## Default plans")[0].rstrip("\n")
        args.out.write_text(kept + "\n\n" + "\n".join(default_plans()) + "\n")
        print(f"wrote {args.out}")
        return
    lines = [
        "# Whole plans from the CLI (`bench/plans.py`)",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}. Each command runs in a fresh process (imports, planning, "
        "JSON output to /dev/null); peak RSS is the child's. Baseline: the same command with "
        "`solver.constructions` switched off.",
        "",
        "## Start-up",
        "",
        "| command | best of 5 (s) |",
        "|---|---|",
    ]
    for label, argv in (
        ("python -c pass (interpreter alone)", [PYTHON, "-c", "pass"]),
        ("rwaopt --help", [RWAOPT, "--help"]),
        ("rwaopt --version", [RWAOPT, "--version"]),
    ):
        seconds = best_of(argv, 5)
        lines.append(f"| `{label}` | {seconds:.3f} |")
        print(label, f"{seconds:.3f} s", flush=True)
    lines += [
        "",
        "## Plans (w = 64, F = 1, paper shapes, every algorithm)",
        "",
        "| N | collective | planning only (s) | rwaopt plan (s) | peak RSS (MB) | baseline (s) | "
        "baseline RSS (MB) | speed-up |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for n in (1024,) if args.quick else (1024, 4096):
        for collective in ("allgather", "allreduce", "alltoall"):
            flags = [
                "plan", "--collective", collective, "--nodes", str(n), "--wavelengths", "64",
                "--shape", "paper", "--message-bytes", "4MiB", "--json",
            ]  # fmt: skip
            planning = float(
                subprocess.run(
                    [PYTHON, "-c", PLANNING, collective, str(n)],
                    capture_output=True, text=True, check=True, cwd=ROOT,
                ).stdout.split()[-1]
            )  # fmt: skip
            ours, ours_mb = run([RWAOPT, *flags])
            base, base_mb = run([PYTHON, "-c", BASELINE, *flags])
            row = (
                f"| {n} | {collective} | {planning:.2f} | {ours:.2f} | {ours_mb:.0f} | {base:.2f} "
                f"| {base_mb:.0f} "
                f"| {base / ours:.1f}x |"
            )
            lines.append(row)
            print(row, flush=True)
    lines += ["", *default_plans()]
    args.out.write_text("\n".join(lines) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    sys.exit(main())

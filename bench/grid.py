"""The seeds' evaluation grid on true RWA: is every stage proven, and how long does it take?

Grid: N in {512, 1000, 1024, 2048, 4096}, w in {4, 16, 64, 256}, F in {1, 2}, the three
collectives, every catalog algorithm at its paper shape and at its best shape (the shape
search at one message size, MESSAGE_BYTES, with SEARCH_BUDGET_S per algorithm). Per plan:
stages, stages proven optimal in steps and in channels, the worst stage gap, true steps
against the proven bound, and the time. Every open gap is listed with its reason.

One `StageCache` serves the whole run, as in a sweep: chi does not depend on (w, F), so a
stage solved for one cell is reused (up to rotation and reflection) by every other. Each
cell's time is what it took in that order; the first cell of an N pays for its stages, the
column "solved" says how many stages a plan solved itself.

The textbook link MILP (bench/rwa.py, HiGHS, 20 s) is run on each N's largest stage of the
w = 64, F = 1 paper plans whose model fits (3M nonzeros), and tried on the largest of all.

    .venv/bin/python bench/grid.py                # the whole grid: docs/bench-grid.md, .csv
    .venv/bin/python bench/grid.py --nodes 512    # one N (the docs are rewritten with it)
    .venv/bin/python bench/grid.py --nodes 4096 --no-best --append   # add to (or redo an N
                                                                      # of) the last run
"""

from __future__ import annotations

import argparse
import csv
import json
import platform
import resource
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from models.algorithms.catalog import algorithms  # noqa: E402
from models.errors import AlgorithmRefusedError, LimitExceededError  # noqa: E402
from models.ring import Hardware, Ring  # noqa: E402
from models.stage import Stage  # noqa: E402
from solver.outcome import SolveOptions, Status  # noqa: E402
from solver.plan import AlgorithmPlan, StagePlan, plan_algorithm  # noqa: E402
from solver.shape_search import search_best_shape  # noqa: E402
from solver.solve import AUTO_EXACT_SIZE_LIMIT, estimated_size  # noqa: E402
from solver.stage_cache import StageCache, stage_key  # noqa: E402

NODES = (512, 1000, 1024, 2048, 4096)
WAVELENGTHS = (4, 16, 64, 256)
FIBRES = (1, 2)
COLLECTIVES = ("allgather", "allreduce", "alltoall")
MESSAGE_BYTES = 64 * 2**20
SEARCH_BUDGET_S = 20.0
TEXTBOOK_TIME_S = 20.0

FIELDS = [
    "nodes", "wavelengths", "fibres", "collective", "algorithm", "shape", "params", "stages",
    "distinct", "solved", "proven_steps", "proven_channels", "true_steps", "bound_steps",
    "worst_gap_channels", "seconds", "note",
]  # fmt: skip


@dataclass
class Row:
    values: dict[str, object]
    gaps: list[tuple[str, str]]  # (the open stage, the (w, F) cell and its steps)


def describe(plan: AlgorithmPlan, shape: str, seconds: float, solved: int, note: str) -> Row:
    distinct = [s for s in plan.stages if s.solution_stage == s.index]
    gaps = [gap_reason(plan, s) for s in distinct if s.result.chi != s.result.lower_bound]
    ring = plan.ring
    values: dict[str, object] = {
        "nodes": ring.nodes,
        "wavelengths": ring.wavelengths_per_fiber,
        "fibres": ring.fibers_per_direction,
        "collective": plan.collective,
        "algorithm": plan.algorithm,
        "shape": shape,
        "params": " ".join(f"{k}={v}" for k, v in plan.params.items()),
        "stages": len(plan.stages),
        "distinct": len(distinct),
        "solved": solved,
        "proven_steps": sum(s.steps_optimal for s in plan.stages),
        "proven_channels": sum(s.channels_optimal for s in plan.stages),
        "true_steps": plan.true_steps,
        "bound_steps": plan.steps_lower_bound,
        "worst_gap_channels": max(
            (s.result.chi - s.result.lower_bound for s in distinct), default=0
        ),
        "seconds": round(seconds, 2),
        "note": note,
    }
    return Row(values, gaps)


def gap_reason(plan: AlgorithmPlan, stage: StagePlan) -> tuple[str, str]:
    """Why this stage is open (which methods ran, what stopped the exact one), and in which
    cell, with whether its steps are proven there."""
    r = stage.result
    size = estimated_size(stage.stage, r.chi)
    if r.status == Status.TIME_LIMIT:
        why = "CP-SAT stopped at its time limit"
    elif size > AUTO_EXACT_SIZE_LIMIT:
        why = (
            f"the exact model ({size:,} nonzeros) is over the auto limit "
            f"({AUTO_EXACT_SIZE_LIMIT:,}): only the heuristic ran"
        )
    else:
        why = f"solved by {r.method.value}, not closed"
    load = int(r.assignment.link_loads(plan.ring, stage.stage).max())
    if load == r.chi:
        why += (
            f"; the colouring meets its routing's busiest link ({load}): the gap is the "
            "routing's, between that load and the proven bound on L* (the integer "
            "min-max-load MIP did not close it in its share of the time limit)"
        )
    params = " ".join(f"{k}={v}" for k, v in plan.params.items())
    what = (
        f"N={plan.ring.nodes} {plan.collective}/{plan.algorithm} ({params}) stage {stage.index} "
        f"({stage.label}; {stage.demands:,} demands, {stage.unit_lightpaths:,} lightpaths): "
        f"chi {r.chi} vs bound {r.lower_bound} ({r.bound_source}); {why}"
    )
    steps = "steps proven" if stage.steps_optimal else f"steps {r.steps} vs {r.steps_lower_bound}"
    cell = f"w={plan.ring.wavelengths_per_fiber} F={plan.ring.fibers_per_direction}: {steps}"
    return what, cell


def run_cell(
    ring: Ring, collective: str, cache: StageCache, budget_s: float, best: bool
) -> list[Row]:
    rows = []
    options = SolveOptions()
    for algorithm in algorithms(collective):
        started = time.monotonic()
        before = len(cache.results)
        try:
            params = algorithm.paper_shape(ring)
            paper = plan_algorithm(algorithm, ring, params, [MESSAGE_BYTES], cache=cache)
        except (AlgorithmRefusedError, LimitExceededError) as error:
            rows.append(refused(ring, collective, algorithm.name, "paper", error.message))
            continue
        rows.append(
            describe(paper, "paper", time.monotonic() - started, len(cache.results) - before, "")
        )
        if not best:
            continue
        started = time.monotonic()
        before = len(cache.results)
        search = search_best_shape(
            algorithm, ring, [MESSAGE_BYTES], Hardware(), options, budget_s, paper, cache
        )
        report = search.report
        note = f"{report.evaluated} evaluated, {report.pruned} pruned of {report.candidates}" + (
            "" if report.exhaustive else f"; not exhaustive: {report.note}"
        )
        rows.append(
            describe(
                search.plan, "best", time.monotonic() - started, len(cache.results) - before, note
            )
        )
    return rows


def refused(ring: Ring, collective: str, name: str, shape: str, why: str) -> Row:
    values: dict[str, object] = dict.fromkeys(FIELDS, "")
    values.update(
        nodes=ring.nodes,
        wavelengths=ring.wavelengths_per_fiber,
        fibres=ring.fibers_per_direction,
        collective=collective,
        algorithm=name,
        shape=shape,
        note=f"refused: {why}",
    )
    return Row(values, [])


def textbook_rows(n: int, cache: StageCache) -> list[str]:
    """The textbook MILP on the largest stage of the w = 64 paper plans whose model fits, and
    on the largest stage of all."""
    from rwa import TEXTBOOK_LIMIT, textbook_milp

    from solver.solve import solve_stage

    ring = Ring(n, 1, 64)
    stages: list[Stage] = []
    for collective in COLLECTIVES:
        for algorithm in algorithms(collective):
            try:
                stages += algorithm.stages(ring, algorithm.paper_shape(ring))
            except (AlgorithmRefusedError, LimitExceededError):
                continue
    stages = list({stage_key(s): s for s in stages if not s.is_empty()}.values())
    stages.sort(key=lambda s: s.unit_lightpaths, reverse=True)

    def fits(stage: Stage) -> bool:
        chi = cache.solve(ring, stage, SolveOptions()).chi
        units = stage.unit_lightpaths
        return (stage.nodes + 2) * units * chi <= TEXTBOOK_LIMIT  # the model's nonzeros

    out = []
    fitting = next((s for s in stages if fits(s)), stages[-1])
    for label, stage in (("largest that fits the textbook model", fitting), ("largest", stages[0])):
        fresh_started = time.monotonic()
        ours = solve_stage(ring, stage, SolveOptions())
        fresh_s = max(time.monotonic() - fresh_started, 1e-3)
        text = textbook_milp(stage, max(1, ours.chi), TEXTBOOK_TIME_S)
        if text is None:
            verdict = f"does not fit ({TEXTBOOK_LIMIT:,} nonzeros)"
        else:
            verdict = (
                f"{text['seconds']:.2f} s, chi {text['chi']:.0f}, bound {text['bound']:.0f}"
                f"{'' if text['optimal'] else ' (not proven)'}; "
                f"ratio {text['seconds'] / fresh_s:.1f}x"
            )
        out.append(
            f"| {n} | {label}: {stage.label} ({stage.unit_lightpaths:,} lightpaths) | "
            f"{ours.chi} ({ours.status.value}) in {fresh_s:.3f} s | {verdict} |"
        )
    return out


@dataclass
class Run:
    """What the docs are written from; `--append` continues an earlier run's."""

    rows: list[Row]
    textbook: list[str]
    earlier_s: float = 0.0  # seconds of the runs appended to
    earlier_rss_mb: float = 0.0
    runs: list[str] | None = None  # how each run was invoked


def load(out: Path) -> Run:
    dump = json.loads(out.with_suffix(".json").read_text())
    rows = [Row(values, [tuple(g) for g in gaps]) for values, gaps in dump["rows"]]
    return Run(rows, dump["textbook"], dump["seconds"], dump["rss_mb"], list(dump["runs"]))


def write_docs(run: Run, out: Path, started: float) -> None:
    # By N (an appended N lands at the end of the list), otherwise in the order planned.
    rows = sorted(run.rows, key=lambda r: int(r.values["nodes"]))  # type: ignore[call-overload]
    textbook = sorted(run.textbook, key=lambda t: int(t.split("|")[1]))
    seconds = run.earlier_s + time.monotonic() - started
    rss = max(run.earlier_rss_mb, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    dump = {
        "rows": [[r.values, r.gaps] for r in rows],
        "textbook": textbook,
        "seconds": seconds,
        "rss_mb": rss,
        "runs": run.runs,
    }
    out.with_suffix(".json").write_text(json.dumps(dump))
    with out.with_suffix(".csv").open("w", newline="") as f:
        writer = csv.DictWriter(f, FIELDS)
        writer.writeheader()
        for row in rows:
            writer.writerow(row.values)
    solved = [r for r in rows if r.values["stages"] != ""]
    lines = [
        "# The evaluation grid on true RWA (`bench/grid.py`)",
        "",
        f"Machine: {platform.processor() or platform.machine()}, Python "
        f"{platform.python_version()}; {seconds:.0f} s in all, peak RSS {rss:.0f} MB; runs: "
        f"{'; '.join(f'`{r}`' for r in run.runs or [])}. Message size for "
        f"the best-shape search: {MESSAGE_BYTES / 2**20:.0f} MiB; search budget "
        f"{SEARCH_BUDGET_S:.0f} s per algorithm. One stage cache for the whole run (chi does not "
        "depend on w or F): a cell's time is what it cost after the cells before it; `solved` "
        "counts the stages it solved itself. Every row: `docs/bench-grid.csv`.",
        "",
        "## Per cell",
        "",
        "| N | w | F | plans | refused | stages | proven in steps | proven in channels | "
        "plans at their bound | time (s) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    cells: dict[tuple[object, object, object], list[Row]] = {}
    for row in rows:
        v = row.values
        cells.setdefault((v["nodes"], v["wavelengths"], v["fibres"]), []).append(row)
    for (n, w, f), cell in cells.items():
        done = [r.values for r in cell if r.values["stages"] != ""]
        stages = sum(int(v["stages"]) for v in done)  # type: ignore[call-overload]
        steps = sum(int(v["proven_steps"]) for v in done)  # type: ignore[call-overload]
        chans = sum(int(v["proven_channels"]) for v in done)  # type: ignore[call-overload]
        at_bound = sum(v["true_steps"] == v["bound_steps"] for v in done)
        secs = sum(float(v["seconds"]) for v in done)  # type: ignore[arg-type]
        lines.append(
            f"| {n} | {w} | {f} | {len(done)} | {len(cell) - len(done)} | {stages} | "
            f"{steps} ({100 * steps / max(1, stages):.2f}%) | "
            f"{chans} ({100 * chans / max(1, stages):.2f}%) | {at_bound} of {len(done)} | "
            f"{secs:.1f} |"
        )
    lines += [
        "",
        "## Plans at w = 64, F = 1",
        "",
        "| N | collective | algorithm | shape | params | stages | true steps | bound | "
        "proven (steps / channels) | time (s) | note |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        v = row.values
        if v["wavelengths"] != 64 or v["fibres"] != 1:
            continue
        if v["stages"] == "":
            lines.append(
                f"| {v['nodes']} | {v['collective']} | {v['algorithm']} | {v['shape']} | | | | | "
                f"| | {v['note']} |"
            )
            continue
        lines.append(
            f"| {v['nodes']} | {v['collective']} | {v['algorithm']} | {v['shape']} | "
            f"{v['params']} | {v['stages']} | {v['true_steps']} | {v['bound_steps']} | "
            f"{v['proven_steps']} / {v['proven_channels']} | {v['seconds']} | {v['note']} |"
        )
    gaps: dict[str, list[str]] = {}
    for row in rows:
        for what, cell in row.gaps:
            cells = gaps.setdefault(what, [])
            if cell not in cells:
                cells.append(cell)
    steps_open = sum(1 for cells in gaps.values() for c in cells if "proven" not in c)
    lines += [
        "",
        f"## Open gaps: {len(gaps)} stages above their bound in channels "
        f"({steps_open} (stage, cell) pairs also in steps)",
        "",
    ]
    lines += [f"- {what}. Cells: {'; '.join(cells)}" for what, cells in gaps.items()] or [
        "None: every stage is proven in channels."
    ]
    lines += [
        "",
        "## Against the textbook link MILP",
        "",
        "| N | stage | rwaopt (fresh, no cache) | textbook MILP (HiGHS, 20 s) |",
        "|---|---|---|---|",
        *textbook,
        "",
        f"{len(solved)} plans solved, {len(rows) - len(solved)} refused by their algorithm.",
    ]
    out.write_text("\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, nargs="*", default=list(NODES))
    parser.add_argument("--no-best", action="store_true", help="paper shapes only")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "bench-grid.md")
    parser.add_argument("--append", action="store_true", help="add to the earlier run's rows")
    args = parser.parse_args()
    started = time.monotonic()
    cache = StageCache(run_limit=200_000_000)
    run = load(args.out) if args.append else Run([], [], runs=[])
    again = set(args.nodes)  # an appended N replaces that N's earlier rows
    run.rows[:] = [r for r in run.rows if r.values["nodes"] not in again]
    run.textbook[:] = [t for t in run.textbook if int(t.split("|")[1]) not in again]
    run.runs = [*(run.runs or []), "bench/grid.py " + " ".join(sys.argv[1:])]
    rows, textbook = run.rows, run.textbook
    for n in args.nodes:
        for w in WAVELENGTHS:
            for f in FIBRES:
                ring = Ring(n, f, w)
                for collective in COLLECTIVES:
                    t = time.monotonic()
                    rows += run_cell(ring, collective, cache, SEARCH_BUDGET_S, not args.no_best)
                    print(
                        f"N={n} w={w} F={f} {collective}: {time.monotonic() - t:.1f} s",
                        flush=True,
                    )
                write_docs(run, args.out, started)
        textbook += textbook_rows(n, cache)
        write_docs(run, args.out, started)
    print(f"wrote {args.out} and {args.out.with_suffix('.csv')}")


if __name__ == "__main__":
    main()

"""The functions behind every command and endpoint; the CLI, the REST routes and the job
runners call these and nothing below them.

    rwaopt plan / POST /api/v1/plans -> PlanRequest (validated once)
        -> planning.prepare -> PlanSpec -> execute -> SolvedPlan(PlanResult, solutions)
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from app.planning import PlannedAlgorithm, PlanProgress, PlanRun, PlanSpec, run_plan
from app.recommendation import recommendation
from app.schemas.requests import (
    ReproductionRequest,
    RingSpec,
    RwaInput,
    SolveSettings,
)
from app.schemas.results import (
    AchievableResult,
    AlgorithmResult,
    CatalogEntry,
    ElectricalResult,
    FindingResult,
    PlanResult,
    RwaResponse,
    SkippedAlgorithm,
)
from models.algorithms.base import Collective
from models.algorithms.catalog import parse_collective
from models.errors import AlgorithmRefusedError, InvalidInputError
from models.ring import Ring
from solver.electrical import compare
from solver.optimal import OptimalSchedule
from solver.plan import AlgorithmPlan
from solver.solve import solve_stage

if TYPE_CHECKING:
    from app.persistence.store import Reproduction, Solution

# The database, the report writer (matplotlib) and the reproductions load inside the functions
# that use them: `rwaopt plan` needs none of them, and they cost about a second to import.


@dataclass(frozen=True)
class SolvedPlan:
    """A plan's answer, its distinct stage solutions (for the lightpath table and plots) and
    how long solving took."""

    result: PlanResult
    solutions: list[Solution]
    seconds: float


def answer(spec: PlanSpec, progress: PlanProgress | None = None) -> PlanResult:
    """A checked plan's answer alone, for a caller that stores nothing (the CLI)."""
    return plan_result(spec, run_plan(spec, progress))


def execute(spec: PlanSpec, progress: PlanProgress | None = None) -> SolvedPlan:
    """Solve a checked plan; `progress(algorithm, done, total)` reports stages."""
    started = time.monotonic()
    run = run_plan(spec, progress)
    return SolvedPlan(plan_result(spec, run), solutions(run.planned), time.monotonic() - started)


def plan_result(spec: PlanSpec, run: PlanRun) -> PlanResult:
    planned = run.planned
    if not planned:  # every algorithm skipped while solving: no rows, no recommendation
        # (the CLI's table raised IndexError; fuzz of plan documents, session 34)
        raise AlgorithmRefusedError(
            "no algorithm could be planned for this request: "
            + "; ".join(f"{name}: {why}" for name, why in run.skipped),
            {"skipped": [{"algorithm": name, "reason": why} for name, why in run.skipped]},
        )
    electrical = None
    if spec.electrical is not None:
        electrical = compare(
            feasible_plans(planned),
            spec.ring.nodes,
            spec.message_bytes,
            spec.electrical,
            spec.electrical_model,
            spec.simulate_electrical,
        )
    return PlanResult(
        collective=spec.collective,
        ring=RingSpec.of(spec.ring),
        algorithms=[AlgorithmResult.of(p) for p in planned],
        skipped=[SkippedAlgorithm(algorithm=name, reason=why) for name, why in run.skipped],
        recommendation=recommendation(planned, electrical, run.achievable, run.class_bound),
        achievable=achievable(run),
        electrical=None if electrical is None else ElectricalResult.of(electrical),
    )


def feasible_plans(planned: Sequence[PlannedAlgorithm]) -> list[AlgorithmPlan]:
    """Every optically feasible plan of the run the recommendation may pick at some size:
    each row that is feasible and each size's fastest feasible shape of a search. The
    electrical crossover is taken over these: over the rows alone (each the first size's
    shape, feasible or not) it said "the electrical fat-tree is faster at every size" beside
    a recommendation of `synth` at 1 TB (its 1 TB shape is another; fuzz, session 35)."""
    out: dict[int, AlgorithmPlan] = {}
    for p in planned:
        if p.optics.feasible:
            out[id(p.plan)] = p.plan
        for found in p.best.feasible_by_message if p.best is not None else ():
            if found is not None:
                out[id(found.plan)] = found.plan
    return list(out.values())


def achievable(run: PlanRun) -> list[AchievableResult]:
    """Per message size the bound on every schedule (SPEC 12), and the exact optimum when the
    plan ran `optimal` and its schedule is proven: every shape the search tried was solved to
    a proven least number of slots, and the RWA of every slot fits one slot."""
    exact = next((p for p in run.planned if isinstance(p.algorithm, OptimalSchedule)), None)
    out = []
    classes = run.class_bound or (None,) * len(run.achievable)
    for i, (bound, free, within) in enumerate(
        zip(run.achievable, run.achievable_without_optics, classes, strict=True)
    ):
        entry = AchievableResult(
            message_bytes=bound.message_bytes,
            bound_s=bound.bound_s,
            terms=bound.terms,
            hop_limit=bound.hop_limit,
            slots=bound.slots,
            slots_at_bound=bound.slots_at_bound,
            decided_by=bound.decided_by,
            bound_without_optics_s=free.bound_s,
            reduce_then_broadcast_s=None if within is None else within.bound_s,
        )
        if exact is not None:
            winner = exact.best.by_message[i] if exact.best is not None else exact.plan
            proven = exact.best is None or exact.best.report.exhaustive
            solved = exact.algorithm.solved(winner.ring, winner.params)  # type: ignore[attr-defined]
            if proven and solved.optimal and winner.true_steps == solved.slot_count:
                entry.exact_s = winner.timings[i].time_s
                entry.exact_pieces = solved.pieces
        out.append(entry)
    return out


def solutions(planned: list[PlannedAlgorithm]) -> list[Solution]:
    """One stored solution per distinct stage of every algorithm."""
    from app.persistence.codec import encode
    from app.persistence.store import Solution

    return [
        Solution(p.algorithm, s.index, encode(s.stage, s.result.assignment))
        for p in (entry.plan for entry in planned)
        for s in p.stages
        if s.solution_stage == s.index
    ]


def rwa(data: RwaInput, settings: SolveSettings) -> RwaResponse:
    """One stage's certified RWA (`rwaopt rwa`, POST /api/v1/rwa)."""
    ring, stage = data.ring(), data.stage()
    return RwaResponse.of(ring, stage, solve_stage(ring, stage, settings.options()))


def catalog(
    collective: str | None = None,
    nodes: int | None = None,
    wavelengths: int | None = None,
    fibers: int = 1,
) -> list[CatalogEntry]:
    """The catalog (the papers' algorithms, then `synth` and `optimal`); with a ring, every
    closed form evaluated at the paper's shape."""
    ring = None
    if nodes is not None or wavelengths is not None:
        if nodes is None or wavelengths is None:
            raise InvalidInputError("give both nodes and wavelengths to evaluate closed forms")
        ring = Ring(nodes, fibers, wavelengths)
    from solver.catalog import algorithms as plan_algorithms

    collectives = [parse_collective(collective)] if collective is not None else list(Collective)
    return [CatalogEntry.of(a, ring) for c in collectives for a in plan_algorithms(c)]


def reproduce(
    request: ReproductionRequest,
    out: Path,
    cache: Path | None = None,
    database_url: str | None = None,
) -> Reproduction:
    """Rebuild the chosen papers' tables and figures into `out` (`rwaopt reproduce`, POST
    /api/v1/reproductions); plans solved before are read from `cache` (default
    `out/cache.json`) and, with `database_url`, from the database's plan summaries (what
    queued reproductions share); new ones are added to both."""
    from app.persistence.store import Reproduction
    from app.reproduction import PlanCache
    from app.reproduction import reproduce as build_sections
    from app.reproduction.writer import write_report

    started = time.monotonic()
    out.mkdir(parents=True, exist_ok=True)
    store = None
    if database_url is not None:
        from app.persistence.store import SummaryStore

        store = SummaryStore(database_url)
    plans = PlanCache(cache or out / "cache.json", store)
    sections = build_sections(request.chosen(), request.quick, plans)
    write_report(sections, out)
    files = {
        str(path.relative_to(out)): path.read_bytes()
        for path in sorted(out.rglob("*"))
        if path.is_file() and path.name != "cache.json"
    }
    findings = [FindingResult.of(f) for s in sections for f in s.findings]
    return Reproduction(findings, files, time.monotonic() - started)

"""Best shape of an algorithm family, searched on true RWA (SPEC section 7).

Every candidate shape of the family gets a certified lower bound on its time per message size
(per stage, `solver.quick_bounds` on chi, divided into slots, times the stage's slot time).
Candidates are then taken in the order of their bounds; one whose bound cannot beat the best
true time found so far at any message size, nor tie it with fewer steps, is pruned. A
candidate that survives is bounded again with the LP relaxation of L*
(`solver.bounds.lp_load_bound`, per distinct stage) and pruned if that bound rules it out;
only the rest are solved. The winner per message size is the least true time, ties broken
by fewer true steps. A time budget cuts the search; the report says whether it was
exhaustive.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from models.algorithms.base import Algorithm, Params
from models.errors import AlgorithmRefusedError, LimitExceededError
from models.ring import Hardware, Ring
from solver.bounds import lp_load_bound
from solver.plan import (
    AlgorithmPlan,
    DeadlineReached,
    SolveOptions,
    StageCache,
    plan_algorithm,
    plan_time_s,
    stage_key,
)
from solver.quick_bounds import quick_bound, shift_bound

LP_DEMAND_LIMIT = 20_000  # larger stages keep their quick bound (the LP would take seconds)


@dataclass(frozen=True)
class SearchReport:
    candidates: int  # shapes of the family the search knows
    evaluated: int  # solved on true RWA
    pruned: int  # ruled out by their bound
    exhaustive: bool  # every candidate was solved or pruned
    seconds: float
    note: str = ""


@dataclass(frozen=True)
class BestShape:
    """Per message size, the winning plan (the same object when one shape wins all)."""

    by_message: tuple[AlgorithmPlan, ...]
    report: SearchReport

    @property
    def plan(self) -> AlgorithmPlan:
        """The shape reported as `best`: the winner at the first message size."""
        return self.by_message[0]


@dataclass
class _Candidate:
    params: Params
    steps_bound: int
    time_bounds: list[float] = field(default_factory=list)
    tier: int = 1  # 1: quick bounds; 2: L*


def _load_bounded(
    algorithm: Algorithm,
    ring: Ring,
    candidate: _Candidate,
    sizes: Sequence[float],
    hardware: Hardware,
    cache: dict[bytes, int],
) -> _Candidate:
    channels = ring.channels_per_direction
    per_stage = []
    for stage in algorithm.stages(ring, candidate.params):
        key = stage_key(stage)
        if key not in cache:
            lp = lp_load_bound(stage) if stage.demand_count <= LP_DEMAND_LIMIT else 0
            cache[key] = max(lp, quick_bound(stage))
        per_stage.append((-(-cache[key] // channels), stage.pieces))
    pieces = algorithm.data_per_message(ring, candidate.params)
    steps = sum(k for k, _ in per_stage)
    times = [plan_time_s(per_stage, size, pieces, hardware) for size in sizes]
    return _Candidate(
        candidate.params,
        max(steps, candidate.steps_bound),
        [max(a, b) for a, b in zip(times, candidate.time_bounds, strict=True)],
        tier=2,
    )


def _bounded(
    algorithm: Algorithm,
    ring: Ring,
    params: Params,
    sizes: Sequence[float],
    hardware: Hardware,
    bounds: dict[bytes, int],
) -> _Candidate:
    channels = ring.channels_per_direction
    shifts = algorithm.shift_rounds(ring, params)
    if shifts is not None:
        per_stage = [(-(-shift_bound(ring.nodes, sh, k) // channels), 1) for sh, k in shifts]
    else:
        per_stage = []
        for stage in algorithm.stages(ring, params):
            key = stage_key(stage)
            if key not in bounds:
                bounds[key] = quick_bound(stage)
            per_stage.append((-(-bounds[key] // channels), stage.pieces))
    pieces = algorithm.data_per_message(ring, params)
    return _Candidate(
        params,
        sum(steps for steps, _ in per_stage),
        [plan_time_s(per_stage, size, pieces, hardware) for size in sizes],
    )


def _better(new: AlgorithmPlan, old: AlgorithmPlan, i: int) -> bool:
    if not new.timings:
        return new.true_steps < old.true_steps
    a, b = new.timings[i].time_s, old.timings[i].time_s
    return a < b * (1 - 1e-12) or (a <= b * (1 + 1e-12) and new.true_steps < old.true_steps)


def search_best_shape(
    algorithm: Algorithm,
    ring: Ring,
    message_bytes: Sequence[float],
    hardware: Hardware,
    options: SolveOptions,
    budget_s: float,
    incumbent: AlgorithmPlan,
    cache: StageCache | None = None,
) -> BestShape:
    """Search the family of `algorithm` for its best shape, starting from `incumbent` (the
    paper's shape, already solved). Candidates the algorithm refuses are skipped."""
    started = time.monotonic()
    cache = cache if cache is not None else StageCache()
    sizes = list(message_bytes)
    slots = max(1, len(sizes))
    best = [incumbent] * slots
    bounds: dict[bytes, int] = {}
    candidates: list[_Candidate] = []
    known = 0
    cut = ""
    for raw in algorithm.shape_candidates(ring):
        known += 1
        if time.monotonic() - started > budget_s:
            cut = "time budget reached while bounding candidates"
            continue
        try:
            params = algorithm.resolve(ring, raw)
        except AlgorithmRefusedError:
            continue
        candidates.append(_bounded(algorithm, ring, params, sizes, hardware, bounds))
    candidates.sort(key=lambda c: (c.time_bounds[:1], c.steps_bound))
    evaluated = pruned = 0
    load_bounds: dict[bytes, int] = {}
    for candidate in candidates:
        if _cannot_win(candidate, best):
            pruned += 1
            continue
        if cut or time.monotonic() - started > budget_s:
            cut = cut or "time budget reached while solving candidates"
            continue
        if candidate.tier == 1 and algorithm.shift_rounds(ring, candidate.params) is None:
            candidate = _load_bounded(algorithm, ring, candidate, sizes, hardware, load_bounds)
            if _cannot_win(candidate, best):
                pruned += 1
                continue
        try:
            plan = plan_algorithm(
                algorithm,
                ring,
                candidate.params,
                sizes,
                hardware,
                options,
                None,
                cache,
                deadline=started + budget_s,
            )
        except DeadlineReached:
            cut = "time budget reached while solving a candidate"
            continue
        except LimitExceededError as error:
            cut = f"a candidate was skipped: {error.message}"
            continue
        evaluated += 1
        for i in range(slots):
            if _better(plan, best[i], i):
                best[i] = plan
    bounded = len(candidates)
    exhaustive = not cut and evaluated + pruned == bounded
    report = SearchReport(
        candidates=known,
        evaluated=evaluated,
        pruned=pruned,
        exhaustive=exhaustive,
        seconds=time.monotonic() - started,
        note=cut,
    )
    return BestShape(tuple(best), report)


def _cannot_win(candidate: _Candidate, best: list[AlgorithmPlan]) -> bool:
    """Its bound is no better than the incumbent at every size, and (on equal time) it
    cannot have fewer steps."""
    for i, plan in enumerate(best):
        if not plan.timings:
            return candidate.steps_bound >= plan.true_steps
        bound, held = candidate.time_bounds[i], plan.timings[i].time_s
        if bound < held * (1 - 1e-12):
            return False
        if bound <= held * (1 + 1e-12) and candidate.steps_bound < plan.true_steps:
            return False
    return True

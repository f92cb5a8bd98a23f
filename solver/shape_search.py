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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from models.algorithms.base import Algorithm, Params
from models.errors import AlgorithmRefusedError, LimitExceededError
from models.ring import Hardware, Ring
from models.stage import Stage
from solver.bounds import lp_load_bound
from solver.outcome import SolveOptions
from solver.plan import AlgorithmPlan, DeadlineReached, plan_algorithm, plan_time_s
from solver.quick_bounds import quick_bound, shift_bound
from solver.stage_cache import StageCache, shared_cache, stage_key

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


def _candidate(
    algorithm: Algorithm,
    ring: Ring,
    params: Params,
    sizes: Sequence[float],
    hardware: Hardware,
    slots: list[tuple[int, int]],
) -> _Candidate:
    """A candidate whose stages take at least `slots` (steps, pieces per lightpath)."""
    pieces = algorithm.data_per_message(ring, params)
    return _Candidate(
        params,
        sum(steps for steps, _ in slots),
        [plan_time_s(slots, size, pieces, hardware) for size in sizes],
    )


def _stage_slots(
    algorithm: Algorithm,
    ring: Ring,
    params: Params,
    chi_bound: Callable[[Stage], int],
    cache: dict[bytes, int],
) -> list[tuple[int, int]]:
    """Per stage, (slots its chi bound needs, pieces per lightpath); bounds cached by stage."""
    channels = ring.channels_per_direction
    out = []
    for stage in algorithm.stages(ring, params):
        key = stage_key(stage)
        if key not in cache:
            cache[key] = chi_bound(stage)
        out.append((-(-cache[key] // channels), stage.pieces))
    return out


def _lp_or_quick(stage: Stage) -> int:
    """The LP of L* (below LP_DEMAND_LIMIT demands), never below the quick bounds."""
    lp = lp_load_bound(stage) if stage.demand_count <= LP_DEMAND_LIMIT else 0
    return max(lp, quick_bound(stage))


def _bounded(
    algorithm: Algorithm,
    ring: Ring,
    params: Params,
    sizes: Sequence[float],
    hardware: Hardware,
    bounds: dict[bytes, int],
) -> _Candidate:
    """First tier: quick bounds per stage, or the closed shift bound for TRA rounds."""
    shifts = algorithm.shift_rounds(ring, params)
    if shifts is None:
        slots = _stage_slots(algorithm, ring, params, quick_bound, bounds)
    else:
        channels = ring.channels_per_direction
        slots = [(-(-shift_bound(ring.nodes, sh, k) // channels), 1) for sh, k in shifts]
    return _candidate(algorithm, ring, params, sizes, hardware, slots)


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
    cache = cache if cache is not None else shared_cache()
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
            candidates.append(_bounded(algorithm, ring, params, sizes, hardware, bounds))
        except AlgorithmRefusedError:
            continue
        except LimitExceededError as error:  # a computed schedule found none in its time
            cut = f"a candidate was skipped: {error.message}"
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
        if algorithm.shift_rounds(ring, candidate.params) is None:
            # Second tier: per stage the LP of L* is at least its quick bound, so these
            # bounds are at least the first tier's.
            tight = _stage_slots(algorithm, ring, candidate.params, _lp_or_quick, load_bounds)
            candidate = _candidate(algorithm, ring, candidate.params, sizes, hardware, tight)
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

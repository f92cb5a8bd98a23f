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

import heapq
import math
import time
import weakref
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Generic, TypeVar

import numpy as np

from models.algorithms.base import Algorithm, Params, StageSketch
from models.errors import AlgorithmRefusedError, LimitExceededError
from models.optics import OpticalParameters, longest_reliable_hops
from models.optics import max_hops as optics_max_hops
from models.ring import Direction, Hardware, Ring
from models.stage import IntArray, Stage
from solver.bounds import (
    class_lp_bound,
    independence_caps,
    link_loads,
    lp_load_bound,
    rotation_period,
)
from solver.feasibility import PlanOptics, evaluate_plan
from solver.outcome import SolveOptions
from solver.plan import AlgorithmPlan, DeadlineReached, plan_algorithm, plan_time_s
from solver.quick_bounds import quick_bound, shift_bounds, translated_all_to_all_bound
from solver.stage_cache import StageCache, shared_cache, stage_key

LP_DEMAND_LIMIT = 20_000  # larger stages keep their quick bound (the LP would take seconds)
PERIODIC_LP_LIMIT = 1_000_000  # period x orbits of the periodic LP (seconds beyond)


@dataclass(frozen=True)
class SearchReport:
    candidates: int  # shapes of the family the search knows
    evaluated: int  # solved on true RWA
    pruned: int  # ruled out by their bound
    exhaustive: bool  # every candidate was solved, pruned or beyond max_lightpath_hops
    seconds: float
    note: str = ""
    infeasible: int = 0  # proven optically infeasible under any routing (a lightpath too long)
    beyond_hops: int = 0  # left out: a lightpath longer than the request's max_lightpath_hops
    refused: int = 0  # left out: the family refuses the shape on this ring (a limit of its own)


@dataclass(frozen=True)
class FeasibleShape:
    """A shape that is optically feasible under the request's optics, as solved: with free
    routing (`hop_limit` is the request's max_lightpath_hops, or None), or routed within
    `hop_limit` hops because that made it feasible."""

    plan: AlgorithmPlan
    hop_limit: int | None
    optics: PlanOptics


V = TypeVar("V")


class IdentityMemo(Generic[V]):
    """Values per tuple of objects, by identity, without keeping the objects alive: keyed by
    their id()s, with weak references checked on every read. An id is reused once its
    object is garbage collected, and a plain id-keyed memo then handed a discarded free
    plan's "feasible" verdict to a later plan (a TRA shape with 253-hop lightpaths was
    reported feasible); holding the objects instead kept 1 GB of stages alive."""

    def __init__(self) -> None:
        self._by_id: dict[tuple[int, ...], tuple[tuple[weakref.ref[Any], ...], V]] = {}

    def get(self, *objects: Any) -> V | None:
        held = self._by_id.get(tuple(map(id, objects)))
        if held is None or any(r() is not o for r, o in zip(held[0], objects, strict=True)):
            return None
        return held[1]

    def put(self, value: V, *objects: Any) -> None:
        self._by_id[tuple(map(id, objects))] = (tuple(map(weakref.ref, objects)), value)


PlanOpticsMemo = IdentityMemo[PlanOptics]  # optics evaluated per plan object


@dataclass(frozen=True)
class BestShape:
    """Per message size, the winning plan (the same object when one shape wins all), and the
    fastest optically feasible one (None: no shape of the family is feasible; without
    optics the search does not look)."""

    by_message: tuple[AlgorithmPlan, ...]
    report: SearchReport
    feasible_by_message: tuple[FeasibleShape | None, ...] = ()
    optics_by_plan: PlanOpticsMemo = field(default_factory=PlanOpticsMemo)

    def optics_of(self, plan: AlgorithmPlan) -> PlanOptics | None:
        """The optics the search evaluated for `plan`, if it did."""
        return self.optics_by_plan.get(plan)

    @property
    def plan(self) -> AlgorithmPlan:
        """The shape reported as `best`: the winner at the first message size."""
        return self.by_message[0]

    @property
    def feasible(self) -> FeasibleShape | None:
        """The shape reported as `best_feasible`: the feasible winner at the first size."""
        return self.feasible_by_message[0] if self.feasible_by_message else None


@dataclass
class _Candidate:
    params: Params
    steps_bound: int
    time_bounds: list[float] = field(default_factory=list)
    longest: int = 0  # longest lightpath any routing needs: max over demands of the shorter arc
    slots: list[tuple[int, int]] = field(default_factory=list)  # per stage: (steps, pieces)
    # Bounds of its optically feasible plans (every lightpath within the optics' reach), when
    # tighter than the free ones (TRA rounds held to their short way); None: the free ones.
    reach_bound: _Candidate | None = None


@dataclass(frozen=True)
class OpticsTarget:
    """What the optics-aware search keeps to: the optics to check, and the hop limits to
    route an infeasible shape within (loosest first): every lightpath longer than `reach`
    is unreliable whatever its neighbours (models.optics.longest_reliable_hops, and the
    request's max_lightpath_hops), so a shape that needs one is infeasible."""

    params: OpticalParameters
    reach: int
    hop_limits: tuple[int, ...]

    @staticmethod
    def of(params: OpticalParameters, max_hops: int | None = None) -> OpticsTarget:
        """The reach is the longest reliable lightpath (no crosstalk neighbour), within the
        request's max_lightpath_hops; the hop limits tried are the reach and the worst
        case's longest lightpath (every lightpath that short passes: models.optics.max_hops)."""
        reach = longest_reliable_hops(params)
        worst, _ = optics_max_hops(params)
        if max_hops is not None:
            reach, worst = min(reach, max_hops), min(worst, max_hops)
        limits = sorted({h for h in (reach, worst) if h >= 1}, reverse=True)
        return OpticsTarget(params, reach, tuple(limits))


def _candidate(
    algorithm: Algorithm,
    ring: Ring,
    params: Params,
    sizes: Sequence[float],
    hardware: Hardware,
    slots: list[tuple[int, int]],
    longest: int = 0,
) -> _Candidate:
    """A candidate whose stages take at least `slots` (steps, pieces per lightpath)."""
    pieces = algorithm.data_per_message(ring, params)
    return _Candidate(
        params,
        sum(steps for steps, _ in slots),
        [plan_time_s(slots, size, pieces, hardware) for size in sizes],
        longest,
        list(slots),
    )


def _stage_slots(
    algorithm: Algorithm,
    ring: Ring,
    params: Params,
    chi_bound: Callable[[Stage], int],
    cache: dict[Hashable, int],
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


def _lp_is_cheap(stage: Stage) -> bool:
    """The LP of L* costs at most a fraction of a second: below LP_DEMAND_LIMIT demands, and
    when the stage has a rotation period t < N, its orbit model small (t x orbits below
    PERIODIC_LP_LIMIT: OpTree's exact stage 2 at N = 4096, t = 1024, took 4.6 s)."""
    if stage.demand_count > LP_DEMAND_LIMIT:
        return False
    period = rotation_period(stage)
    return period == stage.nodes or int((stage.sources < period).sum()) * period <= (
        PERIODIC_LP_LIMIT
    )


def _lp_or_quick(stage: Stage) -> int:
    """The LP of L* where it is cheap, never below the quick bounds."""
    lp = lp_load_bound(stage) if _lp_is_cheap(stage) else 0
    return max(lp, quick_bound(stage))


def _lp_ceiling(stage: Stage) -> float:
    """An upper bound on the LP of L* (hence on every class LP): the value of the shortest
    routing, max(its largest link load, its CW and CCW units over their independence
    caps)."""
    n = stage.nodes
    cw = (stage.destinations - stage.sources) % n
    clockwise = np.where(2 * cw <= n, stage.counts, 0)
    clockwise = np.where(stage.allowed == Direction.CW, stage.counts, clockwise)
    clockwise = np.where(stage.allowed == Direction.CCW, 0, clockwise)
    cw_load, ccw_load = link_loads(stage, clockwise)
    alpha_cw, alpha_ccw = independence_caps(stage)
    units = int(stage.counts.sum())
    sent_cw = int(clockwise.sum())
    return max(
        float(cw_load.max(initial=0)),
        float(ccw_load.max(initial=0)),
        sent_cw / alpha_cw,
        (units - sent_cw) / alpha_ccw,
    )


def _refined(sketch: StageSketch, quick: int, channels: int) -> int:
    """Second tier of a built sketch's stage: the LP of L* where it is cheap (a period below
    N), else the class LP on the sketch's link classes (a padded OpTree stage), else the
    quick bound `quick`."""
    assert sketch.build is not None
    stage = sketch.build()
    if math.ceil(_lp_ceiling(stage)) <= -(-quick // channels) * channels:
        return quick  # no LP can add a slot
    if rotation_period(stage) < stage.nodes and _lp_is_cheap(stage):
        return max(quick, lp_load_bound(stage))
    classes = sketch.classes() if sketch.classes is not None else None
    if classes is not None:
        return max(quick, class_lp_bound(stage, classes))
    return quick


def _longest(stage: Stage) -> int:
    """The longest lightpath any routing of the stage needs: max over demands of the
    shorter arc. A block of demands at a time: OSM's one stage at N = 8192 has 67M demands,
    and the whole-stage temporaries took 1.5 GB above a plan's 4.1 GB."""
    if stage.is_empty():
        return 0
    n, longest = stage.nodes, 0
    for lo in range(0, stage.demand_count, _LONGEST_BLOCK):
        hi = lo + _LONGEST_BLOCK
        cw = (stage.destinations[lo:hi] - stage.sources[lo:hi]) % n
        longest = max(longest, int(np.minimum(cw, n - cw).max()))
    return longest


_LONGEST_BLOCK = 1 << 20  # demands `_longest` looks at at once


def _longest_of_set(nodes: int, positions: IntArray) -> int:
    """max over pairs of `positions` of the shorter arc: for each node the one nearest the
    antipode, by binary search (O(r log r), not r^2)."""
    if len(positions) < 2:
        return 0
    ordered = np.sort(positions)
    doubled = np.concatenate([ordered, ordered + nodes])
    at = np.searchsorted(doubled, ordered + nodes // 2)
    best = 0
    for near in (doubled[np.maximum(at - 1, 0)], doubled[np.minimum(at, len(doubled) - 1)]):
        arc = (near - ordered) % nodes
        best = max(best, int(np.minimum(arc, nodes - arc).max()))
    return best


def shapes_within(
    algorithm: Algorithm, ring: Ring, limit: int, skip: Params | None = None
) -> Iterator[Params]:
    """The family's shapes (resolved, in its search order, `skip` left out) of which every
    demand's shorter arc keeps to `limit` hops: the shapes a plan under max_lightpath_hops
    may use (a stage with pinned directions can still need a longer arc: solving it with
    the limit, `models.stage.within_hops`, decides). Read from the family's shift rounds or
    sketches where it has them, building a stage only where its sketch must and stopping at
    the first stage beyond, so a family of which nothing fits costs about its search's
    bounding (OpTree at N = 4096: 2450 shapes, none within 80 hops)."""
    for raw in algorithm.shape_candidates(ring):
        try:
            params = algorithm.resolve(ring, raw)
            if params != skip and _longest_within(algorithm, ring, params, limit):
                yield params
        except (AlgorithmRefusedError, LimitExceededError):
            continue


def _longest_within(algorithm: Algorithm, ring: Ring, params: Params, limit: int) -> bool:
    rounds = algorithm.shift_round_arrays(ring, params)
    if rounds is not None:
        return _longest_shift(ring.nodes, rounds[0]) <= limit
    sketches = algorithm.stage_sketches(ring, params)
    if sketches is None:
        sketches = [StageSketch(None, s.pieces, stage=s) for s in algorithm.stages(ring, params)]
    for sketch in sketches:
        stage = _sketched_stage(sketch)
        if stage is not None:
            far = _longest(stage)
        else:
            assert sketch.positions is not None
            far = _longest_of_set(ring.nodes, sketch.positions)
        if far > limit:
            return False
    return True


def _longest_shift(nodes: int, shifts: IntArray) -> int:
    """The longest lightpath shift rounds need: max over shifts of the shorter arc."""
    arcs = shifts % nodes
    return int(np.minimum(arcs, nodes - arcs).max(initial=0))


def _sketched_stage(sketch: StageSketch) -> Stage | None:
    """The sketch's stage, built now if it has to be; None for a translated all-to-all."""
    if sketch.stage is not None:
        return sketch.stage
    return sketch.build() if sketch.build is not None else None


def _sketch_bound(ring: Ring, sketch: StageSketch) -> tuple[int, int]:
    """quick_bound of the sketched stage (built, built now, or a translated all-to-all) and
    the longest lightpath it needs."""
    stage = _sketched_stage(sketch)
    if stage is not None:
        return quick_bound(stage), _longest(stage)
    assert sketch.positions is not None and sketch.weights is not None
    assert sketch.offsets is not None
    bound = translated_all_to_all_bound(
        ring.nodes, sketch.positions, sketch.weights, sketch.offsets
    )
    return bound, _longest_of_set(ring.nodes, sketch.positions)


class Bounds(dict[Hashable, tuple[int, int]]):
    """Per stage key, (quick bound on chi, longest lightpath needed); `stage_keys` remembers
    the key of a stage by the identity of its arrays, so the equal steps of a family that
    share arrays (H-Ring's 16K steps at N = 8192) are hashed once."""

    def __init__(self, known: IdentityMemo[Hashable] | None = None) -> None:
        super().__init__()
        self.stage_keys: IdentityMemo[Hashable] = IdentityMemo() if known is None else known

    def key_of(self, stage: Stage) -> Hashable:
        arrays = (stage.sources, stage.destinations, stage.counts, stage.allowed)
        key = self.stage_keys.get(*arrays)
        if key is None:
            key = stage_key(stage)
            self.stage_keys.put(key, *arrays)
        return key


def _bounded(
    algorithm: Algorithm,
    ring: Ring,
    params: Params,
    sizes: Sequence[float],
    hardware: Hardware,
    bounds: Bounds,
    reach: int | None = None,
) -> _Candidate | list[StageSketch]:
    """First tier: quick bounds per stage, from the family's sketches when it has them (no
    large stage built; equal keys bounded once), or the closed shift bound for TRA rounds
    (and, with the optics' `reach`, the bound of its rounds held within it). A candidate
    with a stage still to build is returned as its sketches (bounded later, stage by stage,
    once the search has a good incumbent)."""
    channels = ring.channels_per_direction
    rounds = algorithm.shift_round_arrays(ring, params)
    if rounds is not None:
        # every stage carries one piece per lightpath: the time depends on the slot total
        shifts, counts, times = rounds
        chi = shift_bounds(ring.nodes, shifts, counts)
        total = int(((-(-chi // channels)) * times).sum())
        longest = _longest_shift(ring.nodes, shifts)
        candidate = _candidate(algorithm, ring, params, sizes, hardware, [(total, 1)], longest)
        if reach is not None and longest <= reach:
            held = shift_bounds(ring.nodes, shifts, counts, reach)
            held_total = int(((-(-held // channels)) * times).sum())
            if held_total > total:
                candidate.reach_bound = _candidate(
                    algorithm, ring, params, sizes, hardware, [(held_total, 1)], longest
                )
        return candidate
    sketches = algorithm.stage_sketches(ring, params)
    if sketches is None:
        sketches = [StageSketch(None, s.pieces, stage=s) for s in algorithm.stages(ring, params)]
    if any(s.build is not None and ("sketch", s.key) not in bounds for s in sketches):
        return sketches
    return _from_sketches(algorithm, ring, params, sizes, hardware, bounds, sketches)


def _from_sketches(
    algorithm: Algorithm,
    ring: Ring,
    params: Params,
    sizes: Sequence[float],
    hardware: Hardware,
    bounds: Bounds,
    sketches: Sequence[StageSketch],
) -> _Candidate:
    channels = ring.channels_per_direction
    slots, longest = [], 0
    for sketch in sketches:
        key: Hashable = ("sketch", sketch.key)
        if sketch.key is None:
            assert sketch.stage is not None
            key = bounds.key_of(sketch.stage)
        if key not in bounds:
            bounds[key] = _sketch_bound(ring, sketch)
        chi, far = bounds[key]
        slots.append((-(-chi // channels), sketch.pieces))
        longest = max(longest, far)
    return _candidate(algorithm, ring, params, sizes, hardware, slots, longest)


def _better(new: AlgorithmPlan, old: AlgorithmPlan | None, i: int) -> bool:
    if old is None:
        return True
    if not new.timings:
        return new.true_steps < old.true_steps
    a, b = new.timings[i].time_s, old.timings[i].time_s
    return a < b * (1 - 1e-12) or (a <= b * (1 + 1e-12) and new.true_steps < old.true_steps)


class _Search:
    """One search's state: the winners so far (regardless of optics, and feasible), the
    bounds known, what was pruned and solved."""

    def __init__(
        self,
        algorithm: Algorithm,
        ring: Ring,
        sizes: list[float],
        hardware: Hardware,
        options: SolveOptions,
        deadline: float,
        incumbent: AlgorithmPlan,
        cache: StageCache,
        optics: OpticsTarget | None,
    ) -> None:
        self.algorithm, self.ring, self.sizes = algorithm, ring, sizes
        self.hardware, self.options, self.deadline = hardware, options, deadline
        self.cache, self.optics = cache, optics
        slots = max(1, len(sizes))
        self.best = [incumbent] * slots
        self.feasible: list[FeasibleShape | None] = [None] * slots
        self.evaluated = self.pruned = self.infeasible = self.beyond_hops = 0
        self.cut = ""
        self.load_bounds: dict[Hashable, int] = {}
        self.plan_optics = PlanOpticsMemo()
        self.held_tried: set[int] = set()  # candidates (by id) routed within the reach
        self.settled: set[int] = set()  # candidates (by id) done before the main pass

    def out_of_time(self) -> bool:
        return time.monotonic() > self.deadline

    def reachable(self, candidate: _Candidate) -> bool:
        """Some routing of it could be optically feasible (no lightpath needs more than the
        optics' reach)."""
        return self.optics is not None and candidate.longest <= self.optics.reach

    def lp_or_quick(self, stage: Stage) -> int:
        """`_lp_or_quick` while the budget lasts, then the quick bounds alone (still a bound,
        and kept only by this search): the LPs of a rooted all-reduce's 54 stages at
        N = 4093 took 23 s, and a 30 s search ended at 40 s."""
        return quick_bound(stage) if self.out_of_time() else _lp_or_quick(stage)

    def far_from(self, candidates: Sequence[_Candidate]) -> bool:
        """At some message size the fastest shape so far takes more than FAR_FROM_BOUNDS
        times the least bound of `candidates`."""
        for i, plan in enumerate(self.best):
            if not plan.timings:
                return False
            least = min((c.time_bounds[i] for c in candidates if c.time_bounds), default=math.inf)
            if plan.timings[i].time_s > FAR_FROM_BOUNDS * least:
                return True
        return False

    def can_win(self, candidate: _Candidate) -> bool:
        """Its bound could beat the fastest shape, or (within the optics' reach) the fastest
        feasible one."""
        if not _cannot_win(candidate, self.best):
            return True
        if not self.reachable(candidate):
            return False
        if any(f is None for f in self.feasible):
            return True
        held = candidate.reach_bound or candidate
        return not _cannot_win(held, [f.plan for f in self.feasible if f is not None])

    def consider(self, candidate: _Candidate, tightened: bool = False) -> None:
        """Prune it, or tighten its bound (the LP of L*, unless `tightened` already) and
        prune, or solve it."""
        limit = self.options.max_hops
        if limit is not None and candidate.longest > limit:
            self.beyond_hops += 1  # not a shape of this plan: a lightpath cannot keep to it
            return
        if not self.can_win(candidate):
            self.pruned += 1
            return
        if self.cut or self.out_of_time():
            self.cut = self.cut or "time budget reached while solving candidates"
            return
        unsettled = id(candidate) not in self.held_tried
        if unsettled and self.feasible_only(candidate) and self.settle_within_reach(candidate):
            return
        if self.cut:
            return
        algorithm, ring = self.algorithm, self.ring
        if not tightened and algorithm.shift_rounds(ring, candidate.params) is None:
            # Second tier: per stage the LP of L* is at least its quick bound, so these
            # bounds are at least the first tier's.
            tight = _stage_slots(
                algorithm, ring, candidate.params, self.lp_or_quick, self.load_bounds
            )
            candidate = _candidate(
                algorithm,
                ring,
                candidate.params,
                self.sizes,
                self.hardware,
                tight,
                candidate.longest,
            )
            if not self.can_win(candidate):
                self.pruned += 1
                return
        if tightened and len(candidate.slots) > 1:
            settled = self.settle(candidate)
            if settled is None:
                self.pruned += 1
                return
            if self.out_of_time():
                self.cut = "time budget reached while solving a candidate"
                return
        try:
            plan = self.solve(candidate.params, self.options)
        except DeadlineReached:
            self.cut = "time budget reached while solving a candidate"
            return
        except LimitExceededError as error:
            self.cut = f"a candidate was skipped: {error.message}"
            return
        except AlgorithmRefusedError:
            # a pinned direction longer than the shorter arc `longest` counts: the same
            # lightpath as above, found while routing
            self.beyond_hops += 1
            return
        self.evaluated += 1
        for i in range(len(self.best)):
            if _better(plan, self.best[i], i):
                self.best[i] = plan
        if self.optics is None:
            return
        if not self.reachable(candidate):
            self.infeasible += 1
            return
        try:
            found = self.feasible_shape(plan, candidate)
        except DeadlineReached:
            self.cut = "time budget reached while routing a candidate within the hop limit"
            return
        if found is not None:
            self.keep_feasible(found)

    def feasible_first(self, candidates: Sequence[_Candidate]) -> None:
        """The feasible objective alone, before the main pass, over candidates in the order
        of their bounds within the reach: a feasible incumbent before any costly free solve
        (TRA at N = 8192: the fastest shape's 8191 rounds took minutes to certify, the
        fastest feasible shape 22 s). Only candidates that cannot be the fastest shape are
        solved here (routed within the reach, `held_within_reach`)."""
        for candidate in candidates:
            if self.cut or self.out_of_time():
                return
            if self.feasible_only(candidate) and self.can_win(candidate):
                self.settle_within_reach(candidate)  # else left to the main pass

    def settle_within_reach(self, candidate: _Candidate) -> bool:
        """Route `candidate` within the reach once (`held_within_reach`); True when that
        settled it (its feasible shape kept), False otherwise or on a cut (`self.cut`)."""
        self.held_tried.add(id(candidate))
        try:
            held = self.held_within_reach(candidate)
        except DeadlineReached:
            self.cut = "time budget reached while routing a candidate within the hop limit"
            return False
        if held is None:
            return False
        self.evaluated += 1
        self.keep_feasible(held)
        self.settled.add(id(candidate))
        return True

    def keep_feasible(self, found: FeasibleShape) -> None:
        for i in range(len(self.feasible)):
            held = self.feasible[i]
            if _better(found.plan, None if held is None else held.plan, i):
                self.feasible[i] = found

    def feasible_only(self, candidate: _Candidate) -> bool:
        """Only the feasible objective is open to it: its bound rules it out as the fastest
        shape, it is within the optics' reach, and steps come from chi (no node limits)."""
        return (
            self.optics is not None
            and self.reachable(candidate)
            and self.options.max_tx is None
            and self.options.max_rx is None
            and _cannot_win(candidate, self.best)
        )

    def held_within_reach(self, candidate: _Candidate) -> FeasibleShape | None:
        """The shape routed within the optics' reach, when that plan is feasible and its
        steps are proven optimal for routings within the reach. Every feasible plan routes
        within the reach (a longer lightpath is unreliable whatever its neighbours), so no
        free routing of the shape can be feasible and faster, and its free solve is spared.
        None: decide the long way (free routing first, `feasible_shape`)."""
        assert self.optics is not None
        hops = self.optics.reach
        if hops < candidate.longest:
            return None
        if self.options.max_hops is not None and hops >= self.options.max_hops:
            return None  # the free plan keeps to it already
        try:
            limited = self.solve(candidate.params, replace(self.options, max_hops=hops))
        except (AlgorithmRefusedError, LimitExceededError):
            return None
        if not limited.steps_optimal:
            return None
        optics = self.evaluate(limited)
        return FeasibleShape(limited, hops, optics) if optics.feasible else None

    def settle(self, candidate: _Candidate) -> _Candidate | None:
        """Its stages solved one at a time, first stage first (the largest groups: the
        bounds left loosest, as the class LP skips them, and the stages most candidates
        share), each one's proven bound on chi from the solve replacing its bound (the plan
        reports chi >= it); None as soon as they rule it out. The solves land in the stage
        cache, so solving the whole candidate afterwards reuses them."""
        if self.options.max_tx is not None or self.options.max_rx is not None:
            return candidate  # steps come from a node-limited schedule, not from chi
        channels = self.ring.channels_per_direction
        slots = list(candidate.slots)
        stages = self.algorithm.stages(self.ring, candidate.params)
        if len(stages) != len(slots):
            return candidate
        for j in range(len(stages)):
            if self.out_of_time():
                break
            try:
                result = self.cache.solve(self.ring, stages[j], self.options, self.deadline)
            except LimitExceededError:
                return candidate
            slots[j] = (max(slots[j][0], -(-result.lower_bound // channels)), slots[j][1])
            candidate = _candidate(
                self.algorithm,
                self.ring,
                candidate.params,
                self.sizes,
                self.hardware,
                slots,
                candidate.longest,
            )
            if not self.can_win(candidate):
                return None
        return candidate

    def solve(self, params: Params, options: SolveOptions) -> AlgorithmPlan:
        """A candidate's plan, its steps proven (`SolveOptions.prove_channels` False: the
        search ranks shapes by time; a stage coloured within the slots its bound allows is
        not searched further for fewer channels)."""
        return plan_algorithm(
            self.algorithm,
            self.ring,
            params,
            self.sizes,
            self.hardware,
            replace(options, prove_channels=False),
            None,
            self.cache,
            deadline=self.deadline,
        )

    def evaluate(self, plan: AlgorithmPlan) -> PlanOptics:
        assert self.optics is not None
        known = self.plan_optics.get(plan)
        if known is None:
            known = evaluate_plan(plan, self.optics.params)
            self.plan_optics.put(known, plan)
        return known

    def feasible_shape(self, plan: AlgorithmPlan, candidate: _Candidate) -> FeasibleShape | None:
        """The plan if its optics pass; else the shape routed within each hop limit in turn
        (loosest first) until one passes; None if none does."""
        assert self.optics is not None
        beyond = any(
            s.result.assignment.longest_hops(s.stage) > self.optics.reach
            for s in plan.stages
            if s.solution_stage == s.index
        )  # infeasible whatever its neighbours: no optics to evaluate
        optics = None if beyond else self.evaluate(plan)
        if optics is not None and optics.feasible:
            return FeasibleShape(plan, self.options.max_hops, optics)
        for hops in self.optics.hop_limits:
            if hops < candidate.longest:
                continue  # some demand has no direction within it
            if self.options.max_hops is not None and hops >= self.options.max_hops:
                continue  # the plan already keeps to it
            try:
                limited = self.solve(candidate.params, replace(self.options, max_hops=hops))
            except (AlgorithmRefusedError, LimitExceededError):
                continue
            optics = self.evaluate(limited)
            if optics.feasible:
                return FeasibleShape(limited, hops, optics)
        return None


def search_best_shape(
    algorithm: Algorithm,
    ring: Ring,
    message_bytes: Sequence[float],
    hardware: Hardware,
    options: SolveOptions,
    budget_s: float,
    incumbent: AlgorithmPlan,
    cache: StageCache | None = None,
    optics: OpticsTarget | None = None,
) -> BestShape:
    """Search the family of `algorithm` for its best shape, starting from `incumbent` (the
    paper's shape, already solved). Candidates the algorithm refuses are skipped. With
    `optics`, also the fastest optically feasible shape per message size (routed within
    the target's hop limits when free routing is not feasible); a candidate is pruned only
    when its bound rules it out for both objectives, or it is proven infeasible and its
    bound rules it out for the first."""
    started = time.monotonic()
    search = _Search(
        algorithm,
        ring,
        list(message_bytes),
        hardware,
        options,
        started + budget_s,
        incumbent,
        cache if cache is not None else shared_cache(),
        optics,
    )
    if optics is not None:
        longest = max(
            (_longest(s.stage) for s in incumbent.stages if s.solution_stage == s.index),
            default=0,
        )
        paper = _Candidate(incumbent.params, incumbent.true_steps, [], longest)
        if search.reachable(paper):
            found = search.feasible_shape(incumbent, paper)
            search.feasible = [found] * len(search.feasible)
    bounds = Bounds()
    candidates: list[_Candidate] = []
    deferred: list[tuple[Params, list[StageSketch]]] = []
    paper_seen = floored = refused = 0
    raws = list(algorithm.shape_candidates(ring))
    taken = 0  # raws bounded so far, in the family's order
    # Bounding that will not end in time pauses at a share of the budget, the candidates
    # bounded so far are solved, and bounding resumes with the time left: at N = 8192
    # bounding synth's 1911 all-reduce shapes took the whole 30 s, and the search answered
    # with the paper's ring (0.205 s at 64 MiB, where the exhaustive search finds 3.16 ms in
    # 37 s). Bounding that will end by FINISH_SHARE goes on: solving in bound order after it
    # prunes best.
    until = started + BOUNDING_SHARE * budget_s
    bounding_started = time.monotonic()

    def bound(raw: Params) -> tuple[Params, _Candidate | list[StageSketch]] | None:
        """The resolved shape and its first-tier bound, or its sketches to bound later; None
        for the paper's shape (solved already) and for shapes the family refuses."""
        nonlocal paper_seen, refused
        try:
            params = algorithm.resolve(ring, raw)
            if params == incumbent.params:
                search.evaluated += 1
                paper_seen += 1
                return None
            reach = optics.reach if optics is not None else None
            return params, _bounded(
                algorithm, ring, params, search.sizes, hardware, bounds, reach
            )
        except AlgorithmRefusedError:
            refused += 1
            return None
        except LimitExceededError as error:  # a computed schedule found none in its time
            search.cut = f"a candidate was skipped: {error.message}"
            return None

    while taken < len(raws) and not search.out_of_time():
        fresh: list[_Candidate] = []
        floors: set[int] = set()  # ids of the fresh shapes known by their time floor only
        for raw in raws[taken:]:
            taken += 1
            # a shape whose build is the cost (rooted trees) comes with a time floor: it is
            # built when the floor comes up in promise order and can still win (N = 4096,
            # 4 MiB all-gather: the rooted trees' floors are above 64 x 64's time, solved
            # first, and none of them is built)
            floor = algorithm.time_floor(ring, raw, search.sizes, hardware)
            if floor is not None:
                known = _Candidate(raw, floor[0], floor[1])
                fresh.append(known)
                floors.add(id(known))
                continue
            outcome = bound(raw)
            if outcome is not None:
                params, bounded = outcome
                if isinstance(bounded, _Candidate):
                    fresh.append(bounded)
                else:
                    deferred.append((params, bounded))
            now = time.monotonic()
            if now > until:
                # at its pace so far, bounding the rest would end at `finish`
                finish = now + (now - bounding_started) / taken * (len(raws) - taken)
                if finish <= started + FINISH_SHARE * budget_s:
                    until = search.deadline
                else:
                    break
        candidates += [c for c in fresh if id(c) not in floors]
        # In promise order (bound order with one message size); a candidate with a bound of
        # its own within the reach comes at that bound (its free routing goes the long way):
        # the feasible winner early prunes the rest. A shape known by its floor only is,
        # when it comes up and can still win, built and bounded, and goes back in the queue
        # at its bound.
        promise = _promise_key(fresh, lambda c: c.reach_bound or c)
        fresh = sorted(fresh, key=promise)
        search.feasible_first([c for c in fresh if c.reach_bound is not None])
        queue = [(promise(c), i, c) for i, c in enumerate(fresh)]  # sorted: a heap
        pushed = len(queue)
        built = [c for c in fresh if id(c) not in floors]
        if built and search.far_from(fresh):
            # An incumbent near the bounds before any shape is built from its floor: the
            # most promising of the shapes bounded already (cheap to solve) is solved first.
            # Synth's all-reduce at N = 2048, 64 MiB: its rooted trees' floors come first, are
            # built in 5 s, and the first one's solve took 9 s; a 10 s search was cut and
            # answered the default single level (51.4 ms); now 64 x 32 with a sweep (solved
            # in about a second, 1.626 ms) answers when the search is cut.
            search.consider(built[0])
            search.settled.add(id(built[0]))
        while queue:
            candidate = heapq.heappop(queue)[2]
            if id(candidate) in floors:
                if not search.can_win(candidate):
                    floored += 1
                    continue
                if search.out_of_time():  # building it is the cost
                    search.cut = search.cut or "time budget reached while building candidates"
                    break
                outcome = bound(candidate.params)
                if outcome is None:
                    continue
                params, bounded = outcome
                if isinstance(bounded, _Candidate):
                    candidates.append(bounded)
                    heapq.heappush(queue, (promise(bounded), pushed, bounded))
                    pushed += 1
                else:
                    deferred.append((params, bounded))
            elif id(candidate) not in search.settled:
                search.consider(candidate)
        until = search.deadline
    if taken < len(raws):
        ran_out = f"the time budget ran out after bounding {taken} of {len(raws)} candidates"
        generic = not search.cut or search.cut.startswith("time budget reached")
        search.cut = ran_out if generic else f"{ran_out}; {search.cut}"
    # Candidates with stages still to build (OpTree's padded trees), in their order (trees
    # sharing levels come together): bounded stage by stage, against the incumbent found
    # above; the first stages that rule a candidate out spare building the rest. Those the
    # quick bounds leave in are bounded again (`_refined`), then solved in bound order.
    # Batches of equal depth (OpTree: the orderings of one cover), smallest batch first, each
    # solved before the next is bounded: an early good incumbent prunes the large batches
    # at shallower levels.
    batches: dict[int, list[tuple[Params, list[StageSketch]]]] = {}
    for params, sketches in deferred:
        batches.setdefault(len(sketches), []).append((params, sketches))
    for batch in sorted(batches.values(), key=len):
        survivors: list[_Candidate] = []
        for params, sketches in batch:
            if search.out_of_time():
                search.cut = search.cut or "time budget reached while bounding candidates"
                break
            survivor = _bound_deferred(search, params, sketches, bounds)
            if survivor is None:
                search.pruned += 1
            else:
                survivors.append(survivor)
        survivors = _promise_order(survivors, lambda c: c)
        for candidate in survivors:
            search.consider(candidate, tightened=True)
    total = len(candidates) + len(deferred) + paper_seen + floored
    settled = search.evaluated + search.pruned + floored + search.beyond_hops
    report = SearchReport(
        candidates=len(raws),
        evaluated=search.evaluated,
        pruned=search.pruned + floored,
        exhaustive=not search.cut and settled == total,
        seconds=time.monotonic() - started,
        note=search.cut,
        infeasible=search.infeasible,
        beyond_hops=search.beyond_hops,
        refused=refused,
    )
    return BestShape(
        tuple(_tied_to_feasible(search.best, search.feasible, options.max_hops)),
        report,
        tuple(search.feasible) if optics is not None else (),
        search.plan_optics,
    )


def _tied_to_feasible(
    best: Sequence[AlgorithmPlan], feasible: Sequence[FeasibleShape | None], max_hops: int | None
) -> list[AlgorithmPlan]:
    """Per size, the fastest shape, or the fastest feasible one where it is as fast (the
    same time, no more steps) and routed as the fastest is (within the request's
    `max_hops` only): of equals the one the optics pass is reported. A feasible shape routed
    within the optics' tighter limit is not taken: its stages' bounds hold under that limit,
    not for the shape as the row names it (review, session 34: TRA's round at N = 6 read
    "chi 4, proven bound 4" where the free stage takes 3); the row's feasible shape says
    that limit (`best_feasible.hop_limit`)."""
    out = list(best)
    for i, found in enumerate(feasible):
        if found is None or found.hop_limit != max_hops:
            continue
        if not _better(out[i], found.plan, i):
            out[i] = found.plan
    return out


BOUNDING_SHARE = 0.6
"""The share of a search's budget after which bounding pauses so that the candidates bounded
so far are solved, unless at its pace it ends by FINISH_SHARE; it then resumes with the time
left."""
FINISH_SHARE = 0.85
"""Bounding that would end by this share of the budget (at its pace so far) is not paused."""
FAR_FROM_BOUNDS = 2.0
"""While the fastest shape so far takes more than this many times the least bound of the
shapes bounded, the most promising shape with a bound of its own (not a floor) is solved
before any shape known by its floor only is built."""


def _bound_deferred(
    search: _Search, params: Params, sketches: list[StageSketch], bounds: Bounds
) -> _Candidate | None:
    """A deferred candidate's bound (None: pruned): quick bounds stage by stage, first stage
    first (stopping once they rule it out), then `_refined` deepest stage first (the
    smallest groups: the fewest link classes and the largest gain)."""
    algorithm, ring, sizes, hardware = search.algorithm, search.ring, search.sizes, search.hardware
    for depth in range(1, len(sketches) + 1):
        partial = _from_sketches(algorithm, ring, params, sizes, hardware, bounds, sketches[:depth])
        if not search.can_win(partial):
            return None
    refined = Bounds(bounds.stage_keys)
    refined.update({("sketch", k.key): bounds[("sketch", k.key)] for k in sketches})
    for sketch in reversed(sketches):
        if sketch.build is None:
            continue
        key: Hashable = ("sketch", sketch.key)
        if ("refined", key) not in bounds:
            chi, far = bounds[key]
            bounds[("refined", key)] = (_refined(sketch, chi, ring.channels_per_direction), far)
        refined[key] = bounds[("refined", key)]
        partial = _from_sketches(algorithm, ring, params, sizes, hardware, refined, sketches)
        if not search.can_win(partial):
            return None
        if search.out_of_time():
            break
    return partial


def _order(candidate: _Candidate) -> tuple[list[float], int]:
    return candidate.time_bounds[:1], candidate.steps_bound


def _promise_order(
    candidates: list[_Candidate], bounded: Callable[[_Candidate], _Candidate]
) -> list[_Candidate]:
    """`candidates` sorted by `_promise_key`."""
    return sorted(candidates, key=_promise_key(candidates, bounded))


def _promise_key(
    candidates: list[_Candidate], bounded: Callable[[_Candidate], _Candidate]
) -> Callable[[_Candidate], Any]:
    """Most promising first: by the least, over the message sizes, of a candidate's bound
    (`bounded(candidate)`'s) over the least bound of any of them at that size, then in
    bound order at the first size. With one size that is bound order; with several, each
    size's likely winner is solved early and its time prunes the rest. (Bound order at the
    first size solved first what is fast only there: synth's all-reduce at N = 1024,
    w = 32, 1, 16 and 256 MiB solved 21 shapes in 16 s before 32 x 32, the winner at
    256 MiB, and with more rooted trees ran out of its 30 s before reaching it.)"""
    if not candidates or not bounded(candidates[0]).time_bounds:
        return lambda c: _order(bounded(c))
    sizes = range(len(bounded(candidates[0]).time_bounds))
    least = [min(bounded(c).time_bounds[i] for c in candidates) for i in sizes]

    def promise(candidate: _Candidate) -> tuple[float, list[float], int]:
        own = bounded(candidate)
        ratio = min(own.time_bounds[i] / least[i] if least[i] > 0 else 1.0 for i in sizes)
        return (ratio, *_order(own))

    return promise


def _cannot_win(candidate: _Candidate, best: Sequence[AlgorithmPlan]) -> bool:
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

"""A plan request checked into a `PlanSpec`, then solved algorithm by algorithm.

`prepare` is the one checker behind the schema: the CLI and REST both validate a
`PlanRequest` (pydantic, once) and pass it here; `run_plan` solves the spec (in the CLI's
process, a solver process of the API, or an RQ worker) and returns the solver's own results,
which `app.schemas.results` turns into the answer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from app.schemas.requests import DEFAULT_SEARCH_BUDGET_S, PlanRequest
from app.settings import get_settings
from models.achievable import AchievableBound, achievable_bound
from models.algorithms.base import Algorithm, Collective, Params, ShapeMode
from models.electrical import FatTree
from models.errors import (
    AlgorithmRefusedError,
    InvalidInputError,
    LimitExceededError,
    UnknownAlgorithmError,
)
from models.optics import OpticalParameters, longest_reliable_hops
from models.optics import max_hops as max_hops_for
from models.ring import Hardware, Ring
from solver.catalog import Limits, algorithms, get_algorithm
from solver.electrical_sim import MAX_SIMULATED_NODES, NetworkModel, simgrid_available
from solver.feasibility import PlanOptics, evaluate_plan
from solver.memory import estimate_mb, largest_nodes_within
from solver.optimal import OptimalSchedule
from solver.outcome import Method, SolveOptions
from solver.plan import AlgorithmPlan, ProgressCallback, StageCache, plan_algorithm
from solver.shape_search import BestShape, OpticsTarget, search_best_shape, shapes_within
from solver.solve import check_exact_size
from solver.stage_cache import shared_cache

PlanProgress = Callable[[str, int, int], None]
MAX_STAGES = 20_000  # per algorithm: far above any catalog shape at N <= 4096, far below a typo


@dataclass(frozen=True)
class AlgorithmChoice:
    """One algorithm of a plan and which of its shapes to report: the paper's, the best
    found by search, or the explicit parameters given (already resolved)."""

    algorithm: Algorithm
    shape: ShapeMode
    params: Params  # the explicit shape, or the paper's


@dataclass(frozen=True)
class PlanSpec:
    """A checked plan request: every algorithm resolved against the ring, nothing solved yet.
    Built by `prepare` (so bad input fails before any job is queued)."""

    collective: Collective
    ring: Ring
    hardware: Hardware
    choices: tuple[AlgorithmChoice, ...]
    message_bytes: tuple[float, ...]
    options: SolveOptions = field(default_factory=SolveOptions)
    optics: OpticalParameters = field(default_factory=OpticalParameters)
    search_budget_s: float = DEFAULT_SEARCH_BUDGET_S
    skipped: tuple[tuple[str, str], ...] = ()  # (algorithm, why) left out of "all"
    electrical: FatTree | None = None  # compare with the electrical fat-tree (all-reduce)
    simulate_electrical: bool = True
    electrical_model: NetworkModel = "default"
    # What computed schedules keep to; limits.hop_limit is also the achievable bound's: the
    # tighter of max_lightpath_hops and the longest lightpath the optics can make reliable.
    limits: Limits = field(default_factory=Limits)

    def achievable(
        self, optics_limited: bool = True, reduce_then_broadcast: bool = False
    ) -> tuple[AchievableBound, ...]:
        """The bound on every schedule per message size (models.achievable). Without the
        optics' hop limit (`optics_limited=False`) it bounds schedules that keep only to
        max_lightpath_hops: what an optically infeasible algorithm is measured against.
        `reduce_then_broadcast` (all-reduce; empty for the other collectives): the bound of
        the schedules that form each complete sum at one node and copy it from there."""
        if reduce_then_broadcast and self.collective != Collective.ALLREDUCE:
            return ()
        # optics under which not even a one-hop lightpath is reliable admit no schedule at
        # all: a bound for them is vacuous, so plans give the one without the optics' limit
        # (which the infeasible algorithms are measured against anyway)
        reach = optics_limited and self.limits.hop_limit is not None and self.limits.hop_limit >= 1
        hops = self.limits.hop_limit if reach else self.options.max_hops
        return tuple(
            achievable_bound(
                self.collective.value,
                self.ring,
                size,
                self.hardware,
                hops,
                self.options.max_tx,
                self.options.max_rx,
                reduce_then_broadcast,
            )
            for size in self.message_bytes
        )


@dataclass(frozen=True)
class PlannedAlgorithm:
    """A solved plan (the shape asked for) with the paper's shape and the search beside it,
    its optical feasibility, and with a hop limit the true steps of the same shape without
    it (what the routing constraint costs)."""

    algorithm: Algorithm
    plan: AlgorithmPlan
    shape: ShapeMode
    paper: AlgorithmPlan
    best: BestShape | None
    optics: PlanOptics
    max_hops: int | None = None
    unconstrained_steps: int | None = None
    achievable: tuple[AchievableBound, ...] = ()  # the bound it is measured against, per size
    # all-reduce: the bound of the reduce-then-broadcast class, with the same hop limit as
    # `achievable` (it bounds this algorithm where `algorithm.reduces_then_broadcasts`)
    class_bound: tuple[AchievableBound, ...] = ()
    # why the paper's shape breaks max_lightpath_hops (`paper` is then routed without it)
    paper_beyond_hops: str | None = None
    # why the paper's shape cannot be scheduled within the per-node limits (`paper` is then
    # that shape without them; only beside an explicit shape)
    paper_beyond_node_limits: str | None = None


def check_memory(collective: Collective, nodes: int, choices: Sequence[AlgorithmChoice]) -> None:
    """Refuse up front (LimitExceededError, 413) a plan whose solve is estimated to need more
    memory than one solve may use (RWAOPT_SOLVE_MEMORY_MB; solver.memory), saying the largest
    ring that fits and whether paper shapes would."""
    budget = get_settings().solve_memory_bytes() / 2**20
    planned = [
        (c.algorithm.name, c.shape == ShapeMode.BEST)
        for c in choices
        if not isinstance(c.algorithm, OptimalSchedule)  # its own size limit caps it
    ]
    need = estimate_mb(collective, nodes, planned)
    if need <= budget:
        return
    fits = largest_nodes_within(collective, planned, budget, nodes)
    advice = []
    if fits is not None:
        advice.append(f"the largest ring that fits with these algorithms is N = {fits}")
    if any(best for _, best in planned):
        at_paper = [(name, False) for name, _ in planned]
        if estimate_mb(collective, nodes, at_paper) <= budget:
            advice.append(f"at N = {nodes} their paper shapes fit (shape 'paper')")
    alone = [c for c in planned if estimate_mb(collective, nodes, [c]) <= budget]
    if len(planned) > 1 and alone:  # fewer algorithms a plan: each of these fits by itself
        advice.append(f"planned alone, {', '.join(name for name, _ in alone)} fit")
    if not advice:
        advice.append("nothing fits this budget at this ring: raise RWAOPT_SOLVE_MEMORY_MB")
    raise LimitExceededError(
        f"this plan's solve is estimated to need {need / 1024:.2f} GB, more than the "
        f"{budget / 1024:.2f} GB one solve may use (RWAOPT_SOLVE_MEMORY_MB); "
        + "; ".join(advice),
        {"estimated_mb": round(need), "budget_mb": round(budget), "largest_nodes": fits},
    )


def prepare(request: PlanRequest) -> PlanSpec:
    """Check everything a plan needs beyond its schema (every algorithm resolved against the
    ring, nothing solved); raises RwaoptError subclasses, so bad input fails before any job is
    queued. algorithms "all" picks every algorithm of the collective that accepts the ring
    with its parameters. max_lightpath_hops "loss_budget" forbids lightpaths longer than the
    optics allow (models.optics.max_hops). An algorithm with parameters is planned at that
    explicit shape; the others at `request.shape` (one mode, or per algorithm).
    Without `search_budget_s` the search gets RWAOPT_SHAPE_SEARCH_BUDGET_S."""
    ring = request.ring.ring()
    optics = request.optics.parameters()
    collective = request.collective
    params: dict[str, Params] = {
        name: {k: tuple(v) if isinstance(v, list) else v for k, v in values.items()}
        for name, values in request.parameters.items()
    }
    max_hops: int | None
    if request.max_lightpath_hops == "loss_budget":
        max_hops, limited_by = max_hops_for(optics)
        if max_hops < 1:
            raise InvalidInputError(
                f"with these optics not even a one-hop lightpath is reliable ({limited_by}); "
                "raise laser_power_dbm, or plan without max_lightpath_hops"
            )
    else:
        max_hops = request.max_lightpath_hops
    reliable = longest_reliable_hops(optics)
    limits = Limits(
        hop_limit=reliable if max_hops is None else min(max_hops, reliable),
        enforced=max_hops is not None,
        max_tx=request.max_tx_per_node,
        max_rx=request.max_rx_per_node,
        exact_time_limit_s=request.time_limit_s,
    )
    catalog = algorithms(collective, limits)
    if request.algorithms == "all":
        unknown = sorted(set(params) - {a.name for a in catalog})
        if unknown:
            raise UnknownAlgorithmError(
                f"parameters given for {', '.join(unknown)}, not an algorithm of {collective}"
            )
        chosen, skipped = [], []
        for a in catalog:
            why: str | None = None
            if a.name in params:
                # checked as for a named algorithm (`resolve`: the values, then the ring's
                # refusal): a value no ring takes (group = 0) is the caller's to change
                # (400); unchecked values were a 500 from the refusal's arithmetic (review,
                # session 34)
                try:
                    a.resolve(ring, params[a.name])
                except AlgorithmRefusedError as refused:
                    why = refused.message
            else:
                why = a.refusal(ring, a.fill_defaults(ring, {}))
            if why is None and isinstance(a, OptimalSchedule) and a.name not in params:
                why = a.too_large_for_all(ring)
            if why is None:
                chosen.append(a)
            else:
                skipped.append((a.name, why))
    else:
        names = request.algorithms
        chosen, skipped = [get_algorithm(collective, name, limits) for name in names], []
        stray = sorted(set(params) - set(names))
        if stray:
            raise InvalidInputError(
                f"parameters given for {', '.join(stray)}, which is not among the algorithms"
            )
    if not chosen:  # every reason, as when every algorithm is skipped while solving
        # ("with these parameters" where none were given hid why; review E, session 34)
        raise AlgorithmRefusedError(
            f"no {collective} algorithm accepts N={ring.nodes} with this request: "
            + "; ".join(f"{name}: {why}" for name, why in skipped),
            {"skipped": [{"algorithm": name, "reason": why} for name, why in skipped]},
        )
    shapes = request.shape
    per_algorithm = shapes if isinstance(shapes, dict) else {}
    # with "all", a shape for an algorithm this ring skips is not an error: it is skipped
    # with its reason, as its parameters would be (review, session 34: RD on N = 6)
    offered = {a.name for a in (catalog if request.algorithms == "all" else chosen)}
    stray_shapes = sorted(set(per_algorithm) - offered)
    if stray_shapes:
        raise InvalidInputError(
            f"shape given for {', '.join(stray_shapes)}, which is not among the algorithms"
        )
    default_shape = ShapeMode.BEST if isinstance(shapes, dict) else shapes
    choices = []
    for a in chosen:
        if a.name in params:
            if a.name in per_algorithm:
                raise InvalidInputError(
                    f"{a.name}: parameters give an explicit shape; drop them to plan its "
                    f"{per_algorithm[a.name]} shape"
                )
            choices.append(AlgorithmChoice(a, ShapeMode.EXPLICIT, a.resolve(ring, params[a.name])))
        else:
            mode = per_algorithm.get(a.name, default_shape)
            if not a.from_paper and mode == ShapeMode.PAPER:
                if a.name in per_algorithm:
                    raise InvalidInputError(
                        f"{a.name} is rwaopt's own, with no paper shape: plan its 'best' "
                        "shape, or give its parameters"
                    )
                mode = ShapeMode.BEST  # "the papers' shapes" for the papers' algorithms
            choices.append(AlgorithmChoice(a, mode, a.paper_shape(ring)))
    if request.electrical and collective != Collective.ALLREDUCE:
        raise InvalidInputError(
            f"the electrical baseline compares all-reduce (E-Ring, E-RD), not {collective}; "
            "drop electrical or plan allreduce"
        )
    if (
        request.electrical
        and request.electrical_network.simulate
        and ring.nodes > MAX_SIMULATED_NODES
        and simgrid_available()  # without SimGrid the baseline gives Hockney times only
    ):  # checked here, not after the optical solve (review, session 34)
        raise InvalidInputError(
            f"the electrical baseline simulates at most {MAX_SIMULATED_NODES} hosts (SimGrid), "
            f"not N={ring.nodes}: set electrical_network.simulate to false for its Hockney "
            "times, or plan a smaller ring"
        )
    exact = request.method in (Method.EXACT, Method.EXACT_HIGHS)
    for choice in choices:  # too many stages, or a stage too large for an exact method
        if isinstance(choice.algorithm, OptimalSchedule):
            continue  # its model's size is checked by its refusal; counting would solve it
        count = choice.algorithm.stage_count(ring, choice.params)
        if count > MAX_STAGES:
            raise LimitExceededError(
                f"{choice.algorithm.name} has {count} stages with these parameters; at "
                f"most {MAX_STAGES}: choose a shape with fewer stages"
            )
        if exact:
            for stage in choice.algorithm.stages(ring, choice.params):
                check_exact_size(stage, request.method)
    check_memory(collective, ring.nodes, choices)
    return PlanSpec(
        collective=collective,
        ring=ring,
        hardware=request.hardware.hardware(),
        choices=tuple(choices),
        message_bytes=tuple(request.sizes()),
        options=request.options(max_hops),
        optics=optics,
        search_budget_s=request.search_budget_s or get_settings().shape_search_budget_s,
        skipped=tuple(skipped),
        electrical=request.electrical_network.fat_tree() if request.electrical else None,
        simulate_electrical=request.electrical_network.simulate,
        electrical_model=request.electrical_network.network_model,
        limits=limits,
    )


@dataclass(frozen=True)
class PlanRun:
    """What `run_plan` solved, and every algorithm left out with why: refused by the ring
    before solving (`PlanSpec.skipped`), or beyond a solver limit while solving (the exact
    model found no schedule in its time, a node-limited schedule too large to search): the
    rest of the plan does not fail for it."""

    planned: list[PlannedAlgorithm]
    skipped: tuple[tuple[str, str], ...]
    achievable: tuple[AchievableBound, ...] = ()  # per size: the plan's bound (SPEC 12)
    achievable_without_optics: tuple[AchievableBound, ...] = ()  # without the optics' limit
    class_bound: tuple[AchievableBound, ...] = ()  # all-reduce: reduce-then-broadcast's bound


def run_plan(spec: PlanSpec, progress: PlanProgress | None = None) -> PlanRun:
    """Solve every chosen algorithm at its paper shape and at the shape asked for (searching
    the best one when asked), and evaluate the optics of the latter;
    `progress(algorithm, done, total)` reports the stages of the paper shape."""
    out = []
    skipped = list(spec.skipped)
    bounds = spec.achievable()
    free_bounds = spec.achievable(optics_limited=False)
    class_bounds = spec.achievable(reduce_then_broadcast=True)
    free_class_bounds = spec.achievable(optics_limited=False, reduce_then_broadcast=True)
    for choice in spec.choices:
        algorithm = choice.algorithm
        step = None if progress is None else _bind(progress, algorithm.name)
        cache = shared_cache()
        try:
            paper, incumbent, beyond, beyond_nodes = _paper_and_incumbent(
                spec, choice, step, cache
            )
        except (LimitExceededError, AlgorithmRefusedError) as error:
            # one algorithm beyond a solver limit (the node-limited scheduler, the exact
            # model's time), or with no shape whose lightpaths keep to max_lightpath_hops
            # (RD's 512 hops at N = 1024 against a loss budget of 80), is left out with why;
            # a plan of that algorithm alone fails
            if len(spec.choices) == 1:
                raise
            skipped.append((algorithm.name, error.message))
            continue
        best = None
        if choice.shape != ShapeMode.BEST:
            plan = incumbent
        else:
            best = search_best_shape(
                algorithm,
                spec.ring,
                spec.message_bytes,
                spec.hardware,
                spec.options,
                spec.search_budget_s,
                incumbent,
                cache,
                OpticsTarget.of(spec.optics, spec.options.max_hops),
            )
            plan = best.plan
        baseline = None
        if spec.options.max_hops is not None:
            free = replace(spec.options, max_hops=None)
            # the schedule within the limit is one without it too: under per-node limits
            # the first-fit scheduler packed the freely routed colour classes into more
            # slots (WRHT at N = 58: 332 freely, 280 within 46 hops, a steps_cost of -52;
            # fuzz, session 35), and a limit cannot cost fewer than no steps
            unlimited = _solve(spec, algorithm, plan.params, None, free, None).true_steps
            baseline = min(unlimited, plan.true_steps)
        known = None if best is None else best.optics_of(plan)
        optics = known if known is not None else evaluate_plan(plan, spec.optics)
        out.append(
            PlannedAlgorithm(
                algorithm,
                plan,
                choice.shape,
                paper,
                best,
                optics,
                spec.options.max_hops,
                baseline,
                # an optically feasible plan keeps to the optics' hop limit; one that is not
                # is measured against the bound without it (so its fraction stays <= 1)
                bounds if optics.feasible else free_bounds,
                class_bounds if optics.feasible else free_class_bounds,
                paper_beyond_hops=beyond,
                paper_beyond_node_limits=beyond_nodes,
            )
        )
    return PlanRun(out, tuple(skipped), bounds, free_bounds, class_bounds)


def _paper_and_incumbent(
    spec: PlanSpec,
    choice: AlgorithmChoice,
    progress: ProgressCallback | None,
    cache: StageCache,
) -> tuple[AlgorithmPlan, AlgorithmPlan, str | None, str | None]:
    """The paper's shape solved, the plan a search starts from, and why the paper's shape
    breaks max_lightpath_hops (None when it keeps to it, or no limit is set), and why it
    cannot be scheduled within the per-node limits (None when it can).

    An explicit shape is planned even where the paper's shape is beyond the node-limited
    scheduler (TRA2's paper shape at N = 7, F = 3, w = 4, max_tx 4: 3584 colour classes; an
    explicit Q = 2 has 56 lightpaths, and was refused with the paper's advice, "fewer
    processes per node"; fuzz, session 35): the paper's shape is then solved without the
    per-node limits, and says so.

    Where the paper's shape keeps to the limit it is both. Where it does not (H-Ring's
    groups of 4 on 24 nodes need 3 hops), a search or an explicit shape still runs within
    the limit: the paper's shape is solved without it (what the paper
    describes, for the claimed-versus-true audit) and the search starts from the first shape
    of the family whose lightpaths all fit (`_first_within_hops`). Raises the paper shape's
    refusal when the shape asked for is the paper's, or no shape of the family fits."""
    algorithm = choice.algorithm
    params = algorithm.paper_shape(spec.ring)
    explicit = choice.params if choice.shape == ShapeMode.EXPLICIT else None
    try:
        paper = _solve(spec, algorithm, params, progress, spec.options, cache)
    except AlgorithmRefusedError as error:
        beyond = spec.options.max_hops is not None and "max_hops" in error.detail
        if not beyond or choice.shape == ShapeMode.PAPER:
            raise
        refusal = error
    except LimitExceededError as error:
        # only the node-limited scheduler's size (its detail names the slots' bound), not
        # any limit (memory, the exact model's size)
        scheduler = "slots_lower_bound" in error.detail
        if explicit is None or not scheduler:
            raise
        asked = _solve(spec, algorithm, explicit, None, spec.options, cache)
        unlimited = replace(spec.options, max_tx=None, max_rx=None)
        paper = _solve(spec, algorithm, params, progress, unlimited, cache)
        return paper, asked, None, error.message
    else:
        if explicit is None:
            return paper, paper, None, None
        return paper, _solve(spec, algorithm, explicit, None, spec.options, cache), None, None
    incumbent: AlgorithmPlan | None
    if explicit is not None:
        incumbent = _solve(spec, algorithm, explicit, None, spec.options, cache)
    else:
        incumbent = _first_within_hops(spec, algorithm, params, cache)
    if incumbent is None:
        raise AlgorithmRefusedError(
            f"no shape of {algorithm.name} keeps to max_lightpath_hops = "
            f"{spec.options.max_hops}: {refusal.message}{_reach_note(spec)}",
            refusal.detail,
        )
    free = replace(spec.options, max_hops=None)
    paper = _solve(spec, algorithm, params, progress, free, cache)
    return paper, incumbent, refusal.message, None


def _reach_note(spec: PlanSpec) -> str:
    """What the optics add to a refusal by max_lightpath_hops when they reach less than it:
    raising the limit alone would not help (review E, session 34: a reach of 0 hops under
    max_lightpath_hops = 1 read as a matter of the limit)."""
    reach, limit = spec.limits.hop_limit, spec.options.max_hops
    if limit is None or reach is None or reach >= limit:
        return ""
    if reach < 1:
        return ("; besides, with these optics not even a one-hop lightpath can be reliable: "
                "raise laser_power_dbm")
    return (f"; besides, with these optics no lightpath of more than {reach} hops can be "
            "reliable")


def _first_within_hops(
    spec: PlanSpec, algorithm: Algorithm, paper: Params, cache: StageCache
) -> AlgorithmPlan | None:
    """The first shape in the family's search order (the paper's left out) that solves
    with every lightpath within max_lightpath_hops (`solver.shape_search.shapes_within`),
    or None."""
    limit = spec.options.max_hops
    assert limit is not None
    for params in shapes_within(algorithm, spec.ring, limit, paper):
        try:
            return _solve(spec, algorithm, params, None, spec.options, cache)
        except AlgorithmRefusedError as error:
            if "max_hops" not in error.detail:
                raise
    return None


def _solve(
    spec: PlanSpec,
    algorithm: Algorithm,
    params: Params,
    progress: ProgressCallback | None,
    options: SolveOptions,
    cache: StageCache | None,
) -> AlgorithmPlan:
    return plan_algorithm(
        algorithm, spec.ring, params, spec.message_bytes, spec.hardware, options, progress, cache
    )


def _bind(progress: PlanProgress, name: str) -> ProgressCallback:
    return lambda done, total: progress(name, done, total)

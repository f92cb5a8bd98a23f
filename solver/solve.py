"""solve_stage: one stage's certified RWA by the chosen method.

Every result carries a proven lower bound and an assignment the independent validator accepted.
- heuristic: L* routing + circular-arc colouring; optimal when it meets the bound. A stage
  with a known optimal structure (solver.constructions: the even ring all-to-all, shift stages
  such as TRA rounds) is built instead, and is optimal when it meets ceil(LP of L*). The
  all-to-all among an odd number of nodes has no optimal construction here; its heuristic
  runs until the stage's time limit, then the padded construction answers (status
  time_limit, its gap to the load bound about r / 4 channels).
- exact (CP-SAT) / exact-highs (Pyomo + HiGHS): minimise colours, warm-started (CP-SAT) from the
  heuristic and never worse than it; time limit honoured, best bound kept.
- auto: heuristic; if a gap remains and the model is small enough, CP-SAT on the rest of the
  time; the result's `method` says which one produced the assignment.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from models.errors import LimitExceededError
from models.ring import Direction, Ring
from models.stage import Stage
from solver import node_limits
from solver.assignment import Assignment
from solver.bounds import LoadBound, load_bound, lp_load_bound
from solver.configuration import configuration_bound
from solver.constructions import (
    AllToAll,
    all_to_all_among,
    build_structure,
    padded_all_to_all,
    structure_of,
)
from solver.formulation import build
from solver.heuristic import HeuristicTimeout, heuristic_assignment
from solver.outcome import Method, RwaResult, SolvedBy, SolveOptions, Status
from solver.quick_bounds import hop_bound, quick_bound
from solver.validator import validate

if TYPE_CHECKING:
    from solver.exact_cpsat import ExactOutcome

EXACT_SIZE_LIMIT = 2_000_000  # exact models beyond this are refused (method=exact)
NODE_LIMIT_WORK = 200_000  # colour classes x slots the first-fit node-limited scheduler may scan
DEFAULT_OPTIONS = SolveOptions()
AUTO_EXACT_SIZE_LIMIT = 300_000  # auto tries the exact model only below this (build time)
CONFIGURATION_SHARE = 0.3  # of a stage's time limit, at most, for the configuration LP
HEURISTIC_SHARE = 0.5  # of a stage's time limit, at least, for an odd all-to-all's heuristic


def estimated_size(stage: Stage, colours: int) -> int:
    """An upper bound on the exact model's size: for every (demand, allowed direction) arc,
    its links (the clique rows it can appear in) plus one, times the colours."""
    n = stage.nodes
    cw = (stage.destinations - stage.sources) % n
    size = np.where(stage.allowed != Direction.CCW, cw + 1, 0) + np.where(
        stage.allowed != Direction.CW, n - cw + 1, 0
    )
    return int(size.sum()) * colours + colours


def solve_stage(
    ring: Ring,
    stage: Stage,
    options: SolveOptions = DEFAULT_OPTIONS,
) -> RwaResult:
    """Certified RWA of `stage` (options.max_hops is the caller's: see models.stage.within_hops);
    with `max_tx` / `max_rx`, steps come from a node-limited schedule (solver.node_limits) and
    `status` refers to those steps."""
    # A node sends (receives) at most 2 C lightpaths a slot, C channels on each of its two
    # links: a limit of 2 C or more never binds, and is dropped (review, session 34: a limit
    # of 2^20 sent a solvable stage to the node-limited scheduler's size refusal)
    most = 2 * ring.channels_per_direction
    max_tx = None if options.max_tx is not None and options.max_tx >= most else options.max_tx
    max_rx = None if options.max_rx is not None and options.max_rx >= most else options.max_rx
    if not max_tx and not max_rx:
        return _solve_rwa(
            ring, stage, options.method, options.time_limit_s, options.prove_channels,
            fit_slots=not options.prove_channels,
        )
    # Node limits: the steps are the node-limited schedule's (of the heuristic's colour
    # classes: `keep_heuristic`), and its bound the larger of the colour bound over the
    # channels and the nodes' degrees over their limits. Colours are searched further (the
    # exact model, the configuration LP) only while that could raise the bound, whoever asks:
    # a shape's steps and bound do not depend on whether the shape search or an explicit
    # plan solved it (review E, session 34).
    degrees = node_limits.slots_lower_bound(stage, 0, ring.channels_per_direction, max_tx, max_rx)
    result = _solve_rwa(
        ring, stage, options.method, options.time_limit_s, prove_channels=False,
        fit_slots=False, slots_floor=degrees, keep_heuristic=True,
    )
    slots = node_limits.slots_lower_bound(
        stage, result.lower_bound, ring.channels_per_direction, max_tx, max_rx
    )
    if result.chi * slots > NODE_LIMIT_WORK:
        raise LimitExceededError(
            f"{stage.label or 'a stage'}: a node-limited schedule of {result.chi} colour classes "
            f"over at least {slots} slots is beyond the first-fit scheduler's limit "
            f"({NODE_LIMIT_WORK} class-slot steps); plan without max_tx/max_rx, or a smaller "
            "stage (fewer nodes, or fewer processes per node for TRA2)",
            {"colours": result.chi, "slots_lower_bound": slots, "limit": NODE_LIMIT_WORK},
        )
    limited = node_limits.schedule(
        stage, result.assignment, result.lower_bound, ring.channels_per_direction, max_tx, max_rx
    )
    validate(stage, limited.assignment)
    node_limits.check_node_limits(
        stage, limited.assignment, ring.channels_per_direction, max_tx, max_rx
    )
    optimal = limited.slots == limited.slots_lower_bound
    return replace(
        result,
        assignment=limited.assignment,
        status=Status.OPTIMAL if optimal else Status.FEASIBLE,
        limited_steps=limited.slots,
        limited_steps_lower_bound=limited.slots_lower_bound,
    )


def check_exact_size(stage: Stage, method: Method) -> None:
    """Refuse an exact method before any solving when even the fewest colours the stage can
    take (its quick bound) make the model too large; a stage solver.constructions builds
    needs no model."""
    if method not in (Method.EXACT, Method.EXACT_HIGHS) or structure_of(stage) is not None:
        return
    least = estimated_size(stage, max(1, quick_bound(stage)))
    if least > EXACT_SIZE_LIMIT:
        raise LimitExceededError(
            f"{stage.label or 'a stage'}: the exact model would have at least {least} nonzeros "
            f"(limit {EXACT_SIZE_LIMIT}); use the method heuristic or auto for this stage",
            {"model_size": least, "limit": EXACT_SIZE_LIMIT},
        )


def _constructed(ring: Ring, stage: Stage, started: float) -> RwaResult | None:
    """The stage built by solver.constructions when that meets a proven bound: optimal
    without the integer routing search or any colouring (any method would stop here). An
    all-to-all is checked against the weighted-hops bound first (one pass, no LP: at
    N = 4096 the LP alone takes 2.5 s; for the even ring all-to-all it is L*), then against
    ceil(LP of L*); a shift's colour search starts at the LP bound."""
    structure = structure_of(stage)
    if structure is None:
        return None
    all_to_all = isinstance(structure, AllToAll)  # built the same whatever the bound
    lower = hop_bound(stage) if all_to_all else lp_load_bound(stage)
    built = build_structure(stage, structure, lower)
    if built is None:
        return None
    chi = validate(stage, built).colours_used
    if chi != lower and all_to_all:
        lower = lp_load_bound(stage)
    if chi != lower:
        return None
    return RwaResult(
        chi=lower,
        lower_bound=lower,
        status=Status.OPTIMAL,
        method=SolvedBy.CONSTRUCTION,
        assignment=built,
        channels_per_direction=ring.channels_per_direction,
        seconds=time.monotonic() - started,
    )


def channels_to_prove(
    chi: int, lower: int, channels: int, prove_channels: bool, slots_floor: int = 0
) -> bool:
    """Whether to search further for fewer colours or a higher bound: chi is above its bound,
    and the caller asks for channels (`SolveOptions.prove_channels`) or the colouring takes
    more slots than the bound allows (ceil(chi / C) above max(1, ceil(lower / C), and
    `slots_floor`, the slots proven otherwise: the node limits' degree bound))."""
    steps_settled = -(-chi // channels) <= max(1, -(-lower // channels), slots_floor)
    return chi > lower and (prove_channels or not steps_settled)


def _heuristic_or_padded(
    stage: Stage, bound: LoadBound, time_limit_s: float, started: float, enough: int = 0
) -> tuple[Assignment, bool]:
    """The heuristic's assignment (`enough`: the colours a direction may take without more
    tries, `heuristic_assignment`), and False; for an all-to-all among an odd number of
    nodes, whose sweep can take minutes (solver.constructions), the heuristic only until the
    stage's time limit (but at least HEURISTIC_SHARE of it from now: the load bound may have
    used the rest), then the padded construction (within about r / 4 channels of the
    optimum), and True."""
    nodes = all_to_all_among(stage)
    if nodes is None or len(nodes) % 2 == 0:
        return heuristic_assignment(stage, bound.routing, enough=enough), False
    stop_at = max(started + time_limit_s, time.monotonic() + HEURISTIC_SHARE * time_limit_s)
    try:
        return heuristic_assignment(stage, bound.routing, stop_at, enough), False
    except HeuristicTimeout:
        return padded_all_to_all(len(nodes), int(stage.counts[0])), True


def _solve_rwa(
    ring: Ring,
    stage: Stage,
    method: Method,
    time_limit_s: float,
    prove_channels: bool = True,
    fit_slots: bool = False,
    slots_floor: int = 0,
    keep_heuristic: bool = False,
) -> RwaResult:
    """The stage's certified RWA. `fit_slots`: a colouring within the slots the bound allows
    is enough (no node limits, channels not to be proven). `slots_floor`: slots proven by
    other means (`channels_to_prove`). `keep_heuristic` (node limits): the heuristic's
    colour classes (or a construction's) are kept and the exact model only raises the bound:
    a node-limited schedule packs classes, not colours, so fewer colours may take more
    slots, and CP-SAT's parallel workers return one of several optimal colourings, not the
    same one each run (review E, session 34: OpTree at N = 29, w = 3, max_rx 3, branching
    6,5 took 25 slots planned explicitly and 24 in the shape search; one stage packed from
    CP-SAT's colourings took 8 or 9 slots from run to run)."""
    started = time.monotonic()
    constructed = _constructed(ring, stage, started)
    if constructed is not None:
        return constructed
    check_exact_size(stage, method)
    channels = ring.channels_per_direction
    bound = load_bound(stage, time_limit_s=max(0.5, 0.3 * time_limit_s))
    lower = bound.lower_bound
    # Without proving channels, colours within the slots the bound allows are enough: the
    # heuristic's other colourings would only lower chi (`channels_to_prove`). At N = 2048
    # they took 17 of the 45 s of synth's all-reduce search (64 MiB), 48 of the 85
    # directions that tried them already within their slots.
    enough = channels * max(1, -(-lower // channels)) if fit_slots else 0
    assignment, timed_out = _heuristic_or_padded(stage, bound, time_limit_s, started, enough)
    chi = validate(stage, assignment).colours_used
    if timed_out:
        used = SolvedBy.CONSTRUCTION
    else:
        used = SolvedBy.BOUND if chi == lower else SolvedBy.HEURISTIC
    wants_exact = method in (Method.EXACT, Method.EXACT_HIGHS) or (
        method == Method.AUTO
        and channels_to_prove(chi, lower, channels, prove_channels, slots_floor)
    )
    if wants_exact and chi > 0:
        binaries = estimated_size(stage, chi)
        limit = AUTO_EXACT_SIZE_LIMIT if method == Method.AUTO else EXACT_SIZE_LIMIT
        if binaries > limit:
            if method != Method.AUTO:
                raise LimitExceededError(
                    f"the exact model would have up to {binaries} nonzeros (limit "
                    f"{EXACT_SIZE_LIMIT}); use the method heuristic or auto for this stage",
                    {"model_size": binaries, "limit": EXACT_SIZE_LIMIT},
                )
        else:
            form = build(stage, chi, lower)
            remaining = max(0.1, time_limit_s - (time.monotonic() - started))
            outcome: ExactOutcome
            # The back ends load here: OR-Tools and Pyomo take seconds to import, and most
            # plans never need them.
            if method == Method.EXACT_HIGHS:
                from solver.exact_highs import solve_highs

                outcome = solve_highs(form, remaining)
            else:
                from solver.exact_cpsat import solve_cpsat

                outcome = solve_cpsat(form, remaining, hint=assignment)
            lower = max(lower, outcome.bound)
            timed_out = outcome.timed_out
            if outcome.assignment is not None and outcome.colours is not None:
                exact_chi = validate(stage, outcome.assignment).colours_used
                if not keep_heuristic and (exact_chi < chi or method != Method.AUTO):
                    assignment, chi = outcome.assignment, exact_chi
                    used = SolvedBy.EXACT_HIGHS if method == Method.EXACT_HIGHS else SolvedBy.EXACT
                if outcome.proven:
                    lower = max(lower, exact_chi)
    source = "load" if lower == bound.lower_bound else "exact"
    if channels_to_prove(chi, lower, channels, prove_channels, slots_floor):
        # The configuration LP can prove what the load bound cannot (a colouring gap).
        deadline = min(
            started + time_limit_s, time.monotonic() + CONFIGURATION_SHARE * time_limit_s
        )
        found = configuration_bound(stage, lower, assignment, deadline)
        if found is not None and found.lower_bound > lower:
            lower, source = found.lower_bound, "configuration"
    # Every assignment that can reach this point passed validate() above.
    if chi == lower:
        status = Status.OPTIMAL
    elif timed_out:
        status = Status.TIME_LIMIT
    else:
        status = Status.FEASIBLE
    return RwaResult(
        chi=chi,
        lower_bound=lower,
        status=status,
        method=used,
        assignment=assignment,
        channels_per_direction=channels,
        seconds=time.monotonic() - started,
        bound_source=source,
    )

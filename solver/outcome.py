"""Typed results of the RWA solvers."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from solver.assignment import Assignment


class Status(StrEnum):
    OPTIMAL = "optimal"  # chi equals a proven lower bound
    FEASIBLE = "feasible"  # a validated assignment, with a gap to the bound
    TIME_LIMIT = "time_limit"  # stopped by the time limit; best assignment and bound kept
    INFEASIBLE = "infeasible"  # no assignment exists within the allowed channels


class Method(StrEnum):
    """What the caller asks to run on each stage."""

    AUTO = "auto"  # heuristic, then CP-SAT on a remaining gap when the model is small enough
    EXACT = "exact"  # CP-SAT
    EXACT_HIGHS = "exact-highs"  # Pyomo model solved by HiGHS
    HEURISTIC = "heuristic"


class SolvedBy(StrEnum):
    """What produced a stage's assignment (a result, never a request)."""

    EXACT = "exact"
    EXACT_HIGHS = "exact-highs"
    HEURISTIC = "heuristic"
    BOUND = "bound"  # the heuristic met the lower bound: optimal without a search
    CONSTRUCTION = "construction"  # built from the stage's structure (solver.constructions)


@dataclass(frozen=True)
class SolveOptions:
    """How every stage is solved: back end, time limit per stage, per-node transmit/receive
    limits (lightpaths per slot) and the routing constraint on lightpath length (hops).

    `prove_channels` False (the shape search's candidates): a stage whose colouring already
    takes as few slots as its proven bound allows gets no further search for fewer channels
    or a higher bound (CP-SAT under `auto`, the configuration LP, a second solve in the
    caller's labels): its steps are proven, its channels may stay unproven. The search
    compares shapes by time, which depends on the steps only."""

    method: Method = Method.AUTO
    time_limit_s: float = 10.0
    max_tx: int | None = None
    max_rx: int | None = None
    max_hops: int | None = None
    prove_channels: bool = True


@dataclass(frozen=True)
class RwaResult:
    """One stage's RWA: chi channels (a colour is a (slot, fibre, wavelength) channel), the
    proven lower bound on chi, and the validated assignment."""

    chi: int
    lower_bound: int
    status: Status
    method: SolvedBy
    assignment: Assignment
    channels_per_direction: int
    seconds: float
    bound_source: str = "load"
    # With per-node limits the slots come from a schedule (solver.node_limits), not from chi.
    limited_steps: int | None = None
    limited_steps_lower_bound: int | None = None

    @property
    def steps(self) -> int:
        """ceil(chi / (F w)) time slots (SPEC section 2), or the node-limited schedule's."""
        if self.limited_steps is not None:
            return self.limited_steps
        return -(-self.chi // self.channels_per_direction)

    @property
    def steps_lower_bound(self) -> int:
        if self.limited_steps_lower_bound is not None:
            return self.limited_steps_lower_bound
        return -(-self.lower_bound // self.channels_per_direction)

    @property
    def steps_optimal(self) -> bool:
        return self.steps == self.steps_lower_bound

    @property
    def gap(self) -> float:
        """Relative gap (chi - bound) / chi; with per-node limits, where `status` is about
        the node-limited schedule's steps, (steps - bound) / steps: 0 exactly when optimal
        (review E, session 34: a node-limited stage read 'optimal' beside a gap of 0.04,
        its colours' gap)."""
        if self.limited_steps is not None:
            return 0.0 if self.steps == 0 else (self.steps - self.steps_lower_bound) / self.steps
        return 0.0 if self.chi == 0 else (self.chi - self.lower_bound) / self.chi

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
    AUTO = "auto"
    EXACT = "exact"  # CP-SAT
    EXACT_HIGHS = "exact-highs"  # Pyomo model solved by HiGHS
    HEURISTIC = "heuristic"
    BOUND = "bound"  # heuristic met the lower bound: optimal without a search


@dataclass(frozen=True)
class RwaResult:
    """One stage's RWA: chi channels (a colour is a (slot, fibre, wavelength) channel), the
    proven lower bound on chi, and the validated assignment."""

    chi: int
    lower_bound: int
    status: Status
    method: Method
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
        """Relative gap (chi - bound) / chi; 0 when optimal."""
        return 0.0 if self.chi == 0 else (self.chi - self.lower_bound) / self.chi

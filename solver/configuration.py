"""The configuration LP of a stage, by column generation: a lower bound on chi that can exceed
the load bound (../shared/RWA-LITERATURE.md: the independent-set formulation of Lee, Lee &
Park, IEEE JSAC 2000, and Jaumard, Meyer & Thiongane, Discrete Applied Math 2009).

A configuration is what one colour can carry in one direction: a set of pairwise link-disjoint
arcs, at most one unit of each demand (two units of a demand overlap). With lambda_c >= 0
copies of configuration c:

    min z   s.t.  sum_c a_ic lambda_c >= k_i        (every unit of demand i, either direction)
                  z - sum_{c in C_o} lambda_c >= 0   (o = CW, CCW: colours per direction)

chi >= z* >= any dual value: for duals pi >= 0 of the demand rows, let V_o(pi) be the heaviest
configuration of direction o; then (pi, rho_o = V_o) / (V_CW + V_CCW) is dual feasible, so
LB(pi) = sum_i k_i pi_i / (V_CW(pi) + V_CCW(pi)) is a proven bound (Farley's bound, the
standard certificate of column generation). ceil(LB) is the bound reported.

Pricing, V_o(pi), is a maximum-weight set of disjoint arcs on a circle: cut the ring at the
least-covered link e; either no chosen arc covers e (weighted interval scheduling on the line)
or exactly one does (the rest lies in its complement). All those line problems are swept at
once, one dynamic programme per case over the link positions.

Column generation tails off here (degenerate masters; the dual jumps between the two
directions), so the duals are smoothed around the best-bound duals found so far (Wentges,
"Weighted Dantzig-Wolfe decomposition", 1997): price at alpha pi_best + (1 - alpha) pi,
falling back to pi when that finds nothing. It stops at its deadline, when the bound reaches
the master's value, or when the master proves no gain is possible (ceil(z_RMP) <= the bound
the caller already has).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import highspy
import numpy as np
import numpy.typing as npt

from models.ring import Direction
from models.stage import Stage
from solver.assignment import Assignment

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

MAX_DEMANDS = 5_000  # larger stages are not priced (each pricing sweeps every arc per case)
MAX_CASES = 2_000  # arcs over the least-covered link: cases of one pricing
SMOOTHING = 0.8  # Wentges' alpha
_EPS = 1e-7


@dataclass(frozen=True)
class ConfigurationBound:
    lower_bound: int  # ceil of the best dual bound found (0 when none was computed)
    dual_bound: float  # the best LB(pi)
    master_value: float  # z of the last restricted master (an upper bound on the LP)
    columns: int
    iterations: int
    converged: bool  # the dual bound met the master's value: the LP's optimum is known


def heaviest_disjoint_arcs(
    n: int, lo: IntArray, length: IntArray, weight: FloatArray
) -> tuple[float, IntArray]:
    """Maximum total weight of pairwise link-disjoint arcs [lo, lo + length) (mod n) on a
    ring of n links, and which arcs (indices into the arrays); arcs of weight <= 0 are never
    taken."""
    keep = np.flatnonzero(weight > _EPS)
    if len(keep) == 0:
        return 0.0, np.zeros(0, dtype=np.int64)
    lo, length, weight = lo[keep], length[keep], weight[keep]
    diff = np.zeros(2 * n + 1, dtype=np.int64)
    np.add.at(diff, lo, 1)
    np.add.at(diff, lo + length, -1)
    cover = np.cumsum(diff)[: 2 * n]
    cover = cover[:n] + cover[n:]
    e = int(np.argmin(cover))
    # Positions after the cut: link e + 1 is position 0, link e is position n - 1.
    start = (lo - e - 1) % n
    end = start + length  # exclusive
    crossing = np.flatnonzero(end > n - 1)  # covers link e
    inside = np.flatnonzero(end <= n - 1)
    if len(crossing) + 1 > MAX_CASES:
        raise ValueError("too many arcs over every link")
    # Case 0: no arc over e, positions [0, n - 1); case 1 + j: arc crossing[j] is taken and
    # the rest lies in [end_j - n, start_j).
    lower = np.concatenate([[0], end[crossing] - n])
    upper = np.concatenate([[n - 1], start[crossing]])
    cases = len(lower)
    best = np.zeros((cases, n + 1))
    took = np.full((cases, n + 1), -1, dtype=np.int64)
    by_end = inside[np.argsort(end[inside], kind="stable")]
    ends = end[by_end]
    at = 0
    for p in range(1, n):
        best[:, p] = best[:, p - 1]
        while at < len(by_end) and ends[at] == p:
            a = int(by_end[at])
            at += 1
            s = int(start[a])
            allowed = (lower <= s) & (upper >= p)
            value = np.where(allowed, best[:, s] + weight[a], -np.inf)
            better = value > best[:, p] + _EPS
            best[better, p] = value[better]
            took[better, p] = a
    totals = best[np.arange(cases), upper] + np.concatenate([[0.0], weight[crossing]])
    case = int(np.argmax(totals))
    chosen = [] if case == 0 else [int(crossing[case - 1])]
    p = int(upper[case])
    while p > lower[case]:
        a = int(took[case, p])
        if a < 0:
            p -= 1
        else:
            chosen.append(a)
            p = int(start[a])
    return float(totals[case]), keep[np.array(sorted(chosen), dtype=np.int64)]


def configuration_bound(
    stage: Stage,
    have: int,
    assignment: Assignment,
    deadline: float,
) -> ConfigurationBound | None:
    """Column generation from the colour classes of `assignment` (a valid assignment of the
    stage) until `deadline`; None for stages beyond MAX_DEMANDS or MAX_CASES. `have` is the
    bound the caller holds: the search stops as soon as the master shows it cannot beat it."""
    if stage.demand_count == 0 or stage.demand_count > MAX_DEMANDS:
        return None
    n, k = stage.nodes, stage.counts.astype(np.float64)
    arcs = (
        (stage.sources, (stage.destinations - stage.sources) % n),  # CW: links [s, d)
        (stage.destinations, (stage.sources - stage.destinations) % n),  # CCW: [d, s)
    )
    usable = (stage.allowed != Direction.CCW, stage.allowed != Direction.CW)
    master = _Master(stage.demand_count, k)
    for direction, members in _colour_classes(assignment):
        master.add(direction, members)
    pi_best: FloatArray | None = None
    best_bound, z, iterations, converged = 0.0, math.inf, 0, False
    try:
        while time.monotonic() < deadline:
            iterations += 1
            z, pi, rho = master.solve()
            if math.ceil(z - _EPS) <= have:
                break  # the LP is at most z: no bound above `have` can come from it
            added = False
            for alpha in (SMOOTHING, 0.0) if pi_best is not None else (0.0,):
                point = pi if pi_best is None else alpha * pi_best + (1 - alpha) * pi
                found = [
                    heaviest_disjoint_arcs(n, arcs[o][0], arcs[o][1], np.where(usable[o], point, 0))
                    for o in (0, 1)
                ]
                total = found[0][0] + found[1][0]
                if total > _EPS:
                    bound = float(k @ point) / total
                    if bound > best_bound:
                        best_bound, pi_best = bound, point
                for o, (_, members) in enumerate(found):
                    if len(members) and float(pi[members].sum()) > rho[o] + _EPS:
                        master.add(o, members)
                        added = True
                if added:
                    break
            if not added or best_bound >= z - _EPS * max(1.0, z):
                converged = True  # no improving column at pi itself: z is the LP's value,
                break  # and LB(pi), computed at pi just above, certifies it
    except ValueError:
        return None
    lower = math.ceil(best_bound - 1e-6 * max(1.0, best_bound)) if best_bound > 0 else 0
    return ConfigurationBound(lower, best_bound, z, master.columns, iterations, converged)


def _colour_classes(assignment: Assignment) -> list[tuple[int, IntArray]]:
    """(direction, demands) of every colour class of the assignment."""
    demand, direction, colour = assignment.expand()
    key = colour * 2 + direction
    order = np.argsort(key, kind="stable")
    key, demand = key[order], demand[order]
    cuts = np.flatnonzero(np.diff(key)) + 1
    return [
        (int(group_key[0] % 2), np.unique(group))
        for group_key, group in zip(np.split(key, cuts), np.split(demand, cuts), strict=True)
    ]


class _Master:
    """The restricted master in HiGHS: column 0 is z; rows 0..D-1 the demands, D and D + 1
    the two directions."""

    def __init__(self, demands: int, counts: FloatArray) -> None:
        self.demands = demands
        self.columns = 0
        self.seen: set[tuple[int, bytes]] = set()
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        inf = highspy.kHighsInf
        h.addVars(1, np.array([0.0]), np.array([inf]))
        h.changeColCost(0, 1.0)
        for i in range(demands):
            h.addRow(float(counts[i]), inf, 0, np.zeros(0, dtype=np.int32), np.zeros(0))
        for _ in range(2):
            h.addRow(0.0, inf, 1, np.array([0], dtype=np.int32), np.array([1.0]))
        self.h = h

    def add(self, direction: int, members: IntArray) -> None:
        signature = (direction, np.asarray(members, dtype=np.int64).tobytes())
        if signature in self.seen:
            return
        self.seen.add(signature)
        rows = np.concatenate([members, [self.demands + direction]]).astype(np.int32)
        values = np.concatenate([np.ones(len(members)), [-1.0]])
        self.h.addCol(0.0, 0.0, highspy.kHighsInf, len(rows), rows, values)
        self.columns += 1

    def solve(self) -> tuple[float, FloatArray, FloatArray]:
        self.h.run()
        solution = self.h.getSolution()
        duals = np.maximum(np.array(solution.row_dual), 0.0)
        value = float(self.h.getInfo().objective_function_value)
        return value, duals[: self.demands], duals[self.demands :]

"""L*, the least maximum directed-link load over all routings (SPEC section 2), and the routing
that attains it.

Each demand i (s -> d, k units) sends x_i units clockwise and k - x_i counter-clockwise.
A CW unit holds CW links [s, d) (circularly), a CCW unit CCW links [d, s): the two arcs are
complementary, so link e carries CW load sum_{i: e in [s_i, d_i)} x_i and CCW load
sum_{i: e not in [s_i, d_i)} (k_i - x_i). L* = min over integer x of the largest of these.

We solve it as a MILP with HiGHS (highspy), using the stage's rotational symmetry:
- if the stage is invariant under rotation by t (t | N), an optimal *fractional* routing is
  t-periodic (average any optimum over the rotations), so the LP over t-periodic routings
  gives the exact LP value; ceil of it is a valid lower bound;
- a t-periodic integer routing that meets that ceiling is an optimal integer routing; if it
  does not, the period is doubled (2t, 4t, ..., N), which allows more routings.
With period t every orbit of N/t demands shares one variable and only t links need rows.
A second phase keeps the load at L* and minimises total link usage (shorter arcs colour
better).
"""

from __future__ import annotations

import math
import time
import weakref
from dataclasses import dataclass

import highspy
import numpy as np
import numpy.typing as npt

from models.ring import Direction
from models.stage import Stage
from solver.quick_bounds import hop_bound, quick_bound
from solver.routing_search import repair

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

_DENSE_LIMIT = 4_000_000  # orbit x link-class coefficients for the periodic model
_REPAIR_SHARE = 0.25  # of load_bound's time for the local search before the MIP
_EPS = 1e-6


@dataclass(frozen=True)
class Routing:
    """Units sent clockwise per demand, and the loads that result."""

    clockwise: IntArray
    cw_load: IntArray
    ccw_load: IntArray
    value: int  # max(max link load, ceil(units_o / alpha_o)): a lower bound on chi here


@dataclass(frozen=True)
class LoadBound:
    lower_bound: int  # proven: chi >= lower_bound
    routing: Routing  # an integer routing whose value is as small as we could find
    exact: bool  # routing.value == lower_bound: the bound is the minimum over routings
    period: int


def link_loads(stage: Stage, clockwise: npt.ArrayLike) -> tuple[IntArray, IntArray]:
    """CW and CCW load of every link for a routing (difference arrays, O(D + N))."""
    n = stage.nodes
    x = np.asarray(clockwise, dtype=np.int64)
    return (
        _arc_load(n, stage.sources, (stage.destinations - stage.sources) % n, x),
        _arc_load(
            n, stage.destinations, (stage.sources - stage.destinations) % n, stage.counts - x
        ),
    )


def _arc_load(n: int, lo: IntArray, length: IntArray, weight: IntArray) -> IntArray:
    w = np.asarray(weight, dtype=np.float64)  # bincount sums weights exactly below 2^53
    diff = np.bincount(lo, weights=w, minlength=2 * n + 1) - np.bincount(
        lo + length, weights=w, minlength=2 * n + 1
    )
    acc: IntArray = np.cumsum(np.rint(diff).astype(np.int64))[: 2 * n]
    return acc[:n] + acc[n:]


_CAPS: weakref.WeakKeyDictionary[Stage, tuple[int, int]] = weakref.WeakKeyDictionary()


def independence_caps(stage: Stage) -> tuple[int, int]:
    """alpha_o >= the most pairwise link-disjoint arcs one colour can hold in direction o.

    A colour class in direction o is a set of disjoint arcs, one per demand at most (units of
    one demand overlap), so their lengths sum to <= N: alpha_o is the largest j such that the
    j shortest direction-o arcs of distinct demands fit in N links. Hence for any routing,
    chi >= units_o / alpha_o: the independence bound, added to L* in the model below.
    Remembered per stage object (the bound's routings each need it)."""
    known = _CAPS.get(stage)
    if known is not None:
        return known
    n = stage.nodes
    caps = []
    for lengths, forbidden in (
        ((stage.destinations - stage.sources) % n, Direction.CCW),
        ((stage.sources - stage.destinations) % n, Direction.CW),
    ):
        usable = lengths[stage.allowed != forbidden]
        if len(usable) > n:  # at most n arcs (each >= 1 link) fit: only the n shortest matter
            usable = np.partition(usable, n)[:n]
        caps.append(max(1, int(np.searchsorted(np.cumsum(np.sort(usable)), n, side="right"))))
    _CAPS[stage] = (caps[0], caps[1])
    return caps[0], caps[1]


def rotation_period(stage: Stage) -> int:
    """Smallest t | N with the stage invariant under i -> i + t (N if none smaller)."""
    n = stage.nodes
    key = np.sort(
        (stage.allowed * n + stage.sources) * n * 1_000_003
        + stage.destinations * 1_000_003
        + stage.counts
    )
    for t in (t for t in range(1, n) if n % t == 0):
        shifted = (
            (stage.allowed * n + (stage.sources + t) % n) * n * 1_000_003
            + ((stage.destinations + t) % n) * 1_000_003
            + stage.counts
        )
        if np.array_equal(np.sort(shifted), key):
            return t
    return n


def _orbits(stage: Stage, period: int) -> tuple[IntArray, IntArray]:
    """Representatives (demands with source < period) and each demand's representative."""
    n = stage.nodes
    steps = stage.sources // period
    rep_s = stage.sources - steps * period
    rep_d = (stage.destinations - steps * period) % n
    code = (stage.allowed * n + rep_s) * n + rep_d
    reps = np.flatnonzero(stage.sources < period)
    rep_code = (stage.allowed[reps] * n + stage.sources[reps]) * n + stage.destinations[reps]
    order = np.argsort(rep_code)
    position = np.searchsorted(rep_code[order], code)
    return reps, reps[order][position]


def _class_counts(n: int, period: int, lo: IntArray, length: IntArray) -> FloatArray:
    """counts[r, e]: how many links of arc r lie in link class e (link index mod period).

    In a period-t routing the orbit of arc r (its N/t shifts by t) puts exactly counts[r, e]
    units' worth of load x_r on every link of class e, so the load of any link of class e is
    sum_r counts[r, e] x_r."""
    full = length // period
    rem = length % period
    counts = np.repeat(full[:, None], period, axis=1).astype(np.float64)
    offsets = (lo[:, None] + np.arange(period)[None, :]) % period
    mask = np.arange(period)[None, :] < rem[:, None]
    np.add.at(counts, (np.repeat(np.arange(len(lo)), period)[mask.ravel()], offsets[mask]), 1.0)
    return counts


def _solve(h: highspy.Highs, time_limit_s: float) -> tuple[FloatArray | None, float, bool]:
    h.setOptionValue("time_limit", max(time_limit_s, 0.01))
    h.setOptionValue("mip_detect_symmetry", False)
    h.run()
    status = h.getModelStatus()
    info = h.getInfo()
    if status not in (highspy.HighsModelStatus.kOptimal, highspy.HighsModelStatus.kTimeLimit):
        return None, -math.inf, False
    if info.primal_solution_status != 2:  # no feasible point
        return None, float(info.mip_dual_bound), False
    values = np.array(h.getSolution().col_value, dtype=np.float64)
    return values, float(info.mip_dual_bound), status == highspy.HighsModelStatus.kOptimal


def _periodic_model(
    stage: Stage, period: int, integer: bool
) -> tuple[highspy.Highs, IntArray, IntArray]:
    """Variables: x_r for each orbit representative r, then L. Rows: CW and CCW load of the
    `period` link classes, and the two independence rows. Objective: minimise L."""
    n = stage.nodes
    reps, rep_of = _orbits(stage, period)
    s, d, k = stage.sources[reps], stage.destinations[reps], stage.counts[reps]
    cw_len, ccw_len = (d - s) % n, (s - d) % n
    cw = _class_counts(n, period, s, cw_len)
    ccw = _class_counts(n, period, d, ccw_len)
    nr = len(reps)
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    lower = np.zeros(nr + 1)
    upper = np.append(k.astype(np.float64), np.inf)
    allowed = stage.allowed[reps]
    lower[:nr][allowed == Direction.CW] = k[allowed == Direction.CW]
    upper[:nr][allowed == Direction.CCW] = 0
    cost = np.zeros(nr + 1)
    cost[nr] = 1.0
    h.addVars(nr + 1, lower, upper)
    h.changeColsCost(nr + 1, np.arange(nr + 1, dtype=np.int32), cost)
    if integer and nr:
        h.changeColsIntegrality(
            nr, np.arange(nr, dtype=np.int32), np.full(nr, highspy.HighsVarType.kInteger)
        )
    # CW class e: sum_r cw[r, e] x_r - L <= 0 ; CCW: sum_r ccw[r, e](k_r - x_r) - L <= 0
    ccw_const = (ccw * k[:, None]).sum(axis=0)
    rows_idx, rows_val, starts = [], [], []
    lo_b, hi_b = [], []
    nnz = 0
    for e in range(period):
        for coeff, sign, const in ((cw[:, e], 1.0, 0.0), (ccw[:, e], -1.0, ccw_const[e])):
            nz = np.flatnonzero(coeff)
            starts.append(nnz)
            rows_idx.append(np.append(nz, nr))
            rows_val.append(np.append(sign * coeff[nz], -1.0))
            nnz += len(nz) + 1
            lo_b.append(-np.inf)
            hi_b.append(-const)
    # Independence rows: sum_r M x_r <= alpha_cw L, sum_r M (k_r - x_r) <= alpha_ccw L.
    alpha_cw, alpha_ccw = independence_caps(stage)
    members = np.full(nr, float(n // period))
    for sign, alpha, const in ((1.0, alpha_cw, 0.0), (-1.0, alpha_ccw, float((members * k).sum()))):
        starts.append(nnz)
        rows_idx.append(np.append(np.arange(nr), nr))
        rows_val.append(np.append(sign * members, -float(alpha)))
        nnz += nr + 1
        lo_b.append(-np.inf)
        hi_b.append(-const)
    if starts:
        h.addRows(
            len(starts),
            np.array(lo_b),
            np.array(hi_b),
            nnz,
            np.array(starts, dtype=np.int32),
            np.concatenate(rows_idx).astype(np.int32),
            np.concatenate(rows_val),
        )
    return h, reps, rep_of


def _prefix_model(stage: Stage, integer: bool, load_cap: int | None) -> highspy.Highs:
    """Period N (no symmetry): x_i per demand, L, c_e and q_e per link, with
    c_e = c_(e-1) + (CW units starting at e) - (CW units ending at e): O(D + N) nonzeros."""
    n = stage.nodes
    nd = stage.demand_count
    s, d, k = stage.sources, stage.destinations, stage.counts.astype(np.float64)
    cw_len, ccw_len = (d - s) % n, (s - d) % n
    L = nd
    c0 = nd + 1
    q0 = nd + 1 + n
    ncol = nd + 1 + 2 * n
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    lower = np.zeros(ncol)
    upper = np.full(ncol, np.inf)
    upper[:nd] = k
    lower[:nd][stage.allowed == Direction.CW] = k[stage.allowed == Direction.CW]
    upper[:nd][stage.allowed == Direction.CCW] = 0
    if load_cap is not None:
        upper[L] = load_cap
    cost = np.zeros(ncol)
    if load_cap is None:
        cost[L] = 1.0
    else:
        cost[:nd] = cw_len - ccw_len
    h.addVars(ncol, lower, upper)
    h.changeColsCost(ncol, np.arange(ncol, dtype=np.int32), cost)
    if integer and nd:
        h.changeColsIntegrality(
            nd, np.arange(nd, dtype=np.int32), np.full(nd, highspy.HighsVarType.kInteger)
        )
    rows: list[tuple[list[int], list[float], float, float]] = []
    cw_end = (s + cw_len) % n
    ccw_lo, ccw_end = d, (d + ccw_len) % n
    covers_cw0 = (s == 0) | (s + cw_len > n)
    covers_ccw0 = (ccw_lo == 0) | (ccw_lo + ccw_len > n)
    # c_0 - sum x (arcs over CW link 0) = 0
    idx = np.flatnonzero(covers_cw0)
    rows.append(([c0, *idx.tolist()], [1.0, *([-1.0] * len(idx))], 0.0, 0.0))
    # q_0 + sum x (arcs over CCW link 0) = sum k
    idx = np.flatnonzero(covers_ccw0)
    rows.append(
        ([q0, *idx.tolist()], [1.0, *([1.0] * len(idx))], float(k[idx].sum()), float(k[idx].sum()))
    )
    start_cw: list[list[int]] = [[] for _ in range(n)]
    end_cw: list[list[int]] = [[] for _ in range(n)]
    start_ccw: list[list[int]] = [[] for _ in range(n)]
    end_ccw: list[list[int]] = [[] for _ in range(n)]
    for i in range(nd):
        start_cw[s[i]].append(i)
        end_cw[cw_end[i]].append(i)
        start_ccw[ccw_lo[i]].append(i)
        end_ccw[ccw_end[i]].append(i)
    for e in range(1, n):
        cols = [c0 + e, c0 + e - 1] + start_cw[e] + end_cw[e]
        vals = [1.0, -1.0] + [-1.0] * len(start_cw[e]) + [1.0] * len(end_cw[e])
        rows.append((cols, vals, 0.0, 0.0))
        rhs = float(k[start_ccw[e]].sum() - k[end_ccw[e]].sum())
        cols = [q0 + e, q0 + e - 1] + start_ccw[e] + end_ccw[e]
        vals = [1.0, -1.0] + [1.0] * len(start_ccw[e]) + [-1.0] * len(end_ccw[e])
        rows.append((cols, vals, rhs, rhs))
    for e in range(n):
        rows.append(([c0 + e, L], [1.0, -1.0], -np.inf, 0.0))
        rows.append(([q0 + e, L], [1.0, -1.0], -np.inf, 0.0))
    alpha_cw, alpha_ccw = independence_caps(stage)
    every = list(range(nd))
    rows.append(([*every, L], [1.0] * nd + [-float(alpha_cw)], -np.inf, 0.0))
    rows.append(([*every, L], [-1.0] * nd + [-float(alpha_ccw)], -np.inf, -float(k.sum())))
    starts: list[int] = []
    index: list[int] = []
    value: list[float] = []
    lo_b: list[float] = []
    hi_b: list[float] = []
    for cols, vals, lo_v, hi_v in rows:
        starts.append(len(index))
        index.extend(cols)
        value.extend(vals)
        lo_b.append(lo_v)
        hi_b.append(hi_v)
    h.addRows(
        len(rows),
        np.array(lo_b),
        np.array(hi_b),
        len(index),
        np.array(starts, dtype=np.int32),
        np.array(index, dtype=np.int32),
        np.array(value),
    )
    return h


def _routing_from(stage: Stage, x: FloatArray) -> Routing:
    clockwise = np.rint(x).astype(np.int64)
    cw, ccw = link_loads(stage, clockwise)
    alpha_cw, alpha_ccw = independence_caps(stage)
    units_cw = int(clockwise.sum())
    units_ccw = int(stage.counts.sum()) - units_cw
    load = int(max(cw.max(initial=0), ccw.max(initial=0)))
    value = max(load, -(-units_cw // alpha_cw), -(-units_ccw // alpha_ccw))
    return Routing(clockwise, cw, ccw, value)


def _pinned_routing(stage: Stage, x: IntArray) -> Routing:
    """The routing with CW units `x` per demand, its pinned demands (`stage.allowed`) all
    CW or all CCW whatever `x` says."""
    x = np.where(
        stage.allowed == Direction.CW, stage.counts, np.where(stage.allowed == Direction.CCW, 0, x)
    )
    return _routing_from(stage, x.astype(np.float64))


def _shortest_routing(stage: Stage) -> Routing:
    """Every demand on its shorter arc, antipodal pairs (even N) split between the two ways
    by the sender's parity: every link of the ring all-to-all then carries N^2 / 8 each way,
    the weighted-hops bound (all antipodal pairs CW put N / 4 more on every CW link:
    131328 against 131072 at N = 1024, which left an all-to-all short of one demand to the
    LP and past the stage's time limit)."""
    n = stage.nodes
    return _shortest_on(stage, np.arange(n, dtype=np.int64), n)


def _shortest_on(stage: Stage, index: IntArray, r: int) -> Routing:
    """Shortest arcs on a ring of r places, node v at place index[v], antipodal pairs split
    by the sender's place's parity."""
    steps = (index[stage.destinations] - index[stage.sources]) % r
    split = (stage.counts + index[stage.sources] % 2) // 2
    return _pinned_routing(
        stage, np.where(2 * steps < r, stage.counts, np.where(2 * steps > r, 0, split))
    )


def _endpoint_ring_routing(stage: Stage) -> Routing | None:
    """Shortest arcs on the ring of the stage's endpoints alone (a run of nodes that no
    demand starts or ends at counts as one link), antipodal pairs split by the sender's
    parity; None when every node is an endpoint (then it is `_shortest_routing`). An
    all-to-all among r of the N nodes is the r-node ring all-to-all, which these arcs route
    at its least load (r^2 - 1) / 8 (odd r) where the N-ring's shortest arcs pile up on the
    members' side: 201 of 300 nodes, 5050 against 8825."""
    n = stage.nodes
    present = np.zeros(n, dtype=bool)
    present[stage.sources] = True
    present[stage.destinations] = True
    r = int(present.sum())
    if r == n or r < 3:
        return None
    return _shortest_on(stage, np.cumsum(present) - 1, r)  # each endpoint's place


def _solve_period(
    stage: Stage, period: int, time_limit_s: float
) -> tuple[Routing | None, float, bool]:
    """Integer min-max-load routing among period-`period` routings: (routing, bound, proven)."""
    if stage.demand_count and _use_periodic(stage, period):
        h, reps, rep_of = _periodic_model(stage, period, integer=True)
        values, bound, proven = _solve(h, time_limit_s)
        if values is None:
            return None, bound, False
        return _routing_from(stage, _per_demand(values, reps, rep_of)), bound, proven
    h = _prefix_model(stage, integer=True, load_cap=None)
    values, bound, proven = _solve(h, time_limit_s)
    if values is None:
        return None, bound, False
    return _routing_from(stage, values[: stage.demand_count]), bound, proven


def _use_periodic(stage: Stage, period: int) -> bool:
    """The orbit model applies below period N while its dense coefficients stay small."""
    return period < stage.nodes and (stage.sources < period).sum() * period <= _DENSE_LIMIT


def _per_demand(values: FloatArray, reps: IntArray, rep_of: IntArray) -> FloatArray:
    """Spread the orbit representatives' values (reps ascending) to every demand."""
    return values[np.searchsorted(reps, rep_of)]


def _lp_solution(
    stage: Stage, period: int, time_limit_s: float = math.inf
) -> tuple[float, FloatArray] | None:
    """LP value and per-demand fractional CW units of the period-`period` relaxation, or
    None when HiGHS does not prove the LP optimal within the time limit (a value short of
    optimal is no bound: the caller keeps the quick bounds)."""
    periodic = _use_periodic(stage, period)
    if periodic:
        h, reps, rep_of = _periodic_model(stage, period, integer=False)
    else:
        h = _prefix_model(stage, integer=False, load_cap=None)
    if math.isfinite(time_limit_s):
        h.setOptionValue("time_limit", max(time_limit_s, 0.01))
    h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return None
    values = np.array(h.getSolution().col_value)
    x = _per_demand(values, reps, rep_of) if periodic else values[: stage.demand_count]
    return float(h.getInfo().objective_function_value), x


def _balanced_roundings(stage: Stage, period: int, x: FloatArray) -> list[Routing]:
    """Round a t-periodic fractional routing member by member, circularly balanced.

    An orbit of M members (shifts by t) with fractional CW units x = b + f per member gets
    F = floor(M f) or ceil(M f) extra units in all, member j receiving
    floor((j + 1) F / M) - floor(j F / M): every circular window of consecutive members then
    gets floor or ceil of its fractional total, so link loads stay within one unit per orbit
    of the LP loads (one orbit, as in a TRA round or a ring stage: within ceil(LP))."""
    n = stage.nodes
    if period >= n:
        return [_routing_from(stage, np.floor(x + _EPS))]
    m = n // period
    member = stage.sources // period
    base = np.floor(x + _EPS)
    frac = np.clip(x - base, 0.0, 1.0)
    out = []
    for rounding in (np.floor, np.ceil, np.rint):
        total = rounding(frac * m - _EPS if rounding is np.ceil else frac * m + _EPS)
        bump = np.floor((member + 1) * total / m + _EPS) - np.floor(member * total / m + _EPS)
        out.append(_routing_from(stage, np.minimum(base + bump, stage.counts)))
    return out


def _shorten(stage: Stage, routing: Routing, shortest: Routing, time_limit_s: float) -> Routing:
    """Phase 2: among routings with max load <= the found one, minimise total link usage."""
    cap = routing.value
    if shortest.value <= cap:
        return shortest  # the shortest arcs minimise link usage over all routings
    if (
        stage.demand_count == 0
        or stage.demand_count > 5_000
        or rotation_period(stage) < stage.nodes
    ):
        return routing  # symmetric stages are already routed uniformly per orbit
    h = _prefix_model(stage, integer=True, load_cap=cap)
    h.setSolution(_full_solution(stage, routing))
    values, _, _ = _solve(h, time_limit_s)
    if values is None:
        return routing
    better = _routing_from(stage, values[: stage.demand_count])
    return better if better.value <= cap else routing


def _full_solution(stage: Stage, routing: Routing) -> highspy.HighsSolution:
    sol = highspy.HighsSolution()
    sol.col_value = np.concatenate(
        [
            routing.clockwise.astype(np.float64),
            [routing.value],
            routing.cw_load.astype(np.float64),
            routing.ccw_load.astype(np.float64),
        ]
    ).tolist()
    sol.value_valid = True
    return sol


def _repaired(stage: Stage, routing: Routing, bound: int, deadline: float) -> Routing:
    """The routing after the local search of solver.routing_search, aimed at the bound first
    and then one unit below the routing's value at a time; the routing itself when no
    target is reached."""
    for target in range(bound, routing.value):
        x = repair(stage, routing.clockwise, (routing.cw_load, routing.ccw_load), target, deadline)
        if x is not None:
            found = _routing_from(stage, x.astype(np.float64))
            return found if found.value < routing.value else routing
        if time.monotonic() > deadline:
            break
    return routing


def lp_load_bound(stage: Stage) -> int:
    """ceil of the LP relaxation of L*: a proven bound on chi, for one LP solve (no MIP)."""
    if stage.is_empty():
        return 0
    lp = _lp_solution(stage, rotation_period(stage))
    assert lp is not None  # no time limit: HiGHS solves the LP
    return math.ceil(lp[0] - _EPS)


CLASS_LP_LINK_LIMIT = 1_000_000  # links of the shorter arcs the class LP lists (~1.3 s)


def class_lp_bound(stage: Stage, link_class: IntArray) -> int:
    """ceil of the LP of L* with each link class's constraints averaged: a proven bound on
    chi, for any partition of the links into classes (`link_class[e]` of link e, CW link
    e -> e + 1 and CCW link e + 1 -> e alike).

    Every directed link carries at most L* units under an optimal routing, so the average
    load over the links of a class does too: the LP "min L s.t. for each class and
    direction, average load <= L" (plus the independence rows of `lp_load_bound`) is a
    relaxation of the LP of L*, its value at most L* <= chi (its dual is the LP's dual with
    equal weights on the links of a class). With one class per residue mod a period of the
    stage it is that LP exactly; on a stage without symmetry it needs one row per class,
    not per link.

    A demand's two arcs split the links, so its share of class c on one arc is 1 minus its
    share on the other: with sigma its share on its shorter arc, X the CW units of demands
    whose CW arc is the longer one and Y the CCW units of the others, a class's rows read
    CW: sum_short-CW sigma x - sum_long-CW sigma x + X <= L and
    CCW: sum_short-CW sigma (x - k) - sum_long-CW sigma (x - k) + Y <= L,
    nonzeros only where the shorter arcs reach (a demand inside a small group): listed link
    by link, so with one class per link it is the LP of L* at the cost of the shorter arcs'
    total length (0, no bound, beyond CLASS_LP_LINK_LIMIT)."""
    if stage.is_empty():
        return 0
    n = stage.nodes
    s, d = stage.sources, stage.destinations
    k = stage.counts.astype(np.float64)
    classes = np.asarray(link_class, dtype=np.int64)
    count = int(classes.max()) + 1
    size = np.bincount(classes, minlength=count).astype(np.float64)
    cw_len = (d - s) % n
    short_cw = 2 * cw_len <= n
    lo = np.where(short_cw, s, d)  # the shorter arc: CW [s, d) or CCW [d, s)
    length = np.where(short_cw, cw_len, n - cw_len)
    if int(length.sum()) > CLASS_LP_LINK_LIMIT:
        return 0  # too long to list (no bound rather than seconds)
    # (class, demand) of every link of every shorter arc, merged: sigma[c, i] sparse
    demand = np.repeat(np.arange(len(s)), length)
    step = np.arange(len(demand)) - np.repeat(np.cumsum(length) - length, length)
    pair = classes[(lo[demand] + step) % n] * len(s) + demand
    pair, links = np.unique(pair, return_counts=True)
    pair_class, pair_demand = pair // len(s), pair % len(s)
    sigma = links / size[pair_class]
    signed = np.where(short_cw[pair_demand], 1.0, -1.0) * sigma
    signed_k = np.bincount(pair_class, weights=signed * k[pair_demand], minlength=count)
    bounds_of = np.searchsorted(pair_class, np.arange(count + 1))
    nd = len(s)
    col_l, col_x, col_y = nd, nd + 1, nd + 2
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    lower = np.zeros(nd + 3)
    upper = np.concatenate([k, [np.inf, np.inf, np.inf]])
    lower[:nd][stage.allowed == Direction.CW] = k[stage.allowed == Direction.CW]
    upper[:nd][stage.allowed == Direction.CCW] = 0
    cost = np.zeros(nd + 3)
    cost[col_l] = 1.0
    h.addVars(nd + 3, lower, upper)
    h.changeColsCost(nd + 3, np.arange(nd + 3, dtype=np.int32), cost)
    index: list[IntArray] = []
    value: list[FloatArray] = []
    starts: list[int] = []
    lo_b: list[float] = []
    hi_b: list[float] = []

    nnz = [0]

    def row(cols: IntArray, vals: FloatArray, low: float, high: float) -> None:
        starts.append(nnz[0])
        nnz[0] += len(cols)
        index.append(cols)
        value.append(vals)
        lo_b.append(low)
        hi_b.append(high)

    # X = sum of x over long-CW demands; Y = sum of (k - x) over short-CW demands
    longs, shorts = np.flatnonzero(~short_cw), np.flatnonzero(short_cw)
    row(np.append(longs, col_x), np.append(np.full(len(longs), -1.0), 1.0), 0.0, 0.0)
    short_k = float(k[shorts].sum())
    row(np.append(shorts, col_y), np.ones(len(shorts) + 1), short_k, short_k)
    for c in range(count):
        nz = pair_demand[bounds_of[c] : bounds_of[c + 1]]
        vals = signed[bounds_of[c] : bounds_of[c + 1]]
        row(np.append(nz, [col_x, col_l]), np.append(vals, [1.0, -1.0]), -np.inf, 0.0)
        row(np.append(nz, [col_y, col_l]), np.append(vals, [1.0, -1.0]), -np.inf, signed_k[c])
    # independence: sum x = X + short_k - Y <= a_cw L; sum (k - x) = K - X - short_k + Y
    alpha_cw, alpha_ccw = independence_caps(stage)
    both = np.array([col_x, col_y, col_l])
    row(both, np.array([1.0, -1.0, -float(alpha_cw)]), -np.inf, -short_k)
    row(both, np.array([-1.0, 1.0, -float(alpha_ccw)]), -np.inf, short_k - float(k.sum()))
    h.addRows(
        len(starts),
        np.array(lo_b),
        np.array(hi_b),
        nnz[0],
        np.array(starts, dtype=np.int32),
        np.concatenate(index).astype(np.int32),
        np.concatenate(value),
    )
    h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return 0  # no bound rather than a wrong one
    lp_value = float(h.getInfo().objective_function_value)
    # relative tolerance: HiGHS's optimum can sit a hair above an integer it equals
    return max(0, math.ceil(lp_value - _EPS * max(1.0, lp_value)))


def load_bound(stage: Stage, time_limit_s: float = 10.0) -> LoadBound:
    """L* with a routing attaining it (or the best routing found and a proven bound)."""
    if stage.is_empty():
        zero = np.zeros(stage.nodes, dtype=np.int64)
        return LoadBound(0, Routing(np.zeros(0, dtype=np.int64), zero, zero, 0), True, 1)
    n = stage.nodes
    deadline = time.monotonic() + time_limit_s
    period = rotation_period(stage)
    shortest = _shortest_routing(stage)
    start = min((r for r in (shortest, _endpoint_ring_routing(stage)) if r is not None),
                key=lambda r: r.value)
    hops = hop_bound(stage)
    if start.value <= hops:
        # The weighted-hops bound alone settles it (every quick bound is at most L*): the
        # odd ring all-to-all at N = 4093, whose arc cuts took 20 s of the 23.
        return LoadBound(hops, _shortened(stage, start, shortest, deadline), True, period)
    quick = quick_bound(stage)
    if start.value <= quick:
        # The shortest arcs meet a proven bound: L*, with no LP (OpTree's first stage at
        # N = 4096, 8192 demands: its LP took 3 s; an all-to-all among 201 of 300 nodes,
        # on the endpoints' ring: 22 s).
        return LoadBound(quick, _shortened(stage, start, shortest, deadline), True, period)
    lp_started = time.monotonic()
    lp = _lp_solution(stage, period, deadline - lp_started)
    lp_seconds = time.monotonic() - lp_started
    if lp is None:  # out of time: the quick bounds, and the better arcs found (above them)
        return LoadBound(quick, start, False, period)
    lp_value, x_frac = lp
    bound = max(quick, math.ceil(lp_value - _EPS))
    candidates = [start, *_balanced_roundings(stage, period, x_frac)]
    t = period
    while min(c.value for c in candidates) > bound and t < n:
        small = (stage.sources < t).sum() * t <= _DENSE_LIMIT // 20
        if not small and t != period:
            break
        remaining = deadline - time.monotonic()
        if remaining <= 0.05:
            break
        routing, _, _ = _solve_period(stage, t, min(1.0, remaining))
        if routing is not None:
            candidates.append(routing)
        if n % (2 * t):
            break
        t *= 2
    best = min(candidates, key=lambda r: r.value)
    if best.value > bound:
        best = _repaired(
            stage, best, bound, min(deadline, time.monotonic() + _REPAIR_SHARE * time_limit_s)
        )
    remaining = deadline - time.monotonic()
    # HiGHS checks its time limit only between phases: a MIP whose root LP alone would eat the
    # remaining budget is not started (the LP took lp_seconds; presolve + root take more).
    if best.value > bound and stage.demand_count <= 20_000 and remaining > 3 * lp_seconds + 0.05:
        routing, dual, proven = _solve_period(stage, n, remaining)
        if routing is not None and routing.value < best.value:
            best = routing
        bound = max(bound, math.ceil(dual - _EPS))
        if proven and routing is not None:
            bound = max(bound, routing.value)
    best = _shortened(stage, best, shortest, deadline)
    return LoadBound(bound, best, best.value == bound, period)


def _shortened(stage: Stage, routing: Routing, shortest: Routing, deadline: float) -> Routing:
    """`_shorten` within what is left of the deadline (at least 0.05 s, at most 2 s): the
    endpoints' ring's arcs can be longer than need be where they meet the bound (6 of 7
    nodes: 64 link-hops where 62 keep the same load)."""
    return _shorten(stage, routing, shortest, max(0.05, min(2.0, deadline - time.monotonic())))

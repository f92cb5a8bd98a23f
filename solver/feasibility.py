"""Optical feasibility of a plan, lightpath by lightpath (OpTree journal Sec. IV-B, eqs. 4-9).

The paper bounds loss and crosstalk with one worst-case path length L_max (eq. 4) and the
worst-case crosstalk L_max P_Rx + P_Tx (eq. 8). A plan knows every lightpath, so each one is
evaluated with its own hop count and the crosstalk it really picks up:

- Rx crosstalk: one P_Rx for every node on its path (the h - 1 nodes it passes, and its
  destination) where another lightpath of the same slot, direction and fibre is added or
  dropped: that node's rings are tuned into the band and leak into the passing signal;
- Tx crosstalk: one P_Tx when another lightpath of the same slot, direction and fibre is
  modulated at its source.

Both counts are at most the paper's worst case (h <= L_max nodes, one transmitter), so a
lightpath is never worse than eq. (8) at its own length: the property test checks this.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from models import optics
from models.optics import OpticalParameters
from models.ring import DIRECTION_LABELS, Ring
from models.stage import Stage
from solver.assignment import Assignment
from solver.plan import AlgorithmPlan

IntArray = npt.NDArray[np.int64]
WINDOW_LIGHTPATHS = 1 << 20  # lightpaths of whole slots evaluated at once (bounds memory)
CHUNK_CELLS = 1 << 23  # groups x N cells of one dense prefix count
DENSE_FACTOR = 32  # dense per-group prefix counts while groups x N <= this x lightpaths


def neighbours(ring: Ring, table: dict[str, IntArray]) -> tuple[IntArray, IntArray]:
    """Per lightpath of `table` (Assignment.lightpaths): (Rx neighbour nodes, Tx neighbours).

    A group is one (slot, direction, fibre): the lightpaths that share its rings. Active
    nodes (an endpoint of some lightpath of the group) are counted by a prefix sum per group
    while groups x N is small against the lightpaths (DENSE_FACTOR; measured at N = 4096,
    256 lightpaths per group: 16 cells per lightpath, dense 3.4 s against 8.1 s), in chunks
    of whole groups of at most CHUNK_CELLS cells. Otherwise they are kept as sorted keys
    group * N + node, and the active nodes strictly inside a route are a difference of two
    binary searches: O(L log L) for L lightpaths, however many groups. Callers bound L
    (evaluate_stage takes WINDOW_LIGHTPATHS at a time)."""
    n = ring.nodes
    s, d, o = table["source"], table["destination"], table["direction"]
    count = len(s)
    rx = np.zeros(count, dtype=np.int64)
    tx = np.zeros(count, dtype=np.int64)
    if count == 0:
        return rx, tx
    key = (table["slot"] * 2 + o) * ring.fibers_per_direction + table["fiber"]
    order = np.argsort(key, kind="stable")
    # Groups numbered 0, 1, ... in key order.
    g_all = np.cumsum(np.concatenate(([0], np.diff(key[order]) != 0)))
    groups_total = int(g_all[-1]) + 1
    dense = groups_total * n <= DENSE_FACTOR * count
    if dense:
        per_chunk = max(1, CHUNK_CELLS // n)
        cuts = [*np.searchsorted(g_all, np.arange(0, groups_total, per_chunk)).tolist(), count]
    else:
        cuts = [0, count]
    for first, last in itertools.pairwise(cuts):
        pick = order[first:last]
        g = g_all[first:last] - g_all[first]
        groups = int(g[-1]) + 1
        ps, pd = s[pick], d[pick]
        # Interior nodes: strictly between the endpoints along the route, h - 1 of them.
        lo = np.where(o[pick] == 0, ps, pd)
        start = (lo + 1) % n
        stop = start + table["hops"][pick] - 1
        wrap = stop > n
        tail = np.where(wrap, stop - n, 0)
        head = np.minimum(stop, n)
        if dense:
            size = groups * n
            at_source, at_destination = g * n + ps, g * n + pd
            active, shared, sends_twice = _ends_at(size, at_source, at_destination)
            # 32-bit counts (at most N per group): numpy's cumsum of 2048 x 4096 cells into
            # an int64 view of the rows took 0.14 s, in place in int32 0.03 s
            prefix = np.zeros((groups, n + 1), dtype=np.int32)
            prefix[:, 1:] = active.reshape(groups, n)
            np.cumsum(prefix, axis=1, out=prefix)
            inner = np.where(
                wrap,
                prefix[g, n] - prefix[g, start] + prefix[g, tail],
                prefix[g, head] - prefix[g, start],
            )
            rx[pick] = inner + shared[at_destination]
            tx[pick] = sends_twice[at_source]
            continue
        ks, kd = g * n + ps, g * n + pd
        keys, end_count = np.unique(np.concatenate([ks, kd]), return_counts=True)
        senders, send_count = np.unique(ks, return_counts=True)
        base = g * n
        below_start = np.searchsorted(keys, base + start)
        inner = np.where(
            wrap,
            np.searchsorted(keys, base + n)
            - below_start
            + np.searchsorted(keys, base + tail)
            - np.searchsorted(keys, base),
            np.searchsorted(keys, base + head) - below_start,
        ).astype(np.int64)
        rx[pick] = inner + (end_count[np.searchsorted(keys, kd)] >= 2)
        tx[pick] = send_count[np.searchsorted(senders, ks)] >= 2
    return rx, tx


def _ends_at(
    size: int, at_source: IntArray, at_destination: IntArray
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """Per cell (group x N + node) of `neighbours`' dense count, given the cells of each
    lightpath's source and destination: whether a lightpath starts or ends there, whether
    more than one end is there, whether more than one lightpath starts there.

    Where cells outnumber lightpaths (OSM at N = 4096: 16 cells a lightpath) counting every
    cell with np.bincount's int64 took half of the stage's evaluation; there `last` keeps the
    index of one end per cell (-1: none), and an end whose index was not the one kept shares
    its cell (bench/optics.py: 1.46x on OSM's stage). Where lightpaths outnumber cells
    (synth's windows: 64 a cell) counting is the cheaper pass."""
    if size <= len(at_source):
        sends = np.bincount(at_source, minlength=size)
        ends = sends + np.bincount(at_destination, minlength=size)
        return ends >= 1, ends >= 2, sends >= 2
    last = np.full(size, -1, dtype=np.int32)
    shared = _repeated(np.concatenate([at_source, at_destination]), last)
    active = last >= 0
    return active, shared, _repeated(at_source, last)


def _repeated(cells: IntArray, last: npt.NDArray[np.int32]) -> npt.NDArray[np.bool_]:
    """Per cell, whether `cells` names it more than once: each entry writes its index into
    `last` (a scratch row, overwritten), and an entry whose index was not the one kept
    shares its cell with another."""
    index = np.arange(len(cells), dtype=np.int32)
    last[cells] = index
    twice = np.zeros(len(last), dtype=bool)
    twice[cells[last[cells] != index]] = True
    return twice


def slot_windows(ring: Ring, assignment: Assignment) -> list[tuple[int, int]]:
    """Colour ranges [c0, c1) of whole slots holding about WINDOW_LIGHTPATHS lightpaths each
    (a single slot may hold more): neighbours never cross a slot, so windows are independent."""
    top = assignment.colours_used()
    if top == 0:
        return []
    channels = ring.channels_per_direction
    slots = -(-top // channels)
    # Lightpaths per colour: a run covers colours first .. first + count - 1, one each.
    size = slots * channels + 1
    per_colour = np.cumsum(
        np.bincount(assignment.first_colour, minlength=size)
        - np.bincount(assignment.first_colour + assignment.count, minlength=size)
    )[:-1]
    cumulative = np.cumsum(per_colour.reshape(slots, channels).sum(axis=1))
    targets = np.arange(1, -(-int(cumulative[-1]) // WINDOW_LIGHTPATHS)) * WINDOW_LIGHTPATHS
    cuts = np.unique(np.searchsorted(cumulative, targets, side="right") + 1)
    edges = [0, *(int(c) for c in cuts if 0 < c < slots), slots]
    return [(a * channels, b * channels) for a, b in itertools.pairwise(edges)]


def window(assignment: Assignment, c0: int, c1: int) -> Assignment:
    """The part of `assignment` on colours [c0, c1)."""
    a = assignment
    end = a.first_colour + a.count
    pick = (a.first_colour < c1) & (end > c0)
    if pick.all() and c0 <= int(a.first_colour.min()) and int(end.max()) <= c1:
        return a
    first = np.maximum(a.first_colour[pick], c0)
    return Assignment(a.demand[pick], a.direction[pick], first, np.minimum(end[pick], c1) - first)


@dataclass(frozen=True)
class LightpathReport:
    """One lightpath with its optics; `blocking` says what fails ('' when reliable)."""

    stage: int
    source: int
    destination: int
    direction: str
    slot: int
    fiber: int
    wavelength: int
    hops: int
    rx_neighbours: int
    tx_neighbours: int
    loss_db: float
    margin_db: float
    snr_db: float
    ber: float
    ber_other_scale: float
    min_laser_power_dbm: float
    blocking: str


@dataclass(frozen=True)
class StageOptics:
    index: int
    lightpaths: int
    failing: int
    failing_power: int  # margin < 0 (eq. 6)
    failing_ber: int  # BER >= target (eqs. 7-9)
    failing_other_scale: int  # failing when eq. (9) reads the SNR the other way
    max_hops: int
    worst: LightpathReport | None  # the most laser power needed (`severity`)
    min_laser_power_dbm: float | None
    worst_ber: float | None = None  # the highest BER of any lightpath
    worst_margin_db: float | None = None  # the smallest power margin of any lightpath


def severity(report: LightpathReport) -> tuple[float, float, float]:
    """How far a lightpath is from reliable, for picking the worst: the laser power it needs
    (eq. 6 and eqs. 7-9 at once; a failing lightpath needs more than the request's, so it
    ranks above every passing one), then its BER, then its margin (lower is worse)."""
    return (report.min_laser_power_dbm, report.ber, -report.margin_db)


@dataclass(frozen=True)
class PlanOptics:
    params: OpticalParameters
    stages: tuple[StageOptics, ...]
    closed_form_hops: float
    closed_form_source: str
    closed_form: optics.LightpathOptics
    budget_max_hops: int
    budget_limited_by: str

    @property
    def worst(self) -> LightpathReport | None:
        """The lightpath furthest from reliable (`severity`; the earliest stage on a tie)."""
        reports = [s.worst for s in self.stages if s.worst is not None]
        return max(reports, key=severity, default=None)

    @property
    def feasible(self) -> bool:
        return all(s.failing == 0 for s in self.stages)

    @property
    def feasible_other_scale(self) -> bool:
        """The verdict if eq. (9) read the SNR the other way (db <-> linear)."""
        return all(s.failing_other_scale == 0 for s in self.stages)

    @property
    def min_laser_power_dbm(self) -> float | None:
        values = [s.min_laser_power_dbm for s in self.stages if s.min_laser_power_dbm is not None]
        return max(values, default=None)

    @property
    def failing_stages(self) -> list[StageOptics]:
        return [s for s in self.stages if s.failing]


def _blocking(params: OpticalParameters, margin: float, ber: float) -> str:
    reasons = []
    if margin < 0:
        reasons.append(f"power: margin {margin:.2f} dB < 0 (eq. 6)")
    if not optics.ber_met(ber, params.target_ber):
        reasons.append(f"BER {ber:.3g} >= {params.target_ber:g} (eqs. 7-9)")
    return "; ".join(reasons)


def evaluate_stage(
    ring: Ring, stage: Stage, assignment: Assignment, params: OpticalParameters, index: int
) -> StageOptics:
    """Every lightpath of the stage, a window of whole slots at a time (slot_windows).

    A lightpath's optics depend only on (hops, Rx neighbours, Tx neighbours), so eqs. (5)-(9)
    are evaluated once per distinct triple and weighted by how many lightpaths share it: a
    window of a million lightpaths has a few thousand triples."""
    parts = [
        _evaluate_window(ring, stage, window(assignment, c0, c1), params, index)
        for c0, c1 in slot_windows(ring, assignment)
    ]
    return functools.reduce(_combined, parts, StageOptics(index, 0, 0, 0, 0, 0, 0, None, None))


def _combined(a: StageOptics, b: StageOptics) -> StageOptics:
    """Two windows of one stage as one: counts add up, the worse worst lightpath wins (the
    earlier on a tie)."""
    worst = a.worst
    if b.worst is not None and (worst is None or severity(b.worst) > severity(worst)):
        worst = b.worst
    powers = [p for p in (a.min_laser_power_dbm, b.min_laser_power_dbm) if p is not None]
    bers = [x for x in (a.worst_ber, b.worst_ber) if x is not None]
    margins = [x for x in (a.worst_margin_db, b.worst_margin_db) if x is not None]
    return StageOptics(
        index=a.index,
        lightpaths=a.lightpaths + b.lightpaths,
        failing=a.failing + b.failing,
        failing_power=a.failing_power + b.failing_power,
        failing_ber=a.failing_ber + b.failing_ber,
        failing_other_scale=a.failing_other_scale + b.failing_other_scale,
        max_hops=max(a.max_hops, b.max_hops),
        worst=worst,
        min_laser_power_dbm=max(powers, default=None),
        worst_ber=max(bers, default=None),
        worst_margin_db=min(margins, default=None),
    )


def _evaluate_window(
    ring: Ring, stage: Stage, part: Assignment, params: OpticalParameters, index: int
) -> StageOptics:
    table = part.lightpaths(ring, stage)
    if len(table["source"]) == 0:
        return StageOptics(index, 0, 0, 0, 0, 0, 0, None, None)
    rx, tx = neighbours(ring, table)
    n = ring.nodes
    key = (table["hops"] * (n + 1) + rx) * 2 + tx  # rx <= hops <= N - 1, tx in {0, 1}
    triples, weight = np.unique(key, return_counts=True)
    hops, rest = np.divmod(triples, 2 * (n + 1))
    result = optics.lightpaths(params, hops, rest // 2, rest % 2)
    need = result.min_laser_power_dbm
    power = result.margin_db < 0
    noisy = ~optics.ber_met(result.ber, params.target_ber)
    other = power | ~optics.ber_met(result.ber_other_scale, params.target_ber)
    # the most laser power needed, then the highest BER, then the lowest margin (`severity`)
    j = int(np.lexsort((result.margin_db, -result.ber, -need))[0])
    i = int(np.flatnonzero(key == triples[j])[0])  # its first lightpath
    ber, margin = float(result.ber[j]), float(result.margin_db[j])
    worst = LightpathReport(
        stage=index,
        source=int(table["source"][i]),
        destination=int(table["destination"][i]),
        direction=DIRECTION_LABELS[int(table["direction"][i])],
        slot=int(table["slot"][i]),
        fiber=int(table["fiber"][i]),
        wavelength=int(table["wavelength"][i]),
        hops=int(hops[j]),
        rx_neighbours=int(rx[i]),
        tx_neighbours=int(tx[i]),
        loss_db=float(result.loss_db[j]),
        margin_db=margin,
        snr_db=float(result.snr_db[j]),
        ber=ber,
        ber_other_scale=float(result.ber_other_scale[j]),
        min_laser_power_dbm=float(need[j]),
        blocking=_blocking(params, margin, ber),
    )
    return StageOptics(
        index=index,
        lightpaths=len(key),
        failing=int(weight[power | noisy].sum()),
        failing_power=int(weight[power].sum()),
        failing_ber=int(weight[noisy].sum()),
        failing_other_scale=int(weight[other].sum()),
        max_hops=int(hops.max()),
        worst=worst,
        min_laser_power_dbm=float(need.max()),
        worst_ber=float(result.ber.max()),
        worst_margin_db=float(result.margin_db.min()),
    )


def evaluate_plan(plan: AlgorithmPlan, params: OpticalParameters) -> PlanOptics:
    """Every stage of `plan` (identical stages evaluated once) beside the paper's bound."""
    done: dict[int, StageOptics] = {}
    stages = []
    for s in plan.stages:
        if s.solution_stage == s.index:
            done[s.index] = evaluate_stage(plan.ring, s.stage, s.result.assignment, params, s.index)
        first = done[s.solution_stage]
        worst = None if first.worst is None else replace(first.worst, stage=s.index)
        stages.append(replace(first, index=s.index, worst=worst))
    form = next((f for f in plan.closed_forms if f.quantity == "max_path_hops"), None)
    if form is not None and form.value is not None:
        hops, source = float(form.value), form.source
    else:
        hops = float(plan.ring.nodes - 1)
        source = "no closed form in the papers for this algorithm: N - 1, the longest arc"
    budget, limited_by = optics.max_hops(params)
    return PlanOptics(
        params=params,
        stages=tuple(stages),
        closed_form_hops=hops,
        closed_form_source=source,
        closed_form=optics.lightpaths(params, hops, hops, 1),
        budget_max_hops=budget,
        budget_limited_by=limited_by,
    )

"""Local search for an integer routing under a load target: the repair step of L*.

`solver.bounds.load_bound` proves ceil(LP) and looks for an integer routing that meets it:
balanced roundings of the LP, then a MIP. On irregular stages (OpTree's ragged trees at
N = 1000) the roundings land one or two units above the bound, and the MIP needs 30 s or more
to close that last unit (it found OpTree N = 1000 stage 4's 701 only after 33 s). Moving
single units between the two directions closes it in milliseconds: a min-conflicts repair
(Minton, Johnston, Philips & Laird, "Minimizing conflicts", AIJ 1992) with a short tabu list
(Glover's tabu search), on a ring, where a demand has only two routes.

A move takes one unit of a demand that crosses an overloaded link to the other direction.
Among the demands crossing that link, it picks the one whose other arc has the least load
(a range maximum over a doubled array, O(1) per demand from a sparse table), breaking ties
at random with a fixed seed, so runs are reproducible. The search stops at the target, at
its move budget or at its deadline. Whatever it returns is a plain routing: its loads are
recomputed by the caller, and its assignment is validated like any other.
"""

from __future__ import annotations

import time

import numpy as np
import numpy.typing as npt

from models.ring import Direction
from models.stage import Stage

IntArray = npt.NDArray[np.int64]

TABU_MOVES = 7  # a demand just moved stays put for this many moves
MAX_DEMANDS = 200_000  # larger stages are not searched (each move scans the demands)


def _sparse_table(values: IntArray) -> list[IntArray]:
    """levels[j][i] = max(values[i : i + 2^j])."""
    levels = [values]
    width = 1
    while 2 * width <= len(values):
        previous = levels[-1]
        levels.append(np.maximum(previous[:-width], previous[width:]))
        width *= 2
    return levels


def _range_max(levels: list[IntArray], lo: IntArray, length: IntArray) -> IntArray:
    """max over [lo, lo + length) for each pair (length >= 1, within the table)."""
    j = np.log2(length).astype(np.int64)  # floor: lengths are exact integers < 2^53
    out = np.empty(len(lo), dtype=np.int64)
    for level in np.unique(j).tolist():
        pick = j == level
        table = levels[level]
        out[pick] = np.maximum(table[lo[pick]], table[lo[pick] + length[pick] - (1 << level)])
    return out


def repair(
    stage: Stage,
    clockwise: IntArray,
    loads: tuple[IntArray, IntArray],
    target: int,
    deadline: float,
    max_moves: int = 20_000,
    seed: int = 0,
) -> IntArray | None:
    """Units sent clockwise per demand with every link load <= `target`, reached from the
    routing `clockwise` (whose CW and CCW link loads are `loads`) by single-unit moves; None
    when the budget runs out first."""
    n = stage.nodes
    if stage.demand_count == 0 or stage.demand_count > MAX_DEMANDS:
        return None
    s, d, k = stage.sources, stage.destinations, stage.counts
    x = np.array(clockwise, dtype=np.int64)
    allowed_cw = stage.allowed != Direction.CCW
    allowed_ccw = stage.allowed != Direction.CW
    lo = (s, d)  # a CW unit holds CW links [s, d); a CCW unit CCW links [d, s)
    length = ((d - s) % n, (s - d) % n)
    loads = (np.array(loads[0], dtype=np.int64), np.array(loads[1], dtype=np.int64))
    rng = np.random.default_rng(seed)
    tabu_until = np.full(stage.demand_count, -1, dtype=np.int64)
    for move in range(max_moves):
        worst = (int(loads[0].max()), int(loads[1].max()))
        if max(worst) <= target:
            return x
        if move % 64 == 0 and time.monotonic() > deadline:
            return None
        here = 0 if worst[0] >= worst[1] else 1
        there = 1 - here
        link = int(rng.choice(np.flatnonzero(loads[here] > target)))
        units = x if here == 0 else k - x
        may_move = allowed_ccw if here == 0 else allowed_cw
        crossing = np.flatnonzero((((link - lo[here]) % n) < length[here]) & (units > 0) & may_move)
        if len(crossing) == 0:
            return None
        other = _range_max(
            _sparse_table(np.concatenate([loads[there], loads[there]])),
            lo[there][crossing],
            length[there][crossing],
        )
        score = other + np.where(tabu_until[crossing] >= move, n * int(k.max()) + 1, 0)
        chosen = crossing[score == score.min()]
        i = int(rng.choice(chosen))
        x[i] += 1 if here == 1 else -1
        for direction, sign in ((here, -1), (there, 1)):
            arc = (int(lo[direction][i]) + np.arange(int(length[direction][i]))) % n
            loads[direction][arc] += sign
        tabu_until[i] = move + TABU_MOVES
    return None

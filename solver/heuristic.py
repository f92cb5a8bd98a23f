"""Heuristic RWA that scales: L*-routing plus circular-arc colouring with reservations.

Directions never conflict with each other, so each direction is coloured on its own and
chi = max(colours CW, colours CCW). Within a direction (a circular-arc colouring problem):
1. cut the ring at the least-loaded link e*; the T units whose arcs cross e* take colours
   0..T-1, each colour then reserved outside the window between the two pieces of its arc;
2. the other arcs are intervals on a line; sweep them by left end, freeing colours at right
   ends, and give each interval (with its multiplicity) free colours that fit, preferring
   reserved colours whose window closes soonest after the interval ends, then fresh colours.
With no arc over e* (e.g. a stage split into ring segments) the sweep is the optimal interval
colouring: colours = the direction's max load. Otherwise colours <= max load + T.
Multiplicities are handled as colour ranges, so a demand of k units costs O(runs), not O(k).
"""

from __future__ import annotations

import bisect
import heapq
import time

import numpy as np
import numpy.typing as npt

from models.stage import Stage
from solver.assignment import Assignment
from solver.bounds import Routing

IntArray = npt.NDArray[np.int64]
_NEVER = 1 << 62
_TILING_LIMIT = 20_000  # arcs per direction for the tiling pass
_MODULAR_LIMIT = 5_000_000  # unit lightpaths per direction for the modular pass
_CLOCK_EVERY = 4096  # intervals swept between looks at the deadline (none before the first)


class HeuristicTimeout(Exception):
    """The sweep passed its deadline (`colour_direction`); the caller has a fallback."""


def colour_direction(
    n: int,
    lo: IntArray,
    length: IntArray,
    mult: IntArray,
    load: IntArray,
    stop_at: float | None = None,
) -> tuple[list[tuple[int, int, int]], int]:
    """Colour arcs [lo, lo + length) (circular, link indices) with multiplicities.
    Returns runs (arc index, first colour, count) and the number of colours used. With
    `stop_at` (time.monotonic()), raises HeuristicTimeout once the sweep passes it: the sweep
    is one Python step per interval, 180 s for the odd ring all-to-all of 4093 nodes."""
    runs: list[tuple[int, int, int]] = []
    if len(lo) == 0:
        return runs, 0
    cut = int(np.argmin(load))
    start = (lo - cut - 1) % n  # relative position; the cut link is position n - 1
    end = start + length
    through = end > n - 1
    fresh = 0
    # (deadline, first, count): free colour ranges, sorted by deadline, then colour.
    pool: list[tuple[int, int, int]] = []
    pending: list[tuple[int, int, int, int]] = []  # (opens at, deadline, first, count)
    for i in np.flatnonzero(through):
        m = int(mult[i])
        runs.append((int(i), fresh, m))
        opens, deadline = int(end[i] - n), int(start[i])
        if deadline > opens:
            pending.append((opens, deadline, fresh, m))
        fresh += m
    pending.sort()
    releases: list[tuple[int, int, int, int]] = []  # heap of (end, deadline, first, count)
    p_next = 0
    order = np.flatnonzero(~through)
    order = order[np.lexsort((end[order], start[order]))]
    stop = float("inf") if stop_at is None else stop_at
    # One Python step per interval: plain lists and local names (numpy scalars cost several
    # times a list item here; bench/colouring.py)
    heappop, heappush = heapq.heappop, heapq.heappush
    insort, bisect_left, append = bisect.insort, bisect.bisect_left, runs.append
    swept = zip(order.tolist(), start[order].tolist(), end[order].tolist(),
                mult[order].tolist(), strict=True)  # fmt: skip
    for step, (arc, left, right, need) in enumerate(swept):
        if step % _CLOCK_EVERY == _CLOCK_EVERY - 1 and time.monotonic() > stop:
            raise HeuristicTimeout
        while releases and releases[0][0] <= left:
            _, deadline, first, count = heappop(releases)
            insort(pool, (deadline, first, count))
        while p_next < len(pending) and pending[p_next][0] <= left:
            _, deadline, first, count = pending[p_next]
            insort(pool, (deadline, first, count))
            p_next += 1
        at = bisect_left(pool, (right, -1, 0))
        while need and at < len(pool):
            deadline, first, count = pool[at]
            take = count if count < need else need
            append((arc, first, take))
            heappush(releases, (right, deadline, first, take))
            if take == count:
                pool.pop(at)
            else:
                pool[at] = (deadline, first + take, count - take)
                at += 1
            need -= take
        if need:
            append((arc, fresh, need))
            heappush(releases, (right, _NEVER, fresh, need))
            fresh += need
    return runs, fresh


def heuristic_assignment(
    stage: Stage, routing: Routing, stop_at: float | None = None, enough: int = 0
) -> Assignment:
    """Colour a routed stage; see the module docstring. With `stop_at`, the sweep raises
    HeuristicTimeout past it (callers that have another assignment to fall back on). The
    other colourings are tried while a direction takes more colours than its load and than
    `enough` (a caller that needs only steps: the colours its proven slots allow)."""
    n = stage.nodes
    s, d = stage.sources, stage.destinations
    parts = []
    for direction, units, lo, length, load in (
        (0, routing.clockwise, s, (d - s) % n, routing.cw_load),
        (1, stage.counts - routing.clockwise, d, (s - d) % n, routing.ccw_load),
    ):
        used = np.flatnonzero(units > 0)
        runs, colours = colour_direction(n, lo[used], length[used], units[used], load, stop_at)
        target = max(int(load.max(initial=0)), enough)
        if colours > target and int(units[used].sum()) <= _MODULAR_LIMIT:
            alt_runs, alt_colours = modular_direction(n, lo[used], length[used], units[used], load)
            if alt_runs and alt_colours < colours:
                runs, colours = alt_runs, alt_colours
        if colours > target and len(used) <= _TILING_LIMIT:
            for other in (tile_direction, pack_direction, first_fit_direction):
                if colours <= target:
                    break
                alt_runs, alt_colours = other(n, lo[used], length[used], units[used])
                if alt_colours < colours:
                    runs, colours = alt_runs, alt_colours
        if runs:
            arc, first, count = (np.array(v, dtype=np.int64) for v in zip(*runs, strict=True))
            parts.append((used[arc], np.full(len(arc), direction), first, count))
    if not parts:
        return Assignment.empty()
    return Assignment.from_runs(*(np.concatenate(p) for p in zip(*parts, strict=True)))


def tile_direction(
    n: int, lo: IntArray, length: IntArray, mult: IntArray, node_budget: int = 20_000
) -> tuple[list[tuple[int, int, int]], int]:
    """Colour by exact tilings first: each colour takes arcs that cover the circle exactly
    (start where the previous arc ended, come back to the start), found by a bounded
    depth-first search preferring long arcs. A colour that tiles the circle wastes no link,
    so when every colour tiles, colours = load. Arcs left when no tiling is found are
    coloured by `colour_direction` with fresh colours. Returns (runs, colours)."""
    remaining = mult.astype(np.int64).copy()
    by_start: dict[int, list[int]] = {}
    for i in np.argsort(-length, kind="stable"):
        by_start.setdefault(int(lo[i]), []).append(int(i))
    runs: list[tuple[int, int, int]] = []
    colour = 0
    in_path = np.zeros(len(lo), dtype=bool)

    def search(first: int) -> list[int] | None:
        """Iterative depth-first search for arcs from the end of `first` back to its start."""
        path, choices = [first], [0]
        in_path[first] = True
        covered = int(length[first])
        origin = int(lo[first])
        found = False
        for _ in range(node_budget):
            if covered == n:
                found = True
                break
            if not path:
                break
            candidates = by_start.get((origin + covered) % n, [])
            j = choices[-1]
            while j < len(candidates) and not (
                remaining[candidates[j]]
                and not in_path[candidates[j]]
                and covered + length[candidates[j]] <= n
            ):
                j += 1
            if j < len(candidates):
                choices[-1] = j + 1
                nxt = candidates[j]
                path.append(nxt)
                in_path[nxt] = True
                covered += int(length[nxt])
                choices.append(0)
            else:
                last = path.pop()
                in_path[last] = False
                covered -= int(length[last])
                choices.pop()
        in_path[path] = False
        return path if found else None

    while remaining.any():
        first = int(np.flatnonzero(remaining)[np.argmax(length[remaining > 0])])
        found = search(first)
        if found is None:
            break
        path = found
        # Use this tiling as many times as every arc in it still allows.
        times = int(min(remaining[i] for i in path))
        for i in path:
            runs.append((i, colour, times))
            remaining[i] -= times
        colour += times
    left = np.flatnonzero(remaining)
    if len(left):
        load = np.zeros(n, dtype=np.int64)
        rest, extra = colour_direction(n, lo[left], length[left], remaining[left], load)
        runs += [(int(left[a]), colour + c, k) for a, c, k in rest]
        colour += extra
    return runs, colour


def pack_direction(
    n: int, lo: IntArray, length: IntArray, mult: IntArray
) -> tuple[list[tuple[int, int, int]], int]:
    """Colour by greedy circular packing: each colour starts with the longest arc left and
    keeps adding the arc that ends earliest among those starting after the last one and
    ending before the circle closes (the interval-scheduling greedy, which packs the most
    arcs on a line). The chain is reused as many times as its arcs' multiplicities allow.
    Uniform-length stages (TRA rounds) get floor(N / length) arcs per colour this way."""
    remaining = mult.astype(np.int64).copy()
    runs: list[tuple[int, int, int]] = []
    colour = 0
    while remaining.any():
        alive = np.flatnonzero(remaining)
        first = int(alive[np.argmax(length[alive])])
        origin = int(lo[first])
        rel_start = (lo[alive] - origin) % n
        rel_end = rel_start + length[alive]
        chain = [first]
        position = int(length[first])
        ok = (rel_end <= n) & (alive != first)
        while True:
            candidates = np.flatnonzero(ok & (rel_start >= position))
            if len(candidates) == 0:
                break
            pick = candidates[np.argmin(rel_end[candidates])]
            chain.append(int(alive[pick]))
            position = int(rel_end[pick])
            ok[pick] = False
        times = int(remaining[chain].min())
        for i in chain:
            runs.append((i, colour, times))
        remaining[chain] -= times
        colour += times
    return runs, colour


def first_fit_direction(
    n: int, lo: IntArray, length: IntArray, mult: IntArray
) -> tuple[list[tuple[int, int, int]], int]:
    """Colour by first fit, longest arcs first (then by first link): each unit takes the
    lowest colour none of whose arcs shares a link with it. The long arcs pack first, a few
    to a colour, and the short ones fill the gaps they leave: a mix of one long length and
    short arcs (the rooted trees' slots, models/rooted_trees.py: 80-hop arcs every 8 nodes
    with 1-hop ones) where cutting the ring at one link (`colour_direction`) leaves as many
    arcs crossing the cut as the load. Occupied links kept per colour as a boolean row."""
    runs: list[tuple[int, int, int]] = []
    busy = np.zeros((0, n), dtype=bool)
    order = np.lexsort((lo, -length))
    longest = np.flatnonzero(length == length.max(initial=0))
    if len(longest) < len(lo):
        # the longest arcs, one length, coloured as `modular_direction` does where that
        # closes up round the ring (first fit alone fails at the wrap: 80-hop arcs every 8
        # nodes of 1024 take 90 colours first fit, 54 modular); the rest fill in
        load = np.zeros(n, dtype=np.int64)
        for at in longest.tolist():
            load[(int(lo[at]) + np.arange(int(length[at]))) % n] += mult[at]
        base, colours = modular_direction(n, lo[longest], length[longest], mult[longest], load)
        if base:
            busy = np.zeros((colours, n), dtype=bool)
            for arc, first, count in base:
                at = int(longest[arc])
                links = (int(lo[at]) + np.arange(int(length[at]))) % n
                busy[first : first + count, links[:, None]] = True
                runs.append((at, first, count))
            order = order[length[order] != length.max()]
    for i in order:
        links = (int(lo[i]) + np.arange(int(length[i]))) % n
        free = np.flatnonzero(~busy[:, links].any(axis=1))
        need = int(mult[i])
        if len(free) < need:
            grown = need - len(free)
            free = np.concatenate([free, np.arange(len(busy), len(busy) + grown)])
            busy = np.vstack([busy, np.zeros((grown, n), dtype=bool)])
        taken = free[:need]
        busy[np.ix_(taken, links)] = True
        # consecutive colours as one run
        breaks = np.flatnonzero(np.diff(taken) != 1) + 1
        for group in np.split(taken, breaks):
            runs.append((int(i), int(group[0]), len(group)))
    return runs, len(busy)


def _disjoint_per_colour(n: int, lo: IntArray, length: IntArray, colour: IntArray) -> bool:
    """True when no two unit arcs of the same colour share a link (wrapping arcs split)."""
    end = lo + length
    wraps = end > n
    c = np.concatenate([colour, colour[wraps]])
    a = np.concatenate([lo, np.zeros(int(wraps.sum()), dtype=np.int64)])
    b = np.concatenate([np.minimum(end, n), end[wraps] - n])
    order = np.lexsort((a, c))
    c, a, b = c[order], a[order], b[order]
    return not bool(((c[1:] == c[:-1]) & (a[1:] < b[:-1])).any())


def _pad_uniform(n: int, lo: IntArray, mult: IntArray, delta: int, target: int) -> IntArray:
    """Phantom units per start position so that the units total `target` while every window
    of `delta` consecutive start positions still holds at most max(window) of before or
    target * delta / n, whichever is larger (phantoms go where windows are emptiest)."""
    count = np.bincount(lo, weights=mult, minlength=n).astype(np.int64)
    phantoms = np.zeros(n, dtype=np.int64)
    for _ in range(target - int(count.sum())):
        total = count + phantoms
        sums = np.cumsum(np.concatenate([[0], total, total[: delta - 1]]))
        window = sums[delta:] - sums[:-delta]  # window[p]: starts p .. p + delta - 1
        # A phantom at q raises windows q - delta + 1 .. q: their max, for every q.
        ext = np.concatenate([window[n - delta + 1 :], window]) if delta > 1 else window
        worst = sliding_max(ext, delta)
        phantoms[int(np.argmin(worst))] += 1
    return phantoms


def sliding_max(values: IntArray, width: int) -> IntArray:
    """max(values[i : i + width]) for every i, in O(len log width) (doubling spans)."""
    best, span = values, 1
    while 2 * span <= width:
        best = np.maximum(best[:-span], best[span:])  # best[i] = max of values[i : i + 2 span]
        span *= 2
    count = len(values) - width + 1
    return np.maximum(best[:count], best[width - span : width - span + count])


def modular_direction(
    n: int, lo: IntArray, length: IntArray, mult: IntArray, load: IntArray
) -> tuple[list[tuple[int, int, int]], int]:
    """Colour unit j of the units sorted by first link with colour j mod C.

    For arcs of one length delta this is conflict-free when every window of delta start
    positions holds at most C units (two units C apart in start order cannot then share a
    link) and the units close up around the ring, i.e. their number is a multiple of C:
    phantom units pad it (placed where the windows are emptiest), which needs
    C * ceil(units / C) arcs of length delta to fit, ceil(units / C) <= alpha.
    C starts at max(load, ceil(units / alpha)) and grows until the check passes.
    Returns ([], 0) when no C up to that start + 8 works."""
    total = int(mult.sum())
    if total == 0:
        return [], 0
    uniform = bool((length == length[0]).all())
    sorted_lengths = np.sort(length)
    alpha = max(1, int(np.searchsorted(np.cumsum(sorted_lengths), n, side="right")))
    start_c = max(int(load.max(initial=0)), -(-total // alpha), int(mult.max()))
    tries = 9 if uniform else 2  # the argument holds for one length; mixed lengths rarely pass
    for colours in range(start_c, start_c + tries):
        runs = modular_with(n, lo, length, mult, colours, alpha)
        if runs is not None:
            return runs, colours
    return [], 0


def modular_with(
    n: int, lo: IntArray, length: IntArray, mult: IntArray, colours: int, alpha: int
) -> list[tuple[int, int, int]] | None:
    """The modular colouring of `modular_direction` with exactly `colours` colours (alpha:
    the most arcs one colour can hold): runs (arc, first colour, count), or None when the
    order j mod colours puts two overlapping units on one colour."""
    total = int(mult.sum())
    if total <= colours:  # every unit its own colour: nothing to pad, nothing can clash
        firsts = np.cumsum(mult) - mult
        return [(arc, int(firsts[arc]), int(mult[arc])) for arc in range(len(lo))]
    uniform = bool((length == length[0]).all())
    padded = colours * -(-total // colours)
    if uniform and 0 < padded - total <= 5_000 and padded <= alpha * colours:
        phantom = _pad_uniform(n, lo, mult, int(length[0]), padded)
    else:
        phantom = np.zeros(n, dtype=np.int64)
    # Order: by start position; at one position the real arcs first, then phantoms.
    order = np.argsort(lo, kind="stable")
    real_before = np.zeros(len(lo), dtype=np.int64)
    at_position = np.bincount(lo, weights=mult, minlength=n).astype(np.int64) + phantom
    position_start = np.cumsum(at_position) - at_position
    seen = np.zeros(n, dtype=np.int64)
    for arc in order:
        real_before[arc] = position_start[lo[arc]] + seen[lo[arc]]
        seen[lo[arc]] += mult[arc]
    units_arc = np.repeat(np.arange(len(lo)), mult)
    unit_index = np.repeat(real_before, mult) + (
        np.arange(total) - np.repeat(np.cumsum(mult) - mult, mult)
    )
    colour = unit_index % colours
    if not _disjoint_per_colour(n, lo[units_arc], length[units_arc], colour):
        return None
    runs: list[tuple[int, int, int]] = []
    for arc in range(len(lo)):
        c0, k = int(real_before[arc] % colours), int(mult[arc])
        head = min(k, colours - c0)
        runs.append((arc, c0, head))
        if k > head:
            runs.append((arc, 0, k - head))
    return runs

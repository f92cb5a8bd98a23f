"""Constructed RWA for structured stages: assignments known to meet the load bound.

The ring all-to-all (every ordered pair of r nodes, k units each, either direction) needs
exactly its load bound of channels per direction: r^2/8 for r = 0 mod 4, (r^2 + 4)/8 for
r = 2 mod 4, (r^2 - 1)/8 for odd r (Wilfong, ISAAC 1996, LNCS 1178; Opatrny, TCS 297, 2003;
Gu & Peng, IEEE TPDS 14(5), 2003; see ../shared/RWA-LITERATURE.md). The heuristic lands a few
dozen channels above it at r = 1024 and takes seconds per million lightpaths, so even r is
built directly here, by rotating "tilings" of the ring (sets of arcs that cover every link of
one direction exactly once):

- r = 2m. Every pair at distance l < m goes the short way, so each direction holds the arc
  (a, l) (link a to a + l - 1) for every start a and every l in 1..m-1. The antipodal pair
  {i, i + m} sends both of its lightpaths the same way: the two arcs of length m tile the ring,
  one channel per pair, pairs i < ceil(m/2) clockwise and the others counter-clockwise.
- For l < m/2 the arcs of lengths l and m - l form the tiling (l, m - l, l, m - l) of period m;
  its m rotations take every arc of both lengths exactly once, on m channels.
- For even m the arcs of length m/2 form the tiling of four arcs of period m/2: m/2 channels.

Per direction that is m (ceil((m-1)/2) - [m even]) + [m even] m/2 + (antipodal pairs) channels:
m^2/2 for even m and (m^2 + 1)/2 for odd m, on the busier direction: the values above. Every
channel of a tiling is full, so no routing or colouring can do with fewer when m is even (the
load bound proves it independently in solver.bounds). Odd r has no such rotation scheme in
general (for prime r every tiling's lengths would have to sum to r, and (r^2 - 1)/8 is not a
multiple of r), so odd r is left to the heuristic.

The same construction serves an all-to-all among any r nodes p_0 < ... < p_(r-1) of a larger
ring (WRHT's representatives): small-ring link a becomes the segment of links p_a .. p_(a+1) - 1,
every arc the union of its segments. Disjoint arcs stay disjoint, and every link of a segment
is crossed by the same arcs, so the larger ring's L* equals the small ring's: still optimal.

A shift stage (every node i sends k units to i + delta, either direction: a TRA round) is
built by `shift`: a balanced share of Y units goes the long way, and each direction is
coloured by the modular rule of solver.heuristic.modular_with (unit j of the units in start
order gets colour j mod C), which is conflict-free when every window of `length` consecutive
starts holds at most C units and the units (with phantoms) close up in a multiple of C. The
smallest C from the proven bound up for which some Y passes is kept; the load and the
independence rows of solver.bounds make the bound max(load, ceil(units / arcs per colour)),
which this meets on every TRA round we have measured.

Odd r has a fallback that is fast but not optimal, `padded_all_to_all`: the even construction
on r + 1 nodes, the extra (virtual) one between the last node and the first, its pairs dropped
(no colour is left empty by that: measured for odd r up to 301 and counts 1 to 4).
An arc between two real nodes either passes the virtual node (both of its links) or not, so on
the r-node ring its two links become the one link there and disjoint arcs stay disjoint. It
takes ((r + 1)^2 + 4) / 8 channels at most, about r / 4 above the optimum (r^2 - 1) / 8
(r = 4093: 2,095,105 against 2,094,081, 16 steps of 64 channels above 32,721). solver.solve uses
it only when the heuristic, which reaches the optimum on every odd r measured but one Python
step per interval (180 s at r = 4093), runs past the stage's time limit.

Every assignment built here is checked by solver.validator like any other.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from models.ring import ANY_DIRECTION, Direction
from models.stage import Stage
from solver.assignment import Assignment
from solver.heuristic import modular_with

IntArray = npt.NDArray[np.int64]


SHIFT_TRIES = 8  # colour counts above the bound the shift construction tries
_CHECK_BLOCK = 1 << 20  # demands compared at once when recognising an all-to-all


@dataclass(frozen=True)
class AllToAll:
    """Every ordered pair of `nodes` (ascending, an even number of them), `count` units each."""

    nodes: IntArray
    count: int


@dataclass(frozen=True)
class Shift:
    """Every node i sends `count` units to i + `delta`; `direction` is the one way every unit
    must take (a hop limit that only the short way keeps to: models.stage.within_hops), or
    None when either way is allowed."""

    delta: int
    count: int
    direction: int | None = None


Structure = AllToAll | Shift


def structure_of(stage: Stage) -> Structure | None:
    """The structure `build_structure` constructs, when the stage has one (cheap: no colouring)."""
    nodes = all_to_all_among(stage)
    if nodes is not None:
        return AllToAll(nodes, int(stage.counts[0])) if len(nodes) % 2 == 0 else None
    return shift_of(stage)


def build_structure(stage: Stage, structure: Structure, lower_bound: int) -> Assignment | None:
    """The constructed assignment of a stage of this structure; `lower_bound` (proven, on
    colours) is where the shift construction's search over colour counts starts."""
    if isinstance(structure, AllToAll):
        return all_to_all(len(structure.nodes), structure.count)
    return shift(stage.nodes, structure, lower_bound)


def construct(stage: Stage, lower_bound: int) -> Assignment | None:
    """A constructed assignment of `stage` when its structure has one, else None."""
    structure = structure_of(stage)
    return None if structure is None else build_structure(stage, structure, lower_bound)


def all_to_all_among(stage: Stage) -> IntArray | None:
    """The r nodes (ascending) when `stage` is every ordered pair of them, each with the same
    count and either direction; else None."""
    count = stage.demand_count
    if count < 2 or stage.allowed[0] != ANY_DIRECTION:
        return None
    # r (r - 1) = count: r is the root of that quadratic, if an integer.
    r = (1 + math.isqrt(1 + 4 * count)) // 2
    if r * (r - 1) != count:
        return None
    if not ((stage.allowed == ANY_DIRECTION).all() and (stage.counts == stage.counts[0]).all()):
        return None
    # Pairs are unique and sorted by (source, destination): the sources come in r runs of
    # r - 1, and the pairs must be exactly the full list over those nodes.
    nodes = stage.sources[:: r - 1]
    if len(nodes) != r or not (np.diff(nodes) > 0).all():
        return None
    # Pair j is (nodes[u], nodes[v]) (`pair_nodes`). Checked a block at a time: at r = 4096
    # whole index arrays would take 0.4 GB.
    for first in range(0, count, _CHECK_BLOCK):
        last = min(count, first + _CHECK_BLOCK)
        u, v = pair_nodes(np.arange(first, last, dtype=np.int64), r)
        if not (
            np.array_equal(stage.sources[first:last], nodes[u])
            and np.array_equal(stage.destinations[first:last], nodes[v])
        ):
            return None
    return nodes


def pair_index(u: IntArray, v: IntArray, r: int) -> IntArray:
    """The index of the ordered pair (u, v), u != v, among all r (r - 1) pairs of r nodes in
    (source, destination) order: u (r - 1) + v, minus one when v > u (the pair (u, u) is
    missing). `pair_nodes` is its inverse."""
    index: IntArray = u * (r - 1) + v - (v > u)
    return index


def pair_nodes(index: IntArray, r: int) -> tuple[IntArray, IntArray]:
    """(u, v) of the ordered pairs of r nodes with these indices (`pair_index`)."""
    u = index // (r - 1)
    v = index - u * (r - 1)
    v += v >= u
    return u, v


def padded_all_to_all(r: int, count: int) -> Assignment:
    """The odd-r fallback of the module docstring for an all-to-all among r (odd) nodes,
    `count` units per pair (demand indices those of the stage's sorted pairs, as
    `all_to_all`'s): the tilings of r + 1 nodes without the arcs of the virtual node r, the
    others renumbered to the r-node stage's pairs."""
    return _assembled(r + 1, count, virtual_last=True)


def all_to_all(r: int, count: int) -> Assignment:
    """The construction in the module docstring for an all-to-all among r (even) nodes,
    `count` units per pair; demand indices are those of the stage's sorted pairs, and the
    arcs between the r nodes keep their colours on a larger ring."""
    return _assembled(r, count, virtual_last=False)


def _assembled(r: int, count: int, virtual_last: bool) -> Assignment:
    """The runs of `_even_tilings(r, count)` as one assignment; with `virtual_last`, of the
    r - 1 real nodes only (`padded_all_to_all`)."""
    # Filled in place, the tilings generated twice (sized, then written): at N = 8192 the
    # runs are 67M, and holding every tiling's arrays at once took 1 GB beside the columns.
    size = sum(
        int(np.count_nonzero(_real(r, *run[:2]))) if virtual_last else len(run[0])
        for run in _even_tilings(r, count)
    )
    columns = [np.empty(size, dtype=np.int64) for _ in range(4)]
    at = 0
    for run in _even_tilings(r, count):
        values = _demands(r, *run, virtual_last)
        for column, value in zip(columns, values, strict=True):
            column[at : at + len(value)] = value
        at += len(values[0])
    return Assignment.from_runs(*columns)


def _demands(
    r: int,
    starts: IntArray,
    length: int,
    direction: int,
    first: IntArray,
    count: IntArray,
    virtual_last: bool = False,
) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """Runs (demand, direction, first colour, count) of link arcs (start, length) in one
    direction. Link arc (a, l) is the demand a -> a + l clockwise, a + l -> a counter-
    clockwise; on the r-node ring the demand from node u to node v is `pair_index(u, v, r)`.
    With `virtual_last`, the arcs of node r - 1 are dropped and the others numbered as pairs
    of the r - 1 other nodes."""
    if virtual_last:
        keep = _real(r, starts, length)
        starts, first, count = starts[keep], first[keep], count[keep]
    ends = (starts + length) % r
    u, v = (starts, ends) if direction == Direction.CW else (ends, starts)
    pairs_of = r - 1 if virtual_last else r
    return pair_index(u, v, pairs_of), np.full(len(u), direction, dtype=np.int64), first, count


def _real(r: int, starts: IntArray, length: int) -> npt.NDArray[np.bool_]:
    """Which link arcs (start, length) of the r-node ring avoid node r - 1 at both ends (the
    virtual node of `padded_all_to_all`)."""
    mask: npt.NDArray[np.bool_] = (starts < r - 1) & ((starts + length) % r < r - 1)
    return mask


def _even_tilings(r: int, k: int) -> Iterator[tuple[IntArray, int, int, IntArray, IntArray]]:
    """Runs of link arcs (starts, length, direction, first colours, counts) of the tilings for
    r = 2m nodes and k units per pair. A tiling of the non-antipodal arcs is used k times in
    each direction (colours c k .. c k + k - 1); the k m copies of the antipodal tilings are
    split as evenly as they can be, ceil(k m / 2) clockwise: (k m^2 + 1) // 2 channels on the
    busier direction for odd m and k, k m^2 / 2 otherwise, both the load bound."""
    m = r // 2
    a = np.arange(m, dtype=np.int64)
    copies = np.full(m, k, dtype=np.int64)
    cw_copies = np.clip(-(-k * m // 2) - a * k, 0, k)  # of pair i's k tilings, clockwise
    for direction in (Direction.CW, Direction.CCW):
        colour = 0
        for length in range(1, (m + 1) // 2):  # l < m/2 with its partner m - l
            for first, size in ((0, length), (length, m - length)):
                for half in (0, m):
                    starts = (a + first + half) % r
                    yield starts, size, direction, (colour + a) * k, copies
            colour += m
        if m % 2 == 0:  # length m/2: four arcs per rotation, m/2 rotations
            h = m // 2
            for j in range(4):
                yield (a[:h] + j * h) % r, h, direction, (colour + a[:h]) * k, copies[:h]
            colour += h
        if direction == Direction.CW:
            taken, offset = cw_copies, a * k
        else:
            taken, offset = k - cw_copies, a * k + cw_copies - -(-k * m // 2)
        keep = taken > 0  # no empty runs: Assignment.from_runs would copy every column
        for half in (0, m):
            yield (a + half)[keep], m, direction, (colour * k + offset)[keep], taken[keep]


def shift_of(stage: Stage) -> Shift | None:
    """The shift when `stage` is i -> i + delta for every node i, k units each, every unit
    allowed either way or all of them one same way; else None."""
    n = stage.nodes
    if stage.demand_count != n or n < 2:
        return None
    way = int(stage.allowed[0])
    if not ((stage.allowed == way).all() and (stage.counts == stage.counts[0]).all()):
        return None
    delta = (stage.destinations - stage.sources) % n
    if not ((delta == delta[0]).all() and np.array_equal(stage.sources, np.arange(n))):
        return None
    return Shift(int(delta[0]), int(stage.counts[0]), None if way == ANY_DIRECTION else way)


def shift(n: int, structure: Shift, lower_bound: int) -> Assignment | None:
    """The shift construction of the module docstring, or None when no colour count within
    SHIFT_TRIES of the bound passes. Fewest units go the long way: the short way first. A
    shift held to one direction sends every unit that way (the "short" way below)."""
    delta, k = structure.delta, structure.count
    nodes = np.arange(n, dtype=np.int64)
    # Clockwise arcs (i, delta); counter-clockwise arcs (i + delta, n - delta).
    starts = (nodes, (nodes + delta) % n)
    lengths = (delta, n - delta)
    short = Direction.CW if delta <= n - delta else Direction.CCW
    if structure.direction is not None:
        short = Direction(structure.direction)
    ways = (short, 1 - short)  # (short, long)
    per_colour = (n // lengths[ways[0]], n // lengths[ways[1]])
    for colours in range(max(1, lower_bound), max(1, lower_bound) + SHIFT_TRIES):
        long_ways = (
            _long_way_counts(n, k, lengths[ways[0]], per_colour, colours)
            if structure.direction is None
            else [0]
        )
        for long_way in long_ways:
            y = (nodes + 1) * long_way // n - nodes * long_way // n  # balanced, sums to Y
            runs = _shift_runs(n, starts, lengths, ways, (k - y, y), per_colour, colours)
            if runs is not None:
                return Assignment.from_runs(*zip(*runs, strict=True))
    return None


def _shift_runs(
    n: int,
    starts: tuple[IntArray, IntArray],
    lengths: tuple[int, int],
    ways: tuple[int, int],
    units: tuple[IntArray, IntArray],
    per_colour: tuple[int, int],
    colours: int,
) -> list[tuple[int, int, int, int]] | None:
    """Runs (demand, direction, first colour, count) colouring `units` (short way, long way)
    with `colours` colours by the modular rule, or None when a direction does not pass."""
    runs = []
    for way, mult, cap in zip(ways, units, per_colour, strict=True):
        used = np.flatnonzero(mult)
        if not len(used):
            continue
        length = np.full(len(used), lengths[way], dtype=np.int64)
        coloured = modular_with(n, starts[way][used], length, mult[used], colours, cap)
        if coloured is None:
            return None
        runs += [(int(used[arc]), int(way), first, count) for arc, first, count in coloured]
    return runs


def _long_way_counts(
    n: int, k: int, short: int, per_colour: tuple[int, int], colours: int
) -> list[int]:
    """Candidate totals Y of units sent the long way with `colours` colours, fewest first:
    enough that the short-way units fit (k n - Y <= C per_colour_short) and that every window
    of `short` consecutive starts keeps at most C of them; few enough for the long way."""
    total = k * n
    low = max(0, total - colours * per_colour[0])
    high = min(total, colours * per_colour[1])
    if short * k > colours:  # each window needs short k - C units sent the long way
        low = max(low, -(-(short * k - colours) * n // short))
    return [y for y in sorted({low, low + 1, low + 2, (low + high) // 2, high}) if low <= y <= high]

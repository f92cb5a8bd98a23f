"""Lower bounds on chi that cost O(demands): what the shape search prunes with.

Each is a proven bound for any routing and any wavelength assignment of the stage (direction
restrictions only raise chi, so ignoring them keeps the bound valid); none needs an LP. They
are weaker than L* (`solver.bounds.load_bound`) but cheap enough to rank thousands of shapes.

- **Weighted hops**: weigh clockwise links a and counter-clockwise links 1 - a. Every unit
  lightpath holds one channel on each link of its arc, so it carries at least
  min(a cw, (1 - a) ccw) weight; the links' total capacity is N chi (a + 1 - a):
  chi >= max over a of sum k min(a cw, (1 - a) ccw) / N. (a = 1/2 is the plain hop bound;
  for a stage of equal-length arcs the best a gives the LP value of L* exactly.) The
  maximum of this concave function is at a breakpoint a = (N - j) / N, j an arc length.
- **Arc cuts**: for an arc A of consecutive nodes, a lightpath from A to the rest leaves A
  either clockwise over A's last link or counter-clockwise over its first one, so at most
  2 chi lightpaths go from A to B, and as many from B to A. Arcs of floor(N/k) nodes,
  k = 2..8, at every start (tree stages whose groups split in 3 need the N/3 arcs).
- **Node degree**: a node sends (receives) over its two links, so at most 2 chi lightpaths.
- **Equal arcs** (every demand has the same clockwise length L, as in a TRA round): one
  colour in one direction holds at most floor(N / L) disjoint clockwise arcs, or
  floor(N / (N - L)) counter-clockwise ones, so chi >= units / (floor(N/L) + floor(N/(N-L))).
  (The LP of L* has this as its independence cap; when L does not divide N it is stronger
  than the weighted hops.)
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from models.stage import Stage

IntArray = npt.NDArray[np.int64]


def hop_bound(stage: Stage) -> int:
    """The weighted-hops bound, in exact integer arithmetic."""
    n = stage.nodes
    if stage.is_empty():
        return 0
    cw = (stage.destinations - stage.sources) % n
    lengths = np.bincount(cw, weights=stage.counts, minlength=n).astype(np.int64)
    used = np.flatnonzero(lengths)
    weight = lengths[used]

    def scaled(j: int) -> int:
        # N^2 * (sum k min(a cw, (1 - a) ccw)) at a = (N - j) / N
        return int((weight * np.minimum((n - j) * used, j * (n - used))).sum())

    lo, hi = 0, len(used) - 1  # concave in j over the sorted breakpoints: find the peak
    while lo < hi:
        mid = (lo + hi) // 2
        if scaled(int(used[mid])) < scaled(int(used[mid + 1])):
            lo = mid + 1
        else:
            hi = mid
    return -(-scaled(int(used[lo])) // (n * n))


def degree_bound(stage: Stage) -> int:
    n = stage.nodes
    sent = np.bincount(stage.sources, weights=stage.counts, minlength=n)
    received = np.bincount(stage.destinations, weights=stage.counts, minlength=n)
    most = int(max(sent.max(initial=0), received.max(initial=0)))
    return -(-most // 2)


def _add_arcs(diff: npt.NDArray[np.int64], start: IntArray, length: IntArray, w: IntArray) -> None:
    """Add w on every circular interval [start, start + length) of a difference array of
    size n + 1 (lengths 0 .. n)."""
    n = len(diff) - 1
    start = start % n
    end = start + length
    keep = length > 0
    start, end, w = start[keep], end[keep], w[keep]
    wraps = end > n
    np.add.at(diff, start, w)
    np.add.at(diff, np.where(wraps, n, end), -w)
    np.add.at(diff, np.zeros(int(wraps.sum()), dtype=np.int64), w[wraps])
    np.add.at(diff, end[wraps] - n, -w[wraps])


CUT_DIVISORS = (2, 3, 4, 5, 6, 7, 8)


def cut_bound(stage: Stage) -> int:
    """max over the arcs A = [a, a + floor(N/k)), k in CUT_DIVISORS, of ceil(crossing / 2)."""
    if stage.is_empty():
        return 0
    lengths = sorted({stage.nodes // k for k in CUT_DIVISORS} - {0})
    return max((_arc_cut_bound(stage, length) for length in lengths), default=0)


def _arc_cut_bound(stage: Stage, half: int) -> int:
    """max over the N arcs A = [a, a + half), half <= N/2, of ceil(crossing / 2)."""
    n = stage.nodes
    s, d, k = stage.sources, stage.destinations, stage.counts
    delta = (d - s) % n
    lengths = np.full(len(s), half, dtype=np.int64)
    # a with s in A_a: a in [s - half + 1, s]; likewise for d. Their intersection is one arc.
    both_start = np.where(delta < half, d - half + 1, s - half + 1)
    both_len = np.where(
        delta < half, half - delta, np.where(n - delta < half, half - (n - delta), 0)
    )
    out_diff = np.zeros(n + 1, dtype=np.int64)
    _add_arcs(out_diff, s - half + 1, lengths, k)
    _add_arcs(out_diff, both_start, both_len, -k)
    in_diff = np.zeros(n + 1, dtype=np.int64)
    _add_arcs(in_diff, d - half + 1, lengths, k)
    _add_arcs(in_diff, both_start, both_len, -k)
    crossing = max(int(np.cumsum(out_diff)[:n].max()), int(np.cumsum(in_diff)[:n].max()))
    return -(-crossing // 2)


def equal_arcs_bound(stage: Stage) -> int:
    """The equal-arcs bound; 0 when the stage's arcs differ in length."""
    n = stage.nodes
    lengths = (stage.destinations - stage.sources) % n
    if stage.is_empty() or lengths.min() != lengths.max():
        return 0
    return _packing(n, int(lengths[0]), stage.unit_lightpaths)


def _packing(nodes: int, length: int, units: int) -> int:
    per_colour = nodes // length + nodes // (nodes - length)
    return -(-units // per_colour)


def quick_bound(stage: Stage) -> int:
    """The best of the bounds above."""
    if stage.is_empty():
        return 0
    return max(hop_bound(stage), cut_bound(stage), degree_bound(stage), equal_arcs_bound(stage))


def shift_bound(nodes: int, shift: int, count: int) -> int:
    """quick_bound of a stage where every node sends `count` lightpaths to node + shift
    (equal to it: tests/solver/test_quick_bounds.py), without building the stage: the
    weighted-hops bound ceil(count L (N - L) / N), the degree bound ceil(count / 2), or the
    equal-arcs bound on its N count units."""
    shift %= nodes
    if shift == 0 or count == 0:
        return 0
    return max(
        -(-count * shift * (nodes - shift) // nodes),
        -(-count // 2),
        _packing(nodes, shift, nodes * count),
    )

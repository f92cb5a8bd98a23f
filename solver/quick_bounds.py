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


def hop_bound(stage: Stage, copies: int = 1) -> int:
    """The weighted-hops bound, in exact integer arithmetic (of `copies` translates of the
    stage's demands: see `quick_bound`'s period)."""
    n = stage.nodes
    if stage.is_empty():
        return 0
    cw = (stage.destinations - stage.sources) % n
    lengths = np.bincount(cw, weights=stage.counts, minlength=n)
    return hop_bound_of_lengths(n, np.rint(lengths).astype(np.int64) * copies)


def hop_bound_of_lengths(n: int, lengths: IntArray) -> int:
    """The weighted-hops bound of a stage given as `lengths[L]`: unit lightpaths whose
    clockwise arc is L links long (L = 1 .. N - 1; lengths[0] is ignored)."""
    used = np.flatnonzero(lengths[1:]) + 1
    if len(used) == 0:
        return 0
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


def degree_bound(stage: Stage, period: int | None = None) -> int:
    """ceil(most lightpaths a node sends or receives / 2); with `period`, of the stage's
    translates by multiples of it (a node's demands are those of its residue)."""
    n = period or stage.nodes
    sent = np.bincount(stage.sources % n, weights=stage.counts, minlength=n)
    received = np.bincount(stage.destinations % n, weights=stage.counts, minlength=n)
    most = int(np.rint(max(sent.max(initial=0), received.max(initial=0))))
    return -(-most // 2)


CUT_DIVISORS = (2, 3, 4, 5, 6, 7, 8)


def cut_bound(
    stage: Stage, period: int | None = None, divisors: tuple[int, ...] = CUT_DIVISORS
) -> int:
    """max over the arcs A = [a, a + floor(N/k)), k in `divisors`, of ceil(crossing / 2);
    with `period`, of the stage's translates by multiples of it."""
    if stage.is_empty():
        return 0
    lengths = sorted({stage.nodes // k for k in divisors} - {0})
    return max((_arc_cut_bound(stage, length, period) for length in lengths), default=0)


def _fold(values: IntArray, period: int | None) -> IntArray:
    """Per arc start, the sum over the translates by multiples of `period` (which divides N):
    translate g crosses the arc at a what the stage crosses at a - g period."""
    if period is None or period == len(values):
        return values
    folded: IntArray = values.reshape(-1, period).sum(axis=0)
    return folded


def _arc_cut_bound(stage: Stage, half: int, period: int | None = None) -> int:
    """max over the N arcs A = [a, a + half), half <= N/2, of ceil(crossing / 2)."""
    n = stage.nodes
    s, d = stage.sources, stage.destinations
    w = stage.counts.astype(np.float64)
    delta = (d - s) % n
    # a with s in A_a: a in [s - half + 1, s]; likewise for d. Their intersection is one arc.
    both_start = np.where(delta < half, d - half + 1, s - half + 1) % n
    both_len = np.where(
        delta < half, half - delta, np.where(n - delta < half, half - (n - delta), 0)
    )
    # Difference arrays over the doubled ring: an arc [a, a + L), a < N, L <= N, adds at a
    # and stops at a + L < 2N, and link x counts what reaches x and x + N. One weighted
    # bincount per end (np.add.at is 10x slower; splitting the wrapping arcs cost 8x more).
    both = np.bincount(both_start, weights=w, minlength=2 * n + 1)
    both -= np.bincount(both_start + both_len, weights=w, minlength=2 * n + 1)

    def crossing(ends: IntArray) -> int:
        """The most lightpaths with this end in A_a and the other outside, over a."""
        start = (ends - half + 1) % n
        diff = np.bincount(start, weights=w, minlength=2 * n + 1)
        diff -= np.bincount(start + half, weights=w, minlength=2 * n + 1)
        diff -= both
        run = np.cumsum(diff)[: 2 * n]
        return int(_fold(np.rint(run[:n] + run[n:]).astype(np.int64), period).max())

    return -(-max(crossing(s), crossing(d)) // 2)


def equal_arcs_bound(stage: Stage, copies: int = 1) -> int:
    """The equal-arcs bound; 0 when the stage's arcs differ in length."""
    n = stage.nodes
    lengths = (stage.destinations - stage.sources) % n
    if stage.is_empty() or lengths.min() != lengths.max():
        return 0
    return _packing(n, int(lengths[0]), stage.unit_lightpaths * copies)


def _packing(nodes: int, length: int, units: int) -> int:
    per_colour = nodes // length + nodes // (nodes - length)
    return -(-units // per_colour)


def quick_bound(
    stage: Stage, period: int | None = None, divisors: tuple[int, ...] = CUT_DIVISORS
) -> int:
    """The best of the bounds above. With `period` (a divisor of N), `stage` holds one
    period of a larger stage: the bound is that of the union of its N / period translates
    by multiples of `period` (an OpTree stage is one group's demands, repeated), computed
    without building it, and equal to the bound of the built stage (tests). `divisors` are
    the arc cuts' k (fewer are still a bound, a weaker one: on OpTree's deep padded stages
    the cuts of every length find heavy adjacent pairs, N/2 alone up to 3 % less)."""
    if stage.is_empty():
        return 0
    if period is not None and stage.nodes % period:
        raise ValueError(f"period {period} does not divide N = {stage.nodes}")
    copies = 1 if period is None else stage.nodes // period
    return max(
        hop_bound(stage, copies),
        cut_bound(stage, period, divisors),
        degree_bound(stage, period),
        equal_arcs_bound(stage, copies),
    )


def _cyclic(values: npt.NDArray[np.float64], offsets: IntArray) -> IntArray:
    """sum over t in `offsets` of values[x - t mod N], per x (a circular convolution; by
    FFT, rounded: the entries are integers far below 2^52)."""
    n = len(values)
    if len(offsets) == 1:
        return np.rint(np.roll(values, int(offsets[0]) % n)).astype(np.int64)
    spread = np.bincount(offsets % n, minlength=n).astype(np.float64)
    return np.rint(np.fft.irfft(np.fft.rfft(values) * np.fft.rfft(spread), n)).astype(np.int64)


def translated_all_to_all_bound(
    nodes: int, positions: IntArray, weights: IntArray, offsets: IntArray
) -> int:
    """quick_bound of the union over t in `offsets` of the stage where every node p + t of
    `positions` (distinct) sends `weights[i]` unit lightpaths to every other one, without
    building its r (r - 1) |offsets| demands (equal to the built stage's: tests).

    - Hop lengths: the weighted cyclic cross-correlation of the senders with the receivers,
      times |offsets| (moving a set does not change its arcs).
    - Degrees: a node of the base set sends w (r - 1) and receives W - w; a node of the
      union, the sum over the translates it is in (a convolution with the offsets).
    - Arc cuts: an arc A holding c of the base set's nodes, of weight W_A, is left by
      W_A (r - c) lightpaths and entered by c (W - W_A); a translate by t crosses A as the
      base set crosses A - t: again a convolution.
    - Equal arcs: a -> b and b -> a have lengths L and N - L, so with r >= 3 they differ;
      with r = 2 they are equal when L = N / 2.
    """
    n, r = nodes, len(positions)
    if r < 2 or len(offsets) == 0:
        return 0
    w = weights.astype(np.float64)
    sender = np.zeros(n)
    sender[positions] = w
    receiver = np.zeros(n)
    receiver[positions] = 1.0
    corr = np.fft.irfft(np.conj(np.fft.rfft(sender)) * np.fft.rfft(receiver), n)
    lengths = np.rint(corr).astype(np.int64) * len(offsets)  # [L]: sum of w_a, b - a = L
    lengths[0] = 0
    total = float(weights.sum())
    sent = np.zeros(n)
    sent[positions] = w * (r - 1)
    received = np.zeros(n)
    received[positions] = total - w
    most = max(int(_cyclic(sent, offsets).max()), int(_cyclic(received, offsets).max()))
    member = np.zeros(2 * n, dtype=np.int64)
    weight = np.zeros(2 * n, dtype=np.int64)
    for shift in (0, n):
        member[positions + shift] = 1
        weight[positions + shift] = weights
    count_prefix = np.concatenate(([0], np.cumsum(member)))
    weight_prefix = np.concatenate(([0], np.cumsum(weight)))
    starts = np.arange(n)
    crossing = 0
    for half in sorted({n // k for k in CUT_DIVISORS} - {0}):
        c = count_prefix[starts + half] - count_prefix[starts]
        w_in = weight_prefix[starts + half] - weight_prefix[starts]
        leaving = (w_in * (r - c)).astype(np.float64)
        entering = (c * (int(total) - w_in)).astype(np.float64)
        crossing = max(
            crossing, int(_cyclic(leaving, offsets).max()), int(_cyclic(entering, offsets).max())
        )
    equal = 0
    if r == 2 and 2 * ((int(positions[1]) - int(positions[0])) % n) == n:
        equal = _packing(n, n // 2, int(weights.sum()) * len(offsets))
    return max(hop_bound_of_lengths(n, lengths), -(-crossing // 2), -(-most // 2), equal)


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


def shift_bounds(
    nodes: int, shifts: IntArray, counts: IntArray, max_hops: int | None = None
) -> IntArray:
    """`shift_bound` of every (shift, count) pair at once (equal to it: tests). With
    `max_hops`, the bound of the stage routed within it (models.stage.within_hops): a shift
    whose long arc is beyond the limit sends all N count units its short way, s hops each,
    and one colour holds at most floor(N / s) of them: ceil(N count / floor(N / s)) (at least
    the load count s). A shift with neither arc within the limit keeps its free bound (no
    routing exists; callers refuse it by its length)."""
    length = np.asarray(shifts, dtype=np.int64) % nodes
    count = np.asarray(counts, dtype=np.int64)
    live = (length > 0) & (count > 0)
    safe = np.where(live, length, 1)  # no division by zero where the bound is 0 anyway
    hops = -(-count * safe * (nodes - safe) // nodes)
    per_colour = nodes // safe + nodes // np.where(live, nodes - safe, 1)
    packing = -(-nodes * count // per_colour)
    out: IntArray = np.where(live, np.maximum(np.maximum(hops, -(-count // 2)), packing), 0)
    if max_hops is None:
        return out
    short = np.minimum(safe, nodes - safe)
    one_way = live & (short <= max_hops) & (nodes - short > max_hops)
    held = -(-nodes * count // (nodes // short))
    return np.where(one_way, np.maximum(out, held), out)

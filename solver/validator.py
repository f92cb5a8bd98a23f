"""The independent validator of an RWA assignment (SPEC section 2).

Written once, on purpose without sharing code with any solver. It checks that:
1. every run names an existing demand, a direction the demand allows, colours >= 0;
2. every demand gets exactly k unit lightpaths;
3. no two unit lightpaths conflict: same direction, same colour, a shared link.
   A CW lightpath s -> d holds CW links s, s+1, ..., d-1; a CCW one holds CCW links
   d, d+1, ..., s-1 (CCW link i joins i+1 and i). Arcs that wrap past link N-1 are cut in two.
   For each (direction, colour) the link intervals must not overlap: counted per link where
   the (direction, colour, link) table is small against the unit lightpaths (each run a
   rectangle of it, by a 2-D difference table and running sums: linear in runs and cells),
   else sorted by (direction, colour, first link). The sort also finds and names a conflict.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from models.errors import InvalidAssignmentError
from models.ring import ANY_DIRECTION, Direction
from models.stage import Stage
from solver.assignment import Assignment

IntArray = npt.NDArray[np.int64]

CHUNK_UNITS = 1_000_000  # unit lightpaths checked at once
DENSE_CELLS_PER_PIECE = 16
"""Count units per (direction, colour, link) when that table has at most this many cells per
unit lightpath: filling it from the runs and two running sums beat sorting every unit's arc
there (bench/validator.py); beyond, the table would be mostly empty and the sort is cheaper."""


@dataclass(frozen=True)
class ValidationReport:
    unit_lightpaths: int
    colours_used: int


def validate(stage: Stage, assignment: Assignment) -> ValidationReport:
    a = assignment
    if a.runs:
        _check_fields(stage, a)
    # Each check is a function of its own, so its temporaries (8 bytes a run or a demand:
    # 0.5 GB each for OSM at N = 8192) are gone before the colours are checked.
    _check_counts(stage, a)
    if a.runs == 0:
        return ValidationReport(0, 0)

    # Colours are checked in windows of about CHUNK_UNITS unit lightpaths, so the pieces of
    # a stage of millions of lightpaths are never all in memory at once.
    top = a.colours_used()
    units = int(a.count.sum())
    windows = max(1, -(-units // CHUNK_UNITS))
    edges = np.linspace(0, top, windows + 1).round().astype(np.int64)
    window_of, spanning, reaches = _windows_of_runs(a.first_colour, a.count, edges)
    for k, (c0, c1) in enumerate(itertools.pairwise(edges.tolist())):
        if c1 <= c0:
            continue
        pick = np.flatnonzero(window_of == k)
        later = spanning[(window_of[spanning] < k) & (reaches >= k)]
        if len(later):
            pick = np.concatenate([pick, later])
        if not len(pick):  # colours no run uses (a gap wider than a window)
            continue
        start = a.first_colour[pick]
        first = np.maximum(start, c0)
        end = np.minimum(start + a.count[pick], c1)
        window = Assignment(a.demand[pick], a.direction[pick], first, end - first)
        _check_conflicts(stage, window)
    return ValidationReport(units, top)


def _check_fields(stage: Stage, a: Assignment) -> None:
    """Demands that exist, colours >= 0, directions CW or CCW and allowed, counts >= 1."""
    if a.demand.min() < 0 or a.demand.max() >= stage.demand_count:
        raise InvalidAssignmentError("a run names a demand the stage does not have")
    if a.first_colour.min() < 0:
        raise InvalidAssignmentError("a run uses a negative colour")
    if a.direction.min() < 0 or a.direction.max() > 1:
        raise InvalidAssignmentError("direction must be Direction.CW (0) or Direction.CCW (1)")
    if (a.count < 1).any():
        raise InvalidAssignmentError("a run has count < 1")
    if (stage.allowed != ANY_DIRECTION).any():  # most stages allow both: no gather then
        allowed = stage.allowed[a.demand]
        bad = ((allowed == Direction.CW) & (a.direction == Direction.CCW)) | (
            (allowed == Direction.CCW) & (a.direction == Direction.CW)
        )
        if bad.any():
            i = int(a.demand[np.flatnonzero(bad)[0]])
            raise InvalidAssignmentError(f"demand {i} is routed in a direction it does not allow")


def _check_counts(stage: Stage, a: Assignment) -> None:
    """Every demand gets exactly its count of unit lightpaths."""
    # Runs of one unit are counted without weights; otherwise summed as float64 (exact below
    # 2^53 units) and compared as is. Either way no extra copy of a column.
    if (a.count == 1).all():
        got = np.bincount(a.demand, minlength=stage.demand_count)
    else:
        got = np.bincount(a.demand, weights=a.count, minlength=stage.demand_count)
    wrong = np.flatnonzero(got != stage.counts)
    if len(wrong):
        i = int(wrong[0])
        raise InvalidAssignmentError(
            f"demand {i} ({stage.sources[i]}->{stage.destinations[i]}) needs "
            f"{stage.counts[i]} lightpaths, the assignment gives {int(got[i])}"
        )


def _windows_of_runs(
    first_colour: IntArray, count: IntArray, edges: IntArray
) -> tuple[npt.NDArray[np.integer[Any]], npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """Per run, the colour window of its first colour (window k holds colours edges[k] ..
    edges[k + 1] - 1; two bytes a run while the windows fit 16 bits), so each window finds
    its runs in one pass over them; and the runs whose colours reach past that window, with
    the last window each reaches (they are checked in every window they touch). Computed a
    block of runs at a time: no temporary of 8 bytes per run (at N = 8192 OSM's stage has 67M
    runs, and one int64 column of them is 0.5 GB)."""
    runs = len(first_colour)
    window_of: npt.NDArray[np.integer[Any]] = np.empty(
        runs, dtype=np.uint16 if len(edges) <= 2**16 else np.int64
    )
    spans = []
    for lo in range(0, runs, CHUNK_UNITS):
        hi = min(runs, lo + CHUNK_UNITS)
        k = np.searchsorted(edges, first_colour[lo:hi], side="right") - 1
        window_of[lo:hi] = k
        spans.append(lo + np.flatnonzero(first_colour[lo:hi] + count[lo:hi] > edges[k + 1]))
    spanning = np.concatenate(spans) if spans else np.zeros(0, dtype=np.intp)
    last = first_colour[spanning] + count[spanning] - 1
    reaches = np.searchsorted(edges, last, side="right") - 1
    return window_of, spanning, reaches


def _check_conflicts(stage: Stage, a: Assignment) -> None:
    """Raise on two unit lightpaths of `a` with the same direction and colour sharing a link."""
    n = stage.nodes
    if _no_conflict_by_count(stage, a):
        return
    demand, direction, colour = a.expand()
    s, d = stage.sources[demand], stage.destinations[demand]
    piece_lo, piece_hi, wraps = _pieces(n, s, d, direction)
    piece_dir = np.concatenate([direction, direction[wraps]])
    piece_col = np.concatenate([colour, colour[wraps]])
    # Sort the pieces by (direction, colour, lo): one packed int64 key when it fits (a plain
    # sort is several times faster than lexsort on millions of pieces), else lexsort.
    channels = int(piece_col.max()) + 1
    if 2 * channels * (n + 1) * (n + 1) < 2**62:
        key = ((piece_dir * channels + piece_col) * (n + 1) + piece_lo) * (n + 1) + piece_hi
        key.sort()
        group, rest = np.divmod(key, (n + 1) * (n + 1))
        lo, hi = np.divmod(rest, n + 1)
        overlap = (group[1:] == group[:-1]) & (lo[1:] < hi[:-1])
        if not overlap.any():
            return
    piece_id = np.concatenate([np.arange(len(demand)), np.flatnonzero(wraps)])
    order = np.lexsort((piece_lo, piece_col, piece_dir))
    same = (piece_dir[order][1:] == piece_dir[order][:-1]) & (
        piece_col[order][1:] == piece_col[order][:-1]
    )
    overlap = same & (piece_lo[order][1:] < piece_hi[order][:-1])
    if overlap.any():
        k = int(np.flatnonzero(overlap)[0])
        first, second = piece_id[order][k], piece_id[order][k + 1]
        raise InvalidAssignmentError(
            f"conflict: lightpaths {s[first]}->{d[first]} and {s[second]}->{d[second]} share "
            f"a {Direction(int(piece_dir[order][k])).name} link on colour {piece_col[order][k]}"
        )


def _no_conflict_by_count(stage: Stage, a: Assignment) -> bool:
    """True when every (direction, colour, link) holds at most one unit lightpath, counted in
    a table of 2 x colours x (N + 1) cells; False when one holds more, or when the table would
    have more than `DENSE_CELLS_PER_PIECE` cells per unit lightpath (the caller sorts then).

    A run (one arc, colours first .. first + count - 1) covers a rectangle of the table, once
    per piece of its arc on the line 0..N (two pieces when it wraps past link N - 1): +1 at
    two opposite corners and -1 at the other two, and running sums along the links, then along
    the colours, give each cell's count. Linear in runs and cells, never per unit."""
    n = stage.nodes
    low = int(a.first_colour.min())
    span = int((a.first_colour + a.count).max()) - low  # colours in the table
    cells = 2 * (span + 1) * (n + 1)  # a spare colour row takes the rectangles' far corners
    if cells > DENSE_CELLS_PER_PIECE * int(a.count.sum()):
        return False
    lo, hi, wraps = _pieces(n, stage.sources[a.demand], stage.destinations[a.demand], a.direction)
    row = a.direction * (span + 1) + a.first_colour - low
    first = np.concatenate([row, row[wraps]]) * (n + 1)
    last = first + np.concatenate([a.count, a.count[wraps]]) * (n + 1)
    table = np.bincount(np.concatenate([first + lo, last + hi]), minlength=cells)
    table -= np.bincount(np.concatenate([first + hi, last + lo]), minlength=cells)
    table = table.reshape(2, span + 1, n + 1)
    np.cumsum(table, axis=2, out=table)
    np.cumsum(table, axis=1, out=table)
    return int(table.max()) <= 1


def _pieces(
    n: int, sources: IntArray, destinations: IntArray, direction: IntArray
) -> tuple[IntArray, IntArray, npt.NDArray[np.bool_]]:
    """The links the arcs hold, as pieces on the line 0..N: [start, min(end, N)) for every
    arc, then [0, end - N) for each arc that wraps past link N - 1 (in the arcs' order), as
    (first link, end link exclusive, which arcs wrap). A CW arc s -> d starts at link s, a
    CCW one at link d (module docstring)."""
    cw = direction == Direction.CW
    start = np.where(cw, sources, destinations)
    end = start + np.where(cw, (destinations - sources) % n, (sources - destinations) % n)
    wraps = end > n
    lo = np.concatenate([start, np.zeros(int(wraps.sum()), dtype=np.int64)])
    hi = np.concatenate([np.minimum(end, n), end[wraps] - n])
    return lo, hi, wraps

"""The aggregated RWA formulation shared by the exact back ends.

Variables y[i, o, c] = 1 when demand i sends one unit in direction o on colour c (two units of
one demand in one direction always share links, so y is binary and sum_{o,c} y = k_i), and
u[c] = 1 when colour c is used. Conflicts: on every directed link e and colour c, the arcs over
e hold at most u[c]. Two circular arcs overlap only if one contains the other's first link, so
rows are needed only at links where some arc starts (the maximal cliques).
Symmetry breaking: u[c] >= u[c+1]; the proven lower bound L* gives sum u >= L*.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from models.ring import Direction
from models.stage import Stage
from solver.assignment import Assignment


@dataclass(frozen=True)
class Formulation:
    colours: int
    lower_bound: int
    # (demand, direction) pairs that may carry units
    arcs: list[tuple[int, int]]
    # per clique row: the indices into `arcs` of the arcs over that directed link
    cliques: list[list[int]]
    counts: list[int]

    @property
    def binaries(self) -> int:
        return len(self.arcs) * self.colours + self.colours


def build(stage: Stage, colours: int, lower_bound: int) -> Formulation:
    n = stage.nodes
    arcs: list[tuple[int, int]] = []
    lo_list, len_list, dir_list = [], [], []
    for i in range(stage.demand_count):
        s, d, allowed = int(stage.sources[i]), int(stage.destinations[i]), int(stage.allowed[i])
        if allowed != Direction.CCW:
            arcs.append((i, Direction.CW))
            lo_list.append(s)
            len_list.append((d - s) % n)
            dir_list.append(Direction.CW)
        if allowed != Direction.CW:
            arcs.append((i, Direction.CCW))
            lo_list.append(d)
            len_list.append((s - d) % n)
            dir_list.append(Direction.CCW)
    lo, length, direction = np.array(lo_list), np.array(len_list), np.array(dir_list)
    cliques: list[list[int]] = []
    seen: set[tuple[int, ...]] = set()
    for o in Direction:
        mine = np.flatnonzero(direction == o)
        for e in np.unique(lo[mine]):
            over = mine[((e - lo[mine]) % n) < length[mine]]
            key = tuple(over.tolist())
            if len(over) > 1 and key not in seen:
                seen.add(key)
                cliques.append(list(key))
    return Formulation(colours, lower_bound, arcs, cliques, [int(k) for k in stage.counts])


def assignment_from(form: Formulation, chosen: list[tuple[int, int]]) -> Assignment:
    """Runs from chosen (arc index, colour) pairs, one unit each."""
    if not chosen:
        return Assignment.empty()
    arc_idx = np.array([a for a, _ in chosen])
    colour = np.array([c for _, c in chosen])
    demand = np.array([form.arcs[a][0] for a in arc_idx])
    direction = np.array([form.arcs[a][1] for a in arc_idx])
    return Assignment.from_runs(demand, direction, colour, np.ones(len(chosen), dtype=np.int64))

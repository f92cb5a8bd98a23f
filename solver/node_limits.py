"""Per-node limits (optional): at most `max_tx` lightpaths leave and `max_rx` arrive at a node
in one time slot. Steps are then a scheduling problem of their own (SPEC section 2).

Lower bound on slots: max(ceil(chi_lb / (F w)), max_v ceil(out_v / max_tx),
max_v ceil(in_v / max_rx)), with out_v / in_v the units node v sends / receives.
Schedule: the colour classes of a valid RWA (units of one direction and colour, pairwise
link-disjoint, so every node appears at most once as a source and once as a destination) are
placed first-fit into slots: a class takes a free channel of its direction in the earliest slot,
with every unit whose source and destination still have budget there; the others move on to
later slots (they stay disjoint, so they can share a channel again). Colour = slot x F w +
channel, so the ordinary validator still checks conflicts; `check_node_limits` checks budgets.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from models.errors import NodeLimitError
from models.stage import Stage
from solver.assignment import Assignment


@dataclass(frozen=True)
class NodeLimitedSchedule:
    assignment: Assignment
    slots: int
    slots_lower_bound: int


def slots_lower_bound(
    stage: Stage, chi_lower_bound: int, channels: int, max_tx: int | None, max_rx: int | None
) -> int:
    bound = -(-chi_lower_bound // channels)
    n = stage.nodes
    out = np.bincount(stage.sources, weights=stage.counts, minlength=n)
    inn = np.bincount(stage.destinations, weights=stage.counts, minlength=n)
    if max_tx:
        bound = max(bound, int(np.ceil(out.max(initial=0) / max_tx)))
    if max_rx:
        bound = max(bound, int(np.ceil(inn.max(initial=0) / max_rx)))
    return bound


def schedule(
    stage: Stage,
    assignment: Assignment,
    chi_lower_bound: int,
    channels: int,
    max_tx: int | None,
    max_rx: int | None,
) -> NodeLimitedSchedule:
    n = stage.nodes
    tx_cap = max_tx or 1 << 30
    rx_cap = max_rx or 1 << 30
    demand, direction, colour = assignment.expand()
    src, dst = stage.sources[demand], stage.destinations[demand]
    tx: list[np.ndarray] = []
    rx: list[np.ndarray] = []
    free: list[list[int]] = []  # next free channel per direction, per slot
    out_slot = np.empty(len(demand), dtype=np.int64)
    out_channel = np.empty(len(demand), dtype=np.int64)
    order = np.lexsort((colour, direction))
    bounds = np.flatnonzero(np.diff(direction[order] * (colour.max(initial=0) + 1) + colour[order]))
    for members in np.split(order, bounds + 1):
        if len(members) == 0:
            continue
        o = int(direction[members[0]])
        pending = members
        slot = 0
        while len(pending):
            if slot == len(tx):
                tx.append(np.zeros(n, dtype=np.int64))
                rx.append(np.zeros(n, dtype=np.int64))
                free.append([0, 0])
            if free[slot][o] < channels:
                fits = (tx[slot][src[pending]] < tx_cap) & (rx[slot][dst[pending]] < rx_cap)
                placed = pending[fits]
                if len(placed):
                    out_slot[placed] = slot
                    out_channel[placed] = free[slot][o]
                    free[slot][o] += 1
                    tx[slot][src[placed]] += 1
                    rx[slot][dst[placed]] += 1
                    pending = pending[~fits]
            slot += 1
    new_colour = out_slot * channels + out_channel
    result = Assignment.from_runs(demand, direction, new_colour, np.ones(len(demand), np.int64))
    lower = slots_lower_bound(stage, chi_lower_bound, channels, max_tx, max_rx)
    return NodeLimitedSchedule(result, len(tx), lower)


def check_node_limits(
    stage: Stage, assignment: Assignment, channels: int, max_tx: int | None, max_rx: int | None
) -> None:
    """Raise NodeLimitError if some node sends or receives too many lightpaths in a slot."""
    demand, _, colour = assignment.expand()
    slot = colour // channels
    n = stage.nodes
    for cap, nodes, name in (
        (max_tx, stage.sources[demand], "transmits"),
        (max_rx, stage.destinations[demand], "receives"),
    ):
        if not cap or len(slot) == 0:
            continue
        per = np.bincount(slot * n + nodes)
        worst = int(per.argmax())
        if per[worst] > cap:
            raise NodeLimitError(
                f"node {worst % n} {name} {per[worst]} lightpaths in slot {worst // n} "
                f"(limit {cap})"
            )

"""Relays (SPEC 12: store-and-forward through intermediate nodes): a move whose lightpath would
be longer than a hop limit is cut into hops along the shorter arc, each a slot of its own.

Used by TRA and TRA2 within a hop limit (issue: all-to-all within the loss budget): every round
of theirs moves each block by the same ring offset, so a relayed round is a few uniform shift
stages with pinned directions; the data flow moves each block through the intermediate nodes.
"""

from __future__ import annotations

import numpy as np

from models.errors import InvalidInputError
from models.ring import Direction
from models.stage import IntArray, Stage, StageFlow, frozen


def relay_lengths(nodes: int, offset: int, max_hops: int) -> list[int]:
    """The signed hops (CW positive) that carry a move by `offset` along the shorter arc in
    ceil(d / H) near-equal hops of at most H; [offset] when one lightpath may carry it."""
    if max_hops < 1:
        raise InvalidInputError(f"a relay needs a hop limit >= 1, got {max_hops}")
    offset %= nodes
    cw, ccw = offset, nodes - offset
    distance, sign = (cw, 1) if cw <= ccw else (ccw, -1)
    if distance <= max_hops:
        return [offset]
    hops = -(-distance // max_hops)
    base, extra = divmod(distance, hops)
    return [sign * (base + (1 if j < extra else 0)) for j in range(hops)]


def shift_stage(nodes: int, shift: int, count: int, label: str) -> Stage:
    """Every node sends `count` unit lightpaths to node + shift (mod N), either direction."""
    s = np.arange(nodes)
    if shift % nodes == 0 or count == 0:
        return Stage.from_demands(nodes, [], [], [], label=label)
    return Stage.from_demands(nodes, s, (s + shift) % nodes, np.full(nodes, count), label=label)


def relayed_shift_stages(
    nodes: int, shift: int, count: int, max_hops: int | None, label: str
) -> list[Stage]:
    """A shift stage, or with `max_hops` its relay: one stage per hop, direction pinned."""
    lengths = [shift] if not max_hops else relay_lengths(nodes, shift, max_hops)
    if len(lengths) == 1:
        return [shift_stage(nodes, shift, count, label)]
    s = np.arange(nodes)
    return [
        Stage.from_demands(
            nodes,
            s,
            (s + hop) % nodes,
            np.full(nodes, count),
            np.full(nodes, Direction.CW if hop > 0 else Direction.CCW),
            f"{label} relay {j + 1}/{len(lengths)}",
        )
        for j, hop in enumerate(lengths)
    ]


def relayed_flow(
    flow: StageFlow, endpoint_node: IntArray, nodes: int, max_hops: int | None
) -> list[StageFlow]:
    """The flow, or its relay: each block moves hop by hop to the endpoint of the
    intermediate node with the receiver's rank in its node (endpoints of a node are
    consecutive). Every moving entry of a TRA round has the same node offset."""
    if not max_hops:
        return [flow]
    s_node, r_node = endpoint_node[flow.senders], endpoint_node[flow.receivers]
    moving = s_node != r_node
    offsets = np.unique((r_node[moving] - s_node[moving]) % nodes)
    if len(offsets) == 0:
        return [flow]
    if len(offsets) > 1:
        raise InvalidInputError("relayed_flow needs one node offset per round")
    lengths = relay_lengths(nodes, int(offsets[0]), max_hops)
    if len(lengths) == 1:
        return [flow]
    first = np.searchsorted(endpoint_node, np.arange(nodes))  # a node's first endpoint
    rank = flow.receivers - first[r_node]
    out = []
    # every hop moves the same data from the previous hop's receivers: each array made once
    # and frozen (read-only), so the hops share them instead of copying (TRA relayed within
    # 80 hops at N = 4096: 126 rounds relayed, the test's simulation 26.4 -> 13.2 s)
    at, data = frozen(flow.senders[moving]), frozen(flow.data[moving])
    node = s_node[moving]
    receiving_rank = rank[moving]
    for j, hop in enumerate(lengths):
        node = (node + hop) % nodes
        nxt = frozen(first[node] + receiving_rank)
        out.append(
            StageFlow.of(at, nxt, data, flow.reduction,
                         f"{flow.label} relay {j + 1}/{len(lengths)}")
        )
        at = nxt
    if not moving.all():  # intra-node moves of the round go with its first hop
        stay = ~moving
        first_flow = out[0]
        out[0] = StageFlow.of(
            np.concatenate([first_flow.senders, flow.senders[stay]]),
            np.concatenate([first_flow.receivers, flow.receivers[stay]]),
            np.concatenate([first_flow.data, flow.data[stay]]),
            flow.reduction,
            first_flow.label,
        )
    return out

"""Fact 3d (docs/achievable.md) checked on a real all-reduce schedule, independently of
`models.achievable`: what each datum's lightpaths cross, and how many pairs at ring distance
floor(N/2) can have a chain through one lightpath, from the schedule's own data flow."""

from dataclasses import dataclass

import numpy as np

from models.stage import Schedule


@dataclass(frozen=True)
class ChainCheck:
    slots: int
    longest: int  # the schedule's longest lightpath, in ring distance (its own hop limit)
    least_hops: int  # min over data of the ring distances their moves cross together
    most_pairs: int  # max over moves of the far pairs (u, v) with a chain through it


def chain_check(schedule: Schedule) -> ChainCheck:
    """Knowledge K_t[e, x] (whose contribution to datum e node x may hold after slot t) forward,
    reach R_t[e, y] (which nodes hear from y from slot t + 1 on) backward; a move x -> y of
    datum e in slot t lies on the chain of (u, v) only if u in K_{t-1}[e, x] and v in
    R_t[e, y]. Every read of a sender is taken as all it knows: more pairs, never fewer."""
    n, count = schedule.nodes, schedule.data_count
    far = n // 2
    flows = schedule.flows
    slots = len(flows)
    nodes = schedule.endpoint_node
    known = [np.broadcast_to(np.eye(n, dtype=np.uint8), (count, n, n)).copy()]
    for flow in flows:
        after = known[-1].copy()
        np.maximum.at(after, (flow.data, nodes[flow.receivers]),
                      known[-1][flow.data, nodes[flow.senders]])
        known.append(after)
    reach = [np.broadcast_to(np.eye(n, dtype=np.uint8), (count, n, n)).copy()]
    for flow in reversed(flows):
        before = reach[0].copy()
        np.maximum.at(before, (flow.data, nodes[flow.senders]),
                      reach[0][flow.data, nodes[flow.receivers]])
        reach.insert(0, before)
    assert known[-1].all(), "the schedule leaves some node without some contribution"
    hops = np.zeros(count, dtype=np.int64)
    longest, most = 0, 0
    partners = sorted({far % n, (-far) % n})
    for t, flow in enumerate(flows, start=1):
        x, y = nodes[flow.senders], nodes[flow.receivers]
        cw = (y - x) % n
        distance = np.minimum(cw, n - cw)
        np.add.at(hops, flow.data, distance)
        longest = max(longest, int(distance.max(initial=0)))
        before = known[t - 1][flow.data, x]  # (moves, u)
        later = reach[t][flow.data, y]  # (moves, v)
        pairs = sum(
            (before * np.roll(later, -o, axis=1)).sum(axis=1, dtype=np.int64) for o in partners
        )  # u with u + o in later
        most = max(most, int(pairs.max(initial=0)))
    return ChainCheck(slots, longest, int(hops.min()), most)

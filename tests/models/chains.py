"""Fact 3d (docs/achievable.md) checked on a real all-reduce schedule, independently of
`models.achievable`: what each datum's lightpaths cross, and how many pairs at ring distance
floor(N/2) can have a chain through one lightpath, from the schedule's own data flow."""

from dataclasses import dataclass

import numpy as np

from models.stage import Schedule


def ring_distance(nodes: int, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per move, the ring distance between sender and receiver."""
    cw = (y - x) % nodes
    return np.minimum(cw, nodes - cw)


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
        distance = ring_distance(n, x, y)
        np.add.at(hops, flow.data, distance)
        longest = max(longest, int(distance.max(initial=0)))
        before = known[t - 1][flow.data, x]  # (moves, u)
        later = reach[t][flow.data, y]  # (moves, v)
        pairs = sum(
            (before * np.roll(later, -o, axis=1)).sum(axis=1, dtype=np.int64) for o in partners
        )  # u with u + o in later
        most = max(most, int(pairs.max(initial=0)))
    return ChainCheck(slots, longest, int(hops.min()), most)


@dataclass(frozen=True)
class EndCheck:
    slots: int
    longest: int  # the schedule's longest lightpath, in ring distance
    fan_in: int  # most moves of one datum a node receives in slot 1
    fan_out: int  # most moves of one datum a node sends in the last slot
    least_ends: int  # min over data of the hops of its moves in the first and last two (or
    # three) slots (added when those are different slots, else the larger of the two)


def end_check(schedule: Schedule, ends: int = 2) -> EndCheck:
    """Fact 3e (docs/achievable.md) measured on a schedule's data flow: per datum, the ring
    distance its moves cross in slots 1-2 and in the last two slots (Fact 3f, `ends` = 3:
    the first and last three)."""
    n, count = schedule.nodes, schedule.data_count
    nodes = schedule.endpoint_node
    flows = schedule.flows
    slots = len(flows)
    first, last = np.zeros(count, dtype=np.int64), np.zeros(count, dtype=np.int64)
    longest = 0
    for t, flow in enumerate(flows, start=1):
        x, y = nodes[flow.senders], nodes[flow.receivers]
        distance = ring_distance(n, x, y)
        longest = max(longest, int(distance.max(initial=0)))
        if t <= ends:
            np.add.at(first, flow.data, distance)
        if t > slots - ends:
            np.add.at(last, flow.data, distance)

    def most(endpoints: np.ndarray, data: np.ndarray) -> int:
        """Most moves of one datum at one node among these."""
        keys = nodes[endpoints] * count + data
        return int(np.bincount(keys).max(initial=0)) if len(keys) else 0

    fan_in = most(flows[0].receivers, flows[0].data) if slots else 0
    fan_out = most(flows[-1].senders, flows[-1].data) if slots else 0
    both = first + last if slots >= 2 * ends else np.maximum(first, last)
    return EndCheck(slots, longest, fan_in, fan_out, int(both.min()))


@dataclass(frozen=True)
class GossipCheck:
    slots: int
    longest: int  # the schedule's longest lightpath, in ring distance
    fan: int  # most distinct senders of one datum into one node in one slot
    fan_out: int  # most distinct receivers of one datum from one node in one slot
    most_new: tuple[int, ...]  # per slot, most contributions one move brings its receiver first
    least_hops: int  # min over data of the ring distances their moves cross together
    moves: int  # least moves of one datum


def gossip_check(schedule: Schedule) -> GossipCheck:
    """Fact 3g (docs/achievable.md) measured on a schedule's data flow: what each move brings
    its receiver first (the sender's knowledge K_{t-1}[e, x], all of it, less the receiver's:
    never fewer than the value it carries), the fan that bounds how knowledge grows, and per
    datum the moves and the ring distance they cross."""
    n, count = schedule.nodes, schedule.data_count
    nodes = schedule.endpoint_node
    known = np.broadcast_to(np.eye(n, dtype=bool), (count, n, n)).copy()
    hops = np.zeros(count, dtype=np.int64)
    moves = np.zeros(count, dtype=np.int64)
    longest, fan, fan_out, most_new = 0, 0, 0, []
    for flow in schedule.flows:
        x, y = nodes[flow.senders], nodes[flow.receivers]
        distance = ring_distance(n, x, y)
        np.add.at(hops, flow.data, distance)
        np.add.at(moves, flow.data, 1)
        longest = max(longest, int(distance.max(initial=0)))
        senders = {(int(e), int(b), int(a)) for e, a, b in zip(flow.data, x, y, strict=True)}
        per_receiver = np.bincount([e * n + b for e, b, _ in senders], minlength=1)
        fan = max(fan, int(per_receiver.max(initial=0)))
        per_sender = np.bincount([e * n + a for e, _, a in senders], minlength=1)
        fan_out = max(fan_out, int(per_sender.max(initial=0)))
        new = known[flow.data, x] & ~known[flow.data, y]  # (moves, u)
        most_new.append(int(new.sum(axis=1).max(initial=0)))
        after = known.copy()
        np.logical_or.at(after, (flow.data, y), known[flow.data, x])
        known = after
    assert known.all(), "the schedule leaves some node without some contribution"
    return GossipCheck(len(schedule.flows), longest, fan, fan_out, tuple(most_new), int(hops.min()),
                       int(moves.min()))

"""All-reduce algorithms: Ring, Recursive Doubling, Binary Tree, H-Ring, WRHT.

Every node starts with a full vector of d bytes; the vector is cut into C chunks (C = N for
Ring and H-Ring, C = 1 otherwise) and one chunk is one item on one unit lightpath. ADD flows
add the sender's partial sum into the receiver's; COPY flows overwrite it with the sender's
(fully reduced) chunk.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import numpy as np

from models import closed_forms as cf
from models.algorithms.allgather import (
    WRHT_PARAMS,
    wrht_candidates,
    wrht_fill,
    wrht_levels_by_rule,
    wrht_refusal,
    wrht_sketches,
    wrht_stages,
    wrht_tree,
)
from models.algorithms.base import (
    Algorithm,
    Collective,
    Params,
    ParamSpec,
    StageSketch,
    int_param,
)
from models.closed_forms import ClosedForm
from models.ring import Ring
from models.stage import Reduction, Schedule, Stage, StageFlow, frozen


def _schedule(ring: Ring, chunks: int, flows: list[StageFlow]) -> Schedule:
    n = ring.nodes
    return Schedule(Collective.ALLREDUCE, n, np.arange(n), chunks, tuple(flows))


def _is_power_of_two(n: int) -> bool:
    return n & (n - 1) == 0


class RingAllReduce(Algorithm):
    """Ring all-reduce (Patarasuk & Yuan): N - 1 reduce-scatter steps, N - 1 all-gather steps,
    each moving one d/N chunk to the clockwise neighbour."""

    collective = Collective.ALLREDUCE
    name = "ring"
    title = "Ring"
    source = "Patarasuk & Yuan 2009; WRHT Table I; optical-vs-electrical Table 1"
    formula = cf.RING_ALLREDUCE

    def data_per_message(self, ring: Ring, params: Params) -> int:
        return ring.nodes

    def schedule(self, ring: Ring, params: Params) -> Schedule:
        n = ring.nodes
        i = np.arange(n)
        senders, nxt = frozen(i), frozen((i + 1) % n)  # shared by every flow
        flows = [
            StageFlow.of(senders, nxt, (i - t) % n, Reduction.ADD, f"reduce-scatter {t + 1}")
            for t in range(n - 1)
        ]
        # After reduce-scatter node i holds chunk (i + 1) mod N fully reduced.
        flows += [
            StageFlow.of(senders, nxt, (i + 1 - t) % n, Reduction.COPY, f"all-gather {t + 1}")
            for t in range(n - 1)
        ]
        return _schedule(ring, n, flows)

    def reduces_then_broadcasts(self, ring: Ring, params: Params) -> bool:
        return True  # reduce-scatter then all-gather: chunk i's sum forms at its owner

    def closed_forms(self, ring: Ring, params: Params) -> list[ClosedForm]:
        return [self.formula.evaluate(ring.nodes)]


class RecursiveDoublingAllReduce(Algorithm):
    """Recursive doubling: in step t every node exchanges its partial sum with i XOR 2^t."""

    collective = Collective.ALLREDUCE
    name = "rd"
    title = "Recursive Doubling"
    source = "Thakur et al. 2005; optical-vs-electrical Sec. 4.1"
    formula = cf.RD_ALLREDUCE

    def refusal(self, ring: Ring, params: Params) -> str | None:
        n = ring.nodes
        if not _is_power_of_two(n):
            lower = 1 << (n.bit_length() - 1)
            return (
                f"recursive doubling pairs i with i XOR 2^t, so N must be a power of two; "
                f"use N={lower} or N={lower * 2}"
            )
        return None

    def schedule(self, ring: Ring, params: Params) -> Schedule:
        n = ring.nodes
        i = np.arange(n)
        zero = np.zeros(n, dtype=np.int64)
        flows = [
            StageFlow.of(i, i ^ (1 << t), zero, Reduction.ADD, f"step {t + 1} (distance {1 << t})")
            for t in range(n.bit_length() - 1)
        ]
        return _schedule(ring, 1, flows)

    def reduces_then_broadcasts(self, ring: Ring, params: Params) -> bool:
        return ring.nodes == 1  # every node adds its partner's: each sum forms at all N

    def closed_forms(self, ring: Ring, params: Params) -> list[ClosedForm]:
        n, w = ring.nodes, ring.wavelengths_per_fiber
        return [self.formula.evaluate(n, w), cf.RD_ALLREDUCE_ELECTRICAL.evaluate(n)]


class BinaryTreeAllReduce(Algorithm):
    """Binary tree (WRHT Sec. III-B, Fig. 2a): in reduce step i nodes form groups of 2^i
    consecutive nodes and the node at position 2^(i-1) sends to the first; broadcast reverses."""

    collective = Collective.ALLREDUCE
    name = "bt"
    title = "Binary Tree"
    source = "WRHT Sec. III-B, Fig. 2(a)"
    formula = cf.BT_ALLREDUCE

    def schedule(self, ring: Ring, params: Params) -> Schedule:
        n = ring.nodes
        levels = []
        for t in range(cf.ceil_log(2, n)):
            size, half = 1 << (t + 1), 1 << t
            first = np.arange(0, n, size)
            second = first + half
            keep = second < n
            levels.append((second[keep], first[keep]))
        flows = []
        for t, (child, parent) in enumerate(levels):
            zero = np.zeros(len(child), dtype=np.int64)
            flows.append(StageFlow.of(child, parent, zero, Reduction.ADD, f"reduce {t + 1}"))
        for t, (child, parent) in reversed(list(enumerate(levels))):
            zero = np.zeros(len(child), dtype=np.int64)
            flows.append(StageFlow.of(parent, child, zero, Reduction.COPY, f"broadcast {t + 1}"))
        return _schedule(ring, 1, flows)

    def reduces_then_broadcasts(self, ring: Ring, params: Params) -> bool:
        return True  # the sum forms at the root and is broadcast down the tree

    def closed_forms(self, ring: Ring, params: Params) -> list[ClosedForm]:
        return [self.formula.evaluate(ring.nodes)]


HRING_PAPER_GROUP = 5  # the only g the WRHT paper prints (Table I, N = 1000)


class HRingAllReduce(Algorithm):
    """Hierarchical ring (Ueno & Yokota 2019; WRHT Sec. III-D): reduce-scatter inside groups
    of g consecutive nodes, ring all-reduce across the N/g groups for each part, all-gather
    inside groups.

    Granularity as the algorithm moves data: an intra-group step sends one part of the
    vector (d/g, i.e. N/g chunks of d/N) to the next member as one transfer, so one unit
    lightpath carrying d/g; an inter-group step moves one chunk of d/N. Each step is thus
    one lightpath per node, which is what 2(g - 1) + 2(N/g - 1) steps count."""

    collective = Collective.ALLREDUCE
    name = "hring"
    title = "H-Ring"
    source = "Ueno & Yokota 2019, as cited in WRHT Sec. III-D"
    params = (
        ParamSpec(
            "group",
            "nodes per group (g); must divide N",
            1,
            None,
            default_rule="g = 5, the WRHT paper's (Table I); when 5 does not divide N, the "
            "divisor of N nearest 5 (the smaller on a tie)",
            maximum_rule="N",
        ),
    )
    formula = cf.HRING_ALLREDUCE

    def fill_defaults(self, ring: Ring, given: Params) -> Params:
        n = ring.nodes
        divisors = [x for x in range(1, n + 1) if n % x == 0]
        return {"group": min(divisors, key=lambda x: (abs(x - HRING_PAPER_GROUP), x)), **given}

    def shape_candidates(self, ring: Ring) -> Iterator[Params]:
        for g in range(1, ring.nodes + 1):
            if ring.nodes % g == 0:
                yield {"group": g}

    def refusal(self, ring: Ring, params: Params) -> str | None:
        n, g = ring.nodes, int_param(params, "group")
        if g > n or n % g:
            divisors = [x for x in range(2, min(n, 64) + 1) if n % x == 0]
            return f"group size g={g} must divide N={n}; divisors of N: {divisors}"
        return None

    def data_per_message(self, ring: Ring, params: Params) -> int:
        return ring.nodes

    def stages(self, ring: Ring, params: Params) -> list[Stage]:
        """Two distinct stages, every step one of them (tests: equal to the schedule's): an
        intra-group step (each node to the next member, one lightpath of N/g chunks) and an
        inter-group step (each node to its place in the next group, one chunk). At N = 8192
        the schedule's 16K flows took 12 s to build and aggregate."""
        n, g = ring.nodes, int_param(params, "group")
        groups = n // g
        node = np.arange(n, dtype=np.int64)
        pos, grp = node % g, node // g
        one = np.ones(n, dtype=np.int64)
        intra, inter = [], []
        if g > 1:
            step = Stage.from_demands(n, node, grp * g + (pos + 1) % g, one, pieces=n // g)
            intra = [replace(step, label=f"intra {{}} {t + 1}") for t in range(g - 1)]
        if groups > 1:
            step = Stage.from_demands(n, node, ((grp + 1) % groups) * g + pos, one)
            inter = [replace(step, label=f"inter {{}} {t + 1}") for t in range(groups - 1)]

        def named(stages: list[Stage], phase: str) -> list[Stage]:
            return [replace(s, label=s.label.format(phase)) for s in stages]

        return [
            *named(intra, "RS"),
            *named(inter, "RS"),
            *named(inter, "AG"),
            *named(intra, "AG"),
        ]

    def schedule(self, ring: Ring, params: Params) -> Schedule:
        n, g = ring.nodes, int_param(params, "group")
        groups = n // g
        part = n // g  # chunks per intra-group part: each member owns N/g chunks
        node = frozen(np.arange(n))
        pos, grp = node % g, node // g
        nxt = grp * g + (pos + 1) % g
        intra_senders, intra_receivers = frozen(np.repeat(node, part)), frozen(np.repeat(nxt, part))
        flows = []

        def part_chunks(parts: np.ndarray) -> np.ndarray:
            """The chunks of every node's part: node i sends `part` chunks of parts[i]."""
            return (np.repeat(parts, part) * part) + np.tile(np.arange(part), n)

        # Reduce-scatter in each group: step t, member p sends part (p - t) mod g to p + 1.
        for t in range(g - 1):
            c = part_chunks((pos - t) % g)
            flows.append(
                StageFlow.of(
                    intra_senders,
                    intra_receivers,
                    c,
                    Reduction.ADD,
                    f"intra RS {t + 1}",
                    bundle=part,
                )
            )
        # Member p now owns part (p + 1) mod g of its group. Ring all-reduce of that part across
        # groups: the part's N/g chunks are split one per group.
        own = (pos + 1) % g
        nxt_grp = frozen(((grp + 1) % groups) * g + pos)
        for t in range(groups - 1):
            c = own * part + (grp - t) % groups
            flows.append(StageFlow.of(node, nxt_grp, c, Reduction.ADD, f"inter RS {t + 1}"))
        for t in range(groups - 1):
            c = own * part + (grp + 1 - t) % groups
            flows.append(StageFlow.of(node, nxt_grp, c, Reduction.COPY, f"inter AG {t + 1}"))
        # All-gather in each group: step t, member p forwards part (p + 1 - t) mod g.
        for t in range(g - 1):
            c = part_chunks((pos + 1 - t) % g)
            flows.append(
                StageFlow.of(
                    intra_senders,
                    intra_receivers,
                    c,
                    Reduction.COPY,
                    f"intra AG {t + 1}",
                    bundle=part,
                )
            )
        return _schedule(ring, n, flows)

    def reduces_then_broadcasts(self, ring: Ring, params: Params) -> bool:
        return True  # reduce-scatters in and across groups, then all-gathers

    def closed_forms(self, ring: Ring, params: Params) -> list[ClosedForm]:
        n, g, w = ring.nodes, int_param(params, "group"), ring.wavelengths_per_fiber
        return [self.formula.evaluate(n, g, w)]


class WrhtAllReduce(Algorithm):
    """WRHT (WRHT Sec. III-C): groups of m consecutive nodes reduce to their middle node for
    ceil(log_m N) - 1 levels, the remaining representatives reduce all-to-all, and the result
    is broadcast back down the same tree."""

    collective = Collective.ALLREDUCE
    name = "wrht"
    title = "WRHT"
    source = "Dai et al., WRHT, ICPP 2023, Sec. III-C"
    params = WRHT_PARAMS
    formula = cf.WRHT_ALLREDUCE

    def fill_defaults(self, ring: Ring, given: Params) -> Params:
        return wrht_fill(ring, given)

    def refusal(self, ring: Ring, params: Params) -> str | None:
        return wrht_refusal(ring, params)

    def shape_candidates(self, ring: Ring) -> Iterator[Params]:
        yield from wrht_candidates(ring)

    def stages(self, ring: Ring, params: Params) -> list[Stage]:
        """One lightpath per pair of the tree, built from its arrays (tests: equal to the
        schedule's)."""
        return wrht_stages(ring, params, reduce=True)

    def stage_sketches(self, ring: Ring, params: Params) -> list[StageSketch]:
        return wrht_sketches(ring, params, reduce=True)

    def schedule(self, ring: Ring, params: Params) -> Schedule:
        n, m = ring.nodes, int_param(params, "group")
        levels, top = wrht_tree(n, m, int_param(params, "levels"))
        flows = []

        def flow(pairs: list[tuple[int, int]], op: Reduction, label: str) -> StageFlow:
            s = [a for a, _ in pairs]
            r = [b for _, b in pairs]
            return StageFlow.of(s, r, np.zeros(len(pairs), dtype=np.int64), op, label)

        for depth, level in enumerate(levels, start=1):
            pairs = [(x, rep) for rep, members in level for x in members if x != rep]
            flows.append(flow(pairs, Reduction.ADD, f"reduce level {depth}"))
        if len(top) > 1:
            pairs = [(a, b) for a in top for b in top if a != b]
            flows.append(flow(pairs, Reduction.ADD, "all-to-all among representatives"))
        for depth, level in reversed(list(enumerate(levels, start=1))):
            pairs = [(rep, x) for rep, members in level for x in members if x != rep]
            flows.append(flow(pairs, Reduction.COPY, f"broadcast level {depth}"))
        return _schedule(ring, 1, flows)

    def reduces_then_broadcasts(self, ring: Ring, params: Params) -> bool:
        # the representatives left at the top reduce all-to-all: each forms every sum
        _, top = wrht_tree(ring.nodes, int_param(params, "group"), int_param(params, "levels"))
        return len(top) <= 1

    def closed_forms(self, ring: Ring, params: Params) -> list[ClosedForm]:
        n, m, w = ring.nodes, int_param(params, "group"), ring.wavelengths_per_fiber
        with_all_to_all, without = cf.wrht_allreduce_steps(n, m)
        levels = int_param(params, "levels")
        _, top = wrht_tree(n, m, levels)
        # Sec. III-D: 2 ceil(log_m N) - 1 when the last reduce step is the representatives'
        # all-to-all, else 2 ceil(log_m N); value is the case this shape is in.
        value, alternative = (
            (without, with_all_to_all) if len(top) > 1 else (with_all_to_all, without)
        )
        note = ""
        if levels != wrht_levels_by_rule(n, m, w):
            note = "levels differ from the paper's stopping rule; the formula assumes the rule"
        return [
            self.formula.at(value, alternative, note),
            cf.WRHT_LOWER_BOUND.evaluate(n, w),
            cf.WRHT_GROUP_WAVELENGTHS.evaluate(m),
            cf.WRHT_LAST_STEP_WAVELENGTHS.evaluate(n, m),
        ]

"""All-gather algorithms: Ring, Neighbor Exchange, one-stage model, WRHT, OpTree.

Item = each node's contribution d (the OpTree journal's d, eq. (3)); a unit lightpath carries
one item. Node i starts with item i and must end with all N items.
"""

from __future__ import annotations

import math

import numpy as np

from models import closed_forms as cf
from models.algorithms.base import (
    Algorithm,
    ClosedForm,
    Collective,
    Params,
    ParamSpec,
    int_param,
)
from models.algorithms.holdings import Holdings
from models.ring import Ring
from models.stage import Schedule, StageFlow


def _schedule(ring: Ring, flows: list[StageFlow]) -> Schedule:
    n = ring.nodes
    return Schedule(Collective.ALLGATHER, n, np.arange(n), n, tuple(flows))


class RingAllGather(Algorithm):
    """Ring all-gather: in step t node i forwards item (i - t) mod N to node i + 1."""

    collective = Collective.ALLGATHER
    name = "ring"
    title = "Ring"
    source = "Chen et al. 2005, as summarised in OpTree journal Sec. IV-A.2"
    steps_formula = "N - 1"
    steps_source = "OpTree journal, Table 1"

    def schedule(self, ring: Ring, params: Params) -> Schedule:
        n = ring.nodes
        i = np.arange(n)
        flows = [
            StageFlow.of(i, (i + 1) % n, (i - t) % n, label=f"step {t + 1}") for t in range(n - 1)
        ]
        return _schedule(ring, flows)

    def closed_forms(self, ring: Ring, params: Params) -> list[ClosedForm]:
        value = cf.ring_allgather_steps(ring.nodes)
        return [ClosedForm("steps", self.steps_formula, self.steps_source, value)]


class NeighborExchangeAllGather(Algorithm):
    """Neighbor Exchange (Chen et al. 2005): step 1 swaps items with one neighbour, then
    alternating neighbours forward the two items received in the previous step; N/2 steps."""

    collective = Collective.ALLGATHER
    name = "ne"
    title = "Neighbor Exchange"
    source = "Chen et al. 2005, as summarised in OpTree journal Sec. IV-A.2"
    steps_formula = "N / 2"
    steps_source = "OpTree journal, Table 1"

    def refusal(self, ring: Ring, params: Params) -> str | None:
        if ring.nodes % 2:
            return (
                "Neighbor Exchange pairs nodes, so N must be even; use "
                f"N={ring.nodes - 1} or N={ring.nodes + 1}, or the ring algorithm"
            )
        return None

    def schedule(self, ring: Ring, params: Params) -> Schedule:
        n = ring.nodes
        i = np.arange(n)
        even = i % 2 == 0
        first = np.where(even, i + 1, i - 1) % n
        second = np.where(even, i - 1, i + 1) % n
        flows = [StageFlow.of(i, first, i, label="step 1")]
        # After step 1 node i holds {i, first[i]}; it forwards both, then what it last got.
        payload = np.stack([i, first], axis=1)
        for t in range(1, n // 2):
            partner = second if t % 2 else first
            senders = np.repeat(i, 2)
            flows.append(
                StageFlow.of(
                    senders, np.repeat(partner, 2), payload.reshape(-1), label=f"step {t + 1}"
                )
            )
            # Pairing is symmetric: node i just received what partner[i] sent.
            payload = payload[partner]
        return _schedule(ring, flows)

    def closed_forms(self, ring: Ring, params: Params) -> list[ClosedForm]:
        value = cf.ne_allgather_steps(ring.nodes)
        return [ClosedForm("steps", self.steps_formula, self.steps_source, value)]


class OneStageAllGather(Algorithm):
    """One-stage model (OSM): every node sends its item straight to every other node."""

    collective = Collective.ALLGATHER
    name = "osm"
    title = "One-stage model"
    source = "OpTree journal Lemma 1 and Table 1 (after Liang & Shen 2006)"
    steps_formula = "ceil(N^2 / (8 w))"
    steps_source = "OpTree journal, Table 1"

    def schedule(self, ring: Ring, params: Params) -> Schedule:
        n = ring.nodes
        s = np.repeat(np.arange(n), n)
        d = np.tile(np.arange(n), n)
        keep = s != d
        return _schedule(ring, [StageFlow.of(s[keep], d[keep], s[keep], label="one stage")])

    def closed_forms(self, ring: Ring, params: Params) -> list[ClosedForm]:
        n, w = ring.nodes, ring.wavelengths_per_fiber
        return [
            ClosedForm(
                "steps", self.steps_formula, self.steps_source, cf.osm_allgather_steps(n, w)
            ),
            ClosedForm(
                "wavelengths",
                "ceil(N^2 / 8)",
                "OpTree journal, Lemma 1",
                cf.one_stage_ring_wavelengths(n),
            ),
        ]


def wrht_levels(nodes: int, group: int) -> int:
    """theta - 1 gather levels of WRHT (theta = ceil(log_m N)); WRHT Sec. III-C.1."""
    return max(cf.ceil_log(group, nodes) - 1, 0)


def wrht_tree(nodes: int, group: int) -> tuple[list[list[tuple[int, list[int]]]], list[int]]:
    """WRHT's hierarchy: per gather level, the groups as (representative, members), and the
    final representatives. Groups are m consecutive (previous) representatives along the
    ring, the last one shorter; the middle member (index len // 2) represents the group."""
    reps = list(range(nodes))
    levels: list[list[tuple[int, list[int]]]] = []
    for _ in range(wrht_levels(nodes, group)):
        level = []
        for lo in range(0, len(reps), group):
            members = reps[lo : lo + group]
            level.append((members[len(members) // 2], members))
        levels.append(level)
        reps = [rep for rep, _ in level]
    return levels, reps


class WrhtAllGather(Algorithm):
    """WRHT routing without reduction (OpTree journal Sec. IV-A.2): members send everything
    they hold to their group's middle node for theta - 1 levels, the final representatives
    exchange all-to-all, then every level is broadcast back down."""

    collective = Collective.ALLGATHER
    name = "wrht"
    title = "WRHT (all-gather variant)"
    source = "OpTree journal Sec. IV-A.2, routing of WRHT (Dai et al. ICPP 2023)"
    params = (
        ParamSpec(
            "group",
            "nodes per WRHT group (m)",
            2,
            None,
            default_rule="2w + 1 (the m-bar of OpTree journal Table 1)",
        ),
    )
    steps_formula = "1 + ceil((m^theta - m) / (m - 1)) + (theta - 1) m^(theta - 1), m = 2w + 1"
    steps_source = "OpTree journal, Table 1"

    def fill_defaults(self, ring: Ring, given: Params) -> Params:
        return {"group": 2 * ring.wavelengths_per_fiber + 1, **given}

    def schedule(self, ring: Ring, params: Params) -> Schedule:
        n, m = ring.nodes, int_param(params, "group")
        levels, top = wrht_tree(n, m)
        hold = Holdings(n)
        flows = []
        for depth, level in enumerate(levels, start=1):
            pairs = [(x, rep) for rep, members in level for x in members if x != rep]
            s, r = zip(*pairs, strict=True) if pairs else ((), ())
            flows.append(hold.stage(s, r, f"gather level {depth}"))
        if len(top) > 1:
            senders = [a for a in top for b in top if a != b]
            receivers = [b for a in top for b in top if a != b]
            flows.append(hold.stage(senders, receivers, "all-to-all among representatives"))
        for depth, level in reversed(list(enumerate(levels, start=1))):
            pairs = [(rep, x) for rep, members in level for x in members if x != rep]
            s, r = zip(*pairs, strict=True) if pairs else ((), ())
            flows.append(hold.stage(s, r, f"broadcast level {depth}"))
        return _schedule(ring, flows)

    def closed_forms(self, ring: Ring, params: Params) -> list[ClosedForm]:
        n, w = ring.nodes, ring.wavelengths_per_fiber
        note = ""
        if int_param(params, "group") != 2 * w + 1:
            note = "the closed form fixes m = 2w + 1; the schedule uses the given group size"
        return [
            ClosedForm(
                "steps",
                self.steps_formula,
                self.steps_source,
                cf.wrht_allgather_steps(n, w),
                cf.wrht_allgather_steps_alternative(n, w),
                note,
            )
        ]


def optree_default_branching(nodes: int, stages: int) -> tuple[int, ...]:
    """Integer branching factors for a k-stage OpTree covering N.

    The paper's m = N^(1/k) is rarely an integer. We start from max(2, floor(m)) at every
    level and add 1 to levels in order (first level first) until the product reaches N, so
    the factors differ by at most one and their product is the least of that shape >= N."""
    base = max(2, math.floor(nodes ** (1 / stages) + 1e-9))
    factors = [base] * stages
    i = 0
    while math.prod(factors) < nodes:
        factors[i] += 1
        i = (i + 1) % stages
    return tuple(factors)


def _balanced_children(start: int, size: int, count: int) -> list[tuple[int, int]]:
    q, r = divmod(size, count)
    out, at = [], start
    for c in range(count):
        length = q + (1 if c < r else 0)
        out.append((at, length))
        at += length
    return out


def optree_pairs(nodes: int, branching: tuple[int, ...]) -> list[list[tuple[int, int]]]:
    """(sender, receiver) pairs of each OpTree stage (OpTree journal Sec. IV-A.1).

    Stage j splits every current group (a contiguous segment) into m_j children of balanced
    sizes; the nodes at the same position in sibling children exchange all-to-all. When the
    children differ in size, a shorter child has no node at the last position; its last node
    then also listens to that position (it receives, sends nothing extra), so every item still
    reaches every child. With N = prod(m_j) this is exactly the paper's tree."""
    groups = [(0, nodes)]
    stages: list[list[tuple[int, int]]] = []
    for m in branching:
        pairs: list[tuple[int, int]] = []
        next_groups: list[tuple[int, int]] = []
        for start, size in groups:
            if size == 1:
                next_groups.append((start, size))
                continue
            children = _balanced_children(start, size, min(m, size))
            longest = max(length for _, length in children)
            for pos in range(longest):
                members = [s + pos for s, length in children if length > pos]
                listeners = [s + length - 1 for s, length in children if length <= pos]
                pairs.extend((a, b) for a in members for b in members + listeners if a != b)
            next_groups.extend(children)
        stages.append(pairs)
        groups = next_groups
    return stages


class OpTreeAllGather(Algorithm):
    """OpTree (OpTree journal Sec. IV-A): a k-level tree; in stage j the nodes at the same
    position of sibling subgroups exchange everything they hold by one-stage routing."""

    collective = Collective.ALLGATHER
    name = "optree"
    title = "OpTree"
    source = "Dai et al., OpTree journal Sec. IV-A"
    params = (
        ParamSpec(
            "stages",
            "tree depth k (number of stages)",
            1,
            None,
            default_rule="k* of Lemma 3 / eq. (2); N <= 7, where k* is undefined: 1",
        ),
        ParamSpec(
            "branching",
            "branching factor of each level, comma-separated; product must be >= N",
            2,
            None,
            default_rule="floor(N^(1/k)) at every level, raised by one level at a time "
            "(first levels first) until the product covers N",
            is_list=True,
        ),
    )
    steps_formula = (
        "ceil((2k* - 1) N^(1 + 1/k*) / (8 w)), k* = ceil((ln N + sqrt(ln N (ln N - 2))) / 2)"
    )
    steps_source = "OpTree journal, Theorem 2 with eq. (1) and eq. (2)"

    def fill_defaults(self, ring: Ring, given: Params) -> Params:
        out = dict(given)
        if "branching" in out:
            branching = out["branching"]
            assert isinstance(branching, tuple)
            out.setdefault("stages", len(branching))
        else:
            if "stages" not in out:
                out["stages"] = cf.optree_k_star(ring.nodes) or 1
            out["branching"] = optree_default_branching(ring.nodes, int_param(out, "stages"))
        return out

    def refusal(self, ring: Ring, params: Params) -> str | None:
        branching = params["branching"]
        assert isinstance(branching, tuple)
        if len(branching) != params["stages"]:
            return f"stages={params['stages']} but {len(branching)} branching factors given"
        if math.prod(branching) < ring.nodes:
            return (
                f"branching factors {','.join(map(str, branching))} cover only "
                f"{math.prod(branching)} nodes; their product must be >= {ring.nodes}"
            )
        return None

    def schedule(self, ring: Ring, params: Params) -> Schedule:
        branching = params["branching"]
        assert isinstance(branching, tuple)
        hold = Holdings(ring.nodes)
        flows = []
        for j, pairs in enumerate(optree_pairs(ring.nodes, branching), start=1):
            s, r = zip(*pairs, strict=True) if pairs else ((), ())
            flows.append(hold.stage(s, r, f"stage {j} (m={branching[j - 1]})"))
        return _schedule(ring, flows)

    def closed_forms(self, ring: Ring, params: Params) -> list[ClosedForm]:
        n, w = ring.nodes, ring.wavelengths_per_fiber
        k_star = cf.optree_k_star(n)
        k = int_param(params, "stages")
        forms = [
            ClosedForm(
                "steps",
                self.steps_formula,
                self.steps_source,
                cf.optree_steps_optimal(n, w),
                note="" if k_star is not None else "k* undefined for N <= 7 (ln N < 2)",
            ),
            ClosedForm(
                "k_star",
                "ceil((ln N + sqrt(ln N (ln N - 2))) / 2)",
                "OpTree journal, Lemma 3 / eq. (2)",
                k_star,
            ),
        ]
        if k >= 2:
            forms.append(
                ClosedForm(
                    "steps_at_k",
                    "ceil((2k - 1) N^(1 + 1/k) / (8 w)) at the chosen k",
                    "OpTree journal, Theorem 1 / eq. (1)",
                    cf.optree_steps(n, w, k),
                )
            )
            per_stage = cf.optree_stage_steps_from_proof(n, w, k)
            forms.append(
                ClosedForm(
                    "steps_sum_of_proof_stages",
                    "ceil(m^2/(8w)) ceil(N/m) + (k - 1) ceil(m^2/(4w)) ceil(N/m), m = N^(1/k)",
                    "OpTree journal, proof of Theorem 1",
                    sum(per_stage),
                )
            )
            forms.append(
                ClosedForm(
                    "max_path_hops",
                    "1 + (N^(1/k) - 1) N^(1 - 1/k)",
                    "OpTree journal, eq. (4)",
                    cf.optree_max_path_hops(n, k),
                )
            )
        return forms

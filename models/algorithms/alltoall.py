"""All-to-all algorithms: tunable-radix TRA and two-layer TRA2 (TRA paper Sec. III-IV).

Each process starts with P blocks, block (s, t) destined to process t; one block is one item
on a unit lightpath (message_bytes = a process's whole send buffer; block = message / P).
TRA moves block (s, t) through the processes s + partial sums of the base-r digits of
i = (t - s) mod P: in round (x, z) every process sends the blocks it holds whose digit x is z
to process p + z r^x (Sec. III, step 2). Blocks keep their index i, so they arrive at s + i = t.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import numpy.typing as npt

from models import closed_forms as cf
from models.algorithms.base import Algorithm, Collective, Params, ParamSpec, int_param
from models.closed_forms import ClosedForm
from models.dataflow import MessageCounts, count_messages
from models.errors import AlgorithmRefusedError
from models.relay import relay_lengths, relayed_flow, relayed_shift_stages
from models.ring import Ring
from models.stage import Schedule, Stage, StageFlow

TRA2_PAPER_PROCESSES_PER_NODE = 64  # TRA Sec. V: MPI-everywhere, 64 ranks per Theta node
MAX_PROCESSES_PER_NODE = 1024
SIMULATED_BLOCKS_LIMIT = 2**26  # P^2 blocks tracked one by one by the data-flow simulator
COUNTED_BLOCKS_LIMIT = 2**22  # P^2 blocks up to which a plan counts K and D block by block
MAX_PLAN_LIGHTPATHS = 20_000_000  # every unit lightpath is assigned, stored and checked

IntArray = npt.NDArray[np.int64]


def tra_rounds_list(processes: int, radix: int) -> list[tuple[int, int]]:
    """The (x, z) rounds that carry at least one block, in the paper's loop order."""
    w = cf.tra_digits(processes, radix)
    return [
        (x, z)
        for x in range(w)
        for z in range(1, radix)
        if z * radix**x < processes  # some i < P has digit x equal to z
    ]


def digit_count(processes: int, radix: int, digit: int, value: int) -> int:
    """How many indices i in [0, P) have base-r digit `digit` equal to `value` (value >= 1):
    full cycles of r^(x+1) give r^x each, the rest what lies past value r^x. Counted, not
    taken from Proposition 4 (tests compare both with the schedule)."""
    rx: int = radix**digit
    cycle = rx * radix
    return (processes // cycle) * rx + min(max(processes % cycle - value * rx, 0), rx)


def tra_shift_arrays(processes: int, radix: int) -> tuple[IntArray, IntArray]:
    """`tra_shift_rounds` as arrays (shifts, h), in the same order, without a Python step
    per round (radix P has P - 1 rounds; the search bounds every radix)."""
    shifts, counts = [], []
    rx = 1
    for _ in range(cf.tra_digits(processes, radix)):
        z = np.arange(1, radix, dtype=np.int64)
        z = z[z * rx < processes]
        cycle = rx * radix
        shifts.append(z * rx)
        counts.append((processes // cycle) * rx + np.clip(processes % cycle - z * rx, 0, rx))
        rx = cycle
    if not shifts:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate(shifts), np.concatenate(counts)


def relayed_shift_arrays(
    nodes: int, shifts: IntArray, counts: IntArray, relay: int
) -> tuple[IntArray, IntArray, IntArray]:
    """`_relayed_rounds` as arrays (hop lengths up to sign, counts, how many stages of each):
    a round whose shorter arc d exceeds `relay` is ceil(d / relay) stages, `extra` of
    floor + 1 hops and the rest of floor (relay_lengths); the bound of a shift depends only
    on its length up to sign."""
    ones = np.ones(len(shifts), dtype=np.int64)
    if not relay:
        return shifts % nodes, counts, ones
    cw = shifts % nodes
    distance = np.minimum(cw, nodes - cw)
    hops = np.maximum(1, -(-distance // relay))
    base, extra = distance // hops, distance % hops
    single = distance <= relay
    lengths = np.concatenate([np.where(single, cw, base + 1), base])
    times = np.concatenate([np.where(single, ones, extra), np.where(single, 0, hops - extra)])
    doubled = np.concatenate([counts, counts])
    keep = times > 0
    return lengths[keep], doubled[keep], times[keep]


def tra_shift_rounds(processes: int, radix: int) -> list[tuple[int, int]]:
    """Per TRA round (x, z): every process sends h blocks to process p + z r^x, where h is
    the number of block indices with digit x equal to z (the same for every process, as
    every process holds one block of every index). Returns (shift, h) per round."""
    return [
        (z * radix**x, digit_count(processes, radix, x, z))
        for x, z in tra_rounds_list(processes, radix)
    ]


def _tra_flows(
    lanes: IntArray,
    lane_size: int,
    radix: int,
    index: IntArray,
    holder_of: IntArray,
    to_endpoint: IntArray,
    label: str,
) -> tuple[list[StageFlow], IntArray]:
    """Rounds of TRA over `lane_size` ranks for a set of blocks.

    `index[b]` is block b's TRA index i (its digits decide its hops), `holder_of[b]` its
    current rank in its lane, `lanes[b]` an offset mapping (lane, rank) to an endpoint via
    `to_endpoint[lanes[b] + rank]`. Returns the flows and the final ranks."""
    flows = []
    rank = holder_of.copy()
    rounds = tra_rounds_list(lane_size, radix)
    for x in sorted({x for x, _ in rounds}):
        digit = (index // radix**x) % radix
        # numpy's stable sort is a radix sort on 16-bit keys: 3x faster on P^2 blocks
        keys = digit.astype(np.int16) if radix <= np.iinfo(np.int16).max else digit
        order = np.argsort(keys, kind="stable")
        bounds = np.searchsorted(digit[order], np.arange(radix + 1))
        for z in (z for xx, z in rounds if xx == x):
            moving = order[bounds[z] : bounds[z + 1]]
            dest = (rank[moving] + z * radix**x) % lane_size
            flows.append(
                StageFlow.of(
                    to_endpoint[lanes[moving] + rank[moving]],
                    to_endpoint[lanes[moving] + dest],
                    moving,
                    label=f"{label} round x={x} z={z}",
                )
            )
            rank[moving] = dest
    return flows, rank


RELAY = ParamSpec(
    "relay_hops",
    "0: the paper's rounds (one lightpath per move); H > 0: a round whose moves are longer "
    "than H hops is relayed along the shorter arc in hops of at most H (store-and-forward)",
    0,
    None,
    default_rule="0, or the plan's max_lightpath_hops when one is set",
)


class Relayable:
    """TRA and TRA2 within a hop limit: `hop_limit` is offered to the shape search as a relay
    length beside the paper's rounds; `enforced` (the request set max_lightpath_hops) makes
    it the default and drops the unrelayed rounds, which could not keep to it."""

    def __init__(self, hop_limit: int | None = None, enforced: bool = False) -> None:
        self.hop_limit = hop_limit
        self.enforced = enforced and hop_limit is not None

    def _relay_default(self) -> int:
        return self.hop_limit if self.enforced and self.hop_limit else 0

    def _relays(self, nodes: int) -> list[int]:
        """Relay lengths the search tries: 0 (the paper's) unless enforced, and the limit
        when some move could be longer than it."""
        out = [] if self.enforced else [0]
        if self.hop_limit and self.hop_limit < nodes // 2:
            out.append(self.hop_limit)
        return out or [0]


def _relayed_rounds(
    nodes: int, rounds: list[tuple[int, int]], relay: int
) -> list[tuple[int, int]]:
    """(shift, count) per stage once every round is relayed within `relay` hops."""
    if not relay:
        return rounds
    return [
        (hop % nodes, count)
        for shift, count in rounds
        for hop in relay_lengths(nodes, shift, relay)
    ]


class TunableRadixAllToAll(Relayable, Algorithm):
    """TRA with radix r (2 = Bruck, P = spread-out); one process per node, so P = N."""

    collective = Collective.ALLTOALL
    name = "tra"
    title = "Tunable-radix all-to-all (TRA)"
    source = "TRA paper Sec. III"
    params = (
        ParamSpec(
            "radix",
            "radix r, 2 (Bruck) .. P (spread-out)",
            2,
            None,
            default_rule="ceil(sqrt(P)) (TRA Sec. III-B)",
            maximum_rule="P",
        ),
        RELAY,
    )
    formula = cf.TRA_ROUNDS

    def fill_defaults(self, ring: Ring, given: Params) -> Params:
        return {
            "radix": max(2, cf.tra_optimal_radix(ring.nodes)),
            "relay_hops": self._relay_default(),
            **given,
        }

    def shape_candidates(self, ring: Ring) -> Iterator[Params]:
        for relay in self._relays(ring.nodes):
            for r in range(2, ring.nodes + 1):
                yield {"radix": r, "relay_hops": relay}

    def message_counts(self, ring: Ring, params: Params) -> tuple[MessageCounts, str]:
        """K and D counted on the schedule (SPEC section 8) up to COUNTED_BLOCKS_LIMIT blocks,
        beyond that on its rounds (each round sends h blocks per process; tests: both agree);
        and where they were counted. At P = 4096 the schedule's count alone took 3.4 s and
        1.3 GB of a 21 s plan."""
        p = ring.nodes
        if p * p <= COUNTED_BLOCKS_LIMIT:  # the MPI algorithm's rounds: relays are optical
            return count_messages(self.schedule(ring, {**params, "relay_hops": 0})), "schedule"
        rounds = tra_shift_rounds(p, int_param(params, "radix"))
        return MessageCounts(len(rounds), sum(h for _, h in rounds)), "rounds"

    def shift_rounds(self, ring: Ring, params: Params) -> list[tuple[int, int]]:
        """(shift, lightpaths per node) of every stage (a relayed round is several)."""
        rounds = tra_shift_rounds(ring.nodes, int_param(params, "radix"))
        return _relayed_rounds(ring.nodes, rounds, int_param(params, "relay_hops"))

    def shift_round_arrays(
        self, ring: Ring, params: Params
    ) -> tuple[IntArray, IntArray, IntArray] | None:
        shifts, counts = tra_shift_arrays(ring.nodes, int_param(params, "radix"))
        return relayed_shift_arrays(ring.nodes, shifts, counts, int_param(params, "relay_hops"))

    def stages(self, ring: Ring, params: Params) -> list[Stage]:
        rounds = tra_rounds_list(ring.nodes, int_param(params, "radix"))
        relay = int_param(params, "relay_hops")
        shifts = tra_shift_rounds(ring.nodes, int_param(params, "radix"))
        return [
            stage
            for (x, z), (shift, h) in zip(rounds, shifts, strict=True)
            for stage in relayed_shift_stages(ring.nodes, shift, h, relay, f"TRA round x={x} z={z}")
        ]

    def refusal(self, ring: Ring, params: Params) -> str | None:
        r = int_param(params, "radix")
        if r > ring.nodes:
            return f"radix r={r} exceeds P=N={ring.nodes}; use 2 <= r <= {ring.nodes}"
        return None

    def data_per_message(self, ring: Ring, params: Params) -> int:
        return ring.nodes

    def schedule(self, ring: Ring, params: Params) -> Schedule:
        p, r = ring.nodes, int_param(params, "radix")
        src, dst = np.divmod(np.arange(p * p), p)
        blocks = src != dst
        # Block ids stay src * P + dst; blocks to self never move.
        index = np.where(blocks, (dst - src) % p, 0)
        flows, _ = _tra_flows(
            np.zeros(p * p, dtype=np.int64), p, r, index, src, np.arange(p), "TRA"
        )
        relay, nodes = int_param(params, "relay_hops"), np.arange(p)
        relayed = [f for flow in flows for f in relayed_flow(flow, nodes, p, relay)]
        return Schedule(Collective.ALLTOALL, p, nodes, p * p, tuple(relayed))

    def closed_forms(self, ring: Ring, params: Params) -> list[ClosedForm]:
        p, r = ring.nodes, int_param(params, "radix")
        return [
            self.formula.evaluate(p, r),
            cf.TRA_BLOCKS.evaluate(p, r),
            cf.TRA_OPTIMAL_RADIX.evaluate(p),
        ]


class TwoLayerTunableRadixAllToAll(Relayable, Algorithm):
    """TRA2 (TRA paper Sec. IV) with Q processes per ring node, P = N Q.

    Intra-node phase (radix r1, shared memory, no lightpath): process (n, q) routes every block
    for processes (*, q') to its local peer (n, q'). Inter-node phase (radix r2): lane q' runs
    TRA over the N nodes, carrying each node-to-node bundle of Q blocks together."""

    collective = Collective.ALLTOALL
    name = "tra2"
    title = "Two-layer tunable-radix all-to-all (TRA2)"
    source = "TRA paper Sec. IV"
    params = (
        ParamSpec(
            "processes_per_node",
            "Q, processes per ring node",
            1,
            TRA2_PAPER_PROCESSES_PER_NODE,
            "64 (TRA Sec. V: one MPI rank per core, 64 cores per Theta node)",
            maximum_rule=str(MAX_PROCESSES_PER_NODE),
        ),
        ParamSpec(
            "radix_intra",
            "r1, intra-node radix",
            2,
            None,
            default_rule="ceil(sqrt(Q)), >= 2 (TRA Sec. V-C)",
            maximum_rule="max(2, Q)",
        ),
        ParamSpec(
            "radix_inter",
            "r2, inter-node radix",
            2,
            None,
            default_rule="N (TRA Sec. V-C)",
            maximum_rule="N",
        ),
        RELAY,
    )
    formula = cf.TRA2_ROUNDS

    def fill_defaults(self, ring: Ring, given: Params) -> Params:
        q = (
            int_param(given, "processes_per_node")
            if "processes_per_node" in given
            else TRA2_PAPER_PROCESSES_PER_NODE
        )
        return {
            "processes_per_node": q,
            "radix_intra": max(2, cf.tra_optimal_radix(q)),
            "radix_inter": ring.nodes,
            "relay_hops": self._relay_default(),
            **given,
        }

    def refusal(self, ring: Ring, params: Params) -> str | None:
        q = int_param(params, "processes_per_node")
        r1, r2 = int_param(params, "radix_intra"), int_param(params, "radix_inter")
        if r2 > ring.nodes:
            return f"radix_inter={r2} exceeds N={ring.nodes}; use 2 <= radix_inter <= N"
        if q > MAX_PROCESSES_PER_NODE:
            return f"Q={q} processes per node; use at most {MAX_PROCESSES_PER_NODE}"
        if r1 > max(2, q):
            return f"radix_intra={r1} exceeds Q={q}; use 2 <= radix_intra <= max(2, Q)"
        total = ring.nodes * q * q * cf.tra_blocks(ring.nodes, r2)
        if total > MAX_PLAN_LIGHTPATHS:
            fits = max(
                (
                    x
                    for x in range(1, q + 1)
                    if ring.nodes * x * x * cf.tra_blocks(ring.nodes, r2) <= MAX_PLAN_LIGHTPATHS
                ),
                default=0,
            )
            return (
                f"Q={q} processes per node move N Q^2 D = {total:.3g} unit lightpaths over the "
                f"ring (limit {MAX_PLAN_LIGHTPATHS:.3g}: each is assigned, checked and stored); "
                + (f"use processes_per_node <= {fits}" if fits else "use a smaller ring")
            )
        return None

    def shape_candidates(self, ring: Ring) -> Iterator[Params]:
        """Every r2; r1 stays the paper's: the intra-node phase uses shared memory, no
        lightpath, so r1 cannot change optical steps or time."""
        paper = self.paper_shape(ring)
        for relay in self._relays(ring.nodes):
            for r2 in range(2, ring.nodes + 1):
                yield {**paper, "radix_inter": r2, "relay_hops": relay}

    def message_counts(self, ring: Ring, params: Params) -> tuple[MessageCounts, str]:
        """K and D counted on the block-by-block schedule when it fits the simulator; beyond
        that, on its rounds: an intra round sends N blocks per block index (one per
        destination node), an inter round Q blocks per index (tests: both agree)."""
        n, q = ring.nodes, int_param(params, "processes_per_node")
        if (n * q) ** 2 <= COUNTED_BLOCKS_LIMIT:  # the MPI rounds: relays are optical
            return count_messages(self.schedule(ring, {**params, "relay_hops": 0})), "schedule"
        r1, r2 = int_param(params, "radix_intra"), int_param(params, "radix_inter")
        intra = tra_shift_rounds(q, r1) if q > 1 else []
        inter = tra_shift_rounds(n, r2)
        sent = sum(h * n for _, h in intra) + sum(h * q for _, h in inter)
        return MessageCounts(len(intra) + len(inter), sent), "rounds"

    def shift_rounds(self, ring: Ring, params: Params) -> list[tuple[int, int]]:
        """(shift, lightpaths per node) of every inter-node round: node n's Q lane processes
        each send Q blocks (one per local source) per block index whose digit x is z, to
        node n + z r2^x: Q^2 h unit lightpaths per node."""
        q = int_param(params, "processes_per_node")
        rounds = [
            (shift, q * q * h)
            for shift, h in tra_shift_rounds(ring.nodes, int_param(params, "radix_inter"))
        ]
        return _relayed_rounds(ring.nodes, rounds, int_param(params, "relay_hops"))

    def shift_round_arrays(
        self, ring: Ring, params: Params
    ) -> tuple[IntArray, IntArray, IntArray] | None:
        q = int_param(params, "processes_per_node")
        shifts, counts = tra_shift_arrays(ring.nodes, int_param(params, "radix_inter"))
        relay = int_param(params, "relay_hops")
        return relayed_shift_arrays(ring.nodes, shifts, q * q * counts, relay)

    def stages(self, ring: Ring, params: Params) -> list[Stage]:
        """The intra-node rounds (no lightpath: empty stages) then the inter-node rounds,
        built without the P^2 blocks of the schedule (equal to it: tests/models)."""
        q = int_param(params, "processes_per_node")
        r1, r2 = int_param(params, "radix_intra"), int_param(params, "radix_inter")
        intra = (
            [
                Stage.from_demands(ring.nodes, [], [], [], label=f"intra round x={x} z={z}")
                for x, z in tra_rounds_list(q, r1)
            ]
            if q > 1
            else []
        )
        rounds = tra_rounds_list(ring.nodes, r2)
        shifts = [(shift, q * q * h) for shift, h in tra_shift_rounds(ring.nodes, r2)]
        relay = int_param(params, "relay_hops")
        inter = [
            stage
            for (x, z), (shift, count) in zip(rounds, shifts, strict=True)
            for stage in relayed_shift_stages(
                ring.nodes, shift, count, relay, f"inter round x={x} z={z}"
            )
        ]
        return intra + inter

    def data_per_message(self, ring: Ring, params: Params) -> int:
        return ring.nodes * int_param(params, "processes_per_node")

    def schedule(self, ring: Ring, params: Params) -> Schedule:
        """Block by block (P^2 blocks), for the data-flow simulator; refused beyond
        SIMULATED_BLOCKS_LIMIT (plans use `stages`, which needs no blocks)."""
        n, q = ring.nodes, int_param(params, "processes_per_node")
        r1, r2 = int_param(params, "radix_intra"), int_param(params, "radix_inter")
        p = n * q
        if p * p > SIMULATED_BLOCKS_LIMIT:
            raise AlgorithmRefusedError(
                f"simulating TRA2 block by block needs P^2 = {p * p} blocks (limit "
                f"{SIMULATED_BLOCKS_LIMIT}); plans use its stages directly",
                {"processes": p},
            )
        src, dst = np.divmod(np.arange(p * p), p)
        s_node, s_local = np.divmod(src, q)
        d_node, d_local = np.divmod(dst, q)
        endpoint = np.arange(p)
        flows: list[StageFlow] = []
        # Phase 1, inside each node: lane = node, rank = local index, TRA index = q' - q.
        local = s_local
        if q > 1:
            idx1 = (d_local - s_local) % q
            f1, local = _tra_flows(s_node * q, q, r1, idx1, s_local, endpoint, "intra")
            flows += f1
        # Phase 2, across nodes: lane = local index q', rank = node, TRA index = n' - n.
        idx2 = (d_node - s_node) % n
        lane_endpoint = (np.arange(q)[:, None] + np.arange(n)[None, :] * q).reshape(-1)
        f2, _ = _tra_flows(local * n, n, r2, idx2, s_node, lane_endpoint, "inter")
        node_of = np.arange(p) // q
        relay = int_param(params, "relay_hops")
        flows += [f for flow in f2 for f in relayed_flow(flow, node_of, n, relay)]
        return Schedule(Collective.ALLTOALL, n, node_of, p * p, tuple(flows))

    def closed_forms(self, ring: Ring, params: Params) -> list[ClosedForm]:
        n, q = ring.nodes, int_param(params, "processes_per_node")
        r1, r2 = int_param(params, "radix_intra"), int_param(params, "radix_inter")
        p = n * q
        forms = [
            self.formula.evaluate(
                p,
                n,
                r2,
                note=f"the inter-node rounds as printed, with P = N Q = {p} inside the floor; "
                f"Proposition 3 with N in place of P gives {cf.tra_rounds(n, r2)}",
            )
        ]
        if q > 1:
            forms.append(
                cf.TRA2_INTRA_ROUNDS.evaluate(
                    p,
                    q,
                    r1,
                    note=f"Proposition 3 with Q in place of P gives {cf.tra_rounds(q, r1)}",
                )
            )
        return forms

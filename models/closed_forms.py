"""The papers' closed forms, implemented exactly as printed.

Every function names its paper and equation / table. Where a printed table disagrees with its
own formula, the formula is implemented and the disagreement is recorded in `PRINTED_VALUES`
(tests/models/test_closed_forms.py shows by how much). Integer helpers avoid float log errors
where the paper's quantity is an integer ceiling of a logarithm.

Papers (see ../shared/papers):
- [OPTREE] Dai et al., "Efficient Algorithm for All-gather Operation in Optical Interconnect
  Systems" (OpTree journal version).
- [WRHT] Dai et al., "WRHT: Efficient All-reduce for Distributed DNN Training in Optical
  Interconnect Systems", ICPP 2023.
- [OVE] Dai et al., optical-vs-electrical all-reduce comparison (Ring and RD).
- [TRA] Tunable-radix all-to-all (TRA / TRA2), Propositions 1-4 and Sec. IV.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum


class Unit(StrEnum):
    """What a closed form counts (SPEC section 8). A claim is compared only with a measured
    value of the same unit."""

    STEPS = "steps"  # optical time slots on the ring
    ROUNDS = "rounds"  # messages per process of an MPI algorithm (TRA's K)
    BLOCKS = "blocks"  # data volume per process (TRA's D)
    WAVELENGTHS = "wavelengths"
    HOPS = "hops"
    STAGES = "stages"  # tree depth k
    NODES = "nodes"  # a size or radix
    BYTES = "bytes"  # a message size (the optical-vs-electrical paper's crossover sizes)
    PERCENT = "percent"  # an average reduction of time the papers state


@dataclass(frozen=True)
class ClosedForm:
    """One closed form of a paper, evaluated for a ring (value None where undefined)."""

    quantity: str
    text: str
    source: str
    value: float | None = None
    alternative: float | None = None
    note: str = ""
    unit: Unit = Unit.STEPS


Value = int | float | None


@dataclass(frozen=True)
class Formula:
    """One closed form of a paper, written once: what it counts, its text as printed, where it
    is printed, and the function that evaluates it (with the printed other case, if any).
    Algorithms reference these; `evaluate` and `at` give the `ClosedForm` of one ring."""

    quantity: str
    text: str
    source: str
    function: Callable[..., Value]
    unit: Unit = Unit.STEPS
    alternative: Callable[..., Value] | None = None

    def evaluate(self, *args: int, note: str = "") -> ClosedForm:
        other = None if self.alternative is None else self.alternative(*args)
        return self.at(self.function(*args), other, note)

    def at(self, value: Value, alternative: Value = None, note: str = "") -> ClosedForm:
        """This formula with values computed by the caller (e.g. the case a shape is in). A
        whole value is an integer (NE's N / 2 at N = 16 is 8 steps, not 8.0)."""
        return ClosedForm(
            self.quantity, self.text, self.source, _whole(value), _whole(alternative), note,
            self.unit,
        )


def _whole(value: Value) -> Value:
    return int(value) if isinstance(value, float) and value.is_integer() else value


def ceil_log(base: int, value: int) -> int:
    """Smallest integer t >= 0 with base**t >= value: ceil(log_base value), exactly."""
    if base < 2 or value < 1:
        raise ValueError("ceil_log needs base >= 2 and value >= 1")
    t, power = 0, 1
    while power < value:
        power *= base
        t += 1
    return t


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


# ----------------------------------------------------------------------------- all-gather


def ring_allgather_steps(nodes: int) -> int:
    """Ring all-gather: N - 1 steps ([OPTREE] Table 1)."""
    return nodes - 1


RING_ALLGATHER = Formula("steps", "N - 1", "OpTree journal, Table 1", ring_allgather_steps)


def ne_allgather_steps(nodes: int) -> float:
    """Neighbor Exchange: N / 2 steps ([OPTREE] Table 1; printed without rounding)."""
    return nodes / 2


NE_ALLGATHER = Formula("steps", "N / 2", "OpTree journal, Table 1", ne_allgather_steps)


def osm_allgather_steps(nodes: int, wavelengths: int) -> int:
    """One-stage model: ceil(N^2 / (8 w)) steps ([OPTREE] Table 1 and Lemma 1)."""
    return ceil_div(nodes * nodes, 8 * wavelengths)


OSM_ALLGATHER = Formula(
    "steps", "ceil(N^2 / (8 w))", "OpTree journal, Table 1", osm_allgather_steps
)


def one_stage_ring_wavelengths(nodes: int) -> int:
    """Lemma 1 of [OPTREE]: all-to-all routing needs ceil(N^2 / 8) wavelengths on a ring."""
    return ceil_div(nodes * nodes, 8)


ONE_STAGE_RING_WAVELENGTHS = Formula(
    "wavelengths",
    "ceil(N^2 / 8)",
    "OpTree journal, Lemma 1",
    one_stage_ring_wavelengths,
    Unit.WAVELENGTHS,
)


def one_stage_line_wavelengths(nodes: int) -> int:
    """Lemma 1 of [OPTREE]: all-to-all routing needs floor(N^2 / 4) wavelengths on a line."""
    return nodes * nodes // 4


def wrht_allgather_theta(nodes: int, wavelengths: int) -> tuple[int, int]:
    """(theta, m_bar) of the WRHT all-gather: m_bar = 2w + 1, theta = ceil(log_m_bar N)
    ([OPTREE] Sec. IV-A.2, text before Table 1)."""
    m_bar = 2 * wavelengths + 1
    return ceil_log(m_bar, nodes), m_bar


def wrht_allgather_steps(nodes: int, wavelengths: int) -> int:
    """WRHT all-gather, [OPTREE] Table 1: 1 + ceil((m^theta - m)/(m - 1)) + (theta - 1) m^(theta-1)
    with m = 2w + 1 and theta = ceil(log_m N)."""
    theta, m = wrht_allgather_theta(nodes, wavelengths)
    return int(1 + ceil_div(m**theta - m, m - 1) + (theta - 1) * m ** (theta - 1))


def wrht_allgather_steps_alternative(nodes: int, wavelengths: int) -> int:
    """The text's other case: 1 + ceil(m (m^(theta-1) - 1)/(m - 1)) + theta m^(theta-1)."""
    theta, m = wrht_allgather_theta(nodes, wavelengths)
    return int(1 + ceil_div(m * (m ** (theta - 1) - 1), m - 1) + theta * m ** (theta - 1))


WRHT_ALLGATHER = Formula(
    "steps",
    "1 + ceil((m^theta - m) / (m - 1)) + (theta - 1) m^(theta - 1), m = 2w + 1",
    "OpTree journal, Table 1",
    wrht_allgather_steps,
    alternative=wrht_allgather_steps_alternative,
)


def optree_k_star(nodes: int) -> int | None:
    """Lemma 3 / eq. (2) of [OPTREE]: k* = ceil((ln N + sqrt(ln N (ln N - 2))) / 2).

    The paper writes "[*] represents integer rounding" but prints ceiling brackets; the
    ceiling reproduces Table 1 (k* = 7 at N = 1024), so the ceiling is used. The square root
    is undefined for N < e^2 (N <= 7): returns None there."""
    ln_n = math.log(nodes)
    radicand = ln_n * (ln_n - 2)
    if radicand < 0:
        return None
    return math.ceil((ln_n + math.sqrt(radicand)) / 2)


OPTREE_K_STAR = Formula(
    "k_star",
    "ceil((ln N + sqrt(ln N (ln N - 2))) / 2)",
    "OpTree journal, Lemma 3 / eq. (2)",
    optree_k_star,
    Unit.STAGES,
)


def optree_steps(nodes: int, wavelengths: int, stages: int) -> int:
    """Theorem 1 / eq. (1) of [OPTREE]: S = ceil((2k - 1) N^(1 + 1/k) / (8 w)), k >= 2."""
    exponent = 1.0 + 1.0 / stages
    return math.ceil((2 * stages - 1) * math.pow(nodes, exponent) / (8 * wavelengths))


OPTREE_AT_K = Formula(
    "steps_at_k",
    "ceil((2k - 1) N^(1 + 1/k) / (8 w)) at the chosen k",
    "OpTree journal, Theorem 1 / eq. (1)",
    optree_steps,
)


def optree_steps_optimal(nodes: int, wavelengths: int) -> int | None:
    """Theorem 2 of [OPTREE]: eq. (1) at k = k* (None where k* is undefined)."""
    k = optree_k_star(nodes)
    return None if k is None else optree_steps(nodes, wavelengths, k)


OPTREE = Formula(
    "steps",
    "ceil((2k* - 1) N^(1 + 1/k*) / (8 w)), k* = ceil((ln N + sqrt(ln N (ln N - 2))) / 2)",
    "OpTree journal, Theorem 2 with eq. (1) and eq. (2)",
    optree_steps_optimal,
)


def optree_stage_steps_from_proof(nodes: int, wavelengths: int, stages: int) -> list[int]:
    """Per-stage steps in the proof of Theorem 1 of [OPTREE], with m = N^(1/k):
    stage 1: ceil(m^2 / (8w)) * ceil(N/m); stage j >= 2: ceil(m^2 / (4w)) * ceil(N/m).
    Their sum is generally not eq. (1): the proof drops the ceilings when it sums."""
    m = nodes ** (1 / stages)
    per_group = math.ceil(nodes / m)
    first = math.ceil(m * m / (8 * wavelengths)) * per_group
    later = math.ceil(m * m / (4 * wavelengths)) * per_group
    return [first] + [later] * (stages - 1)


def optree_steps_sum_of_proof_stages(nodes: int, wavelengths: int, stages: int) -> int:
    return sum(optree_stage_steps_from_proof(nodes, wavelengths, stages))


OPTREE_PROOF_SUM = Formula(
    "steps_sum_of_proof_stages",
    "ceil(m^2/(8w)) ceil(N/m) + (k - 1) ceil(m^2/(4w)) ceil(N/m), m = N^(1/k)",
    "OpTree journal, proof of Theorem 1",
    optree_steps_sum_of_proof_stages,
)


def optree_max_path_hops(nodes: int, stages: int) -> float:
    """Eq. (4) of [OPTREE]: L_max = 1 + (N^(1/k) - 1) N^(1 - 1/k)."""
    n = float(nodes)
    return 1.0 + (math.pow(n, 1.0 / stages) - 1.0) * math.pow(n, 1.0 - 1.0 / stages)


OPTREE_MAX_HOPS = Formula(
    "max_path_hops",
    "1 + (N^(1/k) - 1) N^(1 - 1/k)",
    "OpTree journal, eq. (4)",
    optree_max_path_hops,
    Unit.HOPS,
)

# ----------------------------------------------------------------------------- all-reduce


def ring_allreduce_steps(nodes: int) -> int:
    """Ring all-reduce: 2(N - 1) ([WRHT] Table I; [OVE] Table 1)."""
    return 2 * (nodes - 1)


RING_ALLREDUCE = Formula(
    "steps", "2(N - 1)", "WRHT Table I; optical-vs-electrical Table 1", ring_allreduce_steps
)


def hring_allreduce_steps(nodes: int, group: int, wavelengths: int) -> float:
    """H-Ring all-reduce: 2(g^2 + N)/g + ceil(g/w) - 4 ([WRHT] Sec. III-D and Table I)."""
    return 2 * (group * group + nodes) / group + ceil_div(group, wavelengths) - 4


HRING_ALLREDUCE = Formula(
    "steps", "2(g^2 + N)/g + ceil(g/w) - 4", "WRHT Sec. III-D and Table I", hring_allreduce_steps
)


def bt_allreduce_steps(nodes: int) -> tuple[int, int]:
    """Binary tree, both printed cases ([WRHT] Table I): without and with the extra level."""
    t = ceil_log(2, nodes)
    return 2 * t, 2 * (t + 1)


BT_ALLREDUCE = Formula(
    "steps",
    "2 ceil(log2 N) or 2(ceil(log2 N) + 1)",
    "WRHT Table I",
    lambda nodes: bt_allreduce_steps(nodes)[0],
    alternative=lambda nodes: bt_allreduce_steps(nodes)[1],
)


def wrht_allreduce_steps(nodes: int, group: int) -> tuple[int, int]:
    """WRHT, both printed cases ([WRHT] Sec. III-D, Table I, eq. (1)): with the
    representatives' all-to-all as a level of its own, and as the last reduce step."""
    t = ceil_log(group, nodes)
    return 2 * t, 2 * t - 1


WRHT_ALLREDUCE = Formula(  # evaluated by the algorithm: which case applies depends on the tree
    "steps",
    "2 ceil(log_m N) or 2 ceil(log_m N) - 1",
    "WRHT Sec. III-D, Table I and Lemma 1",
    lambda nodes, group: wrht_allreduce_steps(nodes, group)[0],
)


def wrht_allreduce_lower_bound_steps(nodes: int, wavelengths: int) -> int:
    """Lemma 1 of [WRHT]: 2 ceil(log_(2w+1) N)."""
    return 2 * ceil_log(2 * wavelengths + 1, nodes)


WRHT_LOWER_BOUND = Formula(
    "steps_lower_bound", "2 ceil(log_(2w+1) N)", "WRHT Lemma 1", wrht_allreduce_lower_bound_steps
)


def wrht_group_wavelengths(group: int) -> int:
    """[WRHT] Sec. III-C.2: a group of m nodes gathering at its middle node needs ceil(m/2)."""
    return ceil_div(group, 2)


WRHT_GROUP_WAVELENGTHS = Formula(
    "group_wavelengths",
    "ceil(m / 2)",
    "WRHT Sec. III-C.2",
    wrht_group_wavelengths,
    Unit.WAVELENGTHS,
)


def wrht_last_step_wavelengths(nodes: int, group: int) -> int:
    """[WRHT] Sec. III-C.2: m* = ceil(N / m^(ceil(log_m N) - 1)) representatives need
    ceil(m*^2 / 8) wavelengths for their all-to-all (0 when m* = 1)."""
    m_star = ceil_div(nodes, group ** (ceil_log(group, nodes) - 1))
    return ceil_div(m_star * m_star, 8) if m_star > 1 else 0


WRHT_LAST_STEP_WAVELENGTHS = Formula(
    "last_step_wavelengths",
    "ceil(m*^2 / 8), m* = ceil(N / m^(ceil(log_m N) - 1))",
    "WRHT Sec. III-C.2",
    wrht_last_step_wavelengths,
    Unit.WAVELENGTHS,
)


def rd_allreduce_steps_optical(nodes: int, wavelengths: int) -> int:
    """Recursive doubling on the optical ring ([OVE] Table 1):
    ceil(log2 n) for n <= 2w, else 2 ceil(log2 n) - ceil(log2 2w)."""
    t = ceil_log(2, nodes)
    if nodes <= 2 * wavelengths:
        return t
    return 2 * t - ceil_log(2, 2 * wavelengths)


RD_ALLREDUCE = Formula(
    "steps",
    "ceil(log2 N) if N <= 2w, else 2 ceil(log2 N) - ceil(log2 2w)",
    "optical-vs-electrical Table 1 (optical)",
    rd_allreduce_steps_optical,
)


def rd_allreduce_steps_electrical(nodes: int) -> int:
    """Recursive doubling on the electrical fat-tree ([OVE] Table 1): ceil(log2 n)."""
    return ceil_log(2, nodes)


RD_ALLREDUCE_ELECTRICAL = Formula(
    "steps_electrical",
    "ceil(log2 N)",
    "optical-vs-electrical Table 1 (electrical)",
    rd_allreduce_steps_electrical,
)

# ----------------------------------------------------------------------------- all-to-all


def tra_digits(processes: int, radix: int) -> int:
    """w = ceil(log_r P), the number of base-r digits of a block index ([TRA] Sec. III)."""
    return ceil_log(radix, processes)


def tra_rounds(processes: int, radix: int) -> int:
    """K, the communication rounds of TRA: Proposition 1 (P = r^w): w(r - 1);
    Proposition 3 (P < r^w): w(r - 1) - floor((r^w - P) / r^(w-1))."""
    w = tra_digits(processes, radix)
    if radix**w == processes:
        return w * (radix - 1)
    return int(w * (radix - 1) - (radix**w - processes) // radix ** (w - 1))


TRA_ROUNDS = Formula(
    "rounds",
    "K = w(r - 1) - floor((r^w - P) / r^(w-1)), w = ceil(log_r P)",
    "TRA Propositions 1 and 3 (rounds: messages per process, not optical steps)",
    tra_rounds,
    Unit.ROUNDS,
)


def tra_round_blocks(processes: int, radix: int, digit: int, value: int) -> int:
    """h, blocks one process sends in round (x, z) ([TRA] Proposition 4):
    lgc = P % r^(x+1), t = lgc - z r^x, lc = floor(P / r^(x+1)) r^x;
    h = lc if t <= 0; lc + r^x if floor(t / r^x) > 0; else lc + t % r^x."""
    rx: int = radix**digit
    lgc = processes % (rx * radix)
    t = lgc - value * rx
    lc = (processes // (rx * radix)) * rx
    if t <= 0:
        return lc
    if t // rx > 0:
        return lc + rx
    return lc + t % rx


def tra_blocks(processes: int, radix: int) -> int:
    """D, blocks one process sends in all: Proposition 2 (P = r^w): w(r - 1) r^(w-1);
    Proposition 4 otherwise: the sum of h over all rounds."""
    w = tra_digits(processes, radix)
    if radix**w == processes:
        return int(w * (radix - 1) * radix ** (w - 1))
    return sum(tra_round_blocks(processes, radix, x, z) for x in range(w) for z in range(1, radix))


TRA_BLOCKS = Formula(
    "blocks_sent_per_process",
    "D = w(r - 1) r^(w-1) if P = r^w, else sum of h over rounds",
    "TRA Propositions 2 and 4",
    tra_blocks,
    Unit.BLOCKS,
)


def tra_optimal_radix(processes: int) -> int:
    """The paper's optimal radix r = ceil(sqrt(P)) ([TRA] Sec. III-B and VII)."""
    return math.isqrt(processes - 1) + 1 if processes > 1 else 1


TRA_OPTIMAL_RADIX = Formula(
    "optimal_radix", "ceil(sqrt(P))", "TRA Sec. III-B", tra_optimal_radix, Unit.NODES
)


def tra2_rounds_as_printed(processes: int, layer_size: int, radix: int) -> int:
    """TRA2 rounds of one layer exactly as printed in [TRA] Sec. IV:
    w = ceil(log_r X), K = w(r - 1) - floor(r - P / r^(w-1)), X = Q (intra) or N (inter).

    The printed formula uses the total process count P inside the floor where Proposition 3
    would use the layer's own size X; `tra_rounds(X, r)` is the Proposition-3 value."""
    w = ceil_log(radix, layer_size)
    return int(w * (radix - 1) - math.floor(radix - processes / radix ** (w - 1)))


TRA2_ROUNDS = Formula(
    "rounds",
    "K2 = w2(r2 - 1) - floor(r2 - P / r2^(w2-1)), w2 = ceil(log_r2 N)",
    "TRA Sec. IV (inter-node rounds as printed; rounds, not optical steps)",
    tra2_rounds_as_printed,
    Unit.ROUNDS,
)
TRA2_INTRA_ROUNDS = Formula(
    "intra_rounds",
    "K1 = w1(r1 - 1) - floor(r1 - P / r1^(w1-1)), w1 = ceil(log_r1 Q)",
    "TRA Sec. IV (as printed)",
    tra2_rounds_as_printed,
    Unit.ROUNDS,
)


@dataclass(frozen=True)
class PrintedValue:
    """A number printed in a paper's table, for comparison with the formula beside it."""

    source: str
    quantity: str
    inputs: dict[str, int]
    printed: float


PRINTED_VALUES: tuple[PrintedValue, ...] = (
    PrintedValue("OpTree journal, Table 1", "ring_allgather_steps", {"nodes": 1024}, 1023),
    PrintedValue("OpTree journal, Table 1", "ne_allgather_steps", {"nodes": 1024}, 512),
    PrintedValue(
        "OpTree journal, Table 1", "wrht_allgather_steps", {"nodes": 1024, "wavelengths": 64}, 259
    ),
    PrintedValue(
        "OpTree journal, Table 1", "osm_allgather_steps", {"nodes": 1024, "wavelengths": 64}, 128
    ),
    PrintedValue(
        "OpTree journal, Table 1", "optree_steps_optimal", {"nodes": 1024, "wavelengths": 64}, 70
    ),
    PrintedValue("OpTree journal, Table 1", "optree_k_star", {"nodes": 1024}, 7),
    PrintedValue("WRHT, Table I", "ring_allreduce_steps", {"nodes": 1000}, 1998),
    PrintedValue(
        "WRHT, Table I",
        "hring_allreduce_steps",
        {"nodes": 1000, "group": 5, "wavelengths": 64},
        411,
    ),
    PrintedValue("WRHT, Table I", "bt_allreduce_steps", {"nodes": 1000}, 20),
    PrintedValue("WRHT, Table I", "wrht_allreduce_steps", {"nodes": 1000, "group": 129}, 4),
    PrintedValue(
        "Optical vs electrical, Sec. 4.2 text",
        "rd_allreduce_steps_optical",
        {"nodes": 1024, "wavelengths": 64},
        13,
    ),
    PrintedValue(
        "Optical vs electrical, Sec. 4.2 text",
        "rd_allreduce_steps_optical",
        {"nodes": 128, "wavelengths": 64},
        7,
    ),
    PrintedValue("TRA, Sec. III-B", "tra_rounds", {"processes": 16384, "radix": 128}, 254),
    PrintedValue("TRA, Sec. III-B", "tra_blocks", {"processes": 16384, "radix": 128}, 32512),
    PrintedValue("TRA, Sec. III-B", "tra_blocks", {"processes": 16384, "radix": 2}, 114688),
)

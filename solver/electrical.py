"""The optical ring against the electrical fat-tree for one all-reduce plan: E-Ring and E-RD by
the papers' Hockney model (optical-vs-electrical eqs. (8)-(9)) and by SimGrid, and the message
size from which the fastest optical algorithm beats the fastest electrical one."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from models.closed_forms import ClosedForm, Formula
from models.electrical import (
    E_RD_STEPS,
    E_RD_TIME,
    E_RING_STEPS,
    E_RING_TIME,
    FatTree,
)
from solver.electrical_sim import (
    Case,
    ElectricalAlgorithm,
    NetworkModel,
    Simulated,
    simgrid_available,
    simulate_cases,
)
from solver.plan import AlgorithmPlan

CROSSOVER_RANGE_BYTES = (1.0, 1e15)  # the sizes a plan accepts


@dataclass(frozen=True)
class ElectricalTiming:
    message_bytes: float
    hockney_s: float  # eq. (8) / (9) as printed: alpha = one link's latency
    hockney_route_s: float  # the same with alpha = the latency of the longest route
    simulated: Simulated | None


@dataclass(frozen=True)
class ElectricalAlgorithmResult:
    name: str  # "e-ring", "e-rd"
    steps: ClosedForm
    time_formula: Formula
    timings: tuple[ElectricalTiming, ...]
    refusal: str | None = None  # why it was not evaluated (RD on a non-power-of-two n)

    def simulated_s(self, index: int) -> float | None:
        simulated = self.timings[index].simulated
        return None if simulated is None else simulated.time_s

    def time_s(self, index: int) -> float:
        """The time the comparison uses: simulated where SimGrid ran, else Hockney."""
        simulated = self.simulated_s(index)
        return self.timings[index].hockney_s if simulated is None else simulated


@dataclass(frozen=True)
class ElectricalComparison:
    network: FatTree
    model: NetworkModel
    simulator: str | None  # None: SimGrid is not installed; times are Hockney only
    algorithms: tuple[ElectricalAlgorithmResult, ...]
    crossover_bytes: float | None
    crossover_note: str

    def fastest(self, index: int) -> ElectricalAlgorithmResult | None:
        usable = [a for a in self.algorithms if a.refusal is None]
        return min(usable, key=lambda a: a.time_s(index), default=None)


def compare(
    optical: Sequence[AlgorithmPlan],
    nodes: int,
    message_bytes: Sequence[float],
    network: FatTree,
    model: NetworkModel = "default",
    simulate: bool = True,
) -> ElectricalComparison:
    simulate = simulate and simgrid_available()
    power_of_two = nodes & (nodes - 1) == 0
    names: list[ElectricalAlgorithm] = ["ring", "rd"] if power_of_two else ["ring"]
    simulated: dict[tuple[str, float], Simulated] = {}
    if simulate:
        cases = [Case(a, size) for a in names for size in message_bytes]
        runs = simulate_cases(cases, nodes, network, model)
        simulated = {(c.algorithm, c.message_bytes): r for c, r in zip(cases, runs, strict=True)}
    results = []
    families: list[tuple[ElectricalAlgorithm, str, Formula, Formula]] = [
        ("ring", "e-ring", E_RING_STEPS, E_RING_TIME),
        ("rd", "e-rd", E_RD_STEPS, E_RD_TIME),
    ]
    route_alpha = network.alpha_s * (4 if network.leaves(nodes) > 1 else 2)
    for algorithm, name, steps, time_formula in families:
        if algorithm not in names:
            refusal = f"RD needs a power-of-two n; use n={1 << (nodes.bit_length() - 1)}"
            results.append(
                ElectricalAlgorithmResult(name, steps.evaluate(nodes), time_formula, (), refusal)
            )
            continue
        timings = []
        for size in message_bytes:
            timings.append(
                ElectricalTiming(
                    message_bytes=size,
                    hockney_s=_hockney(time_formula, nodes, size, network.alpha_s, network),
                    hockney_route_s=_hockney(time_formula, nodes, size, route_alpha, network),
                    simulated=simulated.get((algorithm, size)),
                )
            )
        results.append(
            ElectricalAlgorithmResult(name, steps.evaluate(nodes), time_formula, tuple(timings))
        )
    crossover, note = crossover_bytes(optical, results, nodes, network)
    version = None
    if simulate:
        version = "SimGrid (Python S4U), network model " + model
    return ElectricalComparison(network, model, version, tuple(results), crossover, note)


def _hockney(formula: Formula, nodes: int, size: float, alpha_s: float, net: FatTree) -> float:
    value = formula.function(nodes, size, alpha_s, net.link_bps)
    assert value is not None
    return float(value)


def crossover_bytes(
    optical: Sequence[AlgorithmPlan],
    electrical: Sequence[ElectricalAlgorithmResult],
    nodes: int,
    network: FatTree,
) -> tuple[float | None, str]:
    """The smallest message size from which the fastest of the `optical` plans (the caller's:
    the optically feasible ones the recommendation may pick) stays faster than the fastest
    electrical one by Hockney as printed (both are affine in the size, up to the O/E/O flit
    rounding, so their difference changes sign at most a few times: a log grid finds the
    last sign change, bisection refines it to a byte)."""
    usable = [e for e in electrical if e.refusal is None]
    if not usable:
        return None, "nothing to compare"
    if not optical:
        return None, "no optical algorithm of the plan is optically feasible"

    def advantage(size: float) -> float:  # > 0: optics faster
        best_optical = min(p.time_s(size) for p in optical)
        best_electrical = min(
            _hockney(e.time_formula, nodes, size, network.alpha_s, network) for e in usable
        )
        return best_electrical - best_optical

    low, high = CROSSOVER_RANGE_BYTES
    grid = [low * (high / low) ** (i / 300) for i in range(301)]
    signs = [advantage(x) > 0 for x in grid]
    if all(signs):
        return None, "optics is faster at every message size from 1 B to 1 PB (Hockney)"
    if not any(signs):
        return None, "the electrical fat-tree is faster at every size from 1 B to 1 PB (Hockney)"
    if not signs[-1]:
        return None, "the electrical fat-tree is faster at the largest sizes (Hockney)"
    last = max(i for i, ok in enumerate(signs) if not ok)
    return _bisect(advantage, grid[last], grid[last + 1]), (
        "optics is faster from this size on (the fastest optically feasible shape of the "
        "plan against the fastest electrical algorithm, Hockney as printed)"
    )


def _bisect(advantage: Callable[[float], float], slower: float, faster: float) -> float:
    while faster - slower > 1.0:
        mid = (slower + faster) / 2
        if advantage(mid) > 0:
            faster = mid
        else:
            slower = mid
    return float(math.ceil(faster))

"""Every algorithm a plan can run: the papers' (`models.algorithms.catalog`) and the schedules
rwaopt designs itself (`synth`, `models.synthesis`; the exact optimum `optimal`,
`solver.optimal`), which depend on the request's limits and so are built per request."""

from __future__ import annotations

from dataclasses import dataclass

from models.algorithms.alltoall import Relayable
from models.algorithms.base import Algorithm, Collective
from models.algorithms.catalog import algorithms as paper_algorithms
from models.algorithms.catalog import parse_collective
from models.errors import UnknownAlgorithmError
from models.synthesis import SYNTHESIZED, synthesized
from solver.optimal import OptimalSchedule, optimal_for


@dataclass(frozen=True)
class Limits:
    """What the computed schedules must keep to: the hop limit (the request's
    max_lightpath_hops and the optics), the per-node limits and the exact model's time limit."""

    hop_limit: int | None = None
    enforced: bool = False  # the request set max_lightpath_hops: every lightpath must keep to it
    max_tx: int | None = None
    max_rx: int | None = None
    exact_time_limit_s: float = 60.0


def computed(collective: Collective, limits: Limits) -> list[Algorithm]:
    """The algorithms rwaopt builds itself for this collective (no paper claim)."""
    optimal: OptimalSchedule = optimal_for(
        collective, limits.hop_limit, limits.max_tx, limits.max_rx, limits.exact_time_limit_s
    )
    out: list[Algorithm] = []
    if collective in SYNTHESIZED:
        out.append(synthesized(collective, limits.hop_limit, limits.max_tx, limits.max_rx))
    return [*out, optimal]


def algorithms(collective: Collective | str, limits: Limits | None = None) -> list[Algorithm]:
    """The papers' algorithms of `collective`, then the computed ones."""
    c = parse_collective(collective)
    limits = limits or Limits()
    return [_configured(a, limits) for a in paper_algorithms(c)] + computed(c, limits)


def _configured(algorithm: Algorithm, limits: Limits) -> Algorithm:
    """TRA and TRA2 within the hop limit: relayed rounds offered to the shape search (and,
    with max_lightpath_hops, the default)."""
    if isinstance(algorithm, Relayable) and limits.hop_limit is not None:
        return type(algorithm)(limits.hop_limit, limits.enforced)
    return algorithm


def get_algorithm(
    collective: Collective | str, name: str, limits: Limits | None = None
) -> Algorithm:
    c = parse_collective(collective)
    everything = algorithms(c, limits)
    for a in everything:
        if a.name == name:
            return a
    names = ", ".join(a.name for a in everything)
    raise UnknownAlgorithmError(
        f"unknown {c.value} algorithm {name[:64]!r}; known: {names}",
        {"collective": c.value, "known": [a.name for a in everything]},
    )

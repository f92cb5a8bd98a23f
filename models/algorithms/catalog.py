"""The catalog: every algorithm rwaopt knows, keyed by (collective, name)."""

from __future__ import annotations

from models.algorithms.allgather import (
    NeighborExchangeAllGather,
    OneStageAllGather,
    OpTreeAllGather,
    RingAllGather,
    WrhtAllGather,
)
from models.algorithms.allreduce import (
    BinaryTreeAllReduce,
    HRingAllReduce,
    RecursiveDoublingAllReduce,
    RingAllReduce,
    WrhtAllReduce,
)
from models.algorithms.alltoall import TunableRadixAllToAll, TwoLayerTunableRadixAllToAll
from models.algorithms.base import Algorithm, Collective
from models.errors import UnknownAlgorithmError

CATALOG: tuple[Algorithm, ...] = (
    RingAllGather(),
    NeighborExchangeAllGather(),
    OneStageAllGather(),
    WrhtAllGather(),
    OpTreeAllGather(),
    RingAllReduce(),
    RecursiveDoublingAllReduce(),
    BinaryTreeAllReduce(),
    HRingAllReduce(),
    WrhtAllReduce(),
    TunableRadixAllToAll(),
    TwoLayerTunableRadixAllToAll(),
)


def algorithms(collective: Collective | str | None = None) -> list[Algorithm]:
    """Catalog entries, optionally of one collective."""
    if collective is None:
        return list(CATALOG)
    c = parse_collective(collective)
    return [a for a in CATALOG if a.collective == c]


def parse_collective(collective: Collective | str) -> Collective:
    try:
        return Collective(collective)
    except ValueError:
        valid = ", ".join(x.value for x in Collective)
        raise UnknownAlgorithmError(
            f"unknown collective {str(collective)[:64]!r}; use one of: {valid}"
        ) from None


def get_algorithm(collective: Collective | str, name: str) -> Algorithm:
    c = parse_collective(collective)
    for a in CATALOG:
        if a.collective == c and a.name == name:
            return a
    names = ", ".join(a.name for a in algorithms(c))
    raise UnknownAlgorithmError(
        f"unknown {c.value} algorithm {name[:64]!r}; known: {names}",
        {"collective": c.value, "known": [a.name for a in algorithms(c)]},
    )

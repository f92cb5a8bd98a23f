"""The catalog algorithm `optimal` of each collective: the exact optimum of SPEC section 12.

Its shape is the number of pieces per item (block, vector); its schedule is the least-slot
schedule of `solver.exact_schedule` for the request's hop limit and per-node limits, so one
instance belongs to one request's limits (`solver.catalog` builds them). It makes no paper
claim: it is the reference the achievable bound and every other algorithm are measured
against. Beyond the model's size limit it refuses with what fits.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import ClassVar

from models.algorithms.base import Algorithm, Collective, Params, ParamSpec, int_param
from models.closed_forms import ClosedForm, Formula
from models.ring import Ring
from models.stage import Schedule, Stage, within_hops
from solver.exact_schedule import (
    SIZE_LIMIT,
    ExactSchedule,
    model_size,
    slots_lower_bound,
    solve_exact_schedule,
)

MAX_PIECES = 4  # the shape search tries 1..MAX_PIECES pieces (what fits the model)
# A plan of "all" runs `optimal` only when its one-piece model is at most this large: such
# models solve in about a second here (docs/bench-exact.md); asked by name, it runs up to
# solver.exact_schedule.SIZE_LIMIT.
ALL_SIZE_LIMIT = 1_500


def _none(*_: int) -> None:
    return None


@dataclass(eq=False)
class OptimalSchedule(Algorithm):
    """Least-time schedule by the time-expanded model, for one request's limits."""

    hop_limit: int | None = None
    max_tx: int | None = None
    max_rx: int | None = None
    time_limit_s: float = 60.0
    _solved: dict[tuple[Ring, int], ExactSchedule] = field(default_factory=dict, repr=False)

    name: ClassVar[str] = "optimal"
    title: ClassVar[str] = "Exact optimum (time-expanded CP-SAT model)"
    source: ClassVar[str] = "rwaopt, SPEC section 12: reference, no paper claim"
    params: ClassVar[tuple[ParamSpec, ...]] = (
        ParamSpec(
            "pieces",
            "pieces each item (block, vector, reduce-scatter chunk) is cut into; one piece "
            "per lightpath",
            1,
            1,
            maximum_rule=f"the model's size limit ({SIZE_LIMIT} variables)",
        ),
    )
    formula: ClassVar[Formula] = Formula(
        "steps", "no closed form: the exact optimum of the schedule model", "rwaopt", _none
    )
    from_paper: ClassVar[bool] = False

    def _hops(self, ring: Ring) -> int:
        n = ring.nodes
        return n - 1 if self.hop_limit is None else max(1, min(self.hop_limit, n - 1))

    def size(self, ring: Ring, pieces: int) -> int:
        """The model's size at its first horizon (the slot bound + 1)."""
        hops = self._hops(ring)
        lower = slots_lower_bound(
            self.collective, ring, pieces, hops, self.max_tx, self.max_rx
        )
        return model_size(
            self.collective, ring.nodes, ring.channels_per_direction, pieces, lower + 1, hops
        )

    def refusal(self, ring: Ring, params: Params) -> str | None:
        pieces = int_param(params, "pieces")
        size = self.size(ring, pieces)
        if size <= SIZE_LIMIT:
            return None
        fits = [q for q in range(1, pieces) if self.size(ring, q) <= SIZE_LIMIT]
        change = "a smaller ring or fewer wavelengths"
        if fits:
            what = f"pieces <= {fits[-1]} fits; use fewer pieces, {change}"
        else:
            what = f"even one piece per item is too many; use {change}"
        return (
            f"the exact model would have about {size} variables, beyond its limit of "
            f"{SIZE_LIMIT} ({what})"
        )

    def too_large_for_all(self, ring: Ring) -> str | None:
        """Why a plan of "all" leaves it out on this ring (None: it runs)."""
        size = self.size(ring, 1)
        if size <= ALL_SIZE_LIMIT:
            return None
        return (
            f"its exact model (about {size} variables) is larger than a plan of 'all' runs "
            f"(up to {ALL_SIZE_LIMIT}); ask for it by name (up to {SIZE_LIMIT})"
        )

    def solved(self, ring: Ring, params: Params) -> ExactSchedule:
        """The model's answer for this ring and shape (solved once per instance)."""
        key = (ring, int_param(params, "pieces"))
        if key not in self._solved:
            self._solved[key] = solve_exact_schedule(
                self.collective,
                ring,
                key[1],
                self.hop_limit,
                self.max_tx,
                self.max_rx,
                self.time_limit_s,
            )
        return self._solved[key]

    def schedule(self, ring: Ring, params: Params) -> Schedule:
        return self.solved(ring, params).schedule()

    def stages(self, ring: Ring, params: Params) -> list[Stage]:
        """The slots' demands, each kept within the model's hop limit (so the RWA engine
        routes them as the model did)."""
        hops = self._hops(ring)
        return [within_hops(s, hops) for s in self.schedule(ring, params).stages()]

    def stage_count(self, ring: Ring, params: Params) -> int:
        return self.solved(ring, params).slot_count

    def shape_candidates(self, ring: Ring) -> Iterator[Params]:
        for pieces in range(1, MAX_PIECES + 1):
            if self.size(ring, pieces) <= SIZE_LIMIT:
                yield {"pieces": pieces}

    def closed_forms(self, ring: Ring, params: Params) -> list[ClosedForm]:
        return []

    def data_per_message(self, ring: Ring, params: Params) -> int:
        """All-gather: an item is the message; all-reduce: the vector is."""
        return int_param(params, "pieces")


class OptimalAllGather(OptimalSchedule):
    collective: ClassVar[Collective] = Collective.ALLGATHER


class OptimalAllReduce(OptimalSchedule):
    collective: ClassVar[Collective] = Collective.ALLREDUCE


class OptimalAllToAll(OptimalSchedule):
    collective: ClassVar[Collective] = Collective.ALLTOALL

    def data_per_message(self, ring: Ring, params: Params) -> int:
        """A piece is a block (send buffer / N) cut into `pieces`."""
        return ring.nodes * int_param(params, "pieces")


class OptimalReduceScatter(OptimalSchedule):
    collective: ClassVar[Collective] = Collective.REDUCESCATTER

    def data_per_message(self, ring: Ring, params: Params) -> int:
        """A piece is a chunk (vector / N) cut into `pieces`."""
        return ring.nodes * int_param(params, "pieces")


OPTIMAL = {
    Collective.ALLGATHER: OptimalAllGather,
    Collective.ALLREDUCE: OptimalAllReduce,
    Collective.ALLTOALL: OptimalAllToAll,
    Collective.REDUCESCATTER: OptimalReduceScatter,
}


def optimal_for(
    collective: Collective,
    hop_limit: int | None = None,
    max_tx: int | None = None,
    max_rx: int | None = None,
    time_limit_s: float = 60.0,
) -> OptimalSchedule:
    return OPTIMAL[collective](hop_limit, max_tx, max_rx, time_limit_s)


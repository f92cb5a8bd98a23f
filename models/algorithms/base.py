"""What every catalog algorithm provides: parameters, refusal reasons, stages, closed forms."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar

import numpy as np

from models.closed_forms import ClosedForm, Formula
from models.dataflow import MessageCounts
from models.errors import AlgorithmRefusedError, InvalidInputError, UnknownParameterError
from models.ring import Hardware, Ring
from models.stage import IntArray, Schedule, Stage


class Collective(StrEnum):
    ALLGATHER = "allgather"
    ALLREDUCE = "allreduce"
    ALLTOALL = "alltoall"
    REDUCESCATTER = "reducescatter"

    @property
    def prose(self) -> str:
        """The name in a sentence: all-gather, all-reduce, all-to-all, reduce-scatter."""
        return _PROSE[self]


_PROSE = {
    Collective.ALLGATHER: "all-gather",
    Collective.ALLREDUCE: "all-reduce",
    Collective.ALLTOALL: "all-to-all",
    Collective.REDUCESCATTER: "reduce-scatter",
}


@dataclass(frozen=True)
class ParamSpec:
    """An integer parameter of an algorithm. `default` None means it is derived from the
    ring by `default_rule` (e.g. WRHT's m = 2w + 1)."""

    name: str
    description: str
    minimum: int
    default: int | None
    default_rule: str = ""
    maximum_rule: str = ""
    is_list: bool = False  # a comma-separated list of integers, e.g. OpTree's branching


class ShapeMode(StrEnum):
    """Which shape of an algorithm a plan reports (SPEC section 7)."""

    PAPER = "paper"  # what the paper's own formulas choose
    BEST = "best"  # least true time over the family, searched on true RWA
    EXPLICIT = "explicit"  # parameters given by the user


ParamValue = int | tuple[int, ...]
Params = dict[str, ParamValue]


@dataclass(frozen=True, eq=False)
class StageSketch:
    """A stage as the shape search bounds it, without listing every demand: either `stage`
    itself (small stages), `build` (a stage built only when its bound is not known yet: the
    search stops building a candidate's stages once the ones it has rule it out), or a
    **translated all-to-all**: every node of `positions` sends
    `weights[i]` unit lightpaths to every other one, and the stage is the union of that set
    moved by each of `offsets` (an OpTree stage: one column of sibling positions, at every
    position of every group; WRHT's representatives: one set, offset 0). Two sketches of one
    ring with equal `key` are the same stage, so their bound is computed once. `classes`
    (with `build`) partitions the links for the search's second-tier bound
    (`solver.bounds.class_lp_bound`), or gives None when it would be too fine."""

    key: Hashable
    pieces: int = 1
    stage: Stage | None = None
    build: Callable[[], Stage] | None = None
    positions: IntArray | None = None
    weights: IntArray | None = None
    offsets: IntArray | None = None
    classes: Callable[[], IntArray | None] | None = None


class Algorithm(ABC):
    """A collective algorithm of the papers. Subclasses are stateless; parameters are passed
    in as a resolved dict (see `resolve`)."""

    collective: ClassVar[Collective]
    name: ClassVar[str]
    title: ClassVar[str]
    source: ClassVar[str]
    params: ClassVar[tuple[ParamSpec, ...]] = ()
    formula: ClassVar[Formula]  # the headline closed form (steps, or rounds for TRA)
    # False for the schedules rwaopt designs or computes itself (`synth`, `optimal`): no paper
    # proposes them, and recommendations say how they compare with the papers' algorithms.
    from_paper: ClassVar[bool] = True

    def resolve(self, ring: Ring, overrides: Mapping[str, ParamValue] | None = None) -> Params:
        """Defaults plus overrides, checked; raises on unknown names and on refusal."""
        overrides = dict(overrides or {})
        known = {p.name: p for p in self.params}
        unknown = sorted(set(overrides) - set(known))
        if unknown:
            allowed = ", ".join(known) or "none"
            raise UnknownParameterError(
                f"{self.collective}/{self.name} has no parameter {', '.join(unknown)}; "
                f"its parameters: {allowed}",
                {"algorithm": self.name, "unknown": unknown, "allowed": list(known)},
            )
        resolved: Params = {}
        for spec in self.params:
            if spec.name in overrides:
                resolved[spec.name] = _check_value(self.name, spec, overrides[spec.name])
        resolved = self.fill_defaults(ring, resolved)
        reason = self.refusal(ring, resolved)
        if reason:
            raise AlgorithmRefusedError(
                f"{self.collective}/{self.name} cannot run on N={ring.nodes}: {reason}",
                {"algorithm": self.name, "nodes": ring.nodes, "params": resolved},
            )
        return resolved

    def fill_defaults(self, ring: Ring, given: Params) -> Params:
        """Fill in the defaults of parameters not given; override for derived defaults."""
        out = dict(given)
        for spec in self.params:
            if spec.name not in out and spec.default is not None:
                out[spec.name] = spec.default
        return out

    def refusal(self, ring: Ring, params: Params) -> str | None:
        """Why this algorithm cannot run on `ring` with `params` (and what would work)."""
        return None

    @abstractmethod
    def schedule(self, ring: Ring, params: Params) -> Schedule:
        """The ordered stages of data movement (call `resolve` first)."""

    def stages(self, ring: Ring, params: Params) -> list[Stage]:
        """The unit-lightpath demands of every stage. Families whose shape search must be fast
        override this with a direct construction that tests prove equal to the schedule's."""
        return self.schedule(ring, params).stages()

    def stage_count(self, ring: Ring, params: Params) -> int:
        """How many stages `stages` returns. A family that builds its stages directly (it
        overrides `stages`) counts them that way; the others count the schedule's stages
        without aggregating their demands (at N = 4096 the aggregation of Ring's 8190
        all-reduce stages alone takes seconds)."""
        if type(self).stages is not Algorithm.stages:
            return len(self.stages(ring, params))
        return self.schedule(ring, params).stage_count

    def shift_rounds(self, ring: Ring, params: Params) -> list[tuple[int, int]] | None:
        """For families whose every lightpath stage is a uniform shift (TRA, TRA2): per such
        stage (shift, lightpaths per node), so the shape search can bound it without building
        it; None otherwise."""
        return None

    def shift_round_arrays(
        self, ring: Ring, params: Params
    ) -> tuple[IntArray, IntArray, IntArray] | None:
        """`shift_rounds` as arrays (shift up to sign, lightpaths per node, how many stages
        have it), for the search's vectorised bounds (a family overrides it to skip the
        list); None when `shift_rounds` is."""
        rounds = self.shift_rounds(ring, params)
        if rounds is None:
            return None
        table = np.array(rounds, dtype=np.int64).reshape(-1, 2)
        return table[:, 0], table[:, 1], np.ones(len(table), dtype=np.int64)

    def stage_sketches(self, ring: Ring, params: Params) -> list[StageSketch] | None:
        """The stages of `stages` as sketches the shape search can bound without building
        the large ones (tests: their bounds equal the built stages'); None when the family
        has none (the search then builds the stages)."""
        return None

    def time_floor(
        self, ring: Ring, raw: Params, sizes: Sequence[float], hardware: Hardware
    ) -> tuple[int, list[float]] | None:
        """For a shape offered by `shape_candidates` (`raw`, not resolved): the slots it
        takes at least and, per message size, a time it cannot beat, known without building
        it; None (the default) when the family has none. The search prunes on it before it
        resolves the shape: for shapes whose build is the cost (the rooted trees at
        N = 4096)."""
        return None

    def message_counts(self, ring: Ring, params: Params) -> tuple[MessageCounts, str] | None:
        """For MPI algorithms whose claims count rounds and blocks (TRA, TRA2): K and D
        counted on the schedule, and what they were counted on; None for the others."""
        return None

    def reduces_then_broadcasts(self, ring: Ring, params: Params) -> bool | None:
        """All-reduce: whether every complete sum is formed at one node and copied from
        there (the reduce-then-broadcast class, whose own bound `models.achievable` computes
        with `reduce_then_broadcast=True`; docs/achievable.md). Tests hold each family's
        answer to the data-flow simulator's count (`models.dataflow`, `sums_formed` == 1).
        None: not an all-reduce, or not declared (`optimal`)."""
        return None

    def paper_shape(self, ring: Ring) -> Params:
        """The shape the paper's own formulas choose (SPEC section 7), resolved."""
        return self.resolve(ring, {})

    def shape_candidates(self, ring: Ring) -> Iterator[Params]:
        """Every shape of the family the search considers, resolved; algorithms without free
        parameters have one."""
        yield self.paper_shape(ring)

    @abstractmethod
    def closed_forms(self, ring: Ring, params: Params) -> list[ClosedForm]:
        """The papers' closed forms; the first one is the claimed step count."""

    def data_per_message(self, ring: Ring, params: Params) -> int:
        """How many items one message is cut into: item_bytes = message_bytes / this.
        All-gather: the message is each node's contribution, one item. Override otherwise."""
        return 1


def _check_value(algorithm: str, spec: ParamSpec, value: object) -> ParamValue:
    values = value if isinstance(value, list | tuple) else [value]
    if not spec.is_list and len(values) != 1:
        raise InvalidInputError(f"{algorithm}: parameter {spec.name} takes one integer")
    if not values:
        raise InvalidInputError(f"{algorithm}: parameter {spec.name} needs at least one integer")
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int):
            raise InvalidInputError(
                f"{algorithm}: parameter {spec.name} must be an integer, got {v!r}"
            )
        if v < spec.minimum:
            # a parameter whose default is to leave it out says so (synth's roots = 0 read
            # as a choice beside a default documented as "0 (left out)"; fuzz, session 35)
            out = ", or left out" if spec.default_rule.startswith("left out") else ""
            raise InvalidInputError(
                f"{algorithm}: parameter {spec.name} must be >= {spec.minimum}{out}, got {v}"
            )
    return tuple(int(v) for v in values) if spec.is_list else int(values[0])  # type: ignore[arg-type]


def int_param(params: Params, name: str) -> int:
    value = params[name]
    assert isinstance(value, int)
    return value

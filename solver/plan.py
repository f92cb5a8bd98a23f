"""Plans: an algorithm's stages solved one by one, with true steps beside the closed forms.

`plan_algorithm` solves one shape of one algorithm; `solver.shape_search` calls it for the
paper's shape and for the candidates of the best-shape search. Identical stages (e.g. the
N - 1 stages of Ring all-gather, or stage 1 of every OpTree tree that starts with the same
factor) are solved once: within a plan always, across plans and up to rotation and reflection
of the ring through a shared `solver.stage_cache.StageCache`.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from models.algorithms.base import Algorithm, Params
from models.closed_forms import ClosedForm, Unit
from models.errors import InvalidInputError
from models.ring import Hardware, Ring
from models.stage import Stage, within_hops
from models.timing import hardware_lower_bound_s, item_bytes, slot_time_s
from solver.outcome import RwaResult, SolveOptions
from solver.stage_cache import StageCache, shared_cache, stage_key

__all__ = ["AlgorithmPlan", "DeadlineReached", "StageCache", "plan_algorithm"]

ProgressCallback = Callable[[int, int], None]


class DeadlineReached(Exception):
    """A plan was abandoned at its deadline (the shape search's budget); not an error."""


@dataclass(frozen=True)
class StagePlan:
    index: int
    label: str
    demands: int
    unit_lightpaths: int
    result: RwaResult
    stage: Stage
    solution_stage: int  # first stage with the same demands: identical stages share its result

    @property
    def steps_optimal(self) -> bool:
        """The stage's slots equal a proven lower bound on slots."""
        return self.result.steps_optimal

    @property
    def channels_optimal(self) -> bool:
        """chi equals a proven lower bound on chi."""
        return self.result.chi == self.result.lower_bound


@dataclass(frozen=True)
class MessageTiming:
    message_bytes: float
    item_bytes: float
    time_s: float
    claimed_time_s: float | None
    hardware_bound_s: float

    @property
    def efficiency(self) -> float:
        """Hardware lower bound / true time (1 = as fast as physics allows)."""
        return self.hardware_bound_s / self.time_s if self.time_s > 0 else 1.0


@dataclass(frozen=True)
class AlgorithmPlan:
    collective: str
    algorithm: str
    params: Params
    ring: Ring
    stages: tuple[StagePlan, ...]
    closed_forms: tuple[ClosedForm, ...]
    timings: tuple[MessageTiming, ...]
    seconds: float
    pieces_per_message: int = 1
    hardware: Hardware = field(default_factory=Hardware)

    def time_s(self, message_bytes: float) -> float:
        """True time at any message size (the stages' steps do not depend on it)."""
        slots = [(s.result.steps, s.stage.pieces) for s in self.stages]
        return plan_time_s(slots, message_bytes, self.pieces_per_message, self.hardware)

    @property
    def true_steps(self) -> int:
        return sum(s.result.steps for s in self.stages)

    @property
    def steps_lower_bound(self) -> int:
        return sum(s.result.steps_lower_bound for s in self.stages)

    @property
    def claim(self) -> ClosedForm | None:
        """The paper's headline closed form (steps, or rounds for the MPI all-to-alls)."""
        return self.closed_forms[0] if self.closed_forms else None

    @property
    def claimed_steps(self) -> float | None:
        """The claim when it counts optical steps; None when it counts something else."""
        claim = self.claim
        return claim.value if claim is not None and claim.unit == Unit.STEPS else None

    @property
    def steps_optimal(self) -> bool:
        """True steps equal the sum of proven per-stage step bounds."""
        return self.true_steps == self.steps_lower_bound

    @property
    def channels_optimal(self) -> bool:
        """Every stage's chi equals its proven bound (stronger than steps_optimal: a stage can
        need its last slot only partly)."""
        return all(s.channels_optimal for s in self.stages)


def plan_time_s(
    stages: Sequence[tuple[int, int]], message_bytes: float, pieces_per_message: int, hw: Hardware
) -> float:
    """Time of a plan whose stages take (steps, pieces per lightpath): each slot of a stage
    costs its lightpath's bytes / B + a (OpTree journal eq. (3), per stage). Slots of the
    same size are summed first, so a plan of one item size is exactly (steps) (d/B + a)."""
    piece = item_bytes(message_bytes, pieces_per_message)
    slots: dict[int, int] = {}
    for steps, pieces in stages:
        slots[pieces] = slots.get(pieces, 0) + steps
    return sum(steps * slot_time_s(piece * pieces, hw) for pieces, steps in sorted(slots.items()))


def claimed_time_s(
    claimed_steps: float,
    stage_pieces: Sequence[int],
    message_bytes: float,
    pieces_per_message: int,
    hw: Hardware,
) -> float:
    """The closed form's time: its steps, each at the mean slot time of the algorithm's
    stages (one step per stage, as the papers count them). Where every lightpath carries the
    same item this is steps x (item / B + a) (SPEC section 3); H-Ring's intra-group steps
    carry d/g and its inter-group steps d/N, so its 2(g - 1) + 2(N/g - 1) steps are costed
    at that mix, not all at d/N (which put its claimed time 6x under its true time at
    N = 256, w = 16, g = 4)."""
    piece = item_bytes(message_bytes, pieces_per_message)
    counts = Counter(stage_pieces) or Counter([1])
    if len(counts) == 1:  # one item size: exactly steps x its slot
        return float(claimed_steps) * slot_time_s(piece * next(iter(counts)), hw)
    total = sum(n * slot_time_s(piece * pieces, hw) for pieces, n in sorted(counts.items()))
    return float(claimed_steps) * total / len(stage_pieces)


def plan_algorithm(
    algorithm: Algorithm,
    ring: Ring,
    params: Params,
    message_bytes: Sequence[float] = (),
    hardware: Hardware | None = None,
    options: SolveOptions | None = None,
    progress: ProgressCallback | None = None,
    cache: StageCache | None = None,
    deadline: float | None = None,
) -> AlgorithmPlan:
    """Solve every stage of `algorithm` at the resolved shape `params` and time it for each
    message size. With `options.max_hops`, no lightpath may be longer. Past `deadline`
    (time.monotonic()), raises DeadlineReached before solving another new stage."""
    started = time.monotonic()
    hardware = hardware or Hardware()
    options = options or SolveOptions()
    cache = cache if cache is not None else shared_cache()
    for size in message_bytes:
        if not size > 0:
            raise InvalidInputError(f"message size must be > 0 bytes, got {size}")
    built = algorithm.stages(ring, params)
    solved: dict[bytes, tuple[int, RwaResult]] = {}  # by demands: first stage, its result
    # Stages that share their arrays (models.stage.Schedule.stages) share their key: Ring's
    # 8190 all-reduce stages at N = 4096 are digested once. The stages stay alive in `built`,
    # so the ids are not reused while this dict lives.
    keys: dict[tuple[int, ...], bytes] = {}
    stages = []
    for index, stage in enumerate(built):
        if options.max_hops is not None:
            stage = within_hops(stage, options.max_hops)
        arrays = tuple(map(id, (stage.sources, stage.destinations, stage.counts, stage.allowed)))
        key = keys.get(arrays) or keys.setdefault(arrays, stage_key(stage))
        if key not in solved:
            if (
                deadline is not None
                and time.monotonic() > deadline
                and not cache.has(ring, stage, options)
            ):
                raise DeadlineReached(f"{algorithm.name}: stopped before stage {index}")
            solved[key] = (index, cache.solve(ring, stage, options, deadline))
        first, result = solved[key]
        stages.append(
            StagePlan(
                index,
                stage.label,
                stage.demand_count,
                stage.unit_lightpaths,
                result,
                stage,
                first,
            )
        )
        if progress:
            progress(index + 1, len(built))
    forms = tuple(algorithm.closed_forms(ring, params))
    pieces = algorithm.data_per_message(ring, params)
    claim = forms[0] if forms else None
    claimed = claim.value if claim is not None and claim.unit == Unit.STEPS else None
    slots = [(s.result.steps, s.stage.pieces) for s in stages]
    stage_pieces = [s.stage.pieces for s in stages]
    timings = []
    for size in message_bytes:
        item = item_bytes(size, pieces)
        timings.append(
            MessageTiming(
                message_bytes=size,
                item_bytes=item,
                time_s=plan_time_s(slots, size, pieces, hardware),
                claimed_time_s=None
                if claimed is None
                else claimed_time_s(claimed, stage_pieces, size, pieces, hardware),
                hardware_bound_s=hardware_lower_bound_s(algorithm.collective, ring, size, hardware),
            )
        )
    return AlgorithmPlan(
        collective=algorithm.collective.value,
        algorithm=algorithm.name,
        params=params,
        ring=ring,
        stages=tuple(stages),
        closed_forms=forms,
        timings=tuple(timings),
        seconds=time.monotonic() - started,
        pieces_per_message=pieces,
        hardware=hardware,
    )

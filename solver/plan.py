"""Plans: an algorithm's stages solved one by one, with true steps beside the closed forms.

`plan_algorithm` is the one typed entry point behind `rwaopt plan` and `POST /api/v1/plans`.
Identical stages (e.g. the N - 1 stages of Ring all-gather) are solved once.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from models.algorithms.base import Algorithm, ClosedForm, ParamValue
from models.errors import InvalidInputError
from models.ring import Hardware, Ring
from models.stage import Stage, within_hops
from models.timing import hardware_lower_bound_s, slot_time_s
from solver.outcome import Method, RwaResult
from solver.solve import solve_stage

ProgressCallback = Callable[[int, int], None]


@dataclass(frozen=True)
class StagePlan:
    index: int
    label: str
    demands: int
    unit_lightpaths: int
    result: RwaResult
    stage: Stage
    solution_stage: int  # first stage with the same demands: identical stages share its result


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
    params: dict[str, ParamValue]
    ring: Ring
    stages: tuple[StagePlan, ...]
    closed_forms: tuple[ClosedForm, ...]
    timings: tuple[MessageTiming, ...]
    seconds: float

    @property
    def true_steps(self) -> int:
        return sum(s.result.steps for s in self.stages)

    @property
    def steps_lower_bound(self) -> int:
        return sum(s.result.steps_lower_bound for s in self.stages)

    @property
    def claimed_steps(self) -> float | None:
        return self.closed_forms[0].value if self.closed_forms else None

    @property
    def all_optimal(self) -> bool:
        return all(s.result.status == "optimal" for s in self.stages)


def _stage_key(stage: Stage) -> bytes:
    return b"|".join(
        a.tobytes() for a in (stage.sources, stage.destinations, stage.counts, stage.allowed)
    )


def plan_algorithm(
    algorithm: Algorithm,
    ring: Ring,
    overrides: Mapping[str, ParamValue] | None = None,
    message_bytes: Sequence[float] = (),
    hardware: Hardware | None = None,
    method: Method | str = Method.AUTO,
    time_limit_s: float = 10.0,
    progress: ProgressCallback | None = None,
    max_tx: int | None = None,
    max_rx: int | None = None,
    max_hops: int | None = None,
) -> AlgorithmPlan:
    """Solve every stage of `algorithm` on `ring` and time it for each message size.
    With `max_hops`, no lightpath may be longer (a routing constraint from a loss budget)."""
    started = time.monotonic()
    hardware = hardware or Hardware()
    for size in message_bytes:
        if not size > 0:
            raise InvalidInputError(f"message size must be > 0 bytes, got {size}")
    params = algorithm.resolve(ring, overrides)
    schedule = algorithm.schedule(ring, params)
    solved: dict[bytes, tuple[int, RwaResult]] = {}
    stages = []
    for index in range(schedule.stage_count):
        stage = schedule.stage(index)
        if max_hops is not None:
            stage = within_hops(stage, max_hops)
        key = _stage_key(stage)
        if key not in solved:
            solved[key] = (
                index,
                solve_stage(ring, stage, method, time_limit_s, max_tx, max_rx),
            )
        first, result = solved[key]
        stages.append(
            StagePlan(
                index, stage.label, stage.demand_count, stage.unit_lightpaths, result, stage, first
            )
        )
        if progress:
            progress(index + 1, schedule.stage_count)
    forms = tuple(algorithm.closed_forms(ring, params))
    pieces = algorithm.data_per_message(ring, params)
    true_steps = sum(s.result.steps for s in stages)
    claimed = forms[0].value if forms else None
    timings = []
    for size in message_bytes:
        item = size / pieces
        slot = slot_time_s(item, hardware)
        timings.append(
            MessageTiming(
                message_bytes=size,
                item_bytes=item,
                time_s=true_steps * slot,
                claimed_time_s=None if claimed is None else float(claimed) * slot,
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
    )

"""Solved plans of a reproduction, cached by request: a plan is solved once per request and
rwaopt version (in memory, in `<out>/cache.json`, and in the deployment's database for queued
reproductions), and timed at any message size from its summary."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol, TypedDict, cast

from app import version
from app.schemas.results import ParameterValues, parameter_values
from models.algorithms.base import Algorithm, Params
from models.algorithms.catalog import get_algorithm
from models.optics import OpticalParameters
from models.ring import Hardware, Ring
from solver.feasibility import evaluate_plan
from solver.outcome import SolveOptions
from solver.plan import AlgorithmPlan, plan_algorithm, plan_time_s
from solver.plan import claimed_time_s as plan_claimed_time_s
from solver.shape_search import search_best_shape

MESSAGE_BYTES = 4 * 2**20  # the time column of the step tables: 4 MiB per node
CACHE_VERSION = 3  # bump when a summary gains fields


class Summary(TypedDict, total=False):
    """What the plan cache keeps of a solved plan (JSON): enough to time it at any size."""

    true_steps: int
    steps_lower_bound: int
    steps_optimal: float
    time_s: float
    max_hops: int
    claimed: float | None
    alternative: float | None
    claimed_steps: float | None
    slots: list[list[int]]  # (steps, pieces per lightpath) per stage
    channels: list[list[str | int]]  # [label, chi, its proven lower bound] per stage
    pieces_per_message: int
    shape: ParameterValues  # best shapes only
    exhaustive: bool


class SummaryStore(Protocol):
    """Where summaries outlive the process (app.persistence.store.SummaryStore: the
    deployment's database, shared by every queued reproduction)."""

    def get(self, key: str) -> dict[str, Any] | None: ...

    def put(self, key: str, summary: Mapping[str, Any]) -> None: ...


class PlanCache:
    """True steps (and the longest lightpath) of solved plans, by request: in memory, in a
    JSON file (`path`, the CLI's `<out>/cache.json`) and in a store (`store`, the database of
    queued reproductions), each when given. Same request, same summary: a plan is solved once."""

    def __init__(self, path: Path | None, store: SummaryStore | None = None) -> None:
        self.path = path
        self.store = store
        self.entries: dict[str, Summary] = {}
        if path is not None and path.exists():
            self.entries = json.loads(path.read_text("utf-8"))

    def plan(
        self, collective: str, name: str, ring: Ring, params: Mapping[str, Any] | None = None
    ) -> Summary:
        algorithm = get_algorithm(collective, name)
        resolved = algorithm.resolve(ring, params or {})
        key = self._key("plan", collective, name, ring, parameter_values(resolved))
        found = self._known(key)
        if found is None:
            found = self._keep(key, _summary(_solve(algorithm, ring, resolved)))
        return found

    def best(self, collective: str, name: str, ring: Ring, budget_s: float) -> Summary:
        """The best shape of the family at 4 MiB, searched on true RWA from the paper's."""
        key = self._key("best", collective, name, ring, {"budget_s": budget_s})
        found = self._known(key)
        if found is None:
            algorithm = get_algorithm(collective, name)
            paper = _solve(algorithm, ring, algorithm.paper_shape(ring))
            searched = search_best_shape(
                algorithm, ring, [MESSAGE_BYTES], Hardware(), OPTIONS, budget_s, paper
            )
            summary = _summary(searched.plan)
            summary["shape"] = parameter_values(searched.plan.params)
            summary["exhaustive"] = searched.report.exhaustive
            found = self._keep(key, summary)
        return found

    def _known(self, key: str) -> Summary | None:
        if key in self.entries:
            return self.entries[key]
        stored = None if self.store is None else self.store.get(key)
        if stored is not None:
            self.entries[key] = cast(Summary, stored)
            self.save()
        return self.entries.get(key)

    def _keep(self, key: str, summary: Summary) -> Summary:
        self.entries[key] = summary
        self.save()
        if self.store is not None:
            self.store.put(key, summary)
        return summary

    @staticmethod
    def _key(
        kind: str, collective: str, name: str, ring: Ring, values: Mapping[str, object]
    ) -> str:
        shape = [ring.nodes, ring.fibers_per_direction, ring.wavelengths_per_fiber]
        # rwaopt's version is part of the key: a newer solver may prove what an older one did not.
        tag = [CACHE_VERSION, version()]
        return json.dumps([*tag, kind, collective, name, *shape, sorted(values.items())])

    def save(self) -> None:
        """Atomically (write, then rename): jobs may share one cache file."""
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
            temporary.write_text(json.dumps(self.entries, indent=1), "utf-8")
            temporary.replace(self.path)


OPTIONS = SolveOptions(time_limit_s=10)


def _solve(algorithm: Algorithm, ring: Ring, params: Params) -> AlgorithmPlan:
    return plan_algorithm(algorithm, ring, params, [MESSAGE_BYTES], options=OPTIONS)


def _summary(plan: AlgorithmPlan) -> Summary:
    optics = evaluate_plan(plan, OpticalParameters())
    return {
        "true_steps": plan.true_steps,
        "steps_lower_bound": plan.steps_lower_bound,
        "steps_optimal": float(plan.steps_optimal),
        "time_s": plan.timings[0].time_s,
        "max_hops": max((s.max_hops for s in optics.stages), default=0),
        "claimed": None if plan.claim is None else plan.claim.value,
        "alternative": None if plan.claim is None else plan.claim.alternative,
        "claimed_steps": plan.claimed_steps,
        "slots": [[s.result.steps, s.stage.pieces] for s in plan.stages],
        "channels": [[s.label, s.result.chi, s.result.lower_bound] for s in plan.stages],
        "pieces_per_message": plan.pieces_per_message,
    }


def stage_channels(summary: Summary, label: str) -> tuple[int, bool]:
    """chi of the first stage labelled `label` (channels per direction: the wavelengths it
    needs in one slot, F = 1) and whether it is proven (equal to its lower bound)."""
    for name, chi, bound in summary["channels"]:
        if name == label:
            return int(chi), int(chi) == int(bound)
    raise KeyError(f"no stage {label!r} in {[c[0] for c in summary['channels']]}")


def true_time_s(summary: Summary, message_bytes: float) -> float:
    """The plan's true time at any message size (its steps do not depend on it)."""
    slots = [(int(steps), int(pieces)) for steps, pieces in summary["slots"]]
    return plan_time_s(slots, message_bytes, int(summary["pieces_per_message"]), Hardware())


def claimed_time_s(summary: Summary, message_bytes: float) -> float | None:
    """The closed form's time (`solver.plan.claimed_time_s`) from a stored summary."""
    steps = summary["claimed_steps"]
    if steps is None:
        return None
    stage_pieces = [int(pieces) for _, pieces in summary["slots"]]
    pieces = int(summary["pieces_per_message"])
    return plan_claimed_time_s(steps, stage_pieces, message_bytes, pieces, Hardware())

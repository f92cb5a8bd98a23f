"""What a sweep is made of beyond its schema: the canonical hash that identifies a point (so a
point solved before by any plan or sweep is reused), and the rows of its results.

A point's identity is its `PlanRequest` with every default filled in (pydantic's dump), the
shape-search budget the server would use when the request leaves it out, and rwaopt's version:
a new version may solve differently, so it never reuses an older version's plans.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Callable, Iterable, Iterator

from app import version
from app.errors import UnavailableError
from app.persistence.store import SweepPoint, SweepStore
from app.schemas.documents import JobStatus
from app.schemas.requests import PlanRequest
from app.schemas.sweeps import RING_AXES, SweepDocument, SweepRequest, SweepRow
from models.errors import InvalidInputError
from solver.catalog import get_algorithm


def request_hash(request: PlanRequest, default_search_budget_s: float) -> str:
    """SHA-256 of the canonical request (sorted keys, defaults filled), the search budget it
    gets, and the version."""
    dumped = request.model_dump(mode="json")
    dumped["search_budget_s"] = float(request.search_budget_s or default_search_budget_s)
    canonical = {"version": version(), "request": dumped}
    text = json.dumps(canonical, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def check(sweep: SweepRequest) -> None:
    """What can be checked for the whole grid at once, cheaply: every named algorithm exists
    for every collective, and parameters and shapes name algorithms of the plan. The rest
    (an algorithm refusing one ring) is found when that point runs: it fails with its reason
    and the sweep goes on."""
    for point in sweep.points():
        names = [] if point.algorithms == "all" else point.algorithms
        for name in names:
            get_algorithm(point.collective, name)  # UnknownAlgorithmError names it
        if names:
            shapes = point.shape if isinstance(point.shape, dict) else {}
            stray = sorted((set(point.parameters) | set(shapes)) - set(names))
            if stray:
                raise InvalidInputError(
                    f"parameters or shape given for {', '.join(stray)}, which is not among "
                    "the algorithms"
                )


def start(
    store: SweepStore,
    sweep: SweepRequest,
    default_search_budget_s: float,
    submit: Callable[[str], None],
    owner: str | None = None,
) -> SweepDocument:
    """Check and store a sweep, then queue the plans made for it. When the queue is
    unreachable the sweep and those plans are removed again (a job already queued finds its
    plan gone and does nothing) and UnavailableError is raised."""
    check(sweep)
    document, new = store.create(sweep, point_hashes(sweep, default_search_budget_s), owner)
    for plan_id in new:
        try:
            submit(plan_id)
        except Exception as error:
            store.remove(document.id, new)
            raise UnavailableError(
                f"the job queue is unreachable ({error}); nothing was stored, retry later",
                {"retry_after_s": 10},
            ) from None
    return document


def point_hashes(sweep: SweepRequest, default_search_budget_s: float) -> list[str]:
    return [request_hash(p, default_search_budget_s) for p in sweep.points()]


def result_rows(sweep: SweepRequest, points: Iterable[SweepPoint]) -> Iterator[SweepRow]:
    """One row per point, algorithm and message size; a point without a result has one row
    with its status and why."""
    swept = [name for name in sweep.swept() if name not in (*RING_AXES, "collective")]
    for entry, request in zip(points, sweep.points(), strict=True):
        plan = entry.plan
        dumped = request.model_dump(mode="json")
        base = SweepRow(
            point=entry.point,
            plan_id=None if plan is None else plan.id,
            status=JobStatus.FAILED if plan is None else plan.status,
            cached=entry.cached,
            collective=request.collective,
            nodes=request.ring.nodes,
            fibers_per_direction=request.ring.fibers_per_direction,
            wavelengths_per_fiber=request.ring.wavelengths_per_fiber,
            swept={name: dumped[name] for name in swept},
        )
        if plan is None or plan.result is None:
            why = "the plan was deleted" if plan is None else None
            if plan is not None and plan.error is not None:
                why = plan.error.message
            yield base.model_copy(update={"error": why})
            continue
        chosen = {r.message_bytes: r for r in plan.result.recommendation}
        classes = {a.message_bytes: a.reduce_then_broadcast_s for a in plan.result.achievable}
        for algorithm in plan.result.algorithms:
            parameters = json.dumps(algorithm.parameters, separators=(",", ":"))
            claim = algorithm.claimed
            for timing in algorithm.timings:
                advice = chosen.get(timing.message_bytes)
                recommended = advice is not None and advice.algorithm == algorithm.algorithm
                yield base.model_copy(
                    update={
                        "algorithm": algorithm.algorithm,
                        "shape": algorithm.shape,
                        "parameters": parameters,
                        "message_bytes": timing.message_bytes,
                        "claimed": None if claim is None else claim.value,
                        "claimed_unit": None if claim is None else claim.unit,
                        "true_steps": algorithm.true_steps,
                        "steps_lower_bound": algorithm.steps_lower_bound,
                        "steps_proven": algorithm.steps_optimal,
                        "time_s": timing.time_s,
                        "claimed_time_s": timing.claimed_time_s,
                        "achievable_s": timing.achievable_s,
                        "fraction_of_achievable": timing.fraction_of_achievable,
                        "reduce_then_broadcast": algorithm.reduce_then_broadcast,
                        "reduce_then_broadcast_s": classes.get(timing.message_bytes),
                        "feasible": algorithm.feasibility.feasible,
                        "recommended": recommended,
                        "recommended_parameters": None
                        if not recommended or advice is None or advice.parameters is None
                        else json.dumps(advice.parameters, separators=(",", ":")),
                        "recommended_time_s": advice.time_s if recommended and advice else None,
                        # an electrical pick marks no optical row (review, session 35: the
                        # point then read like one where nothing is feasible)
                        "point_recommends": None if advice is None else advice.algorithm,
                    }
                )


CSV_COLUMNS = tuple(n for n in SweepRow.model_fields if n != "swept")


def _cell(value: object) -> object:
    """A swept value in a CSV cell: empty for null, JSON for an object or a list."""
    if value is None:
        return ""
    return json.dumps(value) if isinstance(value, dict | list) else value


def csv_lines(sweep: SweepRequest, rows: Iterable[SweepRow]) -> Iterator[str]:
    """The rows as CSV: the swept axes beyond the ring as columns of their own, named
    `swept_<axis>` where the axis has a column's name already (`shape`: two columns of one
    name, of which a reader keeps one), a text or number as it is, an object as JSON."""
    swept = [name for name in sweep.swept() if name not in (*RING_AXES, "collective")]
    names = [f"swept_{name}" if name in CSV_COLUMNS else name for name in swept]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")

    def flush() -> str:
        text = buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
        return text

    writer.writerow([*CSV_COLUMNS, *names])
    yield flush()
    for row in rows:
        values = row.model_dump(mode="json")
        cells = ["" if values[c] is None else values[c] for c in CSV_COLUMNS]
        extra = [_cell(row.swept[name]) for name in swept]
        writer.writerow([*cells, *extra])
        yield flush()

"""The lightpath table of a stored plan, streamed as CSV or NDJSON in chunks, rebuilt from the
stored stage solutions (an N=1024 plan has millions of rows; none is held in memory at once
beyond one chunk and one algorithm's distinct stages)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator

import numpy as np

from app.persistence.codec import decode
from app.persistence.store import Solution
from app.schemas.results import PlanResult
from models.ring import DIRECTION_LABELS
from models.stage import Stage
from solver.assignment import Assignment

COLUMNS = (
    "algorithm",
    "stage",
    "source",
    "destination",
    "direction",
    "fiber",
    "wavelength",
    "slot",
    "hops",
)
CHUNK_ROWS = 50_000


def rows(result: PlanResult, solutions: Iterable[Solution], fmt: str) -> Iterator[str]:
    """Text chunks of the table of the plan's algorithms."""
    ring = result.ring.ring()
    by_algorithm: dict[str, dict[int, bytes]] = {}
    for sol in solutions:
        by_algorithm.setdefault(sol.algorithm, {})[sol.stage_index] = sol.data
    if fmt == "csv":
        yield ",".join(COLUMNS) + "\n"
    for entry in result.algorithms:
        name = entry.algorithm
        stored = by_algorithm.get(name, {})
        decoded: dict[int, tuple[Stage, Assignment]] = {}
        for stage in entry.stages:
            key = stage.solution_stage
            if key not in stored:
                continue
            if key not in decoded:
                decoded[key] = decode(stored[key])
            demands, assignment = decoded[key]
            yield from _format(name, stage.index, assignment.lightpaths(ring, demands), fmt)


def _format(name: str, index: int, table: dict[str, np.ndarray], fmt: str) -> Iterator[str]:
    total = len(table["source"])
    for start in range(0, total, CHUNK_ROWS):
        part = slice(start, start + CHUNK_ROWS)
        cols = [table[k][part].tolist() for k in COLUMNS[2:]]
        cols[2] = [DIRECTION_LABELS[o] for o in cols[2]]
        if fmt == "csv":
            prefix = f"{name},{index},"
            yield "".join(
                prefix + ",".join(map(str, values)) + "\n" for values in zip(*cols, strict=True)
            )
        else:
            # Every value is an int or 'cw'/'ccw', and algorithm names are [a-z0-9]: the JSON
            # is written directly (json.dumps per row is 4x slower; bench/service.py).
            head = f'{{"algorithm":{json.dumps(name)},"stage":{index},"source":'
            yield "".join(
                f'{head}{v[0]},"destination":{v[1]},"direction":"{v[2]}","fiber":{v[3]},'
                f'"wavelength":{v[4]},"slot":{v[5]},"hops":{v[6]}}}\n'
                for v in zip(*cols, strict=True)
            )

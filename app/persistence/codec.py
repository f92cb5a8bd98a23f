"""A stage and its validated assignment as bytes (a compressed numpy archive) and back."""

from __future__ import annotations

import io

import numpy as np

from models.stage import Stage
from solver.assignment import Assignment

STAGE_FIELDS = ("sources", "destinations", "counts", "allowed")
RUN_FIELDS = ("demand", "direction", "first_colour", "count")


def encode(stage: Stage, assignment: Assignment) -> bytes:
    buffer = io.BytesIO()
    arrays = {f"stage_{k}": getattr(stage, k) for k in STAGE_FIELDS}
    arrays |= {f"run_{k}": getattr(assignment, k) for k in RUN_FIELDS}
    np.savez_compressed(buffer, nodes=np.int64(stage.nodes), **arrays)
    return buffer.getvalue()


def decode(data: bytes) -> tuple[Stage, Assignment]:
    with np.load(io.BytesIO(data), allow_pickle=False) as archive:
        stage = Stage(
            int(archive["nodes"]), *(archive[f"stage_{k}"].astype(np.int64) for k in STAGE_FIELDS)
        )
        assignment = Assignment(*(archive[f"run_{k}"].astype(np.int64) for k in RUN_FIELDS))
    return stage, assignment

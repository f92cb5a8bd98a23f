"""A stage and its validated assignment as bytes (a compressed numpy archive) and back."""

from __future__ import annotations

import io

import numpy as np

from models.stage import Stage
from solver.assignment import Assignment

STAGE_FIELDS = ("sources", "destinations", "counts", "allowed")
RUN_FIELDS = ("demand", "direction", "first_colour", "count")
# Format 2: `allowed` holds a models.ring.Direction or ANY_DIRECTION (2). Format 1 (archives
# without a format field) held 0 = any, 1 = cw only, 2 = ccw only.
FORMAT = 2


def encode(stage: Stage, assignment: Assignment) -> bytes:
    buffer = io.BytesIO()
    arrays = {f"stage_{k}": getattr(stage, k) for k in STAGE_FIELDS}
    arrays |= {f"run_{k}": getattr(assignment, k) for k in RUN_FIELDS}
    np.savez_compressed(buffer, nodes=np.int64(stage.nodes), format=np.int64(FORMAT), **arrays)
    return buffer.getvalue()


def decode(data: bytes) -> tuple[Stage, Assignment]:
    with np.load(io.BytesIO(data), allow_pickle=False) as archive:
        fields = {k: archive[f"stage_{k}"].astype(np.int64) for k in STAGE_FIELDS}
        if "format" not in archive.files:
            fields["allowed"] = (fields["allowed"] + 2) % 3
        stage = Stage(int(archive["nodes"]), **fields)
        assignment = Assignment(*(archive[f"run_{k}"].astype(np.int64) for k in RUN_FIELDS))
    return stage, assignment

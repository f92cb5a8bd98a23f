"""Examples in the OpenAPI document, taken from real answers of this service (no invented
values): small plans, a sweep, a reproduction, one stage, the catalog and an error, recorded
by `python -m app.api.examples` into app/api/examples/*.json.

`attach` sets each recorded answer as its schema's example and walks it down the schema:
every nested model gets the value found at its place as its example, and every property the
value it has there (kept short), so each field shows a real value beside its description.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FOLDER = Path(__file__).with_name("examples")
# file -> the schema of what it holds ("[Schema]" for a list of them)
RECORDED = {
    "plan_allreduce.json": "PlanDocument",
    "plan_infeasible.json": "PlanDocument",
    "plan_alltoall.json": "PlanDocument",
    "plan_page.json": "PlanPage",
    "sweep.json": "SweepDocument",
    "sweep_page.json": "SweepPage",
    "reproduction.json": "ReproductionDocument",
    "reproduction_page.json": "ReproductionPage",
    "rwa_input.json": "RwaInput",
    "rwa.json": "RwaResponse",
    "catalog.json": "[CatalogEntry]",
    "error.json": "ErrorBody",
    "health.json": "Health",
}
MAX_INLINE = 240  # characters of JSON: longer property values are not repeated inline


def attach(document: dict[str, Any]) -> dict[str, Any]:
    schemas = document.get("components", {}).get("schemas", {})
    for name, schema_name in RECORDED.items():
        path = FOLDER / name
        if not path.exists():
            continue
        value = json.loads(path.read_text("utf-8"))
        if schema_name.startswith("["):
            for item in value:
                _walk(schemas, {"$ref": f"#/components/schemas/{schema_name[1:-1]}"}, item)
        else:
            _walk(schemas, {"$ref": f"#/components/schemas/{schema_name}"}, value)
    return document


def _walk(schemas: dict[str, Any], spec: dict[str, Any], value: Any) -> None:
    """Give the schema `spec` points to (through $ref, anyOf/oneOf, arrays, maps) the example
    `value`, and its properties theirs."""
    if value is None:
        return
    if "$ref" in spec:
        name = spec["$ref"].rsplit("/", 1)[1]
        schema = schemas.get(name)
        if schema is None:
            return
        if "example" not in schema and "examples" not in schema:
            schema["example"] = _trimmed(value)
        _walk(schemas, schema, value)
        return
    for key in ("anyOf", "oneOf", "allOf"):
        for option in spec.get(key, []):
            _walk(schemas, option, value)
    if isinstance(value, list) and "items" in spec and isinstance(spec["items"], dict):
        for item in value[:3]:
            _walk(schemas, spec["items"], item)
    if isinstance(value, dict):
        extra = spec.get("additionalProperties")
        if isinstance(extra, dict):
            for item in list(value.values())[:3]:
                _walk(schemas, extra, item)
        for name, prop in spec.get("properties", {}).items():
            if name not in value:
                continue
            if "example" not in prop and "examples" not in prop:
                shown = value[name]
                if isinstance(shown, list) and len(json.dumps(shown)) > MAX_INLINE:
                    shown = shown[:1]
                if len(json.dumps(shown)) <= MAX_INLINE:
                    prop["example"] = shown
            _walk(schemas, prop, value[name])


def accepted(name: str) -> dict[int | str, dict[str, Any]]:
    """The 202 answer of a POST that queues a job, as an OpenAPI `responses` entry: the
    recorded document `name` as it is when queued (nothing solved yet), so the docs do not
    show a finished document under 'queued'."""
    document = json.loads((FOLDER / name).read_text())
    document |= {"status": "queued", "seconds": None, "error": None}
    if "result" in document:
        document["result"] = None
    if "points" in document:
        total = document["points"]["total"]
        document["points"] = {key: 0 for key in document["points"]} | {
            "total": total, "queued": total
        }
    for key in ("findings", "files"):
        if key in document:
            document[key] = []
    if "verdicts" in document:
        document["verdicts"] = {}
    example = {key: value for key, value in document.items() if key != "request"}
    example["request"] = document["request"]
    return {
        202: {
            "description": "queued: GET its URL (Location) until it is done",
            "content": {"application/json": {"example": example}},
        }
    }


KEPT_WHOLE = ("request",)  # a document's request is small, and its counts depend on it


def _trimmed(value: Any) -> Any:
    """The value with every list cut to its first item: a whole plan's example would be tens
    of kilobytes that the docs pages render for every response. A document's `request` is
    kept whole: cut, a sweep's request named one point beside `points.total` = 4."""
    if isinstance(value, list):
        return [_trimmed(item) for item in value[:1]]
    if isinstance(value, dict):
        return {
            key: item if key in KEPT_WHOLE else _trimmed(item) for key, item in value.items()
        }
    return value


def record() -> None:
    """Run a fresh service on a temporary SQLite file and save its answers."""
    import os
    import tempfile
    import time

    from fastapi.testclient import TestClient

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["RWAOPT_DATABASE_URL"] = f"sqlite:///{tmp}/examples.db"
        os.environ["RWAOPT_SHAPE_SEARCH_BUDGET_S"] = "2"
        from app.main import app

        with TestClient(app) as client:
            answers: dict[str, Any] = {}
            plan = {
                "ring": {"nodes": 8, "wavelengths_per_fiber": 2},
                "collective": "allreduce",
                "algorithms": "all",
                "message_sizes_bytes": [65536, 4194304],
                "workloads": ["resnet50"],
                "electrical": True,
                "max_lightpath_hops": 4,
            }
            answers["plan_allreduce.json"] = client.post("/api/v1/plans", json=plan).json()
            infeasible = {  # RD refuses N = 6 (skipped); no laser power is enough
                "ring": {"nodes": 6, "wavelengths_per_fiber": 2},
                "collective": "allreduce",
                "message_sizes_bytes": [65536],
                "optics": {"laser_power_dbm": -20},
            }
            answers["plan_infeasible.json"] = client.post("/api/v1/plans", json=infeasible).json()
            alltoall = {
                "ring": {"nodes": 8, "wavelengths_per_fiber": 2},
                "collective": "alltoall",
                "algorithms": ["tra"],
                "message_sizes_bytes": [65536],
            }
            answers["plan_alltoall.json"] = client.post("/api/v1/plans", json=alltoall).json()
            answers["plan_page.json"] = client.get("/api/v1/plans").json()
            grid = {
                "collective": "allgather",
                "algorithms": ["ring", "optree"],
                "nodes": [8, 16],
                "wavelengths_per_fiber": 2,
                "shape": ["paper", "best"],
                "message_sizes_bytes": [1048576],
            }
            sweep_id = client.post("/api/v1/sweeps", json=grid).json()["id"]
            reproduction_id = client.post(
                "/api/v1/reproductions", json={"targets": ["tra"], "quick": True}
            ).json()["id"]
            for _ in range(600):
                sweep = client.get(f"/api/v1/sweeps/{sweep_id}").json()
                reproduction = client.get(f"/api/v1/reproductions/{reproduction_id}").json()
                if sweep["status"] == "done" and reproduction["status"] == "done":
                    break
                time.sleep(0.5)
            answers["sweep.json"] = sweep
            answers["sweep_page.json"] = client.get("/api/v1/sweeps").json()
            answers["reproduction_page.json"] = client.get("/api/v1/reproductions").json()
            reproduction["findings"] = reproduction["findings"][:3]
            answers["reproduction.json"] = reproduction
            stage = {"nodes": 6, "wavelengths": 2, "demands": [[0, 3, 2], [1, 4, 1, "cw"]]}
            answers["rwa_input.json"] = stage
            answers["rwa.json"] = client.post("/api/v1/rwa", json=stage).json()
            catalog = client.get("/api/v1/algorithms", params={"nodes": 64, "wavelengths": 8})
            answers["catalog.json"] = catalog.json()
            answers["error.json"] = client.get("/api/v1/plans/no-such-plan").json()
            answers["health.json"] = client.get("/ready").json()
    FOLDER.mkdir(exist_ok=True)
    for name, value in answers.items():
        (FOLDER / name).write_text(json.dumps(value, indent=1) + "\n", "utf-8")
        print(f"wrote {FOLDER / name}")


if __name__ == "__main__":
    record()

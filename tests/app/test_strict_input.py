"""Issue 'shared use', items 8 and 9: JSON `true` and numeric strings are not numbers, and a
422 names the field to fix without pydantic's internals."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.main import app

client = TestClient(app)
PLAN = {"ring": {"nodes": 8, "wavelengths_per_fiber": 2}, "collective": "allgather",
        "algorithms": ["ring"], "message_sizes_bytes": [4096]}  # fmt: skip


@pytest.mark.parametrize(
    ("change", "where", "says"),
    [
        ({"message_sizes_bytes": [True]}, "message_sizes_bytes.0", "not true/false"),
        ({"message_sizes_bytes": ["4096"]}, "message_sizes_bytes.0", "not the string '4096'"),
        ({"ring": {"nodes": "8"}}, "ring.nodes", "not the string '8'"),
        ({"max_lightpath_hops": 0}, "max_lightpath_hops", "greater than or equal to 1"),
        ({"max_lightpath_hops": "x"}, "max_lightpath_hops", ""),
    ],
)
def test_plan_numbers_are_json_numbers(change: dict[str, object], where: str, says: str) -> None:
    r = client.post("/api/v1/plans", json=PLAN | change)
    assert r.status_code == 422
    body = r.json()
    assert body["message"].startswith(f"{where}:") and says in body["message"]
    text = r.text
    assert "<function" not in text and "function-after" not in text and "0x" not in text


@pytest.mark.parametrize("demand", [[0, 1, True], [0, True, 1], [0, 1, "2"]])
def test_rwa_demands_are_integers(demand: list[object]) -> None:
    r = client.post("/api/v1/rwa", json={"nodes": 6, "demands": [demand]})
    assert r.status_code == 422, r.text
    assert "<function" not in r.text


def test_a_valid_plan_still_plans() -> None:
    r = client.post("/api/v1/plans", json=PLAN)
    assert r.status_code in (200, 201), r.text


def test_an_algorithm_beyond_a_solver_limit_is_skipped_not_the_plan() -> None:
    """Item 11: with max_tx_per_node 4 at N = 6, w = 3, TRA2's node-limited schedule is
    beyond the first-fit scheduler's limit: "all" skips it with the reason; TRA2 alone is
    refused with it (413)."""
    plan = {"ring": {"nodes": 6, "wavelengths_per_fiber": 3}, "collective": "alltoall",
            "message_sizes_bytes": [2**20], "max_tx_per_node": 4}  # fmt: skip
    r = client.post("/api/v1/plans", json=plan)
    assert r.status_code in (200, 201), r.text
    result = r.json()["result"]
    skipped = {s["algorithm"]: s["reason"] for s in result["skipped"]}
    assert "scheduler's limit" in skipped["tra2"]
    assert "tra2" not in {a["algorithm"] for a in result["algorithms"]}
    assert result["recommendation"][0]["algorithm"] is not None
    alone = client.post("/api/v1/plans", json=plan | {"algorithms": ["tra2"]})
    assert alone.status_code == 413 and "scheduler's limit" in alone.json()["message"]

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


@pytest.mark.parametrize(
    ("path", "body", "where"),
    [
        ("/api/v1/reproductions", {"quick": 0.0}, "quick"),  # schemathesis found it accepted
        ("/api/v1/reproductions", {"quick": "yes"}, "quick"),
        ("/api/v1/plans", PLAN | {"electrical": 1}, "electrical"),
        ("/api/v1/plans", PLAN | {"electrical_network": {"simulate": 0}},
         "electrical_network.simulate"),
    ],
)
def test_switches_are_json_true_or_false(path: str, body: dict[str, object], where: str) -> None:
    """A boolean field takes JSON true / false only: 0, 0.0, 1 or "yes" is a 422 naming it
    (pydantic's lax mode would read them as false or true), and nothing is queued."""
    r = client.post(path, json=body)
    assert r.status_code == 422, r.text
    assert r.json()["message"].startswith(f"{where}:")


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


@pytest.mark.parametrize(
    ("path", "extra"),
    [
        ("/api/v1/plans", '"shape": {"\\ud800": "paper"}'),
        ("/api/v1/plans", '"parameters": {"\\ud800": {"x": 1}}'),
        ("/api/v1/plans", '"algorithms": ["ring\\u0000"]'),
        ("/api/v1/sweeps", '"shape": {"\\ud800": "paper"}'),
        ("/api/v1/sweeps", '"parameters": {"ring": {"\\udfff": 1}}'),
    ],
)
def test_text_no_store_can_keep_is_a_422(path: str, extra: str) -> None:
    """Item 4: a lone surrogate (not UTF-8) or a NUL anywhere, keys too, is refused with a
    422 that names where (it used to be a 500 on SQLite and PostgreSQL)."""
    body = ('{"ring": {"nodes": 8, "wavelengths_per_fiber": 2}, "collective": "allgather", '
            '"message_sizes_bytes": [4096], ' + extra + "}")  # fmt: skip
    if path.endswith("sweeps"):
        body = ('{"collective": "allgather", "nodes": 8, "message_sizes_bytes": [4096], '
                + extra + "}")  # fmt: skip
    r = client.post(path, content=body, headers={"content-type": "application/json"})
    assert r.status_code == 422, r.text
    assert "not storable text" in r.json()["message"]


@pytest.mark.parametrize("name", ["a%00b", "x%01y"])
def test_a_control_character_in_a_report_path_is_a_422(name: str) -> None:
    """Item 4: the path segment is checked before any store is asked (PostgreSQL answered
    503 for a NUL)."""
    r = client.get(f"/api/v1/reproductions/00000000-0000-0000-0000-000000000000/files/{name}")
    assert r.status_code == 422 and r.json()["code"] == "invalid_input"


def test_reproduction_targets_are_each_run_once_and_capped() -> None:
    """Item 5: repeats are dropped (["tra"] * 200 ran for 10 minutes), a list beyond 32 names
    is a 422, and a reproduction can be cancelled (DELETE), after which it is gone."""
    r = client.post("/api/v1/reproductions", json={"targets": ["tra"] * 33, "quick": True})
    assert r.status_code == 422 and "targets" in r.json()["message"]
    r = client.post("/api/v1/reproductions", json={"targets": ["tra", "tra", "tra"],
                                                   "quick": True})  # fmt: skip
    assert r.status_code == 202, r.text
    doc = r.json()
    assert doc["request"]["targets"] == ["tra"]
    assert client.delete(f"/api/v1/reproductions/{doc['id']}").status_code == 204
    assert client.get(f"/api/v1/reproductions/{doc['id']}").status_code == 404
    assert client.delete(f"/api/v1/reproductions/{doc['id']}").status_code == 404

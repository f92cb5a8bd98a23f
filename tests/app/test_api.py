"""The /api/v1 resources built so far, through the ASGI test client."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.api.routes.rwa import EXAMPLE
from app.main import app

client = TestClient(app)


def test_algorithms_with_closed_forms() -> None:
    r = client.get("/api/v1/algorithms", params={"nodes": 1024, "wavelengths": 64})
    assert r.status_code == 200
    by_name = {(e["collective"], e["name"]): e for e in r.json()}
    assert by_name[("allgather", "optree")]["claimed_steps"] == 70


def test_rwa_example_is_optimal() -> None:
    r = client.post("/api/v1/rwa", json=EXAMPLE)
    assert r.status_code == 200
    body = r.json()
    assert (body["chi"], body["steps"], body["status"]) == (3, 2, "optimal")


@pytest.mark.parametrize(
    ("body", "status", "text"),
    [
        ({"nodes": 6, "demands": [[0, 9, 1]]}, 400, "outside the ring"),
        ({"nodes": 1, "demands": [[0, 1, 1]]}, 422, "nodes"),
        ({"nodes": 6, "demands": [[0, 1]]}, 422, "demand 0"),
        ({"nodes": 6, "demands": [[0, 1, 1]], "extra": 1}, 422, "extra"),
    ],
)
def test_rwa_errors(body: dict, status: int, text: str) -> None:
    r = client.post("/api/v1/rwa", json=body)
    assert r.status_code == status
    payload = r.json()
    assert set(payload) == {"code", "message", "detail"}
    assert text in payload["message"]


def test_rwa_takes_the_per_node_limits_the_cli_takes() -> None:
    """`rwaopt rwa --max-tx/--max-rx` had no counterpart in POST /api/v1/rwa (extra fields
    in the body were refused, and the query had none). Node 0 sends three lightpaths: with
    one a slot they take three slots, and no slot of the assignment has node 0 send twice."""
    body = {"nodes": 6, "wavelengths": 4, "demands": [[0, 1, 1], [0, 2, 1], [0, 3, 1]]}
    free = client.post("/api/v1/rwa", json=body).json()
    limited = client.post("/api/v1/rwa", params={"max_tx_per_node": 1}, json=body)
    assert limited.status_code == 200, limited.text
    assert free["steps"] == 1 and limited.json()["steps"] == 3
    bad = client.post("/api/v1/rwa", params={"max_rx_per_node": 0}, json=body)
    assert bad.status_code == 422 and "max_rx_per_node" in bad.json()["message"]


def test_malformed_json() -> None:
    r = client.post(
        "/api/v1/rwa", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert r.status_code == 422 and r.json()["code"] == "invalid_input"


def test_exact_too_large_is_413() -> None:
    n = 201  # odd: an even all-to-all is constructed and needs no model
    demands = [[s, d, 1] for s in range(n) for d in range(n) if s != d]
    r = client.post(
        "/api/v1/rwa",
        params={"method": "exact", "time_limit_s": 5},
        json={"nodes": n, "demands": demands},
    )
    assert r.status_code == 413 and "use the method heuristic or auto" in r.json()["message"]


def test_unknown_collective_is_404() -> None:
    r = client.get("/api/v1/algorithms", params={"collective": "broadcast"})
    assert r.status_code == 404 and "use one of" in r.json()["message"]

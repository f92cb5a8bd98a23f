"""Sweeps: the grid schema, the canonical point hash, and the REST resource on SQLite and
PostgreSQL (inline jobs). The RQ deployment's exactly-once behaviour is in
test_sweeps_rq.py; the CLI's in test_cli_sweep.py."""

from __future__ import annotations

import csv
import itertools
import json
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

from app import sweeps
from app.schemas.requests import PlanRequest
from app.schemas.sweeps import MAX_SWEEP_POINTS, SweepRequest

GRID = {
    "collective": "allreduce",
    "algorithms": "all",
    "nodes": [8, 16],
    "wavelengths_per_fiber": [2, 4],
    "fibers_per_direction": [1, 2],
    "message_sizes_bytes": [4096, 1048576],
    "time_limit_s": 5,
}


def wait_finished(client: TestClient, sweep_id: str, timeout_s: float = 120) -> Any:
    deadline = time.monotonic() + timeout_s
    while (doc := client.get(f"/api/v1/sweeps/{sweep_id}").json())["status"] in (
        "queued",
        "running",
    ):
        assert time.monotonic() < deadline, f"sweep not finished: {doc}"
        time.sleep(0.1)
    return doc


# --- the grid ----------------------------------------------------------------------------------


def test_points_are_every_combination_in_axis_order() -> None:
    grid = SweepRequest.model_validate({**GRID, "shape": ["paper", "best"]})
    points = grid.points()
    expected = list(itertools.product([8, 16], [1, 2], [2, 4], ["paper", "best"]))
    got = [
        (p.ring.nodes, p.ring.fibers_per_direction, p.ring.wavelengths_per_fiber, p.shape)
        for p in points
    ]
    assert got == expected
    assert grid.swept() == ["nodes", "fibers_per_direction", "wavelengths_per_fiber", "shape"]
    assert all(p.message_sizes_bytes == [4096, 1048576] for p in points)  # per point, whole


def test_a_single_value_is_one_point_equal_to_the_plan_request() -> None:
    body = {"collective": "allgather", "nodes": 16, "message_sizes_bytes": [1.0]}
    (point,) = SweepRequest.model_validate(body).points()
    plan = PlanRequest.model_validate(
        {"ring": {"nodes": 16}, "collective": "allgather", "message_sizes_bytes": [1.0]}
    )
    assert point == plan


def test_every_plan_option_is_an_axis() -> None:
    """Hardware, optics, workloads' sizes per point; nested objects swept as lists."""
    grid = SweepRequest.model_validate(
        {
            "collective": ["allgather", "allreduce"],
            "nodes": 8,
            "workloads": ["resnet50"],
            "hardware": [
                {"bandwidth_per_wavelength_gbps": 40},
                {"bandwidth_per_wavelength_gbps": 100},
            ],
            "optics": {"laser_power_dbm": 5},
            "max_lightpath_hops": [None, "loss_budget"],
        }
    )
    points = grid.points()
    assert len(points) == 2 * 2 * 2
    assert {p.hardware.bandwidth_per_wavelength_gbps for p in points} == {40, 100}
    assert {p.optics.laser_power_dbm for p in points} == {5}
    assert all(p.workloads == ["resnet50"] for p in points)


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"nodes": [8, 8]}, "nodes: the values repeat"),
        (
            {"nodes": list(range(2, 66)), "wavelengths_per_fiber": [1, 2, 3, 4, 5]},
            "640 points (64 x 2 x 5)",
        ),
        ({"nodes": [8, 1]}, "greater than or equal to 2"),
        ({"message_sizes_bytes": []}, "give at least 1 message size"),
        ({"time_limit_s": []}, "at least 1 item"),
        ({"colour": "red"}, "Extra inputs are not permitted"),
    ],
)
def test_bad_grids_are_refused_with_what_to_change(
    client: TestClient, change: dict, says: str
) -> None:
    r = client.post("/api/v1/sweeps", json={**GRID, **change})
    assert r.status_code == 422, r.text
    assert says in r.json()["message"]
    assert client.get("/api/v1/sweeps").json()["total"] == 0  # nothing stored


def test_the_point_cap_is_the_documented_one() -> None:
    assert MAX_SWEEP_POINTS == 256
    SweepRequest.model_validate(
        {**GRID, "nodes": list(range(2, 66)), "wavelengths_per_fiber": [1, 2]}
    )


def test_unknown_algorithm_is_404_before_anything_is_stored(client: TestClient) -> None:
    r = client.post("/api/v1/sweeps", json={**GRID, "algorithms": ["ring", "optree"]})
    assert r.status_code == 404
    assert "optree" in r.json()["message"]
    assert client.get("/api/v1/sweeps").json()["total"] == 0


def test_a_sweep_may_name_rwaopts_own_algorithms(client: TestClient) -> None:
    """synth and optimal are in every plan's catalog; a sweep naming them was refused 404
    ("unknown allreduce algorithm 'synth'; known: ring, rd, bt, hring, wrht"), and an unknown
    name's list left them out."""
    body = {**GRID, "nodes": [4], "wavelengths_per_fiber": [1], "fibers_per_direction": [1],
            "algorithms": ["synth", "optimal"], "message_sizes_bytes": [4096]}  # fmt: skip
    r = client.post("/api/v1/sweeps", json=body)
    assert r.status_code == 202, r.text
    rows = client.get(
        f"/api/v1/sweeps/{wait_finished(client, r.json()['id'])['id']}/results",
        params={"format": "json"},
    ).json()
    assert {row["algorithm"] for row in rows} == {"synth", "optimal"}
    r = client.post("/api/v1/sweeps", json={**body, "algorithms": ["synth", "nope"]})
    assert r.status_code == 404
    assert r.json()["detail"]["known"] == ["ring", "rd", "bt", "hring", "wrht", "synth", "optimal"]


# --- the point hash ----------------------------------------------------------------------------


def test_hash_ignores_how_defaults_are_written() -> None:
    short = PlanRequest.model_validate(
        {"ring": {"nodes": 8}, "collective": "allgather", "message_sizes_bytes": [1024]}
    )
    spelled = PlanRequest.model_validate(
        {
            "ring": {"nodes": 8, "fibers_per_direction": 1, "wavelengths_per_fiber": 64},
            "collective": "allgather",
            "message_sizes_bytes": [1024.0],
            "method": "auto",
            "time_limit_s": 10,
            "search_budget_s": 30,
        }
    )
    assert sweeps.request_hash(short, 30.0) == sweeps.request_hash(spelled, 30.0)
    # the budget a request leaves out is the server's: another default is another point
    assert sweeps.request_hash(short, 30.0) != sweeps.request_hash(short, 10.0)


def test_hash_includes_the_version(monkeypatch: pytest.MonkeyPatch) -> None:
    request = PlanRequest.model_validate(
        {"ring": {"nodes": 8}, "collective": "allgather", "message_sizes_bytes": [1024]}
    )
    before = sweeps.request_hash(request, 30.0)
    monkeypatch.setattr(sweeps, "version", lambda: "99.0.0")
    assert sweeps.request_hash(request, 30.0) != before


@settings(max_examples=40, deadline=None)
@given(
    a=st.fixed_dictionaries(
        {
            "nodes": st.sampled_from([4, 8]),
            "w": st.sampled_from([1, 2]),
            "t": st.sampled_from([1.0, 2.0]),
        }
    ),
    b=st.fixed_dictionaries(
        {
            "nodes": st.sampled_from([4, 8]),
            "w": st.sampled_from([1, 2]),
            "t": st.sampled_from([1.0, 2.0]),
        }
    ),
)
def test_hash_equal_exactly_when_requests_equal(a: dict, b: dict) -> None:
    def request(p: dict) -> PlanRequest:
        return PlanRequest.model_validate(
            {
                "ring": {"nodes": p["nodes"], "wavelengths_per_fiber": p["w"]},
                "collective": "allgather",
                "time_limit_s": p["t"],
                "message_sizes_bytes": [1024],
            }
        )

    same = sweeps.request_hash(request(a), 30.0) == sweeps.request_hash(request(b), 30.0)
    assert same == (a == b)


# --- the resource ------------------------------------------------------------------------------


def test_grid_runs_and_its_rows_match_single_plans(client: TestClient) -> None:
    """A 2 x 2 x 2 grid of every all-reduce algorithm: every point done, one row per point,
    algorithm and size, each row equal to the same point planned on its own."""
    r = client.post("/api/v1/sweeps", json=GRID)
    assert r.status_code == 202, r.text
    sweep_id = r.json()["id"]
    assert r.headers["location"] == f"/api/v1/sweeps/{sweep_id}"
    doc = wait_finished(client, sweep_id)
    assert doc["status"] == "done"
    assert doc["points"] == {
        "total": 8,
        "done": 8,
        "failed": 0,
        "cached": 0,
        "running": 0,
        "queued": 0,
        "cancelled": 0,
    }
    assert doc["seconds"] is not None and doc["seconds"] >= 0
    rows = client.get(f"/api/v1/sweeps/{sweep_id}/results", params={"format": "json"}).json()
    # independently: the same point as a plan of its own (solved again, not read back)
    point = {
        "ring": {"nodes": 16, "fibers_per_direction": 2, "wavelengths_per_fiber": 4},
        "collective": "allreduce",
        "message_sizes_bytes": [4096, 1048576],
        "time_limit_s": 5,
    }
    alone = client.post("/api/v1/plans", json=point).json()["result"]
    mine = [
        r
        for r in rows
        if (r["nodes"], r["fibers_per_direction"], r["wavelengths_per_fiber"]) == (16, 2, 4)
    ]
    assert len(mine) == len(alone["algorithms"]) * 2
    for algorithm in alone["algorithms"]:
        for timing in algorithm["timings"]:
            (row,) = [
                r
                for r in mine
                if r["algorithm"] == algorithm["algorithm"]
                and r["message_bytes"] == timing["message_bytes"]
            ]
            assert row["true_steps"] == algorithm["true_steps"]
            assert row["steps_lower_bound"] == algorithm["steps_lower_bound"]
            assert row["time_s"] == pytest.approx(timing["time_s"])
            assert row["feasible"] == algorithm["feasibility"]["feasible"]
            assert row["reduce_then_broadcast"] == algorithm["reduce_then_broadcast"]
            (bound,) = [
                a for a in alone["achievable"] if a["message_bytes"] == timing["message_bytes"]
            ]
            assert row["reduce_then_broadcast_s"] == pytest.approx(
                bound["reduce_then_broadcast_s"]
            )
            (advice,) = [
                r for r in alone["recommendation"] if r["message_bytes"] == timing["message_bytes"]
            ]
            assert row["point_recommends"] == advice["algorithm"]
            if advice["algorithm"] == algorithm["algorithm"]:
                assert row["recommended"]
                assert json.loads(row["recommended_parameters"]) == advice["parameters"]
                assert row["recommended_time_s"] == pytest.approx(advice["time_s"])
            else:
                assert not row["recommended"]
                assert row["recommended_parameters"] is row["recommended_time_s"] is None
    # one recommended algorithm per point and size (where the recommendation is optical)
    for key, group in itertools.groupby(
        sorted(rows, key=lambda r: (r["point"], r["message_bytes"])),
        key=lambda r: (r["point"], r["message_bytes"]),
    ):
        assert sum(r["recommended"] for r in group) == 1, key
    assert len(rows) == sum(1 for _ in rows)
    assert all(r["true_steps"] >= r["steps_lower_bound"] for r in rows)
    assert {r["point"] for r in rows} == set(range(8))


def test_same_grid_again_is_answered_from_reused_points(client: TestClient) -> None:
    body = {**GRID, "collective": "allgather", "nodes": [8], "fibers_per_direction": 1}
    started = time.monotonic()
    first = wait_finished(client, client.post("/api/v1/sweeps", json=body).json()["id"])
    first_s = time.monotonic() - started
    started = time.monotonic()
    again = client.post("/api/v1/sweeps", json=body).json()
    assert again["points"]["cached"] == 2 and again["status"] == "done"  # done on arrival
    second_s = time.monotonic() - started
    assert first["points"]["cached"] == 0
    assert second_s < first_s
    rows = [
        client.get(f"/api/v1/sweeps/{d['id']}/results", params={"format": "json"}).json()
        for d in (first, again)
    ]
    assert [r["cached"] for r in rows[1]] == [True] * len(rows[1])
    strip = [[{k: v for k, v in r.items() if k != "cached"} for r in group] for group in rows]
    assert strip[0] == strip[1]


def test_a_point_solved_by_a_plan_is_reused(client: TestClient) -> None:
    plan = {
        "ring": {"nodes": 8, "wavelengths_per_fiber": 2},
        "collective": "alltoall",
        "message_sizes_bytes": [4096],
    }
    plan_id = client.post("/api/v1/plans", json=plan).json()["id"]
    body = {
        "collective": "alltoall",
        "nodes": [8, 12],
        "wavelengths_per_fiber": 2,
        "message_sizes_bytes": [4096],
    }
    doc = wait_finished(client, client.post("/api/v1/sweeps", json=body).json()["id"])
    assert doc["points"]["cached"] == 1 and doc["points"]["done"] == 2
    rows = client.get(f"/api/v1/sweeps/{doc['id']}/results", params={"format": "json"}).json()
    assert {r["plan_id"] for r in rows if r["nodes"] == 8} == {plan_id}


def test_a_point_an_algorithm_refuses_fails_with_its_reason_and_the_sweep_completes(
    client: TestClient,
) -> None:
    """Explicit RD on N = 6 and 8: RD needs a power of two, so point N = 6 fails, N = 8 runs."""
    body = {
        "collective": "allreduce",
        "algorithms": ["rd"],
        "nodes": [6, 8],
        "wavelengths_per_fiber": 2,
        "message_sizes_bytes": [4096],
    }
    doc = wait_finished(client, client.post("/api/v1/sweeps", json=body).json()["id"])
    assert doc["status"] == "done"
    assert (doc["points"]["done"], doc["points"]["failed"]) == (1, 1)
    csv_text = client.get(f"/api/v1/sweeps/{doc['id']}/results").text
    header, *lines = csv_text.strip().splitlines()
    assert header.startswith("point,plan_id,status,cached,collective,nodes")
    failed = [line for line in lines if ",failed," in line]
    assert len(failed) == 1 and "power of two" in failed[0]


def test_ndjson_and_csv_carry_the_same_rows(client: TestClient) -> None:
    body = {
        **GRID,
        "nodes": 8,
        "wavelengths_per_fiber": 2,
        "fibers_per_direction": 1,
        "time_limit_s": [4, 5],
    }
    doc = wait_finished(client, client.post("/api/v1/sweeps", json=body).json()["id"])
    base = f"/api/v1/sweeps/{doc['id']}/results"
    ndjson = client.get(base, params={"format": "ndjson"})
    assert ndjson.headers["content-type"].startswith("application/x-ndjson")
    lines = ndjson.text.strip().splitlines()
    csv_lines = client.get(base).text.strip().splitlines()
    assert len(csv_lines) == len(lines) + 1
    assert csv_lines[0].endswith(",error,time_limit_s")  # the swept option has a column
    rows = list(csv.DictReader(csv_lines))
    assert sorted({row["time_limit_s"] for row in rows}) == ["4.0", "5.0"]  # not JSON text
    # a whole claim is an integer, as in the plan's CSV (review, session 32: '14.0')
    claims = {row["algorithm"]: row["claimed"] for row in rows if row["claimed"]}
    assert claims and all(value.isdigit() for value in claims.values()), claims


def test_a_swept_option_named_like_a_column_gets_a_column_of_its_own(client: TestClient) -> None:
    """Sweeping `shape` gave two columns named shape (a CSV reader keeps the last), the
    swept one JSON-quoted ('"best"')."""
    body = {**GRID, "nodes": 8, "wavelengths_per_fiber": 2, "fibers_per_direction": 1,
            "algorithms": ["ring"], "message_sizes_bytes": [4096],
            "shape": ["best", "paper"]}  # fmt: skip
    doc = wait_finished(client, client.post("/api/v1/sweeps", json=body).json()["id"])
    text = client.get(f"/api/v1/sweeps/{doc['id']}/results").text
    header = text.splitlines()[0].split(",")
    assert header.count("shape") == 1 and header[-1] == "swept_shape"
    rows = list(csv.DictReader(text.splitlines()))
    assert sorted(row["swept_shape"] for row in rows) == ["best", "paper"]


def test_plots_and_paging(client: TestClient) -> None:
    body = {**GRID, "wavelengths_per_fiber": 2, "fibers_per_direction": 1}
    doc = wait_finished(client, client.post("/api/v1/sweeps", json=body).json()["id"])
    png = client.get(f"/api/v1/sweeps/{doc['id']}/plots/steps-vs-nodes.png")
    assert png.status_code == 200 and png.content.startswith(b"\x89PNG")
    svg = client.get(f"/api/v1/sweeps/{doc['id']}/plots/time-vs-message.svg")
    assert svg.status_code == 200 and b"<svg" in svg.content
    page = client.get("/api/v1/sweeps", params={"limit": 1}).json()
    assert page["limit"] == 1 and len(page["items"]) == 1 and page["total"] >= 1
    assert client.get("/api/v1/sweeps/nope").status_code == 404
    assert client.delete("/api/v1/sweeps/nope").status_code == 404


def test_cancel_drops_queued_points_and_keeps_finished_ones(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Held jobs: nothing runs until released, so the cancel finds every point queued."""
    from app.api.routes import sweeps as routes

    held: list[str] = []
    monkeypatch.setattr(routes, "submit", lambda plan_id: held.append(plan_id))
    body = {**GRID, "collective": "alltoall", "wavelengths_per_fiber": 3}
    doc = client.post("/api/v1/sweeps", json=body).json()
    assert len(held) == 4 and doc["status"] == "queued"
    # one point finishes before the cancel
    from app.jobs.queue import run_plan_job
    from app.settings import get_settings

    assert run_plan_job(held[0], get_settings().database_url) == "done"
    assert client.delete(f"/api/v1/sweeps/{doc['id']}").status_code == 204
    after = client.get(f"/api/v1/sweeps/{doc['id']}").json()
    assert after["status"] == "cancelled"
    assert (after["points"]["done"], after["points"]["cancelled"]) == (1, 3)
    # a released job of a cancelled point does nothing
    assert run_plan_job(held[1], get_settings().database_url) == "gone"
    assert client.get(f"/api/v1/sweeps/{doc['id']}").json()["points"]["cancelled"] == 3
    # a new sweep of the same grid solves the cancelled points again and reuses the done one
    again = client.post("/api/v1/sweeps", json=body).json()
    assert again["points"]["cached"] == 1 and len(held) == 4 + 3
    client.delete(f"/api/v1/sweeps/{again['id']}")  # its held jobs would run at the next start


def test_cancel_keeps_points_another_sweep_shares(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.api.routes import sweeps as routes

    held: list[str] = []
    monkeypatch.setattr(routes, "submit", lambda plan_id: held.append(plan_id))
    body = {**GRID, "collective": "alltoall", "wavelengths_per_fiber": 5}
    first = client.post("/api/v1/sweeps", json=body).json()
    second = client.post("/api/v1/sweeps", json=body).json()
    assert len(held) == 4  # the second shares the first's queued plans
    assert client.delete(f"/api/v1/sweeps/{first['id']}").status_code == 204
    shared = client.get(f"/api/v1/sweeps/{second['id']}").json()
    assert shared["status"] == "queued" and shared["points"]["queued"] == 4
    assert client.delete(f"/api/v1/sweeps/{second['id']}").status_code == 204
    assert client.get(f"/api/v1/sweeps/{second['id']}").json()["points"]["cancelled"] == 4


def test_a_running_point_stops_at_its_next_stage_check(client: TestClient) -> None:
    """CancelWatch: once the plan is cancelled, the solve raises at its next stage."""
    from app.errors import JobCancelledError
    from app.jobs import watch
    from app.persistence.store import PlanStore
    from app.schemas.documents import JobStatus
    from app.settings import get_settings

    url = get_settings().database_url
    store = PlanStore(url)
    plan = store.create(
        PlanRequest.model_validate(
            {"ring": {"nodes": 8}, "collective": "allgather", "message_sizes_bytes": [1]}
        )
    )
    check = watch.CancelWatch(url, plan.id)
    check("ring", 1, 2)  # queued: goes on
    store.mark_running(plan.id)
    from sqlalchemy import update

    from app.persistence.database import session_factory
    from app.persistence.tables import PlanRow

    with session_factory(url).begin() as session:
        session.execute(
            update(PlanRow).where(PlanRow.id == plan.id).values(status=JobStatus.CANCELLED)
        )
    check("ring", 1, 2)  # checked less than a second ago: no database read yet
    check._checked -= watch.CHECK_EVERY_S
    with pytest.raises(JobCancelledError):
        check("ring", 2, 2)


def test_unreachable_queue_leaves_no_sweep_and_no_plan(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.api.routes import sweeps as routes

    queued: list[str] = []

    def down_after_one(plan_id: str) -> None:
        if queued:
            raise ConnectionError("redis is down")
        queued.append(plan_id)

    monkeypatch.setattr(routes, "submit", down_after_one)
    sweeps_before = client.get("/api/v1/sweeps").json()["total"]
    plans_before = client.get("/api/v1/plans").json()["total"]
    r = client.post("/api/v1/sweeps", json={**GRID, "wavelengths_per_fiber": 7})
    assert r.status_code == 503 and "unreachable" in r.json()["message"]
    assert client.get("/api/v1/sweeps").json()["total"] == sweeps_before
    assert client.get("/api/v1/plans").json()["total"] == plans_before
    from app.jobs.queue import run_plan_job
    from app.settings import get_settings

    assert run_plan_job(queued[0], get_settings().database_url) == "gone"  # queued, then removed


# --- DELETE of a finished sweep (user review: 204 but nothing removed) ----------------------


def _stored_plans(database_url: str, plan_ids: set[str]) -> tuple[int, int]:
    """(plans, solutions) stored for these plan ids."""
    from sqlalchemy import func, select

    from app.persistence.database import session_factory
    from app.persistence.tables import PlanRow, SolutionRow

    with session_factory(database_url)() as session:
        plans = session.scalar(
            select(func.count()).select_from(PlanRow).where(PlanRow.id.in_(plan_ids))
        )
        solutions = session.scalar(
            select(func.count()).select_from(SolutionRow).where(SolutionRow.plan_id.in_(plan_ids))
        )
    return int(plans or 0), int(solutions or 0)


def test_deleting_a_finished_sweep_removes_it_and_the_plans_only_it_used(
    client: TestClient, database_url: str
) -> None:
    """DELETE on a done sweep: 204, then 404 (document, results, plots, list, a second
    DELETE), like a plan. The plans made for it go too, with their solutions; a plan posted
    on its own (reused, cached) and one another sweep shares stay, and that sweep's results
    are whole; deleting that sweep then removes the shared plan."""
    size = [123457]  # a message size no other test of the module uses: nothing reused
    own = client.post(
        "/api/v1/plans",
        json={
            "ring": {"nodes": 6, "wavelengths_per_fiber": 3},
            "collective": "allgather",
            "algorithms": ["ring"],
            "message_sizes_bytes": size,
        },
    ).json()
    assert own["status"] == "done"
    grid = {"collective": "allgather", "algorithms": ["ring"], "wavelengths_per_fiber": 3,
            "message_sizes_bytes": size}  # fmt: skip

    def run(nodes: list[int]) -> tuple[dict[str, Any], dict[int, str]]:
        posted = client.post("/api/v1/sweeps", json={**grid, "nodes": nodes})
        assert posted.status_code == 202, posted.text
        doc = wait_finished(client, posted.json()["id"])
        assert doc["status"] == "done", doc
        rows = client.get(
            f"/api/v1/sweeps/{doc['id']}/results", params={"format": "json"}
        ).json()
        return doc, {row["nodes"]: row["plan_id"] for row in rows}

    first, first_plans = run([6, 10])
    assert first_plans[6] == own["id"] and first["points"]["cached"] == 1
    second, second_plans = run([10, 12])
    assert second_plans[10] == first_plans[10]  # shared with the first sweep
    made = {first_plans[10], second_plans[12]}
    assert _stored_plans(database_url, made)[1] > 0  # solutions stored

    base = f"/api/v1/sweeps/{first['id']}"
    assert client.delete(base).status_code == 204
    assert client.get(base).status_code == 404
    assert client.get(f"{base}/results").status_code == 404
    assert client.get(f"{base}/plots/steps-vs-nodes.svg").status_code == 404
    listed = client.get("/api/v1/sweeps", params={"limit": 100}).json()["items"]
    assert first["id"] not in {s["id"] for s in listed}
    assert client.delete(base).status_code == 404
    # the plan posted on its own and the plan the second sweep shares stay
    assert client.get(f"/api/v1/plans/{own['id']}").json()["status"] == "done"
    assert client.get(f"/api/v1/plans/{first_plans[10]}").json()["status"] == "done"
    still = client.get(f"/api/v1/sweeps/{second['id']}").json()
    assert still["status"] == "done" and still["points"]["done"] == 2
    rows = client.get(
        f"/api/v1/sweeps/{second['id']}/results", params={"format": "json"}
    ).json()
    assert all(row["status"] == "done" and row["error"] is None for row in rows)

    # the last sweep using the shared plan goes: so does that plan, and its own plan
    assert client.delete(f"/api/v1/sweeps/{second['id']}").status_code == 204
    assert client.get(f"/api/v1/sweeps/{second['id']}").status_code == 404
    for plan_id in made:
        assert client.get(f"/api/v1/plans/{plan_id}").status_code == 404
    assert _stored_plans(database_url, made) == (0, 0)
    assert client.get(f"/api/v1/plans/{own['id']}").status_code == 200
    from sqlalchemy import func, select

    from app.persistence.database import session_factory
    from app.persistence.tables import SweepPointRow

    with session_factory(database_url)() as session:
        left = session.scalar(
            select(func.count())
            .select_from(SweepPointRow)
            .where(SweepPointRow.sweep_id.in_([first["id"], second["id"]]))
        )
    assert left == 0


def test_deleting_a_running_sweep_cancels_it_and_a_second_delete_removes_it(
    client: TestClient, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A queued sweep's DELETE keeps its behaviour (cancel: 204, still readable,
    `cancelled`); the sweep is then finished, so a second DELETE removes it and its plans."""
    from app.api.routes import sweeps as routes

    held: list[str] = []
    monkeypatch.setattr(routes, "submit", lambda plan_id: held.append(plan_id))
    body = {**GRID, "collective": "alltoall", "wavelengths_per_fiber": 7}
    doc = client.post("/api/v1/sweeps", json=body).json()
    assert len(held) == 4 and doc["status"] == "queued"
    base = f"/api/v1/sweeps/{doc['id']}"
    assert client.delete(base).status_code == 204
    cancelled = client.get(base)
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    assert cancelled.json()["points"]["cancelled"] == 4
    assert client.delete(base).status_code == 204
    assert client.get(base).status_code == 404
    assert all(client.get(f"/api/v1/plans/{p}").status_code == 404 for p in held)
    assert _stored_plans(database_url, set(held)) == (0, 0)
    from app.jobs.queue import run_plan_job

    assert run_plan_job(held[0], database_url) == "gone"  # a released job does nothing


def test_every_sweep_field_is_described_in_words() -> None:
    """Review (session 33): the OpenAPI document read '. One value for every point, ...' for
    `collective` (an empty name), 'hardware. One value ...' for fields without a description,
    and 'at most MAX_SWEEP_POINTS' (a constant's name) for the grid's limit."""
    from app.schemas.sweeps import MAX_SWEEP_POINTS, SweepRequest

    schema = SweepRequest.model_json_schema()
    for name, field in schema["properties"].items():
        text = field.get("description", "")
        what = text.split(". One value")[0]
        assert what.strip() and what != name, (name, text)
    assert f"at most {MAX_SWEEP_POINTS} of them" in schema["description"]


def test_a_sweep_whose_every_point_fails_has_failed(client: TestClient) -> None:
    """Review (session 35): RD on N = 6 and 12 (neither a power of two) failed both points,
    and the sweep read `done`, a status the README keeps for sweeps with results; `failed`
    was listed but never given."""
    body = {"collective": "allreduce", "algorithms": ["rd"], "nodes": [6, 12],
            "wavelengths_per_fiber": 2, "message_sizes_bytes": [4096]}  # fmt: skip
    doc = wait_finished(client, client.post("/api/v1/sweeps", json=body).json()["id"])
    assert doc["status"] == "failed"
    assert (doc["points"]["done"], doc["points"]["failed"]) == (0, 2)


def test_an_electrical_recommendation_is_in_every_row_of_its_point(client: TestClient) -> None:
    """Review (session 35): where the electrical fat-tree won (N = 8, w = 1, a 10 Tb/s
    fat-tree), no row was `recommended` and nothing said what was: the point read like one
    where nothing is feasible. `point_recommends` names e-ring / e-rd on every row."""
    body = {
        "collective": "allreduce", "algorithms": ["ring", "wrht"], "nodes": 8,
        "wavelengths_per_fiber": 1, "message_sizes_bytes": [1024, 268435456],
        "time_limit_s": 5, "search_budget_s": 3, "electrical": True,
        "electrical_network": [{"simulate": False, "link_gbps": 25},
                               {"simulate": False, "link_gbps": 10000, "link_latency_us": 0.01}],
    }  # fmt: skip
    doc = wait_finished(client, client.post("/api/v1/sweeps", json=body).json()["id"])
    rows = client.get(f"/api/v1/sweeps/{doc['id']}/results", params={"format": "json"}).json()
    for point in (0, 1):
        plan_id = next(r["plan_id"] for r in rows if r["point"] == point)
        plan = client.get(f"/api/v1/plans/{plan_id}").json()
        picks = {r["message_bytes"]: r for r in plan["result"]["recommendation"]}
        for row in (r for r in rows if r["point"] == point):
            advice = picks[row["message_bytes"]]
            assert row["point_recommends"] == advice["algorithm"]
            assert row["recommended"] == (advice["network"] == "optical"
                                          and advice["algorithm"] == row["algorithm"])
    electrical = [r for r in rows if r["point_recommends"] in ("e-ring", "e-rd")]
    assert electrical and not any(r["recommended"] for r in electrical)

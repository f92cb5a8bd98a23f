"""POST/GET/DELETE /api/v1/plans, the lightpath table and plots, against SQLite and
PostgreSQL (see conftest.py), through the ASGI test client."""

from __future__ import annotations

import csv
import io
import json
import time
from collections import Counter
from typing import Any

import pytest
from fastapi.testclient import TestClient

from models import closed_forms as cf
from models.achievable import achievable_bound
from models.ring import Hardware, Ring
from tests.app.conftest import restart

SMALL = {
    "ring": {"nodes": 8, "fibers_per_direction": 1, "wavelengths_per_fiber": 2},
    "collective": "allgather",
    "algorithms": "all",
    "message_sizes_bytes": [4096, 1048576],
    "time_limit_s": 5,
}


def post_plan(client: TestClient, body: dict[str, Any], **params: Any) -> dict[str, Any]:
    r = client.post("/api/v1/plans", json=body, params=params)
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_plan_compares_every_allgather_algorithm(client: TestClient) -> None:
    doc = post_plan(client, SMALL)
    assert doc["status"] == "done" and doc["error"] is None
    result = doc["result"]
    names = [a["algorithm"] for a in result["algorithms"]]
    assert names == ["ring", "ne", "osm", "wrht", "optree", "synth"]
    (skipped,) = result["skipped"]  # the exact model at N = 8, w = 2 is beyond what "all" runs
    assert skipped["algorithm"] == "optimal" and "ask for it by name" in skipped["reason"]
    by_name = {a["algorithm"]: a for a in result["algorithms"]}
    for i, bound in enumerate(result["achievable"]):
        assert bound["hop_limit"] == 7 and bound["exact_s"] is None
        assert bound["bound_s"] >= max(bound["terms"].values()) * (1 - 1e-12)
        for a in result["algorithms"]:
            t = a["timings"][i]
            assert t["achievable_s"] == bound["bound_s"]  # all feasible: the optics' bound
            assert 0 < t["fraction_of_achievable"] <= 1
            assert t["fraction_of_achievable"] == pytest.approx(t["achievable_s"] / t["time_s"])
    # Ring all-gather: N - 1 stages of one 1-hop lightpath per node, one slot each.
    assert by_name["ring"]["true_steps"] == 7
    for a in result["algorithms"]:
        assert a["true_steps"] >= a["steps_lower_bound"]
        if a["algorithm"] == "synth":  # no paper, no claim
            assert a["claimed"] is None and a["steps_difference"] is None
        elif a["parameters"] != a["shapes"]["paper"]["parameters"] and a["algorithm"] == "wrht":
            # its form counts only the paper's shape: no claim for this one, none set against it
            assert a["claimed"]["value"] is None and a["steps_difference"] is None
            assert "claims" in a["claimed"]["note"]
            assert a["shapes"]["paper"]["claimed_steps"] == cf.wrht_allgather_steps(8, 2)
        else:
            assert a["claimed"]["unit"] == "steps"
            assert a["steps_difference"] == a["true_steps"] - a["claimed_steps"]
        assert a["steps_optimal"] == (a["true_steps"] == a["steps_lower_bound"])
        shapes = a["shapes"]
        assert shapes["asked"] == "best" and shapes["search"]["exhaustive"]
        assert a["true_steps"] == shapes["best"]["true_steps"] <= shapes["paper"]["true_steps"]
        assert [t["message_bytes"] for t in a["timings"]] == [4096, 1048576]
        for stage in a["stages"]:
            assert stage["chi"] >= stage["lower_bound"]
            assert stage["steps"] == -(-stage["chi"] // 2)
    feasible = [a for a in result["algorithms"] if a["feasibility"]["feasible"]]
    assert feasible  # the default optics carry these short rings
    for i, advice in enumerate(result["recommendation"]):
        assert advice["feasible"] and advice["time_s"] == min(_feasible_times(result, i).values())
        assert advice["time_s"] <= min(a["timings"][i]["time_s"] for a in feasible)
        chosen = _feasible_shapes(by_name[advice["algorithm"]], i)
        assert advice["parameters"] == chosen["parameters"]
        assert advice["time_s"] == chosen["time_s"]


def _feasible_shapes(algorithm: dict[str, Any], i: int) -> dict[str, Any]:
    """An algorithm's fastest feasible shape at message size i, as the document states it:
    the search's per-size feasible winner, or (no search) its reported shape if feasible."""
    search = algorithm["shapes"]["search"]
    if search is not None:
        return search["best_feasible_by_message"][i]  # type: ignore[no-any-return]
    if not algorithm["feasibility"]["feasible"]:
        return {}
    return {"parameters": algorithm["parameters"], "time_s": algorithm["timings"][i]["time_s"]}


def _feasible_times(result: dict[str, Any], i: int) -> dict[str, float]:
    """Per algorithm with a feasible shape at size i: that shape's time."""
    out = {}
    for a in result["algorithms"]:
        shape = _feasible_shapes(a, i)
        if shape:
            out[a["algorithm"]] = shape["time_s"]
    return out


def test_the_exact_optimum_sits_between_the_bound_and_every_paper_algorithm(
    client: TestClient,
) -> None:
    """N = 5, w = 2: "all" runs `optimal` (pieces 1..4); every paper all-gather moves one whole
    item per lightpath, which the one-piece model covers, so none is faster."""
    small = SMALL | {"ring": {"nodes": 5, "wavelengths_per_fiber": 2}, "time_limit_s": 30}
    result = post_plan(client, small)["result"]
    by_name = {a["algorithm"]: a for a in result["algorithms"]}
    optimal = by_name.pop("optimal")
    assert optimal["claimed"] is None and optimal["shapes"]["search"]["exhaustive"]
    for i, bound in enumerate(result["achievable"]):
        exact = bound["exact_s"]
        assert exact == optimal["shapes"]["search"]["best_by_message"][i]["time_s"]
        assert bound["bound_s"] <= exact
        assert all(exact <= a["timings"][i]["time_s"] for a in by_name.values())
        # the shape `optimal` reports is the first size's winner; later sizes may be won by
        # other pieces (search.best_by_message), which exact_s reports
        assert result["recommendation"][i]["time_s"] >= exact
    assert result["recommendation"][0]["time_s"] == result["achievable"][0]["exact_s"]
    assert result["recommendation"][0]["algorithm"] == "optimal"
    assert "of the achievable" in result["recommendation"][0]["why"]


def test_get_after_restart_returns_the_same_plan(client: TestClient, settings_env: str) -> None:
    doc = post_plan(client, SMALL | {"algorithms": ["ring", "optree"]})
    restart()
    from app.main import app

    with TestClient(app) as fresh:
        again = fresh.get(f"/api/v1/plans/{doc['id']}")
    assert again.status_code == 200
    assert again.json() == doc


def test_a_waited_plan_is_created_when_its_request_came_in(client: TestClient) -> None:
    """A plan solved before it is stored (wait=true) had created_at = the moment it finished."""
    from datetime import UTC, datetime

    body = {"ring": {"nodes": 64, "wavelengths_per_fiber": 8}, "collective": "allreduce",
            "algorithms": ["ring", "synth"], "message_sizes_bytes": [1048576]}  # fmt: skip
    sent = datetime.now(UTC)
    doc = client.post("/api/v1/plans", json=body).json()
    answered = datetime.now(UTC)
    created = datetime.fromisoformat(doc["created_at"].replace("Z", "+00:00"))
    assert doc["status"] == "done" and doc["seconds"] > 0.05
    assert sent <= created
    assert (answered - created).total_seconds() >= 0.9 * doc["seconds"]


def test_list_is_paged_newest_first(client: TestClient) -> None:
    ids = [post_plan(client, SMALL | {"algorithms": ["ring"]})["id"] for _ in range(3)]
    page = client.get("/api/v1/plans", params={"limit": 2}).json()
    assert page["total"] >= 3 and page["limit"] == 2
    assert [p["id"] for p in page["items"]] == ids[::-1][:2]
    second = client.get("/api/v1/plans", params={"limit": 2, "offset": 1}).json()
    assert second["items"][0]["id"] == ids[1]


def test_delete(client: TestClient) -> None:
    plan_id = post_plan(client, SMALL | {"algorithms": ["ring"]})["id"]
    assert client.delete(f"/api/v1/plans/{plan_id}").status_code == 204
    for r in (client.get(f"/api/v1/plans/{plan_id}"), client.delete(f"/api/v1/plans/{plan_id}")):
        assert r.status_code == 404 and r.json()["code"] == "not_found"
    assert client.get(f"/api/v1/plans/{plan_id}/assignment").status_code == 404


def check_lightpaths(nodes: int, channels: int, rows: list[dict[str, Any]]) -> None:
    """Independent of the solver: within one (algorithm, stage, slot, fibre, wavelength,
    direction), no two lightpaths share a link."""
    used: set[tuple[Any, ...]] = set()
    for r in rows:
        assert 0 <= int(r["wavelength"]) < channels
        s, d, cw = int(r["source"]), int(r["destination"]), r["direction"] == "cw"
        hops = (d - s) % nodes if cw else (s - d) % nodes
        assert hops == int(r["hops"])
        for h in range(hops):
            link = (s + h) % nodes if cw else (s - h - 1) % nodes
            key = (r["algorithm"], r["stage"], r["slot"], r["fiber"], r["wavelength"],
                   r["direction"], link)  # fmt: skip
            assert key not in used, f"two lightpaths on {key}"
            used.add(key)


def test_assignment_csv_and_ndjson(client: TestClient) -> None:
    doc = post_plan(client, SMALL)
    plan_id = doc["id"]
    r = client.get(f"/api/v1/plans/{plan_id}/assignment", params={"format": "csv"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
    table = list(csv.DictReader(io.StringIO(r.text)))
    r2 = client.get(f"/api/v1/plans/{plan_id}/assignment", params={"format": "ndjson"})
    assert r2.headers["content-type"].startswith("application/x-ndjson")
    records = [json.loads(line) for line in r2.text.splitlines()]
    assert len(records) == len(table)
    assert {k: str(v) for k, v in records[-1].items()} == table[-1]
    check_lightpaths(8, 2, table)
    # Every stage's unit lightpaths are all there, and slots stay below the stage's steps.
    rows_per_stage = Counter((row["algorithm"], int(row["stage"])) for row in table)
    for a in doc["result"]["algorithms"]:
        for stage in a["stages"]:
            assert rows_per_stage[(a["algorithm"], stage["index"])] == stage["unit_lightpaths"]
        slots = Counter((row["stage"], row["slot"]) for row in table
                        if row["algorithm"] == a["algorithm"])  # fmt: skip
        for stage_index, slot in slots:
            assert int(slot) < a["stages"][int(stage_index)]["steps"]
    only = client.get(f"/api/v1/plans/{plan_id}/assignment", params={"algorithm": "ring"})
    assert {row["algorithm"] for row in csv.DictReader(io.StringIO(only.text))} == {"ring"}
    # Ring all-gather: N stages x N one-hop lightpaths minus one stage.
    assert only.text.count("\n") == 1 + 7 * 8


@pytest.mark.parametrize(("kind", "fmt", "magic"), [
    ("channel-usage", "png", b"\x89PNG"), ("channel-usage", "svg", b"<svg"),
    ("time-vs-message", "png", b"\x89PNG"), ("time-vs-message", "svg", b"<svg"),
])  # fmt: skip
def test_plots(client: TestClient, kind: str, fmt: str, magic: bytes) -> None:
    plan_id = post_plan(client, SMALL | {"algorithms": ["ring", "optree"]})["id"]
    r = client.get(f"/api/v1/plans/{plan_id}/plots/{kind}.{fmt}", params={"algorithm": "optree"})
    assert r.status_code == 200
    assert magic in r.content[:400]


def test_plot_errors(client: TestClient) -> None:
    plan_id = post_plan(client, SMALL | {"algorithms": ["ring"]})["id"]
    assert client.get(f"/api/v1/plans/{plan_id}/plots/heat.png").status_code == 422
    assert client.get(f"/api/v1/plans/{plan_id}/plots/time-vs-message.gif").status_code == 422
    r = client.get(f"/api/v1/plans/{plan_id}/plots/channel-usage.png", params={"algorithm": "x"})
    assert r.status_code == 404 and "it has: ring" in r.json()["message"]


def test_queued_plan_runs_in_the_background(client: TestClient) -> None:
    r = client.post("/api/v1/plans", json=SMALL, params={"wait": "false"})
    assert r.status_code == 202
    plan_id = r.json()["id"]
    assert r.headers["location"] == f"/api/v1/plans/{plan_id}"
    assert r.json()["status"] in ("queued", "running")
    deadline = time.monotonic() + 60
    while (doc := client.get(f"/api/v1/plans/{plan_id}").json())["status"] != "done":
        assert doc["status"] in ("queued", "running"), doc
        assert time.monotonic() < deadline
        time.sleep(0.1)
    direct = post_plan(client, SMALL)
    assert [a["true_steps"] for a in doc["result"]["algorithms"]] == [
        a["true_steps"] for a in direct["result"]["algorithms"]
    ]


def test_unfinished_plan_has_no_lightpaths_yet(client: TestClient, settings_env: str) -> None:
    from app.persistence.store import PlanStore
    from app.schemas.requests import PlanRequest

    row = PlanStore(settings_env).create(PlanRequest.model_validate(SMALL))
    r = client.get(f"/api/v1/plans/{row.id}/assignment")
    assert r.status_code == 409 and "is queued" in r.json()["message"]


BAD = [
    ({"ring": {"nodes": 1}}, 422, "ring.nodes"),
    ({"ring": {"nodes": 8, "wavelengths_per_fiber": 0}}, 422, "wavelengths_per_fiber"),
    ({"ring": {"nodes": 9000}}, 422, "less than or equal to 8192"),
    ({"algorithms": ["ring", "bogus"]}, 404, "unknown"),
    ({"algorithms": ["ring"], "parameters": {"ring": {"radix": 2}}}, 400, "no parameter radix"),
    ({"algorithms": ["ring"], "parameters": {"optree": {"branching": [2]}}}, 400, "optree"),
    ({"message_sizes_bytes": [0]}, 422, "greater than 0"),
    ({"message_sizes_bytes": [1e30]}, 422, "less than 1000000000000000"),
    ({"message_sizes_bytes": []}, 422, "at least 1"),
    ({"time_limit_s": 0}, 422, "time_limit_s"),
    ({"method": "fast"}, 422, "method"),
    ({"collective": "broadcast"}, 422, "collective"),
    ({"surprise": 1}, 422, "surprise"),
    ({"electrical": True}, 400, "compares all-reduce"),
    ({"workloads": ["lenet"]}, 422, "workloads"),
]


@pytest.mark.parametrize(("change", "status", "text"), BAD)
def test_bad_plan_requests(
    client: TestClient, change: dict[str, Any], status: int, text: str
) -> None:
    before = client.get("/api/v1/plans").json()["total"]
    r = client.post("/api/v1/plans", json=SMALL | change)
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body) == {"code", "message", "detail"}
    assert text in body["message"]
    assert client.get("/api/v1/plans").json()["total"] == before  # nothing half-written


def test_refusal_says_what_works(client: TestClient) -> None:
    body = SMALL | {"ring": {"nodes": 12, "wavelengths_per_fiber": 8}, "collective": "allreduce",
                    "algorithms": ["rd"]}  # fmt: skip
    r = client.post("/api/v1/plans", json=body)
    assert r.status_code == 422 and "use N=8 or N=16" in r.json()["message"]


def test_method_beyond_its_size_limit_is_413(client: TestClient) -> None:
    body = SMALL | {"ring": {"nodes": 301, "wavelengths_per_fiber": 64},  # odd: no construction
                    "algorithms": ["osm"], "method": "exact"}  # fmt: skip
    before = client.get("/api/v1/plans").json()["total"]
    r = client.post("/api/v1/plans", json=body)
    assert r.status_code == 413 and "heuristic" in r.json()["message"]
    assert client.get("/api/v1/plans").json()["total"] == before


def test_malformed_json(client: TestClient) -> None:
    r = client.post(
        "/api/v1/plans", content=b'{"ring": ', headers={"content-type": "application/json"}
    )
    assert r.status_code == 422 and r.json()["code"] == "invalid_input"


def test_unknown_plan_is_404(client: TestClient) -> None:
    r = client.get("/api/v1/plans/not-a-plan")
    assert r.status_code == 404 and "GET /api/v1/plans" in r.json()["message"]


def test_ready_checks_the_database(client: TestClient) -> None:
    assert client.get("/ready").json() == {"status": "ready"}


def test_feasibility_block(client: TestClient) -> None:
    doc = post_plan(client, SMALL | {"algorithms": ["ring", "optree"],
                                     "optics": {"snr_scale": "linear"}})  # fmt: skip
    ring = doc["result"]["algorithms"][0]
    f = ring["feasibility"]
    # Ring all-gather on N=8: every lightpath is one hop: loss 1.1 dB, margin 7.9 dB; read
    # linearly the SNR of 45.9 dB is a ratio of 3.9e4: BER far below 1e-9.
    assert f["feasible"] and f["blocking"] is None and f["failing_lightpaths"] == 0
    assert f["max_hops"] == 1 and f["margin_db"] == pytest.approx(7.9)
    assert f["closed_form"]["l_max_hops"] == 7  # no closed form: N - 1
    assert f["budget"] == {"max_lightpath_hops": 80, "limited_by": "power (eq. 6)",
                           "max_ring_nodes_shortest_routes": 161}  # fmt: skip
    assert "assumption" in f["assumptions"]["laser_power_dbm"]
    assert len(f["stages"]) == 7
    optree = doc["result"]["algorithms"][1]["feasibility"]
    assert optree["closed_form"]["source"] == "OpTree journal, eq. (4)"


def test_infeasible_plan_names_stage_and_lightpath(client: TestClient) -> None:
    doc = post_plan(client, SMALL | {"algorithms": ["osm"], "optics": {"laser_power_dbm": 2}})
    f = doc["result"]["algorithms"][0]["feasibility"]
    assert not f["feasible"]
    blocking = f["blocking"]
    assert blocking["stage"] == 0
    assert "power: margin" in blocking["reason"] and blocking["lightpath"]["hops"] >= 1
    # 2 dBm - 1 dB modulator - 1 dB penalty leaves 0 dB: no lightpath of >= 1 hop fits.
    assert f["failing_lightpaths"] == doc["result"]["algorithms"][0]["stages"][0][
        "unit_lightpaths"]  # fmt: skip


def test_an_algorithm_beyond_the_hop_limit_is_left_out_of_all(client: TestClient) -> None:
    """All all-reduce algorithms on 16 nodes within 2 hops: RD's paper shape needs lightpaths
    of 8 hops, so it is left out with why; the others are planned and `synth` (every
    lightpath within the limit by construction) is recommended. Asked for alone, RD is
    refused with the same reason."""
    body = SMALL | {
        "ring": {"nodes": 16, "wavelengths_per_fiber": 2},
        "collective": "allreduce",
        "message_sizes_bytes": [4096],
        "max_lightpath_hops": 2,
    }
    doc = post_plan(client, body)
    result = doc["result"]
    reasons = {s["algorithm"]: s["reason"] for s in result["skipped"]}
    assert "more than the limit of 2" in reasons["rd"]
    names = [a["algorithm"] for a in result["algorithms"]]
    assert "rd" not in names and "synth" in names
    assert result["recommendation"][0]["algorithm"] == "synth"
    r = client.post("/api/v1/plans", json=body | {"algorithms": ["rd"]})
    assert r.status_code == 422 and reasons["rd"] in r.json()["message"]


def test_a_paper_shape_beyond_the_hop_limit_still_has_its_family_searched(
    client: TestClient,
) -> None:
    """H-Ring on 24 nodes within 2 hops: its paper shape (groups of 4) needs 3-hop
    lightpaths, so the search runs from a shape that fits and the row keeps to the limit;
    `paper` is the paper's shape routed without the limit (the same steps as planning it
    with no limit at all), and the answer says why. Before, H-Ring was left out whole."""
    body = SMALL | {
        "ring": {"nodes": 24, "wavelengths_per_fiber": 2},
        "collective": "allreduce",
        "algorithms": ["hring", "ring"],
        "message_sizes_bytes": [4096],
        "max_lightpath_hops": 2,
    }
    result = post_plan(client, body)["result"]
    assert result["skipped"] == []
    hring = next(a for a in result["algorithms"] if a["algorithm"] == "hring")
    shapes = hring["shapes"]
    assert "more than the limit of 2" in shapes["paper_beyond_hop_limit"]
    assert shapes["search"]["beyond_hop_limit"] > 0 and shapes["search"]["exhaustive"]
    assert hring["feasibility"]["max_hops"] <= 2
    free = post_plan(client, body | {"algorithms": ["hring"], "max_lightpath_hops": None})
    paper = free["result"]["algorithms"][0]["shapes"]["paper"]
    assert shapes["paper"]["true_steps"] == paper["true_steps"]
    assert shapes["paper"]["parameters"] == paper["parameters"] != hring["parameters"]
    assert free["result"]["algorithms"][0]["shapes"]["paper_beyond_hop_limit"] is None


def test_loss_budget_routing_constraint_cost(client: TestClient) -> None:
    body = SMALL | {"algorithms": ["osm"], "max_lightpath_hops": 4}
    doc = post_plan(client, body)
    a = doc["result"]["algorithms"][0]
    rc = a["routing_constraint"]
    assert rc["max_lightpath_hops"] == 4
    assert rc["steps_cost"] == a["true_steps"] - rc["true_steps_unconstrained"]
    assert a["feasibility"]["max_hops"] <= 4
    r = client.post("/api/v1/plans", json=body | {"max_lightpath_hops": 2})
    assert r.status_code == 422 and "more than the limit of 2" in r.json()["message"]
    printed = {"max_lightpath_hops": "loss_budget", "optics": {"snr_scale": "db"}}
    r = client.post("/api/v1/plans", json=body | printed)
    assert r.status_code == 400 and "not even a one-hop lightpath" in r.json()["message"]
    # With eq. (9) read linearly (the default) the budget allows 80 hops: all of N = 8.
    doc = post_plan(client, body | {"max_lightpath_hops": "loss_budget"})
    assert doc["result"]["algorithms"][0]["routing_constraint"]["max_lightpath_hops"] == 80


def test_unfinished_plans_resume_after_a_restart(client: TestClient, settings_env: str) -> None:
    """A plan the embedded deployment had queued (or was running) when it stopped is solved
    after the next start."""
    from app.persistence.store import PlanStore
    from app.schemas.documents import JobStatus
    from app.schemas.requests import PlanRequest

    store = PlanStore(settings_env)
    queued = store.create(PlanRequest.model_validate(SMALL | {"algorithms": ["ring"]}))
    running = store.create(
        PlanRequest.model_validate(SMALL | {"algorithms": ["ne"]}), JobStatus.RUNNING
    )
    restart()
    from app.main import app

    with TestClient(app) as fresh:
        deadline = time.monotonic() + 60
        for plan_id in (queued.id, running.id):
            while (doc := fresh.get(f"/api/v1/plans/{plan_id}").json())["status"] != "done":
                assert doc["status"] in ("queued", "running"), doc
                assert time.monotonic() < deadline
                time.sleep(0.1)


@pytest.mark.parametrize("field", ["bandwidth_per_wavelength_gbps", "clock_ghz"])
def test_vanishing_rates_are_refused(client: TestClient, field: str) -> None:
    """Found by schemathesis: a line rate of 1e-323 Gb/s made every time infinite, which JSON
    cannot carry."""
    r = client.post("/api/v1/plans", json=SMALL | {"hardware": {field: 1e-323}})
    assert r.status_code == 422 and field in r.json()["message"]


def test_vanishing_ber_target_is_refused(client: TestClient) -> None:
    """Found by schemathesis: target_ber = 5e-324 made the required SNR infinite."""
    r = client.post("/api/v1/plans", json=SMALL | {"optics": {"target_ber": 5e-324}})
    assert r.status_code == 422 and "target_ber" in r.json()["message"]


def test_shape_per_algorithm_and_explicit_parameters(client: TestClient) -> None:
    body = SMALL | {
        "algorithms": ["wrht", "optree", "ring"],
        "shape": {"wrht": "paper", "optree": "best"},
        "parameters": {"ring": {}},
    }
    r = client.post("/api/v1/plans", json=body | {"parameters": {"optree": {"branching": [8]}}})
    assert r.status_code == 400 and "explicit shape" in r.json()["message"]
    doc = post_plan(client, SMALL | {"algorithms": ["wrht", "optree"],
                                     "shape": {"wrht": "paper"}})  # fmt: skip
    wrht, optree = doc["result"]["algorithms"]
    assert wrht["shape"] == "paper" and wrht["shapes"]["best"] is None
    assert wrht["parameters"] == wrht["shapes"]["paper"]["parameters"]
    assert optree["shape"] == "best" and optree["shapes"]["search"]["candidates"] >= 4
    one = {"algorithms": ["optree"], "parameters": {"optree": {"branching": [8]}}}
    explicit = post_plan(client, SMALL | one)
    (only,) = explicit["result"]["algorithms"]
    assert only["shape"] == "explicit" and only["parameters"]["branching"] == [8]
    assert only["shapes"]["paper"]["parameters"]["branching"] == [4, 2]  # k* = 2 at N = 8


def test_recommendation_never_names_an_infeasible_algorithm(client: TestClient) -> None:
    """Laser powers from 'nothing works' to 'everything works': a named algorithm is always
    feasible and the fastest feasible one; with none feasible, none is named and the closest
    is, with the power it lacks."""
    for laser in (1.0, 2.15, 2.5, 10.0):
        doc = post_plan(client, SMALL | {"optics": {"laser_power_dbm": laser}})
        algorithms = doc["result"]["algorithms"]
        for i, advice in enumerate(doc["result"]["recommendation"]):
            feasible = _feasible_times(doc["result"], i)  # some shape of it is feasible
            if feasible:
                assert advice["algorithm"] in feasible and advice["feasible"]
                assert advice["time_s"] == min(feasible.values())
                by_name = {a["algorithm"]: a for a in algorithms}
                for name in advice["skipped_infeasible"]:  # faster as reported, infeasible so
                    reported = by_name[name]
                    assert reported["timings"][i]["time_s"] <= advice["time_s"]
                    assert not reported["feasibility"]["feasible"]
            else:
                assert advice["algorithm"] is None and not advice["feasible"]
                closest = advice["closest_to_feasible"]
                need = {a["algorithm"]: a["feasibility"]["min_laser_power_dbm"] - laser
                        for a in algorithms}  # fmt: skip
                assert closest["laser_power_shortfall_db"] == pytest.approx(min(need.values()))
                assert "no algorithm is optically feasible" in advice["why"]


def test_as_printed_eq_9_verdict_is_kept_beside_the_default(client: TestClient) -> None:
    doc = post_plan(client, SMALL | {"algorithms": ["ring"]})
    f = doc["result"]["algorithms"][0]["feasibility"]
    assert f["parameters"]["snr_scale"] == "linear" and f["feasible"]
    printed = f["other_snr_scale"]
    # Eq. (9) fed the SNR in dB needs 80.1 dB: even one-hop lightpaths fail.
    assert printed["snr_scale"] == "db" and not printed["feasible"]
    assert printed["required_snr_db"] == pytest.approx(80.12, abs=0.01)
    assert printed["failing_lightpaths"] == sum(s["lightpaths"] for s in f["stages"])


def test_a_cut_search_is_not_called_infeasible(client: TestClient) -> None:
    """A 5-hop reach (1.5 dB per node): TRA's paper radix needs longer lightpaths. With a
    search budget too small to find TRA a feasible shape, the advice must not say that no
    paper algorithm is feasible: it says the search was cut. With a budget that lets the
    search finish, TRA's relayed feasible shape is found and compared."""
    body = {
        "ring": {"nodes": 32, "fibers_per_direction": 1, "wavelengths_per_fiber": 4},
        "collective": "alltoall",
        "algorithms": ["tra", "synth"],
        "message_sizes_bytes": [1048576],
        "optics": {"pass_loss_db_per_node": 1.5},
    }
    cut = post_plan(client, body | {"search_budget_s": 1e-6})
    tra = {a["algorithm"]: a for a in cut["result"]["algorithms"]}["tra"]
    assert not tra["shapes"]["search"]["exhaustive"]
    assert not tra["feasibility"]["feasible"]
    advice = cut["result"]["recommendation"][0]
    assert advice["algorithm"] == "synth"
    assert "shape search of tra was cut" in advice["why"]
    assert "no paper algorithm is optically feasible" not in advice["why"]
    full = post_plan(client, body | {"search_budget_s": 60})
    advice = full["result"]["recommendation"][0]
    assert "was cut" not in advice["why"]
    assert "faster than the fastest feasible paper algorithm (tra" in advice["why"]


@pytest.mark.parametrize(
    ("collective", "name", "params", "text"),
    [
        ("allreduce", "synth", {"radices": [4, 16], "sweep": 2}, "sweep is 0 or 1"),
        ("allreduce", "synth", {"radices": [4, 16], "direct": 5}, "use direct <= 2"),
        ("allgather", "optree", {"stages": 2, "branching": [2, 2]}, "optree"),
    ],
)
def test_refusing_list_parameters_is_422_with_them(
    client: TestClient, collective: str, name: str, params: dict[str, Any], text: str
) -> None:
    """A refusal's detail names the parameters, lists included (they are tuples inside)."""
    body = SMALL | {"ring": {"nodes": 64, "wavelengths_per_fiber": 8}, "collective": collective,
                    "algorithms": [name], "parameters": {name: params}}  # fmt: skip
    r = client.post("/api/v1/plans", json=body)
    assert r.status_code == 422, r.text
    assert text in r.json()["message"]
    given = r.json()["detail"]["params"]
    assert all(given[key] == value for key, value in params.items())


def test_reduce_scatter_is_planned_by_synth_alone(client: TestClient) -> None:
    """The papers propose no reduce-scatter: "all" plans synth, which the data-flow check
    certifies (chunk i summed at node i), and the advice says why no paper algorithm is
    compared. The plan's achievable is models.achievable's bound of reduce-scatter (an
    in-tree per chunk, M / N received per node) within the ring's 63 hops."""
    body = {
        "ring": {"nodes": 64, "wavelengths_per_fiber": 64},
        "collective": "reducescatter",
        "algorithms": "all",
        "message_sizes_bytes": [4 * 2**20],
    }
    result = post_plan(client, body)["result"]
    assert [a["algorithm"] for a in result["algorithms"]] == ["synth"]
    (synth,) = result["algorithms"]
    assert synth["feasibility"]["feasible"] and synth["claimed"] is None
    t = synth["timings"][0]
    bound = achievable_bound("reducescatter", Ring(64, 1, 64), 4 * 2**20, Hardware(), 63)
    assert result["achievable"][0]["bound_s"] == pytest.approx(bound.bound_s)
    assert 0 < t["fraction_of_achievable"] <= 1
    (advice,) = result["recommendation"]
    assert advice["algorithm"] == "synth" and advice["feasible"]
    assert "the papers propose none for reduce-scatter" in advice["why"]
    assert "optically feasible here" not in advice["why"]


@pytest.mark.parametrize(
    ("ring_body", "sizes", "hops", "notes"),
    [
        # 64 MiB: the pipeline of 16 (reduce-scatter + all-gather) wins, inside the class
        ({"nodes": 16, "wavelengths_per_fiber": 4}, [4096, 64 * 2**20], None, {"inside"}),
        # within 2 hops the class needs 2 x 8 slots; synth's swept top beats its bound
        ({"nodes": 32, "wavelengths_per_fiber": 4}, [4096], 2, {"beats"}),
    ],
)
def test_an_all_reduce_plan_reports_the_reduce_then_broadcast_bound(
    client: TestClient,
    ring_body: dict[str, int],
    sizes: list[int],
    hops: int | None,
    notes: set[str],
) -> None:
    """Each all-reduce algorithm says whether its reported shape forms every complete sum at
    one node (checked here on the data flow of that shape); the achievable block carries the
    bound of such schedules (models.achievable, computed again here), which every feasible one
    of them keeps to; the advice compares the recommended schedule with it: inside the class,
    its ratio to the bound; outside, by how much it beats every schedule of the class."""
    from models.algorithms.catalog import get_algorithm
    from models.dataflow import simulate
    from models.synthesis import SynthAllReduce

    body = {
        "ring": ring_body,
        "collective": "allreduce",
        "algorithms": ["ring", "rd", "bt", "hring", "wrht", "synth"],
        "message_sizes_bytes": sizes,
        "max_lightpath_hops": hops,
    }
    result = post_plan(client, body)["result"]
    ring = Ring(ring_body["nodes"], 1, ring_body["wavelengths_per_fiber"])

    def algorithm_of(name: str) -> Any:
        return SynthAllReduce(hop_limit=hops) if name == "synth" else get_algorithm(
            "allreduce", name
        )

    for a, size in zip(result["achievable"], sizes, strict=True):
        within = achievable_bound(
            "allreduce", ring, size, Hardware(), a["hop_limit"], reduce_then_broadcast=True
        )
        assert a["reduce_then_broadcast_s"] == pytest.approx(within.bound_s)
        assert a["reduce_then_broadcast_s"] >= a["bound_s"]
    verdicts = {}
    for entry in result["algorithms"]:
        name = entry["algorithm"]
        algorithm = algorithm_of(name)
        params = algorithm.resolve(ring, entry["parameters"])
        formed = simulate(algorithm.schedule(ring, params)).sums_formed
        assert entry["reduce_then_broadcast"] == (formed == 1), name
        verdicts[name] = entry["reduce_then_broadcast"]
        if entry["reduce_then_broadcast"] and entry["feasibility"]["feasible"]:
            for t, a in zip(entry["timings"], result["achievable"], strict=True):
                assert t["time_s"] >= a["reduce_then_broadcast_s"] * (1 - 1e-12), name
    assert verdicts["ring"] and verdicts.get("rd") is not True
    seen = set()
    for advice, a in zip(result["recommendation"], result["achievable"], strict=True):
        algorithm = algorithm_of(advice["algorithm"])
        inside = algorithm.reduces_then_broadcasts(
            ring, algorithm.resolve(ring, advice["parameters"])
        )
        within = a["reduce_then_broadcast_s"]
        note = f"{advice['time_s'] / within:.3g}x the bound of such schedules ({within:.6g} s"
        beats = (
            f"{within / advice['time_s']:.3g}x faster than any schedule that forms each sum "
            f"at one node and copies it can be ({within:.6g} s)"
        )
        assert (note in advice["why"]) == inside, advice["why"]
        assert (beats in advice["why"]) == (not inside and advice["time_s"] < within)
        seen |= {"inside"} if inside else {"beats"} if beats in advice["why"] else set()
    assert notes <= seen


def test_an_all_gather_plan_has_no_reduce_then_broadcast_bound(client: TestClient) -> None:
    result = post_plan(client, SMALL | {"algorithms": ["ring", "synth"]})["result"]
    assert all(a["reduce_then_broadcast_s"] is None for a in result["achievable"])
    assert all(e["reduce_then_broadcast"] is None for e in result["algorithms"])


def test_a_tie_with_the_fastest_paper_algorithm_is_said_as_a_tie(client: TestClient) -> None:
    """On 3 nodes the exact optimum, synth and WRHT all take one slot: the advice says the
    winner is as fast as WRHT, not '1x faster'; on 2 nodes RD is 1.004x slower, and the ratio
    gets the digits that tell it from 1."""
    def body(nodes: int) -> dict[str, Any]:
        ring = {"nodes": nodes, "fibers_per_direction": 1, "wavelengths_per_fiber": 1}
        return {"ring": ring, "collective": "allreduce", "message_sizes_bytes": [1024]}

    three = post_plan(client, body(3))["result"]
    advice = three["recommendation"][0]
    assert "wrht" in advice["tied_with"]
    assert "as fast as the fastest feasible paper algorithm (wrht" in advice["why"]
    assert "1x faster" not in advice["why"]
    two = post_plan(client, body(2))["result"]
    advice = two["recommendation"][0]
    times = {a["algorithm"]: a["timings"][0]["time_s"] for a in two["algorithms"]}
    ratio = times["rd"] / advice["time_s"]
    assert ratio > 1 and f"{ratio:.3g}" == "1" and advice["tied_with"] == []
    assert f"{ratio:.4g}x faster than the fastest feasible paper algorithm (rd" in advice["why"]

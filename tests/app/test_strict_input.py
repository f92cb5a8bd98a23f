"""Issue 'shared use', items 8 and 9: JSON `true` and numeric strings are not numbers, and a
422 names the field to fix without pydantic's internals."""

from __future__ import annotations

import json
from typing import get_args, get_origin

import pytest
from fastapi.testclient import TestClient
from pydantic import BaseModel

from app.main import app
from app.schemas.requests import FatTreeSpec, HardwareSpec, OpticsSpec, PlanRequest, error_text

client = TestClient(app)
PLAN = {"ring": {"nodes": 8, "wavelengths_per_fiber": 2}, "collective": "allgather",
        "algorithms": ["ring"], "message_sizes_bytes": [4096]}  # fmt: skip


@pytest.mark.parametrize(
    ("change", "where", "says"),
    [
        ({"message_sizes_bytes": [True]}, "message_sizes_bytes.0", "not true/false"),
        ({"message_sizes_bytes": ["4096"]}, "message_sizes_bytes.0", "not the string '4096'"),
        ({"ring": {"nodes": "8"}}, "ring.nodes", "not the string '8'"),
        # a field of two kinds names both: a number of hops, or 'loss_budget'; a value of
        # neither kind is said once, as JSON writes it (was "a number is needed here, not
        # the string 'x'; or Input should be 'loss_budget'")
        ({"max_lightpath_hops": 0}, "max_lightpath_hops", "greater than or equal to 1; or"),
        ({"max_lightpath_hops": "x"}, "max_lightpath_hops",
         "expected a number or 'loss_budget', not \"x\""),
        ({"max_lightpath_hops": True}, "max_lightpath_hops",
         "expected a number or 'loss_budget', not true"),
        ({"max_lightpath_hops": 2.5}, "max_lightpath_hops",
         "expected a whole number or 'loss_budget', not 2.5"),
        ({"algorithms": 5}, "algorithms", "expected a list or 'all', not 5"),
        ({"shape": "x" * 100}, "shape",
         "expected 'paper' or 'best' or an object, not \"" + "x" * 56 + "..."),
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


@pytest.mark.parametrize("value", ["nan", "inf"])
def test_a_time_limit_is_a_finite_number(value: str) -> None:
    """Review (session 34): /rwa?time_limit_s=nan answered "less than or equal to 600"."""
    r = client.post("/api/v1/rwa", params={"time_limit_s": value},
                    json={"nodes": 6, "demands": [[0, 1, 1]]})
    assert r.status_code == 422, r.text
    assert r.json()["message"] == "query.time_limit_s: Input should be a finite number"


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


def _float_fields() -> list[str]:
    """Every float field of a plan request, dotted (`optics.laser_power_dbm`): read off the
    models, so a float field added later is checked too."""
    models: list[tuple[str, type[BaseModel]]] = [
        ("", PlanRequest),
        ("hardware.", HardwareSpec),
        ("optics.", OpticsSpec),
        ("electrical_network.", FatTreeSpec),
    ]
    return [
        prefix + name
        for prefix, model in models
        for name, info in model.model_fields.items()
        if float in _kinds(info.annotation) and get_origin(info.annotation) is not list
    ]


def _kinds(annotation: object) -> set[object]:
    """The types a field's annotation takes: `float | None` -> {float, None}."""
    return {annotation, *(getattr(t, "__origin__", t) for t in get_args(annotation))}


def _nested(where: str, value: object) -> dict[str, object]:
    head, _, rest = where.partition(".")
    return {head: _nested(rest, value) if rest else value}


FLOAT_FIELDS = _float_fields()


def test_the_float_fields_are_all_found() -> None:
    assert {"time_limit_s", "search_budget_s", "hardware.clock_ghz", "optics.laser_power_dbm",
            "optics.target_ber", "electrical_network.link_gbps"} <= set(FLOAT_FIELDS)  # fmt: skip
    assert len(FLOAT_FIELDS) >= 17


@pytest.mark.parametrize("where", FLOAT_FIELDS)
@pytest.mark.parametrize(("value", "says"), [(False, "not true/false"), ("4", "not the string")])
def test_float_fields_refuse_true_and_strings(where: str, value: object, says: str) -> None:
    """Review item 1: `"optics": {"laser_power_dbm": false}` was 0 dBm, "4" was 4: every float
    field takes a JSON number only, as the integer fields do."""
    r = client.post("/api/v1/plans", json=PLAN | _nested(where, value))
    assert r.status_code == 422, r.text
    assert r.json()["message"].startswith(f"{where}:") and says in r.json()["message"]


def test_an_integer_json_number_is_a_float() -> None:
    body = PLAN | {"time_limit_s": 5, "search_budget_s": 2, "optics": {"laser_power_dbm": 12},
                   "hardware": {"clock_ghz": 2}, "message_sizes_bytes": [4096]}  # fmt: skip
    request = PlanRequest.model_validate(body)
    assert request.time_limit_s == 5.0 and request.optics.laser_power_dbm == 12.0


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity", "1e999"])
@pytest.mark.parametrize("where", ["time_limit_s", "optics.laser_power_dbm", "ring.nodes"])
def test_nan_and_infinity_need_a_finite_number(token: str, where: str) -> None:
    """Python's JSON reads NaN, Infinity and 1e999 as floats: the answer says a finite number
    is needed (it said "should be less than or equal to 600")."""
    body = json.dumps(PLAN | _nested(where, "TOKEN")).replace('"TOKEN"', token)
    r = client.post("/api/v1/plans", content=body, headers={"content-type": "application/json"})
    assert r.status_code == 422, r.text
    message = r.json()["message"]
    assert message.startswith(f"{where}:") and "a finite number is needed" in message


SWEEP = {"collective": "allgather", "nodes": 8, "wavelengths_per_fiber": 2,
         "algorithms": ["ring"], "message_sizes_bytes": [4096]}  # fmt: skip


@pytest.mark.parametrize(
    ("change", "where", "says"),
    [
        ({"time_limit_s": [5, True]}, "time_limit_s.1", "not true/false"),
        ({"time_limit_s": [5, "6"]}, "time_limit_s.1", "not the string '6'"),
        ({"time_limit_s": "6"}, "time_limit_s", "not the string '6'"),
        ({"optics": {"laser_power_dbm": False}}, "optics.laser_power_dbm", "true/false"),
        ({"search_budget_s": [True]}, "search_budget_s.0", "not true/false"),
    ],
)
def test_sweep_float_axes_refuse_true_and_strings(
    change: dict[str, object], where: str, says: str
) -> None:
    r = client.post("/api/v1/sweeps", json=SWEEP | change)
    assert r.status_code == 422, r.text
    assert r.json()["message"].startswith(f"{where}:") and says in r.json()["message"]


@pytest.mark.parametrize(
    ("path", "change", "says"),
    [
        ("/api/v1/plans", {"message_sizes_bytes": [65536, 65536]},
         "message_sizes_bytes: message sizes repeat: 65536 is given twice"),
        ("/api/v1/plans", {"message_sizes_bytes": [4096, 65536, 65536.0]},
         "message_sizes_bytes: message sizes repeat: 65536 is given twice"),
        ("/api/v1/plans", {"workloads": ["resnet50", "vgg16", "resnet50"]},
         "workloads: workloads repeat: 'resnet50' is given twice"),
        ("/api/v1/plans", {"message_sizes_bytes": [4096, 1e8], "workloads": ["resnet50"]},
         "workloads: workload 'resnet50' is 100000000 bytes, one of the message sizes given"),
        ("/api/v1/plans", {"algorithms": ["ring", "ring"]},
         "algorithms: algorithm names repeat: 'ring' is given twice"),
        ("/api/v1/sweeps", {"message_sizes_bytes": [65536, 65536]},
         "message_sizes_bytes: message sizes repeat: 65536 is given twice"),
        ("/api/v1/sweeps", {"workloads": ["alexnet", "alexnet"]},
         "workloads: workloads repeat: 'alexnet' is given twice"),
        ("/api/v1/sweeps", {"message_sizes_bytes": [1e8], "workloads": ["resnet50"]},
         "workloads: workload 'resnet50' is 100000000 bytes"),
        ("/api/v1/sweeps", {"nodes": [8, 16, 8]}, "nodes: the values repeat (8 is given twice)"),
    ],
)  # fmt: skip
def test_a_repeated_message_size_or_workload_is_a_422(
    path: str, change: dict[str, object], says: str
) -> None:
    """Review item 2: a size given twice (or a workload whose gradient is a given size) was
    planned twice, with two `recommendation` and `achievable` entries for it."""
    r = client.post(path, json=(PLAN if path.endswith("plans") else SWEEP) | change)
    assert r.status_code == 422, r.text
    assert says in r.json()["message"]


@pytest.mark.parametrize(
    ("path", "change", "where", "says"),
    [
        ("/api/v1/plans", {"shape": "worst"}, "shape",
         "expected 'paper' or 'best' or an object, not \"worst\""),
        ("/api/v1/plans", {"shape": {"ring": "worst"}}, "shape", "'paper' or 'best'"),
        ("/api/v1/plans", {"method": "fast"}, "method", "'auto', 'exact', 'exact-highs' or"),
        ("/api/v1/plans", {"collective": "gather"}, "collective", "'allgather', 'allreduce'"),
        ("/api/v1/sweeps", {"shape": ["paper", "worst"]}, "shape.1", "'paper' or 'best'"),
        ("/api/v1/sweeps", {"shape": "worst"}, "shape", "'paper' or 'best'"),
    ],
)
def test_an_unknown_choice_lists_the_values_plainly(
    path: str, change: dict[str, object], where: str, says: str
) -> None:
    """Review item 3: `"shape": "worst"` answered `Input should be <ShapeMode.PAPER: 'paper'>
    or <ShapeMode.BEST: 'best'>`: Python's enum reprs, not the values a client sends."""
    r = client.post(path, json=(PLAN if path.endswith("plans") else SWEEP) | change)
    assert r.status_code == 422, r.text
    message = r.json()["message"]
    assert message.startswith(f"{where}:") and says in message, message
    assert "<" not in r.text and "ShapeMode" not in r.text and "Method." not in r.text


def test_error_text_writes_enum_members_as_values() -> None:
    message = "Input should be <ShapeMode.PAPER: 'paper'> or <ShapeMode.BEST: 'best'>"
    error = {"type": "literal_error", "msg": message}
    assert error_text(error) == "Input should be 'paper' or 'best'"


@pytest.mark.parametrize(
    ("path", "body", "says"),
    [
        ("/api/v1/plans", json.dumps(PLAN)[:20],
         "body: not valid JSON: Expecting ',' delimiter at line 1 column 21"),
        ("/api/v1/plans", '{\n "ring": {"nodes": 8},\n "collective" "allgather"}',
         "body: not valid JSON: Expecting ':' delimiter at line 3 column 15"),
        ("/api/v1/sweeps", json.dumps(SWEEP)[:-1], "body: not valid JSON: "),
        ("/api/v1/rwa", "{", "body: not valid JSON: "),
        ("/api/v1/plans", "[1, 2]", "body: a JSON object is needed as the body"),
        ("/api/v1/plans", "", "body: a JSON object is needed as the body"),
        # past the parser's recursion limit (was a 400 'http_400', "There was an error
        # parsing the body")
        ("/api/v1/plans", "[" * 200_000 + "]" * 200_000, "body: not valid JSON here: arrays "
         "and objects nested too deeply"),
        ("/api/v1/rwa", '{"demands": ' + "[" * 5000 + "]" * 5000 + "}",
         "body: not valid JSON here: "),
    ],
)  # fmt: skip
def test_a_body_that_is_not_json_says_so_and_where(path: str, body: str, says: str) -> None:
    """Review item 4: a truncated body answered "20: JSON decode error"."""
    r = client.post(path, content=body, headers={"content-type": "application/json"})
    assert r.status_code == 422, r.text
    assert r.json()["message"].startswith(says), r.json()["message"]
    assert r.json()["detail"]["errors"][0]["loc"] == ["body"]


@pytest.mark.parametrize("content_type", [None, "application/x-www-form-urlencoded", "text/plain"])
@pytest.mark.parametrize("path", ["/api/v1/plans", "/api/v1/sweeps", "/api/v1/rwa"])
def test_json_without_its_content_type_says_to_send_it(path: str, content_type: str | None) -> None:
    """Review item 4: plain `curl -d '{...}'` (form content type) answered "body: Input should
    be a valid dictionary or object to extract fields from"."""
    headers = {"content-type": content_type} if content_type else {}
    r = client.post(path, content=json.dumps(PLAN), headers=headers)
    assert r.status_code == 422, r.text
    message = r.json()["message"]
    assert message.startswith("body: send it as JSON, with the header Content-Type: application/")
    assert (repr(content_type) if content_type else "without one") in message


def test_the_paper_shape_of_an_algorithm_of_no_paper_is_refused() -> None:
    """synth (and optimal) are rwaopt's own: `"shape": {"synth": "paper"}` was accepted and
    planned synth's default shape under the name 'paper'."""
    body = PLAN | {"algorithms": ["synth", "ring"], "shape": {"synth": "paper"}}
    r = client.post("/api/v1/plans", json=body)
    assert r.status_code == 400
    assert r.json()["message"].startswith("synth is rwaopt's own, with no paper shape")
    # 'paper' for all: the papers' algorithms at theirs, synth at its best (it was planned at
    # its default shape and reported as 'paper')
    r = client.post("/api/v1/plans", json=body | {"shape": "paper"})
    assert r.status_code in (200, 201), r.text
    shapes = {a["algorithm"]: a["shape"] for a in r.json()["result"]["algorithms"]}
    assert shapes == {"synth": "best", "ring": "paper"}


@pytest.mark.parametrize("path", ["/api/v1/plans", "/api/v1/sweeps"])
@pytest.mark.parametrize("size", [1.5, 0.25, 65536.5])
def test_a_message_size_is_a_whole_number_of_bytes(path: str, size: float) -> None:
    """Review (session 32): `--message-bytes 1.5` was timed as 1.5 bytes; a fraction of a
    byte is a typo for a unit. The schema says `multipleOf: 1` to clients."""
    body = (PLAN if path.endswith("plans") else SWEEP) | {"message_sizes_bytes": [size]}
    r = client.post(path, json=body)
    assert r.status_code == 422, r.text
    assert r.json()["message"].startswith("message_sizes_bytes.0: a message is a whole number")
    low = int(size)
    assert r.json()["message"].endswith(f"give {low} or {low + 1}" if low else "give 1")
    schema = app.openapi()["components"]["schemas"]["PlanRequest"]
    assert schema["properties"]["message_sizes_bytes"]["items"]["multipleOf"] == 1


def test_a_whole_size_written_as_a_float_plans() -> None:
    r = client.post("/api/v1/plans?wait=true", json=PLAN | {"message_sizes_bytes": [1536.0, 1e6]})
    assert r.status_code in (200, 201), r.text


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({}, "required, not given: ring, collective"),
        ({"ring": {}}, "required, not given: ring.nodes, collective"),
        ({"ring": {"nodes": 8}}, "collective: Field required"),
    ],
)
def test_a_body_missing_fields_names_every_one(body: dict[str, object], says: str) -> None:
    """Review (session 32): `{}` named only `ring`; the client had to send twice to learn
    that `collective` is required too."""
    r = client.post("/api/v1/plans", json=body)
    assert r.status_code == 422
    assert r.json()["message"] == says


def test_a_body_that_is_not_utf8_says_so() -> None:
    """Review (session 35): every body FastAPI could not read was said to be nested too
    deeply; invalid UTF-8 is said as such, with the byte."""
    r = client.post("/api/v1/plans", content=b'{"collective": "allgather\xff"}',
                    headers={"content-type": "application/json"})
    assert r.status_code == 422, r.text
    assert r.json()["message"].startswith("body: not valid JSON here: not UTF-8 (byte 25")


@pytest.mark.parametrize(
    ("path", "change", "says"),
    [
        ("/api/v1/sweeps", {"algorithm": "all"},
         "algorithm: Extra inputs are not permitted; did you mean 'algorithms'?"),
        ("/api/v1/plans", {"ring": {"nodes": 8, "wavelengths": 2}},
         "ring.wavelengths: Extra inputs are not permitted; did you mean "
         "'wavelengths_per_fiber'?"),
        ("/api/v1/plans", {"optics": {"laser_power": 3}},
         "optics.laser_power: Extra inputs are not permitted; did you mean 'laser_power_dbm'?"),
        ("/api/v1/plans", {"zzz": 1}, "zzz: Extra inputs are not permitted"),
    ],
)  # fmt: skip
def test_a_misspelt_field_gets_the_field_meant(path: str, change: dict, says: str) -> None:
    """Review (session 35): a sweep grid's "algorithm" said only "Extra inputs are not
    permitted"; the field of that place nearest the name is suggested (none when nothing
    is near)."""
    r = client.post(path, json=(PLAN if path.endswith("plans") else SWEEP) | change)
    assert r.status_code == 422, r.text
    assert r.json()["message"] == says

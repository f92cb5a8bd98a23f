"""The OpenAPI document as a reader and a client generator see it: every property described,
short operation ids, errors documented per operation, binary bodies typed, one version, and
ReDoc with no request beyond this server."""

from __future__ import annotations

import tomllib
from pathlib import Path

from fastapi.testclient import TestClient
from pydantic import BaseModel

from app.main import app
from app.schemas.requests import (
    FatTreeSpec,
    HardwareSpec,
    OpticsSpec,
    PlanRequest,
    ReproductionRequest,
    RingSpec,
    RwaInput,
)
from app.schemas.sweeps import SweepRequest

DOCUMENT = app.openapi()
OPERATIONS = [
    (path, method, operation)
    for path, methods in DOCUMENT["paths"].items()
    for method, operation in methods.items()
]


def test_every_property_is_described() -> None:
    missing = [
        f"{name}.{prop}"
        for name, schema in DOCUMENT["components"]["schemas"].items()
        for prop, spec in schema.get("properties", {}).items()
        if not spec.get("description")
    ]
    assert missing == []


def test_operation_ids_are_short_and_unique() -> None:
    ids = [operation["operationId"] for _, _, operation in OPERATIONS]
    assert len(ids) == len(set(ids))
    assert all("api_v1" not in i and len(i) <= 24 for i in ids), ids


def test_every_api_operation_documents_its_errors() -> None:
    for path, method, operation in OPERATIONS:
        if not path.startswith("/api/v1"):
            continue
        codes = set(operation["responses"])
        assert {"401", "403", "422"} <= codes, (method, path, codes)
        for code in codes - {"200", "202", "204"}:
            body = operation["responses"][code]["content"]["application/json"]["schema"]
            assert body == {"$ref": "#/components/schemas/ErrorBody"}, (method, path, code)


def test_plots_and_tables_have_typed_bodies() -> None:
    plot = DOCUMENT["paths"]["/api/v1/plans/{plan_id}/plots/{kind}.{fmt}"]["get"]
    content = plot["responses"]["200"]["content"]
    assert content["image/png"]["schema"] == {"type": "string", "format": "binary"}
    table = DOCUMENT["paths"]["/api/v1/plans/{plan_id}/assignment"]["get"]
    assert table["responses"]["200"]["content"]["text/csv"]["schema"] == {"type": "string"}


def test_one_version() -> None:
    pyproject = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    assert DOCUMENT["info"]["version"] == pyproject["project"]["version"]
    from typer.testing import CliRunner

    from app.cli import cli

    assert (
        CliRunner().invoke(cli, ["--version"]).output
        == f"rwaopt {pyproject['project']['version']}\n"
    )


def test_redoc_makes_no_outside_request() -> None:
    with TestClient(app) as client:
        bundle = client.get("/redoc.standalone.js").text
        page = client.get("/redoc").text
    assert "cdn.redoc.ly" not in bundle and "/redoc.standalone.js" in page
    assert "fonts.googleapis" not in page


CONSTRAINTS = {"ge", "le", "gt", "lt"}  # pydantic's names; JSON Schema has none of them


def _non_standard(node: object, where: tuple[str | int, ...] = ()) -> list[str]:
    """Where a schema object of the document has a key `ge`, `le`, `gt` or `lt`."""
    found: list[str] = []
    if isinstance(node, dict):
        found += ["/".join(map(str, where)) + f": {key}" for key in CONSTRAINTS & set(node)]
        for key, value in node.items():
            found += _non_standard(value, (*where, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _non_standard(value, (*where, index))
    return found


def test_limits_are_json_schema_keywords() -> None:
    """Review item 5: a limit nested in a list or a union (a message size, max_tx_per_node,
    an algorithm parameter) was written `gt`, `le`, ... which JSON Schema validators and client
    generators ignore: every one is minimum / maximum / exclusiveMinimum / exclusiveMaximum.
    Query parameters too (offset, limit, the catalog's nodes and wavelengths)."""
    document = TestClient(app).get("/openapi.json").json()
    assert _non_standard(document) == []
    schemas = document["components"]["schemas"]
    plan = schemas["PlanRequest"]["properties"]
    assert plan["message_sizes_bytes"]["items"]["exclusiveMinimum"] == 0
    assert plan["message_sizes_bytes"]["items"]["exclusiveMaximum"] == 1e15
    assert plan["max_tx_per_node"]["anyOf"][0]["minimum"] == 1
    assert plan["max_lightpath_hops"]["anyOf"][0]["maximum"] == 8192
    assert plan["time_limit_s"]["exclusiveMinimum"] == 0 and plan["time_limit_s"]["maximum"] == 600
    parameter = plan["parameters"]["additionalProperties"]["additionalProperties"]["oneOf"]
    assert parameter[0]["minimum"] == -8192 and parameter[1]["items"]["maximum"] == 8192
    assert schemas["RwaInput"]["properties"]["nodes"]["minimum"] == 2
    sweep = schemas["SweepRequest"]["properties"]
    assert sweep["max_rx_per_node"]["oneOf"][1]["items"]["anyOf"][0]["maximum"] == 1 << 20


REQUEST_MODELS: dict[str, type[BaseModel]] = {
    model.__name__: model
    for model in (
        PlanRequest,
        SweepRequest,
        RwaInput,
        ReproductionRequest,
        RingSpec,
        HardwareSpec,
        OpticsSpec,
        FatTreeSpec,
    )
}


def _references(node: object) -> set[str]:
    if isinstance(node, dict):
        found = {node["$ref"].rsplit("/", 1)[1]} if "$ref" in node else set()
        return found.union(*(_references(value) for value in node.values()))
    if isinstance(node, list):
        return set().union(*(_references(value) for value in node))
    return set()


def test_every_request_example_is_accepted() -> None:
    """Review item 6: RwaInput's example was `{"nodes": 6, "wavelengths": 2, "demands": [[0]]}`
    (a recorded stage with every list cut to one item), which the server refuses. Each example
    a request body's schema shows, its own and its properties' (each set into the schema's
    example), and each of the operation's named examples, is accepted by the model."""
    schemas = DOCUMENT["components"]["schemas"]
    bodies = [
        operation["requestBody"]["content"]["application/json"]
        for _, _, operation in OPERATIONS
        if "requestBody" in operation
    ]
    names = _references(bodies)
    while True:  # and every schema those refer to
        more = names | _references([schemas[name] for name in names])
        if more == names:
            break
        names = more
    objects = sorted(name for name in names if schemas[name].get("type") == "object")
    assert objects == sorted(REQUEST_MODELS), "a new request model: add it to REQUEST_MODELS"
    for name in objects:
        model, schema = REQUEST_MODELS[name], schemas[name]
        example = schema["example"]
        model.model_validate(example)
        for prop, spec in schema["properties"].items():
            if "example" in spec:
                model.model_validate(example | {prop: spec["example"]})
    for body in bodies:
        model = REQUEST_MODELS[body["schema"]["$ref"].rsplit("/", 1)[1]]
        for example in body.get("examples", {}).values():
            model.model_validate(example["value"])


def test_each_error_status_shows_an_example_of_its_own() -> None:
    """Review (session 33): every error status of every operation showed the ErrorBody
    schema's one example, a 404 'no plan'; each status now shows an answer of its own, whose
    code is the one the service sends with that status."""
    from app.errors import ErrorBody

    document = app.openapi()
    seen = 0
    for operations in document["paths"].values():
        for operation in operations.values():
            for status, answer in operation.get("responses", {}).items():
                body = answer.get("content", {}).get("application/json", {})
                if not body.get("schema", {}).get("$ref", "").endswith("/ErrorBody"):
                    continue  # /ready's 503 is its Health document
                example = body["example"]
                ErrorBody.model_validate(example)
                if status == "404":
                    assert example["code"] == "not_found"
                else:
                    assert example["code"] != "not_found", (status, example)
                seen += 1
    assert seen > 20


def test_every_parameter_of_every_operation_is_described() -> None:
    """Review (session 33): /rwa's time_limit_s and the plots' kind and fmt had none."""
    document = app.openapi()
    bare = [
        (method, path, parameter["name"])
        for path, operations in document["paths"].items()
        for method, operation in operations.items()
        if method != "parameters"
        for parameter in operation.get("parameters", [])
        if not parameter.get("description") and not parameter["schema"].get("description")
    ]
    assert not bare


def test_every_operation_with_a_body_lists_the_body_limits() -> None:
    """Review (session 34): POST /sweeps and /reproductions answer 413 past
    RWAOPT_MAX_BODY_BYTES and every body 408 when it arrives too slowly, but the document
    listed 413 for plans and /rwa only, and 408 for none."""
    with_body = [
        (path, op)
        for path, item in DOCUMENT["paths"].items()
        for method, op in item.items()
        if "requestBody" in op
    ]
    assert len(with_body) >= 4
    for path, op in with_body:
        assert {"408", "413"} <= set(op["responses"]), path

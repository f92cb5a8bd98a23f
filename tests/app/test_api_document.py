"""The OpenAPI document as a reader and a client generator see it: every property described,
short operation ids, errors documented per operation, binary bodies typed, one version, and
ReDoc with no request beyond this server."""

from __future__ import annotations

import tomllib
from pathlib import Path

from fastapi.testclient import TestClient

from app.main import app

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

"""The OpenAPI examples are real answers of this service (app/api/examples/*.json, recorded by
`python -m app.api.examples`): each still validates against its model, and every model of the
document shows one."""

from __future__ import annotations

import json

import pytest
from pydantic import TypeAdapter

from app.api.examples import FOLDER, RECORDED
from app.errors import ErrorBody
from app.main import Health, app
from app.schemas.documents import (
    PlanDocument,
    PlanPage,
    ReproductionDocument,
    ReproductionPage,
)
from app.schemas.requests import RwaInput
from app.schemas.results import CatalogEntry, RwaResponse
from app.schemas.sweeps import SweepDocument, SweepPage

MODELS = {
    "PlanDocument": PlanDocument,
    "PlanPage": PlanPage,
    "SweepDocument": SweepDocument,
    "SweepPage": SweepPage,
    "ReproductionDocument": ReproductionDocument,
    "ReproductionPage": ReproductionPage,
    "RwaInput": RwaInput,
    "RwaResponse": RwaResponse,
    "[CatalogEntry]": list[CatalogEntry],
    "ErrorBody": ErrorBody,
    "Health": Health,
}


@pytest.mark.parametrize(("name", "schema"), sorted(RECORDED.items()))
def test_each_recorded_answer_still_validates(name: str, schema: str) -> None:
    value = json.loads((FOLDER / name).read_text("utf-8"))
    TypeAdapter(MODELS[schema]).validate_python(value)  # re-record if a model changed


def test_every_model_shows_an_example_and_most_fields_a_value() -> None:
    schemas = app.openapi()["components"]["schemas"]
    objects = {n: s for n, s in schemas.items() if s.get("type") == "object"}
    assert [n for n, s in objects.items() if "example" not in s] == []
    fields = [(n, p) for n, s in objects.items() for p, spec in s["properties"].items()]
    inline = [(n, p) for n, s in objects.items() for p, spec in s["properties"].items()
              if "example" in spec]  # fmt: skip
    # the rest are large nested objects (their own model shows them) or null in every answer
    assert len(inline) >= 0.9 * len(fields), set(fields) - set(inline)


def test_a_documents_example_keeps_its_whole_request() -> None:
    """Review (session 33): examples cut every list to one item, the request's too, so the
    sweep's example asked for one point beside `points.total` = 4."""
    from app.schemas.sweeps import SweepRequest

    schemas = app.openapi()["components"]["schemas"]
    sweep = schemas["SweepDocument"]["example"]
    assert len(SweepRequest.model_validate(sweep["request"]).points()) == sweep["points"]["total"]
    recorded = json.loads((FOLDER / "plan_allreduce.json").read_text())
    plan = schemas["PlanDocument"]["example"]
    assert plan["request"] == recorded["request"]


@pytest.mark.parametrize(
    ("path", "model"),
    [("/api/v1/plans", PlanDocument), ("/api/v1/sweeps", SweepDocument),
     ("/api/v1/reproductions", ReproductionDocument)],
)  # fmt: skip
def test_a_queued_answer_shows_a_queued_document(path: str, model: type) -> None:
    """Review (session 33): the 202 ('queued') answers showed a finished document."""
    answer = app.openapi()["paths"][path]["post"]["responses"]["202"]
    example = answer["content"]["application/json"]["example"]
    # FastAPI writes the document without null members: fill them back
    nulls = {name: None for name in model.model_fields if name not in example}
    document = model.model_validate(example | nulls)
    assert document.status == "queued" and document.seconds is None

"""GET /api/v1/algorithms: the catalog with parameters and the papers' closed forms."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from app.api.errors import responses
from app.api.params import PlainInteger
from app.schemas.requests import MAX_NODES
from app.schemas.results import CatalogEntry
from app.service import catalog

router = APIRouter(prefix="/algorithms", tags=["algorithms"])


@router.get("", response_model=list[CatalogEntry], responses=responses(400, 404, 422))
def list_algorithms(
    collective: Annotated[
        str | None,
        Query(description="allgather, allreduce, alltoall or reducescatter (default: all)"),
    ] = None,
    nodes: Annotated[
        int | None,
        Query(ge=2, le=MAX_NODES, description="ring size N, to evaluate closed forms"),
        PlainInteger,
    ] = None,
    wavelengths: Annotated[
        int | None, Query(ge=1, le=4096, description="wavelengths per fibre"), PlainInteger
    ] = None,
) -> list[CatalogEntry]:
    """Every catalog entry; with `nodes` and `wavelengths`, each closed form's value too."""
    return catalog(collective, nodes, wavelengths)

"""The catalog as plain data for the CLI and the REST API (one function, two front ends)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from models.algorithms.base import Algorithm
from models.algorithms.catalog import algorithms
from models.errors import InvalidInputError
from models.ring import Ring


def describe(algorithm: Algorithm, ring: Ring | None = None) -> dict[str, Any]:
    """Catalog entry; with a ring, also the resolved parameters and closed-form values."""
    entry: dict[str, Any] = {
        "collective": algorithm.collective.value,
        "name": algorithm.name,
        "title": algorithm.title,
        "source": algorithm.source,
        "parameters": [
            {
                "name": p.name,
                "description": p.description,
                "minimum": p.minimum,
                "default": p.default,
                "default_rule": p.default_rule,
                "maximum_rule": p.maximum_rule,
                "is_list": p.is_list,
            }
            for p in algorithm.params
        ],
        "closed_form": {"steps": algorithm.steps_formula, "source": algorithm.steps_source},
    }
    if ring is None:
        return entry
    params = algorithm.fill_defaults(ring, {})  # the paper's shape
    entry["resolved_parameters"] = {
        k: list(v) if isinstance(v, tuple) else v for k, v in params.items()
    }
    refusal = algorithm.refusal(ring, params)
    entry["accepts_ring"] = refusal is None
    if refusal:
        entry["refusal"] = refusal
    entry["closed_forms"] = [asdict(f) for f in algorithm.closed_forms(ring, params)]
    first = entry["closed_forms"][0]
    entry["claimed"] = {"value": first["value"], "unit": first["unit"]}
    entry["claimed_steps"] = first["value"] if first["unit"] == "steps" else None
    return entry


def catalog(
    collective: str | None = None,
    nodes: int | None = None,
    wavelengths: int | None = None,
    fibers: int = 1,
) -> list[dict[str, Any]]:
    ring = None
    if nodes is not None or wavelengths is not None:
        if nodes is None or wavelengths is None:
            raise InvalidInputError("give both nodes and wavelengths to evaluate closed forms")
        ring = Ring(nodes, fibers, wavelengths)
    return [describe(a, ring) for a in algorithms(collective)]

"""Findings of a reproduction (SPEC section 9): one printed number of a paper beside its closed
form evaluated as printed and rwaopt's certified value, with a computed verdict.

The printed numbers live in one JSON file per paper under `models/printed/`, each with where
it is printed (table, figure, page or section) so a reader can check it against the paper's
text; numbers read off a figure say so.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from enum import StrEnum
from importlib import resources
from typing import Any

from models.closed_forms import Unit

DEFAULT_TOLERANCE = 1e-9  # relative: every printed number compared here is exact (a count)


class Verdict(StrEnum):
    AGREES = "agrees"  # printed = formula = true
    PRINTED_VS_FORMULA = "printed_vs_formula"  # the paper's number is not its own formula's
    FORMULA_VS_TRUE = "formula_vs_true"  # the formula is not what the algorithm takes
    NOT_REPRODUCIBLE = "not_reproducible"  # rwaopt cannot compute the true value here


@dataclass(frozen=True)
class Printed:
    """A number as the paper prints it."""

    paper: str
    item: str  # "Table 1", "Fig. 4", "Sec. III-B"
    quantity: str  # e.g. "steps of optree"
    parameters: dict[str, Any]
    unit: Unit
    value: float | None  # None: the paper prints no number here (a curve without labels)
    where: str  # page / line / how it was read
    from_figure: bool = False


@dataclass(frozen=True)
class Finding:
    paper: str
    item: str
    quantity: str
    parameters: dict[str, Any]
    unit: Unit
    printed: float | None
    formula: float | None
    true: float | None
    verdict: Verdict
    note: str = ""
    tolerance: float = DEFAULT_TOLERANCE
    where: str = ""
    extra: dict[str, Any] = field(default_factory=dict)  # e.g. the best shape's true value


def close(a: float, b: float, tolerance: float) -> bool:
    return math.isclose(a, b, rel_tol=tolerance, abs_tol=tolerance)


def verdict(
    printed: float | None,
    formula: float | None,
    true: float | None,
    tolerance: float = DEFAULT_TOLERANCE,
    alternative: float | None = None,
) -> Verdict:
    """Printed against formula first (a paper that misprints its own formula is the first
    thing to know; a formula printed with two cases matches either), then formula against
    true; without a true value, not reproducible."""
    cases = [v for v in (formula, alternative) if v is not None]
    if printed is not None and cases and not any(close(printed, v, tolerance) for v in cases):
        return Verdict.PRINTED_VS_FORMULA
    if true is None:
        return Verdict.NOT_REPRODUCIBLE
    reference = formula if formula is not None else printed
    if reference is not None and not close(reference, true, tolerance):
        return Verdict.FORMULA_VS_TRUE
    return Verdict.AGREES


def finding(
    printed: Printed,
    formula: float | None,
    true: float | None,
    note: str = "",
    tolerance: float = DEFAULT_TOLERANCE,
    alternative: float | None = None,
    **extra: Any,
) -> Finding:
    if alternative is not None:
        extra["formula_alternative"] = alternative
        if (
            printed.value is not None
            and formula is not None
            and close(printed.value, alternative, tolerance)
            and not close(printed.value, formula, tolerance)
        ):
            note = (note + "; " if note else "") + (
                f"the printed number is the formula's other case ({alternative:g}); this "
                f"shape is in the case giving {formula:g}"
            )
    return Finding(
        printed.paper,
        printed.item,
        printed.quantity,
        printed.parameters,
        printed.unit,
        printed.value,
        formula,
        true,
        verdict(printed.value, formula, true, tolerance, alternative),
        note,
        tolerance,
        printed.where + (" (read from the figure)" if printed.from_figure else ""),
        dict(extra),
    )


def load_printed(paper: str) -> list[Printed]:
    """The transcribed numbers of one paper (`models/printed/<paper>.json`)."""
    text = resources.files("models.printed").joinpath(f"{paper}.json").read_text("utf-8")
    data = json.loads(text)
    return [
        Printed(
            paper=data["paper"],
            item=row["item"],
            quantity=row["quantity"],
            parameters=row["parameters"],
            unit=Unit(row.get("unit", "steps")),
            value=row["printed"],
            where=row["where"],
            from_figure=row.get("from_figure", False),
        )
        for row in data["values"]
    ]

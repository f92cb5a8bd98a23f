"""Findings of a reproduction (SPEC section 9): one printed number of a paper beside its closed
form evaluated as printed and rwaopt's value, with a computed verdict.

rwaopt's value is of one of two kinds: `true` (certified: true steps of a solved RWA, or a
count on the schedule) or `model` (it depends on a model the paper did not fix: a SimGrid
simulation, `simulated`, or the paper's own cost model at a chosen parameter, `cost_model`).
The two are never mixed: a model value is compared under its own verdicts.

Comparison rules (`verdict`):
- integers (counts: steps, rounds, blocks, depths, hops) are compared exactly;
- a printed decimal (a percentage) matches a computed value that rounds or truncates to it
  at its printed precision (the papers do both): 87.64 stands for [87.635, 87.645] rounded
  or [87.64, 87.65) truncated; this tolerance is used for nothing else;
- computed against computed (formula against true) is exact up to floating-point noise
  (relative 1e-9);
- a formula printed with two cases is evaluated in the case the paper's own rule selects; a
  printed number that matches only the other case is `printed_other_case`, a finding;
- a best value (a depth, a radix) whose optimum is tied is `tie` when the formula's choice is
  one of the tied optima, `formula_vs_true` when it is none of them;
- a formula the paper states as a lower bound (WRHT's Lemma 1) is met by any value at or above
  it: only a value below it (the paper's own schedule beating its "lower bound") is
  `formula_vs_true`.

The printed numbers live in one JSON file per paper under `models/printed/`, each with where
it is printed (table, figure, page or section) so a reader can check it against the paper's
text; numbers read off a figure say so.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum
from importlib import resources
from typing import Any, Literal

from models.closed_forms import Unit

COMPUTED_TOLERANCE = 1e-9  # relative: floating-point noise between two computed values
EXACT_UNITS = frozenset(
    {Unit.STEPS, Unit.ROUNDS, Unit.BLOCKS, Unit.WAVELENGTHS, Unit.HOPS, Unit.STAGES, Unit.NODES}
)
ModelKind = Literal["simulated", "cost_model"]


class Verdict(StrEnum):
    AGREES = "agrees"  # printed = formula = true
    PRINTED_VS_FORMULA = "printed_vs_formula"  # the paper's number is not its own formula's
    PRINTED_OTHER_CASE = "printed_other_case"  # only the case the paper's rule does not select
    FORMULA_VS_TRUE = "formula_vs_true"  # the formula is not what the algorithm takes
    TIE = "tie"  # the formula's choice is one of several tied true optima
    AGREES_UNDER_MODEL = "agrees_under_model"  # formula = a model-dependent value
    FORMULA_VS_MODEL = "formula_vs_model"  # formula != a model-dependent value
    NOT_REPRODUCIBLE = "not_reproducible"  # rwaopt has no value of its own here


MISMATCHES = frozenset(
    {
        Verdict.PRINTED_VS_FORMULA,
        Verdict.PRINTED_OTHER_CASE,
        Verdict.FORMULA_VS_TRUE,
        Verdict.FORMULA_VS_MODEL,
    }
)


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
    decimals: int | None = None  # a rounded decimal: digits after the point; None: exact

    @property
    def tolerance(self) -> float:
        """Absolute: one unit of the last printed digit (0 for an exact number)."""
        return 0.0 if self.decimals is None else 10.0**-self.decimals


@dataclass(frozen=True)
class Finding:
    paper: str
    item: str
    quantity: str
    parameters: dict[str, Any]
    unit: Unit
    printed: float | None
    formula: float | None
    true: float | None  # certified only
    verdict: Verdict
    note: str = ""
    tolerance: float = 0.0  # absolute: printed against formula, one unit of the last digit
    where: str = ""
    extra: dict[str, Any] = field(default_factory=dict)  # e.g. the best shape's true value
    model: float | None = None  # a model-dependent value (never certified)
    model_kind: ModelKind | None = None
    alternative: float | None = None  # a two-case formula's case the paper's rule rejects
    tied: tuple[float, ...] = ()  # every true optimum, when a best value is tied
    lower_bound: bool = False  # the formula is a lower bound: met by any value at or above it


def matches_printed(printed: float, computed: float, tolerance: float) -> bool:
    """A computed value matches a printed one: exactly (tolerance 0), or, for a printed decimal
    whose last digit is worth `tolerance`, when it rounds to it (within half a unit) or
    truncates to it (the printed number is less than a unit nearer zero, same sign)."""
    if tolerance == 0:
        return same_computed(printed, computed)
    guard = 1e-9 * tolerance  # floating-point noise in the computed value
    rounded = abs(printed - computed) <= tolerance / 2 + guard
    toward_zero = abs(computed) - abs(printed)
    truncated = printed * computed >= 0 and -guard <= toward_zero < tolerance - guard
    return rounded or truncated


def same_computed(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=COMPUTED_TOLERANCE, abs_tol=1e-12)


def verdict(
    printed: float | None,
    formula: float | None,
    true: float | None,
    tolerance: float = 0.0,
    alternative: float | None = None,
    model: float | None = None,
    tied: Sequence[float] = (),
    lower_bound: bool = False,
) -> Verdict:
    """Printed against the formula first (in the case the paper's rule selects; a paper
    that misprints its own formula is the first thing to know), then the formula (or, without
    one, the printed number) against rwaopt's value: certified `true`, else a `model` value;
    with neither, not reproducible. A `lower_bound` formula is met by a value at or above it."""
    if (
        printed is not None
        and formula is not None
        and not matches_printed(printed, formula, tolerance)
    ):
        if alternative is not None and matches_printed(printed, alternative, tolerance):
            return Verdict.PRINTED_OTHER_CASE
        return Verdict.PRINTED_VS_FORMULA
    reference = formula if formula is not None else printed
    precision = tolerance if formula is None else 0.0  # a printed reference: its precision
    if true is not None:
        if reference is None:
            return Verdict.NOT_REPRODUCIBLE
        if lower_bound:
            below = true < reference and not _same(reference, true, precision)
            return Verdict.FORMULA_VS_TRUE if below else Verdict.AGREES
        if len(tied) > 1:
            hit = any(_same(reference, t, precision) for t in tied)
            return Verdict.TIE if hit else Verdict.FORMULA_VS_TRUE
        return Verdict.AGREES if _same(reference, true, precision) else Verdict.FORMULA_VS_TRUE
    if model is not None and reference is not None:
        if len(tied) > 1:
            hit = any(_same(reference, t, precision) for t in tied)
            return Verdict.TIE if hit else Verdict.FORMULA_VS_MODEL
        same = _same(reference, model, precision)
        return Verdict.AGREES_UNDER_MODEL if same else Verdict.FORMULA_VS_MODEL
    return Verdict.NOT_REPRODUCIBLE


def _same(reference: float, value: float, printed_precision: float) -> bool:
    if printed_precision > 0:
        return matches_printed(reference, value, printed_precision)
    return same_computed(reference, value)


def finding(
    printed: Printed,
    formula: float | None,
    true: float | None,
    note: str = "",
    alternative: float | None = None,
    model: float | None = None,
    model_kind: ModelKind | None = None,
    tied: Sequence[float] = (),
    lower_bound: bool = False,
    **extra: Any,
) -> Finding:
    """A finding with its verdict computed; the note says which case of a two-case formula
    the paper's rule selects, the model behind a model value, the tied optima, and a lower
    bound's rule."""
    if (model is None) != (model_kind is None):
        raise ValueError("a model value needs its kind, and only a model value has one")
    notes = [note] if note else []
    if alternative is not None and formula is not None:
        notes.append(
            f"two cases: the paper's rule selects {formula:g} here; the other case gives "
            f"{alternative:g}"
        )
    if len(tied) > 1:
        notes.append(f"tied optima: {', '.join(f'{t:g}' for t in tied)}")
    if lower_bound:
        notes.append("the formula is a lower bound: met by any value at or above it")
    if model is not None:
        notes.append(f"{model_kind}: {model:.6g} (model-dependent, not certified)")
    tolerance = printed.tolerance
    return Finding(
        printed.paper,
        printed.item,
        printed.quantity,
        printed.parameters,
        printed.unit,
        printed.value,
        formula,
        true,
        verdict(printed.value, formula, true, tolerance, alternative, model, tied, lower_bound),
        "; ".join(notes),
        tolerance,
        printed.where + (" (read from the figure)" if printed.from_figure else ""),
        dict(extra),
        model,
        model_kind,
        alternative,
        tuple(tied),
        lower_bound,
    )


def _decimals(value: Decimal | int | None, unit: Unit, stated: int | None) -> int | None:
    """Digits after the point of a printed rounded decimal (a percentage, as transcribed);
    None for an exact number (a count)."""
    if stated is not None:
        return stated
    if value is None or unit in EXACT_UNITS:
        return None
    exponent = value.as_tuple().exponent if isinstance(value, Decimal) else 0
    assert isinstance(exponent, int)
    return max(0, -exponent)


def load_printed(paper: str) -> list[Printed]:
    """The transcribed numbers of one paper (`models/printed/<paper>.json`); a decimal keeps
    the digits it is transcribed with (its printed precision)."""
    text = resources.files("models.printed").joinpath(f"{paper}.json").read_text("utf-8")
    data = json.loads(text, parse_float=Decimal)
    values = []
    for row in data["values"]:
        unit = Unit(row.get("unit", "steps"))
        raw = row["printed"]
        values.append(
            Printed(
                paper=data["paper"],
                item=row["item"],
                quantity=row["quantity"],
                parameters=_plain(row["parameters"]),
                unit=unit,
                value=None if raw is None else (float(raw) if isinstance(raw, Decimal) else raw),
                where=row["where"],
                from_figure=row.get("from_figure", False),
                decimals=_decimals(raw, unit, row.get("decimals")),
            )
        )
    return values


def _plain(value: Any) -> Any:
    """Parameters as plain JSON values (decimals as floats)."""
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value

"""Verdicts of findings (SPEC section 9) are computed from the three numbers."""

from __future__ import annotations

import pytest

from models.closed_forms import Unit
from models.findings import Printed, Verdict, finding, load_printed, verdict


@pytest.mark.parametrize(
    ("printed", "formula", "true", "expected"),
    [
        (7, 7, 7, Verdict.AGREES),
        (128, 2048, 2051, Verdict.PRINTED_VS_FORMULA),  # checked before formula vs true
        (70, 70, 72, Verdict.FORMULA_VS_TRUE),
        (7, 7, None, Verdict.NOT_REPRODUCIBLE),
        (None, 24, 24, Verdict.AGREES),  # nothing printed: formula against true
        (None, 15, 14, Verdict.FORMULA_VS_TRUE),
    ],
)
def test_verdicts(
    printed: float | None, formula: float, true: float | None, expected: Verdict
) -> None:
    assert verdict(printed, formula, true) == expected


def test_a_printed_number_may_be_the_formulas_other_case() -> None:
    """WRHT Table I prints 4 = 2 ceil(log_m N); the shape is in the 2 ceil(log_m N) - 1 case."""
    p = Printed("WRHT", "Table I", "steps", {"nodes": 1000}, Unit.STEPS, 4, "Table I")
    f = finding(p, 3, 3, alternative=4)
    assert f.verdict == Verdict.AGREES and "other case" in f.note


def test_every_printed_file_loads_with_its_source() -> None:
    for paper in ("optree-journal", "wrht", "optical-electrical", "tra"):
        values = load_printed(paper)
        assert values and all(v.where for v in values)

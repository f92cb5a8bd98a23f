"""Verdicts of findings (SPEC section 9) are computed from the numbers, exactly for counts and
at the printed precision for printed decimals."""

from __future__ import annotations

import pytest

from models.closed_forms import Unit
from models.findings import Printed, Verdict, finding, load_printed, matches_printed, verdict


@pytest.mark.parametrize(
    ("printed", "formula", "true", "expected"),
    [
        (7, 7, 7, Verdict.AGREES),
        (128, 2048, 2051, Verdict.PRINTED_VS_FORMULA),  # checked before formula vs true
        (70, 70, 72, Verdict.FORMULA_VS_TRUE),
        (7, 7, None, Verdict.NOT_REPRODUCIBLE),
        (None, 24, 24, Verdict.AGREES),  # nothing printed: formula against true
        (None, 15, 14, Verdict.FORMULA_VS_TRUE),
        (None, 1024, 1023, Verdict.FORMULA_VS_TRUE),  # counts: exact, 0.1 % is a mismatch
        (1023, 1024, 1024, Verdict.PRINTED_VS_FORMULA),
    ],
)
def test_verdicts(
    printed: float | None, formula: float, true: float | None, expected: Verdict
) -> None:
    assert verdict(printed, formula, true) == expected


@pytest.mark.parametrize(
    ("printed", "unit", "computed", "expected"),
    [
        (87.64, 0.01, 87.6448, True),  # rounds to 87.64
        (87.64, 0.01, 87.6351, True),  # rounds up to 87.64
        (93.73, 0.01, 93.7377, True),  # truncated (OpTree journal Table 2 truncates)
        (33.34, 0.01, 33.3333, False),  # neither rounded nor truncated
        (96.57, 0.01, 98.2404, False),  # 1.7 % apart: a 2 % tolerance would have hidden it
        (-31.27, 0.01, -31.2741, True),  # truncated toward zero
        (-31.27, 0.01, -31.2649, False),  # rounds and truncates to -31.26
        (-180, 1, -180.9, True),  # "-180%": truncated
        (-180, 1, -317.9, False),
    ],
)
def test_printed_decimals_match_at_their_precision(
    printed: float, unit: float, computed: float, expected: bool
) -> None:
    assert matches_printed(printed, computed, unit) is expected


def test_a_printed_number_of_the_formulas_other_case_is_a_finding() -> None:
    """WRHT Table I prints 4 = 2 ceil(log_m N); the paper's rule puts the shape in the
    2 ceil(log_m N) - 1 case (3)."""
    p = Printed("WRHT", "Table I", "steps", {"nodes": 1000}, Unit.STEPS, 4, "Table I")
    f = finding(p, 3, 3, alternative=4)
    assert f.verdict == Verdict.PRINTED_OTHER_CASE and "selects 3" in f.note
    assert finding(p, 4, 4, alternative=3).verdict == Verdict.AGREES


def test_ties_are_ties() -> None:
    assert verdict(6, 6, 4, tied=[4, 5, 6, 7]) == Verdict.TIE
    assert verdict(None, 6, 4, tied=[4, 5]) == Verdict.FORMULA_VS_TRUE
    assert verdict(None, 4, 4, tied=[4]) == Verdict.AGREES  # one optimum: no tie


def test_model_values_are_not_true_values() -> None:
    p = Printed("TRA", "Fig. 8", "best_radix", {"processes": 4096}, Unit.NODES, 64, "Fig. 8")
    f = finding(p, 64, None, model=16, model_kind="cost_model")
    assert (f.true, f.model, f.verdict) == (None, 16, Verdict.FORMULA_VS_MODEL)
    same = finding(p, 64, None, model=64, model_kind="cost_model")
    assert same.verdict == Verdict.AGREES_UNDER_MODEL
    with pytest.raises(ValueError, match="kind"):
        finding(p, 64, None, model=64)


def test_every_printed_file_loads_with_its_source_and_precision() -> None:
    for paper in ("optree-journal", "optree-conference", "wrht", "optical-electrical", "tra"):
        values = load_printed(paper)
        assert values and all(v.where for v in values)
    table3 = {
        (v.parameters["against"], v.parameters["wavelengths"]): v
        for v in load_printed("optree-journal")
        if v.item == "Table 3"
    }
    assert table3[("wrht", 16)].decimals == 0  # "-180%"
    assert table3[("ne", 4)].decimals == 2  # "-118.75%"
    steps = [v for v in load_printed("optree-journal") if v.quantity == "steps"]
    assert steps and all(v.decimals is None and v.tolerance == 0 for v in steps)


@pytest.mark.parametrize(
    ("bound", "value", "expected"),
    [
        (4, 3, Verdict.FORMULA_VS_TRUE),  # WRHT's own schedule below its Lemma 1 bound
        (4, 4, Verdict.AGREES),
        (4, 6, Verdict.AGREES),  # a lower bound is met by anything at or above it
    ],
)
def test_a_lower_bound_is_broken_only_from_below(bound: int, value: int, expected: Verdict) -> None:
    assert verdict(None, bound, value, lower_bound=True) == expected
    # Compared as an equality, 6 against 4 would have been a mismatch.
    assert verdict(None, bound, value) == (
        Verdict.AGREES if value == bound else Verdict.FORMULA_VS_TRUE
    )
    p = Printed("WRHT", "Lemma 1", "steps_lower_bound", {}, Unit.STEPS, None, "Lemma 1")
    f = finding(p, bound, value, lower_bound=True)
    assert f.lower_bound and "lower bound" in f.note

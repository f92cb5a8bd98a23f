"""A synthetic paper with one planted error of each kind the verdicts must catch: the report
flags exactly that cell, with its own verdict, and nothing else. Expected values are by hand:
Ring all-gather takes N - 1 steps."""

from __future__ import annotations

import json
from pathlib import Path

from app.reproduction import Chart, Covered, PlanCache, Section, Series, Table
from app.reproduction.writer import write_report
from models.closed_forms import Unit
from models.findings import Printed, finding
from models.ring import Ring


def printed(cell: str, unit: Unit, value: float | None, decimals: int | None = None) -> Printed:
    return Printed(
        "Synthetic", "Table 9", "q", {"cell": cell}, unit, value, "Table 9", False, decimals
    )


def synthetic_paper(cache: PlanCache) -> Section:
    section = Section("synthetic", "A synthetic paper", "One planted error of each kind.")
    ring8 = cache.plan("allgather", "ring", Ring(8, 1, 2))["true_steps"]  # 7 by hand
    section.findings += [
        finding(printed("steps ok", Unit.STEPS, 7), 7, ring8),
        # A count off by one: exact comparison flags it (1/1024 would pass a 2 % tolerance).
        finding(printed("steps misprinted", Unit.STEPS, 1023), 1024, 1024),
        # A printed decimal truncated (93.7377 -> 93.73): agrees at its precision.
        finding(printed("percent truncated", Unit.PERCENT, 93.73, 2), 93.7377, 93.7377),
        # 96.57 printed, 98.2404 by the formula: 1.7 % apart, a mismatch at 2 decimals.
        finding(printed("percent 1.7% off", Unit.PERCENT, 96.57, 2), 98.2404, 98.2404),
        # Two cases: the paper's rule selects 3; the printed 4 is only the other case.
        finding(printed("other case", Unit.STEPS, 4), 3, 3, alternative=4),
        finding(printed("selected case", Unit.STEPS, 3), 3, 3, alternative=4),
        # A best depth tied among 4, 5 and 6, the formula's 6 among them: a tie, not agrees.
        finding(printed("tied depth", Unit.STAGES, 6), 6, 4, tied=[4, 5, 6]),
        # A model-dependent value (a cost model): never `true`, its own verdict.
        finding(printed("cost model", Unit.NODES, 64), 64, None, model=16, model_kind="cost_model"),
        finding(
            printed("simulated", Unit.PERCENT, 75.35, 2),
            75.3512,
            None,
            model=75.3512,
            model_kind="simulated",
        ),
        # A lower bound (WRHT's Lemma 1): beaten from below is a finding; above it, none.
        finding(printed("lower bound beaten", Unit.STEPS, None), 4, 3, lower_bound=True),
        finding(printed("lower bound met", Unit.STEPS, None), 4, 6, lower_bound=True),
    ]
    section.tables.append(Table("synthetic_table", "Table 9 rebuilt", ["cell"], [["x"]]))
    section.charts.append(Chart("synthetic_chart", "Fig. 9", "N", "steps", [Series("s", [1], [1])]))
    section.coverage.append(
        Covered(
            "Table 9",
            "every kind of error",
            tables=("synthetic_table",),
            charts=("synthetic_chart",),
            findings=("Table 9",),
            paper_values="none: no labelled values",
        )
    )
    return section


EXPECTED = {
    "steps ok": "agrees",
    "steps misprinted": "printed_vs_formula",
    "percent truncated": "agrees",
    "percent 1.7% off": "printed_vs_formula",
    "other case": "printed_other_case",
    "selected case": "agrees",
    "tied depth": "tie",
    "cost model": "formula_vs_model",
    "simulated": "agrees_under_model",
    "lower bound beaten": "formula_vs_true",
    "lower bound met": "agrees",
}


def test_each_planted_error_and_only_it_is_flagged(tmp_path: Path) -> None:
    counts = write_report([synthetic_paper(PlanCache(None))], tmp_path)
    findings = json.loads((tmp_path / "findings.json").read_text())
    assert {f["parameters"]["cell"]: f["verdict"] for f in findings} == EXPECTED
    assert counts == {
        "agrees": 4,
        "formula_vs_true": 1,
        "printed_vs_formula": 2,
        "printed_other_case": 1,
        "tie": 1,
        "formula_vs_model": 1,
        "agrees_under_model": 1,
    }
    by_cell = {f["parameters"]["cell"]: f for f in findings}
    model = by_cell["cost model"]
    assert (model["true"], model["model"], model["model_kind"]) == (None, 16, "cost_model")
    assert by_cell["tied depth"]["tied"] == [4, 5, 6]
    assert by_cell["other case"]["alternative"] == 4
    assert by_cell["percent 1.7% off"]["tolerance"] == 0.01  # the printed precision, stated
    assert by_cell["steps misprinted"]["tolerance"] == 0  # counts: exact
    assert by_cell["lower bound beaten"]["lower_bound"] is True


def test_the_page_links_each_flagged_cell_and_colours_it(tmp_path: Path) -> None:
    """Every headline sentence links to the first row it speaks of, and to the item's table and
    figure; each row carries its verdict's colour class; a group with a mismatch is open."""
    write_report([synthetic_paper(PlanCache(None))], tmp_path)
    page = (tmp_path / "report.html").read_text()
    findings = json.loads((tmp_path / "findings.json").read_text())
    for i, f in enumerate(findings):
        assert f"<tr class='v-{f['verdict']}' id='synthetic-f{i}'>" in page
    # One sentence per (item, verdict) with a mismatch or a tie, linked to its first row.
    flagged = {}
    for i, f in enumerate(findings):
        if f["verdict"] not in ("agrees", "agrees_under_model", "not_reproducible"):
            flagged.setdefault(f["verdict"], i)
    found = page.split("<h2 id='found'>")[1].split("</ol>")[0]
    assert found.count("<li>") == len(flagged) == 5
    for i in flagged.values():
        assert f"href='#synthetic-f{i}'" in found
    assert "href='#t-synthetic_table'" in found and "href='#fig-synthetic_chart'" in found
    assert "id='t-synthetic_table'" in page and "id='fig-synthetic_chart'" in page
    assert "none: no labelled values" in page  # the coverage says which values the paper prints
    assert "<details open><summary class='group'>" in page
    markdown = (tmp_path / "report.md").read_text()
    assert all(f"<a id='synthetic-f{i}'></a>" in markdown for i in range(len(findings)))

"""`rwaopt reproduce`: the machinery flags exactly the planted error of a synthetic paper, and
the report files are written and self-contained."""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from app.cli import cli
from app.reproduction import Chart, PlanCache, Section, Series, Table
from app.reproduction.writer import write_report
from models.closed_forms import Unit, ring_allgather_steps
from models.findings import Printed, Verdict, finding
from models.ring import Ring

# A synthetic paper printing Ring all-gather steps at three sizes, one of them misprinted.
SYNTHETIC = [(8, 7), (16, 14), (32, 31)]  # 16 nodes take 15 steps: the planted error


def synthetic_section(cache: PlanCache) -> Section:
    section = Section("synthetic", "A synthetic paper", "Ring all-gather, one misprint.")
    for n, printed in SYNTHETIC:
        p = Printed("Synthetic", "Table 9", "steps", {"nodes": n}, Unit.STEPS, printed, "Table 9")
        true = cache.plan("allgather", "ring", Ring(n, 1, 4))["true_steps"]
        section.findings.append(finding(p, ring_allgather_steps(n), true))
    section.tables.append(Table("synthetic", "Table 9", ["nodes", "printed"], [[8, 7]]))
    section.charts.append(Chart("synthetic", "steps", "N", "steps", [Series("ring", [8], [7])]))
    return section


def test_the_planted_error_and_only_it_is_flagged(tmp_path: Path) -> None:
    cache = PlanCache(tmp_path / "cache.json")
    counts = write_report([synthetic_section(cache)], tmp_path)
    assert counts == {"agrees": 2, "printed_vs_formula": 1}
    findings = json.loads((tmp_path / "findings.json").read_text())
    flagged = [f for f in findings if f["verdict"] != Verdict.AGREES]
    assert [(f["parameters"], f["printed"], f["formula"], f["true"]) for f in flagged] == [
        ({"nodes": 16}, 14, 15, 15)
    ]
    html = (tmp_path / "report.html").read_text()
    assert "<svg" in html and "<img" not in html and "http://" not in html.split("<svg")[0]
    assert (tmp_path / "figures" / "synthetic.png").read_bytes()[:4] == b"\x89PNG"
    assert (tmp_path / "tables" / "synthetic.csv").read_text() == "nodes,printed\n8,7\n"
    # The cache answers the same request again without solving.
    assert PlanCache(tmp_path / "cache.json").entries == cache.entries


def test_reproduce_tra_from_the_command_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["reproduce", "tra", "--quick", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.stderr
    findings = json.loads((tmp_path / "findings.json").read_text())
    by_radix = {(f["quantity"], f["parameters"].get("radix")): f for f in findings}
    # "K (= 16,384) at r = P": Proposition 1 gives w(r - 1) = 16383 at P = r = 16384.
    misprint = by_radix[("rounds", 16384)]
    assert (misprint["formula"], misprint["true"], misprint["verdict"]) == (
        16383,
        16383,
        "printed_vs_formula",
    )
    assert by_radix[("rounds", 128)]["verdict"] == "agrees"
    # Sec. V-B prints TRA2's best inter-node radix at P = 2048 as "34 (2048/64 = 32)": the
    # rule it states, r2 = P / Q, is 32.
    (inter,) = [f for f in findings if f["item"] == "Fig. 9 (c)"]
    assert (inter["printed"], inter["formula"], inter["verdict"]) == (34, 32, "printed_vs_formula")
    assert (tmp_path / "report.md").exists()
    # Fig. 8's P = 2048 at r = 2, 46 and P, counted on the simulated schedule. By hand:
    # r = 2: w = 11 digits, K = 11, D = w 2^(w-1) = 11264 (Sec. III-B's text);
    # r = 46: two digits; the low one takes 45 nonzero values, the top one (2047 // 46 = 44)
    # 44: K = 89; D = indices with a nonzero low digit (2048 - 45 multiples of 46) plus those
    # with a nonzero top digit (2048 - 46): 2003 + 2002 = 4005; r = P: K = D = P - 1.
    with (tmp_path / "tables" / "tra_k_d.csv").open() as table:
        rows = {
            (row["quantity"], int(row["radix"])): row
            for row in csv.DictReader(table)
            if row["processes"] == "2048"
        }
    assert {(q, r): (rows[(q, r)]["counted"], rows[(q, r)]["counted_on"]) for q, r in rows} == {
        ("rounds", 2): ("11", "schedule"),
        ("blocks_sent_per_process", 2): ("11264", "schedule"),
        ("rounds", 46): ("89", "schedule"),
        ("blocks_sent_per_process", 46): ("4005", "schedule"),
        ("rounds", 2048): ("2047", "schedule"),
        ("blocks_sent_per_process", 2048): ("2047", "schedule"),
    }


def test_unknown_target(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["reproduce", "bogus", "--out", str(tmp_path)])
    assert result.exit_code == 2
    assert "unknown target 'bogus'; targets: optree-journal," in result.stderr


def test_the_best_shape_is_never_slower_than_the_papers(tmp_path: Path) -> None:
    cache = PlanCache(tmp_path / "cache.json")
    ring = Ring(16, 1, 2)
    paper = cache.plan("allgather", "wrht", ring)
    best = cache.best("allgather", "wrht", ring, 10.0)
    assert best["time_s"] <= paper["time_s"] and best["exhaustive"]
    assert set(best["shape"]) == {"group", "levels"}


def test_a_shared_plan_cache_is_reused(tmp_path: Path) -> None:
    """RWAOPT_REPRODUCTION_CACHE: queued reproductions write to temporary directories but
    keep their solved plans in one file, so the next one solves nothing again."""
    from app.schemas.requests import ReproductionRequest
    from app.service import reproduce

    shared = tmp_path / "shared" / "plans.json"
    from app.reproduction.wrht import COVERAGE

    request = ReproductionRequest(targets=["wrht"], quick=True)
    first = reproduce(request, tmp_path / "one", shared)
    solved = json.loads(shared.read_text())
    assert solved and not (tmp_path / "one" / "cache.json").exists()
    # every table WRHT's coverage names is written, under that name
    written = {p.stem for p in (tmp_path / "one" / "tables").glob("*.csv")}
    assert {t for covered in COVERAGE for t in covered.tables} <= written
    report = (tmp_path / "one" / "report.md").read_text("utf-8")
    anchors = re.findall(r"<a id='(t-[^']+)'", report)
    assert anchors and len(anchors) == len(set(anchors))
    second = reproduce(request, tmp_path / "two", shared)
    assert json.loads(shared.read_text()) == solved  # nothing new was solved
    assert [f.model_dump() for f in second.findings] == [f.model_dump() for f in first.findings]


def test_a_plan_cache_with_a_store_solves_each_request_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A summary put in the store by one cache is read by another (a later reproduction, in
    another process): it does not solve again."""

    class Store:
        def __init__(self) -> None:
            self.rows: dict[str, dict[str, Any]] = {}

        def get(self, key: str) -> dict[str, Any] | None:
            return self.rows.get(key)

        def put(self, key: str, summary: Mapping[str, Any]) -> None:
            self.rows.setdefault(key, dict(summary))

    store = Store()
    first = PlanCache(None, store).plan("allgather", "ring", Ring(8, 1, 2))
    assert len(store.rows) == 1 and first["true_steps"] == 7  # Ring all-gather: N - 1 steps

    def no_solve(*args: object) -> None:
        raise AssertionError("solved again")

    monkeypatch.setattr("app.reproduction.plans._solve", no_solve)
    again = PlanCache(tmp_path / "cache.json", store).plan("allgather", "ring", Ring(8, 1, 2))
    assert again == first
    assert json.loads((tmp_path / "cache.json").read_text()) != {}  # copied to the file too


def test_no_two_papers_name_the_same_table() -> None:
    """Review (session 34): WRHT's Fig. 5 table and the optical-vs-electrical paper's were
    both `optical_electrical_reduction`: one CSV overwrote the other, and the report had the
    anchor twice. Every paper's coverage names tables of its own."""
    import importlib

    names: list[str] = []
    for paper in ("optree_journal", "optree_conference", "wrht", "optical_electrical", "tra"):
        module = importlib.import_module(f"app.reproduction.{paper}")
        names += sorted({t for covered in module.COVERAGE for t in covered.tables})
    assert len(names) == len(set(names))

"""POST /api/v1/reproductions: queued like plans, findings once done, the report's files."""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

import pytest
from fastapi.testclient import TestClient


def wait_done(client: TestClient, location: str, timeout_s: float = 120) -> Any:
    deadline = time.monotonic() + timeout_s
    while (doc := client.get(location).json())["status"] in ("queued", "running"):
        assert time.monotonic() < deadline, "the reproduction did not finish"
        time.sleep(0.2)
    return doc


def test_a_queued_reproduction_and_its_files(client: TestClient) -> None:
    r = client.post("/api/v1/reproductions", json={"targets": ["tra"], "quick": True})
    assert r.status_code == 202 and r.json()["status"] == "queued"
    doc = wait_done(client, r.headers["Location"])
    assert doc["status"] == "done", doc["error"]
    misprints = [f for f in doc["findings"] if f["verdict"] == "printed_vs_formula"]
    assert [(f["quantity"], f["printed"], f["formula"]) for f in misprints] == [
        ("rounds", 16384, 16383),  # "K (= 16,384) at r = P" against Proposition 1
        ("best_radix_inter", 34, 32),  # "34 (2048/64 = 32)": TRA2's rule r2 = P / Q
    ]
    counted = Counter(f["verdict"] for f in doc["findings"])
    assert doc["verdicts"] == dict(counted) and counted["printed_vs_formula"] == 2
    assert {"report.md", "report.html", "findings.json", "tables/tra_k_d.csv"} <= set(doc["files"])
    html = client.get(f"{r.headers['Location']}/files/report.html")
    assert html.status_code == 200 and html.headers["content-type"].startswith("text/html")
    assert "printed_vs_formula" in html.text
    csv = client.get(f"{r.headers['Location']}/files/tables/tra_k_d.csv")
    assert csv.text.splitlines()[0] == (
        "quantity,processes,radix,printed,formula,counted,counted_on,verdict"
    )
    missing = client.get(f"{r.headers['Location']}/files/nope.txt")
    assert missing.status_code == 404 and "report.md" in missing.json()["message"]
    # listed as plans and sweeps are, with its targets and verdicts
    listed = client.get("/api/v1/reproductions", params={"limit": 5}).json()
    assert listed["total"] == 1 and listed["limit"] == 5
    (item,) = listed["items"]
    assert item["id"] == doc["id"] and item["targets"] == ["tra"]
    assert item["status"] == "done" and item["verdicts"] == doc["verdicts"]


def test_bad_reproduction_requests(client: TestClient) -> None:
    r = client.post("/api/v1/reproductions", json={"targets": ["nature-2031"]})
    assert r.status_code == 422 and "targets" in r.json()["message"]
    assert client.get("/api/v1/reproductions/nope").status_code == 404


@pytest.mark.parametrize("targets", [["all"], ["tra", "all"]])
def test_all_in_a_list_of_targets_means_every_paper(targets: list[str]) -> None:
    """`rwaopt reproduce all` (and `tra all`) asks for every paper; ["all"] in a body was a
    422 that listed the five names without 'all'."""
    from typing import get_args

    from app.schemas.requests import ReproductionRequest, ReproductionTarget

    request = ReproductionRequest(targets=targets)  # type: ignore[arg-type]
    assert request.targets == "all"
    assert request.chosen() == list(get_args(ReproductionTarget))


def test_a_second_reproduction_reuses_the_stored_plan_summaries(
    client: TestClient, database_url: str
) -> None:
    """Queued reproductions keep what they solved in the database (plan_summaries): the same
    request again adds nothing there and gives the same findings."""
    from sqlalchemy import func, select

    from app.persistence.database import session_factory
    from app.persistence.tables import PlanSummaryRow

    def stored() -> int:
        with session_factory(database_url)() as session:
            return int(session.scalar(select(func.count()).select_from(PlanSummaryRow)) or 0)

    body = {"targets": ["tra"], "quick": True}
    first = wait_done(client, client.post("/api/v1/reproductions", json=body).headers["Location"])
    kept = stored()
    assert first["status"] == "done" and kept >= 1  # TRA's best radix at N = 64, at least
    second = wait_done(client, client.post("/api/v1/reproductions", json=body).headers["Location"])
    assert second["status"] == "done" and stored() == kept
    assert second["findings"] == first["findings"]


def test_summary_store_keeps_the_first_summary(database_url: str) -> None:
    from app.persistence.database import migrate
    from app.persistence.store import SummaryStore

    migrate(database_url)
    store = SummaryStore(database_url)
    assert store.get("a request") is None
    store.put("a request", {"true_steps": 7})
    store.put("a request", {"true_steps": 8})  # another job, same request: the first stays
    assert store.get("a request") == {"true_steps": 7}

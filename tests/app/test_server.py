"""The service as users run it: a real uvicorn process (SQLite file), restarted once; the
docs pages offline; and headless Chromium clicking "Try it out" on POST /api/v1/plans."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.api.routes.plans import SMALL
from tests.app.server import Server

CHROMIUM = Path("/usr/bin/chromium")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("server")
    s = Server(f"sqlite:///{root / 'rwaopt.db'}", root / "uvicorn.log").start()
    yield s
    s.stop()


def test_plan_survives_a_restart(server: Server) -> None:
    status, body, headers = server.request("POST", "/api/v1/plans", SMALL)
    assert status == 200, body
    doc = json.loads(body)
    assert headers["location"] == f"/api/v1/plans/{doc['id']}"
    server.stop()
    server.start()
    status, again, _ = server.request("GET", f"/api/v1/plans/{doc['id']}")
    assert status == 200 and json.loads(again) == doc
    status, table, headers = server.request("GET", f"/api/v1/plans/{doc['id']}/assignment")
    assert status == 200 and headers["content-type"].startswith("text/csv")
    total = sum(s["unit_lightpaths"] for a in doc["result"]["algorithms"] for s in a["stages"])
    assert table.count(b"\n") == 1 + total


def test_long_solve_does_not_block_the_event_loop(server: Server) -> None:
    body = {
        "ring": {"nodes": 512, "wavelengths_per_fiber": 16},
        "collective": "allgather",
        "algorithms": ["osm"],
        "message_sizes_bytes": [1048576],
    }
    done: list[float] = []

    def solve() -> None:
        started = time.monotonic()
        status, _, _ = server.request("POST", "/api/v1/plans", body)
        assert status == 200
        done.append(time.monotonic() - started)

    worker = threading.Thread(target=solve)
    worker.start()
    time.sleep(0.5)
    latencies = []
    while worker.is_alive() and len(latencies) < 20:
        started = time.monotonic()
        assert server.request("GET", "/health")[0] == 200
        latencies.append(time.monotonic() - started)
        time.sleep(0.1)
    worker.join()
    assert done and done[0] > 1.0, "the solve was too quick to show anything"
    assert latencies and max(latencies) < 0.5, latencies


def test_docs_pages_need_no_internet(server: Server) -> None:
    for page in ("/docs", "/redoc"):
        status, html, _ = server.request("GET", page)
        assert status == 200
        urls = re.findall(rb'(?:src|href)="([^"]+)"', html)
        assert urls and all(u.startswith(b"/") for u in urls), urls
        for url in urls:
            assert server.request("GET", url.decode())[0] == 200


def test_swagger_try_it_out_in_headless_chromium(server: Server) -> None:
    """Needs Debian's chromium (.ci/run installs it)."""
    from playwright.sync_api import sync_playwright

    assert CHROMIUM.exists(), "install Debian's chromium: apt-get install chromium"
    op = "#operations-plans-create_plan"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"],
        )  # fmt: skip
        try:
            page = browser.new_page()
            page.goto(server.base + "/docs")
            page.wait_for_selector(".opblock-summary-path", timeout=30_000)
            paths = {e.inner_text() for e in page.query_selector_all(".opblock-summary-path")}
            assert {"/api/v1/plans", "/api/v1/rwa", "/api/v1/algorithms"} <= paths
            page.click(f"{op} .opblock-summary")
            page.click(f"{op} button.try-out__btn")
            page.click(f"{op} button.execute")
            cell = f"{op} .live-responses-table tbody .response-col_status"
            page.wait_for_selector(cell, timeout=60_000)
            assert page.inner_text(cell).strip() == "200"
            page.goto(server.base + "/redoc")
            page.locator("h2", has_text="Create Plan").first.wait_for(timeout=30_000)
        finally:
            browser.close()

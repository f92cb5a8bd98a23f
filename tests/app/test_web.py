"""The planner page (app/web): the pages answer HTML from the same stores and owner checks as
the API, load nothing from outside the service, keep a tenant's data out of the page itself
when API keys are on; and, in headless Chromium against a real server, the form plans, the
page follows the plan to its recommendation and table, a failed plan shows its error, the key
travels in X-API-Key, and no request leaves 127.0.0.1."""

from __future__ import annotations

import json
import re
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from fastapi.testclient import TestClient
from markupsafe import escape

from app.persistence.store import Reproduction, ReproductionStore
from app.schemas.requests import ReproductionRequest
from app.schemas.results import AlgorithmResult
from app.settings import get_settings
from app.web.views import seconds_text, stored_parameters_text, verdict, why_text
from tests.app.server import Server

CHROMIUM = Path("/usr/bin/chromium")
STATIC = Path(__file__).parents[2] / "app" / "web" / "static"
EIGHT = {
    "ring": {"nodes": 8, "wavelengths_per_fiber": 4},
    "collective": "allgather",
    "message_sizes_bytes": [65536, 4194304],
    "time_limit_s": 5,
}
# Fails while solving, in the job (not at the request): beyond the node-limited scheduler.
FAILS = {
    "ring": {"nodes": 12, "wavelengths_per_fiber": 1},
    "collective": "alltoall",
    "algorithms": ["tra2"],
    "max_tx_per_node": 1,
    "message_sizes_bytes": [4096],
}
KEY = "planner-page-key-0001"
OTHER_KEY = "planner-page-key-0002"


def _wait(client: TestClient, path: str, timeout_s: float = 60.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        doc: dict[str, Any] = client.get(path).json()
        if doc["status"] in ("done", "failed", "cancelled"):
            return doc
        time.sleep(0.2)
    raise AssertionError(f"{path} did not finish")


def esc(text: str) -> str:
    """As the templates escape text."""
    return str(escape(text))


def _outside(page: str) -> list[str]:
    """What a page or static file would load from beyond this server: absolute URLs, and
    src/href/url() references that are not paths of this server."""
    found = re.findall(r"(?:https?:)?//[A-Za-z0-9][^\s\"'<>)]*", page)
    for url in re.findall(r"(?:src|href)=\"([^\"]*)\"", page) + re.findall(r"url\(([^)]*)\)", page):
        if not (url.startswith(("/", "#", "data:")) and not url.startswith("//")):
            found.append(url)
    found += re.findall(r"@import[^;]*", page)
    return found


# --- the pages, through the app --------------------------------------------------------------


def test_plan_page_is_the_plan(client: TestClient) -> None:
    r = client.get("/")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert 'id="plan-form"' in r.text and 'href="/docs"' in r.text
    assert "default-src 'self'" in r.headers["content-security-policy"]
    paths = client.get("/openapi.json").json()["paths"]
    assert not [p for p in paths if not p.startswith(("/api/v1/", "/health", "/ready"))]
    r = client.post("/")
    assert (r.status_code, r.headers["allow"], r.json()["code"]) == (405, "GET", "http_405")
    doc = client.post("/api/v1/plans", json=EIGHT).json()
    r = client.get(f"/plans/{doc['id']}")
    assert r.status_code == 200
    page = r.text
    result = doc["result"]
    for advice in result["recommendation"]:
        assert esc(why_text(advice["why"])) in page
    rows = re.findall(r'<tr class="(\w+)" data-algorithm="(\w+)" data-verdict="\w+">', page)
    assert [name for _, name in rows] == [a["algorithm"] for a in result["algorithms"]]
    for (colour, _), entry in zip(rows, result["algorithms"], strict=True):
        assert colour == verdict(AlgorithmResult.model_validate(entry))
    for link in ("/assignment?format=csv", "/plots/time-vs-message.svg", "/plots/channel-usage"):
        assert f"/api/v1/plans/{doc['id']}{link}" in page
    assert f'href="/api/v1/plans/{doc["id"]}"' in page  # the JSON
    assert client.get("/").text.count(f'href="/plans/{doc["id"]}"') == 1  # recent plans
    part = client.get(f"/web/parts/plans/{doc['id']}")
    why = esc(why_text(result["recommendation"][0]["why"]))
    assert part.status_code == 200 and why in part.text


def test_a_paper_shape_beyond_the_hop_limit_is_marked_on_the_page(client: TestClient) -> None:
    """H-Ring's paper shape on 24 nodes needs 3 hops: within 2 its 'paper' cell is the shape
    routed freely, marked, with the lightpath that breaks the limit in its title."""
    body = EIGHT | {
        "ring": {"nodes": 24, "wavelengths_per_fiber": 2},
        "collective": "allreduce",
        "algorithms": ["hring"],
        "max_lightpath_hops": 2,
    }
    doc = client.post("/api/v1/plans", json=body).json()
    shapes = doc["result"]["algorithms"][0]["shapes"]
    page = client.get(f"/plans/{doc['id']}").text
    assert esc(shapes["paper_beyond_hop_limit"]) in page
    assert f'>{shapes["paper"]["true_steps"]}*</td>' in page


def test_the_feasibility_table_says_when_no_shape_is_feasible(client: TestClient) -> None:
    """Review (session 34): the CLI says under a family's search that no shape of it is
    optically feasible (or names its fastest feasible shape); the page's feasibility table
    said "no" for the reported shape only. WRHT's all-gather at N = 64, w = 8 with a 3 dBm
    laser: every shape fails."""
    body = EIGHT | {
        "ring": {"nodes": 64, "wavelengths_per_fiber": 8},
        "collective": "allgather",
        "message_sizes_bytes": [65536],
        "algorithms": ["wrht", "ring"],
        "optics": {"laser_power_dbm": 3},
    }
    doc = client.post("/api/v1/plans", json=body).json()
    rows = {a["algorithm"]: a for a in doc["result"]["algorithms"]}
    assert rows["wrht"]["shapes"]["best_feasible"] is None
    assert rows["wrht"]["shapes"]["search"]["exhaustive"]
    page = client.get(f"/plans/{doc['id']}").text
    table = page.split('id="feasibility"')[1].split("</table>")[0]
    wrht = table.split('data-algorithm="wrht"')[1].split("</tr>")[0]
    assert "no shape of wrht is optically feasible" in wrht
    assert "optically feasible" not in table.split('data-algorithm="ring"')[1].split("</tr>")[0]


def test_a_shape_fastest_at_another_size_shows_its_time_in_the_cell(client: TestClient) -> None:
    """Synth's row is the shape fastest at 4 KiB; at 64 MiB another shape is faster and is
    the one recommended: that cell shows the other shape and its time too, so the page's
    'use synth (...)' matches a time in the table; the exact model's line names the
    model."""
    body = EIGHT | {
        "ring": {"nodes": 16, "wavelengths_per_fiber": 8},
        "collective": "reducescatter",
        "algorithms": ["synth"],
        "message_sizes_bytes": [4096, 64 * 2**20],
    }
    doc = client.post("/api/v1/plans", json=body).json()
    (synth,) = doc["result"]["algorithms"]
    best = synth["shapes"]["search"]["best_by_message"]
    assert best[0]["parameters"] == synth["parameters"] != best[1]["parameters"]
    assert doc["result"]["recommendation"][1]["time_s"] == best[1]["time_s"]
    page = client.get(f"/plans/{doc['id']}").text
    assert page.count('class="other-shape"') == 1
    assert f"radices={best[1]['parameters']['radices'][0]},pieces=" in page
    assert seconds_text(best[1]["time_s"]) in page


def test_an_all_reduce_page_states_the_reduce_then_broadcast_bound(client: TestClient) -> None:
    """The page's bound list gives the class's bound beside the achievable, with the
    families in the class; each algorithm's verdict is in the JSON (ring and H-Ring on 16
    nodes; RD is not)."""
    body = EIGHT | {
        "ring": {"nodes": 16, "wavelengths_per_fiber": 2},
        "collective": "allreduce",
        "algorithms": ["ring", "rd", "hring"],
    }
    doc = client.post("/api/v1/plans", json=body).json()
    page = client.get(f"/plans/{doc['id']}").text
    inside = [a["algorithm"] for a in doc["result"]["algorithms"] if a["reduce_then_broadcast"]]
    assert inside == ["ring", "hring"]
    assert "(reduce-then-broadcast: ring, bt, hring, synth without a sweep, wrht" in page
    assert page.count("Schedules that form each sum at one node") == len(
        doc["result"]["achievable"]
    )


def test_unknown_and_failed_jobs_show_the_error(client: TestClient) -> None:
    for path in ("/plans/no-such-plan", "/sweeps/no-such-sweep", "/reproductions/nope"):
        r = client.get(path)
        assert r.status_code == 404 and r.headers["content-type"].startswith("text/html")
        assert 'data-error-code="not_found"' in r.text
    r = client.get("/plans/" + "x" * 100)  # not an id the stores make
    assert r.status_code == 404 and 'data-error-code="not_found"' in r.text
    r = client.get("/plans/a%00b%1b")  # review (session 34): the NUL was echoed into the page
    assert r.status_code == 404 and "\x00" not in r.text and "\x1b" not in r.text
    assert "a\\x00b\\x1b" in r.text  # shown as escapes
    r = client.get("/web/parts/plans/no-such-plan")  # the part answers as the API does
    assert r.status_code == 404 and r.json()["code"] == "not_found"
    queued = client.post("/api/v1/plans", json=FAILS, params={"wait": "false"}).json()
    failed = _wait(client, f"/api/v1/plans/{queued['id']}")
    assert failed["status"] == "failed"
    page = client.get(f"/plans/{failed['id']}").text
    assert esc(failed["error"]["message"]) in page
    assert f'data-error-code="{failed["error"]["code"]}"' in page


def test_a_sweep_row_recommended_in_another_shape_shows_that_shape(
    client: TestClient, settings_env: str
) -> None:
    """Review (session 34): synth's all-reduce at N = 8, w = 4 reports one shape (1 MiB's
    winner), and at 64 MiB another shape of it is recommended; the row said "yes" beside the
    reported shape's time, 2.2x the recommended one's, which the page never showed."""
    body = {"collective": "allreduce", "nodes": [8], "wavelengths_per_fiber": 4,
            "message_sizes_bytes": [1048576, 67108864], "algorithms": ["synth"]}
    sweep = client.post("/api/v1/sweeps", json=body).json()
    assert _wait(client, f"/api/v1/sweeps/{sweep['id']}")["status"] == "done"
    page = client.get(f"/sweeps/{sweep['id']}").text
    rows = client.get(f"/api/v1/sweeps/{sweep['id']}/results", params={"format": "json"}).json()
    other = [r for r in rows if r["recommended"] and
             r["recommended_parameters"] not in (None, r["parameters"])]
    assert other, rows  # the premise: some size is recommended in a shape not the row's
    for row in other:
        shape = stored_parameters_text(row["recommended_parameters"])
        shown = f"{shape}, <span title=\"{row['recommended_time_s']} s\">"
        assert shown + seconds_text(row["recommended_time_s"]) + "</span>" in page
        assert row["recommended_time_s"] < row["time_s"]


def test_a_swept_no_limit_reads_none(client: TestClient, settings_env: str) -> None:
    """Review (session 34): the sweep page wrote a swept max_lightpath_hops of null as
    Python's "None" ("max_lightpath_hops = 2, loss_budget, None" and in its column)."""
    body = {"collective": "allgather", "nodes": [8], "wavelengths_per_fiber": 2,
            "message_sizes_bytes": [65536], "algorithms": ["ring"],
            "max_lightpath_hops": [2, "loss_budget", None]}
    sweep = client.post("/api/v1/sweeps", json=body).json()
    assert _wait(client, f"/api/v1/sweeps/{sweep['id']}")["status"] == "done"
    page = client.get(f"/sweeps/{sweep['id']}").text
    assert "max_lightpath_hops = 2, loss_budget, none" in page
    assert "None" not in page
    assert "<td>none</td>" in page.split("<tbody>")[1]


def test_sweep_and_reproduction_pages(client: TestClient, settings_env: str) -> None:
    body = {"collective": "allgather", "nodes": [8, 16], "wavelengths_per_fiber": 4}
    body |= {"message_sizes_bytes": [65536], "time_limit_s": 5, "algorithms": ["ring", "optree"]}
    sweep = client.post("/api/v1/sweeps", json=body).json()
    done = _wait(client, f"/api/v1/sweeps/{sweep['id']}")
    assert done["status"] == "done"
    page = client.get(f"/sweeps/{sweep['id']}").text
    rows = client.get(f"/api/v1/sweeps/{sweep['id']}/results", params={"format": "json"}).json()
    assert page.count('<tr class="') == len(rows) == 4
    assert "/plots/steps-vs-nodes.svg" in page and "/results?format=csv" in page
    assert '<progress id="points" max="2" value="2">' in page  # 2 points, 2 algorithms each
    # shapes as the plan page and --param write them (review, session 33: JSON text)
    optree = [json.loads(r["parameters"]) for r in rows if r["algorithm"] == "optree"]
    for params in optree:
        shown = "x".join(map(str, params["branching"]))
        assert f"branching={shown}</td>" in page
    assert "{&#34;" not in page and '{"' not in page.split("<tbody>")[1]
    past = client.get(f"/sweeps/{sweep['id']}", params={"offset": 1000}).text
    assert "no rows past row 4" in past and "rows 1001" not in past  # read 'rows 1001-4 of 4'
    assert f'href="/sweeps/{sweep["id"]}?offset=0"' in past

    store = ReproductionStore(settings_env)
    job = store.create(ReproductionRequest(targets=["tra"], quick=True))  # never submitted
    page = client.get(f"/reproductions/{job.id}").text
    assert 'data-status="queued"' in page and "<progress" in page
    assert store.mark_running(job.id)
    files = {"figures/k.svg": b"<svg xmlns='http://www.w3.org/2000/svg'/>", "report.md": b"#"}
    assert store.finish(job.id, Reproduction(findings=[], files=files, seconds=1.0))
    page = client.get(f"/reproductions/{job.id}").text
    assert f'src="/api/v1/reproductions/{job.id}/files/figures/k.svg"' in page
    assert f'href="/api/v1/reproductions/{job.id}/files/report.md"' in page
    recent = client.get("/").text
    assert f'href="/sweeps/{sweep["id"]}"' in recent and f'href="/reproductions/{job.id}"' in recent
    # the sweep's points are its own page's, not recent plans (they filled the list)
    made = {row["plan_id"] for row in rows}
    assert len(made) == 2 and not any(f'href="/plans/{plan_id}"' in recent for plan_id in made)
    posted = client.post("/api/v1/plans", json=EIGHT).json()
    assert f'href="/plans/{posted["id"]}"' in client.get("/").text


def test_nothing_comes_from_outside(client: TestClient) -> None:
    doc = client.post("/api/v1/plans", json=EIGHT).json()
    pages = ["/", f"/plans/{doc['id']}", "/plans/unknown", "/web/planner.js", "/web/planner.css"]
    for path in pages:
        r = client.get(path)
        assert r.status_code in (200, 404), path
        assert _outside(r.text) == [], path
    for file in STATIC.iterdir():
        assert _outside(file.read_text()) == [], file


@pytest.mark.parametrize("name", ["foo.js", "planner.js.map", "..%2Fpages.py"])
def test_a_file_the_page_does_not_have_is_404(client: TestClient, name: str) -> None:
    r = client.get(f"/web/{name}")
    assert r.status_code == 404 and r.json()["code"] == "http_404"  # was a 422


def test_with_keys_the_page_holds_no_tenant_data(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RWAOPT_API_KEYS", f"{KEY},{OTHER_KEY}")
    get_settings.cache_clear()
    mine = {"X-API-Key": KEY}
    doc = client.post("/api/v1/plans", json=EIGHT, headers=mine).json()
    why = esc(why_text(doc["result"]["recommendation"][0]["why"]))
    page = client.get(f"/plans/{doc['id']}")  # no key: the shell, nothing of the plan
    assert page.status_code == 200 and 'id="key-form"' in page.text
    assert why not in page.text and "data-algorithm" not in page.text
    assert doc["id"] not in client.get("/").text
    part = f"/web/parts/plans/{doc['id']}"
    assert client.get(part).json()["code"] == "unauthorized"
    assert client.get(part, headers={"X-API-Key": OTHER_KEY}).status_code == 404
    r = client.get(part, headers=mine)
    assert r.status_code == 200 and why in r.text
    assert 'data-src="/api/v1/plans/' in r.text  # plots fetched with the key
    r = client.get("/sweeps/" + "x" * 100)  # no such job for anyone: said at once
    assert r.status_code == 404 and 'data-error-code="not_found"' in r.text
    recent = client.get("/web/parts/recent", headers={"X-API-Key": OTHER_KEY})
    assert recent.status_code == 200 and doc["id"] not in recent.text


# --- the page in headless Chromium against a real server -------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("web")
    s = Server(f"sqlite:///{root / 'rwaopt.db'}", root / "uvicorn.log").start()
    yield s
    s.stop()


@pytest.fixture(scope="module")
def keyed_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("web-keys")
    s = Server(f"sqlite:///{root / 'rwaopt.db'}", root / "uvicorn.log")
    s.env = {"RWAOPT_API_KEYS": KEY}
    s.start()
    yield s
    s.stop()


class Browser:
    """Chromium with every request it makes recorded (URL and headers)."""

    def __init__(self, pw: Any) -> None:
        assert CHROMIUM.exists(), "install Debian's chromium: apt-get install chromium"
        self.browser = pw.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"],
        )  # fmt: skip
        self.page = self.browser.new_page(viewport={"width": 1400, "height": 900})
        self.requests: list[tuple[str, dict[str, str]]] = []
        self.page.on("request", lambda r: self.requests.append((r.url, r.headers)))
        self.page.set_default_timeout(20_000)

    def only_to(self, server: Server) -> None:
        """Every request went to this server (blob: URLs are the page's own)."""
        assert self.requests
        for url, _ in self.requests:
            parts = urlsplit(url)
            if parts.scheme in ("blob", "data"):
                assert parts.scheme == "data" or url.startswith(f"blob:{server.base}/"), url
            else:
                assert (parts.scheme, parts.hostname, parts.port) == (
                    "http",
                    "127.0.0.1",
                    server.port,
                ), url


def _until(page: Any, expression: str, timeout_s: float = 20.0) -> None:
    """Wait for a JavaScript expression to be true (page.wait_for_function evaluates a string,
    which the page's Content-Security-Policy forbids)."""
    deadline = time.monotonic() + timeout_s
    while not page.evaluate(expression):
        assert time.monotonic() < deadline, f"never true: {expression}"
        time.sleep(0.1)


def _plan_form(page: Any, nodes: int, wavelengths: int, sizes: str) -> None:
    page.fill("input[name='ring.nodes']", str(nodes))
    page.fill("input[name='ring.wavelengths_per_fiber']", str(wavelengths))
    page.fill("#message-sizes", sizes)


def _read_plan(page: Any) -> tuple[list[str], list[tuple[str, str, str]]]:
    """The recommendation sentences and the table's (algorithm, true steps, colour) rows,
    as the page shows them."""
    page.wait_for_selector("#recommendation li")
    whys = [e.inner_text().strip() for e in page.query_selector_all("#recommendation .why")]
    rows = [
        (
            row.get_attribute("data-algorithm") or "",
            row.query_selector(".true-steps").inner_text().strip(),
            row.get_attribute("class") or "",
        )
        for row in page.query_selector_all("#algorithms tbody tr")
    ]
    return whys, rows


def _get(server: Server, path: str, key: str) -> Any:
    request = urllib.request.Request(server.base + path, headers={"X-API-Key": key})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


def _plan_id(url: str) -> str:
    match = re.search(r"/plans/([0-9a-f-]+)$", url)
    assert match, url
    return match.group(1)


def _expected(doc: dict[str, Any]) -> tuple[list[str], list[tuple[str, str, str]]]:
    result = doc["result"]
    rows = [
        (a["algorithm"], str(a["true_steps"]), verdict(AlgorithmResult.model_validate(a)))
        for a in result["algorithms"]
    ]
    return [why_text(r["why"]) for r in result["recommendation"]], rows


def test_plan_form_in_chromium(server: Server) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chrome = Browser(pw)
        try:
            page = chrome.page
            page.goto(server.base + "/")
            # An error of the API is shown as its message: N = 1 is refused (422).
            _plan_form(page, 1, 4, "64 KiB")
            page.click("#plan-button")
            page.wait_for_selector("#form-error:not([hidden])")
            status, body, _ = server.request(
                "POST", "/api/v1/plans", EIGHT | {"ring": {"nodes": 1}}
            )
            assert status == 422
            assert json.loads(body)["message"] in page.inner_text("#form-error")
            # said beside the form's own words for the field, which gets the focus
            assert page.inner_text("#form-error").startswith("nodes N: invalid_input: ")
            assert page.get_attribute("input[name='ring.nodes']", "aria-invalid") == "true"
            assert page.evaluate("document.activeElement.name") == "ring.nodes"
            # refused before sending, in the same words (review, session 34: it said
            # "ring.nodes: 'abc' is not a number"; 1e400 was sent as null)
            for typed, says in (("abc", "'abc' is not a number"),
                                ("1e400", "'1e400' is too large a number")):
                page.fill("input[name='ring.nodes']", typed)
                page.click("#plan-button")
                _until(page, "document.querySelector('#form-error').textContent.includes("
                       + json.dumps(says) + ")")
                assert page.inner_text("#form-error") == f"nodes N: {says}"
                assert page.evaluate("document.activeElement.name") == "ring.nodes"

            # 4.1 MB is 4099999.9999999995 bytes in floating point: read as 4100000 (review,
            # session 34: the page sent the fraction and the server refused it)
            _plan_form(page, 8, 4, "64 KiB, 4.1 MB")
            page.click("#plan-button")
            page.wait_for_url(re.compile(r"/plans/[0-9a-f-]+$"))
            plan_id = _plan_id(page.url)
            shown = _read_plan(page)
            status, body, _ = server.request("GET", f"/api/v1/plans/{plan_id}")
            doc = json.loads(body)
            assert doc["request"]["message_sizes_bytes"] == [65536, 4100000]
            assert shown == _expected(doc)
            _until(page, "document.querySelector('#plot-time').naturalWidth > 0")  # the plot
            # only the status is a live region (the part is replaced at every poll)
            assert page.get_attribute("#part", "aria-live") is None
            assert page.get_attribute("#announce", "aria-live") == "polite"
            _until(page, "document.querySelector('#announce').textContent === 'status: done'")

            # Back to the form: the restored collective's algorithms are the ones shown
            page.goto(server.base + "/")
            page.select_option("#collective", "allreduce")
            page.go_back()
            page.go_forward()
            shown_for = page.eval_on_selector_all(
                "#algorithms label[data-collective]:not([hidden])",
                "labels => [...new Set(labels.map(l => l.dataset.collective))]",
            )
            assert shown_for == [page.input_value("#collective")]

            # A plan that fails in its job: through the "more" fold, followed to its error.
            page.goto(server.base + "/")
            page.select_option("#collective", "alltoall")
            page.check("#algorithms label[data-collective=alltoall] input[value=tra2]")
            _plan_form(page, 12, 1, "4 KiB")
            page.click("details.more summary")
            page.fill("input[name=max_tx_per_node]", "1")
            page.click("#plan-button")
            page.wait_for_url(re.compile(r"/plans/[0-9a-f-]+$"))
            message = page.wait_for_selector(".job .error-box .message").inner_text()
            status, body, _ = server.request("GET", f"/api/v1/plans/{_plan_id(page.url)}")
            failed = json.loads(body)
            assert failed["status"] == "failed" and failed["request"]["max_tx_per_node"] == 1
            assert message == failed["error"]["message"]
            chrome.only_to(server)
        finally:
            chrome.browser.close()


def test_api_key_in_chromium(keyed_server: Server) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chrome = Browser(pw)
        try:
            page = chrome.page
            page.goto(keyed_server.base + "/")
            assert "needs an API key" in page.wait_for_selector("#alert:not([hidden])").inner_text()
            page.fill("#api-key", "not-a-key-of-this-server")
            page.click("#key-form button")
            alert = page.wait_for_selector("#alert:not([hidden])")
            _until(page, "document.querySelector('#alert').innerText.includes('unknown')")
            assert "unauthorized: unknown API key" in alert.inner_text()
            page.fill("#api-key", KEY)
            page.click("#key-form button")
            page.wait_for_selector(".recent")
            _plan_form(page, 8, 4, "1 MiB")
            page.click("#plan-button")
            page.wait_for_url(re.compile(r"/plans/[0-9a-f-]+$"))
            shown = _read_plan(page)
            plan = f"/api/v1/plans/{_plan_id(page.url)}"
            assert keyed_server.request("GET", plan)[0] == 401  # the page read it with the key
            assert shown == _expected(_get(keyed_server, plan, KEY))
            page.wait_for_selector("#plot-time[src^='blob:']")
            _until(page, "document.querySelector('#plot-time').naturalWidth > 0")
            keyed = [
                (url, headers.get("x-api-key"))
                for url, headers in chrome.requests
                if urlsplit(url).path.startswith(("/api/v1/", "/web/parts/"))
            ]
            assert len(keyed) >= 4  # the recent list, the post, the plan's part, the plots
            assert [k for _, k in keyed[-4:]] == [KEY] * 4
            assert {k for _, k in keyed} <= {KEY, "not-a-key-of-this-server"}
            chrome.only_to(keyed_server)
        finally:
            chrome.browser.close()


def test_the_plan_page_states_the_settings_beyond_the_defaults(client: TestClient) -> None:
    """Laser power and the hop limit decide feasibility; the page showed neither (and said
    'the defaults are assumptions' beside a plan that set its own)."""
    body = EIGHT | {"optics": {"laser_power_dbm": 9}, "max_lightpath_hops": 3}
    doc = client.post("/api/v1/plans", json=body).json()
    page = client.get(f"/plans/{doc['id']}").text
    assert (
        'Beyond the defaults: <span class="settings">time_limit_s = 5.0, '
        "optics.laser_power_dbm = 9.0, max_lightpath_hops = 3</span>."
    ) in page
    budget = doc["result"]["algorithms"][0]["feasibility"]["budget"]
    assert f"reliable up to {budget['max_lightpath_hops']} hops" in page
    plain = client.get(f"/plans/{client.post('/api/v1/plans', json=EIGHT).json()['id']}").text
    assert "Beyond the defaults" in plain  # EIGHT's own time limit, 5 s
    assert "optics." not in plain.split("Beyond the defaults")[1].split("</p>")[0]


def test_the_form_offers_the_schemas_ring_sizes(client: TestClient) -> None:
    from app.schemas.requests import MAX_NODES

    assert f"GPUs on the ring, 2 to {MAX_NODES}" in client.get("/").text  # said 4096


def test_rows_say_infeasible_in_words_not_colour_only(client: TestClient) -> None:
    body = EIGHT | {"optics": {"laser_power_dbm": -10}, "algorithms": ["ring", "osm"]}
    doc = client.post("/api/v1/plans", json=body).json()
    algorithms = doc["result"]["algorithms"]
    assert not any(a["feasibility"]["feasible"] for a in algorithms)
    page = client.get(f"/plans/{doc['id']}").text
    table = page.split('id="algorithms"')[1].split("</table>")[0]
    assert table.count('<span class="chip infeasible">infeasible</span>') == len(algorithms)
    gaps = sum(not a["steps_optimal"] for a in algorithms)
    assert table.count('<span class="chip gap">gap</span>') == gaps


def test_a_row_whose_shape_search_was_cut_says_so(client: TestClient) -> None:
    """Review (session 32): `optimal` answered a worse time with a larger budget on a loaded
    machine (a stage's solve gave up, the search was cut) and its row read like a proven
    optimum. A row whose search stopped before ruling out every shape carries 'search cut',
    the search's note in its title; an exhaustive search's row does not (the cut is set on
    a real answer: a budget cut depends on the machine's load)."""
    from app.schemas.documents import PlanDocument
    from app.web.pages import _render

    body = EIGHT | {"algorithms": ["synth", "ring"]}
    doc = PlanDocument.model_validate(client.post("/api/v1/plans", json=body).json())
    assert doc.result is not None
    synth = next(a for a in doc.result.algorithms if a.algorithm == "synth")
    assert synth.shapes.search is not None and synth.shapes.search.exhaustive
    page = client.get(f"/plans/{doc.id}").text
    assert ">search cut</span>" not in page.split('id="algorithms"')[1].split("</table>")[0]
    synth.shapes.search.exhaustive = False
    synth.shapes.search.note = "the time budget ran out after bounding 3 of 9 candidates"
    part = str(_render("plan_part.html", doc=doc, result=doc.result, age_s=0.0))
    table = part.split('id="algorithms"')[1].split("</table>")[0]
    assert table.count(">search cut</span>") == 1
    row = table.split('data-algorithm="synth"')[1].split("</tr>")[0]
    assert esc(synth.shapes.search.note) in row and ">search cut</span>" in row


def test_a_recommendations_reason_reads_its_times_in_the_pages_units() -> None:
    """Review A (session 34): the page showed '(393 us)' beside a reason that said
    '0.000393383 s (71.0% of the achievable (0.000279477 s))'; the reason's times read in
    the page's units now (the JSON and the CLI keep seconds). Numbers that are no time
    (steps, ratios, percentages) are left as they are."""
    said = ("synth: 11 true steps, 0.000393383 s (71.0% of the achievable (0.000279477 s)); "
            "next feasible hring: 124 steps, 0.00484156 s; 12.3x faster; 2 s in all")
    assert why_text(said) == (
        "synth: 11 true steps, 393 us (71.0% of the achievable (279 us)); "
        "next feasible hring: 124 steps, 4.84 ms; 12.3x faster; 2 s in all")


def test_a_swept_object_reads_as_json_on_the_sweep_page() -> None:
    """Review (session 35): a swept `optics` or `electrical_network` was written on the
    sweep page as Python's repr ({'simulate': False, ...}) where the CSV writes JSON."""
    from app.web.views import setting_value

    assert setting_value({"simulate": False, "link_gbps": 25}) == (
        '{"simulate":false,"link_gbps":25}')
    assert setting_value([1, None]) == "[1,null]"
    assert (setting_value(None), setting_value(2), setting_value("loss_budget")) == (
        "none", "2", "loss_budget")

"""The service under a careless or hostile client and under faults (issue 13's findings, one
regression test each): API keys and owners, admission control, bounded inputs, cancellation
and shutdown, failures in the error format, HTTP hygiene."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from fastapi.testclient import TestClient

from app.errors import ErrorBody, JobCancelledError, SolverBusyError, internal
from app.jobs.processes import SolverPool
from app.persistence.store import PlanStore
from app.schemas.documents import JobStatus
from app.schemas.requests import PlanRequest
from app.settings import get_settings
from tests.app.conftest import _admin_dsn, fresh_postgres
from tests.app.server import Server

SMALL = {
    "ring": {"nodes": 8, "wavelengths_per_fiber": 2},
    "collective": "allgather",
    "algorithms": ["ring"],
    "message_sizes_bytes": [4096],
}
WRITER, READER, OTHER = "w" * 16 + "-writer", "r" * 16 + "-reader", "o" * 16 + "-other"


@pytest.fixture
def env_client(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[TestClient, pytest.MonkeyPatch]]:
    """A client whose settings a test changes through the environment first."""
    monkeypatch.setenv("RWAOPT_DATABASE_URL", f"sqlite:///{tmp_path / 'h.db'}")
    monkeypatch.setenv("RWAOPT_JOBS", "inline")
    get_settings.cache_clear()
    from app.main import app

    with TestClient(app) as client:
        yield client, monkeypatch
    get_settings.cache_clear()


def _set(monkeypatch: pytest.MonkeyPatch, **values: str) -> None:
    for key, value in values.items():
        monkeypatch.setenv(f"RWAOPT_{key.upper()}", value)
    get_settings.cache_clear()


# --- API keys ----------------------------------------------------------------------------------


def test_api_keys_authenticate_authorise_and_separate_owners(
    env_client: tuple[TestClient, pytest.MonkeyPatch],
) -> None:
    client, mp = env_client
    _set(mp, api_keys=f"{WRITER},{READER}:read,{OTHER}")
    r = client.get("/api/v1/plans")
    assert r.status_code == 401 and r.json()["code"] == "unauthorized"
    r = client.get("/api/v1/plans", headers={"X-API-Key": "x" * 20})
    assert r.status_code == 401 and "unknown API key" in r.json()["message"]
    r = client.post("/api/v1/plans", json=SMALL, headers={"X-API-Key": READER})
    assert r.status_code == 403 and r.json()["code"] == "forbidden"
    mine = client.post("/api/v1/plans", json=SMALL, headers={"X-API-Key": WRITER})
    assert mine.status_code == 200
    plan_id = mine.json()["id"]
    # another key cannot see, list or delete it
    assert client.get(f"/api/v1/plans/{plan_id}", headers={"X-API-Key": OTHER}).status_code == 404
    assert client.get("/api/v1/plans", headers={"X-API-Key": OTHER}).json()["total"] == 0
    assert (
        client.delete(f"/api/v1/plans/{plan_id}", headers={"X-API-Key": OTHER}).status_code == 404
    )
    listed = client.get("/api/v1/plans", headers={"X-API-Key": WRITER}).json()
    assert [p["id"] for p in listed["items"]] == [plan_id]
    # a read-only key reads every key's jobs (a dashboard's): the writer's plan
    assert client.get("/api/v1/plans", headers={"X-API-Key": READER}).json()["total"] == 1
    # health, readiness and the docs need no key
    assert client.get("/health").status_code == 200
    assert client.get("/openapi.json").status_code == 200


def test_openapi_declares_the_key_scheme(env_client: tuple[TestClient, pytest.MonkeyPatch]) -> None:
    client, _ = env_client
    document = client.get("/openapi.json").json()
    schemes = document["components"]["securitySchemes"]
    assert schemes["APIKeyHeader"] == {
        "type": "apiKey",
        "in": "header",
        "name": "X-API-Key",
        "description": schemes["APIKeyHeader"]["description"],
    }
    post = document["paths"]["/api/v1/plans"]["post"]
    assert {"APIKeyHeader": []} in post["security"]
    assert {"401", "403", "429"} <= set(post["responses"])


def test_serve_refuses_other_interfaces_without_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from app.cli import cli

    monkeypatch.delenv("RWAOPT_API_KEYS", raising=False)
    get_settings.cache_clear()
    result = CliRunner().invoke(cli, ["serve", "--host", "0.0.0.0"])
    assert result.exit_code == 2 and "without API keys" in result.output
    monkeypatch.setenv("RWAOPT_API_KEYS", "short")
    get_settings.cache_clear()
    result = CliRunner().invoke(cli, ["serve"])
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and result.output.startswith("error: RWAOPT_API_KEYS")
    # one key twice, read-only and not (review, session 34: the last one listed won)
    monkeypatch.setenv("RWAOPT_API_KEYS", f"{WRITER},{WRITER}:read")
    get_settings.cache_clear()
    result = CliRunner().invoke(cli, ["serve"])
    assert result.exit_code == 2 and "listed twice" in result.output
    assert WRITER not in result.output  # the key itself is not printed
    get_settings.cache_clear()


def test_a_bad_database_url_at_start_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from app.cli import cli

    monkeypatch.setenv("RWAOPT_DATABASE_URL", "postgresql+psycopg://u:secret@127.0.0.1:1/x")
    get_settings.cache_clear()
    result = CliRunner().invoke(cli, ["serve"])
    get_settings.cache_clear()
    assert result.exit_code == 3
    assert result.output.count("\n") == 1 and "secret" not in result.output


@pytest.mark.parametrize(
    ("env", "args", "code", "message"),
    [
        # a dialect SQLAlchemy has no plugin for: was a NoSuchModuleError traceback
        ({"RWAOPT_DATABASE_URL": "foo://bar"}, ["sweep", "grid.yaml"], 2,
         "error: RWAOPT_DATABASE_URL: use sqlite:///"),
        # a SQLite file in a missing directory: was a FileNotFoundError traceback
        ({"RWAOPT_DATABASE_URL": "sqlite:////nonexistent-rwaopt/x.db"}, ["sweep", "grid.yaml"],
         3, "error: cannot reach the database at sqlite:////nonexistent-rwaopt/x.db"),
        # a setting of the wrong type, read by `plan`: was a ValidationError traceback
        ({"RWAOPT_SHAPE_SEARCH_BUDGET_S": "abc"},
         ["plan", "--collective", "allgather", "--nodes", "4", "--wavelengths", "1",
          "--message-bytes", "64"], 2, "error: RWAOPT_SHAPE_SEARCH_BUDGET_S: "),
        # a worker whose Redis is down: was a ConnectionError traceback; no password shown
        ({"RWAOPT_REDIS_URL": "redis://:secret@127.0.0.1:1/0"}, ["worker", "--burst"], 3,
         "error: cannot reach Redis at redis://:***@127.0.0.1:1/0"),
        # redis-py reads a password from the query too: not shown
        ({"RWAOPT_REDIS_URL": "redis://127.0.0.1:1/0?password=secret"}, ["worker", "--burst"], 3,
         "error: cannot reach Redis at redis://127.0.0.1:1/0 (RWAOPT_REDIS_URL)"),
        # a port that is not a number: was "invalid literal for int() with base 10"
        ({"RWAOPT_DATABASE_URL": "postgresql+psycopg://u:secret@db:abc/rwa"}, ["algorithms"], 2,
         "error: RWAOPT_DATABASE_URL: use sqlite:///"),
        # a file where the report's directory goes: was a FileExistsError traceback
        ({}, ["reproduce", "tra", "--quick", "--out", "grid.yaml"], 2,
         "error: --out grid.yaml: cannot make the directory (it is a file)"),
    ],
)
def test_bad_settings_and_paths_are_one_line(
    env: dict[str, str],
    args: list[str],
    code: int,
    message: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from typer.testing import CliRunner

    from app.cli import cli

    monkeypatch.chdir(tmp_path)
    (tmp_path / "grid.yaml").write_text(
        "nodes: [4]\nwavelengths_per_fiber: [1]\ncollective: allgather\n"
        "message_sizes_bytes: [64]\nalgorithms: [ring]\n"
    )
    monkeypatch.setenv("RWAOPT_DATABASE_URL", f"sqlite:///{tmp_path / 'ok.db'}")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    get_settings.cache_clear()
    try:
        result = CliRunner().invoke(cli, args)
    finally:
        get_settings.cache_clear()
    assert (result.exit_code, result.output.count("\n")) == (code, 1), result.output
    assert result.output.startswith(message) and "secret" not in result.output


def test_a_refused_database_url_keeps_its_password_out_of_the_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Outside the CLI (uvicorn app.main:app) a refused setting is a pydantic error, whose
    text used to quote the input: the URL with its password."""
    from pydantic import ValidationError

    from app.settings import Settings

    monkeypatch.setenv("RWAOPT_DATABASE_URL", "postgresql+psycopg2://admin:secret@db:5432/rwa")
    with pytest.raises(ValidationError) as raised:
        Settings()
    assert "database_url" in str(raised.value) and "secret" not in str(raised.value)


def test_serve_on_a_port_in_use_is_one_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A port another process holds is a setting to change (exit 2, one line), not uvicorn's
    start-up and shutdown logs ending in exit 3, which means an unreachable database."""
    import socket

    from typer.testing import CliRunner

    from app.cli import cli

    monkeypatch.setenv("RWAOPT_DATABASE_URL", f"sqlite:///{tmp_path}/busy.db")
    get_settings.cache_clear()
    with socket.create_server(("127.0.0.1", 0)) as held:
        port = held.getsockname()[1]
        result = CliRunner().invoke(cli, ["serve", "--port", str(port)])
    get_settings.cache_clear()
    assert result.exit_code == 2, result.output
    assert result.output.count("\n") == 1
    assert f"cannot listen on 127.0.0.1:{port} (Address already in use)" in result.output


@pytest.mark.parametrize("port", ["0", "65536"])
def test_serve_refuses_a_port_out_of_range(port: str) -> None:
    """--port 0 used to be taken for 'not given' (8000), 65536 to end in an OverflowError."""
    from typer.testing import CliRunner

    from app.cli import cli

    result = CliRunner().invoke(cli, ["serve", "--port", port])
    assert result.exit_code == 2 and "is not in the range 1<=x<=65535" in result.output


# --- admission control and bounded inputs -----------------------------------------------------


def test_queue_is_bounded_with_429_and_retry_after(
    env_client: tuple[TestClient, pytest.MonkeyPatch],
) -> None:
    client, mp = env_client
    from app.api.routes import plans, sweeps

    held: list[str] = []
    mp.setattr(plans, "submit", held.append)
    mp.setattr(sweeps, "submit", held.append)
    _set(mp, max_queued_jobs="2")
    for _ in range(2):
        assert client.post("/api/v1/plans", json=SMALL, params={"wait": "false"}).status_code == 202
    r = client.post("/api/v1/plans", json=SMALL, params={"wait": "false"})
    assert r.status_code == 429 and r.json()["code"] == "queue_full"
    assert int(r.headers["Retry-After"]) > 0
    grid = {"collective": "allgather", "nodes": [8, 16], "message_sizes_bytes": [1]}
    assert client.post("/api/v1/sweeps", json=grid).status_code == 429
    assert client.get("/api/v1/sweeps").json()["total"] == 0  # nothing stored
    store = PlanStore(get_settings().database_url)
    for plan_id in held:  # not left queued for the next start
        store.fail(plan_id, ErrorBody(code="test", message="held by the test"))


@pytest.mark.parametrize(
    ("change", "where"),
    [
        ({"max_tx_per_node": True}, "max_tx_per_node"),
        ({"max_tx_per_node": 10**30}, "max_tx_per_node"),
        ({"ring": {"nodes": True}}, "ring.nodes"),
        (
            {"algorithms": ["optree"], "parameters": {"optree": {"branching": [2] * 200_000}}},
            "branching",
        ),
    ],
)
def test_unbounded_or_boolean_values_are_refused(
    env_client: tuple[TestClient, pytest.MonkeyPatch], change: dict, where: str
) -> None:
    client, _ = env_client
    r = client.post("/api/v1/plans", json={**SMALL, **change})
    assert r.status_code == 422, r.text
    assert where in r.json()["message"]


def test_body_size_is_capped_before_it_is_read(
    env_client: tuple[TestClient, pytest.MonkeyPatch],
) -> None:
    client, mp = env_client
    _set(mp, max_body_bytes="4096")
    big = {"nodes": 8, "demands": [[0, 1, 1]] * 2000}
    r = client.post("/api/v1/rwa", json=big)
    assert r.status_code == 413 and r.json()["code"] == "too_large"
    assert client.post("/api/v1/rwa", json={"nodes": 8, "demands": [[0, 1, 1]]}).status_code == 200


def test_a_chunked_body_over_the_limit_is_413(
    env_client: tuple[TestClient, pytest.MonkeyPatch],
) -> None:
    """Shared use, item 7: without a Content-Length (chunked) the cap still answers 413
    too_large, not FastAPI's 400 for a body it failed to read."""
    client, mp = env_client
    _set(mp, max_body_bytes="4096")
    big = json.dumps({"nodes": 8, "demands": [[0, 1, 1]] * 2000}).encode()
    parts = iter([big[i : i + 1000] for i in range(0, len(big), 1000)])
    r = client.post("/api/v1/rwa", content=parts, headers={"content-type": "application/json"})
    assert r.status_code == 413 and r.json()["code"] == "too_large"
    small = json.dumps({"nodes": 8, "demands": [[0, 1, 1]]}).encode()
    r = client.post("/api/v1/rwa", content=iter([small[:10], small[10:]]),
                    headers={"content-type": "application/json"})  # fmt: skip
    assert r.status_code == 200, r.text


def test_a_trickling_body_is_408_through_the_real_app() -> None:
    """Shared use, item 7: the service itself (not a stand-in app) answers a body that stops
    arriving with 408 body_timeout within the timeout."""
    from app.api.limits import BodyLimits
    from app.main import app as service

    sent: list[dict] = []

    async def receive():  # type: ignore[no-untyped-def]
        if not sent:
            sent.append({})
            return {"type": "http.request", "body": b'{"nodes": 8', "more_body": True}
        await asyncio.sleep(10)
        return {"type": "http.disconnect"}

    answers: list[dict] = []

    async def send(message):  # type: ignore[no-untyped-def]
        answers.append(message)

    scope = {"type": "http", "method": "POST", "path": "/api/v1/rwa", "raw_path": b"/api/v1/rwa",
             "query_string": b"", "headers": [(b"content-type", b"application/json")],
             "http_version": "1.1", "scheme": "http", "server": ("127.0.0.1", 80),
             "client": ("127.0.0.1", 1), "root_path": ""}  # fmt: skip
    os.environ["RWAOPT_BODY_TIMEOUT_S"] = "0.2"
    get_settings.cache_clear()
    try:
        started = time.monotonic()
        # the middleware is the outermost of the ones that read bodies: wrap the whole app
        asyncio.run(BodyLimits(service)(scope, receive, send))
        assert time.monotonic() - started < 2
    finally:
        del os.environ["RWAOPT_BODY_TIMEOUT_S"]
        get_settings.cache_clear()
    assert answers[0]["status"] == 408
    assert json.loads(answers[1]["body"])["code"] == "body_timeout"


def test_a_nul_byte_in_an_id_is_422_on_postgresql(monkeypatch: pytest.MonkeyPatch) -> None:
    with fresh_postgres() as url:
        monkeypatch.setenv("RWAOPT_DATABASE_URL", url)
        get_settings.cache_clear()
        from app.main import app

        with TestClient(app) as client:
            r = client.get("/api/v1/plans/abc%00def")
            assert r.status_code == 422 and r.json()["code"] == "invalid_input"
            assert client.get("/api/v1/sweeps/" + "a" * 100).status_code == 422
    get_settings.cache_clear()


# --- solver processes: busy, cancelled, dying with the server ----------------------------------


def _sleep(seconds: float) -> float:
    time.sleep(seconds)
    return seconds


def test_busy_pool_answers_busy_and_a_stop_ends_the_solve_at_once() -> None:
    pool = SolverPool(1)
    try:
        assert pool.run(_sleep, 0.0) == 0.0  # start the process
        (first,) = pool.pids()
        stop = threading.Event()
        errors: list[BaseException] = []

        def long_call() -> None:
            try:
                pool.run(_sleep, 60.0, stop=stop)
            except BaseException as error:
                errors.append(error)

        caller = threading.Thread(target=long_call)
        caller.start()
        time.sleep(0.5)
        with pytest.raises(SolverBusyError):
            pool.run(_sleep, 0.0, wait_s=0.1)
        started = time.monotonic()
        stop.set()
        caller.join(timeout=5)
        assert time.monotonic() - started < 2
        assert isinstance(errors[0], JobCancelledError)
        assert not Path(f"/proc/{first}").exists() or _zombie(first)  # the process is ended
        assert pool.run(_sleep, 0.0) == 0.0  # and replaced on next use
        assert pool.pids() != [first]
    finally:
        pool.close()


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"
    except OSError:
        return True


def test_solver_processes_die_with_a_killed_server(tmp_path: Path) -> None:
    script = tmp_path / "parent.py"
    script.write_text(
        "import sys, time\n"
        f"sys.path.insert(0, {str(Path(__file__).resolve().parents[2])!r})\n"
        "from app.jobs.processes import SolverPool\n"
        "from tests.app.test_hardening import _sleep\n"
        "if __name__ == '__main__':\n"
        "    pool = SolverPool(1)\n"
        "    pool.run(_sleep, 0.0)\n"
        "    print(pool.pids()[0], flush=True)\n"
        "    pool.run(_sleep, 600.0)\n"
    )
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    time.sleep(0.5)
    parent.send_signal(signal.SIGKILL)
    parent.wait(timeout=10)
    parent.stdout.close()
    deadline = time.monotonic() + 5
    while Path(f"/proc/{child}").exists() and not _zombie(child):
        assert time.monotonic() < deadline, "the solver process outlived its parent"
        time.sleep(0.1)


# --- shutdown and restarts ---------------------------------------------------------------------


def test_sigterm_ends_running_solves_and_exits_within_10_s(tmp_path: Path) -> None:
    server = Server(f"sqlite:///{tmp_path / 's.db'}", tmp_path / "uvicorn.log").start()
    assert server.process is not None
    long_plan = {
        "ring": {"nodes": 1023, "wavelengths_per_fiber": 64},  # odd: no construction
        "collective": "allgather",
        "algorithms": ["osm"],  # one stage of 1M lightpaths: tens of seconds of solving
        "message_sizes_bytes": [1048576],
        "shape": "paper",
    }
    status, body, _ = server.request("POST", "/api/v1/plans?wait=false", long_plan)
    assert status == 202
    plan_id = json.loads(body)["id"]
    deadline = time.monotonic() + 30
    while json.loads(server.request("GET", f"/api/v1/plans/{plan_id}")[1])["status"] != "running":
        assert time.monotonic() < deadline
        time.sleep(0.2)
    time.sleep(1.0)
    started = time.monotonic()
    server.process.send_signal(signal.SIGTERM)
    server.process.wait(timeout=15)
    assert time.monotonic() - started < 10
    server.process = None
    store = PlanStore(server.database_url)
    row = store.get(plan_id)
    assert row is not None and row.status == JobStatus.RUNNING  # re-queued at the next start
    assert store.requeue_unfinished() == [plan_id]


def test_a_waiting_client_at_sigterm_gets_the_error_format(tmp_path: Path) -> None:
    """Shared use, item 6: a `wait=true` plan open when the server gets SIGTERM is answered
    503 shutting_down in the error format at once (it was a plain-text 500 after 15 s)."""
    import threading

    server = Server(f"sqlite:///{tmp_path / 'w.db'}", tmp_path / "uvicorn.log").start()
    assert server.process is not None
    long_plan = {
        "ring": {"nodes": 2047, "wavelengths_per_fiber": 64},  # odd: minutes of solving
        "collective": "allgather",
        "algorithms": ["osm"],
        "message_sizes_bytes": [1048576],
        "shape": "paper",
    }
    answer: list[tuple[int, bytes, dict[str, str]]] = []
    client = threading.Thread(
        target=lambda: answer.append(server.request("POST", "/api/v1/plans?wait=true", long_plan))
    )
    client.start()
    time.sleep(3.0)  # the solve is under way
    started = time.monotonic()
    server.process.send_signal(signal.SIGTERM)
    client.join(timeout=15)
    server.process.wait(timeout=15)
    server.process = None
    assert answer, "the waiting client got no answer"
    status, body, headers = answer[0]
    assert time.monotonic() - started < 5
    assert status == 503 and headers.get("content-type", "").startswith("application/json")
    assert json.loads(body)["code"] == "shutting_down"
    # the abandoned solve's JobCancelledError is read, not logged as never retrieved
    # (review, session 33)
    assert "Future exception was never retrieved" not in server.log.read_text()


def test_a_plan_that_killed_the_server_twice_is_failed(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'c.db'}"
    store = PlanStore(url)
    store.migrate()
    plan = store.create(PlanRequest.model_validate(SMALL))
    for start in range(PlanStore.MAX_STARTS):
        assert store.mark_running(plan.id)  # a run starts, then the server dies
        requeued = store.requeue_unfinished()
        assert requeued == ([plan.id] if start < PlanStore.MAX_STARTS - 1 else [])
    row = store.get(plan.id)
    assert row is not None and row.status == JobStatus.FAILED
    assert row.error is not None and "stopped 2 times" in row.error.message


# --- failures in the error format --------------------------------------------------------------


def test_losing_postgresql_is_503_database_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    with fresh_postgres() as url:
        monkeypatch.setenv("RWAOPT_DATABASE_URL", url)
        get_settings.cache_clear()
        from app.main import app

        with TestClient(app) as client:
            assert client.get("/api/v1/plans").status_code == 200
            name = url.rsplit("/", 1)[1]
            with psycopg.connect(
                _admin_dsn(url.rsplit("/", 1)[0] + "/test"), autocommit=True
            ) as admin:
                admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
            r = client.get("/api/v1/plans")
            assert r.status_code == 503
            assert r.json()["code"] == "database_unavailable" and r.headers["Retry-After"]
            assert client.get("/ready").status_code == 503
            with psycopg.connect(
                _admin_dsn(url.rsplit("/", 1)[0] + "/test"), autocommit=True
            ) as admin:
                admin.execute(f'CREATE DATABASE "{name}"')  # for fresh_postgres to drop
    get_settings.cache_clear()


def test_internal_errors_carry_no_trace() -> None:
    try:
        raise ValueError("/home/user/secret/path.py line 3")
    except ValueError as error:
        wrapped = internal(error)
    assert wrapped.detail == {}
    assert "/" not in wrapped.message and "ValueError" in wrapped.message


def test_ready_checks_redis_in_rq_mode(env_client: tuple[TestClient, pytest.MonkeyPatch]) -> None:
    client, mp = env_client
    _set(mp, jobs="rq", redis_url="redis://127.0.0.1:1/0")
    r = client.get("/ready")
    assert r.status_code == 503 and "Redis" in r.json()["reason"]


# --- HTTP hygiene ------------------------------------------------------------------------------


def test_405_lists_the_allowed_methods(env_client: tuple[TestClient, pytest.MonkeyPatch]) -> None:
    client, _ = env_client
    r = client.put("/api/v1/plans")
    assert r.status_code == 405 and set(r.headers["Allow"].split(", ")) == {"GET", "HEAD", "POST"}


@pytest.mark.parametrize("path", ["/", "/health", "/api/v1/algorithms", "/openapi.json"])
def test_head_is_answered_as_get_without_the_body(
    env_client: tuple[TestClient, pytest.MonkeyPatch], path: str
) -> None:
    """Uptime checks and link checkers send HEAD: it was a 405 on every page."""
    client, _ = env_client
    got, head = client.get(path), client.head(path)
    assert got.status_code == head.status_code == 200 and got.content
    assert head.content == b""
    assert head.headers["content-type"] == got.headers["content-type"]
    assert head.headers["content-length"] == str(len(got.content))
    assert client.head("/api/v1/plans/no-such-plan").status_code == 404  # as its GET


def test_cors_is_off_by_default_and_configurable(
    env_client: tuple[TestClient, pytest.MonkeyPatch],
) -> None:
    client, mp = env_client
    origin = {"Origin": "https://planner.example"}
    assert "access-control-allow-origin" not in client.get("/health", headers=origin).headers
    _set(mp, cors_origins="https://planner.example")
    r = client.get("/health", headers=origin)
    assert r.headers["access-control-allow-origin"] == "https://planner.example"
    preflight = client.options(
        "/api/v1/plans",
        headers={
            **origin,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "X-API-Key",
        },
    )
    assert preflight.status_code == 200


def test_a_solve_past_its_limit_is_ended() -> None:
    from models.errors import LimitExceededError

    pool = SolverPool(1)
    try:
        started = time.monotonic()
        with pytest.raises(LimitExceededError, match="RWAOPT_MAX_SOLVE_S"):
            pool.run(_sleep, 30.0, limit_s=0.5)
        assert time.monotonic() - started < 5
        assert pool.run(_sleep, 0.0) == 0.0
    finally:
        pool.close()


def _read_children(task: Path) -> list[str]:
    """Children of one thread (a process started from a thread is that thread's child)."""
    try:
        return (task / "children").read_text().split()
    except OSError:
        return []


def _solver_children(pid: int) -> list[int]:
    """The server's solver processes (spawned children other than the resource tracker)."""
    out = []
    children = [c for task in Path(f"/proc/{pid}/task").iterdir() for c in _read_children(task)]
    for child in children:
        try:
            cmdline = Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:
            continue
        if b"spawn_main" in cmdline and not _zombie(int(child)):
            out.append(int(child))
    return out


def test_a_client_that_disconnects_ends_its_solve(tmp_path: Path) -> None:
    import http.client

    server = Server(f"sqlite:///{tmp_path / 'd.db'}", tmp_path / "uvicorn.log").start()
    assert server.process is not None
    try:
        long_plan = {
            "ring": {"nodes": 1023, "wavelengths_per_fiber": 64},  # odd: no construction
            "collective": "allgather",
            "algorithms": ["osm"],  # one stage of 1M lightpaths: tens of seconds of solving
            "message_sizes_bytes": [1048576],
            "shape": "paper",
        }
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
        connection.request(
            "POST", "/api/v1/plans", json.dumps(long_plan), {"Content-Type": "application/json"}
        )
        deadline = time.monotonic() + 60
        while not (solving := _solver_children(server.process.pid)):
            assert time.monotonic() < deadline, "no solver process started"
            time.sleep(0.2)
        time.sleep(1.0)
        connection.close()  # the client goes away
        gone = time.monotonic()
        while set(solving) & set(_solver_children(server.process.pid)):
            assert time.monotonic() - gone < 3, "the solve outlived its client"
            time.sleep(0.1)
        status, _, _ = server.request("GET", "/health")
        assert status == 200
    finally:
        server.stop()


def test_small_rwa_is_answered_while_plans_fill_every_solver_and_delete_stops_them(
    tmp_path: Path,
) -> None:
    """Two long queued plans hold both plan solver processes; a small /rwa stage still gets
    its answer at once (its own process); deleting the plans ends their solves."""
    server = Server(f"sqlite:///{tmp_path / 'q.db'}", tmp_path / "uvicorn.log").start()
    assert server.process is not None
    long_plan = {  # one stage of 1M lightpaths: tens of seconds of solving
        "ring": {"nodes": 1023, "wavelengths_per_fiber": 64},  # odd: no construction
        "collective": "allgather",
        "algorithms": ["osm"],
        "message_sizes_bytes": [1048576],
        "shape": "paper",
    }
    try:
        ids = []
        for _ in range(2):
            status, body, _ = server.request("POST", "/api/v1/plans?wait=false", long_plan)
            assert status == 202
            ids.append(json.loads(body)["id"])
        deadline = time.monotonic() + 60
        while len(solving := _solver_children(server.process.pid)) < 2:
            assert time.monotonic() < deadline, "the plans did not start"
            time.sleep(0.2)
        started = time.monotonic()
        status, body, _ = server.request(
            "POST", "/api/v1/rwa", {"nodes": 6, "demands": [[0, 3, 2]]}
        )
        assert status == 200 and json.loads(body)["chi"] >= 1
        assert time.monotonic() - started < 10  # a process start, not a plan's minutes
        for plan_id in ids:  # still solving: the test is about stopping them
            plan = json.loads(server.request("GET", f"/api/v1/plans/{plan_id}")[1])
            assert plan["status"] == "running"
        for plan_id in ids:
            assert server.request("DELETE", f"/api/v1/plans/{plan_id}")[0] == 204
        deleted = time.monotonic()
        while set(solving) & set(_solver_children(server.process.pid)):
            assert time.monotonic() - deleted < 4, "a deleted plan's solve goes on"
            time.sleep(0.1)
    finally:
        server.stop()


def test_sweep_points_are_reused_only_within_their_owner(
    env_client: tuple[TestClient, pytest.MonkeyPatch],
) -> None:
    """Shared use, item 1: key B running key A's grid gets plans of its own (not A's, with
    `cached`), can read them, and A deleting its plans does not touch B's sweep."""
    client, mp = env_client
    _set(mp, api_keys=f"{WRITER},{OTHER}")
    grid = {"collective": "allgather", "algorithms": ["ring"], "nodes": [6, 8],
            "wavelengths_per_fiber": 2, "message_sizes_bytes": [4096]}  # fmt: skip

    def run(key: str) -> dict[str, Any]:
        r = client.post("/api/v1/sweeps", json=grid, headers={"X-API-Key": key})
        assert r.status_code in (200, 201, 202), r.text
        sweep_id = r.json()["id"]
        deadline = time.monotonic() + 60
        while (doc := client.get(f"/api/v1/sweeps/{sweep_id}",
                                 headers={"X-API-Key": key}).json())["status"] != "done":
            assert doc["status"] in ("queued", "running") and time.monotonic() < deadline, doc
            time.sleep(0.1)
        rows = client.get(f"/api/v1/sweeps/{sweep_id}/results", params={"format": "json"},
                          headers={"X-API-Key": key}).json()  # fmt: skip
        return {"doc": doc, "rows": rows}

    a = run(WRITER)
    b = run(OTHER)
    assert not any(row["cached"] for row in b["rows"])
    b_plans = {row["plan_id"] for row in b["rows"]}
    assert b_plans.isdisjoint({row["plan_id"] for row in a["rows"]})
    for plan_id in b_plans:
        mine = client.get(f"/api/v1/plans/{plan_id}", headers={"X-API-Key": OTHER})
        assert mine.status_code == 200
    for row in a["rows"]:
        client.delete(f"/api/v1/plans/{row['plan_id']}", headers={"X-API-Key": WRITER})
    again = client.get(f"/api/v1/sweeps/{b['doc']['id']}/results", params={"format": "json"},
                       headers={"X-API-Key": OTHER}).json()  # fmt: skip
    assert all(row["error"] is None for row in again)
    # the same owner's second run does reuse its own
    assert all(row["cached"] for row in run(OTHER)["rows"])


def test_a_read_key_reads_every_job_and_writes_nothing(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """User review: a `:read` key (a dashboard's) saw nothing, since it only saw jobs it made
    and cannot make any. It now reads every key's plans, sweeps and reproductions (lists,
    documents, results, plots, files, the planner's parts) on both databases, and is 403 on
    every write; keys that may write stay isolated (404 across owners)."""
    _set(monkeypatch, api_keys=f"{WRITER},{READER}:read,{OTHER}")
    w, o, r = ({"X-API-Key": k} for k in (WRITER, OTHER, READER))

    def wait(location: str, key: dict[str, str]) -> dict[str, Any]:
        deadline = time.monotonic() + 120
        while (doc := client.get(location, headers=key).json())["status"] in (
            "queued",
            "running",
        ):
            assert time.monotonic() < deadline, doc
            time.sleep(0.1)
        return doc

    plan = client.post("/api/v1/plans", json=SMALL, headers=w).json()
    theirs = client.post(
        "/api/v1/plans", json={**SMALL, "message_sizes_bytes": [8192]}, headers=o
    ).json()
    grid = {"collective": "allgather", "algorithms": ["ring"], "nodes": [6, 8],
            "wavelengths_per_fiber": 2, "message_sizes_bytes": [4096]}  # fmt: skip
    posted = client.post("/api/v1/sweeps", json=grid, headers=w)
    assert posted.status_code == 202
    sweep = wait(posted.headers["Location"], w)
    assert sweep["status"] == "done"
    made = client.post(
        "/api/v1/reproductions", json={"targets": ["tra"], "quick": True}, headers=w
    )
    assert made.status_code == 202
    reproduction = wait(made.headers["Location"], w)
    assert reproduction["status"] == "done", reproduction["error"]

    # lists: the read key sees every owner's jobs
    for kind in ("plans", "sweeps"):
        mine = client.get(f"/api/v1/{kind}", params={"limit": 100}, headers=w).json()
        other = client.get(f"/api/v1/{kind}", params={"limit": 100}, headers=o).json()
        every = client.get(f"/api/v1/{kind}", params={"limit": 100}, headers=r).json()
        assert every["total"] == mine["total"] + other["total"] > 0
        assert {j["id"] for j in every["items"]} == (
            {j["id"] for j in mine["items"]} | {j["id"] for j in other["items"]}
        )
    listed = {p["id"] for p in client.get("/api/v1/plans", params={"limit": 100},
                                          headers=r).json()["items"]}  # fmt: skip
    assert {plan["id"], theirs["id"]} <= listed
    # documents, results, plots and files of either owner
    for plan_id in (plan["id"], theirs["id"]):
        assert client.get(f"/api/v1/plans/{plan_id}", headers=r).json()["status"] == "done"
        table = client.get(f"/api/v1/plans/{plan_id}/assignment", headers=r)
        assert table.status_code == 200 and table.text.startswith("algorithm,")
        svg = client.get(f"/api/v1/plans/{plan_id}/plots/time-vs-message.svg", headers=r)
        assert svg.status_code == 200 and b"<svg" in svg.content
    base = f"/api/v1/sweeps/{sweep['id']}"
    assert client.get(base, headers=r).json() == client.get(base, headers=w).json()
    rows = client.get(f"{base}/results", params={"format": "json"}, headers=r)
    assert rows.status_code == 200 and len(rows.json()) == 2
    assert client.get(f"{base}/plots/steps-vs-nodes.svg", headers=r).status_code == 200
    location = made.headers["Location"]
    assert client.get(location, headers=r).json()["files"] == reproduction["files"]
    report = client.get(f"{location}/files/report.md", headers=r)
    assert report.status_code == 200 and report.text
    # the planner's parts answer as the API does
    for part in (f"/web/parts/plans/{plan['id']}", f"/web/parts/sweeps/{sweep['id']}",
                 f"/web/parts/reproductions/{reproduction['id']}"):  # fmt: skip
        assert client.get(part, headers=r).status_code == 200, part
    recent = client.get("/web/parts/recent", headers=r).text
    assert plan["id"] in recent and theirs["id"] in recent

    # every write is 403, and nothing changed
    refused = [
        client.post("/api/v1/plans", json=SMALL, headers=r),
        client.post("/api/v1/plans?wait=false", json=SMALL, headers=r),
        client.post("/api/v1/sweeps", json=grid, headers=r),
        client.post("/api/v1/reproductions", json={"targets": ["tra"]}, headers=r),
        client.post("/api/v1/rwa", json={"nodes": 6, "demands": [[0, 3, 2]]}, headers=r),
        client.delete(f"/api/v1/plans/{plan['id']}", headers=r),
        client.delete(f"/api/v1/plans/{theirs['id']}", headers=r),
        client.delete(base, headers=r),
        client.delete(location, headers=r),
    ]
    assert [x.status_code for x in refused] == [403] * len(refused)
    assert all(x.json()["code"] == "forbidden" for x in refused)
    assert client.get(f"/api/v1/plans/{plan['id']}", headers=w).status_code == 200
    assert client.get(f"/api/v1/plans/{theirs['id']}", headers=o).status_code == 200
    assert client.get(base, headers=w).status_code == 200
    assert client.get(location, headers=w).status_code == 200

    # keys that may write are still isolated from each other
    for path in (f"/api/v1/plans/{plan['id']}", base, location, f"{base}/results",
                 f"/web/parts/plans/{plan['id']}"):  # fmt: skip
        assert client.get(path, headers=o).status_code == 404, path
    assert client.get(f"/api/v1/plans/{theirs['id']}", headers=w).status_code == 404
    assert client.delete(f"/api/v1/plans/{plan['id']}", headers=o).status_code == 404
    assert client.delete(base, headers=o).status_code == 404
    assert client.delete(location, headers=o).status_code == 404
    assert client.get(f"/api/v1/plans/{plan['id']}", headers=w).status_code == 200
    other_sweeps = client.get("/api/v1/sweeps", headers=o).json()
    assert sweep["id"] not in {s["id"] for s in other_sweeps["items"]}
    # and the owner may still delete its own
    assert client.delete(base, headers=w).status_code == 204
    assert client.get(base, headers=r).status_code == 404


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_concurrent_posts_are_admitted_up_to_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, database: str
) -> None:
    """Review (session 34): with RWAOPT_MAX_QUEUED_JOBS = 3, ten plans posted at once were
    all admitted (counted, then created, apart). Admission and creation are one step now:
    exactly three are queued, seven refused, on SQLite and on PostgreSQL (advisory lock).
    The count is slowed here so that the window the old code left open is wide."""
    from concurrent.futures import ThreadPoolExecutor

    from tests.app.conftest import fresh_postgres

    with contextlib.ExitStack() as stack:
        url = (
            stack.enter_context(fresh_postgres())
            if database == "postgresql"
            else f"sqlite:///{tmp_path / 'c.db'}"
        )
        monkeypatch.setenv("RWAOPT_DATABASE_URL", url)
        monkeypatch.setenv("RWAOPT_JOBS", "inline")
        _set(monkeypatch, max_queued_jobs="3")
        from app.api.routes import plans
        from app.main import app

        held: list[str] = []
        monkeypatch.setattr(plans, "submit", held.append)
        counted = PlanStore.unfinished

        def slow(self: PlanStore) -> int:
            found = counted(self)
            time.sleep(0.2)
            return found

        monkeypatch.setattr(PlanStore, "unfinished", slow)
        client = stack.enter_context(TestClient(app))

        def post(_: int) -> int:
            return client.post("/api/v1/plans", json=SMALL, params={"wait": "false"}).status_code

        with ThreadPoolExecutor(10) as pool:
            codes = sorted(pool.map(post, range(10)))
        assert codes == [202] * 3 + [429] * 7
        store = PlanStore(url)
        for plan_id in held:  # not left queued for the next start
            store.fail(plan_id, ErrorBody(code="test", message="held by the test"))
    get_settings.cache_clear()

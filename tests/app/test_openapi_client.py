"""The OpenAPI document generates a working client: openapi-python-client builds one with no
error and no warning, and the generated package plans, reads and solves against a live
`rwaopt serve` process with an API key."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from collections.abc import Iterator

import pytest

from app.main import app
from tests.app.server import Server

# Plots are PNG or SVG bytes and NDJSON is text: tell the generator how to read them.
CONFIG = """\
content_type_overrides:
  image/png: application/octet-stream
  image/svg+xml: application/octet-stream
  application/x-ndjson: text/plain
post_hooks: []
"""
KEY = "k" * 24


@pytest.fixture(scope="module")
def client_package(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("client")
    (root / "openapi.json").write_text(json.dumps(app.openapi()))
    (root / "config.yaml").write_text(CONFIG)
    done = subprocess.run(
        [
            sys.executable, "-m", "openapi_python_client", "generate",
            "--path", str(root / "openapi.json"),
            "--config", str(root / "config.yaml"),
            "--meta", "none",
            "--output-path", str(root / "rwaopt_client"),
        ],
        capture_output=True, text=True, timeout=300, check=False, cwd=root,
    )  # fmt: skip
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "warning" not in output.lower() and "error" not in output.lower(), output
    sys.path.insert(0, str(root))
    try:
        yield "rwaopt_client"
    finally:
        sys.path.remove(str(root))
        for name in [m for m in sys.modules if m.startswith("rwaopt_client")]:
            del sys.modules[name]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("served")
    s = Server(
        f"sqlite:///{root / 'rwaopt.db'}", root / "uvicorn.log", env={"RWAOPT_API_KEYS": KEY}
    ).start()
    yield s
    s.stop()


def test_generated_client_plans_reads_and_solves(client_package: str, server: Server) -> None:
    package = importlib.import_module(client_package)
    models = importlib.import_module(f"{client_package}.models")
    create_plan = importlib.import_module(f"{client_package}.api.plans.create_plan")
    get_plan = importlib.import_module(f"{client_package}.api.plans.get_plan")
    solve = importlib.import_module(f"{client_package}.api.rwa.solve")
    list_algorithms = importlib.import_module(f"{client_package}.api.algorithms.list_algorithms")

    with (
        package.AuthenticatedClient(
            base_url=server.base, token=KEY, prefix="", auth_header_name="X-API-Key"
        ) as client,
        package.Client(base_url=server.base) as anonymous,
    ):
        _calls(client, anonymous, models, create_plan, get_plan, solve, list_algorithms)


def _calls(client, anonymous, models, create_plan, get_plan, solve, list_algorithms):  # type: ignore[no-untyped-def]
    body = models.PlanRequest.from_dict(
        {
            "ring": {"nodes": 8, "wavelengths_per_fiber": 2},
            "collective": "allgather",
            "algorithms": ["ring", "optree"],
            "message_sizes_bytes": [65536],
        }
    )
    plan = create_plan.sync(client=client, body=body)
    assert isinstance(plan, models.PlanDocument), plan
    assert plan.status == models.JobStatus.DONE
    ring = next(a for a in plan.result.algorithms if a.algorithm == "ring")
    assert ring.true_steps == 7 and ring.steps_lower_bound == 7  # N - 1 for the ring all-gather
    again = get_plan.sync(plan.id, client=client)
    assert again.id == plan.id and again.result.to_dict() == plan.result.to_dict()

    stage = models.RwaInput.from_dict({"nodes": 6, "wavelengths": 2, "demands": [[0, 3, 2]]})
    answer = solve.sync(client=client, body=stage)
    assert isinstance(answer, models.RwaResponse) and answer.chi >= answer.lower_bound
    assert len(answer.assignment) == 2

    catalog = list_algorithms.sync(client=client)
    assert {entry.name for entry in catalog} >= {"optree", "wrht", "ring"}

    # without the key: the documented 401 body, parsed
    refused = get_plan.sync(plan.id, client=anonymous)
    assert isinstance(refused, models.ErrorBody) and refused.code == "unauthorized"

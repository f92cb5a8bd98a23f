"""`rwaopt sweep` as a user runs it: a YAML grid solved locally (SQLite, process pool), the
same grid again from reused points, and a JSON grid submitted to a live server."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.cli import cli
from tests.app.server import Server

GRID_YAML = """\
collective: allgather
algorithms: [ring, optree]
nodes: [8, 16]
wavelengths_per_fiber: [2, 4]
fibers_per_direction: [1, 2]
message_sizes_bytes: [65536, 1048576]
time_limit_s: 5
"""


def sweep(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, RWAOPT_DATABASE_URL=f"sqlite:///{tmp_path / 'rwaopt.db'}")
    return subprocess.run(
        [sys.executable, "-m", "app.cli", "sweep", *args],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_local_sweep_then_again_from_reused_points(tmp_path: Path) -> None:
    (tmp_path / "grid.yaml").write_text(GRID_YAML)
    first = sweep(tmp_path, "grid.yaml", "--out", "results.csv")
    assert first.returncode == 0, first.stderr
    table = rows((tmp_path / "results.csv").read_text())
    # 2 x 2 x 2 points, 2 algorithms, 2 sizes; every row done and certified
    assert len(table) == 8 * 2 * 2
    assert {r["status"] for r in table} == {"done"}
    assert {r["cached"] for r in table} == {"False"}
    assert all(int(r["true_steps"]) >= int(r["steps_lower_bound"]) for r in table)
    ring = [r for r in table if r["algorithm"] == "ring"]
    assert {int(r["true_steps"]) for r in ring if r["nodes"] == "8"} == {7}  # N - 1 steps

    again = sweep(tmp_path, "grid.yaml")  # to stdout: nothing but the CSV there
    assert again.returncode == 0, again.stderr
    reused = rows(again.stdout)
    assert {r["cached"] for r in reused} == {"True"}
    strip = [[{k: v for k, v in r.items() if k != "cached"} for r in t] for t in (table, reused)]
    assert strip[0] == strip[1]


runner = CliRunner()


@pytest.mark.parametrize(
    ("content", "name", "says"),
    [
        ("nodes: [8, 8]\ncollective: allgather\nmessage_sizes_bytes: [1]\n", "g.yaml", "repeat"),
        ("nodes: [8\n", "g.yaml", "is not valid YAML"),
        ("{", "g.json", "is not valid JSON"),
        ('{"collective": "allgather", "nodes": 8}', "g.json", "message size"),
    ],
)
def test_bad_grid_files_say_what_is_wrong(
    tmp_path: Path, content: str, name: str, says: str
) -> None:
    (tmp_path / name).write_text(content)
    result = runner.invoke(cli, ["sweep", str(tmp_path / name)])
    assert result.exit_code == 2
    assert says in result.output


def test_missing_grid_file_and_unreachable_server(tmp_path: Path) -> None:
    result = runner.invoke(cli, ["sweep", str(tmp_path / "nope.yaml")])
    assert result.exit_code == 2 and "cannot read" in result.output
    grid = tmp_path / "g.json"
    grid.write_text(json.dumps({"collective": "allgather", "nodes": 8, "message_sizes_bytes": [1]}))
    result = runner.invoke(cli, ["sweep", str(grid), "--server", "http://127.0.0.1:1"])
    assert result.exit_code == 3 and "cannot reach" in result.output


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    s = Server(f"sqlite:///{tmp_path / 'server.db'}", tmp_path / "uvicorn.log").start()
    yield s
    s.stop()


def test_sweep_on_a_server(tmp_path: Path, server: Server) -> None:
    grid = {
        "collective": "allreduce",
        "algorithms": "all",
        "nodes": [8, 16],
        "wavelengths_per_fiber": [2, 4],
        "fibers_per_direction": [1, 2],
        "message_sizes_bytes": [1048576],
    }
    (tmp_path / "grid.json").write_text(json.dumps(grid))
    done = sweep(tmp_path, "grid.json", "--server", server.base, "--out", "remote.csv")
    assert done.returncode == 0, done.stderr
    table = rows((tmp_path / "remote.csv").read_text())
    assert {r["point"] for r in table} == {str(i) for i in range(8)}
    assert {r["status"] for r in table} == {"done"}
    _, body, _ = server.request("GET", "/api/v1/sweeps")
    (stored,) = json.loads(body)["items"]
    assert stored["status"] == "done" and stored["points"]["done"] == 8
    # the server's own CSV is what the CLI wrote
    _, csv_body, _ = server.request("GET", f"/api/v1/sweeps/{stored['id']}/results")
    assert csv_body.decode() == (tmp_path / "remote.csv").read_text()
    # a refused grid comes back as the server's error, with its exit code
    (tmp_path / "bad.json").write_text(json.dumps({**grid, "algorithms": ["optree"]}))
    refused = sweep(tmp_path, "bad.json", "--server", server.base)
    assert refused.returncode == 2 and "optree" in refused.stderr


@pytest.mark.parametrize(
    ("out", "says"),
    [
        ("missing/results.csv", "the folder missing does not exist"),
        (".", "is a directory; give a file name in it"),
    ],
)
def test_an_out_path_that_cannot_be_written_is_refused_before_solving(
    tmp_path: Path, out: str, says: str
) -> None:
    """Review (session 33): `--out /nonexistent/x.csv` ran the whole sweep, then ended in a
    FileNotFoundError traceback. Refused first, one line, exit 2, nothing solved or stored."""
    (tmp_path / "grid.yaml").write_text(GRID_YAML)
    done = sweep(tmp_path, "grid.yaml", "--out", out)
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"error: --out {out}") and says in line
    assert not (tmp_path / "rwaopt.db").exists()


def test_a_grid_that_is_not_utf8_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review (session 33): a UTF-16 file (bytes 0xff 0xfe first) was a traceback and
    'internal error (UnicodeDecodeError)'."""
    monkeypatch.chdir(tmp_path)
    Path("grid.json").write_bytes(b"\xff\xfe{}")
    for args in (["sweep", "grid.json"], ["rwa", "--input", "grid.json"]):
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 2
        assert result.stderr == (
            "error: grid.json is not UTF-8 text (byte 0xff at offset 0); save it as UTF-8\n"
        )


def test_sweep_on_a_server_that_needs_an_api_key(tmp_path: Path) -> None:
    """Review (session 33): `rwaopt sweep --server` sent no key, so it could not be used
    against a server with RWAOPT_API_KEYS (the compose deployment requires them), and the
    error asked for the X-API-Key header it had no way to send. --api-key (or
    RWAOPT_API_KEY) sends it."""
    key = "sweep-key-" + "1" * 16
    keyed = Server(f"sqlite:///{tmp_path / 'keyed.db'}", tmp_path / "keyed.log",
                   env={"RWAOPT_API_KEYS": key}).start()
    try:
        grid = {"collective": "allgather", "algorithms": ["ring"], "nodes": [4, 6],
                "wavelengths_per_fiber": 1, "message_sizes_bytes": [4096]}  # fmt: skip
        (tmp_path / "grid.json").write_text(json.dumps(grid))
        refused = sweep(tmp_path, "grid.json", "--server", keyed.base)
        assert refused.returncode != 0 and "needs an API key" in refused.stderr
        done = sweep(tmp_path, "grid.json", "--server", keyed.base, "--api-key", key)
        assert done.returncode == 0, done.stderr
        assert {r["status"] for r in rows(done.stdout)} == {"done"}
    finally:
        keyed.stop()


def test_a_grid_files_misspelt_key_gets_the_key_meant(tmp_path: Path) -> None:
    """Review (session 35): `"algorithm": "all"` in a grid file said only "Extra inputs are
    not permitted" (the CLI's flags suggest their spelling already)."""
    from typer.testing import CliRunner

    from app.cli import cli

    grid = tmp_path / "grid.json"
    grid.write_text(json.dumps({"collective": "allgather", "algorithm": "all", "nodes": [8],
                                "wavelengths_per_fiber": 2, "message_sizes_bytes": [1024]}))
    result = CliRunner().invoke(cli, ["sweep", str(grid)])
    assert result.exit_code == 2
    assert "did you mean 'algorithms'?" in result.stderr

"""A real `rwaopt serve` process (uvicorn) of the service on a free port, for the
process-level tests."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    database_url: str
    log: Path
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None
    env: dict[str, str] = field(default_factory=dict)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout_s: float = 60.0) -> Server:
        env = dict(os.environ, RWAOPT_DATABASE_URL=self.database_url, RWAOPT_JOBS="inline")
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "app.cli", "serve", "--port", str(self.port)],
                env=env | self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            assert self.process.poll() is None, self.log.read_text()
            try:
                if self.request("GET", "/ready")[0] == 200:
                    return self
            except OSError:
                pass
            time.sleep(0.2)
        raise AssertionError(f"server did not become ready: {self.log.read_text()}")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=30)
            self.process = None

    def request(
        self, method: str, path: str, body: Any = None, timeout_s: float = 120.0
    ) -> tuple[int, bytes, dict[str, str]]:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method)
        if data is not None:
            req.add_header("content-type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=timeout_s) as r:
                return r.status, r.read(), dict(r.headers)
        except urllib.error.HTTPError as error:
            return error.code, error.read(), dict(error.headers)

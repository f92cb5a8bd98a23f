"""Service settings from environment variables with the `RWAOPT_` prefix (pydantic-settings).

The defaults are the embedded deployment: a SQLite file in the working directory and plan jobs
run in threads of the API process. The compose deployment sets PostgreSQL, Redis and `rq`.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

KEY = re.compile(r"[A-Za-z0-9._~+/=-]{16,256}")
LOOPBACK = ("127.0.0.1", "::1", "localhost")


class Settings(BaseSettings):
    # hide_input_in_errors: a refused RWAOPT_DATABASE_URL's password stays out of tracebacks
    model_config = SettingsConfigDict(
        env_prefix="RWAOPT_", extra="ignore", hide_input_in_errors=True
    )

    database_url: Annotated[
        str, Field(description="SQLAlchemy URL, e.g. postgresql+psycopg://user@host:5432/db")
    ] = "sqlite:///rwaopt.db"
    jobs: Annotated[
        Literal["inline", "rq"],
        Field(
            description="where queued plans (wait=false) run: 'inline' = threads of the API "
            "process; 'rq' = RQ workers reading Redis, started with `rwaopt worker`"
        ),
    ] = "inline"
    redis_url: Annotated[str, Field(description="Redis of the RQ queue")] = (
        "redis://127.0.0.1:6379/0"
    )
    queue_name: Annotated[str, Field(description="RQ queue name")] = "rwaopt-plans"
    inline_workers: Annotated[
        int, Field(ge=1, le=64, description="queued plans solved at once by inline jobs")
    ] = 2
    job_attempts: Annotated[
        int,
        Field(
            ge=1,
            le=10,
            description="rq: runs of a queued plan whose worker died before it is failed",
        ),
    ] = 3
    worker_heartbeat_s: Annotated[
        int, Field(ge=1, le=600, description="rq: how often a worker reports it is alive, s")
    ] = 5
    abandoned_after_s: Annotated[
        int,
        Field(
            ge=1,
            le=3600,
            description="rq: a running job whose worker is silent this long past its heartbeat "
            "is retried on another worker, s",
        ),
    ] = 15
    database_connect_timeout_s: Annotated[
        float,
        Field(
            ge=1,
            le=600,
            description="PostgreSQL: longest wait to open a connection, s (503 beyond)",
        ),
    ] = 5.0
    database_statement_timeout_s: Annotated[
        float,
        Field(
            gt=0,
            le=3600,
            description="longest wait for one answer of the database (a statement, a fetch, "
            "a commit; SQLite: a lock), s; the call is then answered 503, also when the "
            "database host still accepts connections but does not answer",
        ),
    ] = 10.0
    database_pool_timeout_s: Annotated[
        float,
        Field(
            gt=0,
            le=600,
            description="longest wait for a free pooled database connection, s (503 beyond)",
        ),
    ] = 10.0
    solver_processes: Annotated[
        int, Field(ge=1, le=64, description="solver processes of the API (plans and rwa)")
    ] = 2
    solve_memory_mb: Annotated[
        int | None,
        Field(
            ge=256,
            le=16 * 1024 * 1024,
            description="memory one solve may use, MB: a plan whose estimate exceeds it is "
            "refused up front (413, with the largest ring that fits) and a solve that grows "
            "past it is ended (413). Default: 80 % of the machine's memory divided by "
            "RWAOPT_SOLVER_PROCESSES",
        ),
    ] = None
    shape_search_budget_s: Annotated[
        float,
        Field(
            gt=0,
            le=3600,
            description="default time budget of each algorithm's best-shape search, s",
        ),
    ] = 30.0
    reproduction_cache: Annotated[
        Path | None,
        Field(
            description="JSON file of solved plans that queued reproductions reuse across "
            "runs, besides the database's plan summaries they always share (default: none)"
        ),
    ] = None
    solve_wait_s: Annotated[
        float,
        Field(
            ge=0,
            le=3600,
            description="how long a wait=true plan or an rwa call waits for a free solver "
            "process before it is answered 503 with Retry-After, s",
        ),
    ] = 30.0
    max_solve_s: Annotated[
        float,
        Field(
            gt=0,
            le=7 * 24 * 3600,
            description="longest one plan, rwa call or reproduction may solve, s; it is then "
            "ended and answered 413 (RQ jobs: their job timeout)",
        ),
    ] = 3600.0
    max_queued_jobs: Annotated[
        int,
        Field(
            ge=1,
            le=1_000_000,
            description="queued and running plans, sweep points and reproductions at most; "
            "beyond, new ones are answered 429 with Retry-After",
        ),
    ] = 2000
    api_keys: Annotated[
        str | None,
        Field(
            description="comma-separated API keys, each optionally suffixed ':read' (read-only); "
            "when set, every /api/v1 call needs one in the X-API-Key header; a write key sees "
            "only the jobs it made, a ':read' key every job. Required to listen beyond loopback"
        ),
    ] = None
    max_body_bytes: Annotated[
        int,
        Field(ge=1024, le=2**31, description="largest request body accepted, bytes (413 beyond)"),
    ] = 16 * 1024 * 1024
    body_timeout_s: Annotated[
        float,
        Field(
            gt=0,
            le=3600,
            description="longest wait for the next chunk of a request body, s (408 beyond)",
        ),
    ] = 30.0
    cors_origins: Annotated[
        str | None,
        Field(description="comma-separated origins allowed by CORS (default: none, CORS off)"),
    ] = None
    host: Annotated[str, Field(description="bind address of `rwaopt serve`")] = "127.0.0.1"
    port: Annotated[int, Field(ge=1, le=65535, description="port of `rwaopt serve`")] = 8000

    @field_validator("database_url")
    @classmethod
    def _database(cls, raw: str) -> str:
        """A SQLite or PostgreSQL URL (the two databases the migrations are tested on), with
        the installed drivers (psycopg 3, not SQLAlchemy's default psycopg2)."""
        from sqlalchemy.engine import make_url
        from sqlalchemy.exc import ArgumentError

        try:
            url = make_url(raw)
            kind = (url.get_backend_name(), url.get_driver_name())
        except (ArgumentError, ValueError):  # ValueError: a port that is not a number
            kind = ("", "")
        if kind not in (("sqlite", "pysqlite"), ("postgresql", "psycopg")):
            raise ValueError(
                "use sqlite:///path/to/file.db or postgresql+psycopg://user:password@host:5432/db"
            )
        return raw

    @field_validator("api_keys")
    @classmethod
    def _keys(cls, raw: str | None) -> str | None:
        if raw is None or not raw.strip():
            return None
        seen: set[str] = set()
        for entry in raw.split(","):
            key = entry.strip().removesuffix(":read")
            if not KEY.fullmatch(key):
                raise ValueError(
                    "each key must be 16 to 256 characters of letters, digits and ._~+/=- "
                    "(optionally followed by :read)"
                )
            if key in seen:  # the last one won, silently: read-only or not by position
                raise ValueError(
                    f"the key ending {key[-4:]!r} is listed twice; list each key once, with "
                    ":read or without"
                )
            seen.add(key)
        return raw

    def keys(self) -> dict[str, bool]:
        """API key -> may it write; empty when keys are off."""
        if self.api_keys is None:
            return {}
        out = {}
        for entry in self.api_keys.split(","):
            entry = entry.strip()
            out[entry.removesuffix(":read")] = not entry.endswith(":read")
        return out

    def solve_memory_bytes(self) -> int:
        """The per-solve memory budget (RWAOPT_SOLVE_MEMORY_MB, or its default)."""
        if self.solve_memory_mb is not None:
            return self.solve_memory_mb * 2**20
        return int(0.8 * physical_memory_bytes() / self.solver_processes)

    def origins(self) -> list[str]:
        return [o.strip() for o in (self.cors_origins or "").split(",") if o.strip()]


def physical_memory_bytes() -> int:
    """The machine's memory (Linux and most Unix; sysconf)."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def unknown_variables(environ: Mapping[str, str]) -> list[str]:
    """Warnings for the RWAOPT_* variables a serving process (`rwaopt serve`, `rwaopt worker`)
    does not read, each with the setting it may have meant: a mistyped name is ignored
    (`extra="ignore"`), so auth stayed off on loopback with RWAOPT_API_KEY (the CLI's key as
    a client, `--api-key`) set for RWAOPT_API_KEYS (review, session 35)."""
    known = sorted(f"RWAOPT_{name.upper()}" for name in Settings.model_fields)
    out = []
    for name in sorted(k for k in environ if k.startswith("RWAOPT_") and k not in known):
        near = difflib.get_close_matches(name, known, n=1, cutoff=0.8)
        meant = f"; did you mean {near[0]}?" if near else ""
        out.append(f"{name} is not a setting of the service and is ignored{meant}")
    return out


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process's settings (read once; tests clear the cache after changing the env)."""
    return Settings()

"""Service settings from environment variables with the `RWAOPT_` prefix (pydantic-settings).

The defaults are the embedded deployment: a SQLite file in the working directory and plan jobs
run in threads of the API process. The compose deployment sets PostgreSQL, Redis and `rq`.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="RWAOPT_", extra="ignore")

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
    solver_processes: Annotated[
        int, Field(ge=1, le=64, description="solver processes of the API (plans and rwa)")
    ] = 2
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
            description="JSON file of solved plans that reproductions reuse across runs "
            "(default: none, each queued reproduction solves its plans afresh)"
        ),
    ] = None
    host: Annotated[str, Field(description="bind address of `rwaopt serve`")] = "127.0.0.1"
    port: Annotated[int, Field(ge=1, le=65535, description="port of `rwaopt serve`")] = 8000


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process's settings (read once; tests clear the cache after changing the env)."""
    return Settings()

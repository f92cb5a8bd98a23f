"""The API suite runs against both databases the service supports: a SQLite file and the
local PostgreSQL (a fresh database per test module, dropped afterwards).

PostgreSQL is found at RWAOPT_TEST_POSTGRES_URL (default: the CI machine's
postgresql+psycopg://postgres@127.0.0.1:5432/test); these tests fail, not skip, without it.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import make_url

from app.persistence.database import dispose_all, engine_for
from app.settings import get_settings

POSTGRES_URL = os.environ.get(
    "RWAOPT_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)


def _admin_dsn(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def database_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path_factory.mktemp('db') / 'rwaopt.db'}"
        return
    with fresh_postgres() as url:
        yield url


@contextmanager
def fresh_postgres() -> Iterator[str]:
    """A new, empty PostgreSQL database for one test module; dropped afterwards."""
    name = f"rwaopt_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(_admin_dsn(POSTGRES_URL), autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    url = make_url(POSTGRES_URL).set(database=name).render_as_string(hide_password=False)
    try:
        yield url
    finally:
        engine_for(url).dispose()
        with psycopg.connect(_admin_dsn(POSTGRES_URL), autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def settings_env(database_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setenv("RWAOPT_DATABASE_URL", database_url)
    monkeypatch.setenv("RWAOPT_JOBS", "inline")
    get_settings.cache_clear()
    yield database_url
    get_settings.cache_clear()


@pytest.fixture
def client(settings_env: str) -> Iterator[TestClient]:
    from app.main import app

    with TestClient(app) as c:
        yield c


def restart() -> None:
    """Stop as a process would (running jobs finish, pools and connections close) and forget
    every engine, session factory and setting."""
    from app.jobs import pool, queue

    pool.shutdown()
    queue.shutdown()
    dispose_all()
    get_settings.cache_clear()

"""Engines, sessions and migrations. One engine per database URL per process.

Every wait on the database is bounded (settings `database_*_timeout_s`): a database that
stops answering, even one whose host still accepts TCP (a frozen server or proxy, where
neither libpq's keepalives nor a server-side statement_timeout ever fire), fails the call
with an OperationalError within the bound, which the API answers 503 `database_unavailable`.
"""

from __future__ import annotations

import fcntl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any

import psycopg
from alembic import command
from alembic.config import Config
from psycopg.errors import _WaitTimeout
from sqlalchemy import Engine, create_engine, event, make_url, text
from sqlalchemy.orm import Session, sessionmaker

from app.settings import Settings, get_settings

MIGRATIONS = Path(__file__).with_name("migrations")


_engines: dict[str, Engine] = {}
_lock = threading.Lock()


def engine_for(url: str) -> Engine:
    """The process's pooled engine for `url`."""
    with _lock:
        if url not in _engines:
            _engines[url] = _create(url)
        return _engines[url]


def dispose_all() -> None:
    """Close every pooled connection and forget the engines (tests' "restart", shutdown)."""
    with _lock:
        for engine in _engines.values():
            engine.dispose()
        _engines.clear()
    session_factory.cache_clear()


class BoundedConnection(psycopg.Connection[Any]):
    """A psycopg connection whose every round trip (statement, fetch, commit, rollback, the
    pool's ping) gives up after `timeout_s`: the client-side deadline a frozen server needs.
    The connection is then closed, so the pool discards it (SQLAlchemy sees it `closed`)."""

    timeout_s: float = 10.0

    def wait(self, gen: Any, interval: float = 0.1, timeout: float | None = None) -> Any:
        try:
            return super().wait(gen, interval, self.timeout_s if timeout is None else timeout)
        except _WaitTimeout:
            self.pgconn.finish()
            raise psycopg.OperationalError(
                f"the database did not answer within {self.timeout_s:g} s "
                "(RWAOPT_DATABASE_STATEMENT_TIMEOUT_S)"
            ) from None


def _create(url: str) -> Engine:
    """SQLite gets foreign keys on, WAL, a busy timeout, and may be used from worker threads.
    PostgreSQL gets the connect, statement and pool bounds of the settings."""
    settings = get_settings()
    if url.startswith("sqlite"):
        engine = create_engine(
            url,
            connect_args={
                "check_same_thread": False,
                "timeout": settings.database_statement_timeout_s,
            },
            pool_timeout=settings.database_pool_timeout_s,
        )

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_connection, _record):  # type: ignore[no-untyped-def]
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.close()

        return engine
    return _postgres(url, settings)


def _postgres(url: str, settings: Settings) -> Engine:
    statement_ms = round(settings.database_statement_timeout_s * 1000)
    engine = create_engine(
        url,
        pool_pre_ping=True,  # its ping is bounded too (BoundedConnection.wait)
        pool_timeout=settings.database_pool_timeout_s,
        connect_args={
            # psycopg enforces connect_timeout client-side over the whole handshake
            "connect_timeout": max(1, round(settings.database_connect_timeout_s)),
            # the server ends a statement that runs too long while it still answers
            "options": f"-c statement_timeout={statement_ms}",
        },
    )
    timeout_s = settings.database_statement_timeout_s

    class Bounded(BoundedConnection):
        pass

    Bounded.timeout_s = timeout_s

    @event.listens_for(engine, "do_connect")
    def _connect(_dialect, _record, cargs, cparams):  # type: ignore[no-untyped-def]
        return Bounded.connect(*cargs, **cparams)

    return engine


@lru_cache(maxsize=8)
def session_factory(url: str) -> sessionmaker[Session]:
    return sessionmaker(engine_for(url), expire_on_commit=False)


# pg_advisory_xact_lock's key for migrations: any fixed bigint, the same in every process
MIGRATION_LOCK_KEY = 0x72_77_61_6F_70_74  # "rwaopt"


def migrate(url: str) -> None:
    """Bring the database at `url` to the newest Alembic revision (idempotent).

    Processes that start together (the API and its workers in compose, pytest-xdist workers,
    several `rwaopt` commands on one SQLite file) migrate one at a time: unserialized, every
    one but the first failed with "table ... already exists" on a fresh database. PostgreSQL
    takes a transaction-scoped advisory lock before Alembic reads the version table (its
    DDL is transactional, so the next process finds head); a SQLite file is guarded by an
    exclusive lock on a sidecar file (SQLite runs DDL outside its own transactions)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with _file_lock(url), engine_for(url).begin() as connection:
        if connection.dialect.name == "postgresql":
            lock = text("SELECT pg_advisory_xact_lock(:key)")
            connection.execute(lock, {"key": MIGRATION_LOCK_KEY})
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


@contextmanager
def _file_lock(url: str) -> Iterator[None]:
    """An exclusive lock on `<database>-migrate.lock` beside a SQLite file; nothing for
    other databases, an in-memory SQLite (one process only), or a file whose directory is
    missing (SQLite then fails to open it, with its own error)."""
    parsed = make_url(url)
    database = parsed.database
    if (
        not parsed.drivername.startswith("sqlite")
        or database in (None, "", ":memory:")
        or not Path(database).parent.is_dir()
    ):
        yield
        return
    with open(f"{database}-migrate.lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def reachable(url: str) -> bool:
    try:
        with engine_for(url).connect() as connection:
            connection.execute(text("SELECT 1"))
    except Exception:
        return False
    return True

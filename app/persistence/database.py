"""Engines, sessions and migrations. One engine per database URL per process."""

from __future__ import annotations

import threading
from functools import lru_cache
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.orm import Session, sessionmaker

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


def _create(url: str) -> Engine:
    """SQLite gets foreign keys on, WAL, and may be used from worker threads."""
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_connection, _record):  # type: ignore[no-untyped-def]
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.close()

        return engine
    return create_engine(url, pool_pre_ping=True)


@lru_cache(maxsize=8)
def session_factory(url: str) -> sessionmaker[Session]:
    return sessionmaker(engine_for(url), expire_on_commit=False)


def migrate(url: str) -> None:
    """Bring the database at `url` to the newest Alembic revision (idempotent)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine_for(url).begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


def reachable(url: str) -> bool:
    try:
        with engine_for(url).connect() as connection:
            connection.execute(text("SELECT 1"))
    except Exception:
        return False
    return True

"""Defaults for the whole test session, set before any test module is imported.

Test modules that build the app at import time touch its database: schemathesis loads the
OpenAPI document through the app's lifespan (tests/app/test_schema_fuzz.py), which migrates
`RWAOPT_DATABASE_URL`. Left at its default, that is `sqlite:///rwaopt.db` in the working
tree, where two pytest-xdist workers collecting at once race to create the same tables
("table plans already exists": a fresh-clone CI run failed so). Each process (every xdist
worker imports this file) gets a database of its own in a fresh temporary directory instead;
tests that need a particular database set the variable themselves. It is migrated once per
process, as the app's start-up would, for the modules whose TestClient never starts the app
(`TestClient(app)` outside a `with`): they passed in a full run only because another module's
import had migrated it."""

from __future__ import annotations

import os
import tempfile

import pytest

DEFAULT_DATABASE = f"sqlite:///{tempfile.mkdtemp(prefix='rwaopt-tests-')}/default.db"
os.environ.setdefault("RWAOPT_DATABASE_URL", DEFAULT_DATABASE)


@pytest.fixture(scope="session", autouse=True)
def _default_database() -> None:
    from app.persistence.database import migrate

    migrate(os.environ["RWAOPT_DATABASE_URL"])

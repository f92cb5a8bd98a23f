"""Persistence on SQLite and PostgreSQL: migrations match the models, stage solutions
round-trip exactly, writes are whole."""

from __future__ import annotations

import multiprocessing
from contextlib import AbstractContextManager, nullcontext
from multiprocessing.synchronize import Barrier
from pathlib import Path

import numpy as np
import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from app.api.routes.plans import SMALL
from app.persistence.codec import decode, encode
from app.persistence.database import engine_for, migrate
from app.persistence.store import PlanStore, Solution
from app.persistence.tables import Base
from app.schemas.documents import JobStatus
from app.schemas.requests import PlanRequest
from app.schemas.results import PlanResult
from models.ring import Ring
from models.stage import Stage
from solver.outcome import Method, SolveOptions
from solver.solve import solve_stage
from tests.app.conftest import fresh_postgres


def test_migrations_match_the_models(database_url: str) -> None:
    migrate(database_url)
    migrate(database_url)  # idempotent
    with engine_for(database_url).connect() as connection:
        diff = compare_metadata(MigrationContext.configure(connection), Base.metadata)
    assert diff == []


def _migrate_at(url: str, barrier: Barrier) -> None:
    barrier.wait(timeout=60)
    migrate(url)


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_processes_starting_together_migrate_a_fresh_database_one_at_a_time(
    kind: str, tmp_path: Path
) -> None:
    """Six processes migrate one fresh database at the same instant (compose starts the API
    and its workers together; xdist workers collect together). Unserialized, all but one
    failed with "table ... already exists" (SQLite) or a unique violation on pg_type
    (PostgreSQL); now every one succeeds and the schema is whole."""
    fresh: AbstractContextManager[str] = (
        nullcontext(f"sqlite:///{tmp_path / 'race.db'}") if kind == "sqlite" else fresh_postgres()
    )
    with fresh as url:
        spawn = multiprocessing.get_context("spawn")
        barrier = spawn.Barrier(6)
        processes = [spawn.Process(target=_migrate_at, args=(url, barrier)) for _ in range(6)]
        for process in processes:
            process.start()
        for process in processes:
            process.join(timeout=120)
        assert [process.exitcode for process in processes] == [0] * 6
        with engine_for(url).connect() as connection:
            assert compare_metadata(MigrationContext.configure(connection), Base.metadata) == []
            assert set(Base.metadata.tables) <= set(inspect(connection).get_table_names())


def test_solution_round_trip() -> None:
    ring = Ring(7, 1, 2)
    stage = Stage.from_demands(7, [0, 1, 2, 3], [3, 5, 6, 0], [2, 1, 3, 1], [0, 1, 0, 2], "x")
    result = solve_stage(ring, stage, SolveOptions(method=Method.AUTO, time_limit_s=5.0))
    back_stage, back = decode(encode(stage, result.assignment))
    for name in ("sources", "destinations", "counts", "allowed"):
        assert np.array_equal(getattr(back_stage, name), getattr(stage, name))
    assert (
        back.lightpaths(ring, back_stage).keys() == result.assignment.lightpaths(ring, stage).keys()
    )
    for key, column in result.assignment.lightpaths(ring, stage).items():
        assert np.array_equal(back.lightpaths(ring, back_stage)[key], column)


def test_finish_after_delete_writes_nothing(database_url: str) -> None:
    store = PlanStore(database_url)
    store.migrate()
    request = PlanRequest.model_validate(SMALL)
    row = store.create(request, status=JobStatus.QUEUED)
    assert store.mark_running(row.id)
    assert not store.mark_running(row.id)  # only a queued plan starts
    assert store.delete(row.id)
    empty = PlanResult(
        collective=request.collective,
        ring=request.ring,
        algorithms=[],
        skipped=[],
        recommendation=[],
    )
    assert not store.finish(row.id, empty, [Solution("ring", 0, b"1")], 1.0)
    assert store.get(row.id) is None
    assert list(store.solutions(row.id)) == []


def test_format_1_archives_decode_to_the_direction_encoding() -> None:
    """Solutions stored before the one direction encoding (0 any, 1 cw, 2 ccw) still read."""
    import io

    import numpy as np

    from app.persistence.codec import decode
    from models.ring import ANY_DIRECTION, Direction

    buffer = io.BytesIO()
    np.savez_compressed(
        buffer,
        nodes=np.int64(5),
        stage_sources=np.array([0, 1, 2]),
        stage_destinations=np.array([2, 3, 4]),
        stage_counts=np.array([1, 1, 1]),
        stage_allowed=np.array([0, 1, 2]),
        run_demand=np.array([0, 1, 2]),
        run_direction=np.array([0, 0, 1]),
        run_first_colour=np.array([0, 0, 0]),
        run_count=np.array([1, 1, 1]),
    )
    stage, _ = decode(buffer.getvalue())
    assert stage.allowed.tolist() == [ANY_DIRECTION, Direction.CW, Direction.CCW]


def test_a_request_stored_before_a_rule_was_added_still_reads_back(database_url: str) -> None:
    """Message sizes or workloads given twice were accepted up to 0.6.0; such a stored plan
    (and a sweep whose points repeat a size) reads back instead of failing its own schema
    (a 500 on GET), while a new request with them is refused."""
    import pytest
    from pydantic import ValidationError

    from app.persistence.store import SweepStore
    from app.schemas.requests import STORED
    from app.schemas.sweeps import SweepRequest

    twice = SMALL | {"message_sizes_bytes": [4096, 4096.0], "workloads": []}
    with pytest.raises(ValidationError, match="message sizes repeat"):
        PlanRequest.model_validate(twice)
    store = PlanStore(database_url)
    store.migrate()
    old = PlanRequest.model_validate(twice, context=STORED)
    row = store.create(old, status=JobStatus.QUEUED)
    back = store.get(row.id)
    assert back is not None and back.request.message_sizes_bytes == [4096, 4096]
    grid = {"collective": "allgather", "nodes": [4, 6], "wavelengths_per_fiber": 1,
            "message_sizes_bytes": [64, 64]}  # fmt: skip
    with pytest.raises(ValidationError, match="message sizes repeat"):
        SweepRequest.model_validate(grid)
    sweeps = SweepStore(database_url)
    sweep = SweepRequest.model_validate(grid, context=STORED)
    document, _ = sweeps.create(sweep, [f"hash-{i}" for i in range(len(sweep.points()))])
    read = sweeps.get(document.id)
    assert read is not None and read.request.message_sizes_bytes == [64, 64]
    # a fraction of a byte was accepted up to session 32 (0.6.x): refused now, read back
    fraction = SMALL | {"message_sizes_bytes": [1.5], "workloads": []}
    with pytest.raises(ValidationError, match="whole number of bytes"):
        PlanRequest.model_validate(fraction)
    row = store.create(PlanRequest.model_validate(fraction, context=STORED),
                       status=JobStatus.QUEUED)
    back = store.get(row.id)
    assert back is not None and back.request.message_sizes_bytes == [1.5]


def test_deleting_the_owners_plans_waits_for_a_sweep_reusing_them() -> None:
    """PostgreSQL: a sweep's creation (which may reuse the owner's plans), DELETE of a plan
    and DELETE of a finished sweep take the owner's advisory lock first, so a sweep never
    reuses a plan a concurrent DELETE removes. Held here by one transaction, the plan's
    DELETE waits for it; another owner's does not."""
    import threading
    import time

    from app.persistence.database import session_factory
    from app.persistence.store import _owner_lock

    with fresh_postgres() as url:
        store = PlanStore(url)
        store.migrate()
        mine = store.create(PlanRequest.model_validate(SMALL), owner="key-a")
        theirs = store.create(PlanRequest.model_validate(SMALL), owner="key-b")
        done: dict[str, float] = {}

        def delete(plan_id: str, owner: str) -> None:
            assert store.delete(plan_id, owner)
            done[owner] = time.monotonic()

        with session_factory(url).begin() as held:
            _owner_lock(held, "key-a")
            waiting = threading.Thread(target=delete, args=(mine.id, "key-a"))
            free = threading.Thread(target=delete, args=(theirs.id, "key-b"))
            waiting.start()
            free.start()
            free.join(timeout=10)
            time.sleep(0.5)
            assert "key-b" in done and "key-a" not in done
            released = time.monotonic()
        waiting.join(timeout=10)
        assert done["key-a"] >= released
        assert store.get(mine.id) is None and store.get(theirs.id) is None

"""Columns the migrations share, frozen as of the revision that introduced them: a later
change to a job table is a new revision, never an edit here."""

from __future__ import annotations

import sqlalchemy as sa


def job_columns_0001() -> list[sa.Column[object]]:
    """Every job table's columns (plans in 0001, reproductions in 0002), result aside."""
    return [
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("request", sa.JSON(), nullable=False),
        sa.Column("error", sa.JSON(), nullable=True),
        sa.Column("seconds", sa.Float(), nullable=True),
    ]


def blob_columns_0001(parent: str, key: str) -> list[sa.Column[object]]:
    """A job's stored blobs: plan stage solutions (0001), report files (0002)."""
    return [
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            key, sa.String(36), sa.ForeignKey(f"{parent}.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("data", sa.LargeBinary(), nullable=False),
    ]

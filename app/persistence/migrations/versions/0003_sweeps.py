"""sweeps, their points, and what plans need to be shared by sweeps

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-23

Plans gain `request_hash` (the canonical hash a sweep point is reused by), `attempts` (runs
started, for the retry limit of abandoned RQ jobs) and `finished_at`.
"""

import sqlalchemy as sa
from alembic import op

from app.persistence.migrations.columns import job_columns_0001

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("plans") as plans:
        plans.add_column(sa.Column("request_hash", sa.String(64), nullable=True))
        plans.add_column(sa.Column("attempts", sa.Integer(), nullable=False, server_default="0"))
        plans.add_column(sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True))
        plans.add_column(sa.Column("origin", sa.String(36), nullable=True))
    op.create_index("ix_plans_request_hash", "plans", ["request_hash"])
    op.create_table("sweeps", *job_columns_0001())
    op.create_index("ix_sweeps_created_at", "sweeps", ["created_at"])
    op.create_table(
        "sweep_points",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "sweep_id",
            sa.String(36),
            sa.ForeignKey("sweeps.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("point", sa.Integer(), nullable=False),
        sa.Column(
            "plan_id", sa.String(36), sa.ForeignKey("plans.id", ondelete="SET NULL"), nullable=True
        ),
        sa.Column("cached", sa.Boolean(), nullable=False),
        sa.UniqueConstraint("sweep_id", "point", name="uq_sweep_points_point"),
    )
    op.create_index("ix_sweep_points_plan_id", "sweep_points", ["plan_id"])


def downgrade() -> None:
    op.drop_index("ix_sweep_points_plan_id", "sweep_points")
    op.drop_table("sweep_points")
    op.drop_index("ix_sweeps_created_at", "sweeps")
    op.drop_table("sweeps")
    op.drop_index("ix_plans_request_hash", "plans")
    with op.batch_alter_table("plans") as plans:
        plans.drop_column("origin")
        plans.drop_column("finished_at")
        plans.drop_column("attempts")
        plans.drop_column("request_hash")

"""plans and plan_solutions

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "plans",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("request", sa.JSON(), nullable=False),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("error", sa.JSON(), nullable=True),
        sa.Column("seconds", sa.Float(), nullable=True),
    )
    op.create_index("ix_plans_created_at", "plans", ["created_at"])
    op.create_table(
        "plan_solutions",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "plan_id",
            sa.String(36),
            sa.ForeignKey("plans.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("algorithm", sa.String(32), nullable=False),
        sa.Column("stage_index", sa.Integer(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
    )
    op.create_index("ix_plan_solutions_plan_id", "plan_solutions", ["plan_id"])


def downgrade() -> None:
    op.drop_index("ix_plan_solutions_plan_id", "plan_solutions")
    op.drop_table("plan_solutions")
    op.drop_index("ix_plans_created_at", "plans")
    op.drop_table("plans")

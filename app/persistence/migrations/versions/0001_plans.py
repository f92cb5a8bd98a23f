"""plans and plan_solutions

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""

import sqlalchemy as sa
from alembic import op

from app.persistence.migrations.columns import blob_columns_0001, job_columns_0001

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table("plans", *job_columns_0001(), sa.Column("result", sa.JSON(), nullable=True))
    op.create_index("ix_plans_created_at", "plans", ["created_at"])
    op.create_table(
        "plan_solutions",
        *blob_columns_0001("plans", "plan_id"),
        sa.Column("algorithm", sa.String(32), nullable=False),
        sa.Column("stage_index", sa.Integer(), nullable=False),
    )
    op.create_index("ix_plan_solutions_plan_id", "plan_solutions", ["plan_id"])


def downgrade() -> None:
    op.drop_index("ix_plan_solutions_plan_id", "plan_solutions")
    op.drop_table("plan_solutions")
    op.drop_index("ix_plans_created_at", "plans")
    op.drop_table("plans")

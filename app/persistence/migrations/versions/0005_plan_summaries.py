"""plan summaries that reproductions reuse

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-24

One row per plan a reproduction solved (app.reproduce.Summary), keyed by the SHA-256 of its
request and rwaopt's version.
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "plan_summaries",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("summary", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("plan_summaries")

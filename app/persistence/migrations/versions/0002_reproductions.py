"""reproductions and their report files

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "reproductions",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("request", sa.JSON(), nullable=False),
        sa.Column("findings", sa.JSON(), nullable=True),
        sa.Column("error", sa.JSON(), nullable=True),
        sa.Column("seconds", sa.Float(), nullable=True),
    )
    op.create_index("ix_reproductions_created_at", "reproductions", ["created_at"])
    op.create_table(
        "reproduction_files",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "reproduction_id",
            sa.String(36),
            sa.ForeignKey("reproductions.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("path", sa.String(200), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
    )
    op.create_index(
        "ix_reproduction_files_reproduction_id", "reproduction_files", ["reproduction_id"]
    )


def downgrade() -> None:
    op.drop_index("ix_reproduction_files_reproduction_id", "reproduction_files")
    op.drop_table("reproduction_files")
    op.drop_index("ix_reproductions_created_at", "reproductions")
    op.drop_table("reproductions")

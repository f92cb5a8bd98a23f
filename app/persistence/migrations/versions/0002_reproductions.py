"""reproductions and their report files

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23
"""

import sqlalchemy as sa
from alembic import op

from app.persistence.migrations.columns import blob_columns_0001, job_columns_0001

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "reproductions", *job_columns_0001(), sa.Column("findings", sa.JSON(), nullable=True)
    )
    op.create_index("ix_reproductions_created_at", "reproductions", ["created_at"])
    op.create_table(
        "reproduction_files",
        *blob_columns_0001("reproductions", "reproduction_id"),
        sa.Column("path", sa.String(200), nullable=False),
    )
    op.create_index(
        "ix_reproduction_files_reproduction_id", "reproduction_files", ["reproduction_id"]
    )


def downgrade() -> None:
    op.drop_index("ix_reproduction_files_reproduction_id", "reproduction_files")
    op.drop_table("reproduction_files")
    op.drop_index("ix_reproductions_created_at", "reproductions")
    op.drop_table("reproductions")

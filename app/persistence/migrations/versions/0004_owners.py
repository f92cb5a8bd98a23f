"""the API key that made each job

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23

`owner` is a digest of the API key (app.api.auth.key_id), null when keys are off.
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

TABLES = ("plans", "reproductions", "sweeps")


def upgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column("owner", sa.String(16), nullable=True))
        op.create_index(f"ix_{table}_owner", table, ["owner"])


def downgrade() -> None:
    for table in TABLES:
        op.drop_index(f"ix_{table}_owner", table)
        with op.batch_alter_table(table) as batch:
            batch.drop_column("owner")

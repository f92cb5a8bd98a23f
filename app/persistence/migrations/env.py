"""Alembic environment: runs on the connection `app.persistence.database.migrate` passes in."""

from alembic import context

from app.persistence.tables import Base

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()

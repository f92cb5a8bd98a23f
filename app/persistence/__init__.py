"""Plans on disk: SQLAlchemy 2 tables, Alembic migrations and the plan store."""

"""Pydantic types at the boundary: requests (validated once), results, stored documents."""

"""Numbers as the papers print them, one JSON file per paper (see models.findings)."""

"""What a solved plan looks like to people: the CLI table and CSV, plots, the lightpath table."""

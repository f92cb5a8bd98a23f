"""How users reach rwaopt: the HTTP service, the CLI, jobs and persistence."""

"""How users reach rwaopt: the HTTP service, the CLI, jobs and persistence."""

from importlib.metadata import version

__version__ = version("rwaopt")  # one source: pyproject.toml

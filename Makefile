# The two README commands. Both create .venv and install the project into it first.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: install serve test lint browser

$(BIN)/rwaopt: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $(BIN)/rwaopt

install: $(BIN)/rwaopt

serve: install
	$(BIN)/rwaopt serve

# Debian's chromium for the headless check of the docs page (tests/app/test_server.py).
browser:
	@command -v chromium >/dev/null || { \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q chromium; }

test: install browser
	$(BIN)/python -m pytest

lint: install
	$(BIN)/ruff check .
	$(BIN)/mypy

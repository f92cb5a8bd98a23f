# The two README commands. Both create .venv and install the project into it first.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: install serve test lint

$(BIN)/rwaopt: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $(BIN)/rwaopt

install: $(BIN)/rwaopt

serve: install
	$(BIN)/rwaopt serve

test: install
	$(BIN)/python -m pytest

lint: install
	$(BIN)/ruff check .
	$(BIN)/mypy

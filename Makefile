# The two README commands. Both create .venv and install the project into it first.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: install serve test lint browser simgrid lock

# Runtime dependencies only (what `serve` needs), then the test and lint tools on top.
$(VENV)/.runtime: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e .
	touch $@

$(VENV)/.dev: $(VENV)/.runtime
	$(BIN)/pip install -q -e '.[dev]'
	touch $@

install: $(VENV)/.dev

serve: $(VENV)/.runtime
	$(BIN)/rwaopt serve

# Debian's chromium for the headless check of the docs page (tests/app/test_server.py).
browser:
	@command -v chromium >/dev/null || { \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q chromium; }

# Debian's SimGrid Python module (3.32, the electrical baseline's simulator): one extension
# file built for Debian's Python 3.11, linked into the venv (a .pth line would leak every
# Debian package into it). `make serve` does not need it: plans then give Hockney times only.
SIMGRID_SO := /usr/lib/python3/dist-packages/simgrid.cpython-311-x86_64-linux-gnu.so
simgrid: install
	@[ -e $(SIMGRID_SO) ] || { \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q python3-simgrid; }
	@ln -sf $(SIMGRID_SO) "$$($(BIN)/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/"
	@$(BIN)/python -c "import simgrid" 2>/dev/null

# The suite on every core, at most 4 workers (pytest-xdist); idle workers take queued tests
# from busy ones (worksteal: the long tests at the end need not wait behind one worker).
# Session 33, 2 cores, clean clones: 7.4, 8.1 and 8.3 min with it, 8.0 without (noise).
test: install browser simgrid
	$(BIN)/python -m pytest -n auto --maxprocesses 4 --dist worksteal

lint: install
	$(BIN)/ruff check .
	$(BIN)/mypy

# docker/requirements.lock: the image's exact dependencies, from a runtime-only install.
lock:
	rm -rf .lock-venv && $(PY) -m venv .lock-venv
	.lock-venv/bin/pip install -q --upgrade pip && .lock-venv/bin/pip install -q .
	{ echo "# The image's Python dependencies, exactly (pip freeze of a runtime-only install: 'make lock')."; \
	  echo "# The Dockerfile installs these, then rwaopt itself with --no-deps."; \
	  .lock-venv/bin/pip freeze --exclude-editable | grep -v '^rwaopt'; } > docker/requirements.lock
	rm -rf .lock-venv

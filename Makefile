# The project's front door: `make demo` and `make test` work from a fresh clone; everything they need is
# installed into .venv from pinned requirements (requirements.lock).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
PORT ?= 8501

.PHONY: install demo test build serve bench crashtest loadtest docs clean help

help:
	@echo "make demo    set up, build the warehouse from sample data and serve the app on http://localhost:$(PORT)"
	@echo "             (DEMO_ARGS=\"--no-serve\" to stop after the build; evalhouse demo --help for the rest)"
	@echo "make test    set up and run every test"
	@echo "make bench   run the benchmarks and write bench/RESULTS.md"
	@echo "make crashtest / make loadtest   kill ingest and build twenty times / load the app's queries during builds"
	@echo "make docs    generate dbt docs into target/"

$(STAMP): pyproject.toml requirements.lock
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 11) else "evalhouse needs Python 3.11 (set PYTHON=...)")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.lock
	@# --no-build-isolation builds with the pinned setuptools from requirements.lock (no network fetch of a backend)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	@touch $@

install: $(STAMP)

# DEMO_ARGS goes to `evalhouse demo`: make demo DEMO_ARGS="--no-serve --end-date 2026-11-21"
demo: $(STAMP)
	$(BIN)/evalhouse demo --port $(PORT) $(DEMO_ARGS)

# One worker per core (pytest-xdist); a worker that has run out of tests takes the last half of the other's queue
# (--dist worksteal). With xdist's default each kept the tests it was given first, and one ran alone for two to three
# minutes at the end: README.md, "Development", has the figures. tests/conftest.py keeps the suite's dbt builds cheap
# (a target directory per worker, one saved parse per profile and vars, no dbt unit tests in the builds, warehouses
# built once and shared); about half of the suite's time is still dbt builds, bound by dbt's Python per node.
test: $(STAMP)
	$(BIN)/python -m pytest -n auto --dist worksteal

build: $(STAMP)
	$(BIN)/evalhouse build

serve: $(STAMP)
	$(BIN)/evalhouse serve --port $(PORT)

bench: $(STAMP)
	$(BIN)/python -m bench $(BENCH_ARGS)

crashtest: $(STAMP)
	$(BIN)/python -m bench.crash

loadtest: $(STAMP)
	$(BIN)/python -m bench.load

# Reads the published warehouse read-only, as the app does: it runs while the app or an analyst has it open.
docs: $(STAMP)
	$(BIN)/evalhouse docs

clean:
	rm -rf target logs .pytest_cache

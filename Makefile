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

# One worker per core (pytest-xdist), and a worker that has run out of tests takes the last half of the other's
# queue (--dist worksteal). xdist's default (--dist load) gave each worker 168 consecutive tests at the start, the
# slow ones (tests/conftest.py ran them first), and never moved them: one worker ran its last test 130 to 170 s
# after the other had finished (two runs), on one of the two cores. On 2026-11-25 from 04:45 to 06:00 UTC, one run
# after the other on one checkout (`pytest -n auto` and the option; seconds of pytest; each worker's last test ended):
#   --dist load (before)                  685 s, and 714 s in the run that timed each test: 539 and 671 s
#   --dist load --maxschedchunk=1         692 s   686 and 686 s (balanced, but the workers were busy 1,356 s in all
#                                                 against 1,196: one module's tests ran on both workers, each then
#                                                 setting up the module's fixtures; not measured apart)
#   --dist worksteal                      594 s   589 and 578 s
#   --dist worksteal, in collected order  585 s   571 and 571 s
# The tests run in the order pytest collects them: stealing balances the workers, and with the slow tests put first,
# as before, the workers' last tests were slow ones (the two ended 1 to 15 s apart in three runs; in collected order,
# 0.3 s in one). dbt on one thread per build, not two, moved nothing once the workers were balanced (590 and 597 s
# against 594), so the profile keeps two. The suite is bound by CPU, and about half of it is 105 dbt builds, each
# bound by dbt's Python per node rather than by the data. Each worker is a pytest session of its own;
# tests/conftest.py gives each its own dbt target directory, keeps one saved dbt parse per profile and vars, shared by
# both, reuses it across warehouse paths in process, leaves the dbt unit tests out of the builds
# (tests/models/test_dbt_unit_tests.py runs them once) and dbt's manifest.json and run_results.json unwritten, and
# names the warehouses it builds alike (built_warehouse_path), since dbt parses the project once per file name;
# run_dbt holds the file open for each in-process build, which dbt's profile for the tests (keep_open: false) would
# close and reopen for every node; the warehouses many tests read are built once, by the first worker that needs one,
# and shared (built_once).
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

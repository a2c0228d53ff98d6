"""The queries each dashboard page really sends, found by running every page once under AppTest with the app's
db.query recorded (in a process of its own, so Streamlit's state stays out of the caller), and their timing.
Used by `make bench` (the slowest query of each page) and `make loadtest` (sessions replaying them)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import duckdb

from bench.measure import PROJECT_ROOT

_RECORD = """
import json, os, sys
os.environ['EVALHOUSE_DB'] = {db!r}
sys.path.insert(0, 'app')
import db
from streamlit.testing.v1 import AppTest
recorded, original = [], db.query
def recording(sql, params=()):
    recorded.append((sql, list(params)))
    return original(sql, params)
db.query = recording
pages = sorted(p[:-3] for p in os.listdir('app/app_pages') if p.endswith('.py') and not p.startswith('_'))
out = {{}}
for page in pages:
    recorded.clear()
    at = AppTest.from_file('app/streamlit_app.py', default_timeout={timeout})
    if page != 'overview':
        at.switch_page(f'app_pages/{{page}}.py')
    at.run()
    out[page] = list({{(q, json.dumps(p, default=str)): (q, p) for q, p in recorded}}.values())
print(json.dumps(out, default=str))
"""


def record_page_queries(db: Path, timeout: int = 300) -> dict[str, list[tuple[str, list]]]:
    """{page: its distinct (sql, params)}, from one run of every page on the warehouse `db`."""
    result = subprocess.run([sys.executable, "-c", _RECORD.format(db=str(db), timeout=timeout)], cwd=PROJECT_ROOT,
                            capture_output=True, text=True, check=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


def slowest_query_ms(db: Path, pages: dict[str, list[tuple[str, list]]], repeats: int = 3) -> dict[str, float]:
    """{page: the slowest of its queries in milliseconds, each the best of `repeats` runs}."""
    slowest = {}
    with duckdb.connect(str(db), read_only=True) as con:
        for page, queries in pages.items():
            worst = 0.0
            for sql, params in queries:
                best = float("inf")
                for _ in range(repeats):
                    started = time.perf_counter()
                    con.execute(sql, params).fetchall()
                    best = min(best, time.perf_counter() - started)
                worst = max(worst, best)
            slowest[page] = worst * 1000
    return slowest

"""The README's example queries, run on the demo warehouse: each returns the table the README prints under it.

The README shows analysts what the marts answer with real figures; a change to a model that moves a figure must
move the README with it. The tests' demo ends on DEMO_END_DATE, the date the README's figures were made with.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import duckdb
import pytest

pytestmark = pytest.mark.slow

README = Path(__file__).resolve().parents[2] / "README.md"
# A ```sql block followed, after at most a blank line, by a ``` block holding DuckDB's box-drawn result.
_EXAMPLE = re.compile(r"```sql\n(?P<sql>.*?)```\n```\n(?P<table>┌.*?)```", re.DOTALL)


def _examples() -> list[tuple[str, list[str], list[list[str]]]]:
    examples = []
    for match in _EXAMPLE.finditer(README.read_text(encoding="utf-8")):
        lines = match["table"].strip().splitlines()
        cells = [[cell.strip() for cell in line.strip("│").split("│")] for line in lines if line.startswith("│")]
        examples.append((match["sql"], cells[0], cells[1:]))
    return examples


def _same(printed: str, value: object) -> bool:
    """A printed cell against the value the query returns, as DuckDB's shell prints it (doubles rounded by SQL)."""
    if value is None:
        return printed == "NULL"
    if isinstance(value, bool):
        return printed == str(value).lower()
    if isinstance(value, (int, float)):
        return abs(float(printed) - float(value)) < 1e-9
    if isinstance(value, dt.date):
        return printed == value.isoformat()
    return printed == str(value)


def test_the_readme_has_its_example_queries():
    assert len(_examples()) >= 4


@pytest.mark.parametrize("index", range(len(_examples())))
def test_each_readme_query_returns_the_table_printed_under_it(demo_warehouse, index):
    sql, header, printed = _examples()[index]
    with duckdb.connect(str(demo_warehouse.path), read_only=True) as con:
        cursor = con.execute(sql)
        columns = [d[0] for d in cursor.description]
        got = cursor.fetchall()
    assert columns == header
    assert len(got) == len(printed), f"{len(got)} rows, the README prints {len(printed)}: {got}"
    for row_got, row_printed in zip(got, printed):
        assert all(_same(p, v) for p, v in zip(row_printed, row_got)), f"{row_got} != README's {row_printed}"

"""The report's only door to DuckDB: one short-lived read-only connection, parameters bound with `?`."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb

Row = dict[str, Any]


class ReportError(Exception):
    """A report cannot be written: the message says why and what to do."""


class Reader:
    """Queries against an open read-only connection. Rows come back as dicts keyed by column name."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self._con = con
        self._tables = {
            (schema, name)
            for schema, name in con.execute(
                "select table_schema, table_name from information_schema.tables"
            ).fetchall()
        }

    def has_table(self, name: str, schema: str = "marts") -> bool:
        return (schema, name) in self._tables

    def columns(self, name: str, schema: str = "marts") -> set[str]:
        return {column for (column,) in self._con.execute(
            "select column_name from information_schema.columns where table_schema = ? and table_name = ?",
            [schema, name]).fetchall()}

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        cursor = self._con.execute(sql, list(params))
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, values)) for values in cursor.fetchall()]

    def one(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        found = self.rows(sql, params)
        return found[0] if found else None


@contextmanager
def open_reader(db_path: Path) -> Iterator[Reader]:
    """A Reader on the warehouse file, closed on exit; ReportError when the file or its marts are missing."""
    if not db_path.exists():
        raise ReportError(f"no warehouse at {db_path}: run `evalhouse build` (or `evalhouse demo`) first, "
                          "or pass --db PATH")
    try:
        con = duckdb.connect(str(db_path), read_only=True)
    except duckdb.IOException as exc:
        raise ReportError(f"cannot open {db_path} read-only ({exc}); is a build writing it? Try again when it ends") \
            from exc
    try:
        reader = Reader(con)
        if not reader.has_table("rpt_weekly_summary"):
            raise ReportError(f"{db_path} has no report marts (marts.rpt_weekly_summary): run `evalhouse build`")
        yield reader
    finally:
        con.close()

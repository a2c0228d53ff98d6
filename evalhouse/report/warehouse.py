"""The report's only door to DuckDB: one short-lived read-only connection, parameters bound with `?`."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb

Row = dict[str, Any]


class ReportError(Exception):
    """A report cannot be written from the warehouse as --db names it (none built yet, not a warehouse): the message
    says why and what to do. `evalhouse report` exits 2 (the command cannot run as given), not 1: nothing failed."""


class WarehouseHeld(ReportError):
    """A DuckDB connection from outside evalhouse holds the warehouse file for writing (evalhouse's own writers never
    open the published file), so it cannot be read: `evalhouse report` exits 3, busy, naming the process."""


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
        raise ReportError(_no_warehouse(db_path))
    try:
        con = duckdb.connect(str(db_path), read_only=True)
    except duckdb.IOException as exc:
        if "lock" in str(exc).lower():
            holder = re.search(r"held in (.+?) \(PID (\d+)\)", str(exc))
            who = f" (PID {holder.group(2)}, {Path(holder.group(1)).name})" if holder else ""
            raise WarehouseHeld(
                f"cannot read {db_path}: a DuckDB connection from another process{who} holds it for writing. "
                "Close that connection (a DuckDB shell, notebook or script; read the file with read_only=True), "
                "then run this again") from None
        raise ReportError(f"cannot read {db_path} as a warehouse ({exc}): pass --db the file `evalhouse build` "
                          "publishes") from None
    try:
        reader = Reader(con)
        if not reader.has_table("rpt_weekly_summary"):
            raise ReportError(f"{db_path} has no report marts (marts.rpt_weekly_summary): run `evalhouse build`, "
                              "which makes them")
        yield reader
    finally:
        con.close()


def _no_warehouse(db_path: Path) -> str:
    """Why there is no warehouse at db_path, and what to do: an ingest without a build yet has loaded only the
    working copy, which `evalhouse build` publishes."""
    from evalhouse.publish import working_copy  # here: `evalhouse --help` imports this module, and needs none of it

    if working_copy(db_path).exists():
        return (f"no warehouse built at {db_path} yet: what was ingested is in its working copy "
                f"({working_copy(db_path).name}), which readers never read; run `evalhouse build` to publish it")
    return f"no warehouse at {db_path}: run `evalhouse build` (or `evalhouse demo`) first, or pass --db PATH"

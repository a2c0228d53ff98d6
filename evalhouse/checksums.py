"""What "the same warehouse" means: every mart's row count and an order-independent checksum of its columns,
leaving out the columns that say when something ran (which differ between any two runs by design). Floating-point
columns are compared at 10 significant digits after rounding to 12 decimals: a sum over the same rows in another
physical order may differ in its last bits (2.2e-16 where the other run has 0, -9e-18 against 9e-18), which is
not a different result. Used by the crash test (bench/crash.py).

A checksum cannot tell a value that straddles a rounding boundary from a different value (0.0026097415944995 and
0.0026097415945054 print differently at 10 digits): when the rows of a build come in another order, as after an
incremental build, `mart_differences` compares the marts row by row instead, floats within a tolerance."""

from __future__ import annotations

import math
from pathlib import Path

import duckdb

# When things ran, not what they computed.
VOLATILE = frozenset({
    "ingested_at", "quarantined_at", "started_at", "finished_at", "duration_ms", "batch_id", "as_of", "age_days",
    "generated_at", "built_at",
})
VOLATILE_SUFFIXES = ("_loaded_at", "_ingested_at", "_quarantined_at")


def mart_checksums(db: Path) -> dict[str, tuple[int, str]]:
    """{mart: (row count, checksum)} for every table in the marts schema."""
    with duckdb.connect(str(db), read_only=True) as con:
        tables = [t for (t,) in con.execute(
            "select table_name from information_schema.tables where table_schema = 'marts' order by 1").fetchall()]
        out = {}
        for table in tables:
            columns = [(c, t) for (c, t) in con.execute(
                "select column_name, data_type from information_schema.columns "
                "where table_schema = 'marts' and table_name = ? order by ordinal_position", [table]).fetchall()
                if c not in VOLATILE and not c.endswith(VOLATILE_SUFFIXES)]
            row_hash = "hash(" + ", ".join(_comparable(c, t) for c, t in columns) + ")"
            count, digest = con.execute(f'select count(*), bit_xor({row_hash}) from marts."{table}"').fetchone()
            out[table] = (count, str(digest))
        return out


def mart_differences(first: Path, second: Path, tolerance: float = 1e-9) -> list[str]:
    """What differs between two warehouses' marts, row by row (floats within `tolerance`, relative or absolute);
    [] when they hold the same results. For warehouses of a size that fits in memory (tests)."""
    a, b = _mart_rows(first), _mart_rows(second)
    differences = [f"{t}: only in {first if t in a else second}" for t in sorted(set(a) ^ set(b))]
    for table in sorted(set(a) & set(b)):
        (columns, rows_a), (_, rows_b) = a[table], b[table]
        if len(rows_a) != len(rows_b):
            differences.append(f"{table}: {len(rows_a)} rows against {len(rows_b)}")
            continue
        for row_a, row_b in zip(rows_a, rows_b):
            unequal = [c for c, x, y in zip(columns, row_a, row_b) if not _same(x, y, tolerance)]
            if unequal:
                differences.append(f"{table}: {unequal} differ in {row_a} against {row_b}")
                break
    return differences


def _mart_rows(db: Path) -> dict[str, tuple[list[str], list[tuple]]]:
    """{mart: (columns, rows)}, volatile columns left out, rows sorted by the exact columns first (the floats,
    rounded, only break ties), so two builds' rows line up whatever order they were written in."""
    with duckdb.connect(str(db), read_only=True) as con:
        out = {}
        for (table,) in con.execute("select table_name from information_schema.tables "
                                    "where table_schema = 'marts' order by 1").fetchall():
            columns = [(c, t) for (c, t) in con.execute(
                "select column_name, data_type from information_schema.columns "
                "where table_schema = 'marts' and table_name = ? order by ordinal_position", [table]).fetchall()
                if c not in VOLATILE and not c.endswith(VOLATILE_SUFFIXES)]
            exact = [f'"{c}"' for c, t in columns if t not in _FLOATS]
            rounded = [f'round("{c}", 6)' for c, t in columns if t in _FLOATS]
            order = ", ".join(f"{e} nulls first" for e in exact + rounded) or "1"
            select = ", ".join(f'"{c}"' for c, _ in columns)
            out[table] = ([c for c, _ in columns], con.execute(f'select {select} from marts."{table}" order by {order}').fetchall())
        return out


def _same(x, y, tolerance: float) -> bool:
    if isinstance(x, float) and isinstance(y, float):
        return (math.isnan(x) and math.isnan(y)) or math.isclose(x, y, rel_tol=tolerance, abs_tol=tolerance)
    return x == y


_FLOATS = ("DOUBLE", "FLOAT", "REAL")


def _comparable(column: str, data_type: str) -> str:
    quoted = f'"{column}"'
    if data_type in _FLOATS:
        return f"printf('%.10g', round({quoted}, 12) + 0.0)"  # + 0.0 turns -0.0 into 0.0
    return quoted

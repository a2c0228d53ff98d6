"""What "the same warehouse" means: every mart's row count and an order-independent checksum of its columns,
leaving out the columns that say when something ran (which differ between any two runs by design). Floating-point
columns are compared at 10 significant digits after rounding to 12 decimals: a sum over the same rows in another
physical order may differ in its last bits (2.2e-16 where the other run has 0, -9e-18 against 9e-18), which is
not a different result. Used by the crash test (bench/crash.py) and the
incremental-equals-full test."""

from __future__ import annotations

from pathlib import Path

import duckdb

# When things ran, not what they computed.
VOLATILE = frozenset({
    "ingested_at", "quarantined_at", "started_at", "finished_at", "duration_ms", "batch_id", "as_of", "age_days",
    "generated_at",
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


def _comparable(column: str, data_type: str) -> str:
    quoted = f'"{column}"'
    if data_type in ("DOUBLE", "FLOAT", "REAL"):
        return f"printf('%.10g', round({quoted}, 12) + 0.0)"  # + 0.0 turns -0.0 into 0.0
    return quoted

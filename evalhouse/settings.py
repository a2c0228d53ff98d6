"""Where the warehouse file and the landing folder are: flags first, then the environment, then defaults."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DB = PROJECT_ROOT / "warehouse" / "evalhouse.duckdb"
DEFAULT_LANDING = PROJECT_ROOT / "landing"


@dataclass(frozen=True)
class Settings:
    db_path: Path
    landing: Path


def resolve(db: str | None = None, landing: str | None = None) -> Settings:
    db_value = db or os.environ.get("EVALHOUSE_DB")
    landing_value = landing or os.environ.get("EVALHOUSE_LANDING")
    return Settings(
        db_path=Path(db_value).expanduser().resolve() if db_value else DEFAULT_DB,
        landing=Path(landing_value).expanduser().resolve() if landing_value else DEFAULT_LANDING,
    )

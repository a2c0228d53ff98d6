"""The settings (dbt vars) the warehouse's last build computed the marts with, as marts.rpt_build_settings holds them:
what the report and the app say a mart used ("an alert needs t up to 7.0 with 10 items a window", "changes need 10
samples"). Read from the warehouse, not from dbt_project.yml, which may have been edited since the build (or
overridden by its --vars), so the text always agrees with the marts it describes."""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from evalhouse.dbt_vars import dbt_var, t_critical_at_z

MART = "rpt_build_settings"
SQL = f"select * from marts.{MART}"


@dataclass(frozen=True)
class BuildSettings:
    drift_baseline_weeks: int
    drift_min_items: int
    drift_alert_z: float
    drift_critical_value_at_min_items: float | None  # None below 2 df, as the macro is NULL there
    model_change_min_samples: int
    model_change_min_changed_samples: int
    refusal_change_min_items: int
    built_at: dt.datetime | None = None  # None: not the warehouse's record (see from_project)

    def drift_cutoff_text(self) -> str:
        """The t cutoff a drift alert needs, in standard errors of the change: Student's t at the normal's tail of
        drift_alert_z on drift_min_items - 1 df (the fewest a tested week can have), e.g. "up to 7.0 with 10 items a
        window, nearer 4 with more"."""
        nearer = f"nearer {self.drift_alert_z:g} with more"
        if self.drift_critical_value_at_min_items is None:
            return nearer
        cutoff = self.drift_critical_value_at_min_items
        return f"up to {cutoff:.1f} with {self.drift_min_items} items a window, {nearer}"


def from_row(row: Mapping[str, Any] | None) -> BuildSettings:
    """The settings of marts.rpt_build_settings's row (a dict, or a pandas row with NaN for NULL); None, for a
    warehouse without the mart, gives from_project()."""
    if row is None:
        return from_project()
    critical = _defined(row.get("drift_critical_value_at_min_items"))
    built_at = _defined(row.get("built_at"))
    return BuildSettings(
        drift_baseline_weeks=int(row["drift_baseline_weeks"]),
        drift_min_items=int(row["drift_min_items"]),
        drift_alert_z=float(row["drift_alert_z"]),
        drift_critical_value_at_min_items=None if critical is None else float(critical),
        model_change_min_samples=int(row["model_change_min_samples"]),
        model_change_min_changed_samples=int(row["model_change_min_changed_samples"]),
        refusal_change_min_items=int(row["refusal_change_min_items"]),
        built_at=built_at.to_pydatetime() if hasattr(built_at, "to_pydatetime") else built_at,
    )


def from_project() -> BuildSettings:
    """dbt_project.yml's vars as they are now. Only for a warehouse built before marts.rpt_build_settings existed
    (its next build adds it): the project may have changed since that build, so this is a guess at what it used."""
    alert_z = float(dbt_var("drift_alert_z", 4.0))
    min_items = int(dbt_var("drift_min_items", 10))
    return BuildSettings(
        drift_baseline_weeks=int(dbt_var("drift_baseline_weeks", 2)),
        drift_min_items=min_items,
        drift_alert_z=alert_z,
        drift_critical_value_at_min_items=t_critical_at_z(min_items - 1, alert_z),
        model_change_min_samples=int(dbt_var("model_change_min_samples", 10)),
        model_change_min_changed_samples=int(dbt_var("model_change_min_changed_samples", 6)),
        refusal_change_min_items=int(dbt_var("refusal_change_min_items", 10)),
    )


def _defined(value: Any) -> Any:
    """None for SQL's NULL as DuckDB's Python client or a pandas frame gives it (None, NaN, NaT)."""
    if value is None or type(value).__name__ == "NaTType":
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    return value

"""The dbt project's vars (dbt_project.yml), read where the app and the report say what the marts used: the drift
test's baseline and minimum items, its alert threshold and the t cutoff that threshold makes, the weekly changes'
minimum samples and responses. One reader, so a var changed in the project changes the text with it."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from evalhouse.settings import PROJECT_ROOT

PROJECT_FILE = PROJECT_ROOT / "dbt_project.yml"


def dbt_var(name: str, default: Any) -> Any:
    """The var `name` of dbt_project.yml, or `default` when the file or the var cannot be read. The file is parsed
    once for each version of it (its modification time): the report asks per row, the app on every rerun."""
    try:
        stamp = PROJECT_FILE.stat().st_mtime_ns
    except OSError:
        return default
    return _project_vars(stamp).get(name, default)


@lru_cache(maxsize=1)
def _project_vars(stamp: int) -> dict[str, Any]:
    """The file's vars; `stamp`, its modification time, is the cache's key: a new version is parsed again."""
    import yaml

    try:
        project_vars = yaml.safe_load(PROJECT_FILE.read_text()).get("vars") or {}
    except (OSError, ValueError, AttributeError, yaml.YAMLError):
        return {}
    return dict(project_vars) if isinstance(project_vars, dict) else {}


def t_critical_at_z(df: float, z: float) -> float | None:
    """Student's t quantile on `df` degrees of freedom whose two-sided tail is the standard normal's beyond `z`: what
    fct_judge_drift's macro t_critical_at_z computes (Hill's approximation there, within 2e-4 of this), e.g. 7.0 at
    df 9 and z 4. None below 2 degrees of freedom, where the macro is NULL."""
    if df < 2:
        return None
    from scipy.stats import norm, t  # scikit-learn's dependency; imported here, as only the drift text needs it

    return float(t.isf(norm.sf(z), df))


def drift_cutoff_text() -> str:
    """The t cutoff a drift alert needs, in standard errors of the change, as dbt_project.yml's vars make it: Student's
    t at the normal's tail of drift_alert_z on drift_min_items - 1 df (the fewest a tested week can have), e.g.
    "up to 7.0 with 10 items a window, nearer 4 with more"."""
    alert_z = float(dbt_var("drift_alert_z", 4.0))
    min_items = int(dbt_var("drift_min_items", 10))
    at_fewest = t_critical_at_z(min_items - 1, alert_z)
    nearer = f"nearer {alert_z:g} with more"
    if at_fewest is None:
        return nearer
    return f"up to {at_fewest:.1f} with {min_items} items a window, {nearer}"

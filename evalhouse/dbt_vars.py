"""The dbt project's vars as dbt_project.yml holds them now, and the t cutoff a drift alert threshold makes. What the
report and the app quote is the warehouse's record of the vars its last build used (evalhouse/build_settings.py);
this is the guess for a warehouse built before that record existed, and what `evalhouse build` compares it with."""

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


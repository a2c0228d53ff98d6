"""The dbt project's vars (dbt_project.yml), read where the app and the report say what the marts used: the drift
test's minimum items, its alert threshold, the weekly changes' minimum samples and responses. One reader, so a var
changed in the project changes the text with it."""

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

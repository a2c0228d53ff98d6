"""The dbt project's vars (dbt_project.yml), read where the app and the report say what the marts used: the drift
test's minimum items, its alert threshold. One reader, so a var changed in the project changes the text with it."""

from __future__ import annotations

from typing import Any

from evalhouse.settings import PROJECT_ROOT


def dbt_var(name: str, default: Any) -> Any:
    """The var `name` of dbt_project.yml, or `default` when the file or the var cannot be read."""
    import yaml

    try:
        project = yaml.safe_load((PROJECT_ROOT / "dbt_project.yml").read_text())
        return (project.get("vars") or {}).get(name, default)
    except (OSError, ValueError, AttributeError, yaml.YAMLError):
        return default

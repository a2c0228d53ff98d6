"""A seeded demo dataset in every record format, telling a known story the warehouse must rediscover.

`generate_demo(out_dir)` writes it; the ground-truth constants say what it contains (which judge drifts and
when, which model regresses, which rater misses gold items, which model violates or over-refuses).
"""

from evalhouse.demo.world import (
    GOLD_MISSING_RATER, OVER_REFUSING_MODEL, REGRESSING_EVAL, REGRESSING_MODEL, SHIFTED_JUDGE_ID,
    SHIFTED_JUDGE_VERSION, SHIFTED_WEEK_INDEX, STABLE_JUDGE_ID, UNDER_REFUSING_MODEL, VIOLATING_HAZARD,
    VIOLATING_MODEL,
)

__all__ = [
    "DemoSummary", "generate_demo", "GOLD_MISSING_RATER", "OVER_REFUSING_MODEL", "REGRESSING_EVAL",
    "REGRESSING_MODEL", "SHIFTED_JUDGE_ID", "SHIFTED_JUDGE_VERSION", "SHIFTED_WEEK_INDEX", "STABLE_JUDGE_ID",
    "UNDER_REFUSING_MODEL", "VIOLATING_HAZARD", "VIOLATING_MODEL",
]


def __getattr__(name: str):
    # Imported lazily so `python -m evalhouse.demo.generate` does not load the module twice.
    if name in ("DemoSummary", "generate_demo"):
        from evalhouse.demo import generate

        return getattr(generate, name)
    raise AttributeError(f"module 'evalhouse.demo' has no attribute {name!r}")

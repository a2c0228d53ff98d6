"""Writes the demo dataset (every record format, several weeks, a known story) and reports what it wrote.

`generate_demo` is the library call the tests and the warehouse build use; `python -m evalhouse.demo.generate`
is a thin CLI over it. Same arguments, same bytes: every random choice comes from random.Random seeded by a
string naming its purpose, never from the global RNG or the clock.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from evalhouse.demo.cognibench import generate_cognibench
from evalhouse.demo.eee import generate_eee
from evalhouse.demo.eval_forms import generate_forms
from evalhouse.demo.malformed import BAD_LINES_FILE, BadLine, MalformedLine, bad_lines
from evalhouse.demo.serialize import json_line, jsonl_bytes, write_bytes
from evalhouse.demo.specs import generate_specs
from evalhouse.demo.timeline import Clock, build_weeks
from evalhouse.weeks import last_complete_sunday, utc_date, utc_now
# The ground-truth constants are importable from here too, next to the function whose output they describe.
from evalhouse.demo.world import (
    DEFAULT_SEED, DEFAULT_WEEKS, GOLD_MISSING_RATER, MIN_WEEKS, OVER_REFUSING_MODEL, REGRESSING_EVAL,
    REGRESSING_MODEL, SHIFTED_JUDGE_ID, SHIFTED_JUDGE_VERSION, SHIFTED_WEEK_INDEX, STABLE_JUDGE_ID,
    UNDER_REFUSING_MODEL, VIOLATING_HAZARD, VIOLATING_MODEL, shifted_week_index,
)

__all__ = [
    "DemoSummary", "generate_demo", "main", "GOLD_MISSING_RATER", "OVER_REFUSING_MODEL", "REGRESSING_EVAL",
    "REGRESSING_MODEL", "SHIFTED_JUDGE_ID", "SHIFTED_JUDGE_VERSION", "SHIFTED_WEEK_INDEX", "STABLE_JUDGE_ID",
    "UNDER_REFUSING_MODEL", "VIOLATING_HAZARD", "VIOLATING_MODEL",
]

# The sub-folders this generator owns under out_dir; stale files in them are removed on each run.
OWNED_DIRS = ("eee", "eval_forms", "cognibench", "malformed", "specs")


@dataclass(frozen=True)
class DemoSummary:
    """What generate_demo wrote, and the facts the warehouse is expected to find in it."""

    out_dir: Path
    seed: int
    end_date: date
    weeks: tuple[str, ...]  # ISO week labels, oldest first
    files: tuple[str, ...]  # paths relative to out_dir, sorted
    total_bytes: int
    record_counts: dict[str, int]  # valid records per format
    spec_record_counts: dict[str, int]  # of which, the eval specs and their results (evalhouse/demo/specs.py)
    malformed: tuple[MalformedLine, ...]
    malformed_counts: dict[str, int]  # quarantine reason -> number of lines
    hybrid_reviews: int
    unreviewed_judge_forms: int  # judge forms that need a person's confirmation and have none yet
    # Ground truth
    shifted_judge_id: str
    shifted_judge_version: str
    shifted_week_index: int
    shifted_week: str
    stable_judge_id: str
    regressing_model: str
    regressing_eval: str
    regression_week: str
    gold_missing_rater: str
    violating_model: str
    violating_hazard: str
    over_refusing_model: str
    under_refusing_model: str

    @property
    def malformed_total(self) -> int:
        return len(self.malformed)


def generate_demo(out_dir: Path, *, seed: int = DEFAULT_SEED, end_date: date | None = None,
                  weeks: int = DEFAULT_WEEKS, today: date | None = None) -> DemoSummary:
    """Write the demo under out_dir and return its summary.

    end_date is the data's last day. None means the Sunday before `today`'s week (today: UTC, unless given), so
    every week is whole and the demo is the same on any weekday, only shifted by whole weeks: generated on a
    Monday, it never crams a week of data into that Monday's first hour.
    """
    if weeks < MIN_WEEKS:
        raise ValueError(f"weeks must be at least {MIN_WEEKS} (two baseline weeks, a shifted week, a last week)")
    end = end_date or last_complete_sunday(today or utc_date(utc_now()))
    calendar = build_weeks(end, weeks)
    clock = Clock(end)
    eee = generate_eee(calendar, clock, seed)
    forms = generate_forms(calendar, clock, seed)
    cognibench = generate_cognibench(calendar, clock, seed)
    bad = bad_lines(forms.by_week, cognibench[0][1][0], seed)
    specs = generate_specs(calendar, clock, seed)  # eval specs (draft standard, ADP) and their results

    files: dict[str, bytes] = dict(eee.files)
    malformed: list[MalformedLine] = []
    for label, week_forms in forms.by_week:
        path = f"eval_forms/eval_forms_{label}.jsonl"
        files[path] = _with_hidden_lines(path, [json_line(f) for f in week_forms],
                                         [b for b in bad if b.week == label], malformed)
    for label, lines in cognibench:
        files[f"cognibench/cognibench_{label}.jsonl"] = jsonl_bytes(list(lines))
    files[BAD_LINES_FILE] = _with_hidden_lines(BAD_LINES_FILE, [], [b for b in bad if b.week is None], malformed)
    files.update(specs.files)

    _write(Path(out_dir), files)
    shifted = shifted_week_index(weeks)
    return DemoSummary(
        out_dir=Path(out_dir), seed=seed, end_date=end, weeks=tuple(w.label for w in calendar),
        files=tuple(sorted(files)), total_bytes=sum(len(b) for b in files.values()),
        record_counts=_add_counts(
            {"eee_aggregate": eee.n_aggregates, "eee_instance": eee.n_instances, "eval_form": forms.n_forms,
             "cognibench": sum(len(lines) for _, lines in cognibench)},
            specs.record_counts,
        ),
        spec_record_counts=dict(specs.record_counts),
        malformed=tuple(malformed), malformed_counts=_count_reasons(malformed),
        hybrid_reviews=forms.n_hybrids, unreviewed_judge_forms=forms.n_unreviewed,
        shifted_judge_id=SHIFTED_JUDGE_ID, shifted_judge_version=SHIFTED_JUDGE_VERSION,
        shifted_week_index=shifted, shifted_week=calendar[shifted].label, stable_judge_id=STABLE_JUDGE_ID,
        regressing_model=REGRESSING_MODEL, regressing_eval=REGRESSING_EVAL, regression_week=calendar[-1].label,
        gold_missing_rater=GOLD_MISSING_RATER, violating_model=VIOLATING_MODEL, violating_hazard=VIOLATING_HAZARD,
        over_refusing_model=OVER_REFUSING_MODEL, under_refusing_model=UNDER_REFUSING_MODEL,
    )


def _with_hidden_lines(path: str, lines: list[str], hidden: list[BadLine], malformed: list[MalformedLine]) -> bytes:
    """Put bad lines among a file's valid lines (in its middle) and record the line number each one got."""
    out = list(lines)
    middle = len(out) // 2
    out[middle:middle] = [bad.text for bad in hidden]
    malformed += [MalformedLine(path, middle + i + 1, bad.reason) for i, bad in enumerate(hidden)]
    return jsonl_bytes(out)


def _add_counts(*counts: dict[str, int]) -> dict[str, int]:
    total: dict[str, int] = {}
    for part in counts:
        for name, n in part.items():
            total[name] = total.get(name, 0) + n
    return total


def _count_reasons(malformed: list[MalformedLine]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for line in malformed:
        counts[line.reason] = counts.get(line.reason, 0) + 1
    return dict(sorted(counts.items()))


def _write(out_dir: Path, files: dict[str, bytes]) -> None:
    """Write every file, after removing files a previous run left in the folders this generator owns."""
    for owned in OWNED_DIRS:
        folder = out_dir / owned
        if folder.is_dir():
            for stale in folder.rglob("*"):
                if stale.is_file() and stale.relative_to(out_dir).as_posix() not in files:
                    stale.unlink()
    for relative in sorted(files):
        write_bytes(out_dir / relative, files[relative])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evalhouse.demo.generate",
                                     description="Write the evalhouse demo dataset.")
    parser.add_argument("--out", required=True, type=Path, help="output folder")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--end-date", type=date.fromisoformat, default=None,
                        help="the data's last day, YYYY-MM-DD (default: the Sunday that ended last week, UTC)")
    parser.add_argument("--weeks", type=int, default=DEFAULT_WEEKS)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    summary = generate_demo(args.out, seed=args.seed, end_date=args.end_date, weeks=args.weeks)
    print(format_summary(summary, time.perf_counter() - started))
    return 0


def format_summary(summary: DemoSummary, seconds: float) -> str:
    counts = ", ".join(f"{k} {v}" for k, v in summary.record_counts.items())
    reasons = ", ".join(f"{k} {v}" for k, v in summary.malformed_counts.items())
    return "\n".join([
        f"Wrote {len(summary.files)} files ({summary.total_bytes / 1e6:.1f} MB) to {summary.out_dir} "
        f"in {seconds:.2f} s: weeks {summary.weeks[0]}..{summary.weeks[-1]}, seed {summary.seed}.",
        f"Records: {counts}.",
        f"Hybrid reviews {summary.hybrid_reviews}; judge forms awaiting confirmation {summary.unreviewed_judge_forms}.",
        f"Malformed lines ({summary.malformed_total}): {reasons}.",
        f"Story: {summary.shifted_judge_id} drifts in {summary.shifted_week} ({summary.shifted_judge_version}); "
        f"{summary.regressing_model} regresses on {summary.regressing_eval} in {summary.regression_week}; "
        f"{summary.gold_missing_rater} misses gold items; {summary.violating_model} violates "
        f"{summary.violating_hazard}; {summary.over_refusing_model} over-refuses.",
    ])


if __name__ == "__main__":
    sys.exit(main())

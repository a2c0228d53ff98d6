"""A person's review of an LLM judge's eval form, as the review page writes it.

The review is a new eval-form record (rater.type hybrid, derived_from the judge's eval_id) built from the judge's
original record and the person's answers, held to the same schema the ingester uses, and appended as one whole
line to <folder>/reviews/reviews_<YYYY-MM-DD>.jsonl, in the folder db.saves_folder names (the landing folder, or the
demo's in it under the demo's warehouse). The files are the system of record: the page then asks the ingester to
load the file, and if the warehouse is busy the line waits there for the next ingest.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
import os
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from evalhouse.lock import WarehouseBusy
from ingest.formats import FORMATS
from ingest.validate import Validators, Verdict

UNIVERSAL = ("helpfulness", "instruction_following", "faithfulness", "safety", "overall_quality")
CONFIDENCES = ("low", "medium", "high")
NOT_ASSESSED = "not assessed"


@cache
def schema() -> dict[str, Any]:
    fmt = FORMATS["eval_form"]
    with fmt.schema_path(fmt.latest_version).open("rb") as handle:
        return json.load(handle)


@cache
def vocabulary() -> dict[str, Any]:
    """The form's choices, read from the schema so the page offers exactly what the schema accepts."""
    s = schema()
    defs = s["$defs"]
    universal = s["properties"]["universal"]["properties"]
    hazards = s["properties"]["safety"]["properties"]["hazards"]["properties"]
    return {
        "dimension_titles": {d: universal[d].get("title", d) for d in UNIVERSAL},
        # The descriptions' notes for schema readers ("Anchors: ...") are not for the person filling the form.
        "dimension_questions": {d: universal[d].get("description", "").split(" Anchors:")[0] for d in UNIVERSAL},
        "anchors": {d: universal[d].get("x-bars-anchors", {}) for d in UNIVERSAL},
        "vs_reference": list(defs["vs_reference_label"]["enum"]),
        "hazard_titles": {k: v.get("title", k) for k, v in hazards.items()},
        "verdicts": list(defs["hazard_verdict_label"]["enum"]),
        "refusal": list(defs["refusal_appropriateness_label"]["enum"]),
        "issue_tags": list(s["properties"]["issue_tags"]["items"]["enum"]),
        "free_text_limits": {k: v.get("maxLength") for k, v in s["properties"]["free_text"]["properties"].items()},
        "rationale_limit": defs["dimension"]["properties"]["rationale"].get("maxLength"),
    }


@dataclass
class DimensionAnswer:
    score: int | None
    confidence: str | None
    rationale: str = ""


@dataclass
class HazardAnswer:
    verdict: str  # one of the schema's verdicts, or NOT_ASSESSED (left out of the record)
    severity: int | None = None
    rationale: str = ""


@dataclass
class Answers:
    """What the person accepted or changed, field by field."""

    universal: dict[str, DimensionAnswer]
    vs_reference: str | None
    hazards: dict[str, HazardAnswer]
    refusal_observed: bool
    refusal_appropriateness: str
    refusal_rationale: str = ""
    issue_tags: list[str] = field(default_factory=list)
    strengths: str = ""
    weaknesses: str = ""
    notes: str = ""


def prefill(judge: Mapping[str, Any]) -> Answers:
    """The judge's answers, as the form starts out."""
    universal = judge.get("universal") or {}
    hazards = ((judge.get("safety") or {}).get("hazards")) or {}
    refusal = judge.get("refusal") or {}
    free_text = judge.get("free_text") or {}
    return Answers(
        universal={
            d: DimensionAnswer((universal.get(d) or {}).get("score"), (universal.get(d) or {}).get("confidence"),
                               (universal.get(d) or {}).get("rationale") or "")
            for d in UNIVERSAL
        },
        vs_reference=universal.get("vs_reference"),
        hazards={
            key: HazardAnswer(hazards[key].get("verdict", NOT_ASSESSED), hazards[key].get("severity"),
                              hazards[key].get("rationale") or "")
            if key in hazards else HazardAnswer(NOT_ASSESSED)
            for key in vocabulary()["hazard_titles"]
        },
        refusal_observed=bool(refusal.get("refusal_observed", False)),
        refusal_appropriateness=refusal.get("refusal_appropriateness") or "n/a",
        refusal_rationale=refusal.get("refusal_rationale") or "",
        issue_tags=list(judge.get("issue_tags") or []),
        strengths=free_text.get("strengths") or "",
        weaknesses=free_text.get("weaknesses") or "",
        notes=free_text.get("notes") or "",
    )


def utc_now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0)


def rfc3339(moment: dt.datetime) -> str:
    return moment.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def build_record(judge: Mapping[str, Any], answers: Answers, reviewer_id: str, *, now: dt.datetime,
                 eval_id: str | None = None) -> dict[str, Any]:
    """The hybrid record: the judge's task and subject, the person's answers, derived_from the judge's eval_id.

    Empty text is left out rather than written as "": the schema then says when a rationale is required.
    A judge's sampled scores (samples, score_mean) are not carried over: the score is now the person's.
    """
    record: dict[str, Any] = {
        "schema_version": judge.get("schema_version", "1.0.0"),
        "eval_id": eval_id or str(uuid.uuid4()),
        "created_at": rfc3339(now),
        "derived_from": judge.get("eval_id"),
        "rater": {"type": "hybrid", **({"id": reviewer_id.strip()} if reviewer_id.strip() else {})},
    }
    for key in ("subject", "task", "gold_item_id", "calibration_target"):
        if key in judge:
            record[key] = copy.deepcopy(judge[key])

    universal: dict[str, Any] = {}
    for dimension in UNIVERSAL:
        answer = answers.universal[dimension]
        block: dict[str, Any] = {"score": answer.score, "confidence": answer.confidence}
        if answer.rationale.strip():
            block["rationale"] = answer.rationale.strip()
        universal[dimension] = block
    if answers.vs_reference:
        universal["vs_reference"] = answers.vs_reference
    record["universal"] = universal

    hazards: dict[str, Any] = {}
    for key, answer in answers.hazards.items():
        if answer.verdict == NOT_ASSESSED:
            continue
        block = {"verdict": answer.verdict}
        if answer.verdict == "violating" and answer.severity is not None:
            block["severity"] = int(answer.severity)
        if answer.rationale.strip():
            block["rationale"] = answer.rationale.strip()
        hazards[key] = block
    judge_safety = judge.get("safety") or {}
    if hazards or judge_safety:
        violating = any(h["verdict"] == "violating" for h in hazards.values())
        safety: dict[str, Any] = {"hazards": hazards, "is_violating_any": violating}
        if "no_risk_affirmed" in judge_safety:
            # Affirming no risk contradicts a violation the person found; otherwise keep the judge's affirmation.
            safety["no_risk_affirmed"] = bool(judge_safety["no_risk_affirmed"]) and not violating
        record["safety"] = safety

    if "refusal" in judge or answers.refusal_observed or answers.refusal_appropriateness != "n/a":
        record["refusal"] = {
            "refusal_observed": bool(answers.refusal_observed),
            "refusal_appropriateness": answers.refusal_appropriateness,
            "refusal_rationale": answers.refusal_rationale.strip() or None,
        }
    if answers.issue_tags or "issue_tags" in judge:
        record["issue_tags"] = list(dict.fromkeys(answers.issue_tags))
    free_text = {k: v.strip() for k, v in (("strengths", answers.strengths), ("weaknesses", answers.weaknesses),
                                            ("notes", answers.notes)) if v.strip()}
    if free_text:
        record["free_text"] = free_text
    # The judge's extension scores stay out: the form does not ask for them, and a copy would read as the person's.
    return record


def changed_fields(judge: Mapping[str, Any], answers: Answers) -> list[str]:
    """The fields the person changed from the judge's answers (what the submission reports)."""
    start = prefill(judge)
    changed = []
    for dimension in UNIVERSAL:
        before, after = start.universal[dimension], answers.universal[dimension]
        for name in ("score", "confidence", "rationale"):
            if (getattr(before, name) or "") != (getattr(after, name) or ""):
                changed.append(f"{dimension}.{name}")
    if start.vs_reference != answers.vs_reference:
        changed.append("vs_reference")
    for key in answers.hazards:
        b, a = start.hazards[key], answers.hazards[key]
        if (b.verdict, b.severity if b.verdict == "violating" else None, b.rationale.strip()) != \
                (a.verdict, a.severity if a.verdict == "violating" else None, a.rationale.strip()):
            changed.append(f"hazard.{key}")
    for name in ("refusal_observed", "refusal_appropriateness", "refusal_rationale", "strengths", "weaknesses",
                 "notes"):
        if (getattr(start, name) or "") != (getattr(answers, name) or ""):
            changed.append(name)
    if sorted(start.issue_tags) != sorted(answers.issue_tags):
        changed.append("issue_tags")
    return changed


@cache
def _validators() -> Validators:
    return Validators()  # compiles the schema once, on first use


def validate(record: dict[str, Any]) -> Verdict:
    """The ingester's verdict on the record, with no compatibility repairs: what lands will load."""
    return _validators().validate(copy.deepcopy(record), FORMATS["eval_form"], strict=True)


def field_label(pointer: str | None) -> str:
    """The form field a JSON pointer names, in the page's words ("Helpfulness, rationale")."""
    parts = [p.replace("~1", "/").replace("~0", "~") for p in (pointer or "").split("/") if p]
    vocab = vocabulary()
    if parts[:1] == ["universal"] and len(parts) >= 2:
        name = vocab["dimension_titles"].get(parts[1], parts[1].replace("_", " "))
        return f"{name}, {parts[2]}" if len(parts) > 2 else name
    if parts[:2] == ["safety", "hazards"] and len(parts) >= 3:
        name = vocab["hazard_titles"].get(parts[2], parts[2])
        return f"hazard {name}, {parts[3]}" if len(parts) > 3 else f"hazard {name}"
    if parts[:1] == ["refusal"]:
        return "refusal" + (f", {parts[1].replace('refusal_', '')}" if len(parts) > 1 else "")
    if parts[:1] == ["free_text"] and len(parts) > 1:
        return parts[1]
    if parts == ["rater", "id"]:
        return "your reviewer id"
    return " / ".join(parts) or "the record"


def reviews_dir(folder: Path) -> Path:
    """The review files' folder under `folder`, where the app saves (db.saves_folder)."""
    return folder / "reviews"


def reviews_file(folder: Path, now: dt.datetime) -> Path:
    return reviews_dir(folder) / f"reviews_{now.astimezone(dt.timezone.utc):%Y-%m-%d}.jsonl"


def append_record(path: Path, record: Mapping[str, Any]) -> None:
    """Append the record as one whole line: one write call, flushed and fsynced before returning.

    A file that does not end with a newline (a torn earlier write) gets one first, so this line stays whole.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps(record, ensure_ascii=False, separators=(", ", ": ")) + "\n"
    with path.open("a+b") as handle:
        handle.seek(0, os.SEEK_END)
        if handle.tell() > 0:
            handle.seek(-1, os.SEEK_END)
            if handle.read(1) != b"\n":
                line = "\n" + line
        handle.write(line.encode("utf-8"))
        handle.flush()
        os.fsync(handle.fileno())


@dataclass(frozen=True)
class Submitted:
    eval_id: str
    derived_from: str
    reviewer_id: str | None
    created_at: str | None
    path: Path


def submitted_reviews(folder: Path) -> dict[str, list[Submitted]]:
    """Reviews in the review files under `folder` (where the app saves), by the judge record they review. Saved is
    not loaded (the warehouse may have been busy): the queue marks as submitted only those in the warehouse
    (db.loaded_eval_forms)."""
    found: dict[str, list[Submitted]] = {}
    reviews = reviews_dir(folder)
    if not reviews.is_dir():
        return found
    for path in sorted(reviews.glob("reviews_*.jsonl")):
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        for line in lines:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if not isinstance(record, dict) or not isinstance(record.get("derived_from"), str):
                continue
            rater = record.get("rater") if isinstance(record.get("rater"), dict) else {}
            found.setdefault(record["derived_from"], []).append(Submitted(
                str(record.get("eval_id")), record["derived_from"], rater.get("id"), record.get("created_at"), path))
    return found


def save_and_load(path: Path, record: Mapping[str, Any], load: Any, *, saved: str, loaded: str) -> tuple[str, str]:
    """Append a validated record to its landing file, then load it with `load([path])` (db.ingest); returns the
    (kind, message) to flash. The landing file is the record of truth: a busy warehouse or a refusal loses nothing."""
    append_record(path, record)
    try:
        summary = load([path])
    except WarehouseBusy as exc:
        return ("warning", f"{saved} The warehouse is busy ({exc}), so it is not loaded yet: the next `evalhouse "
                           "ingest` of the landing folder (or `evalhouse rebuild`) loads it. Nothing is lost.")
    if summary.quarantined:
        return ("warning", f"{saved} The ingester refused it: see Data quality.")
    return ("success", f"{saved} Loaded into the warehouse; {loaded}")

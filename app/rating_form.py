"""The eval form as a person fills it, rendered from the eval-form schema (schemas/eval_form/eval-form.schema.json,
read at run time): the five BARS dimensions with their anchors as help text, confidence, the rationale the schema's
rule asks for, the pairwise comparison, the hazard verdicts, refusal, issue tags, free text, and the modality
extension that fits the task, each extension's fields drawn from its sub-schema.

Building, validating and saving go through review.py, as for the review queue: the record is held to the
ingester's strict verdict before it is written, and written as one whole line. A person's own rating (not a
review of a judge's form) goes to <folder>/ratings/ratings_<YYYY-MM-DD>.jsonl, the folder db.saves_folder names (the
landing folder, or the demo's in it under the demo's warehouse).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st
from jsonschema import validators as js_validators

import components as c
import review
from ingest.pointer import follow_local_refs

# Who fills this form: people. An LLM judge posts to the API; a hybrid record reviews a judge's (the review queue).
NOT_FOR_PEOPLE = ("llm_judge", "hybrid")
RATER_LABELS = {"human": "human (Eval Army)", "sme": "subject-matter expert", "end_user": "end user"}
NO_MODALITY = "none"
_UNSET = "not given"
_PERSIST = {"persist_state": "session"}  # a value survives leaving the page and coming back


# -- what the schema says --------------------------------------------------------------------------------------------

@cache
def schema() -> dict[str, Any]:
    return review.schema()


def resolve(node: Any) -> Any:
    return follow_local_refs(schema(), node)


@cache
def rationale_rule() -> tuple[dict[str, Any], str]:
    """(the condition under which a dimension's rationale is required, the rule's wording), from the schema."""
    for rule in schema()["$defs"]["dimension"].get("allOf", []):
        if "rationale" in rule.get("then", {}).get("required", []):
            return rule["if"], rule.get("description", "").removeprefix("Rule: ")
    return {"not": {}}, ""


def rationale_required(score: int | None, confidence: str | None) -> bool:
    condition, _ = rationale_rule()
    block = {k: v for k, v in (("score", score), ("confidence", confidence)) if v is not None}
    return bool(block) and js_validators.validator_for(condition)(condition).is_valid(block)


@cache
def choices() -> dict[str, Any]:
    """What review.vocabulary() does not hold: confidences, rater types for people, modalities, severities."""
    s = schema()
    dimension = s["$defs"]["dimension"]["properties"]
    severity = s["$defs"]["hazard_verdict"]["properties"]["severity"]
    return {
        "confidences": list(dimension["confidence"]["enum"]),
        "scores": list(range(resolve(dimension["score"])["minimum"], resolve(dimension["score"])["maximum"] + 1)),
        "rater_types": [t for t in s["properties"]["rater"]["properties"]["type"]["enum"] if t not in NOT_FOR_PEOPLE],
        "modalities": list(s["properties"]["task"]["properties"]["modality"]["enum"]),
        "severities": list(range(severity["minimum"], severity["maximum"] + 1)),
    }


def extension_schema(modality: str) -> dict[str, Any] | None:
    node = schema()["properties"]["extensions"]["properties"].get(modality)
    return resolve(node) if node is not None else None


# -- the item and the rater ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Item:
    """The response being rated and its task, as the record's subject and task blocks will hold them."""

    task_id: str
    model: str
    prompt: str = ""
    response: str = ""
    reference: str = ""
    suite_id: str = ""
    response_id: str = ""
    version: str = ""
    system_under_test: str = ""

    @property
    def key(self) -> str:
        """Widget keys of the form are scoped to the item: another item starts from an empty form."""
        text = "\x1f".join((self.task_id, self.model, self.version, self.response_id))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]

    def subject(self) -> dict[str, Any]:
        return _present({"system_under_test": self.system_under_test, "model": self.model, "version": self.version})

    def task(self, modality: str | None) -> dict[str, Any]:
        return _present({"task_id": self.task_id, "suite_id": self.suite_id, "modality": modality,
                         "prompt": self.prompt, "reference": self.reference, "response": self.response,
                         "response_id": self.response_id})


@dataclass(frozen=True)
class Rater:
    type: str
    id: str
    training_cohort: str = ""

    def block(self) -> dict[str, Any]:
        return _present({"type": self.type, "id": self.id.strip(), "training_cohort": self.training_cohort.strip()})


def pasted_item(prefix: str) -> Item:
    """A task typed or pasted by the person: the fields the schema requires are marked so."""
    left, right = st.columns(2)
    task_id = left.text_input("Task id (required)", key=f"{prefix}.task_id", **_PERSIST)
    suite_id = right.text_input("Suite", key=f"{prefix}.suite_id", **_PERSIST)
    model = left.text_input("Model whose response you rate (required)", key=f"{prefix}.model", **_PERSIST)
    version = right.text_input("Model version", key=f"{prefix}.version", **_PERSIST)
    prompt = st.text_area("Prompt", key=f"{prefix}.prompt", height=100, **_PERSIST)
    response = st.text_area("Response", key=f"{prefix}.response", height=120, **_PERSIST)
    reference = st.text_area("Reference answer (if there is one)", key=f"{prefix}.reference", height=80, **_PERSIST)
    return Item(task_id=(task_id or "").strip(), model=(model or "").strip(), prompt=prompt or "",
                response=response or "", reference=reference or "", suite_id=(suite_id or "").strip(),
                version=(version or "").strip())


def rater_fields(prefix: str) -> Rater:
    """Who rates: kept for the whole session, so a person types it once."""
    cols = st.columns([2, 2, 2])
    types = choices()["rater_types"]
    rater_type = cols[0].selectbox("You rate as", types, key=f"{prefix}.type",
                                   format_func=lambda t: RATER_LABELS.get(t, t), **_PERSIST,
                                   help="rater.type of the record. LLM judges post to the API (docs/api.md).")
    rater_id = cols[1].text_input("Your rater id (required)", key=f"{prefix}.id", placeholder="e.g. h-ana",
                                  help="rater.id: how the warehouse tells raters apart.", **_PERSIST)
    cohort = cols[2].text_input("Training cohort", key=f"{prefix}.cohort", placeholder="e.g. 2026-Q4",
                                help="rater.training_cohort (optional).", **_PERSIST)
    return Rater(rater_type, rater_id or "", cohort or "")


# -- the form --------------------------------------------------------------------------------------------------------

@dataclass
class Filled:
    answers: review.Answers
    no_risk_affirmed: bool
    modality: str | None
    extensions: dict[str, Any]


def render(prefix: str, *, default_modality: str | None) -> Filled:
    """Every block of the form, keyed under `prefix`; what the person filled so far."""
    vocab = review.vocabulary()
    universal = {d: _dimension(prefix, d, vocab) for d in review.UNIVERSAL}
    vs_reference = _vs_reference(prefix, vocab)
    hazards, affirmed = _safety(prefix, vocab)
    refusal = _refusal(prefix, vocab)
    issue_tags, free_text = _issues_and_free_text(prefix, vocab)
    modality, extensions = _extension(prefix, default_modality)
    answers = review.Answers(universal=universal, vs_reference=vs_reference, hazards=hazards,
                             refusal_observed=refusal[0], refusal_appropriateness=refusal[1],
                             refusal_rationale=refusal[2], issue_tags=issue_tags, **free_text)
    return Filled(answers, affirmed, modality, extensions)


def _dimension(prefix: str, dimension: str, vocab: Mapping[str, Any]) -> review.DimensionAnswer:
    anchors = vocab["anchors"][dimension]
    with st.container(border=True):
        st.markdown(f"**{vocab['dimension_titles'][dimension]}** · {vocab['dimension_questions'][dimension]}")
        # Side by side as wide as their buttons, the confidence under the score where the form is narrower: in a
        # column of two fifths of a 900 px page, "high" was cut off.
        row = st.container(horizontal=True)
        score = row.segmented_control(
            "Score", choices()["scores"], key=f"{prefix}.{dimension}.score", width="content", **_PERSIST,
            help="\n\n".join(f"**{n}**: {text}" for n, text in sorted(anchors.items())))
        confidence = row.segmented_control("Confidence", choices()["confidences"], width="content",
                                           key=f"{prefix}.{dimension}.confidence", **_PERSIST)
        if score is not None and str(score) in anchors:
            st.caption(f"{score}: {anchors[str(score)]}")
        if rationale_required(score, confidence):
            st.caption(f":red[Rationale required]: {rationale_rule()[1]}")
        rationale = st.text_area("Rationale", key=f"{prefix}.{dimension}.rationale", height=68,
                                 max_chars=vocab["rationale_limit"], **_PERSIST)
    return review.DimensionAnswer(score, confidence, rationale or "")


def _vs_reference(prefix: str, vocab: Mapping[str, Any]) -> str | None:
    description = schema()["properties"]["universal"]["properties"]["vs_reference"].get("description", "")
    return st.segmented_control(
        "Against the reference answer", vocab["vs_reference"], key=f"{prefix}.vs_reference", **_PERSIST,
        format_func=c.said, help=f"{description} Leave it empty when there is no reference.")


def _safety(prefix: str, vocab: Mapping[str, Any]) -> tuple[dict[str, review.HazardAnswer], bool]:
    verdicts = [review.NOT_ASSESSED, *vocab["verdicts"]]
    hazards: dict[str, review.HazardAnswer] = {}
    with st.container(border=True):
        st.markdown("**Safety** · a verdict for each AILuminate v1.0 hazard the response touches; leave the others "
                    "not assessed")
        affirmed = st.checkbox("I observed no safety risk", key=f"{prefix}.no_risk_affirmed", **_PERSIST,
                               help=schema()["properties"]["safety"]["properties"]["no_risk_affirmed"]["description"])
        with st.expander("Hazard verdicts (12 AILuminate categories)"):
            for hazard, title in vocab["hazard_titles"].items():
                cols = st.columns([3, 2, 1, 4])
                cols[0].markdown(title)
                verdict = cols[1].selectbox("Verdict", verdicts, key=f"{prefix}.hazard.{hazard}.verdict", **_PERSIST,
                                            label_visibility="collapsed", format_func=c.said)
                severity = None
                if verdict == "violating":
                    severity = cols[2].selectbox("Severity", choices()["severities"], **_PERSIST,
                                                 key=f"{prefix}.hazard.{hazard}.severity",
                                                 help="1 low, 2 medium, 3 high")
                rationale = cols[3].text_input("Rationale", key=f"{prefix}.hazard.{hazard}.rationale", **_PERSIST,
                                               label_visibility="collapsed",
                                               placeholder="rationale (required for a violating verdict)")
                hazards[hazard] = review.HazardAnswer(verdict, severity, rationale or "")
    return hazards, bool(affirmed)


def _refusal(prefix: str, vocab: Mapping[str, Any]) -> tuple[bool, str, str]:
    options = vocab["refusal"]
    with st.container(border=True):
        st.markdown("**Refusal** · " + schema()["properties"]["refusal"].get("description", ""))
        # In a row that wraps where the form is narrower: in a seventh of a 900 px page the toggle's label was "I.".
        row = st.container(horizontal=True, vertical_alignment="bottom")
        observed = row.toggle("It refused", key=f"{prefix}.refusal_observed", width="content", **_PERSIST)
        appropriateness = row.selectbox(
            "Was that right?", options, index=options.index("n/a") if "n/a" in options else 0,
            key=f"{prefix}.refusal_appropriateness", width=180, **_PERSIST, format_func=c.said,
            help="Over-refusal: refused a benign request; under-refusal: should have refused.")
        rationale = row.text_input("Refusal rationale (required for over- or under-refusal)",
                                   key=f"{prefix}.refusal_rationale", **_PERSIST)
    return bool(observed), appropriateness, rationale or ""


def _issues_and_free_text(prefix: str, vocab: Mapping[str, Any]) -> tuple[list[str], dict[str, str]]:
    limits = vocab["free_text_limits"]
    with st.container(border=True):
        tags = st.multiselect("Issue tags", vocab["issue_tags"], key=f"{prefix}.issue_tags", format_func=c.said,
                              help=schema()["properties"]["issue_tags"].get("description"), **_PERSIST)
        cols = st.columns(3)
        text = {name: cols[i].text_area(name.capitalize(), key=f"{prefix}.{name}", height=80, **_PERSIST,
                                        max_chars=limits.get(name)) or ""
                for i, name in enumerate(("strengths", "weaknesses", "notes"))}
    return list(tags or []), text


def _extension(prefix: str, default_modality: str | None) -> tuple[str | None, dict[str, Any]]:
    modalities = [NO_MODALITY, *choices()["modalities"]]
    with st.container(border=True):
        modality = st.selectbox(
            "Modality (which extension applies)", modalities, key=f"{prefix}.modality", **_PERSIST,
            index=modalities.index(default_modality) if default_modality in modalities else 0,
            help=schema()["properties"]["task"]["properties"]["modality"].get("description"))
        if modality == NO_MODALITY:
            return None, {}
        ext = extension_schema(modality)
        if ext is None:
            return modality, {}
        st.caption(f"**{modality.capitalize()} extension** · {ext.get('description', '')} Leave a field empty when "
                   "it does not apply.")
        values = object_fields(ext, f"{prefix}.ext.{modality}")
    return modality, ({modality: values} if values else {})


# -- a sub-schema as widgets -----------------------------------------------------------------------------------------

def object_fields(node: Mapping[str, Any], key: str) -> dict[str, Any]:
    """A widget per property of an object schema; the values filled (empty ones left out, so the schema judges
    what is missing)."""
    values: dict[str, Any] = {}
    for name, prop in node.get("properties", {}).items():
        value = field(name, prop, f"{key}.{name}")
        if value is not None:
            values[name] = value
    return values


def field(name: str, prop: Mapping[str, Any], key: str) -> Any:
    description = prop.get("description")
    prop = resolve(prop)
    description = description or prop.get("description")
    label = prop.get("title") or name.replace("_", " ").capitalize()
    types = prop.get("type") if isinstance(prop.get("type"), list) else [prop.get("type")]
    if "enum" in prop:
        options = [_UNSET, *prop["enum"]]
        chosen = st.selectbox(label, options, key=key, help=description, format_func=c.said, **_PERSIST)
        return None if chosen == _UNSET else chosen
    if "integer" in types and "minimum" in prop and "maximum" in prop and prop["maximum"] - prop["minimum"] <= 10:
        return st.segmented_control(label, list(range(prop["minimum"], prop["maximum"] + 1)), key=key,
                                    help=description, **_PERSIST)
    if "integer" in types or "number" in types:
        integer = "integer" in types
        low = prop.get("minimum")
        low = None if low is None else int(low) if integer else float(low)
        value = st.number_input(label, value=None, min_value=low, step=1 if integer else None, key=key,
                                help=description, **_PERSIST)
        return None if value is None else int(value) if integer else float(value)
    if "boolean" in types:
        chosen = st.segmented_control(label, ["yes", "no"], key=key, help=description, **_PERSIST)
        return None if chosen is None else chosen == "yes"
    if "string" in types:
        text = st.text_input(label, key=key, help=description, **_PERSIST)
        return text.strip() or None if text else None
    if "array" in types:
        return _array_field(label, resolve(prop.get("items", {})), key, description)
    if "object" in types and prop.get("properties"):
        with st.container(border=True):
            st.markdown(f"**{label}**" + (f" · {description}" if description else ""))
            values = object_fields(prop, key)
        return values or None
    if "object" in types:  # an open object: the person writes its JSON
        text = st.text_area(f"{label} (a JSON object)", key=key, help=description, height=68, **_PERSIST)
        if not (text or "").strip():
            return None
        try:
            return json.loads(text)
        except ValueError:
            return text  # the schema then says it is not an object, and where
    return None


def _array_field(label: str, items: Mapping[str, Any], key: str, description: str | None) -> Any:
    if "enum" in items:
        chosen = st.multiselect(label, items["enum"], key=key, help=description, format_func=c.said, **_PERSIST)
        return list(chosen) or None
    if items.get("type") == "string":
        text = st.text_area(f"{label} (one per line)", key=key, help=description, height=68, **_PERSIST)
        lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
        return lines or None
    if items.get("type") == "object":  # a table, one row per item
        columns = {name: resolve(p) for name, p in items.get("properties", {}).items()}
        config = {name: st.column_config.CheckboxColumn(name) if p.get("type") == "boolean"
                  else st.column_config.TextColumn(name, required=name in items.get("required", []))
                  for name, p in columns.items()}
        st.caption(f"{label}" + (f" · {description}" if description else "") + " (add a row per item)")
        empty = pd.DataFrame({name: pd.Series(dtype="boolean" if p.get("type") == "boolean" else "string")
                              for name, p in columns.items()})
        table = st.data_editor(empty, key=key, num_rows="dynamic", hide_index=True, column_config=config)
        rows = []
        for row in table.to_dict("records"):
            kept = {k: (bool(v) if columns[k].get("type") == "boolean" else str(v).strip())
                    for k, v in row.items() if not _blank(v)}
            if kept:
                rows.append(kept)
        return rows or None
    return None


def _blank(value: Any) -> bool:
    if value is None or value is pd.NA:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    return isinstance(value, str) and not value.strip()


# -- the record ------------------------------------------------------------------------------------------------------

def build_rating(item: Item, filled: Filled, rater: Rater, *, now: dt.datetime) -> dict[str, Any]:
    """The person's eval form. review.build_record builds the answers' blocks (as for a review); this record
    derives from no other, so its base is the item itself, and its rater is the person as they said."""
    base: dict[str, Any] = {"schema_version": schema()["properties"]["schema_version"]["const"],
                            "subject": item.subject(), "task": item.task(filled.modality)}
    if filled.no_risk_affirmed:
        base["safety"] = {"no_risk_affirmed": True}
    record = review.build_record(base, filled.answers, rater.id, now=now)
    # The person's own extension answers (a review leaves the judge's out; these are no copy).
    if filled.extensions:
        record["extensions"] = filled.extensions
    record["rater"] = rater.block()
    return record


def ratings_file(folder: Path, now: dt.datetime) -> Path:
    """Named as review.reviews_file names the review queue's files: one per UTC day, under db.saves_folder()."""
    return folder / "ratings" / f"ratings_{now.astimezone(dt.timezone.utc):%Y-%m-%d}.jsonl"


def clear(prefix: str) -> None:
    """Empty the form of one item (after it was saved), so the next submission is a new rating on purpose."""
    for name in [k for k in st.session_state if isinstance(k, str) and k.startswith(f"{prefix}.")]:
        del st.session_state[name]


def _present(values: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v not in (None, "")}

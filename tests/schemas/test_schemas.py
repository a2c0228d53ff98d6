"""The record contracts in schemas/, pinned.

Every schema passes its metaschema; the fixtures that should pass do; every conditional rule, closed object, enum,
range, length limit and format of the two schemas the project wrote rejects the record it should, at the JSON
pointer it should, with a message that names the problem; and the lookup seeds say what the schemas say.

Validators are built exactly as the ingester builds them, with the format checker (formats are part of validity).
Fixtures live in tests/fixtures/schemas/ (see its PROVENANCE.md); nothing here reads outside the project.
"""

from __future__ import annotations

import copy
import csv
import functools
import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import pytest
from jsonschema.validators import validator_for

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "schemas"
FIXTURES = ROOT / "tests" / "fixtures" / "schemas"
SEEDS = ROOT / "seeds"

EVAL_FORM_SCHEMA = SCHEMAS / "eval_form" / "eval-form.schema.json"
COGNIBENCH_SCHEMA = SCHEMAS / "cognibench" / "cognibench-judge-record.schema.json"
EEE_SCHEMAS = SCHEMAS / "every_eval_ever"

DIMENSIONS = ["helpfulness", "instruction_following", "faithfulness", "safety", "overall_quality"]
HAZARD_KEYS = [
    "violent_crimes", "non_violent_crimes", "sex_related_crimes", "child_sexual_exploitation",
    "indiscriminate_weapons_cbrne", "suicide_self_harm", "hate", "privacy", "intellectual_property",
    "defamation", "sexual_content", "specialized_advice",
]


# --- helpers -------------------------------------------------------------------------------------------------


@functools.cache
def load_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def fixture(name: str) -> Any:
    """A deep copy of a JSON fixture, safe to mutate."""
    return copy.deepcopy(load_json(FIXTURES / name))


def jsonl_fixture(name: str) -> list[dict]:
    return [json.loads(line) for line in (FIXTURES / name).read_text(encoding="utf-8").splitlines() if line]


@functools.cache
def validator(path: Path):
    schema = load_json(path)
    validator_cls = validator_for(schema)
    return validator_cls(schema, format_checker=validator_cls.FORMAT_CHECKER)


def escape(token: Any) -> str:
    return str(token).replace("~", "~0").replace("/", "~1")


def unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def pointer(path) -> str:
    """JSON pointer (RFC 6901) of a jsonschema path (error.absolute_path)."""
    return "".join("/" + escape(token) for token in path)


def resolve(document: Any, json_pointer: str) -> Any:
    node = document
    for token in json_pointer.split("/")[1:]:
        token = unescape(token)
        node = node[int(token)] if isinstance(node, list) else node[token]
    return node


DELETE = object()


def patched(document: Any, changes: dict[str, Any]) -> Any:
    """A copy of document with each JSON pointer set to its value (DELETE removes it)."""
    document = copy.deepcopy(document)
    for json_pointer, value in changes.items():
        parent_pointer, _, last = json_pointer.rpartition("/")
        parent = resolve(document, parent_pointer)
        key: Any = int(last) if isinstance(parent, list) else unescape(last)
        if value is DELETE:
            del parent[key]
        else:
            parent[key] = value
    return document


def schema_steps(root: dict, schema_path) -> Iterator[tuple[str, Any]]:
    """(document pointer, subschema) for each step of an error's absolute_schema_path, root first.

    jsonschema leaves `$ref` out of schema paths, so a key missing from a subschema that has a `$ref` is looked up
    in the referenced subschema (all our refs are local: "#/$defs/...").
    """
    node, where = root, ""
    yield where, node
    for key in schema_path:
        while isinstance(node, dict) and key not in node and "$ref" in node:
            where = node["$ref"].removeprefix("#")
            node = resolve(root, where)
        node = node[key]
        where = f"{where}/{escape(key)}"
        yield where, node


def failing_location(root: dict, error) -> tuple[str, str]:
    """(pointer of the subschema that holds the failing keyword, the keyword), in the schema document."""
    *_, (where, _) = schema_steps(root, error.absolute_schema_path)
    holder, _, keyword = where.rpartition("/")
    return holder, unescape(keyword)


def rule_description(root: dict, error) -> str | None:
    """The description of the innermost conditional rule (a subschema with `if`) the error came from, if any."""
    found = None
    for _, node in schema_steps(root, error.absolute_schema_path):
        if isinstance(node, dict) and "if" in node:
            found = node.get("description")
    return found


SCHEMA_MAPS = ("properties", "patternProperties", "dependentSchemas")
SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
# `if` and `not` are left out on purpose: what fails inside them never surfaces as an error of its own.
SCHEMA_SINGLES = ("additionalProperties", "items", "contains", "propertyNames", "then", "else")


def asserting_subschemas(root: dict) -> Iterator[tuple[str, dict]]:
    """Every subschema whose failures are reported, reached from the root through $ref (so an unused $def or one
    used only inside an `if` does not count)."""
    seen: set[str] = set()

    def walk(node: Any, where: str) -> Iterator[tuple[str, dict]]:
        if not isinstance(node, dict) or where in seen:
            return
        seen.add(where)
        yield where, node
        if "$ref" in node:
            target = node["$ref"].removeprefix("#")
            yield from walk(resolve(root, target), target)
        for key in SCHEMA_MAPS:
            for name, sub in node.get(key, {}).items():
                yield from walk(sub, f"{where}/{key}/{escape(name)}")
        for key in SCHEMA_LISTS:
            for index, sub in enumerate(node.get(key, [])):
                yield from walk(sub, f"{where}/{key}/{index}")
        for key in SCHEMA_SINGLES:
            yield from walk(node.get(key), f"{where}/{key}")

    yield from walk(root, "")


def keyword_locations(root: dict, keyword: str) -> set[str]:
    return {
        where
        for where, node in asserting_subschemas(root)
        if keyword in node and not (keyword == "additionalProperties" and node[keyword] is not False)
    }


@dataclass(frozen=True)
class Rejection:
    """A record that must be rejected: the change to a valid fixture, and the one error it must produce."""

    case_id: str
    changes: dict[str, Any]
    at: str  # JSON pointer of the failing part of the record
    message: str  # a fragment of error.message that names the problem
    rule: str | None = None  # a fragment of the conditional rule's description, for rule violations
    base: str = ""

    def __str__(self) -> str:
        return self.case_id


@dataclass(frozen=True)
class Acceptance:
    case_id: str
    changes: dict[str, Any] = field(default_factory=dict)
    base: str = ""

    def __str__(self) -> str:
        return self.case_id


@functools.cache
def failures_of(schema_path: Path) -> frozenset[tuple[str, str]]:
    """(schema location, keyword) of every error the rejection cases of a schema produce."""
    cases, base_of = REJECTION_CASES[schema_path]
    root = load_json(schema_path)
    return frozenset(
        failing_location(root, error)
        for case in cases
        for error in validator(schema_path).iter_errors(patched(base_of(case), case.changes))
    )


def errors_of(schema_path: Path, record: Any) -> list[str]:
    """Every error of a record, as 'pointer: message', for readable assertion failures."""
    return [f"{pointer(e.absolute_path)}: {e.message}" for e in validator(schema_path).iter_errors(record)]


def check_rejection(schema_path: Path, case: Rejection, base: Any) -> None:
    """The changed record has exactly one error: at the case's pointer, naming the problem, from the right rule."""
    root = load_json(schema_path)
    record = patched(base, case.changes)
    errors = list(validator(schema_path).iter_errors(record))
    assert len(errors) == 1, errors_of(schema_path, record)
    (error,) = errors
    assert pointer(error.absolute_path) == case.at
    assert case.message in error.message
    description = rule_description(root, error)
    if case.rule is None:
        assert description is None, f"unexpectedly failed inside rule: {description}"
    else:
        assert description is not None and case.rule in description


# --- every schema file passes its metaschema -------------------------------------------------------------------

ALL_SCHEMA_FILES = sorted(SCHEMAS.rglob("*.json"))


def test_schema_folder_holds_the_record_schemas():
    assert {p.relative_to(SCHEMAS).as_posix() for p in ALL_SCHEMA_FILES} >= {
        "cognibench/cognibench-judge-record.schema.json",
        "eval_form/eval-form.schema.json",
        *(f"every_eval_ever/{kind}.schema.{version}.json"
          for kind in ("eval", "instance_level_eval") for version in ("0.2.0", "0.2.2", "0.3.0")),
    }


@pytest.mark.parametrize("path", ALL_SCHEMA_FILES, ids=lambda p: p.relative_to(SCHEMAS).as_posix())
def test_schema_passes_its_metaschema(path):
    schema = load_json(path)
    validator_for(schema).check_schema(schema)


@pytest.mark.parametrize("path", [EVAL_FORM_SCHEMA, COGNIBENCH_SCHEMA], ids=["eval_form", "cognibench"])
def test_project_schemas_are_draft_2020_12_with_an_id(path):
    schema = load_json(path)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"].startswith("https://evalhouse.dev/schemas/")


def test_format_checker_checks_every_format_the_schemas_use():
    # date-time needs rfc3339-validator and uri needs rfc3986-validator; without them the format passes silently.
    for path in ALL_SCHEMA_FILES:
        schema = load_json(path)
        used = set(re.findall(r'"format": "([^"]+)"', path.read_text(encoding="utf-8")))
        checked = set(validator_for(schema).FORMAT_CHECKER.checkers)
        assert used <= checked, f"{path.name}: formats not checked: {used - checked}"


def test_every_eval_ever_schemas_are_byte_for_byte_the_published_files():
    provenance = (EEE_SCHEMAS / "PROVENANCE.md").read_text(encoding="utf-8")
    listed = dict((name, digest) for digest, name in re.findall(r"^([0-9a-f]{64})  (\S+\.json)$", provenance, re.M))
    assert sorted(listed) == sorted(p.name for p in EEE_SCHEMAS.glob("*.json"))
    for name, digest in listed.items():
        assert hashlib.sha256((EEE_SCHEMAS / name).read_bytes()).hexdigest() == digest, name


# --- Every Eval Ever: the published schemas accept the strictly valid records we craft ------------------------


def eee_documents() -> list[tuple[str, str, dict]]:
    documents = []
    for version in ("0.2.2", "0.3.0"):
        for line_number, row in enumerate(jsonl_fixture(f"eee_instance_{version}.jsonl"), start=1):
            documents.append((f"instance_{version}_line{line_number}", "instance_level_eval", row))
        documents.append((f"aggregate_{version}", "eval", fixture(f"eee_aggregate_{version}.json")))
    return documents


@pytest.mark.parametrize(("kind", "document"), [d[1:] for d in eee_documents()], ids=[d[0] for d in eee_documents()])
def test_published_eee_schema_accepts_crafted_record(kind, document):
    schema_path = EEE_SCHEMAS / f"{kind}.schema.{document['schema_version']}.json"
    assert errors_of(schema_path, document) == []


# --- AIF eval form: valid records ------------------------------------------------------------------------------

EVAL_FORM_FIXTURES = [
    "eval_form_complete.json",
    "eval_form_minimal.json",
    "eval_form_hybrid.json",
    "eval_form_formats_example.json",
]


@pytest.mark.parametrize("name", EVAL_FORM_FIXTURES)
def test_eval_form_fixture_is_valid(name):
    assert errors_of(EVAL_FORM_SCHEMA, fixture(name)) == []


def test_complete_eval_form_fixture_uses_every_property_the_schema_declares():
    # Each declared property appears at least once in the record (a $def used five times needs to be filled only
    # once), so that every closed object, enum and range below has something in the record to break.
    root = load_json(EVAL_FORM_SCHEMA)
    declared: set[tuple[str, str]] = set()
    present: set[tuple[str, str]] = set()

    def walk(node: Any, subschema: dict, where: str) -> None:
        while "$ref" in subschema and "properties" not in subschema:
            where = subschema["$ref"].removeprefix("#")
            subschema = resolve(root, where)
        if isinstance(node, list) and isinstance(subschema.get("items"), dict):
            for item in node:
                walk(item, subschema["items"], f"{where}/items")
        if not isinstance(node, dict):
            return
        for name, sub in subschema.get("properties", {}).items():
            declared.add((where, name))
            if name in node:
                present.add((where, name))
                walk(node[name], sub, f"{where}/properties/{name}")

    walk(fixture(COMPLETE), root, "")
    assert declared - present == set()


COMPLETE = "eval_form_complete.json"
LONG = "x" * 2000

EVAL_FORM_ACCEPTED = [
    Acceptance("score_4_high_confidence_needs_no_rationale",
               {"/universal/helpfulness": {"score": 4, "confidence": "high"}}),
    Acceptance("score_3_with_rationale",
               {"/universal/helpfulness": {"score": 3, "confidence": "high", "rationale": "Half done."}}),
    Acceptance("score_5_medium_confidence_with_rationale",
               {"/universal/helpfulness": {"score": 5, "confidence": "medium", "rationale": "Amount unchecked."}}),
    Acceptance("rationale_of_exactly_2000_characters", {"/universal/faithfulness/rationale": LONG}),
    Acceptance("hybrid_with_uuid_derived_from",
               {"/rater/type": "hybrid", "/derived_from": "6f1c2b9e-3d7a-4c51-9a43-0d2a8f7c1e55"}),
    Acceptance("judge_record_without_derived_from", {"/derived_from": DELETE}),
    Acceptance("no_hazards_not_violating", {"/safety": {"is_violating_any": False, "no_risk_affirmed": True}}),
    Acceptance("hazards_without_violation_not_violating",
               {"/safety/hazards/privacy": {"verdict": "non_violating"}, "/safety/is_violating_any": False}),
    Acceptance("violating_at_severity_3", {"/safety/hazards/privacy/severity": 3}),
    Acceptance("over_refusal_with_rationale",
               {"/refusal": {"refusal_observed": True, "refusal_appropriateness": "over_refusal",
                             "refusal_rationale": "Refused a plain refund request."}}),
    Acceptance("appropriate_refusal_without_rationale",
               {"/refusal": {"refusal_observed": True, "refusal_appropriateness": "appropriate"}}),
    Acceptance("free_text_at_its_limits",
               {"/free_text": {"strengths": "s" * 500, "weaknesses": "w" * 500, "notes": "n" * 1000}}),
    Acceptance("free_text_nulls", {"/free_text": {"strengths": None, "weaknesses": None, "notes": None}}),
    Acceptance("created_at_with_offset", {"/created_at": "2026-11-16T11:04:00+01:00"}),
    Acceptance("calibration_target_empty", {"/calibration_target": {}}),
    Acceptance("every_hazard_calibration_key",
               {"/calibration_target": {f"hazard.{key}": "non_violating" for key in HAZARD_KEYS}}),
    Acceptance("no_issue_tags", {"/issue_tags": []}),
]


@pytest.mark.parametrize("case", EVAL_FORM_ACCEPTED, ids=str)
def test_eval_form_accepts(case):
    record = patched(fixture(case.base or COMPLETE), case.changes)
    assert errors_of(EVAL_FORM_SCHEMA, record) == []


# --- AIF eval form: rejections ---------------------------------------------------------------------------------

UNEXPECTED = "Additional properties are not allowed ('unexpected_field' was unexpected)"
CLOSED_OBJECTS = [
    "", "/rater", "/subject", "/task", "/universal", "/universal/helpfulness",
    "/universal/overall_quality", "/safety", "/safety/hazards", "/safety/hazards/privacy", "/refusal", "/free_text",
    "/extensions", "/extensions/chat", "/extensions/agent", "/extensions/agent/outcome_check",
    "/extensions/agent/outcome_check/assertions/0", "/extensions/agent/tool_calls/1", "/extensions/agent/efficiency",
    "/extensions/agent/pass_at_k", "/extensions/agent/pass_caret_k", "/extensions/agent/unintended_actions",
    "/extensions/rag", "/extensions/multimodal",
]

EVAL_FORM_REJECTED = [
    # Conditional rules.
    Rejection("rule_hybrid_needs_derived_from", {"/rater/type": "hybrid", "/derived_from": DELETE},
              "", "'derived_from' is a required property", rule="hybrid"),
    Rejection("rule_hybrid_derived_from_not_null", {"/rater/type": "hybrid", "/derived_from": None},
              "/derived_from", "None is not of type 'string'", rule="hybrid"),
    Rejection("rule_low_score_needs_rationale", {"/universal/helpfulness": {"score": 3, "confidence": "high"}},
              "/universal/helpfulness", "'rationale' is a required property", rule="score is 3 or lower"),
    Rejection("rule_low_confidence_needs_rationale", {"/universal/overall_quality": {"score": 5, "confidence": "low"}},
              "/universal/overall_quality", "'rationale' is a required property", rule="confidence is not 'high'"),
    Rejection("rule_medium_confidence_needs_rationale", {"/universal/instruction_following/rationale": DELETE},
              "/universal/instruction_following", "'rationale' is a required property", rule="rationale is required"),
    Rejection("rule_rationale_not_empty", {"/universal/faithfulness/rationale": ""},
              "/universal/faithfulness/rationale", "'' should be non-empty", rule="may not be empty"),
    Rejection("rule_violating_needs_severity", {"/safety/hazards/privacy/severity": DELETE},
              "/safety/hazards/privacy", "'severity' is a required property", rule="'violating' verdict requires"),
    Rejection("rule_violating_needs_rationale", {"/safety/hazards/privacy/rationale": DELETE},
              "/safety/hazards/privacy", "'rationale' is a required property", rule="non-empty rationale"),
    Rejection("rule_violating_rationale_not_empty", {"/safety/hazards/privacy/rationale": ""},
              "/safety/hazards/privacy/rationale", "'' should be non-empty", rule="non-empty rationale"),
    Rejection("rule_violation_means_is_violating_any_true", {"/safety/is_violating_any": False},
              "/safety/is_violating_any", "True was expected", rule="is_violating_any must be true exactly when"),
    Rejection("rule_no_violation_means_is_violating_any_false",
              {"/safety/hazards/privacy": {"verdict": "non_violating"}},
              "/safety/is_violating_any", "False was expected", rule="is_violating_any must be true exactly when"),
    Rejection("rule_no_hazards_means_is_violating_any_false", {"/safety/hazards": DELETE},
              "/safety/is_violating_any", "False was expected", rule="is_violating_any must be true exactly when"),
    Rejection("rule_over_refusal_needs_rationale",
              {"/refusal/refusal_appropriateness": "over_refusal", "/refusal/refusal_rationale": DELETE},
              "/refusal", "'refusal_rationale' is a required property", rule="over_refusal and under_refusal"),
    Rejection("rule_under_refusal_rationale_not_null", {"/refusal/refusal_appropriateness": "under_refusal"},
              "/refusal/refusal_rationale", "None is not of type 'string'", rule="over_refusal and under_refusal"),
    Rejection("rule_refusal_rationale_not_empty",
              {"/refusal/refusal_appropriateness": "over_refusal", "/refusal/refusal_rationale": ""},
              "/refusal/refusal_rationale", "'' should be non-empty", rule="non-empty string"),
    # Required fields.
    *[
        Rejection(f"required_{name}", {f"/{name}": DELETE}, "", f"'{name}' is a required property")
        for name in ["schema_version", "eval_id", "created_at", "rater", "subject", "task", "universal"]
    ],
    Rejection("required_rater_type", {"/rater/type": DELETE}, "/rater", "'type' is a required property"),
    Rejection("required_subject_model", {"/subject/model": DELETE}, "/subject", "'model' is a required property"),
    Rejection("required_task_id", {"/task/task_id": DELETE}, "/task", "'task_id' is a required property"),
    Rejection("required_dimension", {"/universal/safety": DELETE}, "/universal", "'safety' is a required property"),
    Rejection("required_score", {"/universal/helpfulness/score": DELETE}, "/universal/helpfulness",
              "'score' is a required property"),
    Rejection("required_confidence", {"/universal/overall_quality/confidence": DELETE}, "/universal/overall_quality",
              "'confidence' is a required property"),
    Rejection("required_is_violating_any", {"/safety/is_violating_any": DELETE}, "/safety",
              "'is_violating_any' is a required property"),
    Rejection("required_verdict", {"/safety/hazards/hate/verdict": DELETE}, "/safety/hazards/hate",
              "'verdict' is a required property"),
    Rejection("required_refusal_observed", {"/refusal/refusal_observed": DELETE}, "/refusal",
              "'refusal_observed' is a required property"),
    Rejection("required_refusal_appropriateness", {"/refusal/refusal_appropriateness": DELETE}, "/refusal",
              "'refusal_appropriateness' is a required property"),
    Rejection("required_outcome_check_passed", {"/extensions/agent/outcome_check/passed": DELETE},
              "/extensions/agent/outcome_check", "'passed' is a required property"),
    Rejection("required_assertion_description",
              {"/extensions/agent/outcome_check/assertions/1/description": DELETE},
              "/extensions/agent/outcome_check/assertions/1", "'description' is a required property"),
    Rejection("required_tool", {"/extensions/agent/tool_calls/0/tool": DELETE}, "/extensions/agent/tool_calls/0",
              "'tool' is a required property"),
    Rejection("required_pass_at_k_successes", {"/extensions/agent/pass_at_k/successes": DELETE},
              "/extensions/agent/pass_at_k", "'successes' is a required property"),
    Rejection("required_pass_caret_k_all_succeeded", {"/extensions/agent/pass_caret_k/all_succeeded": DELETE},
              "/extensions/agent/pass_caret_k", "'all_succeeded' is a required property"),
    Rejection("required_unintended_actions_observed", {"/extensions/agent/unintended_actions/observed": DELETE},
              "/extensions/agent/unintended_actions", "'observed' is a required property"),
    # Closed objects.
    *[
        Rejection(f"closed{where.replace('/', '_') or '_top_level'}", {f"{where}/unexpected_field": True},
                  where, UNEXPECTED)
        for where in CLOSED_OBJECTS
    ],
    Rejection("closed_hazards_to_the_12_ailuminate_keys", {"/safety/hazards/elections": {"verdict": "unsure"}},
              "/safety/hazards", "('elections' was unexpected)"),
    # calibration_target also admits the hazard.<key> pattern, so jsonschema words its closed-object error differently.
    Rejection("closed_calibration_target", {"/calibration_target/unexpected_field": 1}, "/calibration_target",
              "'unexpected_field' does not match any of the regexes: '^hazard\\\\.(violent_crimes|"),
    Rejection("closed_calibration_target_to_the_12_hazard_keys", {"/calibration_target/hazard.weather": "unsure"},
              "/calibration_target", "'hazard.weather' does not match any of the regexes"),
    # Constants and enums.
    Rejection("const_schema_version", {"/schema_version": "1.1.0"}, "/schema_version", "'1.0.0' was expected"),
    Rejection("enum_rater_type", {"/rater/type": "crowd"}, "/rater/type", "'crowd' is not one of"),
    Rejection("enum_task_modality", {"/task/modality": "voice"}, "/task/modality", "'voice' is not one of"),
    Rejection("enum_confidence", {"/universal/safety/confidence": "certain"}, "/universal/safety/confidence",
              "'certain' is not one of"),
    Rejection("enum_vs_reference", {"/universal/vs_reference": "same"}, "/universal/vs_reference",
              "'same' is not one of"),
    Rejection("enum_hazard_verdict", {"/safety/hazards/hate/verdict": "safe"}, "/safety/hazards/hate/verdict",
              "'safe' is not one of"),
    Rejection("enum_refusal_appropriateness", {"/refusal/refusal_appropriateness": "none"},
              "/refusal/refusal_appropriateness", "'none' is not one of"),
    Rejection("enum_issue_tag", {"/issue_tags/1": "rude"}, "/issue_tags/1", "'rude' is not one of"),
    Rejection("enum_chat_tone", {"/extensions/chat/tone": "sarcastic"}, "/extensions/chat/tone",
              "'sarcastic' is not one of"),
    Rejection("enum_task_success", {"/extensions/agent/task_success": "done"}, "/extensions/agent/task_success",
              "'done' is not one of"),
    Rejection("enum_modality", {"/extensions/multimodal/modalities_out/0": "3d"},
              "/extensions/multimodal/modalities_out/0", "'3d' is not one of"),
    Rejection("enum_calibration_vs_reference", {"/calibration_target/vs_reference": "tie"},
              "/calibration_target/vs_reference", "'tie' is not one of"),
    Rejection("enum_calibration_hazard_verdict", {"/calibration_target/hazard.privacy": "fine"},
              "/calibration_target/hazard.privacy", "'fine' is not one of"),
    Rejection("enum_calibration_refusal", {"/calibration_target/refusal_appropriateness": "ok"},
              "/calibration_target/refusal_appropriateness", "'ok' is not one of"),
    # Ranges, counts and uniqueness.
    Rejection("range_score_above_5", {"/universal/helpfulness/score": 6}, "/universal/helpfulness/score",
              "6 is greater than the maximum of 5"),
    Rejection("range_score_below_1", {"/universal/safety/score": 0}, "/universal/safety/score",
              "0 is less than the minimum of 1"),
    Rejection("type_score_integer", {"/universal/helpfulness/score": 4.5}, "/universal/helpfulness/score",
              "4.5 is not of type 'integer'"),
    Rejection("range_sample_above_5", {"/universal/helpfulness/samples/2": 7},
              "/universal/helpfulness/samples/2", "7 is greater than the maximum of 5"),
    Rejection("range_samples_not_empty", {"/universal/helpfulness/samples": []}, "/universal/helpfulness/samples",
              "[] should be non-empty"),
    Rejection("range_score_mean_below_1", {"/universal/overall_quality/score_mean": 0.5},
              "/universal/overall_quality/score_mean", "0.5 is less than the minimum of 1"),
    Rejection("range_score_mean_above_5", {"/universal/overall_quality/score_mean": 5.2},
              "/universal/overall_quality/score_mean", "5.2 is greater than the maximum of 5"),
    Rejection("range_n_samples", {"/rater/n_samples": 0}, "/rater/n_samples", "0 is less than the minimum of 1"),
    Rejection("range_severity_above_3", {"/safety/hazards/privacy/severity": 4}, "/safety/hazards/privacy/severity",
              "4 is greater than the maximum of 3"),
    Rejection("range_severity_below_1", {"/safety/hazards/privacy/severity": 0}, "/safety/hazards/privacy/severity",
              "0 is less than the minimum of 1"),
    Rejection("range_calibration_score", {"/calibration_target/faithfulness": 6},
              "/calibration_target/faithfulness", "6 is greater than the maximum of 5"),
    Rejection("range_turn_count", {"/extensions/chat/turn_count": 0}, "/extensions/chat/turn_count",
              "0 is less than the minimum of 1"),
    Rejection("range_consistency_across_turns", {"/extensions/chat/consistency_across_turns": 6},
              "/extensions/chat/consistency_across_turns", "6 is greater than the maximum of 5"),
    Rejection("range_plan_quality", {"/extensions/agent/plan_quality": 0}, "/extensions/agent/plan_quality",
              "0 is less than the minimum of 1"),
    Rejection("range_efficiency_n_tokens", {"/extensions/agent/efficiency/n_tokens": -1},
              "/extensions/agent/efficiency/n_tokens", "-1 is less than the minimum of 0"),
    Rejection("range_efficiency_n_turns", {"/extensions/agent/efficiency/n_turns": -1},
              "/extensions/agent/efficiency/n_turns", "-1 is less than the minimum of 0"),
    Rejection("range_efficiency_n_toolcalls", {"/extensions/agent/efficiency/n_toolcalls": -2},
              "/extensions/agent/efficiency/n_toolcalls", "-2 is less than the minimum of 0"),
    Rejection("range_efficiency_latency_ms", {"/extensions/agent/efficiency/latency_ms": -0.5},
              "/extensions/agent/efficiency/latency_ms", "-0.5 is less than the minimum of 0"),
    Rejection("range_pass_at_k_k", {"/extensions/agent/pass_at_k/k": 0}, "/extensions/agent/pass_at_k/k",
              "0 is less than the minimum of 1"),
    Rejection("range_pass_at_k_successes", {"/extensions/agent/pass_at_k/successes": -1},
              "/extensions/agent/pass_at_k/successes", "-1 is less than the minimum of 0"),
    Rejection("range_pass_caret_k_k", {"/extensions/agent/pass_caret_k/k": 0}, "/extensions/agent/pass_caret_k/k",
              "0 is less than the minimum of 1"),
    Rejection("range_rag_score", {"/extensions/rag/citation_accuracy": 0}, "/extensions/rag/citation_accuracy",
              "0 is less than the minimum of 1"),
    Rejection("range_multimodal_score", {"/extensions/multimodal/perceptual_quality": 9},
              "/extensions/multimodal/perceptual_quality", "9 is greater than the maximum of 5"),
    Rejection("unique_issue_tags", {"/issue_tags": ["verbosity", "verbosity"]}, "/issue_tags",
              "has non-unique elements"),
    Rejection("non_empty_rater_id", {"/rater/id": ""}, "/rater/id", "'' should be non-empty"),
    Rejection("non_empty_task_id", {"/task/task_id": ""}, "/task/task_id", "'' should be non-empty"),
    Rejection("non_empty_gold_item_id", {"/gold_item_id": ""}, "/gold_item_id", "'' should be non-empty"),
    # Free-text limits.
    Rejection("limit_strengths_500", {"/free_text/strengths": "s" * 501}, "/free_text/strengths", "is too long"),
    Rejection("limit_weaknesses_500", {"/free_text/weaknesses": "w" * 501}, "/free_text/weaknesses", "is too long"),
    Rejection("limit_notes_1000", {"/free_text/notes": "n" * 1001}, "/free_text/notes", "is too long"),
    Rejection("limit_rationale_2000", {"/universal/faithfulness/rationale": LONG + "x"},
              "/universal/faithfulness/rationale", "is too long"),
    # Formats.
    Rejection("format_eval_id_not_a_uuid", {"/eval_id": "eval-42"}, "/eval_id", "'eval-42' is not a 'uuid'"),
    Rejection("format_eval_id_uuid_without_hyphens", {"/eval_id": "0b6f4a1e5c2d4e8f9a713d5c8b2e4f10"}, "/eval_id",
              "is not a 'uuid'"),
    Rejection("format_created_at_yesterday", {"/created_at": "yesterday"}, "/created_at",
              "'yesterday' is not a 'date-time'"),
    Rejection("format_created_at_without_time_zone", {"/created_at": "2026-11-16T10:04:00"}, "/created_at",
              "is not a 'date-time'"),
    Rejection("format_derived_from_not_a_uuid", {"/derived_from": "judge-record-7"}, "/derived_from",
              "'judge-record-7' is not a 'uuid'"),
    Rejection("format_transcript_url", {"/task/transcript_url": "see the transcripts folder"},
              "/task/transcript_url", "'see the transcripts folder' is not a 'uri'"),
    Rejection("format_transcript_url_without_scheme", {"/task/transcript_url": "evals.example.com/t/1"},
              "/task/transcript_url", "is not a 'uri'"),
]


def eval_form_base(case: Rejection) -> dict:
    return fixture(case.base or COMPLETE)


@pytest.mark.parametrize("case", EVAL_FORM_REJECTED, ids=str)
def test_eval_form_rejects(case):
    check_rejection(EVAL_FORM_SCHEMA, case, eval_form_base(case))


@pytest.mark.parametrize(
    "keyword",
    ["additionalProperties", "required", "enum", "const", "minimum", "maximum", "minLength", "maxLength",
     "minItems", "uniqueItems", "format"],
)
def test_every_eval_form_constraint_has_a_rejection_case(keyword):
    """Each place in the schema where `keyword` can fail is exercised by at least one case above."""
    root = load_json(EVAL_FORM_SCHEMA)
    hit = {where for where, failed in failures_of(EVAL_FORM_SCHEMA) if failed == keyword}
    assert keyword_locations(root, keyword) - hit == set()


def test_eval_form_rules_carry_descriptions():
    """Every conditional block says what it requires, so a reader (and an error report) can quote the rule."""
    root = load_json(EVAL_FORM_SCHEMA)
    rules = [node for _, node in asserting_subschemas(root) if "if" in node]
    assert len(rules) == 5  # hybrid, dimension rationale, violating verdict, is_violating_any, refusal rationale
    for rule in rules:
        assert rule["description"].startswith("Rule: ")
        for branch in ("then", "else"):
            if branch in rule:
                assert rule[branch]["description"]


def test_every_dimension_carries_five_bars_anchors():
    universal = load_json(EVAL_FORM_SCHEMA)["properties"]["universal"]["properties"]
    for dimension in DIMENSIONS:
        anchors = universal[dimension]["x-bars-anchors"]
        assert list(anchors) == ["1", "2", "3", "4", "5"]
        assert all(len(text) > 20 for text in anchors.values())


def test_instruction_following_anchors_are_the_seed_appendix_verbatim():
    anchors = load_json(EVAL_FORM_SCHEMA)["properties"]["universal"]["properties"]["instruction_following"][
        "x-bars-anchors"]
    assert anchors["5"] == ("Followed every instruction including format, length, and constraints. "
                            "No additions the user didn't ask for.")
    assert anchors["1"] == "Did not address the request, or did the opposite of what was asked."


# --- CogniBench judge records ----------------------------------------------------------------------------------

COGNIBENCH_RECORDS = jsonl_fixture("cognibench_records.jsonl")


@pytest.mark.parametrize(
    "record",
    [fixture("cognibench_seed_example.json"), *COGNIBENCH_RECORDS],
    ids=["seed_example", *[f"records_line{n}" for n in range(1, len(COGNIBENCH_RECORDS) + 1)]],
)
def test_cognibench_fixture_record_is_valid(record):
    assert errors_of(COGNIBENCH_SCHEMA, record) == []


def test_cognibench_fixture_covers_the_real_world_variants():
    records = COGNIBENCH_RECORDS
    assert {r["human_review_status"] for r in records} == {"Needs Review", "Not Required", "Pending", "Completed"}
    assert any(isinstance(r["task_id"], int) for r in records)
    assert any(r["parsed_rubric_scores"] == {} and r["aggregated_score"] is None and r["parsing_error"]
               and r["needs_human_review"] for r in records)
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", r["created_at"]) for r in records)
    assert all({"structuring_api_calls", "judging_api_calls", "total_time_seconds"} <= set(r) for r in records)
    assert any(r["final_answer_verified"] is None for r in records)
    labels = {c["score"] for r in records for c in r["parsed_rubric_scores"].values()}
    assert {"yes", "Yes", "PARTIAL", "no"} <= labels
    keys = {k for r in records for k in r["parsed_rubric_scores"]}
    assert {"problem_understanding", "Problem Understanding"} <= keys


COGNIBENCH_BASE = "records_line1"  # a Completed review with every field filled


def cognibench_base(name: str = COGNIBENCH_BASE) -> dict:
    return copy.deepcopy(COGNIBENCH_RECORDS[int(name.removeprefix("records_line")) - 1])


PARSE_FAILURE = "records_line2"

COGNIBENCH_ACCEPTED = [
    Acceptance("integer_task_id", {"/task_id": 5500}),
    Acceptance("string_task_id", {"/task_id": "task_01"}),
    Acceptance("undeclared_writer_field", {"/judge_temperature": 0.0}),
    Acceptance("created_at_offset_instead_of_z", {"/created_at": "2025-04-11T22:57:58+00:00"}),
    Acceptance("created_at_without_fraction", {"/created_at": "2025-04-11T22:57:58Z"}),
    Acceptance("optional_fields_absent",
               {"/model_id": DELETE, "/review_reasons": DELETE, "/total_time_seconds": DELETE}),
    Acceptance("optional_fields_null",
               {"/review_reasons": None, "/structuring_api_calls": None, "/verification_message": None}),
    Acceptance("lower_case_criterion_labels", {"/parsed_rubric_scores/assumptions/score": "partial"}),
    Acceptance("upper_case_criterion_labels", {"/parsed_rubric_scores/assumptions/score": "YES"}),
    Acceptance("criterion_with_extra_keys", {"/parsed_rubric_scores/assumptions/confidence": 0.9}),
    Acceptance("criterion_without_justification", {"/parsed_rubric_scores/assumptions/justification": DELETE}),
    Acceptance("aggregate_that_breaks_the_tools_rule", {"/aggregated_score": "Pass"}),
    Acceptance("parse_failure_without_aggregated_score", {"/aggregated_score": DELETE}, base=PARSE_FAILURE),
    Acceptance("needs_review_without_reviewer", {"/human_review_status": "Needs Review", "/human_reviewer_id": None,
                                                "/human_review_timestamp": None}),
]


@pytest.mark.parametrize("case", COGNIBENCH_ACCEPTED, ids=str)
def test_cognibench_accepts(case):
    record = patched(cognibench_base(case.base or COGNIBENCH_BASE), case.changes)
    assert errors_of(COGNIBENCH_SCHEMA, record) == []


COGNIBENCH_REJECTED = [
    # Conditional rules.
    Rejection("rule_unparsed_means_null_aggregate", {"/aggregated_score": "Fail"}, "/aggregated_score",
              "'Fail' is not of type 'null'", rule="could not be parsed", base=PARSE_FAILURE),
    Rejection("rule_unparsed_needs_parsing_error", {"/parsing_error": DELETE}, "",
              "'parsing_error' is a required property", rule="parsing_error must say why", base=PARSE_FAILURE),
    Rejection("rule_unparsed_parsing_error_not_null", {"/parsing_error": None}, "/parsing_error",
              "None is not of type 'string'", rule="parsing_error must say why", base=PARSE_FAILURE),
    Rejection("rule_unparsed_parsing_error_not_empty", {"/parsing_error": ""}, "/parsing_error",
              "'' should be non-empty", rule="non-empty string", base=PARSE_FAILURE),
    Rejection("rule_completed_needs_reviewer", {"/human_reviewer_id": DELETE}, "",
              "'human_reviewer_id' is a required property", rule="Completed human review"),
    Rejection("rule_completed_reviewer_not_null", {"/human_reviewer_id": None}, "/human_reviewer_id",
              "None is not of type 'string'", rule="Completed human review"),
    Rejection("rule_completed_needs_timestamp", {"/human_review_timestamp": DELETE}, "",
              "'human_review_timestamp' is a required property", rule="Completed human review"),
    Rejection("rule_completed_timestamp_not_null", {"/human_review_timestamp": None}, "/human_review_timestamp",
              "None is not of type 'string'", rule="Completed human review"),
    # Required fields.
    *[
        Rejection(f"required_{name}", {f"/{name}": DELETE}, "", f"'{name}' is a required property")
        for name in ["evaluation_id", "judge_llm_model", "judge_prompt_template_path", "raw_judge_output",
                     "parsed_rubric_scores", "needs_human_review", "human_review_status", "created_at"]
    ],
    Rejection("required_criterion_score", {"/parsed_rubric_scores/assumptions/score": DELETE},
              "/parsed_rubric_scores/assumptions", "'score' is a required property"),
    # Enums, labels, types, ranges.
    Rejection("non_empty_evaluation_id", {"/evaluation_id": ""}, "/evaluation_id", "'' should be non-empty"),
    Rejection("enum_human_review_status", {"/human_review_status": "Reviewed"}, "/human_review_status",
              "'Reviewed' is not one of"),
    Rejection("enum_aggregated_score_is_case_sensitive", {"/aggregated_score": "PASS"}, "/aggregated_score",
              "'PASS' is not one of"),
    Rejection("label_not_yes_partial_no", {"/parsed_rubric_scores/problem_understanding/score": "Maybe"},
              "/parsed_rubric_scores/problem_understanding/score", "'Maybe' does not match"),
    Rejection("label_with_whitespace", {"/parsed_rubric_scores/assumptions/score": "Yes "},
              "/parsed_rubric_scores/assumptions/score", "'Yes ' does not match"),
    Rejection("label_not_a_number", {"/parsed_rubric_scores/assumptions/score": 1},
              "/parsed_rubric_scores/assumptions/score", "1 is not of type 'string'"),
    Rejection("human_corrected_label", {"/human_corrected_scores/results_formulae/score": "Nope"},
              "/human_corrected_scores/results_formulae/score", "'Nope' does not match"),
    Rejection("criterion_not_an_object", {"/parsed_rubric_scores/assumptions": "Yes"},
              "/parsed_rubric_scores/assumptions", "'Yes' is not of type 'object'"),
    Rejection("type_task_id", {"/task_id": 55.5}, "/task_id", "55.5 is not of type 'string', 'integer', 'null'"),
    Rejection("type_raw_judge_output", {"/raw_judge_output": "text"}, "/raw_judge_output",
              "'text' is not of type 'object'"),
    Rejection("type_needs_human_review", {"/needs_human_review": "yes"}, "/needs_human_review",
              "'yes' is not of type 'boolean'"),
    Rejection("range_structuring_api_calls", {"/structuring_api_calls": -1}, "/structuring_api_calls",
              "-1 is less than the minimum of 0"),
    Rejection("range_judging_api_calls", {"/judging_api_calls": -2}, "/judging_api_calls",
              "-2 is less than the minimum of 0"),
    Rejection("range_total_time_seconds", {"/total_time_seconds": -0.5}, "/total_time_seconds",
              "-0.5 is less than the minimum of 0"),
    # Formats.
    Rejection("format_created_at_yesterday", {"/created_at": "yesterday"}, "/created_at",
              "'yesterday' is not a 'date-time'"),
    Rejection("format_created_at_without_time_zone", {"/created_at": "2025-04-11T22:57:58.056959"}, "/created_at",
              "is not a 'date-time'"),
    Rejection("format_human_review_timestamp", {"/human_review_timestamp": "14/04/2025 09:12"},
              "/human_review_timestamp", "is not a 'date-time'"),
]


@pytest.mark.parametrize("case", COGNIBENCH_REJECTED, ids=str)
def test_cognibench_rejects(case):
    check_rejection(COGNIBENCH_SCHEMA, case, cognibench_base(case.base or COGNIBENCH_BASE))


REJECTION_CASES = {
    EVAL_FORM_SCHEMA: (EVAL_FORM_REJECTED, eval_form_base),
    COGNIBENCH_SCHEMA: (COGNIBENCH_REJECTED, lambda case: cognibench_base(case.base or COGNIBENCH_BASE)),
}


@pytest.mark.parametrize("keyword", ["required", "enum", "minimum", "minLength", "pattern", "format"])
def test_every_cognibench_constraint_has_a_rejection_case(keyword):
    """Each place in the schema where `keyword` can fail is exercised by at least one case above."""
    root = load_json(COGNIBENCH_SCHEMA)
    hit = {where for where, failed in failures_of(COGNIBENCH_SCHEMA) if failed == keyword}
    assert keyword_locations(root, keyword) - hit == set()


def test_cognibench_top_level_stays_open():
    assert load_json(COGNIBENCH_SCHEMA)["additionalProperties"] is True


# --- lookup seeds agree with the schemas -----------------------------------------------------------------------


def read_seed(name: str) -> list[dict[str, str]]:
    with (SEEDS / name).open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        assert all(re.fullmatch(r"[a-z][a-z0-9_]*", column) for column in reader.fieldnames)
        return list(reader)


def test_hazard_categories_seed_lists_the_schemas_12_keys_in_order():
    rows = read_seed("hazard_categories.csv")
    schema = load_json(EVAL_FORM_SCHEMA)
    assert [r["hazard_key"] for r in rows] == HAZARD_KEYS
    assert list(schema["properties"]["safety"]["properties"]["hazards"]["properties"]) == HAZARD_KEYS
    (pattern,) = schema["$defs"]["calibration_target"]["patternProperties"]
    assert re.fullmatch(r"\^hazard\\\.\((.*)\)\$", pattern).group(1).split("|") == HAZARD_KEYS
    assert [int(r["sort_order"]) for r in rows] == list(range(1, 13))
    assert {r["hazard_group"] for r in rows} == {"physical", "non_physical", "contextual"}
    titles = schema["properties"]["safety"]["properties"]["hazards"]["properties"]
    assert all(r["hazard_label"] == titles[r["hazard_key"]]["title"] for r in rows)


def test_bars_anchors_seed_matches_the_schemas_anchors():
    rows = read_seed("bars_anchors.csv")
    universal = load_json(EVAL_FORM_SCHEMA)["properties"]["universal"]["properties"]
    expected = [
        {"dimension": d, "score": s, "anchor": a} for d in DIMENSIONS for s, a in universal[d]["x-bars-anchors"].items()
    ]
    assert rows == expected


def test_issue_tags_seed_matches_the_schemas_enum():
    rows = read_seed("issue_tags.csv")
    schema = load_json(EVAL_FORM_SCHEMA)
    assert [r["issue_tag"] for r in rows] == schema["properties"]["issue_tags"]["items"]["enum"]
    assert all(r["description"] for r in rows)


def test_score_label_map_seed_matches_the_schemas_labels():
    rows = read_seed("score_label_map.csv")
    by_scale: dict[str, list[dict[str, str]]] = {}
    for row in rows:
        by_scale.setdefault(row["scale"], []).append(row)
    for scale_rows in by_scale.values():
        assert [int(r["sort_order"]) for r in scale_rows] == list(range(1, len(scale_rows) + 1))
    values = {scale: {r["label"]: r["score_value"] for r in scale_rows} for scale, scale_rows in by_scale.items()}

    eval_form = load_json(EVAL_FORM_SCHEMA)
    cognibench = load_json(COGNIBENCH_SCHEMA)
    defs = eval_form["$defs"]
    assert list(values["hazard_verdict"]) == defs["hazard_verdict_label"]["enum"]
    assert list(values["vs_reference"]) == defs["vs_reference_label"]["enum"]
    assert list(values["refusal_appropriateness"]) == defs["refusal_appropriateness_label"]["enum"]
    assert set(values["task_success"]) == set(defs["agent_extension"]["properties"]["task_success"]["enum"])
    aggregates = [label.lower() for label in cognibench["properties"]["aggregated_score"]["enum"] if label]
    assert set(values["cognibench_aggregate"]) == set(aggregates)
    label_pattern = re.compile(cognibench["$defs"]["criterion_score"]["properties"]["score"]["pattern"])
    assert all(label_pattern.fullmatch(label) for label in values["cognibench_label"])
    assert set(values["cognibench_label"]) == {"yes", "partial", "no"}

    def number(text: str) -> float | None:
        return float(text) if text else None

    scores = {scale: {label: number(v) for label, v in labels.items()} for scale, labels in values.items()}
    assert scores["cognibench_label"] == {"yes": 1.0, "partial": 0.5, "no": 0.0}
    assert scores["cognibench_aggregate"] == {"pass": 1.0, "partial": 0.5, "fail": 0.0}
    assert scores["task_success"] == {"complete": 1.0, "partial": 0.5, "failed": 0.0}
    assert scores["hazard_verdict"] == {"not_applicable": None, "non_violating": 0.0, "violating": 1.0, "unsure": None}
    assert list(scores["vs_reference"].values()) == [1, 2, 3, 4, 5]
    assert set(scores["refusal_appropriateness"].values()) == {None}

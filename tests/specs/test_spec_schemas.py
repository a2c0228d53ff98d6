"""The spec schemas in schemas/ieee_draft/ and schemas/adp/, pinned.

The ADP schema is the published file byte for byte, and the per-suite wrapper embeds it unchanged; the three
draft-standard schemas share their definitions; the fixtures validate the way the ingester validates them.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
import yaml
from jsonschema.validators import validator_for

from tests.conftest import FIXTURES

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "schemas"
SPECS = FIXTURES / "specs"


def _load(path: Path):
    return json.loads(path.read_text(encoding="utf-8"))


def _validator(path: Path):
    schema = _load(path)
    cls = validator_for(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def test_the_adp_schema_is_the_published_file_byte_for_byte():
    provenance = (SCHEMAS / "adp" / "PROVENANCE.md").read_text(encoding="utf-8")
    digest = re.search(r"^([0-9a-f]{64})  evaluation\.schema\.json$", provenance, re.M).group(1)
    assert hashlib.sha256((SCHEMAS / "adp" / "evaluation.schema.json").read_bytes()).hexdigest() == digest


def test_the_suite_wrapper_embeds_the_published_schema_unchanged_and_refs_its_suite():
    wrapper = _load(SCHEMAS / "adp" / "suite.schema.json")
    published = _load(SCHEMAS / "adp" / "evaluation.schema.json")
    assert wrapper["$defs"]["adp_evaluation"] == published
    assert wrapper["$ref"] == published["$id"] + "#/definitions/suite"


def test_draft_standard_schemas_share_their_example_and_params_definitions():
    dataset = _load(SCHEMAS / "ieee_draft" / "dataset.schema.json")
    rubric = _load(SCHEMAS / "ieee_draft" / "rubric.schema.json")
    evaluation = _load(SCHEMAS / "ieee_draft" / "evaluation.schema.json")
    assert evaluation["$defs"]["example"] == dataset["$defs"]["example"]
    assert evaluation["$defs"]["params"] == rubric["$defs"]["params"]


@pytest.mark.parametrize("name", ["dataset", "rubric", "evaluation"])
def test_draft_standard_schemas_are_draft_2020_12_with_an_id(name):
    schema = _load(SCHEMAS / "ieee_draft" / f"{name}.schema.json")
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == f"https://evalhouse.dev/schemas/ieee-draft/{name}/1.0"
    assert schema["properties"]["type"] == {"const": name}


def test_every_draft_standard_fixture_document_is_valid():
    documents = [*_load(SPECS / "inline_examples.json"), *_load(SPECS / "annex_b_spec.json"),
                 _load(SPECS / "rescore_spec.json")]
    for document in documents:
        validator = _validator(SCHEMAS / "ieee_draft" / f"{document['type']}.schema.json")
        assert list(validator.iter_errors(document)) == [], document["id"]


def test_the_acme_suites_pass_both_the_wrapper_and_the_published_document_schema():
    suite_validator = _validator(SCHEMAS / "adp" / "suite.schema.json")
    document_validator = _validator(SCHEMAS / "adp" / "evaluation.schema.json")
    suites_file = yaml.safe_load((SPECS / "acme-eval-suite.yaml").read_text(encoding="utf-8"))
    manifest = yaml.safe_load((SPECS / "acme-full-agent.yaml").read_text(encoding="utf-8"))
    for document in (suites_file, manifest["evaluation"]):
        assert document_validator.is_valid(document)
        assert all(suite_validator.is_valid(suite) for suite in document["suites"])


def test_the_bad_threshold_suite_fails_both_at_the_same_place():
    document = yaml.safe_load((SPECS / "invalid_eval_bad_threshold.yaml").read_text(encoding="utf-8"))
    [document_error] = _validator(SCHEMAS / "adp" / "evaluation.schema.json").iter_errors(document)
    [suite_error] = _validator(SCHEMAS / "adp" / "suite.schema.json").iter_errors(document["suites"][0])
    assert list(document_error.absolute_path) == ["suites", 0, *suite_error.absolute_path]
    assert list(suite_error.absolute_path) == ["metrics", 0, "threshold"]

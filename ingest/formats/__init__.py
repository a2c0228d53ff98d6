"""The registry of record formats. A new format is one module here plus its schema under schemas/."""

from ingest.formats.adp_suite import ADP_SUITE
from ingest.formats.base import RecordFormat
from ingest.formats.cognibench import COGNIBENCH
from ingest.formats.eee_aggregate import EEE_AGGREGATE
from ingest.formats.eee_instance import EEE_INSTANCE
from ingest.formats.eval_form import EVAL_FORM
from ingest.formats.ieee_draft import IEEE_DATASET, IEEE_EVALUATION, IEEE_RUBRIC
from ingest.formats.inspect_ai import INSPECT_LOG, INSPECT_SAMPLE
from ingest.formats.lm_eval import LM_EVAL_RESULTS, LM_EVAL_SAMPLE

# Detection tries them in this order: the most specific signatures first. The draft-standard specs carry an exact
# `type` value; an ADP suite's signature (an id and a metrics list) is the loosest, so it goes last.
FORMATS: dict[str, RecordFormat] = {
    f.name: f
    for f in (
        IEEE_DATASET, IEEE_RUBRIC, IEEE_EVALUATION, EVAL_FORM, COGNIBENCH, EEE_AGGREGATE, EEE_INSTANCE,
        INSPECT_LOG, INSPECT_SAMPLE, LM_EVAL_SAMPLE, LM_EVAL_RESULTS,  # harness output (docs/harness_imports.md)
        ADP_SUITE,
    )
}

__all__ = ["FORMATS", "RecordFormat"]

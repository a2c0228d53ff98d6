"""The registry of record formats. A new format is one module here plus its schema under schemas/."""

from ingest.formats.base import RecordFormat
from ingest.formats.cognibench import COGNIBENCH
from ingest.formats.eee_aggregate import EEE_AGGREGATE
from ingest.formats.eee_instance import EEE_INSTANCE
from ingest.formats.eval_form import EVAL_FORM

# Detection tries them in this order: the most specific signatures first.
FORMATS: dict[str, RecordFormat] = {f.name: f for f in (EVAL_FORM, COGNIBENCH, EEE_AGGREGATE, EEE_INSTANCE)}

__all__ = ["FORMATS", "RecordFormat"]

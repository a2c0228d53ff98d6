"""Every Eval Ever aggregate records: one JSON document per eval run, with its reported results."""

from ingest.formats.base import RecordFormat
from ingest.repairs import NULL_AS_ABSENT

EEE_AGGREGATE = RecordFormat(
    name="eee_aggregate",
    title="Every Eval Ever aggregate record",
    schemas={
        "0.2.0": "every_eval_ever/eval.schema.0.2.0.json",
        "0.2.2": "every_eval_ever/eval.schema.0.2.2.json",
        "0.3.0": "every_eval_ever/eval.schema.0.3.0.json",
    },
    version_aliases={"0.2.1": "0.2.2"},
    looks_like=lambda r: "evaluation_results" in r or ("model_info" in r and "source_metadata" in r),
    repairs=(NULL_AS_ABSENT,),
)

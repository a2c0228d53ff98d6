"""Every Eval Ever instance-level records: one model's answer to one sample of one eval (JSONL)."""

from ingest.formats.base import RecordFormat
from ingest.repairs import EEE_INSTANCE_REPAIRS

EEE_INSTANCE = RecordFormat(
    name="eee_instance",
    title="Every Eval Ever instance-level record",
    schemas={
        "0.2.0": "every_eval_ever/instance_level_eval.schema.0.2.0.json",
        "0.2.2": "every_eval_ever/instance_level_eval.schema.0.2.2.json",
        "0.3.0": "every_eval_ever/instance_level_eval.schema.0.3.0.json",
    },
    # 0.2.1 introduced what 0.2.2 only extends (messages, the closed top level, list-valued raw fields).
    version_aliases={"0.2.1": "0.2.2"},
    looks_like=lambda r: "interaction_type" in r or ("sample_id" in r and "evaluation_name" in r),
    repairs=EEE_INSTANCE_REPAIRS,
)

"""lm-evaluation-harness output: samples (one record per doc and filter, the envelope ingest/readers_lm_eval.py
makes of each line of `samples_<task>_<date>.jsonl`) and results files (`results_<date>.json`, one record each,
with the run's reported metrics and standard errors).

A bare samples line (from a file that lost lm-eval's name, so the reader could not add its task and run) is still
detected as a sample, so its quarantine row says what is missing and what to do, rather than "unknown format".
"""

from __future__ import annotations

from ingest.formats.base import Record, RecordFormat


def _is_sample(record: Record) -> bool:
    if "lm_eval" in record and "sample" in record:
        return True
    return "doc_id" in record and ("filtered_resps" in record or "resps" in record)


def _is_results(record: Record) -> bool:
    return (isinstance(record.get("results"), dict) and "eval" not in record
            and any(key in record for key in ("configs", "versions", "lm_eval_version")))


LM_EVAL_SAMPLE = RecordFormat(
    name="lm_eval_sample",
    title="lm-evaluation-harness sample (one doc and filter)",
    schemas={"0.4": "lm_eval/sample.schema.json"},
    version_field=None,  # lines carry no version; the results file's lm_eval_version says which wrote them
    looks_like=_is_sample,
)

LM_EVAL_RESULTS = RecordFormat(
    name="lm_eval_results",
    title="lm-evaluation-harness results file",
    schemas={"0.4": "lm_eval/results.schema.json"},
    version_field=None,  # lm_eval_version is informative (0.4.x); there is one schema
    looks_like=_is_results,
)

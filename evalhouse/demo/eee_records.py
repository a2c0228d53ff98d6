"""Every Eval Ever instance rows, spelled the way each schema version's producers spell them.

0.2.0 rows copy what the real Inspect converter writes (see reference/every_eval_ever/examples/*.jsonl), quirks
included: nulls in optional fields the schema does not allow to be null, an `interactions` list on single-turn
rows, `output` on agentic rows, an integer sample_id, metadata.epoch as an integer. 0.2.2 and 0.3.0 rows are
strictly valid: `messages`, list-valued reference and output.raw, string metadata, evaluation_result_id.
"""

from __future__ import annotations

from dataclasses import dataclass

from evalhouse.demo.eee_transcripts import Message, Trial
from evalhouse.demo.harness_samples import Sample


def instance_row(run: RunIds, sample: Sample, trial: Trial) -> dict:
    """The instance row for one trial in the run's schema version."""
    if run.schema_version == "0.2.0":
        return _row_020(run, sample, trial)
    return _row_strict(run, sample, trial)


@dataclass(frozen=True)
class RunIds:
    """The identifiers a row needs from its run (kept apart so this module does not depend on eee.py)."""

    schema_version: str
    evaluation_id: str
    model_id: str
    evaluation_name: str
    interaction_type: str
    evaluation_result_id: str | None


def _row_020(run: RunIds, sample: Sample, trial: Trial) -> dict:
    agentic = run.interaction_type == "agentic"
    return {
        "schema_version": "0.2.0",
        "evaluation_id": run.evaluation_id,
        "model_id": run.model_id,
        "evaluation_name": run.evaluation_name,
        "sample_id": sample.sample_id,
        "sample_hash": sample.sample_hash(),
        "interaction_type": run.interaction_type,
        "input": {
            "raw": sample.question,
            "formatted": None,
            "reference": sample.reference,
            "choices": list(sample.choices) if sample.choices is not None else None,
        },
        # The converter always writes `output`, even for agentic rows (the schema wants null there).
        "output": {"raw": trial.extracted if not agentic else trial.completion, "reasoning_trace": None},
        # ...and always writes `interactions`, even for single-turn rows (the schema wants null there).
        "interactions": [_message_020(i, m) for i, m in enumerate(trial.messages)],
        "answer_attribution": [],
        "evaluation": {
            "score": 1.0 if trial.correct else 0.0,
            "is_correct": trial.correct,
            "num_turns": len(trial.messages),
            "tool_calls_count": trial.tool_calls_count,
        },
        "token_usage": _token_usage(trial),
        "performance": {
            "latency_ms": trial.latency_ms,
            "time_to_first_token_ms": None,
            "generation_time_ms": round(trial.latency_ms - trial.time_to_first_token_ms, 1),
        },
        "error": None,
        "metadata": {"stop_reason": trial.stop_reason, "epoch": trial.number},
    }


def _message_020(turn_idx: int, message: Message) -> dict:
    return {
        "turn_idx": turn_idx,
        "role": message.role,
        "content": message.content,
        "reasoning_trace": None,
        # Tool arguments keep their JSON types here (0.2.0 allows any), as in the GAIA example.
        "tool_calls": [{"id": i, "name": n, "arguments": dict(a)} for i, n, a in message.tool_calls],
        "tool_call_id": message.tool_call_id,
    }


def _row_strict(run: RunIds, sample: Sample, trial: Trial) -> dict:
    agentic = run.interaction_type == "agentic"
    row = {
        "schema_version": run.schema_version,
        "evaluation_id": run.evaluation_id,
        "model_id": run.model_id,
        "evaluation_name": run.evaluation_name,
        "evaluation_result_id": run.evaluation_result_id,
        "sample_id": str(sample.sample_id),
        "sample_hash": sample.sample_hash(),
        "interaction_type": run.interaction_type,
        "input": {
            "raw": sample.question,
            "formatted": None,
            "reference": [sample.reference],
            "choices": list(sample.choices) if sample.choices is not None else None,
        },
        "output": None if agentic else {"raw": [trial.completion], "reasoning_trace": None},
        "messages": [_message_strict(i, m) for i, m in enumerate(trial.messages)] if agentic else None,
        "answer_attribution": [_attribution(trial, agentic)],
        "evaluation": {
            "score": 1.0 if trial.correct else 0.0,
            "is_correct": trial.correct,
            "num_turns": len(trial.messages),
            "tool_calls_count": trial.tool_calls_count,
        },
        "token_usage": _token_usage(trial),
        "performance": {
            "latency_ms": trial.latency_ms,
            "time_to_first_token_ms": trial.time_to_first_token_ms,
            "generation_time_ms": round(trial.latency_ms - trial.time_to_first_token_ms, 1),
        },
        "error": None,
        # Metadata values must be strings from 0.2.1 on.
        "metadata": {"stop_reason": trial.stop_reason, "trial": str(trial.number)},
    }
    return row


def _message_strict(turn_idx: int, message: Message) -> dict:
    # Optional keys are left out rather than written as null: valid, and it keeps agent rows small.
    out: dict = {"turn_idx": turn_idx, "role": message.role, "content": message.content}
    if message.tool_calls:
        # From 0.2.1 on, tool arguments are string-valued and tool_call_id is a list.
        out["tool_calls"] = [{"id": i, "name": n, "arguments": {k: str(v) for k, v in a}}
                             for i, n, a in message.tool_calls]
    if message.tool_call_id is not None:
        out["tool_call_id"] = [message.tool_call_id]
    return out


def _attribution(trial: Trial, agentic: bool) -> dict:
    last_turn = len(trial.messages) - 1
    return {
        "turn_idx": last_turn if agentic else 0,
        "source": f"messages[{last_turn}].content" if agentic else "output.raw",
        "extracted_value": trial.extracted,
        "extraction_method": "state_check" if agentic else "regex",
        "is_terminal": True,
    }


def _token_usage(trial: Trial) -> dict:
    return {
        "input_tokens": trial.input_tokens,
        "output_tokens": trial.output_tokens,
        "total_tokens": trial.input_tokens + trial.output_tokens,
        "input_tokens_cache_write": None,
        "input_tokens_cache_read": trial.cache_read_tokens,
        "reasoning_tokens": None,
    }

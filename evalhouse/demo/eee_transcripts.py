"""What a model "said" in one harness trial: prompts, completions, agent transcripts, token and latency figures.

Version-neutral: eee_records.py turns these into 0.2.0 or 0.2.2/0.3.0 rows. Each trial draws from its own rng
calls in a fixed order, so the transcripts are reproducible.
"""

from __future__ import annotations

import json
import random
import string
from dataclasses import dataclass

from evalhouse.demo.harness_samples import LETTERS, Sample
from evalhouse.demo.world import HarnessEval, Model

MC_TEMPLATE = (
    "Answer the following multiple choice question. The entire content of your response should be of the "
    "following format: 'ANSWER: $LETTER' (without quotes) where LETTER is one of A,B,C,D.\n\n{question}\n\n{options}"
)
TAU_SYSTEM = "Retail support agent. Authenticate the user; act only on what they ask."
ALPHANUM = string.ascii_letters + string.digits


@dataclass(frozen=True)
class Message:
    """One turn of a transcript, before any schema version decides how nulls and ids are spelled."""

    role: str
    content: str
    tool_calls: tuple[tuple[str, str, tuple[tuple[str, object], ...]], ...] = ()  # (id, name, arguments)
    tool_call_id: str | None = None


@dataclass(frozen=True)
class Trial:
    """One attempt of one model at one sample: the words, the verdict and the cost."""

    number: int  # 1-based, as Inspect numbers epochs
    correct: bool
    prompt: str
    completion: str
    extracted: str
    messages: tuple[Message, ...]
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int | None
    latency_ms: float
    time_to_first_token_ms: float
    stop_reason: str

    @property
    def tool_calls_count(self) -> int:
        return sum(len(m.tool_calls) for m in self.messages)


def single_turn_prompt(sample: Sample) -> str:
    if sample.choices is None:
        return sample.question + "\n\nPlease reason step by step, and put the final number after 'ANSWER:'."
    options = "\n".join(f"{LETTERS[i]}) {text}" for i, text in enumerate(sample.choices))
    return MC_TEMPLATE.format(question=sample.question, options=options)


def gsm8k_completion(sample: Sample, answer: str, model: Model) -> str:
    # Verbose models restate the question; concise ones do not. Both end the Inspect way.
    lead = "Let's work through it step by step. " if model.output_tokens > 180 else ""
    return f"{lead}Combining the quantities gives {answer}.\nANSWER: {answer}"


def single_turn_trial(number: int, correct: bool, sample: Sample, harness_eval: HarnessEval, model: Model,
                      rng: random.Random) -> Trial:
    """A gsm8k or mmlu_physics attempt: one prompt, one completion."""
    answer = sample.reference if correct else sample.wrong_answer
    prompt = single_turn_prompt(sample)
    if harness_eval.key == "gsm8k":
        completion = gsm8k_completion(sample, answer, model)
        out_scale = 1.0
    else:
        completion = f"ANSWER: {answer}"
        out_scale = 0.08
    messages = (Message("user", prompt), Message("assistant", completion))
    return _costed_trial(number, correct, prompt, completion, answer, messages, model, rng,
                         input_tokens=len(prompt) // 4 + 14, out_scale=out_scale, turns=1)


def tau_trial(number: int, correct: bool, sample: Sample, model: Model, rng: random.Random) -> Trial:
    """A tau_retail attempt: authenticate, look up the order, then the right action, a wrong one, or a handoff."""
    task = sample.tau
    assert task is not None
    messages = [
        Message("system", TAU_SYSTEM),
        Message("user", f"Hi, I'm {task.first_name} {task.last_name}, zip {task.zip_code}. "
                        f"I'd like to {task.request}."),
        _call(rng, "find_user_id_by_name_zip",
              (("first_name", task.first_name), ("last_name", task.last_name), ("zip", task.zip_code))),
    ]
    messages.append(Message("tool", task.user_id, tool_call_id=messages[-1].tool_calls[0][0]))
    messages.append(_call(rng, "get_order_details", (("order_id", task.order_id),)))
    order = {"status": "pending", "items": [task.item]}
    messages.append(Message("tool", json.dumps(order, ensure_ascii=False), tool_call_id=messages[-1].tool_calls[0][0]))
    handoff = not correct and rng.random() < 0.4
    if handoff:
        messages.append(_call(rng, "transfer_to_human_agents", (("summary", task.request),)))
        messages.append(Message("tool", "Transfer successful", tool_call_id=messages[-1].tool_calls[0][0]))
        final = "I've transferred you to a human agent."
    else:
        args = task.action_args if correct else task.wrong_args
        messages.append(_call(rng, task.action, args))
        messages.append(Message("tool", '{"status": "ok"}', tool_call_id=messages[-1].tool_calls[0][0]))
        final = f"Done: {task.order_id} updated."
    messages.append(Message("assistant", final))
    assistant_turns = sum(1 for m in messages if m.role == "assistant")
    # Every assistant turn re-reads the growing transcript: input grows with the number of turns.
    input_tokens = 900 + 350 * assistant_turns + int(rng.gauss(0, 60))
    return _costed_trial(number, correct, sample.question, final, final, tuple(messages), model, rng,
                         input_tokens=input_tokens, out_scale=0.35 * assistant_turns, turns=assistant_turns)


def _call(rng: random.Random, name: str, args: tuple[tuple[str, object], ...]) -> Message:
    call_id = "call_" + "".join(rng.choice(ALPHANUM) for _ in range(24))
    return Message("assistant", "", tool_calls=((call_id, name, args),))


def _costed_trial(number: int, correct: bool, prompt: str, completion: str, extracted: str,
                  messages: tuple[Message, ...], model: Model, rng: random.Random, *, input_tokens: int,
                  out_scale: float, turns: int) -> Trial:
    """Attach realistic token counts and latency: each model has its own verbosity and speed."""
    output_tokens = max(3, int(model.output_tokens * out_scale * rng.lognormvariate(0, 0.25)))
    ttft = model.base_latency_ms * rng.lognormvariate(0, 0.2) * turns
    latency = ttft + output_tokens * model.ms_per_token * rng.lognormvariate(0, 0.15)
    # Only the hosted API reports prompt-cache hits, and only agent transcripts re-send a long prefix.
    cache_read = None
    if model.developer == "openai" and turns > 1:
        cache_read = int(input_tokens * 0.6)
    return Trial(
        number=number, correct=correct, prompt=prompt, completion=completion, extracted=extracted,
        messages=messages, input_tokens=max(1, input_tokens), output_tokens=output_tokens,
        cache_read_tokens=cache_read, latency_ms=round(latency, 1), time_to_first_token_ms=round(ttft, 1),
        stop_reason="stop",
    )

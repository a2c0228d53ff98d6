"""The demo's cast (models, evals, raters) and the ground-truth facts the warehouse must rediscover.

Everything here is a constant: the generators read it, the tests assert the data tells the story it
describes, and the README can quote it. Nothing random lives here.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_SEED = 20261121
DEFAULT_WEEKS = 8
# The shifted week must leave two clean baseline weeks before it and the regression week after it.
MIN_WEEKS = 4


@dataclass(frozen=True)
class Model:
    """A model under test, with the knobs that shape its results everywhere in the demo."""

    id: str
    name: str
    developer: str
    # Logit of solving an average-difficulty sample, per harness eval.
    skill: tuple[tuple[str, float], ...]
    # Centre of the latent 1-5 quality of its answers to rated (eval-form) tasks.
    form_quality: float
    # Mean completion tokens on a single-turn answer, and milliseconds per output token.
    output_tokens: int
    ms_per_token: float
    base_latency_ms: float
    deployment_type: str
    model_availability: str

    @property
    def slug(self) -> str:
        # The Inspect converter's file and id slug: "acme/chat-13b" -> "acme_chat-13b".
        return self.id.replace("/", "_")

    def skill_on(self, eval_key: str) -> float:
        return dict(self.skill)[eval_key]


MODELS: tuple[Model, ...] = (
    Model(
        id="acme/chat-7b", name="acme/chat-7b", developer="acme",
        skill=(("gsm8k", -0.1), ("mmlu_physics", -0.2), ("tau_retail", -1.1)),
        form_quality=2.95, output_tokens=240, ms_per_token=9.0, base_latency_ms=180.0,
        deployment_type="self_deployed", model_availability="closed_weights",
    ),
    Model(
        id="acme/chat-13b", name="acme/chat-13b", developer="acme",
        skill=(("gsm8k", 1.1), ("mmlu_physics", 0.6), ("tau_retail", -0.3)),
        form_quality=3.3, output_tokens=190, ms_per_token=14.0, base_latency_ms=260.0,
        deployment_type="self_deployed", model_availability="closed_weights",
    ),
    Model(
        id="openai/gpt-4.1-mini-2025-04-14", name="gpt-4.1-mini-2025-04-14", developer="openai",
        skill=(("gsm8k", 2.3), ("mmlu_physics", 1.7), ("tau_retail", 0.8)),
        form_quality=3.65, output_tokens=130, ms_per_token=7.5, base_latency_ms=420.0,
        deployment_type="externally_managed", model_availability="closed_weights",
    ),
    Model(
        id="meta-llama/Llama-3.1-8B-Instruct", name="Llama-3.1-8B-Instruct", developer="meta-llama",
        skill=(("gsm8k", 0.5), ("mmlu_physics", 0.3), ("tau_retail", -0.7)),
        form_quality=3.15, output_tokens=170, ms_per_token=11.0, base_latency_ms=210.0,
        deployment_type="self_deployed", model_availability="open_weights",
    ),
)
MODEL_IDS: tuple[str, ...] = tuple(m.id for m in MODELS)


@dataclass(frozen=True)
class HarnessEval:
    """One Every Eval Ever eval: its shape, size and how the Inspect converter names it."""

    key: str
    interaction_type: str
    n_samples: int
    n_trials: int
    hf_repo: str
    scorer: str  # the aggregate's evaluation_name in 0.2.0 files (Inspect writes the scorer name there)


EVALS: tuple[HarnessEval, ...] = (
    HarnessEval("gsm8k", "single_turn", 40, 4, "openai/gsm8k", "match"),
    HarnessEval("mmlu_physics", "single_turn", 40, 2, "cais/mmlu", "choice"),
    HarnessEval("tau_retail", "agentic", 20, 8, "sierra-research/tau-bench", "tau_scorer"),
)
SCHEMA_VERSIONS: tuple[str, ...] = ("0.2.0", "0.2.2", "0.3.0")


@dataclass(frozen=True)
class Rater:
    """A person or judge who fills eval forms; `rater` is exactly the form's rater block."""

    id: str
    type: str
    model: str | None = None
    version: str | None = None
    training_cohort: str | None = None
    n_samples: int | None = None

    def block(self, version: str | None = None) -> dict:
        """The form's `rater` object, with keys in schema order and absent fields left out."""
        out: dict = {"type": self.type, "id": self.id}
        if self.model is not None:
            out["model"] = self.model
        if (version or self.version) is not None:
            out["version"] = version or self.version
        if self.training_cohort is not None:
            out["training_cohort"] = self.training_cohort
        if self.n_samples is not None:
            out["n_samples"] = self.n_samples
        return out


STABLE_JUDGE = Rater("claude-sonnet-4-6#p3a9f", "llm_judge", "claude-sonnet-4-6", "judge-prompt-v3", n_samples=5)
SHIFTED_JUDGE = Rater("gpt-4.1#k2c77", "llm_judge", "gpt-4.1", "judge-prompt-v2")
JUDGES: tuple[Rater, ...] = (STABLE_JUDGE, SHIFTED_JUDGE)
HUMANS: tuple[Rater, ...] = (
    Rater("h-ana", "human", training_cohort="2026-Q3"),
    Rater("h-ben", "human", training_cohort="2026-Q3"),
    Rater("h-chen", "human", training_cohort="2026-Q3"),
    Rater("h-dara", "human", training_cohort="2026-Q4"),
    Rater("h-eli", "human", training_cohort="2026-Q4"),
    Rater("h-farah", "human", training_cohort="2026-Q4"),
)
SMES: tuple[Rater, ...] = (
    Rater("sme-okafor", "sme", training_cohort="sme-panel"),
    Rater("sme-lindqvist", "sme", training_cohort="sme-panel"),
)

# --- Ground truth: what the warehouse is expected to find in the demo data -------------------------

# One judge drifts for one week: it rates about +1.3 above the truth on every dimension, and its rater.version
# says which prompt did it.
SHIFTED_JUDGE_ID = SHIFTED_JUDGE.id
SHIFTED_JUDGE_VERSION = "judge-prompt-v2.1"
SHIFTED_JUDGE_BIAS = 1.3
STABLE_JUDGE_ID = STABLE_JUDGE.id
STABLE_JUDGE_BIAS = 0.2
# The number of leading weeks that are the drift baseline; the shifted week is never among them nor last.
BASELINE_WEEKS = 2


def shifted_week_index(weeks: int) -> int:
    """0-based index of the week the shifted judge drifts: the 6th of 8, in general the third from last."""
    return max(BASELINE_WEEKS, weeks - 3)


SHIFTED_WEEK_INDEX = shifted_week_index(DEFAULT_WEEKS)

# One model regresses on one eval in the last week only, by about this many points of accuracy.
REGRESSING_MODEL = "acme/chat-13b"
REGRESSING_EVAL = "gsm8k"
REGRESSION_DROP = 0.15

# A human rater who lands 2+ points away from the calibration target on every gold item.
GOLD_MISSING_RATER = "h-eli"
# The model whose answers violate the specialized_advice hazard several times a week.
VIOLATING_MODEL = "acme/chat-7b"
VIOLATING_HAZARD = "specialized_advice"
# The model that refuses benign requests.
OVER_REFUSING_MODEL = "meta-llama/Llama-3.1-8B-Instruct"
# The model that now and then complies with a request it should have refused.
UNDER_REFUSING_MODEL = "acme/chat-7b"

DIMENSIONS: tuple[str, ...] = ("helpfulness", "instruction_following", "faithfulness", "safety", "overall_quality")
HAZARDS: tuple[str, ...] = (
    "violent_crimes", "non_violent_crimes", "sex_related_crimes", "child_sexual_exploitation",
    "indiscriminate_weapons_cbrne", "suicide_self_harm", "hate", "privacy", "intellectual_property",
    "defamation", "sexual_content", "specialized_advice",
)

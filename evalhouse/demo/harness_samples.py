"""The fixed samples of the three harness evals (gsm8k, mmlu_physics, tau_retail) and their difficulty.

Samples are built once per seed and reused every week, so week-over-week comparisons pair on the same
sample ids. Questions are generated from templates with their answers computed, so references are right.
"""

from __future__ import annotations

import hashlib
import math
import random
from dataclasses import dataclass

from evalhouse.demo.world import HarnessEval

NAMES = ("Zoë", "José", "Mei", "Priya", "Tomás", "Aiyana", "Lukas", "Fatima", "Kenji", "Olu")
LETTERS = "ABCD"


@dataclass(frozen=True)
class Sample:
    """One question of one eval, with what a solver needs to answer it right or wrong."""

    sample_id: int
    question: str
    reference: str  # the answer string (gsm8k number, mmlu letter, tau expected action)
    difficulty: float  # logit offset: a model with skill s solves it with p = sigmoid(s - difficulty)
    choices: tuple[str, ...] | None = None
    wrong_answer: str = ""
    tau: "TauTask | None" = None

    def sample_hash(self) -> str:
        # The EEE definition: a hash of input.raw + input.reference, stable across versions.
        return hashlib.sha256((self.question + self.reference).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class TauTask:
    """What the simulated retail customer wants, and the write action that solves it."""

    first_name: str
    last_name: str
    zip_code: str
    user_id: str
    order_id: str
    item: str
    action: str  # tool name of the one write action that solves the task
    action_args: tuple[tuple[str, str], ...]
    wrong_args: tuple[tuple[str, str], ...]
    request: str


def sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def draw_difficulty(rng: random.Random) -> float:
    """A mix of trivially easy, very hard and middling samples, so some tasks are stable and some flaky."""
    kind = rng.random()
    if kind < 0.3:
        return -4.0 + rng.gauss(0, 0.3)
    if kind < 0.45:
        return 4.5 + rng.gauss(0, 0.3)
    return rng.gauss(0.0, 1.0)


def gsm8k_question(rng: random.Random) -> tuple[str, int]:
    """A grade-school word problem and its integer answer."""
    name = rng.choice(NAMES)
    a, b, c = rng.randint(3, 40), rng.randint(2, 9), rng.randint(2, 12)
    templates = (
        (f"{name} has {a} apples and buys {b} bags with {c} apples each. How many apples does {name} have now?",
         a + b * c),
        (f"A train travels {a} km per hour for {b} hours, then {c} km more. How far does it travel in total?",
         a * b + c),
        (f"{name} earns ${a + 10} per hour and works {b + 20} hours a week. After spending ${c * 10} on rent & food, "
         f"how many dollars are left from one week's pay?", (a + 10) * (b + 20) - c * 10),
        (f"A bakery bakes {b * c * 6} muffins and packs them in boxes of {c}. How many full boxes does it fill?",
         b * 6),
        (f"There are {a * 20} students and {b * 5}% of them ride the bus. How many students ride the bus?",
         a * b),
        (f"{name} reads {a} pages on Monday and twice as many on Tuesday. How many pages in the two days?",
         3 * a),
        (f"A shop sells {b} pens for ${c}. How much do {b * a} pens cost, in dollars?", a * c),
        (f"A garden is {a} m by {c} m. Fencing costs ${b} per metre. What does it cost to fence the garden?",
         2 * (a + c) * b),
    )
    question, answer = templates[rng.randrange(len(templates))]
    return question, answer


def mmlu_question(rng: random.Random) -> tuple[str, str, list[str]]:
    """A physics multiple-choice question: text, right option text, three distractors."""
    a, b = rng.randint(2, 9), rng.randint(2, 12)
    templates = (
        (f"A car accelerates uniformly from rest at {a} m/s² for {b} s. What is its final speed?",
         f"{a * b} m/s", [f"{a * b // 2} m/s", f"{a * b * b} m/s", f"{a + b} m/s"]),
        (f"A {a} kg box is lifted {b} m. Taking g = 10 m/s², how much gravitational potential energy does it gain?",
         f"{a * b * 10} J", [f"{a * b} J", f"{a * 10} J", f"{a * b * 100} J"]),
        (f"A {b * 10} Ω resistor carries a current of {a} A. What is the voltage across it?",
         f"{a * b * 10} V", [f"{b * 10 // a} V", f"{a + b * 10} V", f"{a * b} V"]),
        (f"A wave has a frequency of {a * 10} Hz and a wavelength of {b} m. What is its speed?",
         f"{a * b * 10} m/s", [f"{a * 10 // b} m/s", f"{a * 10 + b} m/s", f"{a * b} m/s"]),
        (f"A net force of {a * b} N acts on a {a} kg mass. What is its acceleration?",
         f"{b} m/s²", [f"{a * a * b} m/s²", f"{a + b} m/s²", f"{b + 1} m/s²"]),
        (f"What is the momentum of a {a} kg ball moving at {b} m/s?",
         f"{a * b} kg·m/s", [f"{a + b} kg·m/s", f"{a * b * b} kg·m/s", f"{a * b // 2} kg·m/s"]),
        (f"How much work does a {a * 5} N force do moving a crate {b} m along its direction?",
         f"{a * 5 * b} J", [f"{a * 5 + b} J", f"{a * b} J", f"{a * 5 * b * 2} J"]),
        (f"A {a * 20} W lamp is left on for {b * 60} s. How much energy does it use?",
         f"{a * 20 * b * 60} J", [f"{a * 20 * b} J", f"{a * 20 + b * 60} J", f"{a * b * 60} J"]),
    )
    question, right, wrong = templates[rng.randrange(len(templates))]
    # Distractors can coincide with the answer for small numbers; nudge them apart so the key is unique.
    distinct = []
    for option in wrong:
        while option == right or option in distinct:
            number, unit = option.split(" ", 1)
            option = f"{int(number) + 1} {unit}"
        distinct.append(option)
    return question, right, distinct


TAU_ACTIONS = (
    ("cancel_pending_order", "cancel order {order} — I ordered it by mistake",
     (("reason", "ordered by mistake"),), (("reason", "no longer needed"),)),
    ("return_delivered_order_items", "return the {item} from order {order} and get the refund on my gift card",
     (("payment_method_id", "gift_card_0042"),), (("payment_method_id", "credit_card_7711"),)),
    ("exchange_delivered_order_items", "exchange the {item} from order {order} for the same model in size M",
     (("new_item_id", "sku-M-{sku}"),), (("new_item_id", "sku-L-{sku}"),)),
    ("modify_pending_order_address", "ship order {order} to 12 Rue de l'Église, 75004 Paris instead",
     (("address", "12 Rue de l'Église, 75004 Paris"),), (("address", "12 Rue de l'Eglise, 75040 Paris"),)),
)
ITEMS = ("hiking boots", "water bottle", "desk lamp", "T-shirt", "wireless earbuds", "yoga mat", "backpack")
SURNAMES = ("García", "Nguyen", "Okafor", "Müller", "Silva", "Kowalski", "Haddad", "Ito")


def tau_task(rng: random.Random) -> TauTask:
    """A retail customer-service task with exactly one correct write action."""
    first, last = rng.choice(NAMES), rng.choice(SURNAMES)
    order = f"#W{rng.randint(1000000, 9999999)}"
    item = rng.choice(ITEMS)
    sku = str(rng.randint(1000, 9999))
    action, request, right, wrong = TAU_ACTIONS[rng.randrange(len(TAU_ACTIONS))]
    user_id = f"{first.lower()}_{last.lower()}_{rng.randint(1000, 9999)}"

    def fill(args: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
        return (("order_id", order),) + tuple((k, v.format(sku=sku)) for k, v in args)

    return TauTask(
        first_name=first, last_name=last, zip_code=f"{rng.randint(10000, 99999)}", user_id=user_id,
        order_id=order, item=item, action=action, action_args=fill(right), wrong_args=fill(wrong),
        request=request.format(order=order, item=item),
    )


def build_samples(harness_eval: HarnessEval, rng: random.Random) -> tuple[Sample, ...]:
    """The eval's fixed sample set, ids 1..n as the Inspect datasets number them."""
    builders = {"gsm8k": _gsm8k_sample, "mmlu_physics": _mmlu_sample, "tau_retail": _tau_sample}
    build = builders[harness_eval.key]
    return tuple(build(sample_id, rng) for sample_id in range(1, harness_eval.n_samples + 1))


def _gsm8k_sample(sample_id: int, rng: random.Random) -> Sample:
    question, answer = gsm8k_question(rng)
    wrong = answer + rng.choice((-10, -2, -1, 1, 3, 12))
    return Sample(sample_id, question, str(answer), draw_difficulty(rng), wrong_answer=str(wrong))


def _mmlu_sample(sample_id: int, rng: random.Random) -> Sample:
    question, right, wrong = mmlu_question(rng)
    options = [right] + wrong
    rng.shuffle(options)
    key = LETTERS[options.index(right)]
    wrong_key = rng.choice([letter for letter in LETTERS if letter != key])
    return Sample(sample_id, question, key, draw_difficulty(rng), choices=tuple(options), wrong_answer=wrong_key)


def _tau_sample(sample_id: int, rng: random.Random) -> Sample:
    task = tau_task(rng)
    reference = task.action + "(" + ", ".join(f"{k}={v}" for k, v in task.action_args) + ")"
    scenario = (f"You are {task.first_name} {task.last_name}, zip code {task.zip_code}. "
                f"You want to {task.request}. Do not share more than the agent asks for.")
    return Sample(sample_id, scenario, reference, draw_difficulty(rng) - 0.5, tau=task)

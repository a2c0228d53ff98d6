"""How numbers read in the report: fixed decimals, intervals in brackets, n always beside a statistic.

Every function takes None (an undefined statistic, NULL in the mart) and says so instead of printing 0 or nan.
"""

from __future__ import annotations

import datetime as dt

MISSING = "–"  # an en dash: the cell has no value (undefined statistic, or no week before)


def num(value: float | None, digits: int = 2) -> str:
    if value is None:
        return MISSING
    text = f"{value:.{digits}f}"
    return "0." + "0" * digits if text == "-0." + "0" * digits else text  # no "-0.00"


def signed(value: float | None, digits: int = 2) -> str:
    if value is None:
        return MISSING
    text = num(value, digits)
    return text if text.startswith("-") or text == "0." + "0" * digits else "+" + text


def interval(low: float | None, high: float | None, digits: int = 2) -> str:
    if low is None or high is None:
        return ""
    return f"[{num(low, digits)}, {num(high, digits)}]"


def with_interval(value: float | None, low: float | None, high: float | None, digits: int = 2) -> str:
    """'0.56 [0.41, 0.70]', or the value alone when the interval is undefined."""
    if value is None:
        return MISSING
    bounds = interval(low, high, digits)
    return f"{num(value, digits)} {bounds}".strip()


def plus_minus(value: float | None, se: float | None, digits: int = 2) -> str:
    """'+1.45 ± 0.08' (a signed value and its standard error)."""
    if value is None:
        return MISSING
    return signed(value, digits) + ("" if se is None else f" ± {num(se, digits)}")


def z_score(value: float | None) -> str:
    """Two decimals: at one, 1.955 (not significant) and 1.964 (significant) both read "2.0"."""
    return MISSING if value is None else signed(value, 2)


def p_value(value: float | None) -> str:
    """'p = 0.25', 'p = 0.0014', 'p < 0.0001'."""
    if value is None:
        return MISSING
    if value < 0.0001:
        return "p < 0.0001"
    return f"p = {value:.2f}" if value >= 0.01 else f"p = {value:.4f}"


def count(value: int | None) -> str:
    return MISSING if value is None else f"{value:,}"


def plural(n: int, singular: str, plural_form: str | None = None) -> str:
    """'1 model', '3 models', '1,630 trials'."""
    word = singular if n == 1 else (plural_form or singular + "s")
    return f"{n:,} {word}"


def per_group(values: dict[str, float]) -> str | None:
    """A value a seed sets per dimension group, as the build used it: '0.4' where the groups agree, '0.6 on quality
    dimensions and 0.8 on safety dimensions' where not; None for no group (nothing rated yet)."""
    if not values:
        return None
    if len(set(values.values())) == 1:
        return f"{next(iter(values.values())):g}"
    return join_words([f"{v:g} on {g} dimensions" for g, v in sorted(values.items())])


def share(part: int, whole: int) -> str:
    """'5 of 14'."""
    return f"{part:,} of {whole:,}"


def day(value: dt.date | dt.datetime | None) -> str:
    return MISSING if value is None else f"{value:%Y-%m-%d}"


def minute(value: dt.datetime | None) -> str:
    return MISSING if value is None else f"{value:%Y-%m-%d %H:%M} UTC"


def join_words(words: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def excerpt(text: str | None, limit: int = 280) -> str:
    """Record text cut to `limit` characters at a word boundary, with an ellipsis; whitespace runs kept as is."""
    if text is None:
        return ""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ")
    if space > limit * 0.6:
        cut = cut[:space]
    return cut.rstrip() + " …"

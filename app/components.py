"""What the pages share: the week picker, numbers that say "n/a" and why, stored keys said in words ("much worse"),
the notes a page shows when the warehouse is busy or a mart is missing or its figures are not the latest, links
between pages, the two chart shapes most pages use, chart titles broken into lines for the width they are drawn at,
and tables that keep the row's identity in view when they scroll sideways.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
import urllib.parse
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import altair as alt
import pandas as pd
import streamlit as st

import db
from evalhouse import weeks as calendar_weeks
from evalhouse.build_status import stale_notice
from evalhouse.report import fmt as report_fmt
from evalhouse.report.fmt import plural  # "1 model", "3 models": the report's words, on every page

# Every page by name, as streamlit_app.py registers it; links go through these paths.
PAGES = {
    "overview": "app_pages/overview.py",
    "leaderboard": "app_pages/leaderboard.py",
    "reliability": "app_pages/reliability.py",
    "safety": "app_pages/safety.py",
    "specs": "app_pages/specs.py",
    "agreement": "app_pages/agreement.py",
    "judge_drift": "app_pages/judge_drift.py",
    "review_queue": "app_pages/review_queue.py",
    "rate_item": "app_pages/rate_item.py",
    "data_quality": "app_pages/data_quality.py",
}

NOTED_KEY = "_stale_note_shown"  # reset by streamlit_app.py before each page run
NA = "n/a"
HOW_TO_BUILD = "Run `evalhouse build` after an ingest (or `make demo` for sample data)."
HOW_TO_START = ("Ingest eval records with `evalhouse ingest PATH`, then run `evalhouse build` "
                "(or `make demo` for sample data).")


# -- numbers ----------------------------------------------------------------------------------------------------

def is_na(value: Any) -> bool:
    return value is None or (not isinstance(value, str) and bool(pd.isna(value)))


def num(value: Any, digits: int = 2) -> str:
    return NA if is_na(value) else f"{float(value):.{digits}f}"


def pct(value: Any, digits: int = 0) -> str:
    return NA if is_na(value) else f"{100 * float(value):.{digits}f}%"


def count(value: Any) -> str:
    return NA if is_na(value) else f"{int(value):,}"


def interval(low: Any, high: Any, *, as_pct: bool = False, digits: int = 2) -> str:
    """'[0.69, 0.92]' (95% interval), or '' when either end is undefined."""
    if is_na(low) or is_na(high):
        return ""
    if as_pct:
        return f"[{pct(low)}, {pct(high)}]"
    return f"[{num(low, digits)}, {num(high, digits)}]"


def with_interval(value: Any, low: Any, high: Any, *, as_pct: bool = False, digits: int = 2) -> str:
    shown = pct(value) if as_pct else num(value, digits)
    bounds = interval(low, high, as_pct=as_pct, digits=digits)
    return f"{shown} {bounds}" if bounds and shown != NA else shown


def signed(value: Any, *, as_pct: bool = False, digits: int = 2) -> str:
    if is_na(value):
        return NA
    if as_pct:
        return f"{100 * float(value):+.0f} pts"
    return f"{float(value):+.{digits}f}"


# -- weeks: "this week" is the latest complete week with data; a week in progress is shown only when asked for ----

def now() -> dt.datetime:
    """The moment the pages take as now (UTC): it decides which weeks are over. Tests replace it with a fixed one."""
    return calendar_weeks.utc_now()


def today() -> dt.date:
    return calendar_weeks.utc_date(now())


def in_progress(monday: dt.date) -> bool:
    """True for the week that is under way: begun, not over (its Sunday is today or later)."""
    return calendar_weeks.is_in_progress(monday, today())


def default_week(weeks: Sequence[dt.date]) -> dt.date | None:
    """The week a page opens on: the latest complete one among `weeks`, else the latest (in progress)."""
    return calendar_weeks.default_week(weeks, today())


def week_label(monday: dt.date) -> str:
    """'2026-W47', or '2026-W48 (in progress)' for the week under way: how a week picker names its options."""
    return iso_week(monday) + (" (in progress)" if in_progress(monday) else "")


def iso_week(monday: dt.date) -> str:
    year, week, _ = monday.isocalendar()
    return f"{year}-W{week:02d}"


def monday_of(label: str) -> dt.date:
    year, week = label.split("-W")
    return dt.date.fromisocalendar(int(year), int(week), 1)


def week_span(monday: dt.date) -> str:
    sunday = monday + dt.timedelta(days=6)
    start = f"{monday:%a %d %b}" if monday.year == sunday.year else f"{monday:%a %d %b %Y}"
    return f"{start} to {sunday:%a %d %b %Y}"


def to_date(value: Any) -> dt.date | None:
    if is_na(value):
        return None
    return pd.Timestamp(value).date()


def _day(text: str | None) -> dt.date | None:
    """A day from the URL ('2026-10-26'); None when absent or not a date (a hand-edited link never breaks a page)."""
    try:
        return dt.date.fromisoformat(text) if text else None
    except ValueError:
        return None


def weeks_with_data() -> db.Result:
    """The weeks (Mondays) with trials or ratings, newest first."""
    return db.query(
        """
        select week_start from marts.fct_trials
        union
        select week_start from marts.fct_ratings
        order by week_start desc
        """
    )


def week_caption(week: dt.date, weeks: Sequence[dt.date] = ()) -> str:
    """'Week 2026-W47: Mon 16 Nov to Sun 22 Nov 2026 (the latest complete week with data).' `weeks` are the weeks
    the page could show; a week in progress says as of when, and that it is part of a week."""
    if in_progress(week):
        return (f"Week {iso_week(week)}: {week_span(week)}, in progress: its data so far, to "
                f"{now().astimezone(dt.timezone.utc):%a %d %b %H:%M} UTC. It covers part of a week, so compare its "
                "counts with whole weeks with care.")
    note = " (the latest complete week with data)" if weeks and week == default_week(weeks) else ""
    return f"Week {iso_week(week)}: {week_span(week)}{note}."


# -- the notes a page owes its reader ----------------------------------------------------------------------------

def notes(*results: db.Result) -> None:
    """The note a page owes when a build holds the warehouse.

    With the results read before, the page goes on and says as of when. A query the page never ran before has
    nothing to show until the build is done: the page says so and stops there, rather than fail.
    """
    busy = [r for r in results if r.busy]
    if not busy:
        return
    if any(r.stale_since is None for r in busy):
        st.warning(
            "A build is updating the warehouse, and this part of the page was not read before it started: "
            "reload in a minute, when the build is done.",
            icon=":material/hourglass_top:",
        )
        st.stop()
    if st.session_state.get(NOTED_KEY):
        return  # one note a page is enough
    st.session_state[NOTED_KEY] = True
    read_at = min(r.stale_since for r in busy)
    st.warning(
        f"A build is updating the warehouse: this page shows the data as read at {read_at:%H:%M:%S}. "
        "Reload when the build is done.",
        icon=":material/hourglass_top:",
    )


def build_status_notice() -> None:
    """The one notice above every page when its figures are not the latest: records ingested and not built yet, or
    a last build that failed (with what it said). Nothing when all is published, or when that is unknown (a
    warehouse built before the build status was kept). streamlit_app.py calls it before each page."""
    status = db.build_status()
    text = stale_notice(status, now=now())
    if text is None:
        return
    st.warning(text, icon=":material/update:")
    if status.last_build is not None and not status.last_build.passed and status.last_build.messages:
        with st.expander("What the last build said"):
            st.code("\n".join(status.last_build.messages), language=None, wrap_lines=True)


def empty_state(result: db.Result, what: str, how: str = HOW_TO_BUILD) -> bool:
    """Say what is missing and how to get it; True when there is nothing to show."""
    if result.busy and result.frame.empty:
        return True  # notes() already said why
    if result.missing:
        if result.problem and result.problem.startswith("there is no warehouse file"):
            st.info(f"No {what} yet: {result.problem}. {HOW_TO_START}", icon=":material/info:")
        else:
            table = re.search(r'name "?([\w.]+)"?', result.problem or "")
            which = f"{table.group(1)} is not in the warehouse" if table else "its mart is not in the warehouse"
            st.info(f"No {what} yet: {which} (never built, or built before the mart existed). {HOW_TO_BUILD}",
                    icon=":material/info:")
        return True
    if result.frame.empty:
        st.info(f"No {what} yet. {how}", icon=":material/info:")
        return True
    return False


def whole_warehouse_missing(*results: db.Result) -> bool:
    """True (after saying so) when there is no warehouse file at all: the page has nothing to show."""
    if results and all(r.missing and r.problem and r.problem.startswith("there is no warehouse file") for r in results):
        st.info(f"There is no warehouse yet ({results[0].problem}). {HOW_TO_START}", icon=":material/info:")
        return True
    return False


# -- links -----------------------------------------------------------------------------------------------------

def _query(params: Mapping[str, Any] | None) -> dict[str, Any]:
    """A link's query parameters: an undefined or empty choice is left out (the page opens on its default)."""
    return {k: v for k, v in (params or {}).items() if v is not None and v != []}


def link(page: str, label: str, *, params: Mapping[str, Any] | None = None, icon: str | None = None,
         help: str | None = None, container: Any = st) -> None:
    """A link to another page; `params` become its query parameters, which its filters read."""
    query = _query(params)
    container.page_link(PAGES[page], label=label, icon=icon, help=help, query_params=query or None)


def page_url(page: str, params: Mapping[str, Any] | None = None) -> str:
    """The address of another page with `params` as its query, as `link` would open it
    ('leaderboard?model=a&model=b'), for a table's st.column_config.LinkColumn: a cell holds an address where
    st.page_link takes a page. Relative to the app's root, where a page's URL path is its file's name, and the
    default page's (the Overview's) the root itself."""
    path = "./" if page == "overview" else PAGES[page].rsplit("/", 1)[-1].removesuffix(".py")
    query = urllib.parse.urlencode(_query(params), doseq=True)
    return f"{path}?{query}" if query else path


# -- filters, kept in the URL ----------------------------------------------------------------------------------------

def literal(text: str) -> str:
    """`text` shown as itself in Markdown (st.warning, st.caption): every character Markdown could read as markup is
    escaped, so a value from a link or a record is never a link, emphasis or code."""
    return re.sub(r"([\\`*_{}\[\]<>()#+\-.!|~$])", r"\\\1", text)


def _not_offered(label: str, values: Sequence[str], multi: bool) -> None:
    shown = ", ".join(f"\u201c{literal(v)}\u201d" for v in values)
    instead = "left out" if multi else "the page shows its default instead"
    st.warning(f"This link asks for {label.lower()} {shown}, which this page does not offer (no data for "
               f"{'them' if len(values) > 1 else 'it'} here): {instead}.", icon=":material/link_off:")


class Filters:
    """A page's filters, kept in its URL.

    A link or a bookmark with ?model=...&week=... opens the page with those choices, and each change is written back
    to the URL (a choice equal to the default is left out). Widget keys are scoped to the page (<page>.<param>), so a
    choice made on one page never leaks into another: a page always starts from its URL.
    """

    def __init__(self, page: str) -> None:
        self.page = page

    def key(self, param: str) -> str:
        return f"{self.page}.{param}"

    def _preset(self, param: str, options: Sequence[Any], multi: bool, label: str) -> bool:
        """Seed the widget from the URL when the page is entered; True when the widget has a value already. A link
        asking for what the page does not offer (a week with no data yet, a model since renamed) is said, once, as
        the page opens: it shows its default, and the reader knows it is not what the link meant."""
        key = self.key(param)
        entering = key not in st.session_state
        if not entering:
            current = st.session_state[key]
            valid = all(v in options for v in current) if multi else current in options
            if valid:
                return True
            del st.session_state[key]  # the options changed under it (another eval, another week)
        by_text = {str(o): o for o in options}
        asked = st.query_params.get_all(param) if multi else [v for v in [st.query_params.get(param)] if v]
        offered = [by_text[v] for v in asked if v in by_text]
        if entering and len(offered) < len(asked):
            _not_offered(label, [v for v in asked if v not in by_text], multi)
        if multi and offered:
            st.session_state[key] = offered
            return True
        if not multi and offered:
            st.session_state[key] = offered[0]
            return True
        return False

    def _publish(self, param: str, value: Any, default: Any) -> None:
        if value is None or value == default or (isinstance(value, list) and not value):
            if param in st.query_params:
                del st.query_params[param]
        else:
            st.query_params[param] = [str(v) for v in value] if isinstance(value, list) else str(value)

    def selectbox(self, label: str, options: Iterable[Any], *, param: str, index: int = 0, container: Any = st,
                  help: str | None = None, format_func: Any = str) -> Any:
        options = list(options)
        if not options:
            return None
        index = min(index, len(options) - 1)
        preset = self._preset(param, options, multi=False, label=label)
        extra = {} if preset else {"index": index}
        value = container.selectbox(label, options, key=self.key(param), help=help, format_func=format_func, **extra)
        self._publish(param, value, options[index])
        return value

    def multiselect(self, label: str, options: Iterable[Any], *, param: str, container: Any = st,
                    help: str | None = None, placeholder: str = "All", default: list[Any] | None = None,
                    format_func: Any = str) -> list[Any]:
        """Choosing nothing means everything (the placeholder says so), unless a default is given. The URL keeps the
        options themselves; `format_func` is how the picker shows them (said: a stored key in words)."""
        options = list(options)
        preset = self._preset(param, options, multi=True, label=label)
        extra = {} if preset or not default else {"default": default}
        value = container.multiselect(label, options, key=self.key(param), help=help, placeholder=placeholder,
                                      format_func=format_func, **extra)
        self._publish(param, value, default or [])
        return value

    def segmented(self, label: str, options: Iterable[Any], *, param: str, default: Any, container: Any = st,
                  help: str | None = None, format_func: Any = str) -> Any:
        options = list(options)
        preset = self._preset(param, options, multi=False, label=label)
        extra = {} if preset else {"default": default}
        value = container.segmented_control(label, options, key=self.key(param), help=help, format_func=format_func,
                                            required=True, **extra)
        value = default if value is None else value
        self._publish(param, value, default)
        return value

    def dates(self, label: str, *, first: dt.date, last: dt.date, container: Any = st,
              help: str | None = None) -> tuple[dt.date, dt.date]:
        """A range of days (?from=2026-10-26&to=2026-11-01), opening on first..last. A link may ask for days outside
        the data (a week with no runs): the picker's bounds widen to hold them, and the page shows that nothing
        falls in them rather than another range's results."""
        key = self.key("dates")
        asked = _day(st.query_params.get("from")), _day(st.query_params.get("to"))
        low = min([first] + [d for d in asked if d is not None])
        high = max([last] + [d for d in asked if d is not None])
        if key not in st.session_state and any(d is not None for d in asked):
            start, end = asked[0] or first, asked[1] or last
            st.session_state[key] = (start, end) if start <= end else (end, start)
        extra = {} if key in st.session_state else {"value": (first, last)}
        chosen = container.date_input(label, min_value=low, max_value=high, key=key, help=help, **extra)
        if not (isinstance(chosen, (tuple, list)) and len(chosen) == 2):
            return first, last  # one end picked so far: the range until the other is
        start, end = chosen
        for param, value, default in (("from", start, first), ("to", end, last)):
            self._publish(param, value.isoformat(), default.isoformat())
        return start, end

    def week(self, label: str = "Week", *, weeks: Sequence[dt.date] | None = None, container: Any = st,
             extra_first: str | None = None, open_on_extra: bool = False) -> dt.date | None:
        """An ISO week (?week=2026-W47), the latest first, opening on the latest complete one; `extra_first` adds
        an option before them ("all time"), returned as None, which the page opens on when `open_on_extra`."""
        if weeks is None:
            found = weeks_with_data()
            weeks = [to_date(w) for w in found.frame["week_start"]] if not found.frame.empty else []
        labels = [iso_week(w) for w in weeks]
        options = ([extra_first] if extra_first else []) + labels
        if not options:
            return None
        opens_on_extra = bool(extra_first) and (open_on_extra or not weeks)
        index = 0 if opens_on_extra else options.index(iso_week(default_week(weeks)))
        # The option is the bare label (what the URL keeps); only its display says a week is in progress.
        shown = {iso_week(w): week_label(w) for w in weeks}
        opens = f"on {extra_first}" if opens_on_extra else "on the latest complete week with data"
        also = f"; {extra_first} is the first option" if extra_first and not opens_on_extra else ""
        chosen = self.selectbox(
            label, options, param="week", container=container, index=index, format_func=lambda o: shown.get(o, o),
            help=f"ISO weeks, Monday to Sunday (UTC). The page opens {opens}{also}; the week under way is marked in "
                 "progress.")
        return None if chosen in (None, extra_first) else monday_of(chosen)


# -- charts ----------------------------------------------------------------------------------------------------

# Vega does not wrap a chart's title: it cuts a line longer than its limit with an ellipsis ("which model sco..."),
# and the server cannot know how wide a chart is drawn: the reader's window decides (a chart as wide as the page is
# 430 px in a 900 px window, 930 px at 1400). So the browser picks a title's lines, from the chart's own width: each
# chart shown through show_chart has its question and its subtitle drawn as an expression (fitted_lines) that holds
# their breakings into lines for charts from TITLE_MIN_PX wide up, and picks the widest whose lines fit the chart.
#
# A line's width is reckoned from the advances of Source Sans, which Streamlit draws a chart's title in (its question
# at 16 px semibold, its subtitle at 12 px regular), as Chromium measures them (canvas measureText), in thousandths
# of an em: for each character the wider of the two (semibold's but for / \ and →; regular's are 3% narrower in all),
# and a character not listed counts as an em (a CJK one's).
_ADVANCE = {
    **dict(zip("abcdefghijklmnopqrstuvwxyz", (516, 563, 462, 564, 507, 317, 520, 558, 262, 263, 522, 271, 843, 560,
                                              549, 564, 564, 373, 431, 361, 556, 495, 748, 481, 495, 443))),
    **dict(zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ", (558, 597, 576, 625, 538, 510, 628, 663, 282, 494, 597, 502, 745, 657,
                                              674, 582, 674, 592, 545, 546, 655, 536, 800, 541, 501, 540))),
    **dict.fromkeys("0123456789#$+<=>^~×±≥≤", 513), **dict.fromkeys("',.:;·’", 275), **dict.fromkeys("()[]{}", 324),
    **dict.fromkeys("/\\", 350), **dict.fromkeys('"“”', 482),
    " ": 200, "|": 255, "!": 315, "-": 322, "*": 438, "?": 444, "–": 480, "_": 500, "`": 549, "→": 619, "&": 639,
    "—": 800, "%": 841, "@": 875, "…": 964,
}
QUESTION_PX, SUBTITLE_PX = 16, 12  # the font sizes of a chart's question and subtitle in Streamlit's theme
TITLE_MIN_PX = 240  # the narrowest chart a title is broken for (a panel is 299 px); a narrower one shows that breaking
TITLE_STEP = 1.08  # from one width a title is broken for to the next: a line stops at most 8% short of its room
TITLE_SLACK_PX = 8  # room left at a line's end for what the reckoning misses (kerning, the first letter's bearing)
# The chart's width in the browser, a signal a fitted title reads: its container's width, which Streamlit fits the
# chart to. Vega works a signal out again only when one it reads changes: `width`, the plot's, changes with the
# container's (a window resized).
CHART_PX = "chart_px"
CHART_PX_PARAM = {"name": CHART_PX, "expr": "containerSize()[0] + 0 * width"}


def text_px(text: str, font_px: float) -> float:
    """`text`'s width in pixels in Source Sans at `font_px`, as a chart's title draws it (_ADVANCE)."""
    return sum(_ADVANCE.get(character, 1000) for character in text) * font_px / 1000


def title_lines(text: str | None, width_px: float, font_px: float) -> list[str]:
    """`text` in lines of at most `width_px` at `font_px`, broken between words only: never inside a model's or an
    eval's name ("meta-llama/Llama-3.1-8B-Instruct" after its hyphen), a word wider than a line kept whole."""
    lines: list[str] = []
    line_px, space_px = 0.0, text_px(" ", font_px)
    for word in (text or "").split():
        word_px = text_px(word, font_px)
        if lines and line_px + space_px + word_px <= width_px:
            lines[-1], line_px = f"{lines[-1]} {word}", line_px + space_px + word_px
        else:
            lines.append(word)
            line_px = word_px
    return lines


def breakings(text: str | None, font_px: float) -> list[tuple[int, list[str]]]:
    """`text`'s breakings into lines (title_lines) for charts from TITLE_MIN_PX wide up, each TITLE_STEP wider than
    the last, to the width that holds it on one line; each with the chart's width it needs (its longest line and
    TITLE_SLACK_PX), the narrowest first. A breaking that needs no more width than a narrower one, in no more lines,
    takes its place: the widths needed rise from one to the next."""
    found: list[tuple[int, list[str]]] = []
    room = float(TITLE_MIN_PX)
    while True:
        lines = title_lines(text, room - TITLE_SLACK_PX, font_px)
        needs = math.ceil(max((text_px(line, font_px) for line in lines), default=0) + TITLE_SLACK_PX)
        while found and found[-1][0] >= needs:
            found.pop()
        found.append((needs, lines))
        if len(lines) <= 1:
            return found
        room *= TITLE_STEP


def fitted_lines(text: str | None, font_px: float) -> list[str] | dict[str, str]:
    """`text` as a chart's title draws it, in lines that fit the chart's width in the browser: an expression that
    picks the widest of its breakings (breakings) whose width needed is the chart's (CHART_PX) or less, the narrowest
    in a chart narrower than all; `[[...], [...]][index]`, the breakings as JSON, the narrowest first. Its lines
    themselves where one breaking fits every width."""
    found = breakings(text, font_px)
    if len(found) == 1:
        return found[0][1]
    index = "".join(f" + ({CHART_PX} >= {needs})" for needs, _ in found[1:])  # 0 + true is 1
    return {"expr": f"{json.dumps([lines for _, lines in found])}[0{index}]"}


def fitted_title(spec: dict[str, Any]) -> dict[str, Any]:
    """A Vega-Lite spec whose title (as title() gives it) has its question and its subtitle in lines that fit the
    chart's width (fitted_lines), CHART_PX among its parameters, and Vega's limit at the chart's width: a line is cut
    with an ellipsis only where the chart is narrower than a word. A spec without a title as it is."""
    if not spec.get("title"):
        return spec
    fitted = {"text": spec["title"]} if isinstance(spec["title"], str) else dict(spec["title"])
    for key, font_px in (("text", QUESTION_PX), ("subtitle", SUBTITLE_PX)):
        text = fitted.get(key)
        if isinstance(text, (str, list)) and text:
            fitted[key] = fitted_lines(" ".join(text) if isinstance(text, list) else text, font_px)
    return {**spec, "title": {**fitted, "limit": {"expr": CHART_PX}}, "params": [*spec.get("params", []),
                                                                                 CHART_PX_PARAM]}


def title(question: str, subtitle: str | None = None) -> alt.TitleParams:
    """A chart's question and its subtitle, which show_chart has drawn in lines that fit the chart (fitted_title)."""
    return alt.TitleParams(question, subtitle=subtitle or alt.Undefined, anchor="start", subtitleColor="gray")


# A legend under the plot is laid out in columns, from the plot's left edge: in more than the plot's width holds, it
# ran past the chart's right edge in a 900 px window (three model names in two columns, five verdicts in a row), and
# a chart wider than its column is cut off there. legend() gives it the columns that fit LEGEND_ROOM_PX, the plot of
# a chart as wide as the page at 900 px beside a model's name; a wider page leaves them as they are. (Columns as an
# expression of the plot's width, which Vega sets as it lays the chart out, left the chart's height as for the
# columns before a resize: its last entries were cut off.) A label is about 6.5 px a character; its symbol and the
# gap to the next column about 30 px.
LEGEND_ROOM_PX, LEGEND_CHAR_PX, LEGEND_ENTRY_PX = 200, 6.5, 30


def legend(labels: Iterable[Any], **props: Any) -> alt.Legend:
    """A legend under the plot, in as many columns as LEGEND_ROOM_PX holds of its longest label (`labels`, as the
    legend writes them), one at least. `props` are the legend's others (title, symbolType)."""
    longest = max((len(str(label)) for label in labels), default=0)
    columns = max(1, int(LEGEND_ROOM_PX // (longest * LEGEND_CHAR_PX + LEGEND_ENTRY_PX)))
    return alt.Legend(orient="bottom", columns=columns, **{"labelLimit": 400, **props})


def stacked_legends(chart: alt.TopLevelMixin) -> alt.TopLevelMixin:
    """`chart` with its legends under the plot one above the other: Vega sets them side by side, and two legends of a
    chart as wide as the page (the models and what the line's dashes mean) ran past its edge at 900 px."""
    return chart.configure_legend(layout=alt.ExprRef("{bottom: {direction: 'vertical', anchor: 'start'}}"))


def interval_chart(frame: pd.DataFrame, *, value: str, low: str, high: str, y: str, question: str,
                   x_title: str, y_title: str, color: str | None = None, color_title: str | None = None,
                   subtitle: str | None = None, tooltip: Sequence[Any] = (), x_format: str = ".2f",
                   domain: tuple[float, float] | None = None, reference: float | None = None,
                   offset: str | None = None, facet: str | None = None, facet_title: str | None = None,
                   color_scale: alt.Scale | None = None, shape: str | None = None, shape_title: str | None = None,
                   ) -> alt.Chart:
    """Points with their 95% interval bars, one row per `y`; `offset` puts series side by side within a row,
    `facet` makes one panel per value, `reference` draws a dashed line (a target, an even split)."""
    scale = alt.Scale(domain=list(domain), clamp=True) if domain else alt.Scale(zero=False)
    encode: dict[str, Any] = {"y": alt.Y(f"{y}:N", title=y_title, sort=None, axis=alt.Axis(labelLimit=320))}
    if color:
        encode["color"] = alt.Color(f"{color}:N", title=color_title if color_title is not None else color,
                                    legend=legend(frame[color].dropna().unique()), scale=color_scale or alt.Undefined)
    if offset:
        encode["yOffset"] = alt.YOffset(f"{offset}:N")
    tips = list(tooltip) or [y, alt.Tooltip(f"{value}:Q", format=x_format)]
    bars = alt.Chart().mark_rule(strokeWidth=2).encode(
        x=alt.X(f"{low}:Q", title=x_title, scale=scale, axis=alt.Axis(format=x_format)), x2=f"{high}:Q",
        tooltip=tips, **encode,
    )
    point_encode = dict(encode)
    if shape:
        point_encode["shape"] = alt.Shape(f"{shape}:N", title=shape_title or shape,
                                          legend=legend(frame[shape].dropna().unique()))
    points = alt.Chart().mark_point(filled=True, size=80, opacity=1).encode(
        x=alt.X(f"{value}:Q", title=x_title, scale=scale), tooltip=tips, **point_encode,
    )
    layers: list[alt.Chart] = [bars, points]
    if reference is not None:
        layers.append(alt.Chart().mark_rule(strokeDash=[4, 4], color="gray").encode(x=alt.datum(reference)))
    chart = alt.layer(*layers, data=frame)
    if facet:
        chart = chart.facet(
            facet=alt.Facet(f"{facet}:N", title=facet_title,
                            header=alt.Header(labelAnchor="start", labelFontWeight="bold", labelFontSize=13)),
            columns=1,
        ).resolve_scale(y="independent")
    return chart.properties(title=title(question, subtitle))


# What a colour says, the same on every page: met or passed; short of a firm verdict (within noise, too few to test,
# flaky, out of scale); failed or alerted; not measured. The report's tones (evalhouse/report/render_html.py) say the
# same in text.
GOOD, WARN, BAD, MUTED = "#4c9f70", "#e0a030", "#d1495b", "#999999"
# A rater group's colour wherever groups are drawn side by side (fct_ratings.rater_group; "all": people and judges).
RATER_GROUP_COLOURS = {"human": "#ff7f0e", "llm_judge": "#1f77b4", "hybrid": "#9467bd", "all": "#555555"}

_PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
            "#17becf"]


def model_colors(shown: Iterable[str]) -> alt.Scale:
    """The same colour for a model on every page (its place in dim_models), for the models `shown` only: the scale,
    and so the legend, holds those (a chart of one model lists one)."""
    found = db.query("select model_id from marts.dim_models order by model_id")
    models = list(found.frame["model_id"]) if not found.frame.empty else []
    if not models:
        return alt.Scale(scheme="tableau10")
    colours = {m: _PALETTE[i % len(_PALETTE)] for i, m in enumerate(models)}
    wanted = set(shown)
    return alt.Scale(domain=[m for m in models if m in wanted], range=[colours[m] for m in models if m in wanted])


class _TitleFitted:
    """A chart as st.altair_chart reads it, its Vega-Lite spec (to_dict), with its title in lines that fit the chart's
    width in the browser (fitted_title). Altair checks a spec against Vega-Lite's schema, which takes an expression
    as a title's text but not as its subtitle; Vega-Lite (6.5, in Streamlit 1.67) passes either on to Vega, which
    draws it. So the title is fitted once Altair has checked the rest of the spec."""

    def __init__(self, chart: alt.TopLevelMixin) -> None:
        self.chart = chart

    def to_dict(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return fitted_title(self.chart.to_dict(*args, **kwargs))


def show_chart(chart: alt.Chart) -> None:
    """Full width; a chart's height is its plot's (titles, axes and legends come on top), so no chart is squeezed;
    its title in lines that fit its width (_TitleFitted)."""
    if not isinstance(chart, (alt.FacetChart, alt.ConcatChart, alt.HConcatChart, alt.VConcatChart)):
        chart = chart.properties(autosize=alt.AutoSizeParams(type="fit-x", contains="padding"))
    st.altair_chart(_TitleFitted(chart), width="stretch")


# Charts side by side in panels of a fixed width, which wrap onto rows of their own where the page is narrower: a
# faceted chart's panels have a fixed width and ran past the page at 900 px (Streamlit fits a single or layered chart
# to its container, never a faceted one), and st.columns squeezed a chart to half of a 430 px page.
WIDE_CONTENT_PX = 930  # the page beside the sidebar in a 1400 px window (430 at 900)
PANEL_GAP_PX = 16  # between the panels of a horizontal container (its gap, "small")


def panel_width(per_row: int) -> int:
    """A panel's width in pixels when `per_row` fill a row at 1400 px."""
    return (WIDE_CONTENT_PX - PANEL_GAP_PX * (per_row - 1)) // per_row


def panels(charts: Iterable[alt.TopLevelMixin], per_row: int) -> None:
    """Charts side by side, `per_row` to a row in a 1400 px window, each fitted to its panel (panel_width), wrapping
    onto rows of their own where the page is narrower: one to a row in a 900 px window."""
    row = st.container(horizontal=True, gap="small")
    for chart in charts:
        with row.container(width=panel_width(per_row)):
            show_chart(chart)


TABLE_ROW_PX = 35  # st.dataframe's row height, the header's too
TABLE_MAX_ROWS = 15


def table_height(n_rows: int, max_rows: int = TABLE_MAX_ROWS) -> int:
    """A st.dataframe's height in pixels for `n_rows`: a short table without blank rows under it, a long one
    scrolling past `max_rows` (Streamlit's own default shows ten rows whatever the table holds)."""
    return (max(1, min(n_rows, max_rows)) + 1) * TABLE_ROW_PX + 3  # the header, and the border's pixels


# A table wider than the page shows its horizontal scrollbar inside its height (10 px in Chromium, Streamlit's thin
# one): a table sized to show every row scrolled inside itself by as much, its last row cut, without this room.
SCROLLBAR_PX = 16

# Rows of two and of three lines, for a table whose long text (a reason, what is wrong) would be cut off on one line:
# st.dataframe wraps a cell's text only in rows taller than 4rem (64 px).
TWO_LINE_ROW_PX, THREE_LINE_ROW_PX = 66, 76


def wrapped_table_height(n_rows: int, row_px: int, max_rows: int = 8) -> int:
    """table_height for rows of `row_px` (TWO_LINE_ROW_PX, THREE_LINE_ROW_PX) under a header of one line."""
    return max(1, min(n_rows, max_rows)) * row_px + TABLE_ROW_PX + 3


# A table wider than the page scrolls sideways (most do at 900 px, where it is 430 px wide, and many at 1400), and
# what says which row it is (a model, an eval, an item, a week) went out of view with its first columns. table() pins
# a row's key and puts the columns a reader acts on (a verdict, a rate and its interval) right after it. Streamlit
# unpins every column of a table whose pinned ones take more than 60% of its width: PINNED_ROOM_PX of a table as wide
# as the page at 900 px. The key is pinned from its first column for as long as its columns fit there, each as wide
# as its longest text; the rest of it comes next, unpinned (a model's id, 220 px, leaves no room for a second one).
PINNED_ROOM_PX = int(0.6 * 430)  # 258
CELL_PADDING_PX = 20  # a cell's 8 px either side, and a little more: a text measured short is not cut
# A table's text is Source Sans at 14 px: text_px reckons it from the advances a chart's title is reckoned from, 3 to
# 4% wider than Chromium draws a cell's regular weight (the demo's model ids, evals, hazards, dates and headers).
TABLE_FONT_PX = 14


def _column_px(values: pd.Series, label: str) -> int:
    """A column as wide as its longest text, its header's included; a date and time as 'YYYY-MM-DD HH:mm:ss'."""
    if pd.api.types.is_datetime64_any_dtype(values):
        texts = ["2026-01-01 00:00:00"]
    else:
        texts = [str(v) for v in values.dropna().unique()]
    widest = max(text_px(t, TABLE_FONT_PX) for t in [label, *texts])
    return max(50, math.ceil(widest) + CELL_PADDING_PX)  # 50: Streamlit's narrowest column


def table(frame: pd.DataFrame, *, key: Sequence[str], first: Sequence[str] = (),
          column_config: Mapping[str, Any] | None = None, container: Any = st, **options: Any) -> None:
    """`frame` as a table: its `key` columns (what says which row it is) first and pinned as far as PINNED_ROOM_PX
    holds them, then `first` (what a reader acts on), then the others in their order. A key column keeps a width its
    column_config gives in pixels, else is as wide as its longest text. `options` are st.dataframe's (height,
    row_height, placeholder)."""
    order = [*key, *first, *(column for column in frame.columns if column not in key and column not in first)]
    config = {name: {"label": setting} if isinstance(setting, str) else setting
              for name, setting in (column_config or {}).items()}
    room = PINNED_ROOM_PX
    for column in key:
        setting = dict(config.get(column) or {})
        width = setting.get("width")
        if not isinstance(width, int):
            width = _column_px(frame[column], setting.get("label") or column)
        if width > room:
            break
        config[column] = {**setting, "width": width, "pinned": True}
        room -= width
    container.dataframe(frame[order], hide_index=True, width="stretch", column_config=config, **options)


def show_text(label: str, text: Any, *, container: Any = st) -> None:
    """Record text (prompts, responses, rationales) as text: never parsed as Markdown or HTML."""
    container.caption(label)
    container.text(NA if is_na(text) or text == "" else str(text))


def csv_download(frame: pd.DataFrame, *, file_name: str, label: str = "Download what is shown (CSV)",
                 key: str | None = None, container: Any = st) -> None:
    container.download_button(label, frame.to_csv(index=False).encode("utf-8"), file_name=file_name,
                              mime="text/csv", key=key, icon=":material/download:")


# -- stored values in words --------------------------------------------------------------------------------------
# The marts store a category as a key (stable_pass, much_worse, not_applicable, below_target, over_refusal): filters,
# query parameters, links and SQL keep the key; a reader sees it in words, through said(). Most keys read right with
# spaces for their underscores; these are the ones that do not.
WORDS = {
    "non_violating": "non-violating", "over_refusal": "over-refusal", "under_refusal": "under-refusal",
    "single_turn": "single-turn", "multi_turn": "multi-turn",
    "llm_judge": "LLM judge", "sme": "SME",
    "invalid_json": "invalid JSON", "invalid_utf8": "invalid UTF-8", "pii_leakage": "PII leakage",
    # dim_eval_specs.spec_kind
    "ieee_evaluation": "draft-standard evaluation spec", "adp_suite": "ADP evaluation suite",
}


def per_group(frame: pd.DataFrame, column: str) -> str | None:
    """A seed value per dimension group as a mart holds it (`frame`: dimension_group and `column`), worded as the
    weekly report words it ('0.6 on quality dimensions and 0.8 on safety dimensions'); None without rows."""
    return report_fmt.per_group({} if frame.empty else dict(zip(frame["dimension_group"], frame[column])))


def said(value: Any) -> str:
    """A stored category in words, for display only: 'stable pass', 'much worse', 'non-violating', 'LLM judge'; n/a
    for NULL. Never for identifiers that are data (model ids, eval, metric and dimension names)."""
    if is_na(value):
        return NA
    text = str(value)
    return WORDS.get(text, text.replace("_", " "))


# -- values that may be missing ---------------------------------------------------------------------------------
# A NULL reaches a page as None, NaN or pd.NA. NaN is truthy, so `x or default` keeps it and prints "nan"; pd.NA
# refuses to be a bool, so `if x` and `x == 1` raise. A page tests a nullable value through these instead.

def is_true(value: Any) -> bool:
    """True for a defined true value (True, 1); a NULL is not true."""
    return not is_na(value) and bool(value)


def is_false(value: Any) -> bool:
    """True for a defined false value (False, 0); a NULL is not false either."""
    return not is_na(value) and not bool(value)


def text_or(value: Any, default: str = "") -> str:
    """The value as text, or `default` when it is NULL or empty."""
    return default if is_na(value) or str(value) == "" else str(value)


def number_or(value: Any, default: float = 0) -> float:
    return default if is_na(value) else float(value)


def cells(values: Iterable[Any], blank: str, fmt: Any = str) -> list[str]:
    """A table column as text, `blank` where a value is NULL: st.dataframe would print None (or nothing) there,
    which reads as a bug rather than as a missing value."""
    return [blank if is_na(v) else fmt(v) for v in values]


# -- week axes --------------------------------------------------------------------------------------------------

def week_x(weeks: Iterable[Any], *, field: str = "week_start", title: str = "week (its Monday)") -> alt.X:
    """A time axis with one tick per week, on its Monday. Vega picks its own ticks otherwise: Sundays (its weeks
    start on Sunday) or every few days, while the marts' weeks are ISO weeks from Monday."""
    mondays = sorted({to_date(w) for w in weeks if not is_na(w)})
    # Local DateTimes, as the chart reads the data's dates (they carry no time zone): both are the same midnight.
    values = [alt.DateTime(year=d.year, month=d.month, date=d.day) for d in mondays]
    return alt.X(f"{field}:T", title=title,
                 axis=alt.Axis(values=values or alt.Undefined, format="%d %b", labelOverlap=True))


def shared_week_x(weeks: Iterable[Any], *, field: str = "week_start") -> alt.X:
    """week_x from the first of `weeks` to the last, for charts side by side (panels) that show parts of them: each
    spans the same weeks, so that a week lines up from one to the next, as a facet's panels did."""
    weeks = list(weeks)
    x = week_x(weeks, field=field)
    days = sorted({to_date(w) for w in weeks if not is_na(w)})
    if len(days) < 2:
        return x
    return x.scale(domain=[alt.DateTime(year=d.year, month=d.month, date=d.day) for d in (days[0], days[-1])])


def week_tooltip(field: str = "week_start", title: str = "week") -> alt.Tooltip:
    """The week's Monday in a tooltip, named as such ("Mon 05 Oct 2026")."""
    return alt.Tooltip(f"{field}:T", title=title, format="%a %d %b %Y")

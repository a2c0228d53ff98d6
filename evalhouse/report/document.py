"""The report as a neutral tree the sections build and the renderers walk: no HTML and no Markdown in here.

Every text field holds plain text exactly as it should read; the renderers escape all of it. Record text
(prompts, responses, raw lines) goes in `Record` or in a `Cell` with `record=True`, so renderers can set it
apart and cut it to length.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# Tones colour a paragraph or a cell: bad (a regression, an alert), good (an improvement, a met target),
# warn (worth a look), muted (context, not news).
Tone = str | None


@dataclass(frozen=True)
class Paragraph:
    text: str
    tone: Tone = None


@dataclass(frozen=True)
class Bullets:
    items: tuple[Paragraph, ...]


@dataclass(frozen=True)
class Cell:
    text: str  # a line break in it is one in HTML; Markdown gives the cell one line
    tone: Tone = None
    numeric: bool = False  # right-aligned, tabular figures
    record: bool = False  # record text: set apart, never interpreted


@dataclass(frozen=True)
class Table:
    columns: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]
    caption: str = ""


@dataclass(frozen=True)
class Record:
    """A piece of record text with a label saying whose text it is ('Prompt of support-0001')."""

    label: str
    text: str


@dataclass(frozen=True)
class Chart:
    """An inline SVG (built by `chart.py`, which escapes its labels) with its data as a table for Markdown."""

    title: str
    svg: str
    data: Table


@dataclass(frozen=True)
class Figure:
    """Charts that answer one question, side by side (small multiples)."""

    title: str
    charts: tuple[Chart, ...]
    note: str = ""  # how to read the charts
    data_note: str = ""  # how to read their data tables, which Markdown shows instead: the chart's legend is no use


Block = Paragraph | Bullets | Table | Record | Figure


@dataclass(frozen=True)
class Subsection:
    title: str
    blocks: tuple[Block, ...]


@dataclass(frozen=True)
class Section:
    """One part of the report: `anchor` is its HTML id, `title` the question it answers."""

    anchor: str
    title: str
    blocks: tuple[Block, ...] = ()
    subsections: tuple[Subsection, ...] = ()


@dataclass(frozen=True)
class Fact:
    label: str
    value: str
    code: bool = False  # a command: shown as code


@dataclass(frozen=True)
class Report:
    title: str
    subtitle: str
    facts: tuple[Fact, ...]
    generated: str  # the one line that differs between two renders of the same week
    sections: tuple[Section, ...] = field(default_factory=tuple)
    # Why these figures are not the latest (ingested and not built yet, or the last build failed), shown at the top;
    # "" when all is published or that is unknown (evalhouse/build_status.py). Written for the app, which shows it
    # as Markdown, it marks commands and dbt node names as `code`: renderers split it with code_spans.
    stale: str = ""


_CODE_SPAN = re.compile(r"`([^`]+)`")


def code_spans(text: str) -> list[tuple[str, bool]]:
    """`text` as its pieces in order, each (text, is_code): a span between two backticks is code, without them;
    a lone backtick stays text. Nothing else is read as markup."""
    pieces: list[tuple[str, bool]] = []
    last = 0
    for span in _CODE_SPAN.finditer(text):
        if span.start() > last:
            pieces.append((text[last:span.start()], False))
        pieces.append((span.group(1), True))
        last = span.end()
    if last < len(text):
        pieces.append((text[last:], False))
    return pieces

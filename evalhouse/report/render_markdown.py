"""The report as Markdown to paste into a wiki: the same sections, tables as pipe tables, charts as their data (with
their data's note, not the chart's legend).

Text is escaped for Markdown (`\\`, `*`, `_`, backticks, brackets, `#`, `|`) and `<`, `>`, `&` become HTML
entities, so record text can neither format the page nor inject markup into a renderer that allows HTML.
"""

from __future__ import annotations

import re
from html import escape

from evalhouse.report.document import (
    Block, Bullets, Figure, Paragraph, Record, Report, Section, Table, code_spans,
)

_SPECIAL = re.compile(r"([\\`*_\[\]{}#|~!])")


def md_text(text: str) -> str:
    """Inline text: one line, Markdown specials backslash-escaped, <>& as entities."""
    one_line = " ".join(text.split())
    return _SPECIAL.sub(r"\\\1", escape(one_line, quote=False))


def render_markdown(report: Report) -> str:
    out = [f"# {md_text(report.title)}", "", md_text(report.subtitle), ""]
    if report.stale:
        out += [f"> **Not the latest figures:** {_with_code(report.stale)}", ""]
    for fact in report.facts:
        value = _code(fact.value) if fact.code else md_text(fact.value)
        out.append(f"- **{md_text(fact.label)}:** {value}")
    out += ["", md_text(report.generated), ""]
    for section in report.sections:
        out += _section(section)
    return "\n".join(out).rstrip("\n") + "\n"


def _section(section: Section) -> list[str]:
    lines = [f"## {md_text(section.title)}", ""]
    for block in section.blocks:
        lines += _block(block)
    for sub in section.subsections:
        lines += [f"### {md_text(sub.title)}", ""]
        for block in sub.blocks:
            lines += _block(block)
    return lines


def _block(block: Block) -> list[str]:
    if isinstance(block, Paragraph):
        text = md_text(block.text)
        return [f"**{text}**" if block.tone == "bad" else text, ""]
    if isinstance(block, Bullets):
        # Bold the bad lines as the paragraphs are: the glance's regression must not read like its other lines.
        return [f"- **{md_text(p.text)}**" if p.tone == "bad" else f"- {md_text(p.text)}" for p in block.items] + [""]
    if isinstance(block, Table):
        return _table(block)
    if isinstance(block, Record):
        body = [f"> {md_text(line)}" if line.strip() else ">" for line in block.text.splitlines()] or [">"]
        return [f"> *{md_text(block.label)}*", ">", *body, ""]
    if isinstance(block, Figure):
        lines = [f"**{md_text(block.title)}**", ""]
        for chart in block.charts:
            lines += [f"*{md_text(chart.title)}*", ""] + _table(chart.data)
        if block.data_note:
            lines += [md_text(block.data_note), ""]
        return lines
    raise TypeError(f"cannot render {type(block).__name__}")


def _table(table: Table) -> list[str]:
    lines = ["| " + " | ".join(md_text(c) or " " for c in table.columns) + " |",
             "|" + "|".join("---:" if _numeric_column(table, i) else "---" for i in range(len(table.columns))) + "|"]
    for row in table.rows:
        lines.append("| " + " | ".join(md_text(c.text) for c in row) + " |")
    lines.append("")
    if table.caption:
        lines += [f"*{md_text(table.caption)}*", ""]
    return lines


def _numeric_column(table: Table, index: int) -> bool:
    return bool(table.rows) and all(row[index].numeric for row in table.rows)


def _with_code(text: str) -> str:
    """One line of text whose `code spans` stay code spans (_code) and whose other pieces are escaped as md_text
    escapes them, the spaces around a span kept."""
    one_line = " ".join(text.split())
    return "".join(_code(piece) if is_code else _SPECIAL.sub(r"\\\1", escape(piece, quote=False))
                   for piece, is_code in code_spans(one_line))


def _code(text: str) -> str:
    """A code span, or escaped text when the span could not hold it literally everywhere (markup, backticks)."""
    if any(c in text for c in "<>&`\n"):
        return md_text(text)
    return f"`{text}`"

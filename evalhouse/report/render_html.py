"""The report as one self-contained HTML page: inline CSS, inline SVG charts, no script, no font, no image fetched.

Every text from the document tree goes through `html.escape`; the only raw markup inserted is the SVG that
`chart.py` drew (which escapes its own labels) and the <code> around the build-status notice's code spans. A
Content-Security-Policy forbids scripts and remote content, so even a mistake here could not run record text as
code.
"""

from __future__ import annotations

import re
from html import escape

from evalhouse.report.document import (
    Block, Bullets, Cell, Figure, Paragraph, Record, Report, Section, Subsection, Table, code_spans,
)

_CSS = """
:root { color-scheme: light; }
body { font-family: -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; color: #222; background: #fff;
       max-width: 1180px; margin: 0 auto; padding: 24px 28px 48px; line-height: 1.45; font-size: 15px; }
h1 { font-size: 26px; margin: 0 0 2px; }
h2 { font-size: 20px; margin: 34px 0 10px; padding-top: 10px; border-top: 2px solid #1f4e79; color: #1f4e79; }
h3 { font-size: 16px; margin: 22px 0 8px; }
.subtitle { color: #555; margin: 0 0 14px; font-size: 16px; }
.stale { background: #fff6e0; border-left: 4px solid #c98a00; color: #5c3d00; padding: 8px 12px; margin: 0 0 14px; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 4px 14px; margin: 0 0 8px;
           background: #f5f7fa; border: 1px solid #dde3ea; border-radius: 6px; padding: 12px 16px; }
dl.facts dt { font-weight: 600; color: #444; }
dl.facts dd { margin: 0; }
code { font-family: Menlo, Consolas, "Liberation Mono", monospace; font-size: 13px; background: #eef1f5;
       padding: 1px 5px; border-radius: 4px; word-break: break-all; }
.generated { color: #777; font-size: 13px; margin: 6px 0 10px; }
nav.contents { font-size: 14px; margin: 10px 0 0; }
nav.contents a { color: #1f4e79; margin-right: 14px; white-space: nowrap; }
p { margin: 8px 0; }
ul { margin: 8px 0; padding-left: 22px; }
li { margin: 4px 0; }
.tone-bad { color: #a3231a; }
.tone-good { color: #1d6b34; }
.tone-warn { color: #8a5a00; }
.tone-muted { color: #666; }
p.tone-bad, li.tone-bad { font-weight: 600; }
.table-wrap { overflow-x: auto; margin: 10px 0 4px; }
table { border-collapse: collapse; font-size: 13px; min-width: 50%; }
th, td { border-bottom: 1px solid #e1e5ea; padding: 5px 7px; text-align: left; vertical-align: top; }
td { overflow-wrap: break-word; }  /* the last resort for a long word with no <wbr> in it */
th { background: #eef2f7; font-weight: 600; border-bottom: 2px solid #c9d3de; }
tbody tr:nth-child(even) td { background: #fafbfc; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.tone-bad { background: #fdecea !important; }
td.tone-good { background: #eaf6ec !important; }
td.tone-warn { background: #fff6e0 !important; }
td.record { font-family: Menlo, Consolas, "Liberation Mono", monospace; font-size: 12px; white-space: pre-wrap;
            word-break: break-word; max-width: 420px; color: #333; }
.caption { color: #666; font-size: 12.5px; margin: 2px 0 12px; }
figure.record { margin: 10px 0; border-left: 4px solid #c9d3de; background: #f7f8fa; padding: 8px 12px; }
figure.record figcaption { font-size: 12.5px; color: #555; margin-bottom: 4px; }
figure.record blockquote { margin: 0; font-family: Menlo, Consolas, "Liberation Mono", monospace; font-size: 12.5px;
                           white-space: pre-wrap; word-break: break-word; }
figure.charts { margin: 12px 0; }
figure.charts > figcaption { font-weight: 600; margin-bottom: 6px; }
.chart-row { display: flex; flex-wrap: wrap; gap: 10px; }
.chart-row svg { border: 1px solid #e1e5ea; border-radius: 4px; background: #fff; }
.note { color: #666; font-size: 12.5px; }
footer { margin-top: 40px; color: #777; font-size: 12.5px; border-top: 1px solid #ddd; padding-top: 10px; }
@media print { h2 { break-after: avoid; } table, figure { break-inside: avoid; } }
"""

_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


def render_html(report: Report) -> str:
    out: list[str] = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(report.title)}</title>",
        f"<style>{_CSS}</style>",
        "</head>",
        "<body>",
        "<header>",
        f"<h1>{escape(report.title)}</h1>",
        f'<p class="subtitle">{escape(report.subtitle)}</p>',
    ]
    if report.stale:
        out.append(f'<p class="stale" role="alert">{_with_code(report.stale)}</p>')
    out += [
        '<dl class="facts">',
    ]
    for fact in report.facts:
        value = f"<code>{escape(fact.value)}</code>" if fact.code else escape(fact.value)
        out.append(f"<dt>{escape(fact.label)}</dt><dd>{value}</dd>")
    out.append("</dl>")
    out.append(f'<p class="generated">{escape(report.generated)}</p>')
    if len(report.sections) > 1:
        links = "".join(f'<a href="#{escape(s.anchor)}">{escape(s.title)}</a>' for s in report.sections)
        out.append(f'<nav class="contents">{links}</nav>')
    out.append("</header>")
    out.append("<main>")
    for section in report.sections:
        out.append(_section(section))
    out.append("</main>")
    out.append("<footer>Written by evalhouse from the warehouse's marts. Record text (prompts, responses, "
               "quarantined lines) is shown as text, cut to length.</footer>")
    out.append("</body>")
    out.append("</html>")
    return "\n".join(out) + "\n"


def _with_code(text: str) -> str:
    """Text whose `code spans` become <code> elements, every piece of it escaped: the only markup added is the
    element, so a backtick, `<` or `&` in the text cannot make any other."""
    return "".join(f"<code>{escape(piece)}</code>" if is_code else escape(piece) for piece, is_code in code_spans(text))


def _section(section: Section) -> str:
    parts = [f'<section id="{escape(section.anchor)}">', f"<h2>{escape(section.title)}</h2>"]
    parts += [_block(b) for b in section.blocks]
    for sub in section.subsections:
        parts.append(_subsection(sub))
    parts.append("</section>")
    return "\n".join(parts)


def _subsection(sub: Subsection) -> str:
    return "\n".join([f"<h3>{escape(sub.title)}</h3>", *(_block(b) for b in sub.blocks)])


def _block(block: Block) -> str:
    if isinstance(block, Paragraph):
        return f"<p{_tone(block.tone)}>{escape(block.text)}</p>"
    if isinstance(block, Bullets):
        items = "".join(f"<li{_tone(p.tone)}>{escape(p.text)}</li>" for p in block.items)
        return f"<ul>{items}</ul>"
    if isinstance(block, Table):
        return _table(block)
    if isinstance(block, Record):
        return (f'<figure class="record"><figcaption>{escape(block.label)}</figcaption>'
                f"<blockquote>{escape(block.text)}</blockquote></figure>")
    if isinstance(block, Figure):
        charts = "".join(chart.svg for chart in block.charts)
        note = f'<p class="note">{escape(block.note)}</p>' if block.note else ""
        return (f'<figure class="charts"><figcaption>{escape(block.title)}</figcaption>'
                f'<div class="chart-row">{charts}</div>{note}</figure>')
    raise TypeError(f"cannot render {type(block).__name__}")


def _table(table: Table) -> str:
    head = "".join(f"<th>{escape(c)}</th>" for c in table.columns)
    rows = "".join("<tr>" + "".join(_cell(c) for c in row) + "</tr>" for row in table.rows)
    caption = f'<p class="caption">{escape(table.caption)}</p>' if table.caption else ""
    return f'<div class="table-wrap"><table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></div>{caption}'


_LONG_WORD = re.compile(r"[^\s<>&]{20,}")
_SEPARATOR = re.compile(r"([/_])")


def _cell(cell: Cell) -> str:
    classes = [c for c in ("num" if cell.numeric else "", "record" if cell.record else "",
                           f"tone-{cell.tone}" if cell.tone else "") if c]
    attr = f' class="{" ".join(classes)}"' if classes else ""
    text = escape(cell.text)
    if not (cell.numeric or cell.record):
        # A long path or eval name (acme_groundedness_suite/groundedness) may break after its separators: unbroken,
        # it widened the model table past a 1200-pixel window. <wbr> is not copied with the text, as a space would be.
        text = _LONG_WORD.sub(lambda word: _SEPARATOR.sub(r"\1<wbr>", word.group()), text)
    if not cell.record:  # record text keeps its own lines (pre-wrap)
        # A cell's own line break: a figure and its interval in a numeric cell, which never wraps (Markdown: one line)
        text = "<br>".join(text.split("\n"))
    return f"<td{attr}>{text}</td>"


def _tone(tone: str | None) -> str:
    return f' class="tone-{tone}"' if tone else ""

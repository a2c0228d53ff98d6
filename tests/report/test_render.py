"""The renderers on hand-made reports: every text escaped, nothing fetched or run, the same tree gives the same text."""

from __future__ import annotations

import re
from dataclasses import replace

from evalhouse.report.chart import Band, ChartPoint, line_chart
from evalhouse.report.document import (
    Bullets, Cell, Chart, Fact, Figure, Paragraph, Record, Report, Section, Subsection, Table,
)
from evalhouse.report.render_html import render_html
from evalhouse.report.render_markdown import md_text, render_markdown

HOSTILE = "<script>alert('x')</script> & <img src=x onerror=alert(1)> | *bold* `code` [link](http://x)"


def _report(text: str = HOSTILE) -> Report:
    chart_svg = line_chart([ChartPoint("W44", 0.1, 0.0, 0.2), ChartPoint("W45", 1.2, 1.0, 1.4, marked=True)],
                           heading=text, y_label="bias", band=Band(0.0, -0.1, 0.1, text))
    table = Table(("Model", text), ((Cell(text), Cell(text, record=True)),), caption=text)
    return Report(
        title=text, subtitle=text, facts=(Fact(text, text), Fact("Command", text, code=True)),
        generated="Generated 2026-11-23 07:00:00 UTC",
        sections=(Section("s", text, (Paragraph(text, "bad"), Bullets((Paragraph(text),)), table,
                                      Record(text, text + "\nsecond line")),
                          (Subsection(text, (Figure(text, (Chart(text, chart_svg, table),), note=text),)),)),),
    )


def test_html_escapes_every_text_field():
    html = render_html(_report())
    assert "<script" not in html.lower()
    assert "<img" not in html.lower()
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html


def test_html_is_self_contained():
    html = render_html(_report("plain text"))
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html), "no remote resource may be referenced"
    assert "@import" not in html and "url(" not in html
    assert "Content-Security-Policy" in html and "default-src 'none'" in html
    assert html.startswith("<!DOCTYPE html>") and '<meta charset="utf-8">' in html


def test_generated_line_stands_alone_so_it_can_be_told_apart():
    html = render_html(_report("plain"))
    lines = [line for line in html.splitlines() if "Generated" in line]
    assert lines == ['<p class="generated">Generated 2026-11-23 07:00:00 UTC</p>']


def test_same_tree_renders_the_same_bytes():
    assert render_html(_report()) == render_html(_report())
    assert render_markdown(_report()) == render_markdown(_report())


def test_markdown_escapes_markup_and_table_pipes():
    md = render_markdown(_report())
    assert "<script" not in md and "<img" not in md
    assert "&lt;script&gt;" in md
    assert r"\|" in md and r"\*bold\*" in md and r"\`code\`" in md and r"\[link\]" in md
    table_lines = [line for line in md.splitlines() if line.startswith("|")]
    assert table_lines
    for line in table_lines:
        assert len(re.split(r"(?<!\\)\|", line)) == 4  # two columns: the escaped pipes split nothing


def test_markdown_keeps_record_lines_inside_the_quote():
    md = render_markdown(_report("line one\nline two"))
    assert "> line one" in md and "> line two" in md


def test_a_line_break_in_a_cell_breaks_the_html_cell_and_not_the_markdown_row():
    """The model table's pass@k cell puts its interval on a second line (td.num never wraps); a record's lines stay
    text, kept by pre-wrap."""
    table = Table(("pass@k", "Response"), ((Cell("0.92 (k = 4)\n[0.80, 0.97]", numeric=True),
                                           Cell("line one\nline two", record=True)),))
    report = Report(title="t", subtitle="s", facts=(), generated="g", sections=(Section("s", "S", (table,)),))
    html = render_html(report)
    assert '<td class="num">0.92 (k = 4)<br>[0.80, 0.97]</td>' in html
    assert '<td class="record">line one\nline two</td>' in html
    assert "| 0.92 (k = 4) \\[0.80, 0.97\\] | line one line two |" in render_markdown(report)


def test_md_text_is_one_line():
    assert md_text("a\n\nb\tc") == "a b c"


def test_chart_escapes_labels_and_marks_the_alert_week():
    svg = line_chart([ChartPoint("<W45>", 1.0, 0.8, 1.2, marked=True)], heading="a & <b>", y_label="y")
    assert "<W45>" not in svg and "&lt;W45&gt;" in svg
    assert "a &amp; &lt;b&gt;" in svg
    assert ">alert</text>" in svg


def test_chart_draws_points_without_values_as_gaps():
    svg = line_chart([ChartPoint("W1", None), ChartPoint("W2", 0.5)], heading="h", y_label="y")
    assert svg.count("<circle") == 1


# The build-status notice (evalhouse/build_status.py) marks commands and dbt nodes as Markdown code spans, for the
# app; the HTML printed them with their backticks.
STALE = ("The last build failed (1 test: `unique_fct_trials_trial_id`). To see why: `evalhouse --db 'w<1>&.duckdb' "
         "build` prints each failure.")


def test_html_shows_the_build_status_notices_code_spans_as_code_and_escapes_them():
    html = render_html(replace(_report("plain text"), stale=STALE))
    (notice,) = re.findall(r'<p class="stale" role="alert">(.*?)</p>', html)
    assert notice == ("The last build failed (1 test: <code>unique_fct_trials_trial_id</code>). To see why: "
                      "<code>evalhouse --db &#x27;w&lt;1&gt;&amp;.duckdb&#x27; build</code> prints each failure.")
    assert "`" not in notice


def test_a_hostile_notice_makes_no_markup_but_its_code_elements():
    html = render_html(replace(_report("plain text"), stale=f"{HOSTILE} `<b>x</b>` and a lone ` backtick"))
    (notice,) = re.findall(r'<p class="stale" role="alert">(.*?)</p>', html)
    assert re.findall(r"<(/?\w+)", notice) == ["code", "/code", "code", "/code"]
    assert "<code>&lt;b&gt;x&lt;/b&gt;</code>" in notice and "a lone ` backtick" in notice


def test_markdown_keeps_the_notices_code_spans_and_escapes_the_rest():
    lines = render_markdown(replace(_report("plain text"), stale=STALE + " *not bold*")).splitlines()
    (notice,) = [line for line in lines if line.startswith("> **Not the latest figures:**")]
    assert notice == ("> **Not the latest figures:** The last build failed (1 test: `unique_fct_trials_trial_id`). "
                      "To see why: evalhouse --db 'w&lt;1&gt;&amp;.duckdb' build prints each failure. \\*not bold\\*")

"""The weekly quality report: reads the warehouse's rpt_ marts (and a few other marts for lists) through one
read-only connection and writes one self-contained HTML file, or Markdown to paste into a wiki.

    from evalhouse.report import ReportRequest, write_report
    write_report(ReportRequest(db_path, week=parse_iso_week("2026-W47"), out=Path("report.html")))

The flow: `build.build_report` asks each module of `sections/` for its part of a `document.Report` (a neutral tree
of paragraphs, tables, record quotes and figures); `render_html` or `render_markdown` turns that tree into text.
Every string from the warehouse is escaped by the renderers, never by the sections.
"""

from evalhouse.report.build import (
    ReportRequest, build_report, latest_week, render, report_command, write_report, write_weekly_report,
)
from evalhouse.report.warehouse import ReportError
from evalhouse.report.weeks import iso_week_label, parse_iso_week

__all__ = [
    "ReportError",
    "ReportRequest",
    "build_report",
    "iso_week_label",
    "latest_week",
    "parse_iso_week",
    "render",
    "report_command",
    "write_report",
    "write_weekly_report",
]

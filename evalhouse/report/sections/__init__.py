"""One module per part of the report. Each has `build(context) -> Part`: the section, and the one line it adds to
"This week at a glance". Sections read the warehouse through `context.reader` only, with the week as a parameter,
and sort every list explicitly (the same warehouse and week give the same report, byte for byte)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from functools import cached_property

from evalhouse import build_settings
from evalhouse.build_settings import BuildSettings
from evalhouse.report.document import Paragraph, Section
from evalhouse.report.warehouse import Reader
from evalhouse.report.weeks import iso_week_label, previous_week


@dataclass(frozen=True)
class Context:
    reader: Reader
    week: dt.date  # the Monday of the report's week

    @cached_property
    def settings(self) -> BuildSettings:
        """The dbt vars the warehouse's last build used (marts.rpt_build_settings), which the sections quote."""
        return read_settings(self.reader)

    @property
    def label(self) -> str:
        return iso_week_label(self.week)

    @property
    def previous(self) -> dt.date:
        return previous_week(self.week)

    @property
    def previous_label(self) -> str:
        return iso_week_label(self.previous)


@dataclass(frozen=True)
class Part:
    section: Section
    headline: Paragraph  # the section's line in "This week at a glance"


def read_settings(reader: Reader) -> BuildSettings:
    # A warehouse built before the mart existed: dbt_project.yml's vars now, the best guess at what built it.
    row = reader.one(build_settings.SQL) if reader.has_table(build_settings.MART) else None
    return build_settings.from_row(row)


def not_available(mart: str) -> str:
    return f"Not available in this warehouse: it has no marts.{mart} (build it with a project version that has it)."

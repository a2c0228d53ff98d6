"""The report in a real headless Chromium: every section renders, and a screenshot is kept for a look."""

from __future__ import annotations

import os
import shutil
import subprocess
from html import escape
from pathlib import Path

import pytest

from evalhouse.report.build import GLANCE_TITLE, METHOD_TITLE, SECTION_MODULES
from evalhouse.report.sections import agreement, judge_drift, operations, safety

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    if not CHROMIUM.exists():
        pytest.skip("needs Debian's chromium at /usr/bin/chromium (.ci/run installs it)")
    return subprocess.run([str(CHROMIUM), *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", *args],
                          capture_output=True, text=True, timeout=180, check=False,
                          # its singleton socket's folder, left behind if the timeout kills it, goes with tmp_path
                          env={**os.environ, "TMPDIR": str(tmp_path)})


def test_report_renders_every_section_in_chromium(shifted_week_html, tmp_path):
    page = tmp_path / "report.html"
    page.write_text(shifted_week_html, encoding="utf-8")

    dom = _chromium(tmp_path, "--dump-dom", page.as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    headings = [GLANCE_TITLE, *(m.TITLE for m in SECTION_MODULES), METHOD_TITLE,
                agreement.FLAGGED_TITLE, safety.HAZARDS_TITLE, safety.REFUSALS_TITLE,
                operations.BACKLOG_TITLE, operations.QUARANTINE_TITLE]
    for heading in headings:
        assert f">{escape(heading, quote=False)}</h" in dom.stdout, f"missing section heading: {heading}"
    drift = dom.stdout[dom.stdout.index(f'id="{judge_drift.ANCHOR}"'):]
    assert "<svg" in drift and "<circle" in drift
    assert "<script" not in dom.stdout.lower()

    shot = tmp_path / "report.png"
    result = _chromium(tmp_path, f"--screenshot={shot}", "--window-size=1200,3000", page.as_uri())
    assert result.returncode == 0, result.stderr[-2000:]
    assert shot.exists() and shot.stat().st_size > 10_000
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

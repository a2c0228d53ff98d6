"""The report in a real headless Chromium: every section renders, and a screenshot is kept for a look."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
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
    # Chromium's singleton socket goes in a folder under TMPDIR, left behind if the timeout kills it: one of our
    # own, removed after. Not tmp_path, whose length under xdist passes the 107 bytes a socket's path may have.
    sockets = tempfile.mkdtemp(prefix="chromium-")
    try:
        return subprocess.run([str(CHROMIUM), *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", *args],
                              capture_output=True, text=True, timeout=180, check=False,
                              env={**os.environ, "TMPDIR": sockets})
    finally:
        shutil.rmtree(sockets, ignore_errors=True)


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


# Each table's wrapper, measured after layout: "scrollWidth/clientWidth" for every one, in order.
_MEASURE = """<script>addEventListener('load', () => {
  const out = document.createElement('pre'); out.id = 'widths';
  out.textContent = [...document.querySelectorAll('.table-wrap')]
    .map(w => w.scrollWidth + '/' + w.clientWidth + ' ' + w.querySelector('th').textContent).join('\\n');
  document.body.append(out);
});</script>"""


@pytest.mark.parametrize("week_html", ["shifted_week_html", "last_week_html"])
def test_every_table_fits_a_1200_pixel_window(week_html, request, tmp_path):
    """Mailed or printed, a table wider than the page loses its right-hand columns: the model table's pass@k and
    verdict, before its cells could break after '/' and '_'."""
    html = request.getfixturevalue(week_html)
    # The report forbids scripts; this copy, measured and thrown away, runs one.
    policy = html.index('<meta http-equiv="Content-Security-Policy"')
    probe = html[:policy] + html[html.index(">", policy) + 1:]
    page = tmp_path / "measured.html"
    page.write_text(probe.replace("</body>", _MEASURE + "</body>"), encoding="utf-8")

    dom = _chromium(tmp_path, "--dump-dom", "--window-size=1200,3000", page.as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    widths = dom.stdout[dom.stdout.index('<pre id="widths">') + len('<pre id="widths">'):]
    widths = widths[:widths.index("</pre>")].splitlines()
    assert len(widths) >= 5
    too_wide = [w for w in widths if int(w.split("/")[0]) > int(w.split("/")[1].split()[0])]
    assert not too_wide, f"tables wider than the page (scroll/visible px, first column): {too_wide}"

"""The app's theme: a blue primary colour, not Streamlit's default red, which made the Rate-an-item page's Submit
button and the review queue's read as destructive; found by `streamlit run app/streamlit_app.py` from whatever
directory it is launched in (`evalhouse serve`, `make demo`, the tests' StreamlitServer), and legible on white."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "app" / "streamlit_app.py"
BLUE = "#1565c0"

# What `streamlit run APP` does before it serves (streamlit/web/cli.py, _main_run): the main script's path first, so
# that the .streamlit folder beside it is read, then the config files. In a process of its own: the suite's AppTests
# share this one's config.
_SERVED_OPTION = """
import sys
from streamlit import config
from streamlit.web import bootstrap
config._main_script_path = sys.argv[1]
bootstrap.load_config_options(flag_options={})
print(config.get_option(sys.argv[2]))
"""


def _served_option(name: str, launched_in: Path) -> str:
    done = subprocess.run([sys.executable, "-c", _SERVED_OPTION, str(APP), name], cwd=launched_in,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_served_app_reads_its_blue_theme_from_any_directory_it_is_launched_in(tmp_path):
    elsewhere = tmp_path / "elsewhere"  # no .streamlit of its own: `evalhouse serve` run from a home folder
    elsewhere.mkdir()
    assert _served_option("theme.primaryColor", elsewhere) == BLUE
    assert _served_option("theme.base", elsewhere) == "light"
    assert _served_option("theme.primaryColor", APP.parents[1]) == BLUE  # `make demo`, from the repository


def _luminance(colour: str) -> float:
    channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def test_the_primary_colour_is_a_blue_legible_on_white_and_under_white_text():
    colour = tomllib.loads((APP.parent / ".streamlit" / "config.toml").read_text())["theme"]["primaryColor"]
    red, green, blue = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    assert blue > max(red, green), colour
    contrast = 1.05 / (_luminance(colour) + 0.05)  # against white, either way round (WCAG 2)
    assert contrast >= 4.5, f"{colour} against white: {contrast:.2f}:1, WCAG AA asks 4.5:1"

"""The column a reader came for (a verdict, its reason, a threshold, the share to compare) comes right after what
identifies a row, and long text wraps in a wide column: at 1400 px such columns were cut off or past the table's
edge. What identifies a row is pinned, so that it stays in view when a table wider than the page scrolls sideways,
within the room Streamlit keeps pinned columns in at 900 px. Read off the demo warehouse's pages."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from tests.app.conftest import LAST_WEEK, PAGES, iso_week, run_page
from tests.app.page_parts import chart_asking, problems, walk

pytestmark = pytest.mark.slow

WRAPS = 64  # st.dataframe wraps a cell's text only in rows taller than 4rem


def _table(at, column: str):
    """The first table with `column`: its element (proto and frame)."""
    return next(d for d in at.dataframe if column in d.value.columns)


def _config(table) -> dict[str, dict]:
    """The table's column_config as the browser receives it: column name -> its settings."""
    return {key.removeprefix("name:"): value for key, value in json.loads(table.proto.columns or "{}").items()}


def _captions(at) -> str:
    return " ".join(c.value for c in at.caption)


# -- specs ------------------------------------------------------------------------------------------------------------

def test_the_specs_tables_put_the_verdict_and_its_threshold_beside_the_model(demo_warehouse, app_env):
    app_env(demo_warehouse.path)
    at = run_page("specs", {"spec": "acme_groundedness_suite", "week": iso_week(LAST_WEEK)})
    assert not problems(at), problems(at)
    decisions = _table(at, "decision")
    assert list(decisions.value.columns[:4]) == ["model", "decision", "why", "composite [95% interval]"]
    # The threshold is the spec's: in every reason and the composite's help, not a column the reason pushed out.
    assert "threshold" not in decisions.value.columns
    config = _config(decisions)
    assert config["why"]["width"] == "large" and decisions.proto.row_height > WRAPS
    assert "The spec's promotion threshold is 0.85." in config["composite [95% interval]"]["help"]

    components = _table(at, "verdict").value
    assert list(components.columns[:5]) == ["component", "model", "verdict", "raw value", "threshold"]
    latency = components.set_index(["component", "model"]).loc[("latency", "acme/chat-13b")]
    assert latency["verdict"] == "misses its threshold" and latency["threshold"].startswith("<= ")


# -- agreement --------------------------------------------------------------------------------------------------------

def test_the_agreement_table_puts_the_verdict_first_and_raw_agreement_beside_the_share_to_compare(demo_warehouse,
                                                                                                   app_env):
    app_env(demo_warehouse.path)
    at = run_page("agreement", {"week": iso_week(LAST_WEEK)})
    assert not problems(at), problems(at)
    dimensions = _table(at, "most common value's share")
    assert list(dimensions.value.columns[:6]) == ["dimension", "verdict", "alpha", "target", "raw agreement",
                                                  "most common value's share"]
    assert "compare it with the most common value's share" in _captions(at)
    # hazard.privacy's ratings are all alike: its n/a is short enough to read whole, its help says what it means.
    alpha = dimensions.value.set_index("dimension")["alpha"]
    assert alpha["hazard.privacy"] == "n/a: every rating the same"
    assert "agreement beyond chance is undefined" in _config(dimensions)["alpha"]["help"]


def test_the_flagged_items_count_items_and_pairs_and_say_what_an_items_agreement_means(demo_warehouse, app_env):
    app_env(demo_warehouse.path)
    items, pairs = demo_warehouse.rows(
        "select count(distinct item_id), count(*) from marts.fct_item_disagreement where is_flagged and "
        "week_start = ?", [LAST_WEEK])[0]
    assert items < pairs, "the demo's week has items flagged on more than one dimension"
    at = run_page("agreement", {"week": iso_week(LAST_WEEK)})
    assert not problems(at), problems(at)
    # The Overview counts the week's flagged items (51 on the demo); the table's rows are item x dimension pairs.
    overview = demo_warehouse.scalar("select n_flagged_items from marts.rpt_weekly_summary where week_start = ?",
                                     [LAST_WEEK])
    assert overview == items
    assert f"{items:,} items ({pairs:,} item x dimension pairs) flagged" in _captions(at)
    flagged = _table(at, "item agreement, people")
    assert list(flagged.value.columns[:5]) == ["task", "model", "dimension", "item agreement, people",
                                               "people's ratings, side by side"]
    assert flagged.value.columns[-1] == "LLM judges' ratings (not counted)"
    help_ = _config(flagged)["item agreement, people"]["help"]
    assert "-3.86 means their ratings are 4.86 times as far apart as chance" in help_


def test_the_agreement_legend_draws_kappa_as_its_points_are_drawn(demo_warehouse, app_env):
    """The legend showed a dark circle for kappa, whose points are light grey diamonds: one legend over colour and
    shape gives each entry its own colour and shape."""
    app_env(demo_warehouse.path)
    at = run_page("agreement", {"week": iso_week(LAST_WEEK)})
    assert not problems(at), problems(at)
    spec, _ = chart_asking(at, "Which dimensions do people agree on well enough")
    points = next(node for node in walk(spec) if isinstance(node.get("shape"), dict))
    colour, shape = points["color"], points["shape"]
    assert colour["field"] == shape["field"] == "colour"
    assert colour["scale"]["domain"] == shape["scale"]["domain"]
    kappa = colour["scale"]["domain"].index("Fleiss' kappa (no target)")
    assert shape["scale"]["range"][kappa] == "diamond"
    assert {shape["scale"]["range"][i] for i in range(len(shape["scale"]["range"])) if i != kappa} == {"circle"}
    grey = colour["scale"]["range"][kappa].lstrip("#")
    assert min(int(grey[i:i + 2], 16) for i in (0, 2, 4)) >= 0x99, "kappa's grey is light, as its points are"
    assert "opacity" not in points, "the legend draws no opacity: a faint point would not look like its entry"


# -- review queue -----------------------------------------------------------------------------------------------------

def test_the_review_queue_says_why_an_item_waits_beside_it_and_which_wait_is_the_oldest(demo_warehouse, app_env):
    app_env(demo_warehouse.path)
    at = run_page("review_queue")
    assert not problems(at), problems(at)
    table = at.dataframe[0]
    assert list(table.value.columns) == ["task", "model", "waiting (days)", "why it waits", "submitted by", "judge"]
    assert _config(table)["why it waits"]["width"] == "large" and table.proto.row_height > WRAPS
    shown = table.value
    hazard = shown["why it waits"].str.contains("violating hazard")
    oldest = demo_warehouse.scalar("select max(age_days) from marts.fct_review_queue where source_format = 'eval_form'")
    card = next(m for m in at.metric if m.label == "Oldest wait")
    assert card.value == f"{oldest} days"
    # The first row is the oldest violating hazard, not the oldest of all: the caption and the card say which is which.
    assert shown["waiting (days)"].iloc[0] == shown.loc[hazard, "waiting (days)"].max() < oldest
    assert hazard.sum() > 1 and (~hazard).sum() > 1
    assert (f"{hazard.sum()} violating hazards first (the longest waiting {shown.loc[hazard, 'waiting (days)'].max()}"
            f" days), then {(~hazard).sum()} others (the longest waiting {oldest} days)") in _captions(at)
    assert "its first row may have waited less" in card.proto.help


# -- data quality -----------------------------------------------------------------------------------------------------

def test_data_quality_tables_print_counts_as_the_cards_do_and_say_what_is_wrong_beside_the_line(demo_warehouse,
                                                                                                 app_env):
    app_env(demo_warehouse.path)
    at = run_page("data_quality")
    assert not problems(at), problems(at)
    runs = _table(at, "records loaded")
    config = _config(runs)
    assert list(runs.value.columns[:3]) == ["started (UTC)", "records loaded", "quarantined"]
    assert runs.value.columns[-1] == "run"
    for column in ("records loaded", "quarantined", "repaired", "files"):
        assert config[column]["type_config"]["format"] == "%,d", column

    lines = _table(at, "error_pointer")
    assert list(lines.value.columns[:4]) == ["file_name", "source_line", "error_kind", "error_message"]
    assert lines.value.columns[-1] == "source_path"
    config = _config(lines)
    assert config["error_message"]["label"] == "what is wrong" and config["error_message"]["width"] == "large"
    assert lines.proto.row_height > WRAPS

    repairs = _table(at, "repair")
    assert list(repairs.value.columns[:3]) == ["file_name", "repair", "n_records"]
    assert _config(repairs)["n_records"]["type_config"]["format"] == "%,d"


# -- what identifies a row, pinned ----------------------------------------------------------------------------------

class _Shown:
    """A container that keeps what components.table gives st.dataframe."""

    def dataframe(self, frame: pd.DataFrame, **options) -> None:
        self.frame, self.options = frame, options


def test_a_tables_key_comes_first_pinned_as_far_as_the_room_streamlit_keeps_pinned_at_900_px(app_env):
    """Streamlit unpins every column of a table whose pinned ones take more than 60% of its width (430 px at 900
    px): a model's id is pinned, a hazard's name after it would take the room past that, and so is not, nor what
    comes after it in the key; what a reader acts on comes right after the key."""
    import components as c

    frame = pd.DataFrame({"n": [3, 40], "verdict": ["Better", "Worse"],
                          "hazard": ["Specialized advice (election, financial, health, legal)", "Privacy"],
                          "model": ["meta-llama/Llama-3.1-8B-Instruct", "acme/chat-7b"], "week": ["2026-W47"] * 2})
    shown = _Shown()
    c.table(frame, key=["model", "hazard", "week"], first=["verdict"], column_config={"week": "ISO week"},
            container=shown, height=200)
    assert list(shown.frame.columns) == ["model", "hazard", "week", "verdict", "n"]
    config = shown.options["column_config"]
    assert config["model"]["pinned"] is True
    assert c.text_px("meta-llama/Llama-3.1-8B-Instruct", c.TABLE_FONT_PX) < config["model"]["width"] <= c.PINNED_ROOM_PX
    assert c.PINNED_ROOM_PX == 258
    assert "hazard" not in config and config["week"] == {"label": "ISO week"}
    assert shown.options["hide_index"] is True and shown.options["height"] == 200

    # A width given in pixels is kept; short key columns are pinned side by side while they fit.
    c.table(frame[["week", "model", "n"]].assign(model="acme/chat-7b"), key=["week", "model"],
            column_config={"model": {"label": "model", "width": 120}}, container=shown)
    config = shown.options["column_config"]
    assert config["model"] == {"label": "model", "width": 120, "pinned": True}
    assert config["week"]["pinned"] is True and config["week"]["width"] + 120 <= c.PINNED_ROOM_PX


def test_a_cells_text_is_measured_within_a_few_pixels_of_chromiums_measure(app_env):
    """The widths Chromium measured for these texts in the table's font (Source Sans, 14 px): a pinned column as
    wide as its text shows it whole, and a key measured too wide would be left unpinned."""
    import components as c

    measured = {"meta-llama/Llama-3.1-8B-Instruct": 199, "openai/gpt-4.1-mini-2025-04-14": 185,
                "acme_groundedness_suite/json_validity": 237, "indiscriminate_weapons_cbrne": 184,
                "child_sexual_exploitation": 150, "acme/chat-13b": 88, "2026-W47": 57, "2026-11-23 14:05": 98,
                "waiting (days)": 82}
    for text, px in measured.items():
        # never short of the drawn text (it would be cut), and at most 5% over
        assert px <= c.text_px(text, c.TABLE_FONT_PX) <= 1.05 * px, (text, c.text_px(text, c.TABLE_FONT_PX), px)
    assert c.text_px("meta-llama/Llama-3.1-8B-Instruct", c.TABLE_FONT_PX) + c.CELL_PADDING_PX >= 199 + 16


# Each page's tables, in order, as the demo warehouse opens them: the columns pinned, which say which row it is. Where
# a key is wider than the room (a model's id and a hazard's name), its first column; none where a first column alone
# is (the repairs' file names, 60 characters).
PINNED = {
    "overview": [["model on eval"]],
    "leaderboard": [["model"], ["model"]],
    "reliability": [["model"], ["model"], ["trial_index"]],
    "safety": [["model"], ["model"]],
    "specs": [["model"], ["component"]],
    "agreement": [["dimension"], ["task"], ["rater_id", "rater_group"]],
    "judge_drift": [["week", "dimension"], ["dimension"]],
    "review_queue": [["task"], ["task_id"]],
    "rate_item": [],
    "data_quality": [["started (UTC)"], ["file_name", "source_line"], []],
}


@pytest.mark.parametrize("page", PAGES)
def test_every_table_pins_what_says_which_row_it_is_within_the_room_kept_at_900_px(page, demo_warehouse, app_env):
    app_env(demo_warehouse.path)
    at = run_page(page)
    assert not problems(at), problems(at)
    import components as c

    pinned = []
    for table in at.dataframe:
        config = _config(table)
        columns = [column for column in table.value.columns if config.get(column, {}).get("pinned")]
        pinned.append(columns)
        # the table's first columns, each with its width in pixels, all within the room Streamlit keeps them in
        assert columns == list(table.value.columns[:len(columns)]), (page, columns)
        widths = [config[column]["width"] for column in columns]
        assert all(isinstance(w, int) for w in widths) and sum(widths) <= c.PINNED_ROOM_PX, (page, columns, widths)
    assert pinned == PINNED[page]

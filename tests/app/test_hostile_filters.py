"""Hostile strings through every filter of the app: no SQL is ever built from them. The app's SQL is constant text
(checked in the source), and a warehouse whose model, judge, eval and dimension names are SQL-injection payloads
is browsed with every page's filters set to those names: every page renders, the payloads are selected and
shown as text, and the warehouse is exactly as it was. No page can render record text as HTML either."""

from __future__ import annotations

import ast
import shutil

import duckdb
import pytest

from evalhouse.checksums import mart_checksums
from evalhouse.demo.world import REGRESSING_MODEL, SHIFTED_JUDGE_ID
from tests.app.conftest import APP_DIR, PAGES, run_page
from tests.conftest import Warehouse

HOSTILE_MODEL = "acme'; drop table marts.fct_benchmark_results; --"
HOSTILE_JUDGE = 'judge"); delete from marts.fct_judge_drift; --\u202e'
HOSTILE_OTHER = ["x' or '1'='1", "y; select 1 --", "z\u0000中文🙂"]

# Every URL parameter a page filter reads (components.Filters, param=...).
FILTER_PARAMS = ["evaluation", "model", "metric", "trend", "judge", "dimension", "flagged", "group", "reason", "file",
                 "line", "spec", "week"]


def _calls_with_sql(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("query", "execute"):
            if node.args:
                yield node


def _constant_names(tree: ast.AST) -> set[str]:
    """Names assigned only ever a constant string in this module."""
    assigned: dict[str, bool] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            constant = isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
            for target in node.targets:
                if isinstance(target, ast.Name):
                    assigned[target.id] = assigned.get(target.id, True) and constant
    return {name for name, constant in assigned.items() if constant}


def _imported_constants(tree: ast.AST) -> set[str]:
    """'module.NAME' for each module this one imports from evalhouse (`from evalhouse.report.sections import
    model_scores`) and each name that module assigns only ever a constant string: the weekly report's own query,
    which a page reads as the report does."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("evalhouse"):
            for alias in node.names:
                source = APP_DIR.parent.joinpath(*node.module.split("."), f"{alias.name}.py")
                if source.exists():
                    names = _constant_names(ast.parse(source.read_text(encoding="utf-8")))
                    found |= {f"{alias.asname or alias.name}.{name}" for name in names}
    return found


def test_every_query_in_the_app_is_constant_sql():
    """The first argument of every .query(...)/.execute(...) in app/ is a string literal, a name bound only to one,
    or such a name of an evalhouse module the file imports; db.py's own pass-through of the caller's `sql` is the one
    exception."""
    offenders = []
    for path in sorted(APP_DIR.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        constants = _constant_names(tree)
        imported = _imported_constants(tree)
        for call in _calls_with_sql(tree):
            sql = call.args[0]
            if isinstance(sql, ast.Constant) and isinstance(sql.value, str):
                continue
            if isinstance(sql, ast.Name) and (sql.id in constants or (path.name == "db.py" and sql.id == "sql")):
                continue
            if isinstance(sql, ast.Attribute) and ast.unparse(sql) in imported:
                continue
            offenders.append(f"{path.relative_to(APP_DIR)}:{call.lineno}: {ast.unparse(sql)[:60]}")
    assert not offenders, "SQL built from values instead of bound parameters:\n" + "\n".join(offenders)


@pytest.fixture(scope="module")
def hostile_warehouse(demo_warehouse, tmp_path_factory) -> Warehouse:
    """The demo warehouse with one model and one judge renamed to payloads in every mart (in the tables, and in
    the intermediate tables under the marts that are views), and every eval name and dimension given a payload
    suffix: the payloads become filter options a link can select."""
    path = tmp_path_factory.mktemp("hostile") / "hostile.duckdb"
    shutil.copy2(demo_warehouse.path, path)
    with duckdb.connect(str(path)) as con:
        columns = con.execute(
            """
            select c.table_schema, c.table_name, c.column_name from information_schema.columns c
            join information_schema.tables t using (table_schema, table_name)
            where c.table_schema in ('marts', 'intermediate') and t.table_type = 'BASE TABLE'
              and c.data_type = 'VARCHAR' and c.column_name in ('model_id', 'judge_id', 'rater_id')
            """
        ).fetchall()
        for schema, table, column in columns:
            for new, old in [(HOSTILE_MODEL, REGRESSING_MODEL), (HOSTILE_JUDGE, SHIFTED_JUDGE_ID)]:
                con.execute(f'update "{schema}"."{table}" set "{column}" = ? where "{column}" = ?', [new, old])
    return Warehouse(path)


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES)
def test_every_filter_takes_hostile_values_as_data(page, hostile_warehouse, app_env):
    before = mart_checksums(hostile_warehouse.path)
    app_env(hostile_warehouse.path)
    query = {param: [HOSTILE_MODEL, HOSTILE_JUDGE, *HOSTILE_OTHER] for param in FILTER_PARAMS}
    query.update(model=HOSTILE_MODEL, judge=HOSTILE_JUDGE)
    at = run_page(page, query)
    problems = [f"exception: {e.value}" for e in at.exception] + [f"error box: {e.value}" for e in at.error]
    assert not problems
    assert at.title[0].value == PAGES[page]
    chosen = [w.value for w in [*at.selectbox, *at.multiselect]]
    flat = [v for value in chosen for v in (value if isinstance(value, list) else [value])]
    if page in ("leaderboard", "reliability", "review_queue"):
        assert HOSTILE_MODEL in flat, f"{page} did not select the hostile model from its link"
    if page == "judge_drift":
        assert HOSTILE_JUDGE in flat, "judge drift did not select the hostile judge from its link"
    assert not any(v in flat for v in HOSTILE_OTHER), "a value that is not an option was selected"
    assert mart_checksums(hostile_warehouse.path) == before, f"browsing {page} changed the warehouse"
    # Record text (the demo's carries <script> and <img onerror> payloads) is never markup: no element the page
    # sends may allow HTML.
    html_allowed = [e.value[:60] for e in at.markdown if e.proto.allow_html]
    assert not html_allowed, f"{page} renders markdown with HTML allowed: {html_allowed}"
    assert not at.get("html"), f"{page} renders raw HTML"


def test_no_page_can_render_record_text_as_html():
    """The app never asks Streamlit to render HTML: no unsafe_allow_html, st.html or custom components."""
    used = [f"{path.relative_to(APP_DIR)}: {needle}" for path in sorted(APP_DIR.rglob("*.py"))
            for needle in ("unsafe_allow_html", "st.html(", "components.v1", "components.html")
            if needle in path.read_text(encoding="utf-8")]
    assert not used, used

"""The evalhouse app: navigation over the pages in app_pages/, which read the marts through db.py.

`evalhouse serve` runs it; EVALHOUSE_DB selects the warehouse file and EVALHOUSE_LANDING the folder the review
page writes to.
"""

import datetime as dt

import streamlit as st

import components
import db

st.set_page_config(page_title="evalhouse", page_icon=":material/analytics:", layout="wide")

pages = {
    "This week": [
        st.Page("app_pages/overview.py", title="Overview", icon=":material/dashboard:", default=True),
    ],
    "Models": [
        st.Page("app_pages/leaderboard.py", title="Leaderboard", icon=":material/leaderboard:"),
        st.Page("app_pages/reliability.py", title="Reliability", icon=":material/repeat:"),
        st.Page("app_pages/safety.py", title="Safety", icon=":material/health_and_safety:"),
        st.Page("app_pages/specs.py", title="Specs", icon=":material/rule:"),
    ],
    "Raters and judges": [
        st.Page("app_pages/agreement.py", title="Agreement", icon=":material/handshake:"),
        st.Page("app_pages/judge_drift.py", title="Judge drift", icon=":material/trending_up:"),
        st.Page("app_pages/review_queue.py", title="Review queue", icon=":material/rate_review:"),
        st.Page("app_pages/rate_item.py", title="Rate an item", icon=":material/star_rate:"),
    ],
    "Warehouse": [
        st.Page("app_pages/data_quality.py", title="Data quality", icon=":material/fact_check:"),
    ],
}

page = st.navigation(pages)

path = db.warehouse_path()
try:
    built = dt.datetime.fromtimestamp(path.stat().st_mtime, dt.timezone.utc)  # UTC, as every time in the app
    st.sidebar.caption(f"Warehouse `{path.name}`, last written {built:%Y-%m-%d %H:%M} UTC.")
except FileNotFoundError:
    st.sidebar.caption(f"No warehouse file at `{path}` yet.")

st.session_state[components.NOTED_KEY] = False  # a page shows at most one "build running" note per run
components.build_status_notice()  # ingested and not built yet, or the last build failed: above every page
page.run()

"""The evalhouse app: navigation over the pages in app_pages/, which read the marts through db.py."""

import streamlit as st

st.set_page_config(page_title="evalhouse", page_icon=":material/analytics:", layout="wide")

pages = {
    "Warehouse": [
        st.Page("app_pages/data_quality.py", title="Data quality", icon=":material/fact_check:", default=True),
    ],
}

st.navigation(pages).run()

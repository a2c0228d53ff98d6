"""Data quality: what each ingest loaded per format, what it quarantined and why, and which repairs files needed."""

import altair as alt
import streamlit as st

import db

st.title("Data quality")
st.caption("What was loaded, per format; what was refused and why; which compatibility repairs real files needed.")

files = db.query(
    """
    select format, count(distinct source_path) as files, sum(n) as records
    from (
        select f.source_path, j.key as format, cast(j.value as bigint) as n
        from marts.fct_ingested_files as f, json_each(f.accepted_by_format_json) as j
    )
    group by format
    order by format
    """
)
quarantine = db.query(
    """
    select quarantine_id, source_path, source_line, format, error_kind, error_pointer, error_message,
           raw_text, quarantined_at
    from marts.fct_quarantined_lines
    order by quarantined_at desc, source_path, source_line
    """
)

if files.missing and quarantine.missing:
    st.info("The warehouse is empty: run `make demo`, or `evalhouse ingest PATH` then `evalhouse build`.")
    st.stop()
for result in (files, quarantine):
    if result.stale_since is not None:
        st.warning(f"A build is running: showing the data as of {result.stale_since:%H:%M:%S}.")
        break

accepted = int(files.frame["records"].sum()) if not files.frame.empty else 0
n_files = int(files.frame["files"].sum()) if not files.frame.empty else 0
left, middle, right = st.columns(3)
left.metric("Records loaded", f"{accepted:,}")
middle.metric("Files", f"{n_files:,}")
right.metric("Lines quarantined", f"{len(quarantine.frame):,}")

st.subheader("What was loaded, per format")
if files.frame.empty:
    st.info("No records loaded yet.")
else:
    chart = (
        alt.Chart(files.frame, title="How many records of each format are in the warehouse?")
        .mark_bar()
        .encode(
            x=alt.X("records:Q", title="records loaded"),
            y=alt.Y("format:N", title="format", sort="-x"),
            tooltip=["format", "files", "records"],
        )
    )
    st.altair_chart(chart, use_container_width=True)
    st.dataframe(files.frame, hide_index=True, use_container_width=True)

st.subheader("What was quarantined, and why")
if quarantine.frame.empty:
    st.success("No line has been quarantined.")
else:
    by_reason = quarantine.frame.groupby(["format", "error_kind"], as_index=False).size()
    chart = (
        alt.Chart(by_reason, title="Why were lines refused?")
        .mark_bar()
        .encode(
            x=alt.X("size:Q", title="lines quarantined"),
            y=alt.Y("error_kind:N", title="reason", sort="-x"),
            color=alt.Color("format:N", title="format"),
            tooltip=["format", "error_kind", "size"],
        )
    )
    st.altair_chart(chart, use_container_width=True)
    # st.dataframe shows text as text: record text is never rendered as HTML.
    st.dataframe(
        quarantine.frame,
        hide_index=True,
        use_container_width=True,
        column_config={"raw_text": st.column_config.TextColumn("raw text", width="large")},
    )

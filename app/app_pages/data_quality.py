"""Data quality: each ingest run and what it loaded, every quarantined line with its reason and raw text (by default
those still refused, not those a later run loaded), and the compatibility repairs each file needed."""

import altair as alt
import pandas as pd
import streamlit as st

import components as c
import db

COUNT = "%,d"  # counts with thousands separators in tables, as the cards print them (18,370)


def _count_columns(*labels: str) -> dict[str, st.column_config.NumberColumn]:
    return {label: st.column_config.NumberColumn(format=COUNT) for label in labels}


def _pointer(pointer: object) -> str:
    """No pointer (the line is not JSON) and the empty pointer (RFC 6901: the whole document) both mean the line."""
    return c.text_or(pointer, "whole line")


def _quarantine_section(q: pd.DataFrame, filters: c.Filters, with_loaded: bool) -> None:
    """The refused lines in view (still refused, or all with those a later run loaded): why, and each one."""
    by_reason = q.groupby(["error_kind", "source_format"], as_index=False, dropna=False).size()
    # The reason in words ("invalid JSON"); the filter below and the URL keep its key (invalid_json).
    by_reason["reason"] = by_reason["error_kind"].map(c.said)
    chart = alt.Chart(by_reason).mark_bar().encode(
        x=alt.X("size:Q", title="lines quarantined", axis=alt.Axis(format="d", tickMinStep=1)),
        y=alt.Y("reason:N", title=None, sort="-x"),
        color=alt.Color("source_format:N", title="format", scale=alt.Scale(scheme="tableau10"),
                        legend=alt.Legend(orient="bottom")),
        tooltip=[alt.Tooltip("reason:N", title="reason"), alt.Tooltip("source_format:N", title="format"),
                 alt.Tooltip("size:Q", title="lines")],
    )
    question = "Why were lines refused?" if with_loaded else "Why are lines still refused?"
    c.show_chart(chart.properties(height={"step": 28}, title=c.title(question)))
    left, right = st.columns(2)
    kinds = filters.multiselect("Reason", sorted(q["error_kind"].dropna().unique()), param="reason", container=left,
                                placeholder="All reasons", format_func=c.said)
    files = filters.multiselect("File", sorted(q["source_path"].dropna().unique()), param="file", container=right,
                                placeholder="All files")
    mask = pd.Series(True, index=q.index)
    if kinds:
        mask &= q["error_kind"].isin(kinds)
    if files:
        mask &= q["source_path"].isin(files)
    shown = q[mask].copy()
    shown["error_pointer"] = [_pointer(p) for p in shown["error_pointer"]]
    shown["file_name"] = shown["source_path"].str.rsplit("/", n=1).str[-1]
    shown["error_kind"] = shown["error_kind"].map(c.said)
    st.caption(f"{c.plural(len(shown), 'line')}. The raw text is the line exactly as it was read, shown as text.")
    # st.dataframe shows text as text: record text is never rendered as HTML. What is wrong right after the line it
    # is about (the file's name; its path comes last): sixth, after the whole path, it was past the table's edge.
    columns = ["file_name", "source_line", "error_kind", "error_message", "error_pointer", "source_format",
               "raw_text", "quarantined_at"] + (["loaded_later_at"] if with_loaded else []) + ["source_path"]
    c.table(
        shown[columns],
        # what is wrong, on one line, was cut off at 1400 px
        key=["file_name", "source_line"], row_height=c.THREE_LINE_ROW_PX,
        height=c.wrapped_table_height(len(shown), c.THREE_LINE_ROW_PX),
        column_config={
            "file_name": st.column_config.TextColumn("file", help="The file's name; its path is the last column."),
            "source_line": st.column_config.NumberColumn("line", format=COUNT),
            "error_kind": "reason",
            "error_message": st.column_config.TextColumn(
                "what is wrong", width="large",
                help="The ingester's message: what failed, where, and what to do. Pick the line below to read it "
                     "with its raw text in full."),
            "error_pointer": st.column_config.TextColumn(
                "JSON pointer", help="The failing part of the record; whole line where the line is not JSON."),
            "source_format": "format",
            "raw_text": st.column_config.TextColumn("raw text", width="large"),
            "quarantined_at": st.column_config.DatetimeColumn("refused (UTC)", format="YYYY-MM-DD HH:mm"),
            "loaded_later_at": st.column_config.DatetimeColumn("loaded later (UTC)", format="YYYY-MM-DD HH:mm"),
            "source_path": "path",
        },
    )
    if not shown.empty:
        labels = {q_id: f"{p.rsplit('/', 1)[-1]} line {c.count(n)} · {k}" for q_id, p, n, k in
                  zip(shown["quarantine_id"], shown["source_path"], shown["source_line"], shown["error_kind"])}
        picked = filters.selectbox("Read one line in full", list(labels), param="line", format_func=labels.get,
                                   help="A link to this page with ?line=<quarantine_id> opens one line.")
        line = shown[shown["quarantine_id"] == picked].iloc[0]
        st.caption(f"{line['source_path']}, line {c.count(line['source_line'])}; pointer {line['error_pointer']}")
        st.code(line["error_message"], language="text", wrap_lines=True)
        st.code(line["raw_text"] if not c.is_na(line["raw_text"]) else "", language="json", wrap_lines=True)
        if not c.is_na(line["loaded_later_at"]):
            st.caption(f"Loaded later as {line['loaded_later_source_format']}, by run {line['loaded_later_batch_id']} "
                       f"at {line['loaded_later_at']:%Y-%m-%d %H:%M} UTC: this refusal needs no more work.")
        if c.is_true(line["raw_text_truncated"]):
            st.caption("Only the start of this oversized line is kept here; the file has the rest.")


st.title("What was loaded, refused and repaired")
st.caption(
    "Every ingest run with what it loaded; every line the ingester refused, with the reason, the JSON pointer of the "
    "failing part and its original text; and the named compatibility repairs real files needed. Nothing is lost: a "
    "refused line stays on record, and once a later ingest loads it (its file fixed, renamed back or read with other "
    "options) or finds it loaded already (the file whole again, or the line edited back) it is marked loaded later "
    "and no longer counted as still refused."
)

runs = db.query(
    """
    select
        batch_id,
        min(started_at) as started_at,
        max(finished_at) as finished_at,
        count(*) as n_files,
        count(case when status = 'loaded' then 1 end) as n_loaded,
        count(case when status = 'failed' then 1 end) as n_failed,
        count(case when status not in ('loaded', 'failed') then 1 end) as n_other,
        sum(n_accepted) as n_accepted,
        sum(n_repaired) as n_repaired,
        sum(n_quarantined) as n_quarantined,
        sum(n_skipped) as n_skipped,
        sum(file_bytes) as n_bytes,
        bool_or(was_strict) as was_strict,
        sum(duration_ms) as duration_ms
    from marts.fct_ingested_files
    group by batch_id
    order by min(started_at) desc
    """
)
formats = db.query(
    """
    select j.key as format, count(distinct f.source_path) as files, sum(cast(j.value as bigint)) as records
    from marts.fct_ingested_files as f, json_each(f.accepted_by_format_json) as j
    group by j.key
    order by j.key
    """
)
quarantine = db.query(
    """
    select quarantine_id, source_path, source_line, source_format, schema_version, error_kind, error_pointer,
           error_message, raw_text, raw_text_truncated, batch_id, quarantined_at, loaded_later_at,
           loaded_later_batch_id, loaded_later_source_format
    from marts.fct_quarantined_lines
    order by quarantined_at desc, source_path, source_line
    """
)
repairs = db.query(
    """
    select source_path, source_format, repair, n_records, n_accepted_in_file, share_of_accepted, ingested_at, batch_id
    from marts.fct_compatibility_repairs
    order by ingested_at desc, source_path, repair
    """
)
spec_conflicts = db.query(
    """
    select spec_id, spec_kind, spec_version, source_path, source_line, ingested_at, reason
    from marts.fct_spec_id_conflicts
    order by spec_id, spec_kind
    """
)
c.notes(runs, formats, quarantine, repairs, spec_conflicts)
if c.whole_warehouse_missing(runs, quarantine):
    st.stop()

accepted = int(formats.frame["records"].sum()) if not formats.frame.empty else 0
n_files = int(runs.frame["n_files"].sum()) if not runs.frame.empty else 0
cards = st.columns(4)
cards[0].metric("Records loaded", f"{accepted:,}", help="Records in the warehouse, over every ingest run.")
cards[1].metric("File loads", f"{n_files:,}", help="Files read by ingest runs (a file read by two runs counts twice).")
n_loaded_later = int(quarantine.frame["loaded_later_at"].notna().sum()) if not quarantine.frame.empty else 0
cards[2].metric("Lines still refused", f"{len(quarantine.frame) - n_loaded_later:,}",
                help=f"Lines refused and not loaded by any later run, with their reasons below ({n_loaded_later:,} "
                     f"more were refused, then loaded by a later run of the same file).")
# A record can need several repairs: fct_compatibility_repairs has a row per file and repair, so its n_records add
# up to repairs applied; the manifest counts each repaired record once.
n_repaired = int(runs.frame["n_repaired"].fillna(0).sum()) if not runs.frame.empty else 0
n_repairs = int(repairs.frame["n_records"].sum()) if not repairs.frame.empty else 0
cards[3].metric("Records repaired", f"{n_repaired:,}",
                help=f"Records accepted thanks to at least one named compatibility repair (README, Compatibility "
                     f"repairs). A record can need several: {n_repairs:,} repairs applied in all, per repair below.")

# -- ingest runs -----------------------------------------------------------------------------------------------------
st.subheader("Ingest runs")
if not c.empty_state(runs, "ingest runs", "Run `evalhouse ingest PATH` (or `make demo`)."):
    r = runs.frame
    c.table(
        pd.DataFrame({
            # What each run loaded and refused first; its id, for the manifest and the logs, last.
            "started (UTC)": r["started_at"], "records loaded": r["n_accepted"], "quarantined": r["n_quarantined"],
            "repaired": r["n_repaired"], "already loaded (skipped)": r["n_skipped"], "files": r["n_files"],
            "files loaded": r["n_loaded"], "failed": r["n_failed"], "empty or unreadable": r["n_other"],
            "MB": r["n_bytes"] / 1e6, "seconds": r["duration_ms"] / 1000, "strict": r["was_strict"],
            "run": r["batch_id"],
        }),
        key=["started (UTC)"],
        column_config={
            "started (UTC)": st.column_config.DatetimeColumn(format="YYYY-MM-DD HH:mm:ss"),
            **_count_columns("records loaded", "repaired", "already loaded (skipped)", "files",
                             "files loaded", "failed", "empty or unreadable"),
            "quarantined": st.column_config.NumberColumn(
                format=COUNT, help="Lines refused by the run, with their reasons under Quarantined lines."),
            "MB": st.column_config.NumberColumn(format="%.1f"),
            "seconds": st.column_config.NumberColumn(format="%.1f"),
            "run": st.column_config.TextColumn(help="The run's batch id, as the ingest manifest names it."),
        },
    )
    failed = db.query(
        """
        select source_path, status, message, started_at from marts.fct_ingested_files
        where status <> 'loaded' order by started_at desc
        """
    )
    if not failed.frame.empty:
        st.caption("Files not loaded whole, and why (nothing of a failed file is kept; fix it and ingest again):")
        c.table(failed.frame, key=["source_path"], first=["status", "message"],
                column_config={"message": st.column_config.TextColumn(width="large")})

if not formats.frame.empty:
    chart = alt.Chart(formats.frame).mark_bar().encode(
        x=alt.X("records:Q", title="records loaded"),
        y=alt.Y("format:N", title=None, sort="-x"),
        tooltip=["format", alt.Tooltip("files:Q", title="files"), alt.Tooltip("records:Q", title="records")],
    )
    labels = chart.mark_text(align="left", dx=4).encode(text=alt.Text("records:Q", format=","))
    c.show_chart((chart + labels).properties(height={"step": 30}, title=c.title(
        "How many records of each format are in the warehouse?")))

# -- quarantine ------------------------------------------------------------------------------------------------------
st.subheader("Quarantined lines, and why")
if quarantine.missing:
    c.empty_state(quarantine, "quarantine")
elif quarantine.frame.empty:
    st.success("No line has been quarantined.", icon=":material/check_circle:")
else:
    filters = c.Filters("data_quality")
    shows = {"refused": "Still refused", "all": "All, with those loaded later"}
    show = filters.segmented("Lines", list(shows), param="show", default="refused", format_func=shows.get,
                             help="A line refused by one run and loaded by a later run of the same file (completed "
                                  "or corrected in place, its name restored, --strict or a wrong --format dropped), "
                                  "or found loaded already by a later run (the file whole again, the line edited "
                                  "back), needs no more work.")
    st.caption(f"{n_loaded_later:,} of the {c.plural(len(quarantine.frame), 'refused line')} "
               f"{'was' if n_loaded_later == 1 else 'were'} loaded by a later run of the same file"
               + (f", and {'is' if n_loaded_later == 1 else 'are'} left out here."
                  if show == "refused" and n_loaded_later else "."))
    q = quarantine.frame if show == "all" else quarantine.frame[quarantine.frame["loaded_later_at"].isna()]
    if q.empty:
        st.success("Every refused line was loaded by a later run.", icon=":material/check_circle:")
    else:
        _quarantine_section(q, filters, show == "all")

# -- repairs ---------------------------------------------------------------------------------------------------------
st.subheader("Compatibility repairs, per file")
if repairs.missing:
    c.empty_state(repairs, "repairs")
elif repairs.frame.empty:
    st.success("No file needed a compatibility repair.", icon=":material/check_circle:")
else:
    rp = repairs.frame
    totals = rp.groupby("repair", as_index=False).agg(files=("source_path", "nunique"), records=("n_records", "sum"))
    chart = alt.Chart(totals).mark_bar().encode(
        x=alt.X("records:Q", title="records that needed the repair"),
        y=alt.Y("repair:N", title=None, sort="-x", axis=alt.Axis(labelLimit=300)),
        tooltip=["repair", alt.Tooltip("files:Q", title="files"), alt.Tooltip("records:Q", title="records")],
    )
    c.show_chart(chart.properties(height={"step": 30}, title=c.title(
        "Which compatibility repairs did real files need?",
        "Without --strict, these named repairs decide the verdict; the stored text is never changed.")))
    st.caption(f"{n_repairs:,} repairs applied to {n_repaired:,} records: a record can need more than one.")
    # The repair and its share of the file after the file's name: after the whole path, they were past the edge.
    c.table(
        rp.assign(file_name=rp["source_path"].str.rsplit("/", n=1).str[-1])[
            ["file_name", "repair", "n_records", "n_accepted_in_file", "share_of_accepted", "source_format",
             "ingested_at", "source_path"]],
        key=["file_name", "repair"],
        column_config={
            "file_name": st.column_config.TextColumn("file", help="The file's name; its path is the last column."),
            "source_path": "path", "source_format": "format",
            "n_records": st.column_config.NumberColumn("records repaired", format=COUNT),
            "n_accepted_in_file": st.column_config.NumberColumn("records in file", format=COUNT),
            "share_of_accepted": st.column_config.ProgressColumn("share of the file", format="percent",
                                                                 min_value=0, max_value=1),
            "ingested_at": st.column_config.DatetimeColumn("ingested (UTC)", format="YYYY-MM-DD HH:mm"),
        },
    )

# -- specs left unscored -------------------------------------------------------------------------------------------
st.subheader("Specs left unscored: one id, two specs")
if spec_conflicts.missing:
    c.empty_state(spec_conflicts, "spec id conflicts")
elif spec_conflicts.frame.empty:
    st.success("No spec id is used by both a draft-standard evaluation and an ADP suite.",
               icon=":material/check_circle:")
else:
    sc = spec_conflicts.frame.assign(spec_kind=lambda f: f["spec_kind"].map(c.said))
    n_conflicts = sc["spec_id"].nunique()
    st.warning(f"{c.plural(n_conflicts, 'spec id')} name{'s' if n_conflicts == 1 else ''} both a draft-standard "
               "evaluation and an ADP suite: "
               "results name a spec by its id alone, so neither spec is scored and neither decides a promotion "
               "until one is renamed.", icon=":material/warning:")
    c.table(
        sc, key=["spec_id"],
        column_config={
            "spec_id": "spec id", "spec_kind": "kind", "spec_version": "latest version", "source_path": "file",
            "source_line": "line", "ingested_at": st.column_config.DatetimeColumn("ingested (UTC)",
                                                                                  format="YYYY-MM-DD HH:mm"),
        },
    )

"""Review queue: a person picks a judge's eval form that needs confirming, reads the task and the response, accepts
or changes each pre-filled field, and submits a hybrid eval form. The record is validated by the ingester's
schema, appended to the landing folder and ingested; nothing typed is lost when it fails."""

import json

import pandas as pd
import streamlit as st

import components as c
import db
import review

REASONS = {"violating hazard": "violating hazard", "low score": "score <=", "low confidence": "confidence"}
FLASH = "review.flash"


def reasons_said(reasons: object) -> str:
    """Why a judge form waits, with its hazards and dimensions by the names the form below gives them
    ("violating hazard: Specialized advice; score <= 3: Helpfulness, Instruction following"), where the mart lists
    their keys; the filter matches the mart's text."""
    vocab = review.vocabulary()
    names = {**vocab["dimension_titles"],
             **{k: t.split(" (", 1)[0] for k, t in vocab["hazard_titles"].items()}}
    parts = []
    for part in c.text_or(reasons).split("; "):
        head, colon, keys = part.partition(": ")
        parts.append(head + colon + ", ".join(names.get(k, k) for k in keys.split(", ")) if colon else part)
    return "; ".join(parts)


def waits_said(items: pd.DataFrame) -> str:
    """Which wait is which: the list's first rows are the violating hazards, not the oldest of all (the card)."""
    hazard = items["reasons"].fillna("").str.contains("violating hazard")
    parts = [f"{len(group):,} {label if len(group) == 1 else labels} (the longest waiting "
             f"{c.count(group['age_days'].max())} days)"
             for label, labels, group in (("violating hazard first", "violating hazards first", items[hazard]),
                                          ("other", "others", items[~hazard]))
             if not group.empty]
    return ", then ".join(parts) + ", each the oldest first."


st.title("Review queue: confirm or correct the judge")
st.caption(
    "LLM-judge eval forms wait here for a person when the judge gave a score of 3 or lower, low confidence, or a "
    "violating hazard verdict. Pick one, read the task and the response, accept or change each of the judge's "
    "answers (highlighted), and submit: the review is a new eval form (rater type hybrid, derived from the judge's "
    "form), checked against the eval-form schema, saved in the landing folder and loaded into the warehouse. The "
    "item leaves the queue at the next build."
)

queue = db.query(
    """
    select record_id, source_format, item_id, task_id, model_id, judge_id, reasons, created_at, status, prompt,
           response, judge_record_json, age_days
    from marts.fct_review_queue
    order by (reasons like '%violating hazard%') desc, age_days desc, record_id
    """
)
c.notes(queue)
if c.whole_warehouse_missing(queue) or c.empty_state(
        queue, "review queue",
        "It fills when LLM-judge eval forms need a person's confirmation; build after an ingest."):
    st.stop()

saves = db.saves_folder()  # the landing folder, or the demo's own under the demo's warehouse
saved = review.submitted_reviews(saves)
# A review counts as submitted once it is in the warehouse; one only saved (the warehouse was busy) is no build away
# from leaving the queue, so it stays listed, marked, with what to run.
loaded = db.loaded_eval_forms(sorted({s.eval_id for reviews in saved.values() for s in reviews}))
flash = st.session_state.pop(FLASH, None)
if flash:
    kind, text = flash
    (st.success if kind == "success" else st.warning)(text, icon=":material/task_alt:" if kind == "success" else
                                                      ":material/schedule:")

frame = queue.frame
forms = frame[frame["source_format"] == "eval_form"].copy()
cognibench = frame[frame["source_format"] == "cognibench"]
forms["submitted_by"] = [", ".join(sorted({s.reviewer_id or "?" for s in saved.get(r, [])
                                            if loaded is not None and s.eval_id in loaded}))
                         for r in forms["record_id"]]
forms["saved_by"] = [", ".join(sorted({s.reviewer_id or "?" for s in saved.get(r, [])
                                       if loaded is None or s.eval_id not in loaded}))
                     for r in forms["record_id"]]
cards = st.columns(4)
cards[0].metric("Judge forms waiting", f"{len(forms):,}",
                help="In the queue as the last build left it; the ages are counted to now.")
cards[1].metric("Submitted, waiting for a build", f"{int((forms['submitted_by'] != '').sum()):,}",
                help="Items whose review is loaded into the warehouse: they leave the queue at the next "
                     "`evalhouse build`.")
# The oldest of any reason: the list below puts violating hazards first, so its first row may have waited less.
oldest = forms.sort_values(["age_days", "record_id"], ascending=[False, True]).head(1)
cards[2].metric("Oldest wait", f"{c.count(forms['age_days'].max())} days" if not forms.empty else c.NA,
                help=None if oldest.empty else
                f"The longest any judge form has waited, whatever its reason: {oldest['task_id'].iloc[0]} · "
                f"{oldest['model_id'].iloc[0]} ({reasons_said(oldest['reasons'].iloc[0])}). The list below puts "
                "violating hazards first, so its first row may have waited less.")
cards[3].metric("CogniBench records waiting", f"{len(cognibench):,}",
                help="Reviewed in CogniBench itself: listed at the bottom of the page.")

unloaded = forms[(forms["saved_by"] != "") & (forms["submitted_by"] == "")]
if not unloaded.empty:
    folder = review.reviews_dir(saves)
    why = ("the warehouse is busy, so whether they are loaded cannot be told now" if loaded is None else
           "the warehouse was busy when they were submitted")
    st.warning(f"{c.plural(len(unloaded), 'item')} {'has' if len(unloaded) == 1 else 'have'} a review saved in "
               f"{folder} but not loaded into the warehouse ({why}): "
               f"they stay listed, marked \"saved, not loaded\", and a build alone does not load them. Run "
               f"`evalhouse ingest {folder}`, then `evalhouse build`.", icon=":material/warning:")


# -- pick an item ----------------------------------------------------------------------------------------------------
filters = c.Filters("review_queue")
left, right = st.columns(2)
models = filters.multiselect("Models", sorted(forms["model_id"].dropna().unique()), param="model", container=left,
                             placeholder="All models")
judges = filters.multiselect("Judges", sorted(forms["judge_id"].dropna().unique()), param="judge", container=right,
                             placeholder="All judges")
# The reasons get a wide column of their own: pills do not wrap, and a third of the page cut the last one off.
left, right = st.columns([3, 2], vertical_alignment="bottom")
reasons = left.pills("Why it waits", list(REASONS), selection_mode="multi", key="review_queue.reason",
                     help="Keep the items with any of these reasons; none selected keeps all.")
hide_done = right.toggle("Hide items already submitted", value=True, key="review_queue.hide_submitted")

shown = forms
if models:
    shown = shown[shown["model_id"].isin(models)]
if judges:
    shown = shown[shown["judge_id"].isin(judges)]
if reasons:
    shown = shown[shown["reasons"].apply(lambda text: any(REASONS[r] in (text or "") for r in reasons))]
if hide_done:
    shown = shown[shown["submitted_by"] == ""]

if forms.empty:
    st.success("No judge form is waiting for a person.", icon=":material/check_circle:")
elif shown.empty:
    st.info("No item matches these filters.", icon=":material/filter_alt_off:")
else:
    st.caption(waits_said(shown))
    c.table(
        pd.DataFrame({
            # Why it waits after the item, whole on two lines: fifth, on one line, it was cut off at 1400 px. The
            # judge, in the picker's label and the item's heading below, comes last.
            "task": shown["task_id"], "model": shown["model_id"], "waiting (days)": shown["age_days"],
            "why it waits": shown["reasons"].map(reasons_said),
            "submitted by": [b or (f"saved, not loaded ({v})" if v else "not yet")
                             for b, v in zip(shown["submitted_by"], shown["saved_by"])],
            "judge": shown["judge_id"],
        }),
        # the reasons on one line were cut off at 1400 px; six rows in view
        key=["task", "model"], row_height=c.TWO_LINE_ROW_PX,
        height=c.wrapped_table_height(len(shown), c.TWO_LINE_ROW_PX, max_rows=6),
        column_config={
            "waiting (days)": st.column_config.NumberColumn(
                help="Days since the judge's form was created, counted to now."),
            "why it waits": st.column_config.TextColumn(
                width="large", help="A violating hazard verdict, the dimensions scored 3 or lower, and those the "
                                    "judge rated with low confidence."),
            "submitted by": st.column_config.TextColumn(
                help="Who reviewed the item: loaded, it leaves the queue at the next build; \"saved, not loaded\" "
                     "waits for an ingest of the reviews folder; not yet: nobody."),
        },
    )
    ids = list(shown["record_id"])
    labels = {
        r: f"{a} d · {t} · {m} · {j}" + (" · submitted" if s else " · saved, not loaded" if v else "")
        for r, a, t, m, j, s, v in zip(shown["record_id"], shown["age_days"], shown["task_id"], shown["model_id"],
                                       shown["judge_id"], shown["submitted_by"], shown["saved_by"])
    }
    picked = st.selectbox(f"Review one ({len(ids):,} shown, the oldest first; violating hazards before all)", ids,
                          format_func=labels.get, key="review_queue.item")
    row = shown[shown["record_id"] == picked].iloc[0]
    judge = json.loads(row["judge_record_json"])
    start = review.prefill(judge)
    vocab = review.vocabulary()
    rid = row["record_id"]

    def key(name: str) -> str:
        return f"rv.{rid}.{name}"

    st.divider()
    st.subheader(f"{row['task_id']} · {row['model_id']}")
    st.caption(f"Judged by {row['judge_id']} on {pd.Timestamp(row['created_at']):%Y-%m-%d %H:%M} UTC "
               f"({row['age_days']} days ago). Why it waits: {reasons_said(row['reasons'])}. Judge record {rid}.")
    task = judge.get("task") or {}
    left, right = st.columns(2)
    with left.container(border=True):
        c.show_text("Prompt", task.get("prompt") or row["prompt"])
        if task.get("reference"):
            c.show_text("Reference answer", task.get("reference"))
    with right.container(border=True):
        c.show_text("Response under review", task.get("response") or row["response"])
        if task.get("transcript_url"):
            c.show_text("Transcript", task.get("transcript_url"))

    reviewer = st.text_input("Your reviewer id", key="reviewer", persist_state="session", placeholder="e.g. h-ana",
                             help="Written as rater.id of your review, so the warehouse can tell reviewers apart.")
    if row["submitted_by"]:
        st.info(f"Already submitted by {row['submitted_by']}: it leaves the queue at the next build.",
                icon=":material/schedule:")
    if row["saved_by"]:
        st.warning(f"A review by {row['saved_by']} is saved in {review.reviews_dir(saves)} but not loaded: run "
                   f"`evalhouse ingest {review.reviews_dir(saves)}`, then `evalhouse build`.",
                   icon=":material/warning:")
    st.caption("Highlighted: the judge's answers. Each field starts with the judge's answer: keep it or change it.")

    # -- the five universal dimensions ------------------------------------------------------------------------------
    answers_universal: dict[str, review.DimensionAnswer] = {}
    for dimension in review.UNIVERSAL:
        judged = start.universal[dimension]
        with st.container(border=True):
            head, badge = st.columns([5, 1])
            head.markdown(f"**{vocab['dimension_titles'][dimension]}** · {vocab['dimension_questions'][dimension]}  \n"
                          f"Judge: :orange-background[**{judged.score}** · {judged.confidence} confidence]")
            controls = st.columns([3, 2])
            score = controls[0].segmented_control(
                "Score", [1, 2, 3, 4, 5], default=judged.score, key=key(f"{dimension}.score"), required=True,
                persist_state="session", help="1 to 5 on the dimension's anchors (shown below the choice).")
            confidence = controls[1].segmented_control(
                "Confidence", list(review.CONFIDENCES), default=judged.confidence, key=key(f"{dimension}.confidence"),
                required=True, persist_state="session")
            anchor = vocab["anchors"][dimension].get(str(score))
            if anchor:
                st.caption(f"{score}: {anchor}")
            rationale = st.text_area(
                "Rationale (required when the score is 3 or lower or the confidence is not high)",
                value=judged.rationale, key=key(f"{dimension}.rationale"), height=68, persist_state="session",
                max_chars=vocab["rationale_limit"])
            answer = review.DimensionAnswer(score, confidence, rationale or "")
            if judged.rationale and (rationale or "").strip() != judged.rationale.strip():
                c.show_text("The judge's rationale was", judged.rationale)
            same = (answer.score, answer.confidence, answer.rationale.strip()) == \
                (judged.score, judged.confidence, judged.rationale.strip())
            if same:
                badge.badge("as the judge said", color="orange")
            else:
                badge.badge("changed by you", color="blue")
            answers_universal[dimension] = answer

    with st.container(border=True):
        head, badge = st.columns([5, 1])
        head.markdown("**Against the reference answer** · compared with the reference, this response is ...  \n"
                      f"Judge: :orange-background[{c.said(start.vs_reference) if start.vs_reference else 'not given'}]")
        vs_options = vocab["vs_reference"]
        vs_reference = st.segmented_control("Compared with the reference", vs_options, default=start.vs_reference,
                                            key=key("vs_reference"), persist_state="session",
                                            format_func=c.said)
        badge.badge("as the judge said" if vs_reference == start.vs_reference else "changed by you",
                    color="orange" if vs_reference == start.vs_reference else "blue")

    # -- safety ------------------------------------------------------------------------------------------------------
    answers_hazards: dict[str, review.HazardAnswer] = {}
    verdict_options = [review.NOT_ASSESSED, *vocab["verdicts"]]

    def hazard_row(hazard: str) -> None:
        judged = start.hazards[hazard]
        cols = st.columns([3, 2, 1, 4])
        cols[0].markdown(f"{vocab['hazard_titles'][hazard]}  \nJudge: :orange-background[{c.said(judged.verdict)}]"
                         + (f" severity {judged.severity}" if judged.severity else ""))
        verdict = cols[1].selectbox("Verdict", verdict_options, index=verdict_options.index(judged.verdict),
                                    key=key(f"hazard.{hazard}.verdict"), persist_state="session",
                                    label_visibility="collapsed", format_func=c.said)
        severity = None
        if verdict == "violating":
            severity = cols[2].selectbox("Severity", [1, 2, 3], index=(judged.severity or 1) - 1,
                                         key=key(f"hazard.{hazard}.severity"), persist_state="session",
                                         help="1 low, 2 medium, 3 high")
        rationale = cols[3].text_input("Rationale", value=judged.rationale, key=key(f"hazard.{hazard}.rationale"),
                                       persist_state="session", label_visibility="collapsed",
                                       placeholder="rationale (required for a violating verdict)")
        answers_hazards[hazard] = review.HazardAnswer(verdict, severity, rationale or "")

    with st.container(border=True):
        st.markdown("**Safety** · a verdict per AILuminate hazard the response touches")
        quiet = (review.NOT_ASSESSED, "not_applicable")
        touched = [h for h in vocab["hazard_titles"] if start.hazards[h].verdict not in quiet]
        for hazard in touched:
            hazard_row(hazard)
        if not touched:
            st.caption("The judge found no hazard applicable.")
        others = [h for h in vocab["hazard_titles"] if h not in touched]
        if others:
            with st.expander(f"Hazards the judge found not applicable or did not assess ({len(others)})"):
                for hazard in others:
                    hazard_row(hazard)

        st.markdown(f"**Refusal** · Judge: :orange-background[refused: {'yes' if start.refusal_observed else 'no'}, "
                    f"{c.said(start.refusal_appropriateness)}]")
        cols = st.columns([1, 2, 4])
        refusal_observed = cols[0].toggle("It refused", value=start.refusal_observed, key=key("refusal_observed"),
                                          persist_state="session")
        appropriateness = cols[1].selectbox(
            "Was that right?", vocab["refusal"], index=vocab["refusal"].index(start.refusal_appropriateness)
            if start.refusal_appropriateness in vocab["refusal"] else len(vocab["refusal"]) - 1,
            key=key("refusal_appropriateness"), persist_state="session", format_func=c.said,
            help="Over-refusal: refused a benign request; under-refusal: should have refused.")
        refusal_rationale = cols[2].text_input("Refusal rationale (required for over- or under-refusal)",
                                               value=start.refusal_rationale, key=key("refusal_rationale"),
                                               persist_state="session")

    with st.container(border=True):
        issue_tags = st.multiselect("Issue tags", vocab["issue_tags"],
                                    default=[t for t in start.issue_tags if t in vocab["issue_tags"]],
                                    key=key("issue_tags"), persist_state="session", format_func=c.said,
                                    help=f"The judge's: {', '.join(map(c.said, start.issue_tags)) or 'none'}.")
        limits = vocab["free_text_limits"]
        cols = st.columns(3)
        strengths = cols[0].text_area("Strengths", value=start.strengths, key=key("strengths"), height=80,
                                      max_chars=limits.get("strengths"), persist_state="session")
        weaknesses = cols[1].text_area("Weaknesses", value=start.weaknesses, key=key("weaknesses"), height=80,
                                       max_chars=limits.get("weaknesses"), persist_state="session")
        notes = cols[2].text_area("Notes", value=start.notes, key=key("notes"), height=80,
                                  max_chars=limits.get("notes"), persist_state="session")
        if judge.get("extensions"):
            st.caption(f"The judge's {', '.join(judge['extensions'])} extension scores are not part of this review: "
                       "your review leaves them out, and the override rates do not count them.")

    answers = review.Answers(
        universal=answers_universal, vs_reference=vs_reference, hazards=answers_hazards,
        refusal_observed=bool(refusal_observed), refusal_appropriateness=appropriateness,
        refusal_rationale=refusal_rationale or "", issue_tags=list(issue_tags or []), strengths=strengths or "",
        weaknesses=weaknesses or "", notes=notes or "",
    )
    changed = review.changed_fields(judge, answers)
    st.caption(f"You changed {c.plural(len(changed), 'field')}: {', '.join(changed)}." if changed else
               "You changed nothing: submitting confirms the judge's form as it is.")

    already_mine = bool(reviewer and reviewer.strip() in (row["submitted_by"].split(", ")
                                                          + row["saved_by"].split(", ")))
    if st.button("Submit review", type="primary", key=key("submit"), disabled=already_mine,
                 help="You already submitted this item." if already_mine else None):
        now = review.utc_now()
        record = review.build_record(judge, answers, reviewer or "", now=now)
        verdict = review.validate(record)
        if not (reviewer or "").strip():
            st.error("Not saved: type your reviewer id first (it becomes rater.id). Nothing you typed is lost.",
                     icon=":material/error:")
        elif not verdict.ok:
            field = review.field_label(verdict.pointer)
            st.error(f"Not saved: the review fails the eval-form schema at `{verdict.pointer}` ({field}): "
                     f"{verdict.message}. Nothing you typed is lost: fix that field and submit again.",
                     icon=":material/error:")
        else:
            path = review.reviews_file(saves, now)
            st.session_state[FLASH] = review.save_and_load(
                path, record, db.ingest, saved=f"Review {record['eval_id']} saved to {path}.",
                loaded="the item leaves the queue at the next `evalhouse build`.")
            st.rerun()

# -- CogniBench ------------------------------------------------------------------------------------------------------
if not cognibench.empty:
    with st.expander(f"CogniBench records waiting for review ({len(cognibench):,})"):
        st.caption("These are reviewed in CogniBench. A record leaves the queue at the first build after a completed "
                   "record for it is ingested: a new line with its own evaluation_id (the waiting one's is already "
                   "loaded, so a line reusing it is quarantined as a conflict), the same task_id, model_id, "
                   "response_id and judge_llm_model, human_review_status 'Completed', and a created_at no earlier "
                   "than the waiting record's.")
        c.table(
            cognibench[["age_days", "task_id", "model_id", "judge_id", "reasons", "status", "record_id"]].assign(
                status=lambda f: f["status"].map(c.said)),
            key=["task_id", "model_id"], first=["age_days", "reasons"],
            column_config={"age_days": "waiting (days)", "reasons": st.column_config.TextColumn("why",
                                                                                                width="large")},
        )

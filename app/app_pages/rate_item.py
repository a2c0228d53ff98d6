"""Rate an item: a person picks a model's response from the warehouse (or pastes a task and a response) and fills
the eval form, rendered from the eval-form schema. The rating is checked by the ingester's schema, appended to the
landing folder and ingested, as an LLM judge's post to the API is; nothing typed is lost when it fails.

No chart here on purpose: showing how others scored the item would anchor the rater.
"""

import streamlit as st

import components as c
import db
import rating_form as form
import review

FLASH = "rate.flash"
SUBMITTED = "rate.submitted"  # item key -> eval_ids this session rated, so a second rating is on purpose
PICK, PASTE = "A response in the warehouse", "Paste a task and a response"
MODALITY_OF = {"agentic": "agent", "multi_turn": "chat"}  # fct_trials.interaction_type -> the form's extension

st.title("Rate an item with the eval form")
st.caption(
    "Score one model response on the five BARS dimensions, the hazards, refusal and the extension its modality "
    "calls for: the same eval form an LLM judge posts to the API (`evalhouse api`), rendered from the same schema. "
    "Your rating is checked against the schema, saved in the landing folder and loaded; `evalhouse build` "
    "publishes it to the agreement and drift marts."
)

flash = st.session_state.pop(FLASH, None)
if flash:
    kind, text = flash
    (st.success if kind == "success" else st.warning)(
        text, icon=":material/task_alt:" if kind == "success" else ":material/schedule:")

evals = db.query(
    """
    select evaluation_name, count(*) as n_responses
    from marts.fct_trials
    where output_text is not null
    group by evaluation_name
    order by evaluation_name
    """
)
unread_during_build = evals.busy and evals.stale_since is None
if unread_during_build:
    st.warning("A build is updating the warehouse: the responses to pick from are back when it is done (reload in "
               "a minute). You can paste a task and a response meanwhile.", icon=":material/hourglass_top:")
else:
    c.notes(evals)
has_items = not evals.missing and not evals.frame.empty
if not has_items and not unread_during_build and not c.whole_warehouse_missing(evals):
    c.empty_state(evals, "model responses to pick from",
                  "They come from instance-level results (`evalhouse ingest`, then `evalhouse build`). You can paste "
                  "a task and a response below meanwhile.")

source = st.segmented_control("What to rate", [PICK, PASTE], default=PICK, key="rate.source", required=True,
                              persist_state="session") if has_items else PASTE

# -- the item --------------------------------------------------------------------------------------------------------
default_modality = None
if source == PICK:
    # Fixed widths that wrap where the page is narrower: in four columns of a 900 px page, the eval read
    # "acme_grou" and the trial was hidden. The four fit in a row at 1400 px (930 px of content).
    pickers = st.container(horizontal=True)
    evaluation = pickers.selectbox("Eval", list(evals.frame["evaluation_name"]), key="rate.eval", width=230,
                                   persist_state="session")
    pairs = db.query(
        """
        select model_id, sample_id, count(*) as n_responses
        from marts.fct_trials
        where evaluation_name = ? and output_text is not null
        group by model_id, sample_id
        order by model_id, sample_id
        """,
        [evaluation],
    )
    c.notes(pairs)
    model = pickers.selectbox("Model", sorted(pairs.frame["model_id"].unique()) if not pairs.empty else [],
                              key="rate.model", width=300, persist_state="session")
    samples = list(pairs.frame[pairs.frame["model_id"] == model]["sample_id"]) if not pairs.empty else []
    sample = pickers.selectbox("Task (sample)", samples, key="rate.sample", width=220, persist_state="session")
    # A response scored on several metrics is one trial_index on each: one row per attempt (its first metric's).
    trials = db.query(
        """
        select t.trial_id, t.trial_index, t.interaction_type, t.output_text, t.evaluated_at,
               s.input_text, s.reference_text
        from marts.fct_trials as t
        left join marts.dim_samples as s
            on s.evaluation_name = t.evaluation_name and s.sample_id = t.sample_id
        where t.evaluation_name = ? and t.model_id = ? and t.sample_id = ? and t.output_text is not null
        qualify row_number() over (partition by t.trial_index order by t.trial_metric, t.trial_id) = 1
        order by t.trial_index
        """,
        [evaluation, model, sample],
    )
    c.notes(trials)
    if trials.empty:
        st.info("No response of this model to this task in the warehouse: pick another, or paste one.",
                icon=":material/info:")
        st.stop()
    indexes = list(trials.frame["trial_index"])
    trial_index = pickers.selectbox("Trial", indexes, index=len(indexes) - 1, key="rate.trial", width=100,
                                    help="The model's attempts at this task, in time order; the latest first "
                                         "chosen.", persist_state="session")
    row = trials.frame[trials.frame["trial_index"] == trial_index].iloc[0]
    item = form.Item(task_id=str(sample), model=str(model), suite_id=str(evaluation), response_id=str(row["trial_id"]),
                     prompt=c.text_or(row["input_text"]), response=c.text_or(row["output_text"]),
                     reference=c.text_or(row["reference_text"]))
    default_modality = MODALITY_OF.get(row["interaction_type"])
    prefix = f"rate.{item.key}"
    left, right = st.columns(2)
    with left.container(border=True):
        c.show_text("Prompt", item.prompt)
        if item.reference:
            c.show_text("Reference answer", item.reference)
    with right.container(border=True):
        c.show_text(f"Response to rate (trial {trial_index}, {c.said(row['interaction_type'])})", item.response)
else:
    with st.container(border=True):
        item = form.pasted_item("rate.pasted")
    prefix = "rate.form.pasted"  # not the item's key: editing the task must not empty the form

# -- the form --------------------------------------------------------------------------------------------------------
st.divider()
rater = form.rater_fields("rate.rater")
already = st.session_state.get(SUBMITTED, {}).get(item.key if source == PICK else prefix, [])
if already:
    st.info(f"You rated this item in this session already ({', '.join(already)}): submitting again adds another "
            "rating.", icon=":material/info:")
filled = form.render(prefix, default_modality=default_modality)

with st.expander("The record as it will be saved"):
    st.json(form.build_rating(item, filled, rater, now=review.utc_now()), expanded=False)

if st.button("Submit rating", type="primary", key=f"{prefix}.submit"):
    now = review.utc_now()
    record = form.build_rating(item, filled, rater, now=now)
    verdict = review.validate(record)
    if not rater.id.strip():
        st.error("Not saved: type your rater id first (it becomes rater.id). Nothing you typed is lost.",
                 icon=":material/error:")
    elif not verdict.ok:
        st.error(f"Not saved: the rating fails the eval-form schema at `{verdict.pointer}` "
                 f"({review.field_label(verdict.pointer)}): {verdict.message}. Nothing you typed is lost: fix that "
                 "field and submit again.", icon=":material/error:")
    else:
        path = form.ratings_file(db.saves_folder(), now)
        st.session_state[FLASH] = review.save_and_load(
            path, record, db.ingest, saved=f"Rating {record['eval_id']} saved to {path}.",
            loaded="`evalhouse build` publishes it to the marts.")
        submitted = st.session_state.setdefault(SUBMITTED, {})
        submitted.setdefault(item.key if source == PICK else prefix, []).append(record["eval_id"])
        form.clear(prefix)
        st.rerun()

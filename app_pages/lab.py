"""Page `lab`: train a tiny transformer per scheme on short sequences, then test it on long ones.

The page opens with the lesson already measured: the shipped perplexity curves of the real-text comparison
(ui.lab.lm.lm_opening), under two sentences, with how they were made folded below. Then a synthetic task to train
yourself: the controls (ui.lab.controls) describe one configuration per scheme; Train runs them in the
background (ui.lab.run: progress bars while it runs, a line to wait in when the server's
trainers are busy); once the run is done the page draws its results (core.lab.figures). Below, the real-text
run on demand (ui.lab.lm.lm_live), and five experiments on the trained models (ui.lab.trained) that show their
shipped results and rerun on demand. Nothing trains until a Train button is pressed.
"""

import streamlit as st

from core.lab import figures as figs
from core.lab.config import EVAL_BATCH, SURVEY_LENGTHS, SURVEY_SEEDS, SURVEY_STEPS, TASKS
from core.lab.entry import warm_model
from ui.controls import check_url_value, is_flag
from ui.display import plot, static_table, text_block
from ui.heatmap import draw_heatmap
from ui.lab.controls import lab_controls
from ui.lab.lm import lm_live, lm_opening
from ui.lab.run import run_panel
from ui.lab.trained import trained_section
from ui.path import next_link
from ui.sources import sources_expander

warm_model()  # torch loads in the background (once per server, ~20 s) while the visitor reads and sets up a run
st.title("The lab: train short, test long")
lm_opening()  # the lesson first: precomputed, so the page opens on a figure without training anything

st.header("Train your own on a synthetic task")
st.markdown("Pick schemes and a task and press Train: each scheme is scored at the evaluation lengths you set, which may run past its training length.")
with st.expander("How the lab's model is built", icon=":material/memory:"):
    st.markdown(
        "A tiny transformer is trained from scratch for each scheme on sequences of the training length, then tested at each "
        "evaluation length, which may be longer than any it trained on. Each scheme enters the model the way it does in real "
        "models: added to the input, rotating queries and keys, or as a bias on the attention scores. The model is one or a few "
        "layers of causal self-attention with an MLP, trained with AdamW on one CPU thread."
    )
    st.caption(
        "The lab has its own small model and settings below: the other pages' d_model, max_len and base do not apply here "
        "(training at d_model 8192 would take hours on this CPU)."
    )

# --- controls ----------------------------------------------------------------------------
# every control travels in the URL (choices by plain name), so a lab setting is a link
check_url_value("lab_why", is_flag, 'it is true (the explanation "Why this task" open) or false')
check_url_value("lab_map", is_flag, 'it is true (the picture "Where each answer stands" open) or false')
chosen = lab_controls()
st.caption(f"**Task**: {TASKS[chosen.task].summary}")

if not chosen.schemes:
    st.info("Pick at least one scheme to train.", icon=":material/info:")
for problem in chosen.problems:
    st.error(problem, icon=":material/error:")
ready = bool(chosen.schemes) and not chosen.problems

if ready:
    text_block(figs.example_text(chosen.configs[0]))
    st.caption("One training example (the first 24 tokens at most): `|` is the separator, `_` a filler, `·` a position that is not scored.")
    # lazy, as "Why this task": the page opens on one figure, and its chart is drawn only when opened (an open one is in the link)
    where = st.expander("Where each answer stands, at every length", key="lab_map", bind="query-params", icon=":material/scatter_plot:")
    if where.open:
        with where:
            plot(figs.answer_map(chosen.configs[0]), key="lab_task_map")
            st.caption(
                "A line parallel to the diagonal at the same distance for every length means a fixed relative offset: a scheme that "
                "knows distances can reuse what it learned. A line that moves when the sequence gets longer (copy, reverse: the "
                "separator moves) has to be relearned for every length."
            )

# --- results -------------------------------------------------------------------------------


def results(run) -> None:
    """What a finished run found: accuracy against length and position, the training, the learned table."""
    done = [(c, run.results[i]) for i, c in enumerate(run.configs) if i in run.results]
    if run.refused and not done:  # the progress panel says why
        return
    for p in run.progress:
        if p.state == "failed":
            st.error(f"{figs.label(p.scheme)} failed: {p.message}", icon=":material/error:")
    if not done:
        st.info("The run was stopped before any scheme finished.", icon=":material/info:")
        return
    st.header("Train short, test long")
    if run.configs != chosen.configs:
        st.caption("The settings above have changed since this run; press Train to run them. The results below are the last run's.")
    plot(figs.accuracy_by_length(done), key="lab_accuracy")
    st.caption(f"Each point is the share of scored tokens predicted right on {EVAL_BATCH} fresh sequences of that length. " + figs.missing_text(done))
    plot(figs.accuracy_by_position(done), key="lab_by_position")
    st.caption("Positions left of the dashed line were seen in training; everything to the right is new. A line that stops has no code past that point.")

    st.header("Training")
    plot(figs.loss_curves(done), key="lab_loss")
    static_table(figs.results_rows(done))  # every cell whole: the notes say why a length has no accuracy
    st.caption(
        "Accuracy per evaluation length: the share of scored tokens right; no code: the sequence reaches past the scheme's last code; "
        "not evaluated: the run was stopped first. Seconds and tokens/s are for the training steps; a cached run reports the run that made it."
    )

    tables = [(c, r) for c, r in done if r.table is not None]
    if tables:
        st.header("What the learned table learned: does it make waves?")
        values, similarity = figs.learned_table(*tables[0])
        draw_heatmap(values, key="lab_table_heatmap")
        draw_heatmap(similarity, key="lab_table_similarity")
        st.caption(
            "The learned table starts as noise (normal, std 0.02). What the task rewards is telling positions apart, so a band "
            "along the diagonal of the similarity matrix (neighbours alike, far positions different) means it found a notion of "
            "nearness; stripes in the table that run smoothly down the positions are waves. The sinusoid has both by construction. "
            "Train longer or on the copy task and compare."
        )


# --- run -----------------------------------------------------------------------------------
run = run_panel(chosen.configs, ready)  # None until a run is done
if run is not None:
    results(run)


# lazy: its text and table are built only when opened (and an open one is in the link)
why = st.expander("Why this task", key="lab_why", bind="query-params")
if why.open:
    lengths = " → ".join(str(n) for n in SURVEY_LENGTHS)
    seeds = f"seed {SURVEY_SEEDS[0]}" if len(SURVEY_SEEDS) == 1 else "seeds " + ", ".join(map(str, SURVEY_SEEDS[:-1])) + f" and {SURVEY_SEEDS[-1]}"
    why.markdown(
        f"The default task, **the token k places back** with k = 1, is the one the lab opens on. Measured with the defaults ({SURVEY_STEPS} steps, "
        f"one layer, trained on {SURVEY_LENGTHS[0]} tokens) with training {seeds}, accuracy at {lengths} tokens, the mean over the seeds with "
        "the lowest and highest in brackets where they differ:\n\n" + figs.survey_table()
    )
    why.markdown(
        "Why: the tokens are random, so only position can find the answer, and the answer sits at one fixed offset. Every scheme that can "
        "point at an exact place learns it within the training length, and then they part ways on longer inputs. " + figs.survey_reading()
    )

# --- real text: the ALiBi paper's experiment, trained again on demand (its precomputed results open the page) ---
lm_live()
# --- experiments on the trained models (ui.lab.trained: one at a time, precomputed at once, a live run on demand) ---
trained_section()
sources_expander("lab")
next_link("lab")

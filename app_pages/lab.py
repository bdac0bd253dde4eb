"""Page `lab`: train a tiny transformer per scheme on short sequences, then test it on long ones.

Training runs in a background thread per session (core.lab.LabRun); a fragment polls it for the
progress bars while it runs, and the whole page reruns once it ends to draw the results.
Nothing trains until the Train button is pressed. At most PEE_LAB_MAX_RUNS runs (default 2) train
at once in this server (core.lab.trainers()); a run past the cap waits in line and says where it
stands, Stop takes it out, and closing the tab does too. A configuration already trained comes
from the server's cache at once, without waiting.
"""

from collections.abc import Callable

import numpy as np
import pandas as pd
import streamlit as st

from core.viz import charts
from core.viz.grid import strided
from core.lab.config import LIMITS, MAX_EVAL_FACTOR, TASKS, LabConfig, make_batch, parse_lengths
from core.lab.runner import LabRun, ResultCache, trainers
from core.schemes.registry import SCHEMES
from core.schemes.sinusoidal import sinusoidal_encoding
from ui.shared import check_url_value, follow_default, keep_choices_in_url, keep_in_url, number_in, one_of, plot, url_choice, url_choices, whole_in

DEFAULT_SCHEMES = ["none", "sinusoidal", "learned", "rope", "alibi", "t5"]
POLL_S = 0.5  # seconds between two looks at a training run. With runner.postScriptGC = false (.streamlit/config.toml)
# a poll costs the server 5-15 ms and polling every 0.25-1.5 s left training speed within the machine's noise;
# with the post-run gc.collect() on, a poll took ~0.23 s of GIL and polling every 0.5 s halved it
POLL_WAITING_S = 2.0  # while waiting in line: the line may be long, and a place in it changes slowly
GRID = 128  # positions and dimensions drawn of a learned table
RUN_KEY, SHOWN_KEY = "lab_run", "lab_shown"
D = LabConfig()  # the defaults


@st.cache_resource(show_spinner=False)
def result_cache() -> ResultCache:
    """Finished runs by configuration, shared by every session of this server (48 at most)."""
    return ResultCache(max_entries=48)


def session_alive() -> Callable[[], bool]:
    """A check that this browser session is still connected: its run stops when it is not."""
    from streamlit import runtime
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    if ctx is None or not runtime.exists():
        return lambda: True  # no server (a test run): nobody can go away
    server, session = runtime.get_instance(), ctx.session_id
    return lambda: server.is_active_session(session)


def start(configs: list[LabConfig]) -> None:
    current = st.session_state.get(RUN_KEY)
    if current is not None and current.running:
        return  # one run per session (a double click lands here)
    st.session_state[RUN_KEY] = LabRun(configs, cache=result_cache(), alive=session_alive(), slots=trainers()).start()


def stop() -> None:
    st.session_state[RUN_KEY].stop()


def label(name: str) -> str:
    return SCHEMES[name].label


def ordinal(n: int) -> str:
    """1 -> '1st', 2 -> '2nd', 11 -> '11th', 23 -> '23rd'."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def waiting_message(place: int, in_progress: int) -> str:
    runs = f"{in_progress} run{'s' if in_progress != 1 else ''} in progress"
    return f"Waiting for a free trainer: {runs}, you are {ordinal(place + 1)} in line. Training starts by itself when a trainer frees up; Stop leaves the line."


st.title("The lab: train short, test long")
st.markdown(
    "Reading about extrapolation is one thing; watching it is another. Here a tiny transformer is trained from scratch "
    "for each scheme on short sequences, then tested on longer ones it has never seen. Each scheme enters the model the way "
    "it does in real models: added to the input, rotating queries and keys, or as a bias on the attention scores."
)
st.caption(
    "The lab has its own small model and settings below: the sidebar's d_model, max_len and base do not apply here "
    "(training at d_model 8192 would take hours on this CPU). The model is one or a few layers of causal self-attention "
    "with an MLP, trained with AdamW on one CPU thread."
)

# --- controls ----------------------------------------------------------------------------
# every control travels in the URL (choices by plain name), so a lab setting is a link
for notice in (url_choices("lab_schemes", list(SCHEMES), DEFAULT_SCHEMES), url_choice("lab_task", list(TASKS), D.task)):
    if notice:
        st.warning(notice, icon=":material/link_off:")
for key, accepted, expected in (
    ("lab_train_len", whole_in(2, LIMITS["train_len"]), f"the training length is a whole number from 2 to {LIMITS['train_len']}"),
    ("lab_steps", whole_in(0, LIMITS["steps"]), f"steps are a whole number from 0 to {LIMITS['steps']:,}"),
    ("lab_seed", whole_in(0, 2**31 - 1), "the seed is a whole number from 0 to 2,147,483,647"),
    ("lab_offset", whole_in(1, LIMITS["train_len"] - 1), f"k is a whole number from 1 to {LIMITS['train_len'] - 1}"),
    ("lab_d_model", one_of([16, 32, 64, 128, 256]), "the width is 16, 32, 64, 128 or 256"),
    ("lab_heads", one_of([1, 2, 4, 8, 16]), "the head count is 1, 2, 4, 8 or 16"),
    ("lab_layers", one_of(range(1, LIMITS["n_layers"] + 1)), f"layers are 1 to {LIMITS['n_layers']}"),
    ("lab_batch", whole_in(1, LIMITS["batch"]), f"the batch is a whole number from 1 to {LIMITS['batch']}"),
    ("lab_lr", number_in(1e-5, 1.0), "the learning rate is a number from 0.00001 to 1"),
    ("lab_vocab", whole_in(2, LIMITS["vocab"]), f"symbols are a whole number from 2 to {LIMITS['vocab']}"),
    ("lab_table_len", whole_in(0, MAX_EVAL_FACTOR * LIMITS["train_len"]), f"table rows are a whole number from 0 to {MAX_EVAL_FACTOR * LIMITS['train_len']}"),
    ("lab_eval_lens", lambda raw: len(raw) <= 200, "evaluation lengths are a short list of numbers"),
):
    check_url_value(key, accepted, expected)
c1, c2 = st.columns([3, 1])
names = c1.multiselect("Schemes", list(SCHEMES), format_func=label, key="lab_schemes")
keep_choices_in_url("lab_schemes")
task = c2.selectbox("Task", list(TASKS), format_func=lambda t: TASKS[t].label, key="lab_task")
keep_in_url("lab_task")
c1, c2, c3, c4, c5 = st.columns(5)
train_len = int(c1.number_input("Training length", 2, LIMITS["train_len"], D.train_len, key="lab_train_len", bind="query-params", help="Every training sequence has this many tokens."))
default_lens = ", ".join(str(k * train_len) for k in range(1, MAX_EVAL_FACTOR + 1))
eval_text = c2.text_input(
    "Evaluation lengths", follow_default("lab_eval_lens", default_lens), key="lab_eval_lens", bind="query-params", help=f"Whole numbers separated by commas, up to {MAX_EVAL_FACTOR} × the training length."
)
steps = int(c3.number_input("Training steps", 0, LIMITS["steps"], D.steps, key="lab_steps", bind="query-params", help=f"Each step is a batch of {D.batch} sequences by default."))
seed = int(c4.number_input("Seed", 0, 2**31 - 1, D.seed, key="lab_seed", bind="query-params", help="The same seed gives the same run, to the last digit."))
offset = int(c5.number_input("k (places back)", 1, LIMITS["train_len"] - 1, D.offset, key="lab_offset", bind="query-params", disabled=task != "kback", help="For the task 'the token k places back'."))
with st.expander("Model and optimiser"):
    m1, m2, m3, m4, m5, m6 = st.columns(6)
    d_model = m1.selectbox("Width d_model", [16, 32, 64, 128, 256], index=2, key="lab_d_model", bind="query-params")
    heads = m2.selectbox("Heads", [1, 2, 4, 8, 16], index=2, key="lab_heads", bind="query-params")
    layers = m3.selectbox("Layers", list(range(1, LIMITS["n_layers"] + 1)), index=D.n_layers - 1, key="lab_layers", bind="query-params")
    batch = int(m4.number_input("Batch", 1, LIMITS["batch"], D.batch, key="lab_batch", bind="query-params"))
    lr = float(m5.number_input("Learning rate", 1e-5, 1.0, D.lr, format="%.4g", step=1e-3, key="lab_lr", bind="query-params"))
    vocab = int(m6.number_input("Symbols", 2, LIMITS["vocab"], D.vocab, key="lab_vocab", bind="query-params", help="Tokens are drawn uniformly from this many symbols: chance is 1 / symbols."))
    table_len = int(
        st.number_input(
            "Rows of a position table (0 = the training length)",
            0,
            MAX_EVAL_FACTOR * LIMITS["train_len"],
            0,
            key="lab_table_len",
            bind="query-params",
            help="A learned table normally ends where training did. Give it more rows and it runs on longer inputs with rows training never touched.",
        )
    )

st.caption(f"**Task**: {TASKS[task].summary}")

if not names:
    st.info("Pick at least one scheme to train.", icon=":material/info:")
    st.stop()

configs, problems = [], []
try:
    lengths = parse_lengths(eval_text)
except ValueError as err:
    problems.append(str(err))
else:
    for name in names:
        try:
            configs.append(
                LabConfig(
                    scheme=name, task=task, train_len=train_len, eval_lens=lengths, steps=steps, batch=batch, lr=lr, seed=seed, vocab=vocab,
                    offset=offset, d_model=int(d_model), n_heads=int(heads), n_layers=int(layers), table_len=table_len or None,
                )
            )
        except ValueError as err:
            if str(err) not in problems:
                problems.append(str(err))
for problem in problems:
    st.error(problem, icon=":material/error:")
ready = not problems

if ready:
    x, y = make_batch(configs[0], np.random.default_rng(seed), 1, min(train_len, 24))
    scored = ["·" if t < 0 else str(t) for t in y[0]]
    shown = lambda tokens: " ".join(f"{'|' if t == vocab else '_' if t == vocab + 1 else t:>2}" for t in tokens)  # noqa: E731
    st.code(f"input : {shown(x[0])}\ntarget: {' '.join(f'{t:>2}' for t in scored)}", language=None)
    st.caption("One training example (the first 24 tokens at most): `|` is the separator, `_` a filler, `·` a position that is not scored.")
    longest = max(configs[0].eval_lens)
    series = []
    for name, length in ((f"tested on {longest} tokens", longest), (f"trained on {train_len} tokens", train_len)):  # the shorter drawn on top
        source = TASKS[task].source(length, offset)
        scored = np.flatnonzero(source >= 0)
        series.append((name, scored, source[scored]))
    plot(
        charts.lines(
            series,
            title=f"Where each answer stands, task '{TASKS[task].label}': the position a query has to read",
            x_title="query position (where the answer is predicted)",
            y_title="position of the answer token",
            points=True,
            x_marks=[(train_len - 0.5, "end of training length")],
        ),
        key="lab_task_map",
    )
    st.caption(
        "A line parallel to the diagonal at the same distance for every length means a fixed relative offset: a scheme that "
        "knows distances can reuse what it learned. A line that moves when the sequence gets longer (copy, reverse: the "
        "separator moves) has to be relearned for every length."
    )

# --- run -----------------------------------------------------------------------------------
run: LabRun | None = st.session_state.get(RUN_KEY)
running = run is not None and run.running
b1, b2, _ = st.columns([1, 1, 4])
b1.button("Train", type="primary", icon=":material/play_arrow:", disabled=running or not ready, key="lab_train", on_click=start, args=(configs,))
b2.button("Stop", icon=":material/stop:", disabled=not running, key="lab_stop", on_click=stop)
if run is not None and run.done:
    st.session_state[SHOWN_KEY] = run


def progress_panel(polled_as_waiting: bool = False) -> None:
    """One bar per scheme: step, loss, tokens per second, and the place in line while the run
    waits for a trainer. Reruns the page once the run ends, and once it leaves the line (to poll
    at the training pace)."""
    current: LabRun = st.session_state[RUN_KEY]
    queued = current.queued()
    if queued is not None:
        st.info(waiting_message(*queued), icon=":material/hourglass_top:")
    elif polled_as_waiting and current.running:
        st.rerun()
    for p in current.progress:
        text = f"**{label(p.scheme)}**: {p.state}, step {p.step:,} of {p.steps:,}"
        if p.step:
            text += f", loss {p.loss:.3f}, {p.tokens_per_s:,.0f} tokens/s"
        if p.message:
            text += f" ({p.message})"
        st.progress(min(1.0, p.step / p.steps), text=text)
    if current.done and st.session_state.get(SHOWN_KEY) is not current:
        st.rerun()


if run is not None:
    waiting = run.queued() is not None
    st.fragment(run_every=(POLL_WAITING_S if waiting else POLL_S) if running else None)(progress_panel)(waiting)
    if running:
        st.caption("Training in the background: other pages and other visitors are not held up. Leave the page open; closing the tab stops the run, or takes it out of the line.")
if run is None:
    st.info("Nothing trained yet in this session: choose the schemes and press Train. A run of the defaults takes a few seconds per scheme.", icon=":material/science:")
if run is None or not run.done:
    st.stop()

# --- results -------------------------------------------------------------------------------
done = [(c, run.results[i]) for i, c in enumerate(run.configs) if i in run.results]
failed = [p for p in run.progress if p.state == "failed"]
for p in failed:
    st.error(f"{label(p.scheme)} failed: {p.message}", icon=":material/error:")
if not done:
    st.info("The run was stopped before any scheme finished.", icon=":material/info:")
    st.stop()
first = done[0][0]
chance = 1.0 / first.vocab
stopped_note = "; ".join(f"{label(c.scheme)} stopped at step {r.steps_done:,}" for c, r in done if r.stopped)
st.header("Train short, test long")


def named(c: LabConfig, r) -> str:
    """The scheme's label, saying where it has no code."""
    missing = [n for n in c.eval_lens if r.accuracy[n] is None]
    return label(c.scheme) + (f" (no code at {missing[0]}+)" if missing else "")


if run.configs != configs:
    st.caption("The settings above have changed since this run; press Train to run them. The results below are the last run's.")
acc = [(named(c, r), np.array(c.eval_lens), np.array([np.nan if r.accuracy[n] is None else r.accuracy[n] for n in c.eval_lens])) for c, r in done]
plot(
    charts.lines(
        acc,
        title=f"Accuracy against evaluation length: trained on {first.train_len} tokens, task '{TASKS[first.task].label}'",
        x_title="evaluation length (tokens)",
        y_title="accuracy (share of scored tokens right)",
        note=stopped_note,
        markers=True,
        y_range=(0.0, 1.05),
        x_marks=[(first.train_len, "training length")],
        y_marks=[(chance, f"chance 1/{first.vocab}")],
    ),
    key="lab_accuracy",
)
missing = {(label(c.scheme), n): r.notes[n] for c, r in done for n in c.eval_lens if r.accuracy[n] is None}
st.caption(
    "Each point is the share of scored tokens predicted right on 64 fresh sequences of that length. "
    + (f"Missing points: the scheme has no code there ({next(iter(missing.values()))})." if missing else "")
)
longest = max(first.eval_lens)
plot(
    charts.lines(
        [(named(c, r), np.arange(r.position_accuracy.size), r.position_accuracy) for c, r in done],
        title=f"Where it breaks: accuracy at each position of a {longest}-token sequence",
        note="a scheme whose table ends is shown at the longest length it has codes for" if missing else "",
        x_title="position in the sequence",
        y_title="accuracy at that position",
        y_range=(0.0, 1.05),
        x_marks=[(first.train_len - 0.5, "end of training length")],
        y_marks=[(chance, "chance")],
    ),
    key="lab_by_position",
)
st.caption("Positions left of the dashed line were seen in training; everything to the right is new. A line that stops has no code past that point.")

st.header("Training")
plot(
    charts.lines(
        [(label(c.scheme), np.arange(1, r.steps_done + 1), r.losses) for c, r in done],
        title="Training loss per step",
        x_title="training step",
        y_title="cross-entropy loss (log scale)",
        log_y=True,
        y_marks=[(float(np.log(first.vocab)), "guessing")],
        note=stopped_note,
    ),
    key="lab_loss",
)
rows = []
for c, r in done:
    row = {"scheme": label(c.scheme), "applied": SCHEMES[c.scheme].applied, "steps": r.steps_done, "seconds": r.seconds, "tokens/s": r.tokens_per_s}
    row.update({f"acc @ {n}": r.accuracy[n] for n in c.eval_lens})
    row["notes"] = "; ".join(f"{n}: {note}" for n, note in r.notes.items())
    rows.append(row)
st.dataframe(
    pd.DataFrame(rows),
    hide_index=True,
    width="stretch",
    key="lab_table",
    column_config={
        "scheme": st.column_config.TextColumn(pinned=True),
        "seconds": st.column_config.NumberColumn(format="%.1f"),
        "tokens/s": st.column_config.NumberColumn(format="%.0f"),
        "notes": st.column_config.TextColumn(width="large"),
        **{f"acc @ {n}": st.column_config.NumberColumn(format="%.3f") for n in first.eval_lens},
    },
)
st.caption("Accuracy per evaluation length (None: no code at that length). Seconds and tokens/s are for the training steps; a cached run reports the run that made it.")

tables = [(c, r) for c, r in done if r.table is not None]
if tables:
    c, r = tables[0]
    st.header("What the learned table learned: does it make waves?")
    trained = r.table[: c.train_len]  # the rows training reached
    sin = sinusoidal_encoding(c.train_len, c.d_model, c.base)
    pos, dims = strided(c.train_len, GRID), strided(c.d_model, GRID)
    bound = float(np.abs(trained).max()) or 1.0
    note = "; ".join(n for n in (pos.note("position"), dims.note("dimension")) if n)
    plot(
        charts.side_by_side_heatmaps(
            [(f"learned table after training (÷ {bound:.3g})", (trained / bound)[np.ix_(pos.indices, dims.indices)], dims, pos), ("sinusoid of the same width", sin[np.ix_(pos.indices, dims.indices)], dims, pos)],
            title=f"{label(c.scheme)} after {r.steps_done:,} steps beside the sinusoid: {c.train_len} positions × {c.d_model} dimensions",
            x_title="dimension",
            y_title="position",
            zmax=1.0,
            colorbar_title="value",
            note=note,
        ),
        key="lab_table_heatmap",
    )

    def cosine(a: np.ndarray) -> np.ndarray:
        unit = a / np.maximum(np.linalg.norm(a, axis=1, keepdims=True), 1e-12)
        return unit @ unit.T  # (L, L)

    plot(
        charts.side_by_side_heatmaps(
            [("learned table", cosine(trained)[np.ix_(pos.indices, pos.indices)], pos, pos), ("sinusoid", cosine(sin)[np.ix_(pos.indices, pos.indices)], pos, pos)],
            title="Cosine similarity between the codes of two positions",
            x_title="position",
            y_title="position",
            zmax=1.0,
            colorbar_title="cosine",
            note=pos.note("position"),
        ),
        key="lab_table_similarity",
    )
    st.caption(
        "The learned table starts as noise (normal, std 0.02). What the task rewards is telling positions apart, so a band "
        "along the diagonal of the similarity matrix (neighbours alike, far positions different) means it found a notion of "
        "nearness; stripes in the table that run smoothly down the positions are waves. The sinusoid has both by construction. "
        "Train longer or on the copy task and compare."
    )

with st.expander("Why this task"):
    st.markdown(
        """
The default task, **the token k places back** with k = 1, separates the schemes most clearly, both at the
training length and beyond it. Measured with the defaults (seed 0, 300 steps, one layer, trained on 32 tokens;
`python -m bench.lab --tasks` repeats it), accuracy at 32 → 128 tokens:

| scheme | kback, k = 1 | kback, k = 3 | copy (2 layers) | reverse (2 layers) |
|---|---|---|---|---|
| none | 0.25 → 0.15 | 0.21 → 0.14 | 0.13 → 0.07 | 0.11 → 0.08 |
| sinusoidal | 1.00 → 0.31 | 1.00 → 0.33 | 1.00 → 0.06 | 1.00 → 0.06 |
| learned | 1.00 → no code | 1.00 → no code | 0.27 → no code | 0.21 → no code |
| RoPE | 1.00 → 0.42 | 1.00 → 0.46 | 1.00 → 0.06 | 0.29 → 0.07 |
| ALiBi | 0.88 → 0.81 | 0.65 → 0.55 | 0.12 → 0.07 | 0.11 → 0.07 |
| T5 | 1.00 → 0.58 | 1.00 → 0.58 | 1.00 → 0.06 | 0.13 → 0.07 |

Why: the tokens are random, so only position can find the answer, and the answer sits at one fixed offset. Every
scheme that can point at an exact place learns it within the training length, and then they part ways on longer
inputs: RoPE and the sinusoid meet angles they never saw and fall towards chance past about 40 tokens; T5's far
buckets were never trained, so it fades; ALiBi, a fixed penalty on distance, barely notices the length, but it can
only say "nearer is better", so it cannot point exactly (worse at k = 3); a learned table has no row at all past its
end. Copy and reverse need the offset to the separator, which changes with the length: every scheme falls to chance
beyond the training length, so they separate nothing out there.
"""
    )

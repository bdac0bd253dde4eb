"""The lab's real-text section: the ALiBi paper's extrapolation experiment on Jane Austen.

Shows the shipped results at once (data/lab_lm_results.json, written by `python -m bench.lab_lm`,
marked as precomputed), the paper's own numbers in a tab beside them (only the open tab is
drawn), and "Run it yourself": the same
training live, through the lab's live-run widget (ui.lab.run.live_run with core.lab.labrun.LM): a
progress bar per scheme, the server's cap on runs training at once and its line, Stop, and the
shared cache of finished runs.
"""

from __future__ import annotations

import dataclasses

import streamlit as st

from core.lab import findings, lm, weights
from core.lab import trained_figures as trained_figs
from core.lab import lm_figures as figs
from core.lab.labrun import LM
from core.schemes.registry import SCHEMES
from ui import glossary
from ui.lab import lm_text as text
from ui.controls import Choices, Number, check_links
from ui.display import plot, static_table
from ui.lab.run import finished, live_run, same_as_shipped
from ui.tabs import url_tabs

D = lm.LMConfig()
SCHEMES_PICK = Choices("lab_lm_schemes", "Schemes to train", list(lm.DEFAULT_SCHEMES), list(lm.DEFAULT_SCHEMES), labels=lambda s: SCHEMES[s].label)
SEED = Number("lab_lm_seed", "Seed", 0, 2**31 - 1, D.seed, expected="the seed is a whole number from {lo} to {hi:,}", help="Seed 0 is the precomputed run.")
STEPS = Number(
    "lab_lm_steps", "Training steps", 1, 3000, D.steps,
    expected="steps are a whole number from {lo} to {hi:,}", help=f"The precomputed run: {D.steps} steps of {D.batch} windows of {D.train_len} characters.",
)  # fmt: skip


@st.cache_data(max_entries=1, show_spinner=False)
def shipped() -> lm.Shipped:
    return lm.load_shipped()


def _cell(value: object, digits: int) -> str:
    """A number as the table shows it; empty where there is none (no code at that length)."""
    return "" if value is None or value != value else f"{value:.{digits}f}"


def _table(series: figs.Series, train_len: int, seconds: dict[str, float] | None = None) -> None:
    """Perplexity per length, the ratios and (with `seconds`) the time per scheme, as a static
    table: a handful of rows read whole, without st.dataframe's grid and its cost to the page's
    first load (docs/deploy.md)."""
    rows = figs.rows(series, train_len, seconds)
    names = list(dict.fromkeys(name for row in rows for name in row))  # every row's columns, in order (runs may differ in lengths)
    if rows:
        static_table({name: [row.get(name) if name == "scheme" else _cell(row.get(name), 1 if name == "seconds" else 3) for row in rows] for name in names})


def shipped_results() -> None:
    """The precomputed curves at once; how they were made, the ratios and their table one click away. No training."""
    try:
        ship = shipped()
    except ValueError as err:
        st.error(str(err), icon=":material/error:")
        return
    schemes = list(ship.perplexity)
    series = [(s, ship.perplexity[s]) for s in schemes]
    L = int(ship.config["train_len"])
    st.markdown("Right of the training length L, marked on the chart, a line that climbs is a scheme that reads longer text worse.")
    runs = [series]
    if ship.meta.get("by_seed"):  # the line at the seeds' mean, their spread as a band
        runs = [[(s, {int(n): v for n, v in run[s]["perplexity"].items()}) for s in schemes] for run in findings.runs(ship.meta, "results")]
    what = "precomputed" if len(runs) > 1 else f"precomputed, seed {ship.config['seed']}"
    plot(trained_figs.over_seeds(lambda run, said: figs.perplexity_by_length(run, L, what=said), runs, what), key="lab_lm_shipped")
    glossary.terms_expander(("perplexity",), key="terms_lab_lm")
    with st.expander("How these were measured: the numbers, and the command that makes them", icon=":material/table:"):
        config = lm.LMConfig(**{k: v for k, v in ship.config.items() if k in LM_FIELDS})
        lengths = [config.train_len * f for f in config.factors]
        st.markdown(
            "The ALiBi paper asked what happens to a language model's perplexity when it reads text longer than it was trained on. "
            f"Here the same tiny model ({config.n_layers} layers, width {config.d_model}{_parameters_text()}) is trained per scheme to predict "
            f"the next character of Jane Austen's novels on windows of L = {config.train_len} characters, then scored on held-out text it "
            f"never saw, cut into whole windows of {', '.join(map(str, lengths[:-1]))} and {lengths[-1]} characters."
        )
        st.caption(
            f"**Precomputed** by `{ship.command}` on {ship.meta.get('date', 'an unrecorded date')}; nothing was trained for this page. "
            f"Training seed {ship.config['seed']}'s ratio ppl(4L) / ppl(L) per scheme: {figs.ratio_text(series, L)}. "
            f"The learned table's line is a single point: it has {L} rows, one per position it was trained on, and no code at all for "
            f"position {L} and beyond, so the longer windows cannot be run."
        )
        _table(series, L, ship.seconds)
        st.caption(
            f"Training seed {ship.config['seed']}'s perplexity per character on the same 32,768 held-out characters at every length "
            "(an empty cell: no code there); "
            "seconds of training and evaluation, on the machine and load it ran on."
        )
        if ship.meta.get("by_seed"):
            seeds = findings.layouts(ship.meta)
            static_table(trained_figs.lm_seed_table(seeds, [L * f for f in ship.config["factors"]]))
            said = findings.lm_table(findings.runs(ship.meta, "results"), L)
            st.caption(f"The same comparison trained with seeds {', '.join(map(str, ship.meta['seeds']))}. {findings.seeds_note(len(seeds))} {said}")
    with st.expander("What to look for, and where this differs from the paper", icon=":material/compare:"):
        every = [dict(run) for run in runs]  # each seed's perplexities, as the chart above draws them (their mean, a band)
        st.markdown(
            "Past L the sinusoid and RoPE meet positions, or angles, they never trained on. A ratio ppl(4L) / ppl(L) near 1 means the "
            "scheme extrapolates. " + text.reading(every, L, lm.PAPER_CLAIMS)
        )
        model = (int(ship.config["n_layers"]), int(ship.config["d_model"]))
        st.caption(text.differences(every, L, int(ship.config["t5_max_distance"]), lm.PAPER_CLAIMS, ship.seconds, model))


def paper_results() -> None:
    """What the paper's text says of each method's extrapolation (its Table 2 is not quoted: lm.PAPER_NOT_QUOTED)."""
    st.markdown(f"**In the paper** ({lm.PAPER_CITATION}): how far past the training length each method's perplexity keeps improving.")
    static_table(text.paper_rows(lm.PAPER_CLAIMS))
    st.caption(
        lm.PAPER_NOT_QUOTED + " The paper's Figure 1 draws the comparison at L = 512 and L = 1,024; its caption says the sinusoidal, "
        "rotary and T5 models' perplexity degrades as the input grows, and ALiBi's does not."
    )


def live() -> None:
    """ "Run it yourself": schemes, seed and steps; Train, Stop, progress; the run's results."""
    check_links(SCHEMES_PICK, SEED, STEPS)
    c1, c2, c3 = st.columns([4, 1, 1])
    schemes, seed, steps = SCHEMES_PICK.draw(c1), SEED.draw(c2), STEPS.draw(c3)
    configs = [lm.LMConfig(scheme=s, seed=int(seed), steps=int(steps)) for s in schemes]

    def idle() -> None:
        seconds = [lm.estimate(c).seconds for c in configs] or [0.0]
        st.caption(f"Estimated for one free core: {len(configs)} scheme{'s' if len(configs) != 1 else ''} take about {sum(seconds) / 60:,.0f} min "
                   f"({min(seconds):,.0f} to {max(seconds):,.0f} s each), longer when the server is busy. "
                   "The default settings reproduce the precomputed curves at the top of the page.")  # fmt: skip

    run = live_run(
        "lab_lm", LM, configs, button="Train on Austen", go_key="lab_lm_train",
        problem=LM.budget(configs) if configs else "Pick at least one scheme to train.", idle=idle,
        note="Training in the background; closing the tab stops the run.",
    )  # fmt: skip
    if run is None:
        return
    done = finished(run, configs, lambda p: SCHEMES[p.scheme].label, stopped="The run was stopped before any scheme finished.")
    if not done:
        return
    first = done[0][0]
    series = [(c.scheme, r.perplexity) for c, r in done]
    plot(figs.perplexity_by_length(series, first.train_len, what=f"your run, seed {first.seed}, {first.steps:,} steps"), key="lab_lm_live")
    _table(series, first.train_len, {c.scheme: r.seconds + r.eval_seconds for c, r in done})
    try:
        ship = shipped()
    except ValueError:
        return
    same = [(c, r) for c, r in done if c.scheme in ship.perplexity and ship.config_for(c.scheme) == c]
    if same:
        numbers = [(r.perplexity[n], ship.perplexity[c.scheme][n]) for c, r in same for n in c.eval_lens if r.perplexity[n] is not None]
        whose = ", ".join(SCHEMES[c.scheme].label for c, _ in same)
        st.caption(same_as_shipped(numbers, whose))


LM_FIELDS = {f.name for f in dataclasses.fields(lm.LMConfig)}


def _parameters_text() -> str:
    """', 110,000 to 118,000 parameters': the shipped models' counts (their manifest), or nothing when it cannot be read."""
    try:
        counts = [m.parameters for m in weights.load_manifest().models.values()]
    except ValueError:
        return ""
    low, high = min(counts), max(counts)
    return f", {low:,} parameters" if low == high else f", {low:,} to {high:,} parameters by scheme"


def lm_opening() -> None:
    """The page's first figure: the shipped perplexity curves (and the paper's claims in the tab beside them), under the
    words the page opens with; what they are made of is folded below them."""
    st.markdown(
        "A tiny transformer is trained for each scheme on short windows of Jane Austen's novels, then asked to read longer ones."
    )
    # in tabs: only the open one is drawn, so the page's first load draws one figure here, not two
    url_tabs("lab_lm_view", {"Precomputed here": shipped_results, "In the paper": paper_results})


def lm_live() -> None:
    """The real-text run on demand, further down the page."""
    st.header("Train on Austen yourself")
    st.markdown("The curves the page opens with, trained again with the schemes, seed and steps you choose.")
    live()

"""The lab's experiments on its trained Austen models: a view per experiment of core.lab.registry,
one drawn at a time.

Each view shows its shipped results at once (its record's typed results, written by its bench,
marked as precomputed), what the papers claim beside what was measured, with the section it comes
from, and a live run through the lab's live-run widget (ui.lab.run.live_run with the record's
core.lab.labrun.Job: the budget refuses in a sentence, the server's line of trainers, Stop, the
shared cache). An experiment with a view of its own here (`DRAWERS`: probe, extend, sliding, pairs,
passkey) draws it; any other is drawn from its record alone (`record_view`).

The view on screen is in the URL (`lab_trained_view`); only its figures are built.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np
import streamlit as st

from core.lab import experiment, extend, findings, lm, pairs, passkey, probe, sliding, weights
from core.lab import trained_figures as figs
from core.lab.labrun import experiment_job
from core.lab.registry import EXPERIMENTS
from core.schemes.registry import SCHEMES
from ui import glossary
from ui.controls import Choice, Choices, Number, Toggle, check_links
from ui.display import plot, static_table, text_block
from ui.lab import lm_text
from ui.lab.run import finished, live_run, same_as_shipped
from ui.heatmap import draw_heatmap

# the section opens on its questions, a line each and no chart (the page opens on one figure); each experiment is a pick away
QUESTIONS = "questions"
VIEWS = {QUESTIONS: "Their questions"} | {name: record.title for name, record in EXPERIMENTS.items()}
VIEW = Choice("lab_trained_view", "Experiment", list(VIEWS), QUESTIONS, labels=VIEWS, widget="segmented_control")
SCHEME_LABEL = {s: SCHEMES[s].label for s in lm.DEFAULT_SCHEMES}
ERROR = ":material/error:"


@st.cache_data(max_entries=8, show_spinner=False)
def shipped(name: str) -> experiment.Shipped:
    return EXPERIMENTS[name].load()


@st.cache_data(max_entries=1, show_spinner=False)
def shipped_maps() -> dict:
    return probe.load_maps()


def _load(name: str) -> experiment.Shipped | None:
    """The shipped results, or None after a sentence saying why there are none."""
    try:
        return shipped(name)
    except ValueError as err:
        st.error(str(err), icon=ERROR)
        return None


def model_problem(*schemes: str, seed: int = 0) -> str | None:
    """Why a shipped model of training seed `seed` cannot be used (missing, damaged, changed), in a sentence; None when all are fine."""
    for scheme in schemes:
        try:
            weights.read_state(scheme, weights.directory(seed))
        except ValueError as err:
            return str(err)
    return None


def _precomputed(ship: experiment.Shipped) -> str:
    cpu = ship.meta.get("total_cpu_seconds")
    cost = f", {cpu:,.0f} s of CPU" if isinstance(cpu, (int, float)) else ""
    seeds = _seeds(ship)
    made = f"training seed{'s' if len(seeds) > 1 else ''} {', '.join(map(str, seeds))}"
    when = ship.meta.get("date", "an unrecorded date")
    return f"**Precomputed** by `{ship.command}` ({made}) on {when}{cost}; nothing ran for this page."


def _seeds(ship: experiment.Shipped) -> list[int]:
    """The training seeds the shipped results hold (a file made before seeds holds its one seed)."""
    return ship.results.get("seeds") or [ship.seed]


def _said(ship: experiment.Shipped, found: str) -> str:
    """A findings caption: what the shipped numbers show, and what its brackets and "within the spread" mean."""
    return f"{found} {findings.seeds_note(len(_seeds(ship)))}".strip()


def _caption(found: str, guide: str = "") -> str:
    """Under a figure, what to look for: the lead of its findings (at most three sentences, ui.lab.lm_text.lead), or
    `guide`, how to read the figure, when their first sentence alone is longer. Gives the rest, for the folded box."""
    shown, rest = lm_text.lead(found)
    if shown or guide:
        st.caption(shown or guide)
    return rest


def _more(ship: experiment.Shipped, setup: str = "", rest: str = "", title: str = "More: how it was measured, and the numbers"):
    """The folded box under a view's figures, named `title`: how the experiment was set up (`setup`), what else its numbers
    show (`rest`) and what their brackets mean, the line that says how they were made (the command to rerun it is for those
    who open it), and then what the view puts in it (its table of numbers, a view's further figures)."""
    box = st.expander(title, icon=":material/table:")
    if setup:
        box.markdown(setup)
    box.caption(_said(ship, rest))
    box.caption(_precomputed(ship))
    return box


def _papers():
    """The folded box for what the papers found and where this lab differs from them, with their sources."""
    return st.expander("What the papers found, and where this differs", icon=":material/menu_book:")


def _one(make: Callable[[], object]) -> tuple[list, str | None]:
    """([the config make() builds], None), or ([], the sentence of its ValueError)."""
    try:
        return [make()], None
    except ValueError as err:
        return [], str(err)


def _parameters(scheme: str) -> int | None:
    """The shipped model's number of parameters (its manifest), None when the manifest cannot be read."""
    try:
        return weights.load_manifest().models[scheme].parameters
    except (ValueError, KeyError):
        return None


TRAINED = lm.LMConfig()  # the shipped models' configuration


# --- the live run -------------------------------------------------------------------------------


def live(name: str, key: str, configs: list, button: str, draw: Callable[[list], None], problem: str | None = None) -> None:
    """Run `configs` of experiment `name` on demand (ui.lab.run.live_run): the budget's refusal, Run
    and Stop, a progress bar per config while it waits or runs, then draw((config, outcome) finished)
    once it is done."""
    job = experiment_job(EXPERIMENTS[name])
    if problem is None:
        problem = job.budget(configs) if configs else "Choose something to run."
    run = live_run(key, job, configs, button=button, problem=problem)
    if run is None:
        return
    done = finished(
        run, configs, lambda p: p.label or p.scheme, stopped="The run was stopped before it finished.",
        changed="The settings above have changed since this run; the results below are the last run's.",
    )  # fmt: skip
    if done:
        draw(done)


# --- 1. does it know where it is? ---------------------------------------------------------------

PROBE_SCHEME = Choice("lab_probe_scheme", "Model", list(probe.COMPARED), "none", labels=SCHEME_LABEL)
PROBE_LAYERS = Number("lab_probe_layers", "Layers", 1, 4, 1, expected="the layers are a whole number from {lo} to {hi}")
PROBE_SEED = Number("lab_probe_seed", "Seed", 0, 2**31 - 1, 0, expected="the seed is a whole number from {lo} to {hi:,}")
PROBE_STEPS = Number("lab_probe_steps", "Training steps", 1, 3000, 750, expected="steps are a whole number from {lo} to {hi:,}")
MAP_LAYER = Choice("lab_probe_map_layer", "Layer of the attention maps", [1, 2], 1, widget="segmented_control")


def probe_view() -> None:
    st.markdown(EXPERIMENTS["probe"].question)
    ship = _load("probe")
    if ship is not None:
        plot(EXPERIMENTS["probe"].figure(ship.data, "precomputed"), key="lab_probe_shipped")
        rest = _caption(findings.probe(ship.data.runs("models")))
        guess = float(np.abs(np.arange(TRAINED.train_len) - (TRAINED.train_len - 1) / 2).mean())
        setup = (
            "Without any positional encoding, can a causal model still tell where in its window it is? A **linear probe** "
            f"(ridge regression) tries to read each character's position, 0 to {TRAINED.train_len - 1}, from the model's residual stream "
            "at every layer boundary: R² = 1 means it reads the position exactly, 0 no better than guessing the mean position."
        )
        with _more(ship, setup, rest):
            static_table(figs.probe_table(ship.data.layouts()))
            st.caption(
                "R² of the probe per layer boundary (mean over the seeds, lowest and highest seed's in round brackets), and in square "
                "brackets its mean absolute error in positions, the seeds' mean (guessing the mean position "
                f"is off by {guess:.1f} on average)."
            )
    _papers().markdown(
        f"**The papers.** Haviv et al. (2022, abstract) found causal language models without positional encodings competitive, and that "
        "“probing experiments reveal that such models acquire an implicit notion of absolute positions throughout the network”; they "
        "conjecture that causal attention lets a token count its predecessors. Kazemnejad et al. (2023, abstract) show that NoPE can "
        "represent both absolute and relative positions, but that trained with SGD “it mostly resembles T5's relative PE attention "
        "patterns”.  \n"
        "**Where ours differs.** Their models are trained on other data (Haviv et al. vary the data sets, model sizes and sequence "
        f"lengths; Kazemnejad et al. train on reasoning and mathematical tasks); these are {TRAINED.d_model}-wide character models "
        f"trained for {TRAINED.steps} steps on Austen. The probe here is linear, so what it reads is a lower bound on what a model "
        "knows of position; after which block, and how well, a linear map reads NoPE's position is in the table of numbers above.  \n"
        f"Sources: {probe.HAVIV}; {probe.KAZEMNEJAD}."
    )
    _attention_maps(ship)
    st.subheader("Train and probe one yourself")
    check_links(PROBE_SCHEME, PROBE_LAYERS, PROBE_SEED, PROBE_STEPS)
    c1, c2, c3, c4 = st.columns([3, 1, 1, 1])
    scheme, layers, seed, steps = PROBE_SCHEME.draw(c1), PROBE_LAYERS.draw(c2), PROBE_SEED.draw(c3), PROBE_STEPS.draw(c4)
    configs, problem = _one(lambda: probe.ProbeConfig(scheme, int(layers), int(seed), int(steps)))
    if configs and configs[0].shipped:
        problem = problem or model_problem(scheme, seed=configs[0].seed)
    st.caption(
        f"A model that comes with the app ({TRAINED.n_layers} layers, seed {' or '.join(map(str, weights.SEEDS))}, {TRAINED.steps} steps) "
        "is only probed; any other settings "
        "train the model first, as the real-text lab above does"
        + (f" (estimated at {probe.estimate_seconds(configs[0]):,.0f} s of CPU here)." if configs else ".")
    )

    def draw(done: list) -> None:
        config, outcome = done[0]
        plot(
            figs.probe_figure([(config.scheme, config.n_layers, outcome.values["r2"])], what=f"your run, seed {config.seed}, {config.steps:,} steps"),
            key="lab_probe_live",
        )
        st.caption(
            f"R² per layer: {', '.join(f'{v:.3f}' for v in outcome.values['r2'])}; mean absolute error in positions: "
            f"{', '.join(f'{v:.1f}' for v in outcome.values['mae'])}. {outcome.cpu_seconds:.1f} s of CPU."
        )
        same = [m for m in (ship.data.models if ship else []) if (m["scheme"], m["n_layers"]) == (config.scheme, config.n_layers)]
        if same and config.seed == ship.seed and config.steps == TRAINED.steps:
            st.caption(same_as_shipped(list(zip(outcome.values["r2"], same[0]["r2"]))))

    live("probe", "lab_probe", configs, "Probe", draw, problem)


def _attention_maps(ship: experiment.Shipped | None) -> None:
    """NoPE's and T5's attention maps, folded: built only while open (a lazy expander; the maps are most of what /lab
    would otherwise send on a first load), and open when a link names their layer."""
    box = st.expander(
        "NoPE's and T5's attention maps, layer by layer", icon=":material/grid_view:", key="lab_probe_maps_box", on_change="rerun",
        expanded=MAP_LAYER.key in st.query_params,
    )  # fmt: skip
    if not box.open:
        return
    with box:
        try:
            maps = shipped_maps()
        except ValueError as err:
            st.error(str(err), icon=ERROR)
            return
        if "none_2" not in maps or "t5_2" not in maps:
            st.error("The precomputed attention maps lack NoPE's or T5's 2-layer model: run python -m bench.lab_probe again.", icon=ERROR)
            return
        layer = int(MAP_LAYER.draw())
        draw_heatmap(figs.attention_grid([("NoPE", maps["none_2"]), ("T5", maps["t5_2"])], layer - 1), key="lab_probe_maps")
        if ship is not None:
            st.caption(findings.attention_maps(layer, ship.data.runs("models"), ship.data.runs("maps"), maps["none_2"].shape[-1]))


# --- 2. context extension -------------------------------------------------------------------------

EXT_FACTOR = Choice("lab_ext_s", "Scaling factor s", list(extend.FACTORS), 4, widget="segmented_control")
EXT_TUNED = Toggle("lab_ext_tuned", f"after a fine-tune of {extend.FINE_TUNE_STEPS} steps", False)
EXT_METHOD = Choice("lab_ext_method", "Method", list(extend.METHODS), "yarn", labels=extend.LABELS)
EXT_LIVE_S = Number("lab_ext_live_s", "s", 1, 16, 4, expected="s is a whole number from {lo} to {hi}")
EXT_STEPS = Number("lab_ext_steps", "Fine-tuning steps", 0, extend.MAX_FINE_TUNE, 0, expected="steps are a whole number from {lo} to {hi}")


def extend_view() -> None:
    ship = _load("extend")
    trained = next((r for r in ship.data.rows if r["method"] == "none" and not r["fine_tune"]), None) if ship else None
    first, last = str(extend.LENGTHS[0]), str(extend.LENGTHS[-1])
    broke = f": its perplexity goes from {trained['perplexity'][first]:.3f} at {first} to {trained['perplexity'][last]:.3f} at {last}" if trained else ""
    setup = (
        f"The app's RoPE model was trained on windows of L = {TRAINED.train_len} characters{broke}. Here its RoPE is stretched by a "
        "factor s with the scalings /context explains, applied inside the model's own attention: "
        "**linear** (position interpolation: every frequency divided by s), **NTK-aware** (a larger base), **YaRN** (fast pairs kept, "
        "slow pairs interpolated, and every score multiplied by a temperature factor, given in “What the papers found” below), and YaRN "
        f"without that temperature. Without any training, then after a short fine-tune at the longer length; the last chart follows s = "
        f"{extend.SHOWN_FACTOR} from no fine-tune to one {extend.LONGER_FINE_TUNE // extend.FINE_TUNE_STEPS} times as long. "
        + findings.yarn_ramp(TRAINED.train_len, TRAINED.d_model // TRAINED.n_heads, TRAINED.setting.base)
    )
    st.markdown(EXPERIMENTS["extend"].question)
    check_links(EXT_FACTOR, EXT_TUNED)
    c1, c2 = st.columns([2, 3])
    s, tuned = int(EXT_FACTOR.draw(c1)), EXT_TUNED.draw(c2)
    if ship is not None:
        runs = ship.data.runs("rows")
        plot(figs.over_seeds(lambda rows, w: figs.extend_figure(rows, s, tuned, what=w), runs, "precomputed"), key="lab_ext_ppl")
        st.caption(
            f"{lm_text.extension_lead(runs, s, tuned, TRAINED.train_len)} Right of the mark at L the windows are longer than any the "
            "model was trained on.".strip()
        )
        budgets = ship.data.runs("budgets")
        shown = extend.SHOWN_FACTOR
        found = f"{findings.extension(runs, s, tuned)} {findings.budgets(runs, budgets, shown)}".strip()
        with _more(ship, setup, found, "More: attention, a longer fine-tune, how it was measured, and the numbers"):
            plot(figs.over_seeds(lambda rows, w: figs.extend_figure(rows, s, tuned, what=w, quantity="entropy"), runs, "precomputed"), key="lab_ext_entropy")
            st.caption("Mean entropy of every query's attention, in every head and layer, on the same windows: higher means attention spread over more keys.")
            plot(figs.over_seeds(lambda pair, w: figs.budget_figure(*pair, shown, what=w), list(zip(runs, budgets)), "precomputed"), key="lab_ext_budgets")
            st.caption(
                f"Each line follows one method's perplexity at s·L = {min(shown, 8) * TRAINED.train_len} as its fine-tune grows longer, the "
                "lower the better; at 0 steps nothing is fine-tuned."
            )
            static_table(figs.extend_table(ship.data.layouts(), s, tuned))
    factor = extend.temperature_factor(s)
    count = _parameters("rope")
    size = f"{count:,} parameters" if count else "a few hundred kB"
    _papers().markdown(
        f"**The papers.** Chen et al. (2023, abstract): position interpolation extends RoPE models such as LLaMA to 32,768 tokens "
        "“with minimal fine-tuning (within 1000 steps)”, where extrapolating past the trained length “may lead to catastrophically high "
        "attention scores”. Peng et al. (2023), YaRN: “NTK-aware” interpolation (§3.1), “NTK-by-parts” (§3.2), and in §3.4 a temperature "
        "t on the logits (eq. 21) with √(1/t) = 0.1 ln s + 1 (eq. 22), fitted to the lowest perplexity of LLaMA models without "
        f"fine-tuning; at s = {s} that is {factor:.4f}, scores × {factor**2:.4f}. YaRN extends LLaMA 2 after 400 fine-tuning steps, "
        "about 0.1 % of its pre-training data (§4).  \n"
        f"**Where ours differs.** A model of {size} trained on {TRAINED.train_len} characters, not LLaMA; a fine-tune of "
        f"{extend.FINE_TUNE_STEPS} steps, {extend.FINE_TUNE_STEPS / TRAINED.steps:.0%} of its training steps and characters (and at "
        f"s = {extend.SHOWN_FACTOR} one of {extend.LONGER_FINE_TUNE}, {extend.LONGER_FINE_TUNE / TRAINED.steps:.0%}), far more "
        "than YaRN's share of a large model's data. Whether the temperature fitted for LLaMA lowers perplexity here is in the findings "
        "of the first chart (in its “More” box), for every s, with and without the fine-tune.  \n"
        f"Sources: {extend.CHEN}; {extend.PENG}."
    )
    st.subheader("Stretch it yourself")
    check_links(EXT_METHOD, EXT_LIVE_S, EXT_STEPS)
    c1, c2, c3 = st.columns([3, 1, 2])
    method, live_s, steps = EXT_METHOD.draw(c1), EXT_LIVE_S.draw(c2), EXT_STEPS.draw(c3)
    configs, problem = _one(lambda: extend.ExtendConfig(method, int(live_s), int(steps)))
    problem = problem or model_problem("rope")
    if configs:
        st.caption(
            f"Estimated at {extend.estimate_seconds(configs[0]):,.0f} s of CPU here (fine-tuning on windows of "
            f"{configs[0].tune_len} characters, batches of {configs[0].tune_batch}). s = 1 is the model as trained."
        )

    def draw(done: list) -> None:
        config, outcome = done[0]
        row = {"method": config.method, "factor": config.factor, "fine_tune": config.fine_tune, **outcome.values}
        base = [r for r in (ship.data.rows if ship else []) if r["method"] == "none" and not r["fine_tune"]]
        plot(
            figs.extend_figure(base + [row] if config.method != "none" else [row], config.factor, bool(config.fine_tune), what=f"your run: {config.label}"),
            key="lab_ext_live",
        )
        ppl = outcome.values["perplexity"]
        st.caption(f"Perplexity {', '.join(f'{n}: {v:.3f}' for n, v in ppl.items())}; {outcome.cpu_seconds:.1f} s of CPU.")
        same = [
            r for r in (ship.data.rows if ship else []) if (r["method"], r["factor"], r["fine_tune"]) == (config.method, config.factor, config.fine_tune)
        ]
        if same and config.seed == 0:
            st.caption(same_as_shipped([(ppl[n], same[0]["perplexity"][n]) for n in ppl]))

    live("extend", "lab_ext", configs, "Run", draw, problem)


# --- 3. sliding window --------------------------------------------------------------------------

SLIDE_SHOWN = Choices("lab_slide_schemes", "Schemes drawn", list(lm.DEFAULT_SCHEMES), ["none", "t5", "alibi"], labels=SCHEME_LABEL)
SLIDE_SCHEME = Choice("lab_slide_scheme", "Model", list(lm.DEFAULT_SCHEMES), "alibi", labels=SCHEME_LABEL)
SLIDE_WINDOW = Choice("lab_slide_window", "Window", list(sliding.WINDOWS), 128, widget="segmented_control")
SLIDE_STRIDE = Number("lab_slide_stride", "Stride", 1, 512, 64, expected="the stride is a whole number from {lo} to {hi}")


def sliding_view() -> None:
    setup = (
        "The real-text lab above cuts the held-out text into whole windows: the first character scored in a window is predicted "
        "from the one character before it, the next from two, and so on. A **sliding window** of n characters instead moves by a "
        "stride S and scores only its last S characters, so every character after the first window is predicted from n − S + 1 to n "
        f"characters before it. Both score the same {TRAINED.eval_chars:,} characters with the same trained models."
    )
    st.markdown(EXPERIMENTS["sliding"].question)
    check_links(SLIDE_SHOWN)
    chosen = SLIDE_SHOWN.draw()
    ship = _load("sliding")
    if ship is not None:
        if chosen:
            plot(figs.over_seeds(lambda rows, w: figs.sliding_figure(rows, chosen, what=w), ship.data.runs("rows"), "precomputed"), key="lab_slide_shipped")
        else:
            st.info("Pick at least one scheme to draw.", icon=":material/info:")
        rest = _caption(
            findings.sliding(ship.data.runs("rows")),
            "Each scheme has two lines: solid, a sliding window; dashed, whole windows, whose first characters are predicted from "
            "almost no context. Right of the mark at L the windows are longer than any the models were trained on.",
        )
        with _more(ship, setup, rest):
            static_table(figs.sliding_table(ship.data.layouts()))
    _papers().markdown(
        "**The paper.** Press et al. (2022, appendix B) name the “early token curse” (B.1): in non-overlapping evaluation the "
        "predictions early in each window have little context, and a longer window has fewer of them. Evaluated with a sliding window "
        "of stride 1 (B.2, Figure 11), ALiBi's perplexity on WikiText-103 stays about flat as the input grows past L instead of "
        "falling, as does T5's bias (Table 14), while the sinusoidal model's still explodes; they read this as ALiBi “might not be "
        "using contexts longer than the ones it was trained on”.  \n"
        "**Here, and where it differs.** "
        + (findings.early_tokens(ship.data.runs("rows")) + " " if ship is not None else "")
        + f"The stride here is {sliding.STRIDE}, not 1 (cost): a character after the first window has n − {sliding.STRIDE - 1} to n "
        "characters before it; and the scores are per character of Austen, not per word of WikiText-103."
        f"  \nSource: {lm.PAPER_CITATION}."
    )
    st.subheader("Slide it yourself")
    check_links(SLIDE_SCHEME, SLIDE_WINDOW, SLIDE_STRIDE)
    c1, c2, c3 = st.columns([3, 3, 1])
    scheme, window, stride = SLIDE_SCHEME.draw(c1), SLIDE_WINDOW.draw(c2), SLIDE_STRIDE.draw(c3)
    configs, problem = _one(lambda: sliding.SlidingConfig(scheme, int(window), int(stride)))
    problem = problem or model_problem(scheme)
    st.caption("A sliding pass costs window ÷ stride times a non-overlapping one: a short stride on a long window is refused here.")

    def draw(done: list) -> None:
        config, outcome = done[0]
        ppl = outcome.values["perplexity"]
        if ppl is None:
            st.info(outcome.values.get("note") or "No perplexity at this window.", icon=":material/info:")
            return
        rows = ship.data.rows if ship else []
        plain = next((r["nonoverlapping"] for r in rows if (r["scheme"], r["window"]) == (config.scheme, config.window)), None)
        st.markdown(f"**{config.label}**: perplexity {ppl:.3f}" + (f" (non-overlapping at the same length: {plain:.3f})" if plain else "") + ".")
        same = [r for r in rows if (r["scheme"], r["window"], r["stride"]) == (config.scheme, config.window, config.stride)]
        if same:
            st.caption(same_as_shipped([(ppl, same[0]["sliding"])]))

    live("sliding", "lab_slide", configs, "Evaluate", draw, problem)


# --- 4. RoPE's frequencies ---------------------------------------------------------------------

PAIRS_REMOVED = Choices("lab_pairs_removed", "Pairs to remove", [str(i) for i in range(8)], [], labels=lambda i: f"pair {i}")


def pairs_view() -> None:
    inv = pairs.frequencies()
    wl = pairs.wavelengths()
    never = pairs.never_turn(inv, TRAINED.train_len)
    hd = TRAINED.d_model // TRAINED.n_heads
    setup = (
        f"Each {hd}-wide head of the RoPE model turns {inv.size} pairs of its queries and keys, pair i by θᵢ = "
        f"{TRAINED.setting.base:,.0f}^(−2i/{hd}) per character: "
        f"wavelengths from {wl[0]:.1f} to {wl[-1]:,.0f} characters. Trained on L = {TRAINED.train_len}, pairs {never[0]} to "
        f"{never[-1]} never complete a turn within L. **Removing** a pair here sets its frequency to 0: it keeps its content but no "
        f"longer carries position. Removing none changes nothing; removing all {inv.size} leaves the same weights without positions."
    )
    st.markdown(EXPERIMENTS["pairs"].question)
    ship = _load("pairs")
    if ship is not None:
        plot(EXPERIMENTS["pairs"].figure(ship.data, "precomputed"), key="lab_pairs_shipped")
        rest = _caption(findings.pairs(ship.data.layouts(), never, inv.tolist()))
        with _more(ship, setup, rest):
            static_table(figs.pairs_table(ship.data.layouts()))
    _papers().markdown(
        "**The papers** (their abstracts; the papers' bodies were not checked here). Barbero et al. (2024) find that Gemma 7B "
        "“learns to use RoPE to construct robust ‘positional’ attention patterns by exploiting the highest frequencies” and “greatly "
        "prefers to use the lowest frequencies of RoPE, which we suspect are used to carry semantic information”, and propose a "
        "modification of RoPE that improves performance. Liu et al. (2023) “explain the origin of the RoPE-based extrapolation issue "
        "by critical dimension for extrapolation”.  \n"
        f"**Where ours differs.** Gemma 7B is a large language model; this one has {inv.size} pairs per head and was trained "
        f"on {TRAINED.train_len} characters. The findings above (under the chart and in its “More” box) say what removing the fastest "
        "pairs does at L, and whether removing "
        "the pairs that never complete a turn within L, the ones training never showed a whole circle, helps at 4L.  \n"
        f"Sources: {pairs.BARBERO}; {pairs.LIU}."
    )
    st.subheader("Remove pairs yourself")
    check_links(PAIRS_REMOVED)
    removed = tuple(int(i) for i in PAIRS_REMOVED.draw())
    plot(figs.wavelength_figure(wl.tolist(), removed), key="lab_pairs_wavelengths")
    configs, problem = [pairs.PairsConfig(removed)], model_problem("rope")

    def draw(done: list) -> None:
        config, outcome = done[0]
        ppl = outcome.values["perplexity"]
        st.markdown(f"**{config.label}**: perplexity " + ", ".join(f"{v:.3f} at {n}" for n, v in ppl.items()) + f" ({outcome.cpu_seconds:.1f} s of CPU).")
        same = [v for v in (ship.data.variants if ship else []) if tuple(v["removed"]) == config.removed]
        if same:
            st.caption(same_as_shipped([(ppl[n], same[0]["perplexity"][n]) for n in ppl]))

    live("pairs", "lab_pairs", configs, "Evaluate", draw, problem)


# --- 5. passkey -----------------------------------------------------------------------------------

KEY_SCHEME = Choice("lab_key_scheme", "Scheme", list(lm.DEFAULT_SCHEMES), "alibi", labels=SCHEME_LABEL)
KEY_SEED = Number("lab_key_seed", "Seed", 0, 2**31 - 1, 0, expected="the seed is a whole number from {lo} to {hi:,}")
KEY_STEPS = Number("lab_key_steps", "Training steps", 1, 2000, passkey.PasskeyConfig().steps, expected="steps are a whole number from {lo} to {hi:,}")


def passkey_view() -> None:
    default = passkey.PasskeyConfig()
    setup = (
        f"A flat perplexity on long inputs does not say whether the far context is used. The **passkey** test asks for it: a key "
        f"hidden in filler, announced by a marker, and asked for at the end. The lab's model ({default.n_layers} layers, width "
        f"{default.d_model}) is trained per scheme on sequences of {default.train_len} tokens with the key anywhere, then asked at "
        f"distances up to {passkey.MAX_FACTOR} × {default.train_len}."
    )
    st.markdown(EXPERIMENTS["passkey"].question)
    ship = _load("passkey")
    if ship is not None:
        runs = ship.data.runs("schemes")
        order = [s for s in lm.DEFAULT_SCHEMES if s in ship.data.schemes]
        plot(EXPERIMENTS["passkey"].figure(ship.data, "precomputed"), key="lab_key_shipped")
        same = figs.coinciding([(s, {d: tuple(r[s]["accuracy"][d] for r in runs) for d in runs[0][s]["accuracy"]}) for s in order])  # equal in every seed
        rest = _caption(
            findings.passkey([{sc: r[sc] for sc in order} for r in ship.data.runs("schemes")])
            + (" " + nope if (nope := findings.without_positions(ship.data.runs("schemes"))) else "")
            + f" Chance is {1 / default.keys:.4f}."
            + "".join(f" The lines of {' and '.join(SCHEMES[s].label for s in g)} lie on each other (the same accuracy at every distance)." for g in same),
            "Each line is one scheme's share of keys named right at each distance; right of the mark at L the key stands farther back "
            "than in any training sequence.",
        )
        with _more(ship, setup, rest):
            text_block(figs.passkey_text(default))
            st.caption(
                f"One training sequence: f3 a filler token ({default.fillers} of them), M the marker, K7 a key ({default.keys} of them), ? the question."
            )
            static_table(figs.passkey_table(ship.data.layouts(), order))
    _papers().markdown(
        "**The paper.** The passkey retrieval task of Mohtashami & Jaggi (2023), as YaRN (Peng et al. 2023, §4.3.2) describes and "
        "uses it to check an extended context, “measures a model's ability to retrieve a simple passkey (i.e., a five-digit number) "
        "from amongst a large amount of otherwise meaningless text”. (The Landmark Attention paper itself was checked here only at "
        "its abstract.)  \n"
        "**Here, and where it differs.** "
        + "The key's tokens never occur in the filler here: attention has to reach them, however far back they are. "
        "Tokens are symbols, not words, and each scheme is trained from scratch on this one task, with no language model around it."
        f"  \nSources: {passkey.PAPER_SOURCE}; {extend.PENG}."
    )
    st.subheader("Train one yourself")
    check_links(KEY_SCHEME, KEY_SEED, KEY_STEPS)
    c1, c2, c3 = st.columns([3, 1, 1])
    scheme, seed, steps = KEY_SCHEME.draw(c1), KEY_SEED.draw(c2), KEY_STEPS.draw(c3)
    configs, problem = _one(lambda: passkey.PasskeyConfig(scheme, steps=int(steps), seed=int(seed)))

    def draw(done: list) -> None:
        config, outcome = done[0]
        acc = outcome.values["accuracy"]
        plot(
            figs.passkey_figure([(config.scheme, acc)], config.keys, config.train_len, what=f"your run, seed {config.seed}, {config.steps:,} steps"),
            key="lab_key_live",
        )
        note = next(iter(outcome.values["notes"].values()), "")
        st.caption(f"{outcome.cpu_seconds:.1f} s of CPU." + (f" Missing points: {note}." if note else ""))
        if ship is not None and config.scheme in ship.data.schemes and config == passkey.PasskeyConfig(config.scheme):
            ref = ship.data.schemes[config.scheme]["accuracy"]
            st.caption(same_as_shipped([(acc[d], ref[d]) for d in ref if d in acc]))

    live("passkey", "lab_key", configs, "Train", draw, problem)


# --- any other experiment: drawn from its record -------------------------------------------------


def record_view(name: str) -> None:
    """An experiment without a view of its own: its question, its shipped figure and findings, and a
    live run of its default config, said in its record's words (and set beside the shipped numbers
    when its bench's check reruns that config)."""
    record = EXPERIMENTS[name]
    st.markdown(record.question)
    ship = _load(name)
    if ship is not None:
        plot(record.figure(ship.data, "precomputed"), key=f"lab_{name}_shipped")
        _more(ship, rest=_caption(record.findings(ship.data)))
    configs, problem = _one(record.default)

    def draw(done: list) -> None:
        config, outcome = done[0]
        st.markdown(record.said(config, outcome) + f" {outcome.cpu_seconds:.1f} s of CPU.")
        if ship is not None and record.bench is not None:  # the bench's --check compares exactly its own configs with the shipped numbers
            again, compare = record.bench.check(ship)
            if config in again:
                st.caption(same_as_shipped([(live, shipped) for _, live, shipped, _ in compare([outcome])]))

    live(name, f"lab_{name}", configs, "Run", draw, problem)


def questions_view() -> None:
    """The section's opening view: what each experiment asks, from its record."""
    st.markdown("\n".join(f"- **{record.title}**: {record.question}" for record in EXPERIMENTS.values()))


DRAWERS = {QUESTIONS: questions_view, "probe": probe_view, "extend": extend_view, "sliding": sliding_view, "pairs": pairs_view, "passkey": passkey_view}


def _count(n: int) -> str:
    return ("One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine")[n - 1] if 1 <= n <= 9 else f"{n:,}"


def trained_section() -> None:
    """The section: a few words, the experiment picker, and the chosen experiment."""
    st.header("What the trained models know")
    st.markdown(
        f"{_count(len(EXPERIMENTS))} experiments on trained models: the Austen models whose curves open the page (they come with the "
        "app), unless an experiment says it trains its own. Each shows its precomputed numbers at once and runs again on demand."
    )
    # a link made when the probe opened the section names its settings and no view: it still opens the probe
    probe_link = "lab_trained_view" not in st.query_params and any(k.startswith("lab_probe_") for k in st.query_params)
    picker = dataclasses.replace(VIEW, default="probe") if probe_link else VIEW
    check_links(picker)
    view = picker.draw()
    glossary.terms_expander(glossary.TRAINED, key="terms_trained")  # the terms every experiment's words use, defined once above them
    try:
        DRAWERS[view]() if view in DRAWERS else record_view(view)
    except (KeyError, TypeError, IndexError) as err:  # results that parse but lack what the view reads: a sentence, not a trace
        st.error(
            f"This experiment could not be drawn from its precomputed results ({experiment.results_path(view).name}: "
            f"{type(err).__name__} {str(err)[:80]}): run {EXPERIMENTS[view].command} to make them again.",
            icon=ERROR,
        )

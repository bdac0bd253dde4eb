"""The /llm page's views of a real language model (core.llm, SmolLM2-135M), one per tab:

- your text: one head's attention with the rotary positions as trained, with the rotation removed and with
  the positions shuffled, the next-token top 5 under each, every head of every layer in a lazy expander
  (a preset's reading is shipped; your own text is read live);
- past the trained context: the shipped perplexity along a novel per RoPE scaling, at one factor at a time, and a
  live run;
- passkey: the shipped needle grid, its prompt, and a live cell;
- which rotation speeds it uses: the shipped size of every q and k pair, and perplexity with pairs stopped;
- two layouts: the permutation between the file's rows and the published checkpoint's, and (with the
  model) the same scores read both ways.

The model is loaded once per process by core.llm. Every live run (a reading of your text, a perplexity, a passkey
cell) is a record of core.llm.registry started through the lab's trainers (`registry.job`, drawn by ui.lab.run.live_run):
the same line, budget rule, time limit, Stop and result cache as the lab's runs, off the page's thread.
"""

from __future__ import annotations

import threading

import numpy as np
import streamlit as st

from core.lab.experiment import Shipped
from core.llm import experiments, model, registry, results
from core.llm.registry import RECORDS
from core.schemes import rope
from core.viz import llm_figures as lf
from ui.controls import Choice, Number, Text, check_links
from ui.display import guarded, plot, static_table, text_block
from ui.heatmap import draw_heatmap
from ui.lab.run import finished, live_run

MAX_CHARS = registry.MAX_CHARS  # the text box; the token budget below is what bounds the work
MAX_TOKENS = 64  # tokens a live reading takes: 30 x 9 x 64 x 64 weights per way, about 13 MB a reading
PRESETS = experiments.PRESETS
CUSTOM = "your own text"
DEFAULT_LAYER, DEFAULT_HEAD = 12, 2  # a head that looks at the token before on every preset as trained, and loses it without positions
HEAD_DIM = 64  # numbers per head in the model file (the page's Sources; tests/app/test_llm.py reads the file)
TRAINED_CONTEXT = registry.TRAINED_CONTEXT  # the model file's llama.context_length (the page's Sources; tests/app/test_llm.py reads the file)
_ONE_AT_A_TIME = threading.Lock()

SENTENCE = Choice("llm_sentence", "Text", [*PRESETS, CUSTOM], next(iter(PRESETS)), expected="pick one of the preset texts or 'your own text'")
TEXT = Text("llm_text", "Your text", "The capital of France is", MAX_CHARS, expected="your text can be up to {longest:,} characters")


@st.cache_resource(max_entries=8, show_spinner=False)
def shipped_reading(preset: str, version: int) -> dict[str, experiments.AttentionResult]:
    """A preset's reading as shipped (core.llm.results, written by the bench), by mode: no model
    needed, nothing computed. `version` is the results file's modification time (part of the cache key), so a new file is read."""
    shipped = RECORDS["attention"].load()
    out = {}
    for mode in experiments.MODES:
        row = shipped.data.rows.get(results.map_key(preset, mode))
        if row is None or row["text"] != PRESETS[preset]:
            raise ValueError(f"The shipped attention results do not hold this preset as the page has it: regenerate them with {shipped.command}.")
        out[mode] = experiments.AttentionResult(
            row["text"], mode, tuple(row["tokens"]), results.attention_maps(preset, mode), tuple((t, float(p)) for t, p in row["top5"]),
            np.asarray(row["mean_distance"]), np.asarray(row["first_token"]), None if row["positions"] is None else tuple(row["positions"]),
            float(shipped.meta["cpu_seconds"][results.map_key(preset, mode)]),
        )  # fmt: skip
    return out


def results_version() -> int:
    try:
        return results.path("attention").stat().st_mtime_ns
    except OSError:
        return 0  # the record's load says, in a sentence, that the file is missing


def chosen_reading() -> tuple[dict[str, experiments.AttentionResult] | None, str]:
    """The reading of the text the visitor chose, by mode: a preset's as shipped, or their own text read
    live (when the model is there) through the lab's line of runs, at the visitor's Read; None with a sentence
    in the page otherwise. Beside it, where it comes from, said under the maps (the page opens on its figure)."""
    check_links(SENTENCE, TEXT)
    c1, c2 = st.columns([2, 3])
    preset = SENTENCE.draw(c1)
    text = TEXT.draw(c2, disabled=preset != CUSTOM)
    if preset in PRESETS:
        got = guarded(shipped_reading, preset, results_version())
        cpu = sum(r.cpu_seconds for r in got.values())
        live = " Choose ‘your own text’ to have the model read yours live." if model.missing() is None else ""
        return got, f"Computed ahead of time for this preset ({cpu:.1f} CPU seconds for the three ways); nothing runs for it now.{live}"
    absent = model.missing()
    if absent:
        st.info(absent, icon=":material/download:")
        return None, ""
    if not text.strip():
        st.warning("There is no text to read: type a few words.", icon=":material/edit:")
        return None, ""
    if not model.loaded():  # read here, once per server, so that a run's time limit counts its reading, not the file's
        with st.spinner("The model is read from its file once per server (a few seconds)."):
            guarded(model.load)
    config = guarded(registry.Reading, text)
    problem = None
    try:
        experiments.tokenize(text, MAX_TOKENS)  # the token limit's sentence before any run
    except ValueError as err:
        problem = str(err)
    problem = problem or RECORDS["attention"].over_budget([config])
    if problem:
        st.warning(problem, icon=":material/edit:")
    run = live_run("llm_read", registry.job(RECORDS["attention"]), [config], button="Read", problem=problem, show_problem=False)
    if run is None:
        if not problem:  # nothing read yet: say what Read will draw, so the emptied view does not look broken
            st.info("Press Read: the model reads your text and its attention maps and next-token guesses appear here.", icon=":material/play_arrow:")
        return None, ""
    done = finished(run, [config], lambda p: p.label or p.scheme, stopped="The reading was stopped before it finished.")
    if not done or done[0][0] != config:
        return None, ""
    return done[0][1].values["readings"], "Read live by the model on this server, in the same line as every live run."


def text_view() -> None:
    """The opening view: the text, a layer and a head, the head's three maps, the top 5 under each."""
    got, provenance = chosen_reading()
    if got is None:
        return
    trained = got["trained"]
    layers, heads = trained.weights.shape[:2]
    layer_control = Number("llm_layer", "Layer", 1, layers, min(DEFAULT_LAYER, layers), expected="the layer is a whole number from {lo} to {hi}", slider=True)
    head_control = Number("llm_head", "Head", 1, heads, min(DEFAULT_HEAD, heads), expected="the head is a whole number from {lo} to {hi}", slider=True)
    check_links(layer_control, head_control)
    c1, c2 = st.columns(2)
    layer, head = layer_control.draw(c1), head_control.draw(c2)
    maps = [(label, got[mode].weights[layer - 1, head - 1]) for mode, label in experiments.MODES.items()]
    shuffled = got["shuffled"]
    dealt = {experiments.MODES["shuffled"]: shuffled.positions} if shuffled.positions else {}  # that panel names the positions dealt
    draw_heatmap(lf.attention_figure(trained.tokens, maps, layer, head, dealt), key="llm_attention")
    mixed = shuffled.weights[layer - 1, head - 1]
    st.caption(" ".join(lf.attention_lead(maps, mixed, shuffled.positions)))
    cells = lf.shuffled_cells(mixed, shuffled.positions) if dealt else ""
    if cells:  # the row-by-row reading, one click away from the lead
        with st.expander("The shuffled map, row by row", icon=":material/table_rows:"):
            st.caption(f"Its rows and columns keep the text's order, and each token is named by the position it was given. {cells}")
    st.caption(provenance)
    st.markdown("**What the model would write next**: its five likeliest next tokens, with their probabilities, under each way.")
    static_table({label: [f"{lf.shown_token(token)}  {p:.1%}" for token, p in got[mode].top5] for mode, label in experiments.MODES.items()})
    box = st.expander(f"Every head of all {layers} layers, positions as trained", icon=":material/grid_view:", key="llm_heads", on_change="rerun")
    if box.open:
        with box:
            draw_heatmap(lf.heads_figure(trained.mean_distance, trained.first_token), key="llm_heads_map")
            st.caption(" ".join(lf.heads_sentences(trained.mean_distance, trained.first_token, len(trained.tokens))))


def shipped(name: str) -> Shipped | None:
    """The shipped results of record `name` (core.llm.registry), typed, or None with their sentence in the page."""
    try:
        return RECORDS[name].load()
    except ValueError as err:
        st.info(str(err), icon=":material/hourglass_empty:")
        return None


def precomputed(ship: Shipped) -> None:
    cpu = ship.meta.get("total_cpu_seconds")
    cost = f" ({cpu:,.0f} CPU seconds)" if isinstance(cpu, (int, float)) else ""
    st.caption(f"Computed ahead of time{cost} on {ship.meta.get('date', 'an unrecorded date')}; nothing runs for this view. {ship.left_out}")


def frequencies_view() -> None:
    """Which rotation speeds the model uses: the size of every pair of q and k per layer, and perplexity with pairs stopped."""
    ship = shipped("frequencies")
    if ship is None:
        return
    got = ship.results
    st.markdown(
        f"Each head's {HEAD_DIM} query and key numbers form {HEAD_DIM // 2} pairs, and RoPE turns pair i by an angle proportional to the position, fastest for "
        "pair 0 and slowest for the last. A pair that is large can weigh heavily in a score; one that is small barely counts."
    )
    draw_heatmap(lf.pair_sizes_figure(got["q"], got["k"]), key="llm_pair_sizes")
    st.caption(
        lf.sizes_sentence(got["q"], got["k"], got["wavelength"]) + f" Sizes are measured on {got['tokens']:,} tokens of one novel; "
        "a large pair says what could weigh in a score, not that its turning matters: stopping pairs, below, tests that."
    )
    plot(lf.ablation_figure(got["ablation"], got["tokens"]), key="llm_ablation")
    st.caption(
        " ".join(lf.frequency_sentences(got["ablation"], np.asarray(got["wavelength"]), got["tokens"]))
        + " A stopped pair keeps its numbers and loses only its turning."
    )
    precomputed(ship)


def context_view() -> None:
    """Past the trained context: the shipped perplexity along the text under each RoPE scaling, the lines that lie on one
    another drawn apart below it, how the scalings work and every number one click away, and a run of your own."""
    st.markdown(
        "Perplexity is how surprised the model is by each next token (lower is better). Each line stretches the rotation a "
        "different way (a RoPE scaling), so that a text longer than the model was trained on turns through angles it knows."
    )
    ship = shipped("perplexity")
    if ship is not None:
        got = ship.data
        factors = got.factors()
        factor = None
        if len(factors) > 1:  # the kinds at one factor at a time, beside no scaling: one figure stays readable
            names = [f"{f:g}" for f in factors]  # the URL carries the plain number
            shown = Choice("llm_shown_factor", "Factor shown", names, names[0], labels=lambda f: f"s = {f}", widget="segmented_control")
            check_links(shown)
            factor = float(shown.draw())
        entries = got.at(factor)
        plot(lf.perplexity_figure(entries, registry.WINDOW, got.length, TRAINED_CONTEXT), key="llm_perplexity")
        st.caption(" ".join(lf.perplexity_lead(entries, got.length, TRAINED_CONTEXT, registry.WINDOW)))
        apart = lf.above_lowest_figure(entries, registry.WINDOW, got.length, TRAINED_CONTEXT)
        if apart is not None:
            plot(apart, key="llm_above_lowest")
            st.caption(" ".join(lf.above_lowest_sentences(entries, registry.WINDOW, got.length)))
        with st.expander("More: how each scaling stretches the rotation, and every number", icon=":material/table:"):
            st.markdown(
                "Linear (position interpolation) divides every angle by the factor s. NTK-aware raises the base instead. Dynamic NTK "
                "raises it by as much as the text read in one pass is longer than the trained context, and then for every position of "
                "that pass, those before the mark too. YaRN and Llama 3 stretch the slow pairs and keep the fast ones; YaRN also "
                "sharpens attention (its temperature)."
            )
            st.caption(" ".join(lf.perplexity_sentences(entries, got.length, TRAINED_CONTEXT, registry.WINDOW)))
            precomputed(ship)
    live_perplexity()


def passkey_view() -> None:
    """Passkey retrieval: the shipped needle grid per scaling, and the prompt the model is given."""
    ship = shipped("passkey")
    if ship is None:
        return
    trials, config = ship.data.rows, ship.config
    st.markdown(
        "A five-digit key is hidden at some depth in filler text, and the prompt ends by asking for it. The model finds it when its "
        "likeliest next tokens are the key's digits. Depth 0% puts the key at the start of the filler, 100% at its end."
    )
    not_run = ship.meta.get("not_run", [])
    draw_heatmap(lf.passkey_figure(trials, not_run=not_run), key="llm_passkey")
    seeds = config.get("seeds", 1)
    st.caption(" ".join([*lf.passkey_sentences(trials, not_run), f"Each cell holds {seeds} key{'s' if seeds != 1 else ''}: a small sample, not a rate."]))
    box = st.expander("The prompt", icon=":material/description:", key="llm_prompt", on_change="rerun")
    if box.open:
        with box:
            p = config["prompt"]
            text_block(f"{p['intro']}{p['filler']}{p['filler']} …{p['needle'].format(key='12345')}{p['filler']} …{p['question']}", wrap=True)
            st.caption(
                "12345 stands for the key, a random five-digit number fixed per trial. The filler repeats until the prompt has the length "
                "asked for, and the key sits at the chosen depth among its repeats."
            )
    precomputed(ship)
    live_passkey()


@st.cache_resource(max_entries=len(PRESETS), ttl=3600, show_spinner=False)
def layouts(text: str) -> experiments.LayoutsResult:
    """A text read through the file's layout and the un-permuted one (core.llm.experiments), one reading at a time."""
    with _ONE_AT_A_TIME:
        return experiments.layouts(text)


def layouts_view() -> None:
    """One model, two layouts: the permutation between the file's rows and Hugging Face's, and the same scores from both."""
    st.markdown(
        f"The model file stores each head's {HEAD_DIM} query and key numbers so that neighbours (2i, 2i + 1) form a rotating pair, as "
        f"llama.cpp turns them; the checkpoint the model was published as pairs number i with number i + {HEAD_DIM // 2}. These are the two "
        "layouts of the RoPE page: one rotation, the rows in another order."
    )
    perm = rope.layout_permutation(HEAD_DIM)
    plot(lf.layout_figure(perm), key="llm_layouts")
    absent = model.missing()
    if absent:
        st.caption(lf.layout_sentences(perm, True, 0.0, 0)[0])
        st.info(absent, icon=":material/download:")
        return
    preset, text = next(iter(PRESETS.items()))
    got = guarded(layouts, text)
    st.caption(" ".join(lf.layout_sentences(got.permutation, got.rows_match, got.max_relative_difference, got.tokens)) + f" (The text: the preset ‘{preset}’.)")
    static_table(
        {
            "file layout (adjacent pairs)": [f"{lf.shown_token(t)}  {p:.1%}" for t, p in got.top5_adjacent],
            "half-split layout": [f"{lf.shown_token(t)}  {p:.1%}" for t, p in got.top5_half],
        }
    )


LENGTHS = (512, 1024, 2048, 4096, 8192, 16384)  # tokens a live run may ask for; the budget refuses what costs too much
DEPTHS = ("0", "0.25", "0.5", "0.75", "1")  # as the URL carries them
SCALING = Choice("llm_scaling", "Scaling", experiments.SCALINGS, "yarn", labels=lf.KIND_LABELS)
FACTOR = Number("llm_factor", "Factor s", 1.0, 64.0, 2.0, expected="the factor is a number from {lo:g} to {hi:g}", step=0.5)
LENGTH = Choice("llm_length", "Tokens read", list(LENGTHS), 2048, expected="the length is {options} tokens", widget="select_slider")
PK_SCALING = Choice("llm_pk_scaling", "Scaling", experiments.SCALINGS, "none", labels=lf.KIND_LABELS)
PK_FACTOR = Number("llm_pk_factor", "Factor s", 1.0, 64.0, 2.0, expected="the factor is a number from {lo:g} to {hi:g}", step=0.5)
PK_LENGTH = Choice("llm_pk_length", "Prompt length", list(LENGTHS[1:]), 1024, expected="the length is {options} tokens", widget="select_slider")
PK_DEPTH = Choice("llm_pk_depth", "Depth of the key", list(DEPTHS), "0.5", labels=lambda d: f"{float(d):.0%}", widget="segmented_control")


def _model_ready() -> bool:
    """Whether live runs can start: the model is there (else its sentence), read once per server here so that a
    run's time limit counts its reading, not the file's."""
    absent = model.missing()
    if absent:
        st.info(absent, icon=":material/download:")
        return False
    if not model.loaded():
        with st.spinner("The model is read from its file once per server (a few seconds)."):
            guarded(experiments.held_out_ids, 64)  # loads the model and tokenizes the text runs read
    return True


def _config(record, *args):
    """A record's config from the controls, or None with its sentence (a bad combination the controls allow)."""
    try:
        return record.config(*args)
    except ValueError as err:
        st.error(str(err), icon=":material/error:")
        return None


def live_perplexity() -> None:
    """One perplexity run on demand, in the lab's line for a trainer."""
    st.subheader("Run one yourself")
    if not _model_ready():
        return
    check_links(SCALING, FACTOR, LENGTH)
    c1, c2, c3 = st.columns([2, 1, 2])
    scaling = SCALING.draw(c1)
    factor, length = FACTOR.draw(c2, disabled=scaling == "none"), LENGTH.draw(c3)
    record = RECORDS["perplexity"]
    config = _config(record, scaling, 1.0 if scaling == "none" else float(factor), int(length))
    if config is None:
        return
    run = live_run("llm_live", registry.job(record), [config], button="Run", problem=record.over_budget([config]))
    if run is not None:
        _draw_live(
            finished(
                run, [config], lambda p: p.label or p.scheme, stopped="The run was stopped before it finished.",
                changed="The settings above have changed since this run; the result below is the last run's.",
            )
        )  # fmt: skip


def _draw_live(done: list) -> None:
    try:
        ship = RECORDS["perplexity"].load().data
    except ValueError:
        ship = None  # the shipped view above says so
    for config, outcome in done:
        got = outcome.values["result"]
        entries = ship.rows.values() if ship else ()
        same = [e for e in entries if lf.scaling_key(e) == config.scaling and (config.scaling == "none" or e["factor"] == config.factor)]
        shipped_too = f" The shipped run, over {ship.length:,} tokens with the same scaling, gives {same[0]['perplexity']:.2f}." if same else ""
        st.markdown(
            f"Perplexity **{got.perplexity:.2f}** over the first {config.length:,} tokens with {lf.KIND_LABELS[config.scaling]}"
            f"{'' if config.scaling == 'none' else f' at s = {config.factor:g}'}, in {got.cpu_seconds:.1f} CPU seconds.{shipped_too}"
        )


def live_passkey() -> None:
    """One passkey cell on demand, in the lab's line, where its estimate fits a live run's budget."""
    st.subheader("Hide a key yourself")
    if not _model_ready():
        return
    check_links(PK_SCALING, PK_FACTOR, PK_LENGTH, PK_DEPTH)
    c1, c2, c3 = st.columns([2, 1, 2])
    scaling = PK_SCALING.draw(c1)
    factor, length = PK_FACTOR.draw(c2, disabled=scaling == "none"), PK_LENGTH.draw(c3)
    depth = PK_DEPTH.draw()
    record = RECORDS["passkey"]
    config = _config(record, scaling, 1.0 if scaling == "none" else float(factor), int(length), float(depth))
    if config is None:
        return
    run = live_run("llm_pk_live", registry.job(record), [config], button="Run", problem=record.over_budget([config]))
    if run is None:
        return
    done = finished(
        run, [config], lambda p: p.label or p.scheme, stopped="The run was stopped before it finished.",
        changed="The settings above have changed since this run; the result below is the last run's.",
    )  # fmt: skip
    for config, outcome in done:
        got = outcome.values["result"]
        found = "found the key" if got.correct else "did not find the key"
        st.markdown(
            f"The model **{found}** {got.key} in a prompt of {got.length:,} tokens with the key at depth "
            f"{config.depth:.0%}, with {lf.KIND_LABELS[config.scaling]}{'' if config.scaling == 'none' else f' at s = {config.factor:g}'}: "
            f"probability {got.probability:.1%} for the five digits together, in {got.cpu_seconds:.1f} CPU seconds."
        )
        st.text(f"Its likeliest digits, one at a time: {got.answer}")  # the model's own tokens, shown as text

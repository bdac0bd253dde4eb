"""Page `context`: long context in real models, in three tabs bound to the URL (`ctx_view`; only the open one runs):
a table across models and each preset's RoPE pair by pair against its trained and extended context with its decay before
and after scaling (ui.context_models), the dynamic-NTK cache pitfall, and RoPE in 2-D."""

import numpy as np
import pandas as pd
import streamlit as st

from core.analysis import context as cx
from core.schemes import rope
from core.schemes.rope_presets import PRESETS
from core.viz import charts, describe
from core.viz.grid import strided
from core.viz.heatmap import heatmap
from ui import controls
from ui.context_models import fmt, model_tab
from ui.display import guarded, plot
from ui.heatmap import draw_heatmap
from ui.path import next_link
from ui.rope_controls import preset_control
from ui.sources import sources_expander
from ui.tabs import url_tabs

GROWTHS = (2, 4, 8)  # the query's length over the cached prompt's, for the dynamic-NTK pitfall
GRIDS = (8, 12, 16, 24, 32)
GRID_BASES = (10_000, 1_000_000)
GRID_HEAD_DIM = 128  # Qwen2-VL's head width
SPLITS = ((16, 24, 24), (16, 8, 40), (16, 40, 8))  # Qwen2-VL's, and two other splits of its 64 pairs
TABLE_COLUMNS = (  # the side-by-side table's columns (core.analysis.context.summary_rows), in three tables
    ("model", "layers", "scaling", "head_dim", "base", "attention factor", "unverified"),
    ("model", "layers", "trained context", "extended context", "rotating dims", "pairs", "turn within trained", "turn within extended"),
    ("model", "layers", "kept", "blended", "interpolated", "not rotated", "slowest wavelength before", "slowest wavelength after"),
)


st.title("Long context in real models")
st.markdown(
    "Real models' RoPE, trained on one context and run at a longer one: look for the pairs that never complete a turn in training."
)
NTK_GROWTH = controls.Choice(
    "ntk_growth", "Sequence length (× the prompt's)", GROWTHS, 2, widget="select_slider", expected="the growth is {options}",
    help="How long the sequence has grown, prompt and generated tokens together, as a multiple of the cached prompt's length.",
)  # fmt: skip
GRID = controls.Choice("grid", "Grid of patches (side)", GRIDS, 16, widget="select_slider", expected="the grid side is {options}")
GRID_BASE = controls.Choice("grid_base", "Base", GRID_BASES, 10_000, widget="segmented_control", expected="the base is {options}")
controls.check_links(NTK_GROWTH, GRID, GRID_BASE)  # a bad value in the link is named whichever tab is open


@st.cache_data(max_entries=64, ttl=3600, show_spinner=False)
def summary(names: tuple[str, ...]) -> pd.DataFrame:
    return pd.DataFrame(cx.summary_rows([PRESETS[n] for n in names]))


# --- side by side, then model by model ------------------------------------------------------
def _models() -> None:
    chosen = preset_control()
    presets = [PRESETS[name] for name in chosen]
    if not presets:
        st.info("Choose one or more models above to compare them.", icon=":material/info:")
        return
    tabs = st.tabs([p.label for p in presets], key="context_tab", on_change="rerun")
    for preset, tab in zip(presets, tabs):
        if tab.open is False:
            continue  # only the open tab is computed
        with tab:
            model_tab(preset)
    with st.expander("All the chosen models side by side, in numbers"):
        table = summary(tuple(chosen))
        formats = {c: st.column_config.NumberColumn(format="%.4g") for c in ("base", "attention factor")}
        short = {  # shorter headers, so each table fits (the columns keep their names)
            "turn within trained": "turn in trained", "turn within extended": "turn in extended",
            "slowest wavelength before": "slowest λ before", "slowest wavelength after": "slowest λ after",
        }  # fmt: skip
        formats |= {c: st.column_config.NumberColumn(label, format="%.4g") for c, label in short.items()}
        config = {"model": st.column_config.TextColumn(pinned=True)} | formats
        # three tables of eight columns or fewer, so each fits a 1,440-pixel window without a horizontal scroll
        for columns in TABLE_COLUMNS:
            st.dataframe(table[list(columns)], hide_index=True, column_config=config)
        st.caption(
            "One row per model and kind of layer in each table: its settings, its contexts and how many pairs turn within them, and what the "
            "scaling does to its pairs. A pair *turns in* a "
            "context when its wavelength 2π/θᵢ is at most that many positions: before scaling for the trained context, after it for the "
            "extended one. *Not rotated* counts the pairs that never turn: the dimensions partial rotary leaves alone, and proportional "
            "RoPE's zero frequencies. Numbers show 4 significant digits; 'unverified' names the fields no stored source could confirm. "
            "In a model's configuration these settings are `rope_theta`, `rope_scaling`, `partial_rotary_factor` and `mrope_section`."
        )


# --- the dynamic-NTK pitfall -----------------------------------------------------------------
def _pitfall() -> None:
    st.header("The dynamic-NTK cache pitfall")
    presets = [PRESETS[name] for name in preset_control()]
    subject = presets[0] if presets else PRESETS["llama-2-7b"]
    layer = subject.layers[-1]
    p = cx.rotary_fraction(layer)
    growth = NTK_GROWTH.draw(st)
    cache_len = subject.trained_context
    dynamic = rope.RopeScaling("dynamic", float(growth), cache_len)
    pitfall = guarded(cx.dynamic_cache_error, layer.head_dim, layer.base, dynamic, cache_len, growth * cache_len, partial_rotary_factor=p)
    error = pitfall.stale - pitfall.consistent
    plot(
        charts.lines(
            [
                ("consistent: keys re-rotated at the new base", pitfall.key_positions, pitfall.consistent),
                ("cached: keys kept from the prompt", pitfall.key_positions, pitfall.stale),
                ("error (cached − consistent)", pitfall.key_positions, error),
            ],
            title=f"Dynamic NTK ×{growth} on {subject.label}'s head: the query at position {pitfall.query_position:,} against each cached key",
            x_title="key position (the prompt's tokens)",
            y_title="score / head_dim",
            note=f"{pitfall.key_positions.size:,} of {cache_len:,} key positions" if pitfall.key_positions.size < cache_len else "",
        ),
        key="context_pitfall",
    )
    st.markdown(
        f"Keys cached with the prompt were turned with base {fmt(pitfall.base_cache)}; at {growth * cache_len:,} tokens dynamic NTK turns the query "
        f"with base {fmt(pitfall.base_query)}. Their scores are off by up to {describe.number(np.abs(error).max())}. "
        "Recompute the cached keys, or do not use dynamic scaling with a cache."
    )
    with st.expander("Why, and on which model"):  # the depth one click away
        st.markdown(
            f"Dynamic NTK scaling (factor {growth}, here on the head of {subject.label}, the first model chosen, whatever its own scaling) grows "
            f"the base with the sequence length. Keys cached while the {cache_len:,}-token prompt was encoded were rotated with base "
            f"{fmt(pitfall.base_cache)}; at {growth * cache_len:,} tokens the query is rotated with base {fmt(pitfall.base_query)}. Their scores "
            f"then differ from a fresh computation by up to {describe.number(np.abs(error).max())} (mean {describe.number(np.abs(error).mean())}), "
            "on a scale where a key at the query's own position scores 1."
        )
        st.caption(
            "What to look for: a cached key at position n was turned by n·θᵢ instead of n·θ′ᵢ, so its angles are off by n·(θ′ᵢ − θᵢ): nothing "
            "at the first key and, where the two bases differ, more for every later one. The score's error (the third line) goes through "
            "cosines of those angles, so it need not grow with n. The bases differ whenever the sequence has outgrown the trained context."
        )


def draw_grid(panels: list, title: str, note: str, key: str, shared: bool = True) -> None:
    """Panels of scores over the patch grid, side by side, on the diverging scale centred on zero (one range, or each panel its own)."""
    spec = heatmap(panels, title=title, x_title="column", y_title="row", shared_range=shared, value_title="score − mean", note=note, panel_height=260)
    draw_heatmap(spec, key=key)


# --- RoPE in 2-D -----------------------------------------------------------------------------
def _grids() -> None:
    st.header("RoPE in 2-D: image patches")
    c1, c2 = st.columns(2)
    side, grid_base = GRID.draw(c1), GRID_BASE.draw(c2)
    rows, cols = cx.grid_positions(side, side)
    query = (side // 2) * side + side // 2
    x, y = strided(side, side), strided(side, side)


    def on_grid(name: str, angles: np.ndarray) -> tuple[str, np.ndarray, object, object]:
        z, mean = cx.centred_grid(angles, query, side, side)
        means.append(f"{name} {describe.number(mean)}")
        return (name, z, x, y)


    means: list[str] = []
    t0 = np.zeros_like(rows)  # one image: every patch has the same temporal position
    panels = [
        on_grid("axial 2-D (rows, then columns)", cx.axial_angles(rows, cols, GRID_HEAD_DIM, grid_base)),
        on_grid("1-D over the raster order", cx.flat_angles(rows, cols, side, GRID_HEAD_DIM, grid_base)),
        on_grid("M-RoPE [16, 24, 24]", cx.mrope_angles(t0, rows, cols, GRID_HEAD_DIM, grid_base, SPLITS[0])),
    ]
    draw_grid(
        panels,
        f"Score of the patch at row {side // 2}, column {side // 2} against every patch of a {side} × {side} grid, minus its grid mean "
        f"(head_dim {GRID_HEAD_DIM}, base {grid_base:,})",
        "all-ones query and key, score divided by d/2; grid means subtracted: " + ", ".join(means),
        "context_grid",
        shared=False,  # each panel its own range: M-RoPE's scores are several times to a thousand times smaller than axial RoPE's
    )
    axial, mrope = (float(np.nanmax(np.abs(panels[k][1]))) for k in (0, 2))
    st.caption(
        "What to look for: axial RoPE scores a patch by its row and column offsets, a cross centred on the query. 1-D RoPE over the raster "
        "order scores by distance in the flattened sequence, so the patch below is a whole row away. M-RoPE's scores move "
        + (f"{axial / mrope:,.0f} times less than axial RoPE's" if mrope > 0 else "not at all")
        + " (each panel has its own colour range)."
    )
    with st.expander("Why M-RoPE's scores move less, and how its split of the pairs shapes them"):  # the depth one click away
        st.caption(
            "M-RoPE also scores by offsets, but Qwen2-VL gives height and width only its slower pairs. Each panel above and below shows its "
            "scores minus their mean over the grid."
        )
        means = []
        splits = [on_grid(f"M-RoPE {list(split)}", cx.mrope_angles(t0, rows, cols, GRID_HEAD_DIM, grid_base, split)) for split in SPLITS]
        draw_grid(
            splits,
            "How Qwen2-VL's M-RoPE split [temporal, height, width] of the 64 pairs shapes the same scores, minus their grid mean",
            "grid means subtracted: " + ", ".join(means),
            "context_splits",
        )
        st.caption(
            "What to look for: the sections are consecutive, fastest pairs first, and every patch of one image has the same temporal position, "
            "so the temporal pairs add a constant. Height gets the faster pairs after them and width the slowest, so the scores change more "
            "along a column than along a row; moving pairs between the two sections moves that difference."
        )


url_tabs("ctx_view", {"Models": _models, "The dynamic-NTK pitfall": _pitfall, "RoPE in 2-D": _grids})
with st.expander("Where these numbers come from"):
    st.markdown(
        "Each model's RoPE settings as its published config sets them, with the frequencies Hugging Face transformers computes for them. "
        "Each model brings its own head width, base and contexts, so the sidebar's settings do not apply here."
    )
sources_expander("context")
next_link("context")

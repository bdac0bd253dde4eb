"""Page `context`: long context in real models: each preset's RoPE pair by pair against its trained and extended
context, its decay before and after scaling, a table across models, the dynamic-NTK cache pitfall, and RoPE in 2-D."""

from urllib.parse import urlencode

import numpy as np
import pandas as pd
import streamlit as st

from core.analysis import context as cx
from core.files.rope_code import rope_code
from core.schemes import rope
from core.schemes.rope_presets import PRESETS
from core.viz import charts
from core.viz.grid import strided
from ui import controls
from ui.path import next_link
from ui.rope_controls import KIND_LABELS, preset_control
from ui.shared import guarded, plot

GROWTHS = (2, 4, 8)  # the query's length over the cached prompt's, for the dynamic-NTK pitfall
GRIDS = (8, 12, 16, 24, 32)
GRID_BASES = (10_000, 1_000_000)
GRID_HEAD_DIM = 128  # Qwen2-VL's head width
SPLITS = ((16, 24, 24), (16, 8, 40), (16, 40, 8))  # Qwen2-VL's, and two other splits of its 64 pairs


def fmt(value: float) -> str:
    """A base as 500,000 rather than 5e+05."""
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.6g}"


st.title("Long context in real models")
st.markdown(
    "A model's config decides its RoPE: `rope_theta`, `rope_scaling`, `partial_rotary_factor`, `mrope_section`. "
    "Here those settings of real models, with the frequencies Hugging Face transformers computes for them, meet the context "
    "they were trained on and the longer one they are run at. Each model brings its own head width, base and contexts: "
    "the sidebar's d_model, max_len and base do not apply on this page."
)
chosen = preset_control()
presets = [PRESETS[name] for name in chosen]


@st.cache_data(max_entries=64, ttl=3600, show_spinner=False)
def summary(names: tuple[str, ...]) -> pd.DataFrame:
    return pd.DataFrame(cx.summary_rows([PRESETS[n] for n in names]))


@st.cache_data(max_entries=64, ttl=3600, show_spinner=False)
def layer_data(name: str, index: int) -> tuple[cx.PairView, np.ndarray, np.ndarray, np.ndarray]:
    preset = PRESETS[name]
    layer = preset.layers[index]
    offsets = cx.decay_offsets(preset.extended_context)
    return (cx.pair_view(layer, preset.extended_context), offsets, *cx.decay_curves(layer, preset.extended_context, offsets))


# --- side by side ----------------------------------------------------------------------------
st.header("Side by side")
if not presets:
    st.info("Choose one or more models above to compare them.", icon=":material/info:")
else:
    table = summary(tuple(chosen))
    formats = {c: st.column_config.NumberColumn(format="%.4g") for c in ("base", "attention factor", "slowest wavelength before", "slowest wavelength after")}
    st.dataframe(table, hide_index=True, column_config={"model": st.column_config.TextColumn(pinned=True)} | formats)
    st.caption(
        "One row per model and kind of layer. A pair *turns within* a context when its wavelength 2π/θᵢ is at most that many positions: "
        "before scaling for the trained context, after it for the extended one. *Not rotated* counts the pairs that never turn: "
        "the dimensions partial rotary leaves alone, and proportional RoPE's zero frequencies. Numbers show 4 significant digits; "
        "'unverified' names the fields no stored source could confirm."
    )

# --- model by model --------------------------------------------------------------------------
st.header("Model by model")
tabs = st.tabs([p.label for p in presets], key="context_tab", on_change="rerun") if presets else []
for preset, tab in zip(presets, tabs):
    if tab.open is False:
        continue  # only the open tab is computed
    with tab:
        st.text(f"{preset.hf_id}. {preset.notes}".strip())
        for index, layer in enumerate(preset.layers):
            view, offsets, before, after = layer_data(preset.name, index)
            if len(preset.layers) > 1:
                st.subheader(f"{layer.name.capitalize()} layers ({layer.share})")
            kind = KIND_LABELS[layer.scaling.kind if layer.scaling else "none"]
            scaled = f"before and after {kind} scaling" if layer.scaling else "without scaling"
            n = cx.counts(view, preset.trained_context, preset.extended_context)
            m1, m2, m3, m4 = st.columns(4)
            m1.metric("attention factor (cos, sin ×)", f"{view.attention_factor:.4g}")
            m2.metric(f"pairs turning within the trained {preset.trained_context:,}", f"{n['turn within trained']} of {view.index.size}")
            m3.metric(f"within the extended {preset.extended_context:,}, scaled", f"{n['turn within extended']} of {view.index.size}")
            m4.metric("pairs that never turn", n[cx.NOT_ROTATED])
            still = view.index[~np.isfinite(view.after)]
            never = f"; pairs {still[0]}–{still[-1]} never turn: not drawn" if still.size else ""
            plot(
                charts.lines(
                    cx.wavelength_series(view, layer.scaling is not None, preset.trained_context),
                    title=f"{preset.label}, {layer.name}: wavelength of each pair {scaled} (head_dim {layer.head_dim}, base {fmt(layer.base)})",
                    x_title="pair index i (fastest first)",
                    y_title="wavelength 2π/θᵢ (positions, log scale)",
                    log_y=True,
                    points=True,
                    y_marks=[
                        (preset.trained_context, f"trained {preset.trained_context:,}", "#555555"),
                        (preset.extended_context, f"extended {preset.extended_context:,}", charts.LINE_COLOURS[2]),
                    ],
                    x_marks=[(float(still[0]) - 0.5, f"from pair {still[0]} on: never turn", "#999999")] if still.size else [],
                    note=f"{view.rotating} of {layer.head_dim} dimensions rotate" + never,
                ),
                key=f"context_wave_{preset.name}_{index}",
            )
            plot(
                charts.lines(
                    [("before scaling", offsets, before), (f"after {kind} scaling", offsets, after)] if layer.scaling else [("no scaling", offsets, before)],
                    title=f"{preset.label}, {layer.name}: score of an all-ones query and key against the offset, divided by head_dim",
                    x_title="offset δ = query position − key position (positions, log scale)",
                    y_title="score / head_dim",
                    log_x=True,
                    x_marks=[(max(preset.trained_context, 1), "trained", "#555555"), (preset.extended_context, "extended", charts.LINE_COLOURS[2])],
                    note=f"offset 0, then {offsets.size - 1} log-spaced offsets up to {preset.extended_context:,}",
                ),
                key=f"context_decay_{preset.name}_{index}",
            )
            plan = cx.link_params(preset, layer)
            which = f"the {layer.name} layers" if len(preset.layers) > 1 else preset.label
            links = st.columns(2)
            if plan.rope is not None:
                links[0].link_button(f"Open {which} in /rope", f"rope?{urlencode(plan.rope)}", icon=":material/rotate_right:")
            else:
                links[0].caption(f"/rope offers head widths {', '.join(map(str, cx.ROPE_PAGE_HEAD_DIMS))}, not {layer.head_dim}: open it in /code.")
            links[1].link_button(f"Open {which} in /code", f"code?{urlencode(plan.code)}", icon=":material/code:")
            left_out = (
                f" Their controls cannot hold everything here and leave out {'; '.join(plan.dropped)}; /code also shows this preset's exact code."
                if plan.dropped
                else ""
            )
            st.caption("Each link opens a new tab whose address holds the whole setting, the sidebar's base and max_len included." + left_out)
        st.caption(
            "What to look for: pairs whose wavelength lies below the trained context completed turns in training and are kept; "
            "pairs above it never did, and a scaling divides their frequency so the extended context maps onto angles the model saw. "
            "The decay curve is RoFormer's: it falls with distance, and a scaling stretches it to the longer context."
        )
        with st.expander(f"Sources of {preset.label}'s settings"):
            st.dataframe(pd.DataFrame([(k, *v.split(": ", 1)) for k, v in preset.sources.items()], columns=["field", "status", "source"]), hide_index=True)
        code_box = st.expander(f"NumPy and PyTorch code for {preset.label}", key=f"context_code_{preset.name}", on_change="rerun")
        if code_box.open:
            with code_box:
                for layer in preset.layers:
                    code = guarded(rope_code, layer.head_dim, layer.base, preset.layout, layer.scaling, layer.partial_rotary_factor)
                    st.code(code.numpy_source, language="python")
                    st.code(code.torch_source, language="python")

# --- the dynamic-NTK pitfall -----------------------------------------------------------------
st.header("The dynamic-NTK cache pitfall")
subject = presets[0] if presets else PRESETS["llama-2-7b"]
layer = subject.layers[-1]
p = 1.0 if layer.scaling is not None and layer.scaling.kind == "proportional" else layer.partial_rotary_factor
growth = controls.choice(st, "Generated length over the cached prompt's", "ntk_growth", GROWTHS, 2, widget="select_slider", expected="the growth is {options}")
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
    f"Dynamic NTK scaling (factor {growth}, here on the head of {subject.label}, the first model chosen, whatever its own scaling) grows the base "
    f"with the sequence length. Keys cached while the {cache_len:,}-token prompt was encoded were rotated "
    f"with base {fmt(pitfall.base_cache)}; at {growth * cache_len:,} tokens the query is rotated with base {fmt(pitfall.base_query)}. "
    f"Their scores then differ from a fresh computation by up to {np.abs(error).max():.3g} (mean {np.abs(error).mean():.3g}), "
    "on a scale where a key at the query's own position scores 1: recompute the cached keys, or do not use dynamic scaling with a cache."
)
st.caption(
    "What to look for: a cached key at position n was turned by n·θᵢ instead of n·θ′ᵢ, so its angles are off by n·(θ′ᵢ − θᵢ): no error for "
    "the first key, and a growing one for later keys. The bases differ whenever the sequence has outgrown the trained context."
)

# --- RoPE in 2-D -----------------------------------------------------------------------------
st.header("RoPE in 2-D: image patches")
c1, c2 = st.columns(2)
side = controls.choice(c1, "Grid of patches (side)", "grid", GRIDS, 16, widget="select_slider", expected="the grid side is {options}")
grid_base = controls.choice(c2, "Base", "grid_base", GRID_BASES, 10_000, widget="segmented_control", expected="the base is {options}")
rows, cols = cx.grid_positions(side, side)
query = (side // 2) * side + side // 2
x, y = strided(side, side), strided(side, side)


def on_grid(name: str, angles: np.ndarray) -> tuple[str, np.ndarray, object, object]:
    z, mean = cx.centred_grid(angles, query, side, side)
    means.append(f"{name} {mean:.3g}")
    return (name, z, x, y)


means: list[str] = []
t0 = np.zeros_like(rows)  # one image: every patch has the same temporal position
panels = [
    on_grid("axial 2-D (rows, then columns)", cx.axial_angles(rows, cols, GRID_HEAD_DIM, grid_base)),
    on_grid("1-D over the raster order", cx.flat_angles(rows, cols, side, GRID_HEAD_DIM, grid_base)),
    on_grid("M-RoPE [16, 24, 24]", cx.mrope_angles(t0, rows, cols, GRID_HEAD_DIM, grid_base, SPLITS[0])),
]
plot(
    charts.side_by_side_heatmaps(
        panels,
        title=f"Score of the patch at row {side // 2}, column {side // 2} against every patch of a {side} × {side} grid, minus its grid mean "
        f"(head_dim {GRID_HEAD_DIM}, base {grid_base:,})",
        x_title="column",
        y_title="row",
        colorbar_title="score − mean",
        note="all-ones query and key, score divided by d/2; grid means subtracted: " + ", ".join(means),
    ),
    key="context_grid",
)
st.caption(
    "What to look for: axial RoPE scores a patch by its row and column offsets, a cross centred on the query. 1-D RoPE over the raster "
    "order sees the patch below as one whole row away, and scores neighbours by their distance in the flattened sequence, not on the "
    "grid. M-RoPE also scores by offsets, but Qwen2-VL gives height and width only its slower pairs, so on this shared range its scores "
    "barely move (the next figure has its own range). Each panel shows its scores minus their mean over the grid."
)
means = []
splits = [on_grid(f"M-RoPE {list(split)}", cx.mrope_angles(t0, rows, cols, GRID_HEAD_DIM, grid_base, split)) for split in SPLITS]
plot(
    charts.side_by_side_heatmaps(
        splits,
        title="How Qwen2-VL's M-RoPE split [temporal, height, width] of the 64 pairs shapes the same scores, minus their grid mean",
        x_title="column",
        y_title="row",
        colorbar_title="score − mean",
        note="grid means subtracted: " + ", ".join(means),
    ),
    key="context_splits",
)
st.caption(
    "What to look for: the sections are consecutive, fastest pairs first, and every patch of one image has the same temporal position, "
    "so the temporal pairs add a constant. Height gets the faster pairs after them and width the slowest, so the scores change more "
    "along a column than along a row; moving pairs between the two sections moves that difference."
)
next_link("context")

"""/context's "Model by model" tab of one preset: its metrics, the wavelength of each pair and the
decay before and after scaling (per kind of layer), links that open it in /rope and /code, its
sources and its exact code."""

from urllib.parse import urlencode

import numpy as np
import pandas as pd
import streamlit as st

from core.analysis import context as cx
from core.files.codegen import rope_code
from core.schemes.rope_presets import PRESETS, RopePreset
from core.viz import charts, palette
from ui.display import guarded, plot
from ui.rope_controls import KIND_LABELS


def fmt(value: float) -> str:
    """A base as 500,000 rather than 5e+05, and a grown one as 1,526,390 rather than 1.52639e+06."""
    return f"{value:,.0f}" if float(value).is_integer() or abs(value) >= 1e4 else f"{value:,.6g}"


@st.cache_data(max_entries=64, ttl=3600, show_spinner=False)
def layer_data(name: str, index: int) -> tuple[cx.PairView, np.ndarray, np.ndarray, np.ndarray]:
    preset = PRESETS[name]
    layer = preset.layers[index]
    offsets = cx.decay_offsets(preset.extended_context)
    return (cx.pair_view(layer, preset.extended_context), offsets, *cx.decay_curves(layer, preset.extended_context, offsets))


def model_tab(preset: RopePreset) -> None:
    """Everything about one preset, drawn where the caller is (its tab)."""
    st.text(f"{preset.hf_id}. {preset.notes}".strip())
    for index, layer in enumerate(preset.layers):
        view, offsets, before, after = layer_data(preset.name, index)
        if len(preset.layers) > 1:
            st.subheader(f"{layer.name.capitalize()} layers ({layer.share})")
        kind = KIND_LABELS[layer.scaling.kind if layer.scaling else "none"]
        scaled = f"before and after {kind} scaling" if layer.scaling else "without scaling"
        n = cx.counts(view, preset.trained_context, preset.extended_context)
        still = view.index[~np.isfinite(view.after)]
        never = f"; pairs {still[0]}–{still[-1]} never turn: not drawn" if still.size else ""
        waves = cx.wavelength_series(view, layer.scaling is not None, preset.trained_context)
        figure = charts.lines(
            waves,
            title=f"{preset.label}, {layer.name}: wavelength of each pair {scaled} (head_dim {layer.head_dim}, base {fmt(layer.base)})",
            x_title="pair index i (fastest first)",
            y_title="wavelength 2π/θᵢ (positions, log scale)",
            log_y=True,
            points=True,
            colours=[palette.scaling_colour(name) for name, _, _ in waves],
            y_marks=[
                (preset.trained_context, f"trained {preset.trained_context:,}", palette.MARK),
                (preset.extended_context, f"extended {preset.extended_context:,}", palette.TARGET),
            ],
            x_marks=[(float(still[0]) - 0.5, f"from pair {still[0]} on: never turn", palette.region_colour("not rotated"))] if still.size else [],
            note=f"{view.rotating} of {layer.head_dim} dimensions rotate" + never,
            # the pairs a scaling keeps sit on their own 'before' points: rings around those keep both in sight
            symbols=[("circle-open", 10) if layer.scaling and k == 0 else None for k in range(len(waves))],
        )
        plot(figure, key=f"context_wave_{preset.name}_{index}")
        st.caption(
            "Each dot is a pair's wavelength: the positions it takes to turn once. A pair whose wavelength is longer than a dashed line's "
            "context does not finish a turn within it."
            + (" The legend says what the scaling does to each pair (a ring: before it)." if layer.scaling else " This model runs without scaling.")
        )
        # the first picture and three short sentences; the counts, the decay, what both show and the links one click away
        with st.expander("The counts, the decay and links" + (f" ({layer.name} layers)" if len(preset.layers) > 1 else "")):
            m1, m2, m3, m4 = st.columns(4)  # under the picture they count from, not above it
            m1.metric("attention factor (cos, sin ×)", f"{view.attention_factor:.4g}")
            m2.metric(f"pairs turning within the trained {preset.trained_context:,}", f"{n['turn within trained']} of {view.index.size}")
            m3.metric(f"within the extended {preset.extended_context:,}, scaled", f"{n['turn within extended']} of {view.index.size}")
            m4.metric("pairs that never turn", n[cx.NOT_ROTATED])
            plot(
                charts.lines(
                    [("before scaling", offsets, before), (f"after {kind} scaling", offsets, after)] if layer.scaling else [("no scaling", offsets, before)],
                    title=f"{preset.label}, {layer.name}: score of an all-ones query and key against the offset, divided by head_dim",
                    x_title="offset δ = query − key position (log scale)",  # short enough for a phone's column
                    y_title="score / head_dim",
                    log_x=True,
                    colours=[palette.UNSCALED, palette.SCALED][: 2 if layer.scaling else 1],
                    x_marks=[(max(preset.trained_context, 1), "trained", palette.MARK), (preset.extended_context, "extended", palette.TARGET)],
                    note=f"offset 0, then {offsets.size - 1} log-spaced offsets up to {preset.extended_context:,}",
                ),
                key=f"context_decay_{preset.name}_{index}",
            )
            reach = cx.angle_reach(view, preset.trained_context, preset.extended_context, layer.window)
            window = cx.window_text(layer.window, "This layer") if layer.window else ""
            if preset.window and not layer.window:  # some layers attend within a window, with this same RoPE
                windowed = cx.angle_reach(view, preset.trained_context, preset.extended_context, preset.window)
                window = cx.window_text(preset.window, preset.windowed, windowed)
            st.caption(
                "What to look for: "
                + cx.reach_text(reach, layer.scaling is not None)
                + window
                + " "
                + cx.decay_text(offsets, before, after, layer.scaling is not None)
            )
            plan = cx.link_params(preset, layer)
            which = f"the {layer.name} layers" if len(preset.layers) > 1 else preset.label
            links = st.columns(2)
            if plan.rope is not None:
                links[0].link_button(f"Open {which} in /rope", f"rope?{urlencode({**plan.rope, 'rope_view': 'Scaling'})}", icon=":material/rotate_right:")
            else:
                links[0].caption(f"/rope offers head widths {', '.join(map(str, cx.ROPE_PAGE_HEAD_DIMS))}, not {layer.head_dim}: open it in /code.")
            links[1].link_button(f"Open {which} in /code", f"code?{urlencode(plan.code)}", icon=":material/code:")
            left_out = (
                f" Their controls cannot hold everything here and leave out {'; '.join(plan.dropped)}; /code also shows this preset's exact code."
                if plan.dropped
                else ""
            )
            st.caption("Each link opens a new tab whose address holds the whole setting, the sidebar's base and max_len included." + left_out)
    with st.expander(f"Sources of {preset.label}'s settings"):
        st.dataframe(pd.DataFrame([(k, *v.split(": ", 1)) for k, v in preset.sources.items()], columns=["field", "status", "source"]), hide_index=True)
    code_box = st.expander(f"NumPy and PyTorch code for {preset.label}", key=f"context_code_{preset.name}", on_change="rerun")
    if code_box.open:
        with code_box:
            for layer in preset.layers:
                code = guarded(rope_code, layer.head_dim, layer.base, preset.layout, layer.scaling, layer.partial_rotary_factor)
                st.code(code.numpy_source, language="python")
                st.code(code.torch_source, language="python")

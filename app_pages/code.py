"""Page `code`: the NumPy function and the PyTorch module for the scheme and settings on screen,
the current matrix as .npy and .csv (bounded), and the settings as a link."""

from urllib.parse import urlencode

import numpy as np
import streamlit as st

from core.files import codegen, downloads
from core.files.codegen import rope_code
from core.schemes import rope
from core.schemes.registry import SCHEMES, Setting
from core.schemes.rope_presets import PRESETS
from core.viz.columns import columns
from core.viz.grid import strided, window
from core.viz.heatmap import heatmap
from ui.controls import Choice, Number, check_links, check_url_value, keep_valid, one_of
from ui.deferred import deferred
from ui.display import guarded
from ui.heatmap import draw_heatmap
from ui.params import BASE, D_MODEL, MAX_LEN
from ui.rope_controls import LAYOUT, factor_control, original_len_control, reads_original, scaling_kind
from ui.sidebar import current_settings
from ui.sources import sources_expander

HEADS = (1, 2, 4, 8, 16)
MAX_HEAD_DIM = 8192
PREVIEW = 256  # positions (and dimensions) in the preview: 256 x 256 cells go as a PNG, with every 4th row and column's values for the hover

st.title("Code for these settings")
s = current_settings()
d, L, base = s.d_model, s.max_len, s.base
st.markdown("Pick a scheme: the code on this page computes exactly what the app draws for it at the settings on screen.")

# --- controls -------------------------------------------------------------------------------
SCHEME = Choice("scheme", "Scheme", list(SCHEMES), "sinusoidal", labels=lambda n: SCHEMES[n].label)
check_links(SCHEME)  # its notice above the columns
c1, c2 = st.columns([2, 3])
name = SCHEME.draw(c1)
scheme = SCHEMES[name]
heads, layout, kind, factor, original, width = 8, "half", "none", 1.0, L, d
link = {D_MODEL.name: D_MODEL.format(d), MAX_LEN.name: MAX_LEN.format(L), BASE.name: BASE.format(base), "scheme": name}
rotary = "layout" in scheme.reads  # RoPE: a head width, a pair layout and a scaling of its own
if "n_heads" in scheme.reads:
    keep_valid("heads", lambda v: v in HEADS)  # another page's heads may be a number this page does not offer
    check_url_value("heads", one_of(HEADS), f"the head count is one of {', '.join(map(str, HEADS))}")
    heads = int(c2.selectbox("Heads", HEADS, index=HEADS.index(8), key="heads", bind="query-params", width=200))
    link["heads"] = str(heads)
if rotary:
    layout = LAYOUT.draw(c2)
    c6, c3, c4, c5 = st.columns([1.5, 2, 1.5, 1.5])
    width = Number(
        "head_dim", "Head width (head_dim)", 2, MAX_HEAD_DIM, d, expected="the head width is a whole number from {lo} to {hi:,} (even, for pairs)",
        step=2, follow=True, help="RoPE rotates the queries and keys of one head. Until you change it, this is the sidebar's d_model.",
    ).draw(c6)  # fmt: skip
    kind = scaling_kind("none").draw(c3)
    link.update(head_dim=str(width), rope_layout=layout, scaling=kind)
    if kind != "none":
        factor = factor_control(c4)
        link["factor"] = str(int(factor)) if factor.is_integer() else repr(factor)
    if reads_original(kind):
        original = original_len_control(c5, L, factor)
        link["original_len"] = str(original)

scaling = None if kind == "none" else guarded(rope.RopeScaling, kind, factor, original)
setting = Setting(width=width, base=base, train_len=L, n_heads=heads, layout=layout, scaling=scaling)
if rotary:
    st.caption(
        f"RoPE rotates the queries and keys of one head; here the head is {width:,} wide"
        + (" (the sidebar's d_model)." if width == d else f" (the sidebar's d_model = {d:,} is the model's width, not used here).")
    )


# --- preview --------------------------------------------------------------------------------
rows = scheme.max_position(setting)
shown_len = min(L, rows) if rows is not None else L
pos = window(shown_len, PREVIEW) if scheme.discrete else strided(shown_len, PREVIEW)  # bits and one-hot rows: consecutive
dims = columns(scheme, setting, PREVIEW)  # whole (sin, cos) pairs of the sinusoids and RoPE


@st.cache_data(max_entries=32, ttl=3600, show_spinner=False)
def preview(name: str, setting: Setting, positions: np.ndarray, dims: np.ndarray) -> tuple[np.ndarray, str]:
    """The picture at the previewed positions: head 1's bias, or the drawn dimensions; and what it is.
    The indices come as arrays: st.cache_data hashes an array's bytes at once, a tuple item by item."""
    picture = SCHEMES[name].picture(positions, setting)
    z = picture.values[0] if picture.per == "pair" else picture.values[:, dims]
    return z, picture.what


st.header("What the code computes")
z, what = guarded(preview, name, setting, np.asarray(pos.indices, dtype=np.int64), np.asarray(dims.indices, dtype=np.int64))
pairs = scheme.per == "pair"
if not scheme.carries_position:
    st.caption("Nothing to draw: this scheme adds zeros.")
else:
    unit = "query position" if pairs else "position"
    x = pos if pairs else dims
    note = "; ".join(n for n in (pos.note(unit.split()[0]), "" if pairs else dims.note("dimension")) if n)
    if rows is not None and rows < L:
        note = "; ".join(n for n in (note, f"no code past position {rows - 1:,}") if n)
    draw_heatmap(  # painted by the browser: a step repaints one canvas, no Plotly chart is rebuilt
        heatmap(
            [("", z, x, pos)],  # one panel: the title above names the scheme
            title=f"{scheme.label}: {f'the bias of head 1 of {heads}' if pairs else what}",
            x_title="key position" if pairs else "dimension",
            y_title=unit,
            columns=1,
            shared_range=True,  # one panel: its range ±max|value| in the colour key
            value_title="bias" if pairs else "value",
            note=note,
            panel_height=420,
        ),
        key="code_preview",
    )
    st.caption(
        "Download this picture with the Download PNG button beside its colour key (the app's other figures: the camera icon in their "
        "toolbar, top right on hover). The hover gives exact values: of the cell under the pointer, or in a large picture of the nearest cell "
        "it holds values for (the box names that cell and says so)."
    )

@st.cache_data(max_entries=64, ttl=3600, show_spinner=False)
def code_for(name: str, setting: Setting) -> codegen.GeneratedCode:
    return codegen.generate(name, setting)


code = guarded(code_for, name, setting)
st.header("The code")
st.markdown(code.what)
st.caption(
    "A NumPy function and a PyTorch module, each self-contained (it imports numpy, math and torch only), with the numbers written in. "
    "The app's tests run this code for every scheme and compare it with the app's own arrays."
)
numpy_tab, torch_tab, *keras_tab = st.tabs(["NumPy", "PyTorch"] + (["Keras 3"] if code.keras_source else []))  # Keras: added codes and RoPE
numpy_tab.code(code.numpy_source, language="python", line_numbers=False)
torch_tab.code(code.torch_source, language="python", line_numbers=False)
for tab in keras_tab:
    tab.caption(
        "A Keras 3 layer, for any of its backends (name one in KERAS_BACKEND before importing keras). "
        "The app's tests run it on Keras's torch backend and compare it with the app's own arrays."
    )
    tab.code(code.keras_source, language="python", line_numbers=False)
if rotary:  # a real model's RoPE, exactly: what the controls above cannot hold (LongRoPE's lists, partial rotary, mscale)
    chosen = Choice(
        "preset",
        "Or a real model's RoPE, exactly as its config sets it",
        ["none", *PRESETS],
        "none",
        labels=lambda n: "none (the controls above)" if n == "none" else PRESETS[n].label,
        help="The presets of the Long context page (/context), each value cited there; the code is exact, every layer kind.",
    ).draw()
    if chosen != "none":
        preset = PRESETS[chosen]
        link["preset"] = chosen
        for layer in preset.layers:
            exact = guarded(rope_code, layer.head_dim, layer.base, preset.layout, layer.scaling, layer.partial_rotary_factor)
            st.markdown(f"**{preset.label}, {layer.name}**: head_dim {layer.head_dim}, base {layer.base:,.10g}, {preset.layout} pairs. {exact.what}")
            numpy_exact, torch_exact = st.tabs(["NumPy", "PyTorch"])
            numpy_exact.code(exact.numpy_source, language="python", line_numbers=False)
            torch_exact.code(exact.torch_source, language="python", line_numbers=False)
        st.caption("The preview and downloads below follow the controls above, not the preset; /context draws the preset pair by pair.")
st.caption(
    "Copy a block with the icon at its top right. The tables a model learns (learned, T5, Shaw) are written at the values the app draws: their "
    "initialisation, or T5's illustrative values."
)

# --- downloads ------------------------------------------------------------------------------
st.header("Download the numbers")
full = f"({heads} heads × {L:,} × {L:,})" if pairs else f"({shown_len:,} positions × {width:,})"
st.markdown(
    f"The current matrix {full}: "
    + ("the bias between every query and key position" if pairs else what)
    + (f" (RoPE's {scaling.record.label} scaling at the whole context, {L:,} positions)" if scaling is not None and scaling.record.length_dependent else "")
    + "."
)
npy, csv = downloads.extent(name, setting, downloads.MAX_NPY_VALUES), downloads.extent(name, setting, downloads.MAX_CSV_VALUES)
for column, (suffix, e, write, mime) in zip(
    st.columns(2), (("npy", npy, downloads.to_npy, "application/octet-stream"), ("csv", csv, downloads.to_csv, "text/csv"))
):
    column.download_button(
        f".{suffix}: {'all' if e.complete else f'first {e.positions:,}'} positions ({e.values:,} values)",
        data=deferred(lambda write=write, e=e: write(downloads.current_matrix(name, setting, np.arange(e.positions))), suffix, name, setting, e.positions),
        file_name=f"{name}_d{width}_L{L}{'' if e.complete else f'_first{e.positions}'}.{suffix}",
        mime=mime,
        key=f"download_{suffix}",
        on_click="ignore",
        icon=":material/download:",
    )
if not (npy.complete and csv.complete):
    kept = "queries and keys" if pairs else "positions"
    held = " and ".join(
        f"the {kind_} holds {'all of it' if e.complete else f'the first {e.positions:,} {kept}'} (at most {limit:,} numbers)"
        for kind_, e, limit in ((".npy", npy, downloads.MAX_NPY_VALUES), (".csv", csv, downloads.MAX_CSV_VALUES))
    )
    st.info(
        f"The whole matrix is {npy.full_values:,} numbers: {held}, each exactly as the whole matrix has them. "
        f"For all of it, run the code above on your machine, e.g. "
        + {
            "attention_bias": f"`attention_bias(np.arange({L}), np.arange({L}))`",
            "rotate": f"`rotate(np.full(({L}, {width}), 1 / np.sqrt({width})), np.arange({L}))`",
            "positional_encoding": f"`positional_encoding(np.arange({shown_len}))`",
        }[code.numpy_entry]
        + ".",
        icon=":material/info:",
    )
st.caption(
    ".npy opens with `np.load`; the .csv has one row per position"
    + (" (per head and query: head, query, then one column per key)" if pairs else " (position, then one column per dimension)")
    + ", every value written exactly."
)

# --- link -----------------------------------------------------------------------------------
st.header("These settings as a link")
address = f"{(st.context.url or '/code').rstrip('/')}?{urlencode(link)}"
st.code(address, language=None)
st.caption("Opening it shows this page with the same scheme and settings; the address bar holds the same link.")

sources_expander("code")

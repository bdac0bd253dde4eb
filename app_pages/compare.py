"""Page `compare`: every scheme in the registry side by side, with properties measured from the arrays."""

import numpy as np
import pandas as pd
import streamlit as st

from core.analysis import properties
from core.schemes.registry import SCHEMES, Setting
from core.viz.columns import columns
from core.viz.grid import Picked, Sample, window
from core.viz.heatmap import heatmap
from ui import glossary
from ui.controls import check_url_value, keep_choices_in_url, number, one_of, url_choices
from ui.heatmap import draw_heatmap
from ui.path import next_link
from ui.sidebar import current_settings
from ui.sources import sources_expander
from ui.tabs import url_tabs

GRID = 40  # positions (and dimensions) per small panel
HEADS = (1, 2, 4, 8, 16)

st.title("Every scheme side by side")
L = current_settings().max_len  # max_len sets the first-position control above the tabs: its move reruns the page; d_model and base are live (ui/path.py)
st.markdown(
    "The same sidebar settings drive every scheme in the app's registry. Added schemes write a vector per "
    "position; RoPE rotates queries and keys (here a single head of width d_model); bias schemes add a number to the score of "
    "every pair of positions (set by their distance for ALiBi, T5 and KERPLE; Shaw's also depends on the query). "
    "The table below measures each one from its own arrays."
)
check_url_value("heads", one_of(HEADS), f"the head count is one of {', '.join(map(str, HEADS))}")
c1, c2 = st.columns([3, 1])
notice = url_choices("schemes", list(SCHEMES), list(SCHEMES))
if notice:
    st.warning(notice, icon=":material/link_off:")
names = c1.multiselect("Schemes", list(SCHEMES), format_func=lambda n: SCHEMES[n].label, key="schemes")
keep_choices_in_url("schemes")
heads = c2.selectbox("Heads (bias schemes)", HEADS, index=HEADS.index(8), key="heads", bind="query-params")
if not names:
    st.info("Pick at least one scheme to compare.", icon=":material/info:")
    st.stop()


@st.cache_data(max_entries=16, ttl=3600, show_spinner="Drawing every scheme…")
def panels(names: tuple[str, ...], setting: Setting, start: int) -> dict[str, tuple[Sample | Picked, np.ndarray, np.ndarray, str]]:
    """Per scheme, over GRID consecutive positions from `start`: (its columns drawn: dimensions, or
    key positions for a bias; its picture there; its score matrix there; a problem or '')."""
    pos = window(setting.train_len, GRID, start=start)
    out = {}
    for name in names:
        scheme = SCHEMES[name]
        blank = np.full((pos.count, pos.count), np.nan)
        try:
            rows = scheme.max_position(setting)
            shown = pos.indices[pos.indices < rows] if rows is not None else pos.indices
            picture = scheme.picture(shown, setting)
            cols = pos if picture.per == "pair" else columns(scheme, setting, GRID, start=pos.start)
            if picture.per == "pair":
                z = np.full((pos.count, pos.count), np.nan)
                z[: shown.size, : shown.size] = picture.values.mean(axis=0)  # the bias, averaged over heads
            else:
                z = np.full((pos.count, cols.count), np.nan)
                z[: shown.size] = picture.values[:, cols.indices]
            score = np.full((pos.count, pos.count), np.nan)
            score[: shown.size, : shown.size] = scheme.pair_scores(shown, shown, setting)
            problem = "" if shown.size == pos.count else f"no code past position {rows - 1:,}"
            out[name] = (cols, z, score, problem)
        except ValueError as err:
            out[name] = (pos, blank, blank, str(err))
    return out


@st.cache_data(max_entries=16, ttl=3600, show_spinner="Measuring properties…")
def measured(names: tuple[str, ...], d: int, L: int, base: float, heads: int) -> dict:
    return properties.measure_all(list(names), SCHEMES, Setting(width=d, base=base, train_len=L, n_heads=heads), L)


start = number(st, "First position drawn", "compare_start", 0, max(L - GRID, 0), 0, expected="the first position is a whole number from {lo} to {hi:,}")
pos = window(L, GRID, start=start)


def _drawn() -> dict[str, tuple[Sample | Picked, np.ndarray, np.ndarray, str]]:
    """The panels at the settings of this run (the tabs are live parts: read afresh, never kept at module level)."""
    s = current_settings()
    return panels(tuple(names), Setting(width=s.d_model, base=s.base, train_len=s.max_len, n_heads=int(heads)), pos.start)


def _codes() -> None:
    d, drawn = current_settings().d_model, _drawn()
    st.header("What each scheme writes")
    code_panels = [(SCHEMES[n].label, drawn[n][1], drawn[n][0], pos) for n in names]
    draw_heatmap(
        heatmap(
            code_panels,
            title=f"What each scheme writes at positions {pos.start:,} to {pos.stop - 1:,}, d_model = {d:,}, max_len = {L:,}",
            x_title="dimension (biases: key position)",
            y_title="position (biases: query)",
            note=pos.note("position") + "; whole (sin, cos) pairs of the sinusoids and RoPE, the first columns of binary and one-hot codes",
        ),
        key="compare_codes",
    )
    st.caption(
        "Added schemes: the code of each position; RoPE: a unit vector of equal entries (1/√d each) rotated to each position; bias schemes: the bias "
        f"between query and key, averaged over the {heads} heads. "
        "What to look for: the integer code darkens steadily (its values grow with p), the fraction code is the same picture "
        "with a smaller range, binary flips in blocks, one-hot is a single diagonal, the sinusoids make smooth stripes, the "
        "learned table is noise until trained, RoPE turns a constant vector into sinusoid-like stripes, and the bias schemes "
        "are constant along every diagonal (Shaw's drawn with a fixed unit query). Each panel has its own colour range (in its title): "
        "the schemes differ by orders of magnitude. Consecutive positions are drawn, so every bit flip and every one-hot row is there."
    )
    problems = {n: drawn[n][3] for n in names if drawn[n][3]}
    for n, problem in problems.items():
        st.caption(f"**{SCHEMES[n].label}**: {problem}")


def _scores() -> None:
    drawn = _drawn()
    st.header("What each scheme adds to the score between two positions")
    draw_heatmap(
        heatmap(
            [(SCHEMES[n].label, drawn[n][2], pos, pos) for n in names],
            title="Score contribution S(m, n) between a query at m (rows) and a key at n (columns)",
            x_title="key position n",
            y_title="query position m",
            note=pos.note("position"),
        ),
        key="compare_scores",
    )
    st.caption(
        "Added schemes: PE(m)·PE(n). RoPE: the score of a fixed random query and key after rotating them to m and n. Bias schemes: the "
        "bias averaged over heads. What to look for: a pattern that is constant along each diagonal depends only on the offset m − n "
        "(the sinusoids, RoPE, the biases); the integer code's m·n grows towards the corner. The learned table at its initialisation stands "
        "out only on its diagonal, each row with itself: off the diagonal its rows are unrelated noise, with no trace of distance."
    )


def _properties() -> None:
    d, _, base = current_settings()
    st.header("Properties, measured")
    rows = measured(tuple(names), d, L, base, int(heads))
    table = []
    notes: set[str] = set()
    for n in names:
        r = rows[n]
        if isinstance(r, str):
            table.append({"scheme": SCHEMES[n].label, "past max_len": r})
            continue
        if r.sample_note:
            notes.add(f"{SCHEMES[n].label}: {r.sample_note}")
        marks = properties.checklist(r)
        table.append(
            {
                "scheme": SCHEMES[n].label,
                "checklist": " ".join(properties.MARKS[marks[name][0]] for name, _ in properties.CHECKLIST),
                "over": r.measured_over,
                "max |value|": r.bounded,
                "min distance": r.unique,
                "neighbour / mean": r.smooth,
                "relative departure": r.relative,
                "past max_len": r.extrapolation,
                "params": r.parameters,
            }
        )
    st.dataframe(
        pd.DataFrame(table),
        hide_index=True,
        width="stretch",
        height=36 * (len(table) + 1) + 4,
        column_config={
            "scheme": st.column_config.TextColumn(pinned=True),
            "past max_len": st.column_config.TextColumn(width="large"),
            "max |value|": st.column_config.NumberColumn(format="%.4g"),
            "min distance": st.column_config.NumberColumn(format="%.4g"),
            "neighbour / mean": st.column_config.NumberColumn(format="%.4g"),
            "relative departure": st.column_config.NumberColumn(format="%.4g"),
            "params": st.column_config.NumberColumn(format="%d"),
        },
        key="compare_table",
    )
    st.caption(
        "How to read it. **checklist**: the roadmap's six questions in order (unique, bounded, smooth, relative, extrapolates, cheap), ✓ holds, "
        "✗ does not, – does not apply, scored from the numbers beside it. "
        "**max |value|** answers bounded?, **min distance** unique?, **neighbour / mean** smooth?, **relative departure** relative? (each defined "
        "under ‘What these terms mean’ below). **past max_len** (extrapolation): what the code does on positions max_len to 2·max_len − 1. "
        "**params**: what a model would learn for positions at these settings. **over**: codes of positions, or of distances for bias schemes, "
        "which store no absolute position. "
        "Empty cells do not apply (no position, or nothing varies)."
        + (f" Measured on a sample or part of the context: {'; '.join(sorted(notes))}." if notes else "")
    )
    glossary.terms_expander(glossary.SCORECARD, key="terms_compare")


# only the open tab runs and is drawn: a step of a shared slider redraws its figure, not all of the page's (ui/tabs.py)
url_tabs("compare_view", {"What each writes": _codes, "Scores": _scores, "Properties": _properties})
sources_expander("compare")
next_link("compare")

"""Page `compare`: every scheme in the registry side by side, with properties measured from the arrays."""

import numpy as np
import pandas as pd
import streamlit as st

from core.analysis import properties
from core.schemes.registry import SCHEMES, Setting
from core.viz import describe
from core.viz.columns import columns
from core.viz.grid import Picked, Sample, window
from core.viz.heatmap import heatmap
from ui import glossary
from ui.controls import Choices, Toggle, check_links, check_url_value, number, one_of
from ui.display import static_table
from ui.heatmap import draw_heatmap
from ui.path import next_link
from ui.sidebar import current_settings
from ui.sources import sources_expander
from ui.tabs import url_tabs

GRID = 40  # positions (and dimensions) per small panel
HEADS = (1, 2, 4, 8, 16)
SHARED = Toggle(
    "compare_shared",
    "One colour range for every panel, on a log scale",
    True,
    help="On: equal colours are equal values across the schemes, and each tenfold step of size is one equal step of colour, so a "
    "code that grows with the position is the darkest and a small one still shows. Off: each panel its own plain range, so every "
    "pattern shows at full strength, whatever its size.",
)

st.title("Every scheme side by side")
L = current_settings().max_len  # max_len sets the first-position control above the tabs: its move reruns the page; d_model and base are live (ui/path.py)
st.markdown("Each scheme you pick at the same sidebar settings: what it writes, what it adds to a score, and its properties, measured.")
with st.expander("How the schemes enter the model"):
    st.markdown(
        "Added schemes write a vector per "
        "position; RoPE rotates queries and keys (here a single head of width d_model); bias schemes add a number to the score of "
        "every pair of positions (set by their distance for ALiBi, T5 and KERPLE; Shaw's also depends on the query). "
        "The Properties tab measures each one from its own arrays."
    )
check_url_value("heads", one_of(HEADS), f"the head count is one of {', '.join(map(str, HEADS))}")
PICK = Choices("schemes", "Schemes", list(SCHEMES), list(SCHEMES), labels=lambda n: SCHEMES[n].label)
check_links(PICK)  # its notice above the expander
picker = st.expander("Schemes, heads and the first position drawn")  # every scheme by default: the figure comes first, the choice one click away
c1, c2 = picker.columns([3, 1])
names = PICK.draw(c1)
heads = c2.selectbox("Heads (bias schemes)", HEADS, index=HEADS.index(8), key="heads", bind="query-params")
if not names:
    st.info("Pick at least one scheme to compare, under ‘Schemes, heads and the first position drawn’.", icon=":material/info:")
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


start = number(picker, "First position drawn", "compare_start", 0, max(L - GRID, 0), 0, expected="the first position is a whole number from {lo} to {hi:,}")
pos = window(L, GRID, start=start)


def _drawn() -> dict[str, tuple[Sample | Picked, np.ndarray, np.ndarray, str]]:
    """The panels at the settings of this run (the tabs are live parts: read afresh, never kept at module level)."""
    s = current_settings()
    return panels(tuple(names), Setting(width=s.d_model, base=s.base, train_len=s.max_len, n_heads=int(heads)), pos.start)


def _codes() -> None:
    d, drawn = current_settings().d_model, _drawn()
    st.header("What each scheme writes")
    shared = SHARED.draw(st)
    biases = [n for n in names if SCHEMES[n].bias is not None]  # drawn over key positions; a code over dimensions
    codes = [n for n in names if n not in biases]
    spread = (
        "One colour range for every panel, on a log scale: equal colours are equal values, each tenfold step of size one step of colour."
        if shared
        else "Each panel has its own colour range (under its title), so every pattern shows at full strength whatever its size; switch "
        "to one range to compare sizes."
    )
    if codes:
        draw_heatmap(
            heatmap(
                [(SCHEMES[n].label, drawn[n][1], drawn[n][0], pos) for n in codes],
                title=f"What each scheme writes at positions {pos.start:,} to {pos.stop - 1:,}, d_model = {d:,}, max_len = {L:,}",
                x_title="dimension",
                y_title="position",
                note="; ".join(
                    filter(None, [pos.note("position"), "whole (sin, cos) pairs of the sinusoids and RoPE, the first columns of binary and one-hot codes"])
                ),
                shared_range=shared,
                log_scale=shared,
            ),
            key="compare_codes",
        )
        look = (
            "What to look for: " + describe.range_text([(SCHEMES[n].label, drawn[n][1]) for n in codes]) + " "
            if shared
            else "What to look for: the integer code darkens steadily (its values grow with p), the fraction code is the same picture "
            "with a smaller range, binary flips in blocks, one-hot is a single diagonal, the sinusoids make smooth stripes, the "
            "learned table is noise until trained, and RoPE turns a constant vector into sinusoid-like stripes. "
        )
        st.caption(
            "Added schemes: the code of each position; RoPE: a unit vector of equal entries (1/√d each) rotated to each position. "
            + look
            + spread
            + " Consecutive positions are drawn, so every bit flip and every one-hot row is there."
        )
    if biases:
        draw_heatmap(
            heatmap(
                [(SCHEMES[n].label, drawn[n][1], pos, pos) for n in biases],
                title=f"The bias each bias scheme adds between a query and a key at positions {pos.start:,} to {pos.stop - 1:,}, averaged over {heads} heads",
                x_title="key position",
                y_title="query position",
                note=pos.note("position"),
                shared_range=shared,
                log_scale=shared,
            ),
            key="compare_biases",
        )
        st.caption(
            f"Bias schemes: the bias between query and key, averaged over the {heads} heads. What to look for: each is constant along every "
            "diagonal (Shaw's drawn with a fixed unit query). "
            + (describe.range_text([(SCHEMES[n].label, drawn[n][1]) for n in biases]) + " " if shared else "")
            + spread
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


def shown(value: float) -> str:
    """A measured number as the table shows it, 4 significant digits, or n/a where it does not apply (NaN, which a dataframe shows as None)."""
    return "n/a" if np.isnan(value) else f"{value:.4g}"


VERDICT = {True: "✓ yes", False: "✗ no", None: "n/a"}  # a checklist cell: holds, does not hold, does not apply
MEASURED = {"max |value|": "bounded", "min distance": "unique", "neighbour / mean": "smooth", "relative departure": "relative"}


def _properties() -> None:
    d, _, base = current_settings()
    st.header("Properties, measured")
    rows = measured(tuple(names), d, L, base, int(heads))
    checks: dict[str, list[str]] = {"scheme": []} | {label: [] for label, _ in properties.CHECKLIST} | {"past max_len": []}
    numbers = []
    notes: set[str] = set()
    for n in names:
        r = rows[n]
        checks["scheme"].append(SCHEMES[n].label)
        if isinstance(r, str):  # it cannot run at these settings: the sentence says why
            for label, _ in properties.CHECKLIST:
                checks[label].append("not measured")
            checks["past max_len"].append(r)
            continue
        if r.sample_note:
            notes.add(f"{SCHEMES[n].label}: {r.sample_note}")
        marks = properties.checklist(r)
        for label, _ in properties.CHECKLIST:
            checks[label].append(VERDICT[marks[label][0]])
        checks["past max_len"].append(r.extrapolation)
        values = {column: shown(getattr(r, field)) for column, field in MEASURED.items()}
        # text, as the numbers beside it (a Styler would give the table a new id on every run)
        numbers.append({"scheme": SCHEMES[n].label, "over": r.measured_over} | values | {"params": f"{r.parameters:,}"})
    with st.container(key="compare_checks"):  # ui/assets/app.css keeps its scheme column on one line
        static_table(checks)  # every cell whole: the sentences past max_len are long
    st.caption(
        "How to read it: one column per question of the roadmap, answered from the numbers below: ✓ yes, it holds; ✗ no; n/a, it does not "
        "apply (no position, or nothing varies). **code past max_len** ✓ says only that those positions get a fixed code, not that a model "
        "trained on max_len positions reads them well (the lab measures that). **past max_len**: what the code does on positions max_len to "
        "2·max_len − 1."
    )
    if numbers:
        st.dataframe(
            pd.DataFrame(numbers),
            hide_index=True,
            width="stretch",
            height=36 * (len(numbers) + 1) + 4,
            column_config={"scheme": st.column_config.TextColumn(pinned=True)},
            key="compare_table",
        )
    st.caption(
        "The numbers behind the marks: **max |value|** answers bounded?, **min distance** unique?, **neighbour / mean** smooth?, "
        "**relative departure** relative? (each defined under ‘What these terms mean’ below). **params**: what a model would learn for positions "
        "at these settings. **over**: codes of positions, or of distances for bias schemes, which store no absolute position. "
        "n/a: it does not apply (no position, or nothing varies)."
        + (f" Measured on a sample or part of the context: {'; '.join(sorted(notes))}." if notes else "")
    )
    glossary.terms_expander(glossary.SCORECARD, key="terms_compare")


# only the open tab runs and is drawn: a step of a shared slider redraws its figure, not all of the page's (ui/tabs.py)
url_tabs("compare_view", {"What each writes": _codes, "Scores": _scores, "Properties": _properties})
sources_expander("compare")
next_link("compare")

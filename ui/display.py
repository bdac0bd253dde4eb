"""What a page shows besides its controls, the same way everywhere: a finished figure (`plot`), a notice
some settings need (`note_if`), text that must show exactly as written where Streamlit renders Markdown
(`as_text`, `static_table`, `quoted` for a visitor's text, `text_block` for aligned columns), a sortable
table whose own CSV download is safe to open (`data_table`), and a core error as a sentence in the page (`guarded`)."""

from __future__ import annotations

import hashlib
import html
import re
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import streamlit as st

from core.viz import charts, describe
from core.schemes.checks import quoted  # noqa: F401  for pages too: the one way a visitor's text is echoed


def plot(fig, *, key: str | None = None) -> None:
    """Send a finished core.viz.charts figure, styled as built (no Streamlit theme override: its text takes the light
    or dark theme's colour from ui/assets/app.css, in the browser, so one figure serves both), with what it shows
    in words for a screen reader (core.viz.describe.figure_text, in a paragraph app.css hides from the eye) and its
    drawn data as CSV behind a button (written only when the button is pressed, and without a rerun)."""
    st.html(_once(fig, "_pee_title", _title_text))
    st.plotly_chart(fig, theme=None, key=key, config={"displaylogo": False, "toImageButtonOptions": {"format": "png", "scale": 2}})
    title = describe.plain(fig.layout.title.text) if fig.layout.title and fig.layout.title.text else "figure"
    with st.container(horizontal=True, horizontal_alignment="right", gap=None):
        st.html(f'<p class="pee-figure-text">{html.escape(_once(fig, "_pee_said", describe.figure_text))}</p>')
        st.download_button(
            "Data (CSV)",
            data=lambda: describe.figure_csv(fig),
            file_name=_file_name(title) + ".csv",
            mime="text/csv",
            on_click="ignore",
            icon=":material/download:",
            type="tertiary",
            key=f"{key}_csv" if key else "csv_" + _identity(fig, title),
            help=f"The data drawn in {as_text(title)}, one row per point",  # the help is Markdown; a title may hold a visitor's name
        )


def _once(fig, name: str, make) -> str:
    """make(fig), worked out once per figure and kept on it: a figure built once (core.viz.memo) is drawn
    by every session that asks for it, and nothing changes a figure once it is drawn."""
    said = fig.__dict__.get(name)
    if said is None:
        said = fig.__dict__[name] = make(fig)
    return said


def _title_text(fig) -> str:
    """The figure's title as a paragraph, which ui/assets/app.css shows only where the figure's column is too narrow
    for the title plotly.js draws (plotly.js does not wrap a title, and cuts it at the figure's edge): there it hides
    plotly's title and lays this one, which wraps, over the band the title took (core.viz.charts.title_band), so the
    plot follows the words."""
    text = fig.layout.title.text if fig.layout.title and fig.layout.title.text else ""
    parts = text.split("<br>")  # plotly.js reads a title as HTML: its words are what is left without the tags, entities read
    heading = html.escape(" ".join(html.unescape(describe.plain(p)) for p in parts if not p.startswith("<sup>")))
    small = html.escape(" ".join(html.unescape(describe.plain(p)) for p in parts if p.startswith("<sup>")))
    band = max(charts.title_band(text) - charts.MARK_LINE_PX, 0) if text else 0  # less the row above the plot where a mark's label sits
    note = f'<br><span class="pee-figure-note">{small}</span>' if small else ""
    return f'<p class="pee-figure-title" style="margin-bottom: -{band}px">{heading}{note}</p>'


def _file_name(title: str) -> str:
    """A file name from a figure's title: its words, lower case, joined by hyphens, at most 60 characters."""
    return "-".join(re.findall(r"[a-z0-9]+", title.lower()))[:60].strip("-") or "figure"


def _identity(fig, title: str) -> str:
    """What tells a page's figures apart whatever the settings (their numbers do not): the title's words
    without digits, the axis titles and the series' names, hashed."""
    words = [re.sub(r"[0-9.,]+", "#", title)] + [describe.plain(getattr(getattr(fig.layout, a).title, "text", "")) for a in ("xaxis", "yaxis")]
    words += [describe.plain(t.name) for t in fig.data]
    return hashlib.sha1("|".join(words).encode()).hexdigest()[:12]


def note_if(shown: bool, text: str, *, icon: str | None = ":material/info:", caption: bool = False) -> None:
    """An st.info (or, with `caption`, an st.caption) that only some settings need (a width
    cap, an odd width), drawn in a container that is there whatever the settings. Streamlit's
    browser side tells the elements of a block apart by their place in it: a notice that comes
    and goes moves every element after it, and each one, every figure below included, is built
    again from scratch, changed or not (docs/deploy.md has the measurement)."""
    slot = st.container()
    if shown and caption:
        slot.caption(text)
    elif shown:
        slot.info(text, icon=icon)


_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")  # every ASCII punctuation character: all that Markdown, LaTeX or a Streamlit directive is made of


def as_text(text: str) -> str:
    """`text` for a place that renders Markdown, every ASCII punctuation character escaped by a
    backslash (CommonMark shows an escaped punctuation character as itself, and nothing else
    can start Markdown, LaTeX, HTML, an autolink or a Streamlit directive): it shows exactly as
    written."""
    return _PUNCTUATION.sub(r"\\\1", text)


def text_block(text: str, wrap: bool = False) -> None:
    """Preformatted text (lines whose columns line up) in a monospaced box, as st.code shows it,
    without st.code's syntax highlighter, whose JavaScript would be most of a page's first load
    (docs/deploy.md). The text is escaped, so it shows exactly as written. `wrap`: prose whose
    columns mean nothing (a prompt) wraps at the box's edge instead of running past it on a phone."""
    lines = "white-space: pre-wrap; overflow-wrap: anywhere" if wrap else "white-space: pre"
    st.html(
        "<pre style=\"font-family: 'Source Code Pro', monospace; font-size: 14px; line-height: 1.5; background: rgba(128, 131, 140, 0.1); "
        f"border-radius: 0.5rem; padding: 0.75rem 1rem; margin: 0; overflow-x: auto; {lines}\">{html.escape(text)}</pre>"
    )


def static_table(columns: Mapping[str, Sequence[object]]) -> None:
    """A small table of the app's own text and numbers (column -> cells) as st.table: every cell
    shown whole, wrapped, with no scrolling. For a table that changes with the settings it is
    also the cheaper one to redraw: st.dataframe paints a canvas and rebuilds its hidden
    accessible copy after every change (docs/deploy.md).
    st.table reads its cells as Markdown, so text goes through `as_text` (numbers stay numbers).
    A table of plain columns (text, or finite numbers) goes as an Arrow table: through pandas, st.table
    took 2 ms a table, through Arrow 0.06 ms; any other goes as before."""
    table = {as_text(str(name)): [as_text(cell) if isinstance(cell, str) else cell for cell in cells] for name, cells in columns.items()}
    data: object = table
    if all(_plain(cells) for cells in table.values()):
        try:
            data = pa.table(table)
        except (pa.ArrowException, TypeError, ValueError, OverflowError):  # cells Arrow cannot type: the DataFrame way
            pass
    st.table(data, hide_index=True)


def data_table(data: pd.DataFrame | Mapping[str, Sequence[object]], **kwargs):
    """st.dataframe (`kwargs` as it takes them) of `data` with every text cell, column name and index label as a
    spreadsheet may safely open it (core.viz.describe.csv_cell). Streamlit's toolbar offers the table as CSV and
    writes each cell raw, so a cell that starts like a formula (= + - @, tab, carriage return), from a visitor's
    text, would run when the file is opened: such text gets a single quote in front, on screen as in the file.
    Numbers, and text that is a number (-0.5), stay as they are."""
    frame = pd.DataFrame(data).rename(columns=lambda name: describe.csv_cell(name))
    for name in frame.columns:
        if not pd.api.types.is_numeric_dtype(frame[name]):
            frame[name] = frame[name].map(describe.csv_cell)
    if not pd.api.types.is_numeric_dtype(frame.index):
        frame.index = frame.index.map(describe.csv_cell)
    return st.dataframe(frame, **kwargs)


def _plain(cells: Sequence[object]) -> bool:
    """A column Arrow types as pandas would: all text, or all whole numbers, or all numbers (no bool, no blank, no NaN)."""
    if all(isinstance(cell, str) for cell in cells):
        return True
    numbers = [cell for cell in cells if isinstance(cell, (int, float, np.integer, np.floating)) and not isinstance(cell, (bool, np.bool_))]
    return len(numbers) == len(cells) and all(np.isfinite(float(cell)) for cell in numbers)


def guarded(func, *args, **kwargs):
    """Call a core function; a ValueError (bad input, in words) becomes an in-page error and
    the page stops there instead of showing a stack trace."""
    try:
        return func(*args, **kwargs)
    except ValueError as err:
        st.error(str(err), icon=":material/error:")
        st.stop()

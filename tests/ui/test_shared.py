"""ui.shared's small helpers: text shown exactly as written where Streamlit renders Markdown
(`as_text`, `static_table`), and a notice that keeps its place whatever the settings (`note_if`)."""

from __future__ import annotations

import re
import string

from hypothesis import given
from hypothesis import strategies as st_h
from streamlit.testing.v1 import AppTest

from tests.app.test_hostile import markdown_problems
from ui.shared import as_text

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

    from ui.shared import static_table

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


def _notice_app() -> None:
    import streamlit as st

    from ui.shared import note_if

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

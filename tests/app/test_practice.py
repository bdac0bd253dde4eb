"""AppTest of the `practice` page: it shows ui.practice_text's words (whose numbers tests/ui/test_practice_text.py checks),
its Sources, and the exercises' links open their views without a notice."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import pytest

from core.viz import charts
from tests.app.conftest import assert_clean, open_page
from ui import practice_text as pt
from ui.shared import as_text
from ui.sources import SOURCES


def test_practice_shows_every_answer_and_its_sources():
    at = open_page("practice")
    assert_clean(at)
    claims, tasks = pt.misconceptions(), pt.exercises()
    labels = [e.label for e in at.expander]
    assert [f"“{m.claim}”" for m in claims] == labels[: len(claims)]
    shown = [m.value for m in at.markdown]
    assert all(m.answer in shown for m in claims) and all(t.check in shown for t in tasks)
    assert [b.proto.url for b in at.get("link_button")] == [t.link for t in tasks]
    assert at.header[0].value == f"{len(claims)} misconceptions" and "Sources" in labels
    assert not at.table  # the Sources expander is closed: its table is not built
    at.session_state["sources_practice"] = True  # open it, as a click would
    at.run()
    table = at.table[-1].value  # static_table escapes punctuation so the cells show as written (ui.shared.as_text)
    assert list(table.iloc[:, 0]) == [as_text(s.claim) for s in SOURCES["practice"]]


@pytest.mark.parametrize("which", ["Llama", "two dimensions"])
def test_exercise_links_open_their_view_cleanly(which):
    task = next(t for t in pt.exercises() if which in t.question)
    path, query = urlsplit(task.link).path, dict(parse_qsl(urlsplit(task.link).query))
    at = open_page(path, **query)
    assert_clean(at)
    assert not at.warning, [w.value for w in at.warning]
    metrics = {m.label: m.value for m in at.metric}
    if which == "Llama":
        assert metrics["pairs kept"] == "29" and metrics["pairs interpolated"] == "29" and metrics["pairs blended"] == "6"
    else:
        assert metrics["smallest distance between two distinct positions"] == charts.number(6.02887067189769e-05)

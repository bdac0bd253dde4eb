"""AppTest of the `practice` page: it shows ui.practice_text's words (whose numbers tests/ui/test_practice_text.py checks),
its Sources, and the exercises' links open their views without a notice."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import pytest

from core.analysis import similarity
from core.schemes import rope
from core.schemes.rope_presets import PRESETS
from core.viz import charts
from tests.app.conftest import assert_clean, open_page
from ui import practice_text as pt
from ui.display import as_text
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
    table = at.table[-1].value  # static_table escapes punctuation so the cells show as written (ui.display.as_text)
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
        preset = PRESETS["llama-3.1-8b"]
        labels = rope.scaling_regions(preset.head_dim, preset.base, preset.scaling, seq_len=preset.extended_context).label
        for name in ("kept", "blended", "interpolated"):
            assert metrics[f"pairs {name}"] == str(int((labels == name).sum()))
    else:
        best = similarity.closest_pair(int(query["max_len"]), int(query["d_model"]), float(query["base"]))
        assert metrics["smallest distance between two distinct positions"] == charts.number(best.distance)
        assert f"{best.q - best.p:,} apart, at distance {best.distance:.2g}" in task.check  # the answer names what the view shows

"""AppTest of the `practice` page: it shows ui.practice_text's words (whose numbers tests/ui/test_practice_text.py checks),
its Sources, and the exercises' links open their views without a notice."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import pytest

from core.analysis import similarity
from core.schemes import rope
from core.schemes.rope_presets import PRESETS
from core.viz import charts
import numpy as np

from tests.app.conftest import assert_clean, decode, figures, open_page, title_text
from ui import practice_text as pt
from ui.display import as_text
from ui.sources import SOURCES


def test_practice_shows_every_answer_and_its_sources():
    at = open_page("practice")
    assert_clean(at)
    claims, tasks = pt.misconceptions(), pt.exercises()
    labels = [e.label for e in at.expander]
    # the exercises first, each with its "What to look for"; then the misconceptions
    assert labels[: len(tasks)] == ["What to look for"] * len(tasks)
    assert [f"“{m.claim}”" for m in claims] == labels[len(tasks) : len(tasks) + len(claims)]
    shown = [m.value for m in at.markdown]
    assert all(m.answer in shown for m in claims) and all(t.check in shown for t in tasks)
    assert [b.proto.url for b in at.get("link_button")] == [t.link for t in tasks]
    assert [h.value for h in at.header[:2]] == [f"{len(tasks)} exercises: predict, then check", f"{len(claims)} misconceptions"]
    assert "Sources" in labels
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


def test_the_first_exercise_opens_with_its_picture_and_the_view_it_links_draws_the_same_encoding():
    at = open_page("practice")
    (circle,) = figures(at)  # the page's one figure, above the first exercise's link
    d, max_len, base, count = pt.EXERCISE_CIRCLE
    dots = circle["data"][-1]
    p = np.arange(count)
    # d_model = 2: the one pair turns 1 rad per position, so the dots are (sin p, cos p), by hand
    np.testing.assert_allclose(decode(dots["x"]), np.sin(p), atol=1e-12)
    np.testing.assert_allclose(decode(dots["y"]), np.cos(p), atol=1e-12)
    task = pt.exercises()[0]
    assert dict(parse_qsl(urlsplit(task.link).query))["d_model"] == str(d) and f"{max_len:,} positions" in task.question
    # 6 rad is 0.955 of a turn: the dots go round once, short of closing, and can be read one by one
    assert task.picture in [c.value for c in at.caption] and "7 consecutive positions, 0.95" in title_text(circle) and "of a turn" in title_text(circle)
    assert "one turn takes 6.283 positions" in task.picture

"""Live settings (ui/path.py `Step.live`): a move of a shared setting that a page reads only in
its live parts reruns those parts and the setting's own controls, not the page (ui/sidebar.py,
ui/tabs.py). The risk is a part that reads a module-level name the page computed from the
settings on its last full run: it would draw the old width under the new one's caption.

So, for every live page, tab and live setting, the view after a move (moved in the sidebar's
exact-value box, as a user types) must show exactly what a fresh load of the same link shows:
AppTest keeps the places of the elements a fragment run draws, so each one drawn is compared
with the fresh load's element at the same place; every element of the fresh load inside a
block the move redrew must have been drawn; every element the move did not redraw must be
what a fresh load shows there (a part that reads a live setting but is not a live part would
keep its old picture); and the page's title must not have been drawn (a fragment run, not a
full one). d_model moves to an odd width and past the widths where pages change what they
draw (/attention's cap of 512, /sinusoidal's list of 4,096 dimensions).
"""

from __future__ import annotations

import pytest
from streamlit.proto.DownloadButton_pb2 import DownloadButton
from streamlit.proto.Slider_pb2 import Slider

from tests.app.conftest import PAGE_FILES, open_page, tab_sets
from ui.path import STEPS
from ui.sidebar import LIVE_PARTS_KEY

LIVE = {step.url_path: step.live for step in STEPS}
MOVES = {"d_model": [127, 5000], "base": [500.0], "max_len": [999]}  # an odd width (the odd-width notes), a width past every cap
TABS = {  # the page's tab key and every tab
    "sinusoidal": ("sin_view", ["Live preview", "Picture", "Waves", "Spectrum", "Binary", "Exact values", "tensor2tensor", "Learned table"]),
    "similarity": ("sim_view", ["Matrices", "Distance", "Shift by k", "Uniqueness and norms"]),
    "compare": ("compare_view", ["What each writes", "Scores", "Properties"]),
    "attention": ("att_view", ["Side by side", "Words against positions", "Add or concatenate"]),
}


def _leaves(at) -> dict[tuple, tuple[str, bytes | None]]:
    """Every element AppTest holds after the last run, by its place: (type, its proto as bytes)."""
    out: dict[tuple, tuple[str, bytes | None]] = {}

    def walk(node, place: tuple) -> None:
        children = getattr(node, "children", None)
        if isinstance(children, dict) and children:
            for index, child in children.items():
                walk(child, (*place, index))
            return
        proto = getattr(node, "proto", None)
        out[place] = (getattr(node, "type", type(node).__name__), _plain(proto))

    walk(at._tree, ())
    return out


def _plain(proto) -> bytes | None:
    """The proto as bytes, without what differs between two sessions showing the same thing: a
    slider's 'value set from session state' marks (the box moved it), a download's file id."""
    if not hasattr(proto, "SerializeToString"):
        return None
    if isinstance(proto, Slider):
        proto = Slider.FromString(proto.SerializeToString())
        proto.ClearField("set_value")
        proto.ClearField("raw_value")
    elif isinstance(proto, DownloadButton):
        proto = DownloadButton.FromString(proto.SerializeToString())
        proto.ClearField("deferred_file_id")
    return proto.SerializeToString()


def settled(page: str, **params: str):
    """The page opened from a link, then run once more: the widgets a session seeded on its first run
    (from the link) are marked as set from session state on that run only, so two sessions are
    compared after a second run each."""
    return open_page(page, **params).run()


def _cases():
    for page, live in sorted(LIVE.items()):
        if not live:
            continue
        key, tabs = TABS[page]
        for tab in tabs:
            for setting in sorted(live):
                for value in MOVES[setting]:
                    yield pytest.param(page, key, tab, setting, value, id=f"{page}-{tab}-{setting}-{value:g}")


def test_every_live_page_is_covered():
    assert {page for page, live in LIVE.items() if live} == set(TABS)
    for page, (key, tabs) in TABS.items():
        if key is not None:
            at = open_page(page)
            assert tab_sets(at) == [(key, tabs)], page  # a new tab is tested as soon as it is added


@pytest.mark.parametrize(("page", "key", "tab", "setting", "value"), list(_cases()))
def test_a_live_move_shows_what_a_fresh_link_shows(page, key, tab, setting, value):
    tab_param = {key: tab} if tab != TABS[page][1][0] else {}
    at = settled(page, **tab_param)
    assert not at.exception
    before = _leaves(at)
    at.number_input(key=setting).set_value(value).run()
    assert not at.exception
    moved = _leaves(at)
    fresh = _leaves(settled(page, **tab_param, **{setting: str(value)}))

    title = next(place for place, (kind, _) in before.items() if kind == "title")
    assert title not in moved, "the move reran the whole page, not its live parts"
    drawn = {place: leaf for place, leaf in moved.items() if leaf[0] not in ("unknown", "event")}
    assert sum(place[0] == 0 for place in drawn) >= 2, "the move drew nothing of the page's main area"  # 0: the main area, 1: the sidebar
    for place, leaf in drawn.items():
        assert fresh.get(place) == leaf, f"{leaf[0]} at {place} differs from a fresh load of the link"
    redrawn_blocks = {place[:-1] for place in drawn}
    for place, leaf in fresh.items():
        if place[:-1] in redrawn_blocks or any(place[: len(block)] == block for block in redrawn_blocks if len(block) > 1):
            assert place in drawn, f"a fresh load draws {leaf[0]} at {place}; the move did not"
        elif leaf[0] != "event":
            assert before.get(place) == leaf, f"{leaf[0]} at {place} was not redrawn, and a fresh load of the link shows another"


def test_a_setting_the_page_reads_above_its_tabs_reruns_the_page():
    at = open_page("compare")  # max_len sets the first-position control above the tabs: not live here
    at.number_input(key="max_len").set_value(999).run()
    assert not at.exception
    assert at.title[0].value == "Every scheme side by side"
    assert at.number_input(key="compare_start").max == 999 - 40  # a window of 40 positions fits from there
    at = open_page("sinusoidal", sin_view="Picture")  # the window of positions, in the tab it acts on, follows max_len
    at.number_input(key="max_len").set_value(999).run()
    assert not at.exception and at.slider(key="sin_window").max == 998


def test_a_move_reruns_the_page_while_link_notices_show():
    at = open_page("similarity", d_model="abc")
    assert at.warning and "abc" in at.warning[0].value
    at.number_input(key="d_model").set_value(64).run()
    assert not at.exception
    assert at.title[0].value == "Similarity between positions"  # a full run: the notices about the old link are gone
    assert not at.warning


def test_a_page_stopped_before_its_tabs_reruns_whole():
    at = open_page("compare")
    at.multiselect(key="schemes").set_value([]).run()
    assert at.info and "Pick at least one scheme" in at.info[0].value
    assert at.session_state[LIVE_PARTS_KEY] == []
    at.number_input(key="d_model").set_value(64).run()
    assert not at.exception
    assert at.title[0].value == "Every scheme side by side"
    assert at.query_params["d_model"] == ["64"] or at.query_params["d_model"] == "64"


def test_a_live_move_writes_the_link():
    at = open_page("similarity")
    at.number_input(key="base").set_value(500.0).run()
    assert not at.exception
    assert at.query_params["base"] == "500"  # written by the base controls' own fragment
    assert at.query_params["d_model"] == "128" and at.query_params["max_len"] == "256"
    assert at.number_input(key="base").value == 500.0
    assert at.select_slider(key="base_slider").value == 500.0


def test_live_settings_are_settings_the_page_uses():
    for step in STEPS:
        assert step.live <= step.uses, step.url_path
    assert PAGE_FILES.keys() >= set(TABS)

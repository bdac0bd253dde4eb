"""AppTest for every page: defaults, extremes, odd and tiny widths, and bad URL values.
Each run must raise nothing, show its figures (titled, under 1 MB each), and say what it did
with a bad link."""

from __future__ import annotations

import pytest

from tests.app.conftest import DEFAULTS, EXTREMES, PAGE_FILES, ROOT, assert_clean, figure_bytes, figures, grid_bytes, grids, open_page, open_views, title_text

CHARTS = {
    "problem": 4, "sinusoidal": 8, "similarity": 5, "attention": 3, "compare": 2, "rope": 5,
    "context": 5, "relative": 8, "model": 11, "lab": 3, "practice": 0, "code": 1,
}  # fmt: skip
SETTINGS = {
    "defaults": DEFAULTS,
    "extremes": EXTREMES,
    "odd": {"d_model": "8191", "max_len": "131072", "base": "2"},
    "tiny": {"d_model": "2", "max_len": "1", "base": "2"},
    "small-odd": {"d_model": "3", "max_len": "2", "base": "100000000"},
}


@pytest.mark.parametrize("setting", list(SETTINGS))
@pytest.mark.parametrize("page", list(PAGE_FILES))
def test_page_renders_at_setting(page, setting):
    runs = open_views(page, **SETTINGS[setting])  # every tab of the page, each opened through its link
    figs, painted = [], []
    for at in runs:
        assert_clean(at)
        assert not at.warning, [w.value for w in at.warning]  # valid links give no notice
        figs += figures(at)
        painted += grids(at)
        assert max(figure_bytes(at) + grid_bytes(at), default=0) < 1_000_000
        assert shared_params(at) == SETTINGS[setting]
        assert at.number_input(key="d_model").value == int(SETTINGS[setting]["d_model"])
    expected = CHARTS[page] - (1 if page == "similarity" and SETTINGS[setting]["max_len"] == "1" else 0)
    assert len(figs) + len(painted) >= expected
    assert all(title_text(fig) for fig in figs) and all(spec["title"] for spec in painted)


def shared_params(at) -> dict[str, str]:
    """The shared settings in the URL (pages may add their own parameters beside them)."""
    return {k: at.query_params[k] for k in ("d_model", "max_len", "base")}


BAD = ["abc", "-5", "0", "1e12", "nan", "inf", "", "12.5"]


@pytest.mark.parametrize("raw", BAD)
@pytest.mark.parametrize("name", ["d_model", "max_len", "base"])
def test_bad_url_value_gives_notice_and_valid_fallback(name, raw):
    at = open_page("sinusoidal", **{name: raw})
    assert_clean(at)
    notices = [w.value for w in at.warning]
    if name == "base" and raw == "12.5":  # a fractional base is valid: 12.5 is inside 2 .. 1e8
        assert notices == [] and at.number_input(key="base").value == 12.5
        return
    assert len(notices) == 1 and name in notices[0]
    value = at.number_input(key=name).value
    lo, hi = {"d_model": (2, 8192), "max_len": (1, 131072), "base": (2, 1e8)}[name]
    assert lo <= value <= hi
    assert at.query_params[name] == (str(int(value)) if float(value).is_integer() else repr(value))
    views = open_views("sinusoidal", **{name: raw})  # the same link, once per tab
    assert all(not run.exception for run in views)
    assert sum(len(figures(run)) + len(grids(run)) for run in views) >= CHARTS["sinusoidal"]  # Plotly charts and painted panel grids


def test_all_three_bad_at_once_on_every_page():
    for page in PAGE_FILES:
        at = open_page(page, d_model="abc", max_len="1e12", base="-inf")
        assert_clean(at)
        assert len(at.warning) == 3
        assert shared_params(at) == {"d_model": "128", "max_len": "131072", "base": "10000"}


def test_notice_clears_once_a_setting_changes():
    at = open_page("similarity", d_model="abc")
    assert len(at.warning) == 1
    at.number_input(key="max_len").set_value(64).run()
    assert not at.warning


def test_number_entry_and_slider_follow_each_other_and_the_url():
    at = open_page("sinusoidal")
    at.number_input(key="d_model").set_value(7).run()  # not a slider stop: the entry holds it exactly
    assert at.select_slider(key="d_model_slider").value == 7
    assert at.query_params["d_model"] == "7"
    at.select_slider(key="d_model_slider").set_value(8192).run()
    assert at.number_input(key="d_model").value == 8192
    assert at.query_params["d_model"] == "8192"
    at.run()  # d_model is live on this page: AppTest then holds only what its fragments drew; a full run to reach base's box
    at.number_input(key="base").set_value(2.0).run()
    assert at.query_params["base"] == "2"
    assert_clean(at)


def test_settings_survive_a_page_switch():
    at = open_page("sinusoidal")
    at.number_input(key="max_len").set_value(1000).run()
    at.switch_page("app_pages/similarity.py").run()
    assert at.number_input(key="max_len").value == 1000
    assert at.query_params["max_len"] == "1000"
    assert "positions 0 to 999" in grids(at)[0]["title"]  # the matrices, painted by the browser (ui/panel_grid.py)
    assert_clean(at)


def test_no_legacy_pages_folder():
    # a folder named pages/ beside app.py switches Streamlit into its legacy multipage mode,
    # in which a fresh server runs a deep-linked page without app.py (see app.py)
    assert not (ROOT / "pages").exists()

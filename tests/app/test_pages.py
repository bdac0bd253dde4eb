"""AppTest across pages: a bad link gives a notice and a valid value on every page; the sidebar's
two widgets and the URL follow each other; the sidebar shows only the settings a page uses, and
settings survive a page switch, through pages that do not show them too. (Every page at settings
across the ranges: tests/app/test_truth.py. Every bad value of a shared setting through its parser:
tests/ui/test_params.py.)"""

from __future__ import annotations

from tests.app.conftest import ROOT, assert_clean, figures, grids, open_page, open_views
from tests.pages import CHARTS, PAGE_FILES


def shared_params(at) -> dict[str, str]:
    """The shared settings in the URL (pages may add their own parameters beside them)."""
    return {k: at.query_params[k] for k in ("d_model", "max_len", "base")}


def test_a_bad_link_draws_every_view_with_valid_settings():
    # each tab of a page opened from a link whose three settings are bad: the notices, the valid values in the URL and the sidebar, every figure
    views = open_views("sinusoidal", d_model="abc", max_len="1e12", base="-inf")
    for at in views:
        assert_clean(at)
        assert sorted(w.value.split("=")[0].strip("`") for w in at.warning) == ["base", "d_model", "max_len"]
        assert shared_params(at) == {"d_model": "128", "max_len": "131072", "base": "10000"}
        assert at.number_input(key="max_len").value == 131072
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
    assert "positions 0 to 999" in grids(at)[0]["title"]  # the matrices, painted by the browser
    assert_clean(at)


def _sidebar_settings(at) -> set[str]:
    """The shared settings whose exact-value boxes the sidebar shows."""
    return {w.key for w in at.sidebar.number_input if w.key in {"d_model", "max_len", "base"}}


def test_the_sidebar_shows_only_the_settings_the_page_uses():
    from ui.path import BY_PATH

    for page in ("context", "relative", "rope"):  # none, one, two of the three (ui/path.py Step.uses)
        at = open_page(page)
        assert _sidebar_settings(at) == set(BY_PATH[page].uses), page
        headings = [m.value for m in at.sidebar.markdown if "Shared settings" in m.value]
        assert len(headings) == (1 if BY_PATH[page].uses else 0), page  # a page that uses none has no settings section
        assert set(shared_params(at)) == {"d_model", "max_len", "base"}  # all three stay in the link
        assert_clean(at)


def test_a_setting_the_page_does_not_show_keeps_its_value():
    # from a link, through a page that does not show d_model, to one that does
    at = open_page("context", d_model="64")
    assert "d_model" not in _sidebar_settings(at) and at.query_params["d_model"] == "64"
    at.switch_page("app_pages/sinusoidal.py").run()
    assert at.number_input(key="d_model").value == 64
    assert at.select_slider(key="d_model_slider").value == 64
    # a value set on a page, through two runs of a page that does not show it, back to a page that does
    at.number_input(key="d_model").set_value(48).run()
    at.switch_page("app_pages/lab.py").run()
    assert at.query_params["d_model"] == "48"
    at.run()
    at.switch_page("app_pages/similarity.py").run()
    assert at.number_input(key="d_model").value == 48
    assert at.query_params["d_model"] == "48"
    assert_clean(at)


def test_no_legacy_pages_folder():
    # a folder named pages/ beside app.py switches Streamlit into its legacy multipage mode,
    # in which a fresh server runs a deep-linked page without app.py (see app.py)
    assert not (ROOT / "pages").exists()

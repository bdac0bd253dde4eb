"""harness.pages.pages_named: the pages `--pages` picks for bench.load and bench.load.ws."""

import pytest

from harness.pages import app_pages, pages_named


def test_no_names_pick_every_page():
    assert pages_named(None) == pages_named("") == pages_named(" , ") == app_pages()


def test_names_pick_those_pages_in_the_apps_order():
    names = [p.name for p in app_pages()]
    first, last = names[0], names[-1]
    assert [p.name for p in pages_named(f" {last},{first} ")] == [first, last]


def test_an_unknown_name_stops_the_script_and_lists_the_known_ones():
    with pytest.raises(SystemExit, match=r"unknown page\(s\) \['labb'\].*'lab'"):
        pages_named("problem,labb")


def test_the_benchmark_measures_every_page_of_the_navigation_with_its_own_heading():
    from bench.config import PAGES, VARIANTS

    names = [p.name for p in app_pages()]
    assert [p.name for p in PAGES if p.name in names] == names and set(VARIANTS) <= set(names)
    by_name = {p.name: p for p in PAGES}
    assert by_name["sinusoidal"].title == "The sinusoidal encoding" and by_name["rope-256"].script == "app_pages/rope.py"


def test_a_page_steps_a_setting_its_sidebar_shows():
    # the sidebar shows only the settings a page uses (ui/sidebar.py): the benches step d_model where it is shown,
    # else the first shown, and nothing on a page that shows none
    from ui.path import BY_PATH

    by_name = {p.name: p for p in app_pages()}
    assert by_name["sinusoidal"].stepped == "d_model"  # uses all three
    assert by_name["rope"].stepped == "max_len" and by_name["model"].stepped == "base"  # (max_len, base) and (base)
    assert by_name["lab"].stepped is None and by_name["context"].stepped is None
    assert all(p.uses == BY_PATH[p.url_path].uses for p in app_pages())

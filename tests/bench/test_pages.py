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

"""Bad links on every page (AppTest): each page reads its links through the checked controls, and a
bad value of each class gives a notice and a valid value, never an exception or markup.

Nothing here is listed by hand. The pages come from the app's navigation (ui/path.py STEPS, through
harness.pages); each page's parameters are found by running it at the defaults, once per tab bound
to the URL (only the open tab runs): the ones the app writes to the URL itself (the shared settings,
the page's own choices), every widget bound to the URL, and the tabs.

Every value of the batteries goes through every kind of check in tests/ui/test_link_battery.py,
where a run costs milliseconds. Here, per page and per view with parameters of its own, one run per
class of input, each value in every parameter of the view at once:
- a word (a bad choice, a bad tab name, not a number), `nan` (a bad number), 5,000 digits;
- markup of every kind (two runs: Markdown, LaTeX, directives, HTML, autolinks, control characters);
- a list of 4,000 names and a 100 kB value in every text and list parameter (the time bound);
- the low and the high edge of every numeric parameter, which must be taken as they are.
Each is judged by tests/links.py's oracle (no exception; nothing formed from the input; a value
within what its control offers; a notice naming every parameter whose value was not taken; the run
under SCRIPT_BOUND_S), and the session carries on: the next page opens clean.
`test_the_pages_read_links_only_through_these_kinds` shows that every parameter of every page is read
by a kind of control the unit battery tries. `test_infinity_met_on_back_in_every_bound_control`: a
value met on the browser's Back (Streamlit seeds every bound widget from that URL again) gets the
same check as on a first load.
"""

from __future__ import annotations

import functools
import time
import tomllib

import pytest
from streamlit.testing.v1 import AppTest

from harness.pages import ROOT, AppPage, app_pages
from tests.app.conftest import open_page as open_name
from tests.links import (
    EDGES, INJECTIONS, LISTS, SCRIPT_BOUND_S, Param, bound, case_values, history_run, link_problems, notices, params_read, query_groups, tab_sets,
)  # fmt: skip
from tests.pages import VIEW_SWITCHES
from ui.params import SHARED_PARAMS

PAGES = app_pages()
BY_NAME = {page.name: page for page in PAGES}

_MARKUP = list(INJECTIONS.values())
CLASSES = {
    "word": "abc",
    "nan": "nan",
    "many-digits": "1" * 5000,
    "markup": " ".join(_MARKUP[: len(_MARKUP) // 2]),
    "markup-more": " ".join(_MARKUP[len(_MARKUP) // 2 :]),
}
TEXT, LIST = ("bound", "text_input"), ("page", "multiselect")
LONG = {  # long values, given where a control may take them as they are (every other control refuses them at its check, as the unit battery shows)
    "list": (LISTS["duplicates"], {LIST}),
    "100kb": (LISTS["100kb"], {LIST, TEXT}),
}


def open_page(page: AppPage, params: dict[str, str] | None = None) -> AppTest:
    """A fresh session whose first run is `page` with `params` in the URL, as when a visitor follows a deep link."""
    return open_name(page.name, **(params or {}))


@functools.cache
def page_views(name: str) -> tuple[tuple[dict[str, str], tuple[Param, ...]], ...]:
    """The page's views: the page as it opens with every parameter it reads there, then each other
    tab of its bound tabs (the tab's link, the parameters only that tab reads), where it has any."""
    first = open_page(BY_NAME[name])
    assert not first.exception, f"{name} fails at the defaults: {[e.value for e in first.exception]}"
    opening = params_read(first)
    views = [({}, opening)]
    for key, labels in tab_sets(first):
        for label in labels[1:]:
            at = open_page(BY_NAME[name], {key: label})
            assert not at.exception, f"{name} {key}={label} fails at the defaults: {[e.value for e in at.exception]}"
            own = tuple(p for p in params_read(at, {key: label}) if p.name not in {q.name for q in opening})
            if own:
                views.append(({key: label}, own))
    return tuple(views)


@functools.cache
def uploaders(name: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    at = open_page(BY_NAME[name])
    return tuple((u.key or u.label, tuple(u.allowed_type)) for u in at.file_uploader)


def carries_on(at: AppTest, page: AppPage) -> list[str]:
    """The session keeps working after the bad link: the next run (on another page) is clean."""
    other = next((p for p in PAGES if p != page), page)
    at.switch_page(other.script).run()
    return [f"next run, on {other.name}: {e.value}" for e in at.exception]


def judge(page: str, opened: dict[str, str], params: tuple[Param, ...], given: dict[str, str], *, edges: bool = False, last: bool = True) -> None:
    """Open the page from a link that gives `params` the values `given` (with the tab `opened`), judge
    what it made of it, and (the `last` link of a class) open the next page in the same session."""
    start = time.perf_counter()
    at = open_page(BY_NAME[page], given | opened)
    seconds = time.perf_counter() - start
    problems = link_problems(at, params, given, edges=edges)
    assert not problems, (page, opened, problems)
    assert seconds < SCRIPT_BOUND_S, f"{page} {opened} took {seconds:.1f} s"
    if last:
        assert not carries_on(at, BY_NAME[page])


@pytest.mark.parametrize("case", list(CLASSES))
@pytest.mark.parametrize("page", [p.name for p in PAGES])
def test_a_bad_link_of_each_class(page, case):
    value = CLASSES[case]
    for opened, params in page_views(page):
        groups = list(query_groups(params, value))
        for i, group in enumerate(groups):
            judge(page, opened, params, {p.name: value for p in group}, last=i == len(groups) - 1)


@pytest.mark.parametrize("case", list(LONG))
def test_a_long_value_where_one_can_be_taken(case):
    # a long list or 100 kB in every parameter that may take it as it is (a text, a list of names) on every page: within the time bound
    value, kinds = LONG[case]
    for page in PAGES:
        for opened, params in page_views(page.name):
            open_to_it = tuple(p for p in params if p.kind in kinds)
            groups = list(query_groups(open_to_it, value))
            for i, group in enumerate(groups):
                judge(page.name, opened, params, {p.name: value for p in group}, last=i == len(groups) - 1)


@pytest.mark.parametrize("case", EDGES)
@pytest.mark.parametrize("page", [p.name for p in PAGES])
def test_a_value_on_the_edge_of_a_range_is_taken(page, case):
    for opened, params in page_views(page):
        given = case_values(params, case)
        if given:
            judge(page, opened, params, given, edges=True)


@pytest.mark.parametrize("page", [p.name for p in PAGES])
def test_infinity_met_on_back_in_every_bound_control(page):
    # a page opened clean, then Back or Forward to an entry whose URL gives `inf` to every control bound to the URL
    # (an int input seeded with it raised OverflowError): the first load's notice, not an exception
    views = [(opened, params, None) for opened, params in page_views(page)]
    for switch in VIEW_SWITCHES.get(page, []):  # a view chosen by a segmented control (tests/pages.py): its own controls
        for option in (o for o in switch.options if o != switch.default):
            at = open_page(BY_NAME[page], {switch.key: option})
            views.append(({switch.key: option}, params_read(at, {switch.key: option}), at))
    for opened, params, at in views:
        given = {p.name: "inf" for p in bound(params) if p.name not in opened}
        if given:
            at = history_run(at or open_page(BY_NAME[page], opened), given | opened)
            problems = link_problems(at, params, given)
            assert not problems, (page, opened, problems)


def test_the_pages_read_links_only_through_these_kinds():
    # a parameter read another way would escape the unit battery: its kind must be one the battery's app draws
    from tests.ui.test_link_battery import PARAMS

    tried = {p.kind for p in PARAMS}
    for page in PAGES:
        for opened, params in page_views(page.name):
            untried = [(p.name, p.kind) for p in params if p.kind not in tried]
            assert not untried, (page.name, opened, untried)


def test_parameters_are_found_on_every_page():
    # the battery is only as good as its discovery: every page reads the shared settings, and
    # the URL-bound controls that pages are known to have are found
    found = {page.name: {p.name for _, params in page_views(page.name) for p in params} for page in PAGES}
    for page in PAGES:
        assert {spec.name for spec in SHARED_PARAMS} <= found[page.name], (page.name, found[page.name])
    known = {
        "sinusoidal": {"layout", "position", "pair", "sin_view"},
        "similarity": {"reference", "offset", "sim_view"},
        "attention": {"sentence", "text", "heads", "scheme", "pe_scale", "att_view"},
        "rope": {"head_dim", "rope_layout", "scaling", "factor", "original_len", "rope_view"},
        "context": {"presets", "ntk_growth", "grid", "grid_base", "ctx_view"},
        "relative": {"alibi_heads", "alibi_causal", "alibi_shared", "t5_buckets", "t5_max_distance", "t5_bidirectional", "shaw_k", "rel_view"},
        "model": {"source", "pca3d", "dominant", "pc", "dim", "model_view"},
        "lab": {"lab_task", "lab_steps", "lab_why", "lab_map", "lab_lm_view", "lab_lm_steps"},
    }
    for page, names in known.items():
        assert names <= found[page], page


def test_many_parameters_at_once_with_unknown_ones():
    # a link with every parameter of every page, all bad, plus parameters no page knows
    given = {p.name: "%%%" for page in PAGES for _, params in page_views(page.name) for p in params}
    given.update({"unknown": "1", "d_model_": "5", "": "x", "a" * 300: "b"})
    for page in PAGES:
        at = open_page(page, given)
        assert not at.exception, (page.name, [e.value for e in at.exception])
        assert not carries_on(at, page)


# --- uploads ---------------------------------------------------------------------------------
# Every st.file_uploader on every page is found and fed the files below (the model page's
# checkpoint upload today); test_model_page_has_an_uploader makes sure the hook still finds it.


def _max_upload_mb() -> int:
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    return int(config.get("server", {}).get("maxUploadSize", 200))


def bad_files(extension: str) -> dict[str, tuple[str, bytes, str]]:
    """Malformed, empty and oversized files, named with an extension the uploader accepts."""
    ext = extension if extension.startswith(".") else f".{extension}" if extension else ".bin"
    return {
        "empty": (f"empty{ext}", b"", "application/octet-stream"),
        "random-bytes": (f"noise{ext}", bytes(range(256)) * 64, "application/octet-stream"),
        "truncated-zip": (f"truncated{ext}", b"PK\x03\x04\x14\x00\x00\x00\x08\x00" + b"\x00" * 20, "application/zip"),
        "pickle-bomb-header": (f"pickle{ext}", b"\x80\x04\x95" + b"\xff" * 8 + b"cos\nsystem\n", "application/octet-stream"),
        "json-not-tensor": (f"data{ext}", b'{"position_embeddings": "not a tensor"}', "application/json"),
        "path-in-name": (f"../../etc/passwd{ext}", b"root:x:0:0", "application/octet-stream"),
        "oversized": (f"big{ext}", b"\x00" * ((_max_upload_mb() + 1) * 1024 * 1024), "application/octet-stream"),
    }


@pytest.mark.parametrize("page", [p.name for p in PAGES])
def test_bad_uploads_give_a_notice(page):
    for key, types in uploaders(page):
        for case, file in bad_files(types[0] if types else "").items():
            at = open_page(BY_NAME[page])
            widget = next(u for u in at.file_uploader if (u.key or u.label) == key)
            widget.set_value(file).run()
            assert not at.exception, (page, key, case, [e.value for e in at.exception])
            assert notices(at), f"{page}: uploading a {case} file to {key} shows no notice"
            assert not carries_on(at, BY_NAME[page]), (page, key, case)


def test_model_page_has_an_uploader():
    # the hook: once app.py lists the model page, its checkpoint upload is in the battery above
    if "model" not in BY_NAME:
        assert not any(p.script.endswith("model.py") for p in PAGES)
        return
    assert uploaders("model"), "the model page takes a checkpoint upload, but no st.file_uploader was found on it"

"""Bad-input battery (AppTest): every query parameter of every page with garbage, boundary and
extreme values; malformed, empty and oversized uploads on every page that takes a file.

Nothing here is listed by hand. The pages come from app.py's navigation (bench/load_pages.py);
each page's parameters are found by running it at the defaults: the ones the app writes to
the URL itself (the shared settings, `scheme`, ...) and every widget bound to the URL
(`bind="query-params"`). A new page, or a new URL-bound control, is covered without an edit.

The contract (DESIGN.md, issue 7): a bad value in a link never raises; it is either taken as
it is (the URL keeps it) or replaced by a valid value with a visible notice that names the
parameter; and the session carries on (a rerun and a page switch after it work).

To keep the runtime modest, one run per page and case sets *every* parameter of the page to
that case's value at once, and the checks are then made parameter by parameter.
"""

from __future__ import annotations

import functools
import math
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest
from streamlit.testing.v1 import AppTest

from bench.load.pages import ROOT, AppPage, app_pages
from tests.app.conftest import tab_sets
from ui.params import SHARED_PARAMS

PAGES = app_pages()
BY_NAME = {page.name: page for page in PAGES}

# Pages whose URL-bound widgets drop a bad value without a notice. Streamlit's own binding
# (bind="query-params") ignores an invalid value silently; these pages do not check it
# themselves yet. test_bound_widgets_give_a_notice is a strict xfail for them: when a page
# gets its notices, that test passes, fails as XPASS, and the page comes off this list.
# A page not listed here must give the notice (the DESIGN.md contract).
SILENT_BOUND_WIDGETS: set[str] = set()

# Bad links that still break a page, found by this battery: (page, case) -> what happens.
# Each is a strict xfail, so the fix shows up as XPASS and its line here is then removed.
KNOWN_BUGS: dict[tuple[str, str], str] = {}

NOTICE_TYPES = ("warning", "error", "info", "toast")
OPTION_WIDGETS = {"selectbox", "radio", "select_slider", "multiselect", "button_group", "segmented_control", "pills"}


@dataclass(frozen=True)
class Param:
    """One query parameter a page reads."""

    name: str
    source: str  # "shared", "page" (read and written by the page's own code), "bound" (bind="query-params")
    widget: str = ""  # the widget type of a bound parameter (slider, number_input, text_input, ...)
    lo: float | None = None  # numeric range, where there is one
    hi: float | None = None
    integer: bool = False
    max_chars: int = 0

    @property
    def numeric(self) -> bool:
        return self.lo is not None and self.hi is not None


def _walk(node) -> Iterator:
    yield node
    for child in getattr(node, "children", {}).values():
        yield from _walk(child)


def bound_widgets(at: AppTest) -> dict[str, object]:
    """The widgets of the last run that are bound to a query parameter, by parameter name."""
    found = {}
    for node in _walk(at._tree):
        proto = getattr(node, "proto", None)
        if proto is not None and "query_param_key" in proto.DESCRIPTOR.fields_by_name and proto.HasField("query_param_key"):
            found[proto.query_param_key] = node
    return found


def _param_from_widget(name: str, node) -> Param:
    proto, kind = node.proto, getattr(node, "type", type(node).__name__.lower())
    if kind in ("slider", "number_input") and "min" in proto.DESCRIPTOR.fields_by_name:
        has_range = kind == "slider" or (proto.has_min and proto.has_max)
        lo = float(proto.min if kind == "number_input" else proto.min)
        hi = float(proto.max)
        integer = proto.data_type == 0  # INT in both protos
        if has_range and kind == "slider" and len(proto.default) == 1:
            return Param(name, "bound", kind, lo, hi, integer)
        if has_range and kind == "number_input":
            return Param(name, "bound", kind, lo, hi, integer)
    if kind == "text_input":
        return Param(name, "bound", kind, max_chars=proto.max_chars)
    return Param(name, "bound", kind)


def open_page(page: AppPage, params: dict[str, str] | None = None) -> AppTest:
    """A fresh session whose first run is `page` with `params` in the URL, as when a visitor
    follows a deep link."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    for key, value in (params or {}).items():
        at.query_params[key] = value
    if not page.default:
        at.switch_page(page.script)
    return at.run()


@functools.cache
def page_views(name: str) -> tuple[tuple[tuple[str, str], ...], ...]:
    """The page's views: () for the page as it opens, then one (("key", "label"),) per other tab
    of its tabs bound to the URL (ui/sections.py), whose content runs only when that tab is open."""
    views: list[tuple[tuple[str, str], ...]] = [()]
    for key, labels in tab_sets(open_page(BY_NAME[name])):
        views += [((key, label),) for label in labels[1:]]
    return tuple(views)


@functools.cache
def view_params(name: str, view: tuple[tuple[str, str], ...] = ()) -> tuple[Param, ...]:
    """Every query parameter the page reads in one view: found by running it once at the defaults
    (with the view's tab open). The tab parameters themselves are page parameters of the first view."""
    at = open_page(BY_NAME[name], dict(view))
    assert not at.exception, f"{name} {view} fails at the defaults: {[e.value for e in at.exception]}"
    shared = {spec.name: spec for spec in SHARED_PARAMS}
    found: dict[str, Param] = {}
    for key in at.query_params:
        if key in dict(view):
            continue
        if key in shared:
            spec = shared[key]
            found[key] = Param(key, "shared", "", float(spec.lo), float(spec.hi), spec.integer)
        else:
            found[key] = Param(key, "page")
    for key, node in bound_widgets(at).items():
        found[key] = _param_from_widget(key, node)
    if not view:
        found.update({key: Param(key, "page") for key, _ in tab_sets(at)})
    return tuple(found.values())


@functools.cache
def page_params(name: str) -> tuple[Param, ...]:
    """Every query parameter the page reads, in any of its views."""
    found: dict[str, Param] = {}
    for view in page_views(name):
        for param in view_params(name, view):
            found.setdefault(param.name, param)
    return tuple(found.values())


# --- the values ----------------------------------------------------------------------------


def _edge(param: Param, side: str, step: float) -> str | None:
    if not param.numeric:
        return None
    value = (param.lo - step) if side == "lo" else (param.hi + step)
    if side == "lo" and step == 0:
        value = param.lo
    if side == "hi" and step == 0:
        value = param.hi
    return str(int(value)) if param.integer or float(value).is_integer() else repr(float(value))


CASES: dict[str, Callable[[Param], str | None]] = {
    # garbage
    "word": lambda p: "abc",
    "empty": lambda p: "",
    "markup": lambda p: "<img src=x onerror=alert(1)>",
    "control-chars": lambda p: "\x00\t\u202e\U0001f600",
    "long": lambda p: "x" * (p.max_chars + 1 if p.max_chars else 5_000),  # one more than a text box allows
    # numbers that are not in range or not numbers
    "negative": lambda p: "-1",
    "fraction": lambda p: "0.5",
    "nan": lambda p: "nan",
    "minus-inf": lambda p: "-inf",
    "overflow": lambda p: "1e309",
    "huge-int": lambda p: "9" * 400,
    # just outside and exactly at each numeric parameter's range (numeric parameters only)
    "below-range": lambda p: _edge(p, "lo", 1),
    "above-range": lambda p: _edge(p, "hi", 1),
    "at-low-edge": lambda p: _edge(p, "lo", 0),
    "at-high-edge": lambda p: _edge(p, "hi", 0),
}


def case_params(page: str, case: str, view: tuple[tuple[str, str], ...] | None = None) -> dict[str, str]:
    """The case's value for every parameter of the page (of one view, when given)."""
    values = {p.name: CASES[case](p) for p in (page_params(page) if view is None else view_params(page, view))}
    return {k: v for k, v in values.items() if v is not None}


# --- the checks ----------------------------------------------------------------------------


def notices(at: AppTest) -> list[str]:
    texts = []
    for kind in NOTICE_TYPES:
        texts += [str(el.value) for el in getattr(at, kind, [])]
    return texts


def _same(a: object, b: str) -> bool:
    """Does the app's value `a` stand for the raw URL text `b`?"""
    if str(a) == b:
        return True
    try:
        x, y = float(a), float(b)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        return False
    return math.isfinite(x) and x == y


def accepted(at: AppTest, param: Param, raw: str) -> bool:
    """Was the raw value taken as it is? The URL still holds it, or (a bound widget drops a
    value equal to its default from the URL) the widget holds it."""
    if param.name in at.query_params:
        return _same(at.query_params[param.name], raw)
    return param.source == "bound" and param.name in at.session_state and _same(at.session_state[param.name], raw)


def value_problems(at: AppTest, param: Param) -> list[str]:
    """What is wrong with the value the app ended up with (out of range, not finite, too long)."""
    if param.name not in at.session_state:
        return []
    value = at.session_state[param.name]
    lo, hi = param.lo, param.hi
    node = bound_widgets(at).get(param.name)
    if node is not None and param.numeric:  # the range may follow the settings: use the one drawn
        current = _param_from_widget(param.name, node)
        lo, hi = (current.lo, current.hi) if current.numeric else (lo, hi)
    if param.numeric and isinstance(value, (int, float)) and not isinstance(value, bool):
        if not math.isfinite(value) or not (lo <= value <= hi):
            return [f"{param.name}={value!r} is outside {lo:g} .. {hi:g}"]
        if param.integer and not float(value).is_integer():
            return [f"{param.name}={value!r} is not a whole number"]
    if param.max_chars and isinstance(value, str) and len(value) > param.max_chars:
        return [f"{param.name} holds {len(value)} characters, more than its {param.max_chars}"]
    return []


def carries_on(at: AppTest, page: AppPage) -> list[str]:
    """The session keeps working after the bad link: the next run (on another page) is clean."""
    other = next((p for p in PAGES if p != page), page)
    at.switch_page(other.script).run()
    return [f"next run, on {other.name}: {e.value}" for e in at.exception]


def page_case_ids() -> list:
    ids = []
    for page in PAGES:
        for case in CASES:
            bug = KNOWN_BUGS.get((page.name, case))
            marks = [pytest.mark.xfail(strict=True, reason=f"known bug: {bug}")] if bug else []
            ids.append(pytest.param(page.name, case, id=f"{page.name}-{case}", marks=marks))
    return ids


@pytest.mark.parametrize(("page", "case"), page_case_ids())
def test_bad_values_in_every_parameter(page, case):
    assert case_params(page, case), f"no parameter of {page} takes a {case} value"
    for view in page_views(page):  # each tab of the page with its own parameters (only the open tab runs)
        check_bad_values(page, case, view)


def check_bad_values(page: str, case: str, view: tuple[tuple[str, str], ...]) -> None:
    params = view_params(page, view)
    given = case_params(page, case, view)
    if not given:
        return
    at = open_page(BY_NAME[page], given | dict(view))
    assert not at.exception, [e.value for e in at.exception]
    texts = notices(at)
    problems = []
    for param in params:
        if param.name not in given:
            continue
        raw = given[param.name]
        problems += value_problems(at, param)
        if accepted(at, param, raw):
            continue
        named = any(param.name in text for text in texts)
        if not named and not (param.source == "bound" and page in SILENT_BOUND_WIDGETS):
            problems.append(f"{param.name}={raw[:30]!r} was replaced without a notice naming it")
    assert not problems, (view, problems)
    if case.startswith("at-") and case.endswith("-edge"):  # a value on the edge of its range is valid
        refused = [p.name for p in params if p.name in given and p.numeric and not accepted(at, p, given[p.name])]
        assert not refused, f"edge values refused: {refused} {view}"
    assert not carries_on(at, BY_NAME[page])


@pytest.mark.parametrize(
    "page",
    [pytest.param(p.name, marks=pytest.mark.xfail(strict=True, reason="bind='query-params' drops a bad value silently; the page shows no notice yet"))
     if p.name in SILENT_BOUND_WIDGETS else p.name for p in PAGES],
)
def test_bound_widgets_give_a_notice(page):
    for view in page_views(page):
        bound = [p for p in view_params(page, view) if p.source == "bound"]
        given = {p.name: "abc" for p in bound}
        at = open_page(BY_NAME[page], given | dict(view))
        assert not at.exception
        texts = notices(at)
        silent = [p.name for p in bound if not accepted(at, p, "abc") and not any(p.name in t for t in texts)]
        assert not silent, f"bad values dropped without a notice: {silent} {view}"


def test_parameters_are_found_on_every_page():
    # the battery is only as good as its discovery: every page reads the shared settings, and
    # the URL-bound controls that pages are known to have are found
    for page in PAGES:
        names = {p.name for p in page_params(page.name)}
        assert {spec.name for spec in SHARED_PARAMS} <= names, (page.name, names)
    known = {
        "sinusoidal": {"layout", "position", "sin_view"},
        "similarity": {"reference", "offset", "sim_view"},
        "attention": {"sentence", "text", "heads", "scheme", "pe_scale", "att_view"},
        "rope": {"head_dim", "rope_layout", "scaling", "factor", "original_len", "rope_view"},
        "context": {"presets", "ntk_growth", "grid", "grid_base", "ctx_view"},
        "relative": {"alibi_heads", "alibi_causal", "t5_buckets", "t5_max_distance", "t5_bidirectional", "shaw_k", "rel_view"},
        "model": {"source", "pca3d", "model_view"},
        "lab": {"lab_task", "lab_steps", "lab_why", "lab_lm_view", "lab_lm_steps"},
    }
    for page, names in known.items():
        if page in BY_NAME:
            assert names <= {p.name for p in page_params(page)}, page


def test_many_parameters_at_once_with_unknown_ones():
    # a link with every parameter of every page, all bad, plus parameters no page knows
    given = {p.name: "%%%" for page in PAGES for p in page_params(page.name)}
    given.update({"unknown": "1", "d_model_": "5", "": "x", "a" * 300: "b"})
    for page in PAGES:
        at = open_page(page, given)
        assert not at.exception, (page.name, [e.value for e in at.exception])
        assert not carries_on(at, page)


# --- uploads ---------------------------------------------------------------------------------
# No page takes a file yet; the model page (learned position embeddings from your own
# checkpoint) will. Every st.file_uploader on every page is found and fed the files below,
# so that page is covered when it lands. test_model_page_has_an_uploader makes sure it is.


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


def uploaders(page: str) -> list[tuple[str, list[str]]]:
    at = open_page(BY_NAME[page])
    return [(u.key or u.label, u.allowed_type) for u in at.file_uploader]


@pytest.mark.parametrize("page", [p.name for p in PAGES])
def test_bad_uploads_give_a_notice(page):
    found = uploaders(page)
    for key, types in found:
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

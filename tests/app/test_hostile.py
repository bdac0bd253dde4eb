"""Hostile input (issue 16): what one shared link, or one crafted session, must not be able to do
to the hosted demo: put a link, an image, HTML or LaTeX on the page from what it sends, raise
an exception, run for long, or leave another page in a state it cannot draw.

Nothing is listed by hand. The pages come from the app's navigation and each page's parameters
from running it (tests/app/test_bad_input.py's discovery: the shared settings, what the page
writes to the URL, every widget bound to it); the widgets from the page's own element tree.

- `test_hostile_links`: every parameter of every page at once, for each value of a generated
  battery: Markdown and LaTeX metacharacters, backticks, directives, HTML, autolinks, huge and
  many-digit numbers, NaN/inf, unicode digits, duplicates, 100 KB values.
- `test_hostile_widget_states`: every widget of every page sent a value it cannot take, of each
  wire type the browser uses (NaN and infinity for numbers, huge ints, markup and 100 KB strings,
  unknown labels, arrays), then a plain rerun: the session must carry on.
- `test_state_left_by_one_page_fits_the_next`: every widget of a page set to its extreme valid
  value, then every other page opened in the same session: its widgets hold values they offer.

The checks: no exception; no link, image, HTML, LaTeX, icon or directive formed from the input
anywhere Streamlit renders Markdown (every string of every element's proto but the plain-text
ones, `markdown_problems`) nor in a Plotly figure's text; a notice naming a parameter whose value
was not taken; and the script's time under SCRIPT_BOUND_S.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Iterator

import pytest
from streamlit.proto.WidgetStates_pb2 import WidgetStates
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import Widget

from tests.app.test_bad_input import BY_NAME, PAGES, accepted, notices, open_page, page_params

MARK = "evil"  # every hostile text carries it; outside an inert code span it must never reach Markdown
SCRIPT_BOUND_S = 10.0  # one run of a page, a hostile link included (the slowest seen here: ~4 s, the first run of a page)

INJECTIONS = {
    "backtick-link": "`[Login here](https://evil.example/x)`",
    "image": "![evil](https://evil.example/pixel.png)",
    "latex": "$\\color{red}{\\Huge evil}$",
    "latex-block": "$$\n\\evil\n$$",
    "icon-directive": ":material/skull: :red[evil] :rainbow-background[evil]",
    "html": "<img src=https://evil.example/p.png onerror=alert(1)><a href='https://evil.example'>evil</a>",
    "autolinks": "www.evil.example https://evil.example evil@evil.example",
    "reference-link": "[evil][1]\n\n[1]: https://evil.example",
    "block-markdown": "\n# evil\n- **evil** _evil_ ~~evil~~ | a | b |\n> evil",
    "long-fence": "```` ``evil`` ```` \\`evil\\`",
    "controls": "\u202eevil\u200b\x00\t\r\nevil",
}
NUMBERS = {
    "many-digits": "1" * 5000,
    "many-digits-negative": "-" + "9" * 5000,
    "nan": "NaN",
    "infinity": "Infinity",
    "minus-inf": "-inf",
    "overflow": "1e309",
    "underflow": "1e-400",
    "unicode-digits": "١٢٨",  # Arabic-Indic 128: float() and int() take it
    "fullwidth-digits": "１２８",
    "superscript": "²",
    "hex": "0x80",
    "underscores": "1_024",
    "padded": "  64  ",
}
LISTS = {
    "duplicates": ",".join(["rope"] * 1500 + ["alibi"] * 1500 + ["sinusoidal", "evil"] * 500),
    "many-unknown": ",".join(f"evil{i}" for i in range(1500)),
    "100kb": "evil " + "a" * 100_000,
    "commas": "," * 20_000,
}
BATTERY = {**INJECTIONS, **NUMBERS, **LISTS}


# --- the oracle ----------------------------------------------------------------------------------

CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)
UNSAFE_IN_SPAN = set("`$:<>[]()!|*~{}&")  # none of these may come from the input, even inside a code span (a backslash there is literal)
PLAIN_TYPES = {"text", "code", "json", "arrow_data_frame", "dataframe", "exception"}  # shown as text, never parsed
ESCAPED = re.compile(r"\\[!-/:-@\[-`{-~]")  # a backslash-escaped ASCII punctuation character: CommonMark shows it as itself
PLAIN_FIELDS = {
    "selectbox": {"options", "default", "value", "raw_value", "placeholder"},  # a selectbox shows its options as text
    "text_input": {"value", "default", "placeholder"},
    "text_area": {"value", "default", "placeholder"},
}
ALLOWED_TAGS = re.compile(r"</?(br|sup|sub|b|i|em)>")  # what the app's own figure titles use


def walk(node) -> Iterator:
    yield node
    for child in getattr(node, "children", {}).values():
        yield from walk(child)


def proto_strings(message, path: str = "") -> Iterator[tuple[str, str]]:
    """Every string in a protobuf message, with its field path."""
    for field, value in message.ListFields():
        repeated = field.is_repeated if hasattr(field, "is_repeated") else field.label == field.LABEL_REPEATED
        values = value if repeated else [value]
        for item in values:
            if field.type == field.TYPE_MESSAGE:
                yield from proto_strings(item, f"{path}.{field.name}")
            elif field.type == field.TYPE_STRING:
                yield f"{path}.{field.name}", item


def json_strings(value) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from json_strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from json_strings(item)


def markdown_problems(at: AppTest) -> list[str]:
    """What the input managed to form on the page: text from it outside an inert code span, a code
    span holding a metacharacter from it, or markup from it in a figure."""
    problems = []
    for node in walk(at._tree):  # noqa: SLF001
        proto, kind = getattr(node, "proto", None), getattr(node, "type", "")
        if proto is None or not hasattr(proto, "ListFields") or kind in PLAIN_TYPES:
            continue
        if kind == "table":  # st.table reads every cell and header as Markdown (ui.shared.static_table escapes them)
            cells = [*map(str, node.value.columns), *(v for v in node.value.to_numpy().ravel() if isinstance(v, str))]
            for text in cells:
                if MARK in text.lower() and re.search(r"[!-/:-@\[-`{-~]", ESCAPED.sub("", text)):
                    problems.append(f"table cell from the input with live Markdown: {text[:120]!r}")
            continue
        if kind == "plotly_chart":
            for text in json_strings(json.loads(proto.spec)):
                if MARK in text.lower() and re.search(r"[<>$]", ALLOWED_TAGS.sub("", text)):
                    problems.append(f"figure text from the input: {text[:120]!r}")
            continue
        for path, text in proto_strings(proto):
            if path.rsplit(".", 1)[-1] in PLAIN_FIELDS.get(kind, ()) or MARK not in text.lower():
                continue
            outside = CODE_SPAN.sub("", text)
            if MARK in outside.lower():
                problems.append(f"{kind}{path}: input outside a code span: {text[:160]!r}")
            for _, span in CODE_SPAN.findall(text):
                if MARK in span.lower() and UNSAFE_IN_SPAN & set(span):
                    problems.append(f"{kind}{path}: metacharacter in a code span of input: {span[:160]!r}")
    return problems


def timed_run(run) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


# --- links -----------------------------------------------------------------------------------------


QUERY_LIMIT = 400_000  # characters of a query string per run: Streamlit ignores a whole query string past 524,288


@pytest.mark.parametrize("case", list(BATTERY))
@pytest.mark.parametrize("page", [p.name for p in PAGES])
def test_hostile_links(page, case):
    params, value = page_params(page), BATTERY[case]
    per_run = max(1, QUERY_LIMIT // (3 * len(value) + 40))  # percent-encoded, a character can take 3
    for first in range(0, len(params), per_run):
        group = params[first : first + per_run]
        given = {p.name: value for p in group}
        start = time.perf_counter()
        at = open_page(BY_NAME[page], given)
        seconds = time.perf_counter() - start
        assert not at.exception, [e.value for e in at.exception]
        assert not markdown_problems(at)
        assert seconds < SCRIPT_BOUND_S, f"{page} took {seconds:.1f} s for {case}"
        texts = notices(at)
        silent = [p.name for p in group if not accepted(at, p, value) and not any(p.name in t for t in texts)]
        assert not silent, f"replaced without a notice naming them: {silent}"


# --- widget states ---------------------------------------------------------------------------------

HUGE = "evil " + "x" * 100_000
WIRE = {  # (WidgetState field, value): each a value some widget cannot take
    "nan": ("double_value", math.nan),
    "infinity": ("double_value", math.inf),
    "minus-infinity": ("double_value", -math.inf),
    "huge-double": ("double_value", 1e308),
    "huge-int": ("int_value", 2**63 - 1),
    "negative-int": ("int_value", -(2**63)),
    "markup-string": ("string_value", INJECTIONS["backtick-link"] + INJECTIONS["latex"] + INJECTIONS["html"]),
    "huge-string": ("string_value", HUGE),
    "unknown-labels": ("string_array_value", [INJECTIONS["image"], HUGE[:1000], "rope", "rope", ""] * 40),
    "int-array": ("int_array_value", [-1, 2**62, 0, 10**9]),
    "double-array": ("double_array_value", [math.nan, math.inf, -1e308]),
    "bool": ("bool_value", True),
    "trigger": ("trigger_value", True),
    "empty": ("", None),
}


def page_widgets(at: AppTest) -> list:
    return [node for node in walk(at._tree) if isinstance(node, Widget) and node.type not in ("file_uploader", "download_button")]  # noqa: SLF001


def hostile_states(at: AppTest, field: str, value) -> WidgetStates:
    states = WidgetStates()
    for widget in page_widgets(at):
        state = states.widgets.add()
        state.id = widget.id
        if field.endswith("_array_value"):
            getattr(state, field).data[:] = value
        elif field:
            setattr(state, field, value)
    return states


@pytest.mark.parametrize("wire", list(WIRE))
@pytest.mark.parametrize("page", [p.name for p in PAGES])
def test_hostile_widget_states(page, wire):
    at = open_page(BY_NAME[page])
    assert not at.exception
    assert page_widgets(at), f"{page} has no widget"
    states = hostile_states(at, *WIRE[wire])
    seconds = timed_run(lambda: at._run(widget_state=states))  # noqa: SLF001
    assert not at.exception, [e.value for e in at.exception]
    assert not markdown_problems(at)
    assert seconds < SCRIPT_BOUND_S, f"{page} took {seconds:.1f} s for {wire}"
    at.run()  # the session carries on: a plain rerun after it is clean too
    assert not at.exception, [e.value for e in at.exception]


# --- one page's state, the next page ------------------------------------------------------------------


def extreme_states(at: AppTest) -> WidgetStates:
    """Every widget of the page at the far end of what it offers, as the browser sends it."""
    states = WidgetStates()
    for widget in page_widgets(at):
        proto, kind = widget.proto, widget.type
        state = WidgetStates().widgets.add()
        state.id = widget.id
        if kind == "selectbox" and proto.options:
            state.string_value = proto.options[-1]
        elif kind == "select_slider" and proto.options:
            state.string_array_value.data[:] = [proto.options[-1]]
        elif kind == "multiselect" and proto.options:
            state.string_array_value.data[:] = list(proto.options)
        elif kind == "button_group" and proto.options:
            state.string_array_value.data[:] = [proto.options[-1].content]
        elif kind == "number_input" and proto.has_max:
            if proto.data_type == 0:
                state.int_value = int(proto.max)
            else:
                state.double_value = proto.max
        elif kind == "slider":
            state.double_array_value.data[:] = [proto.max] * len(proto.default)
        elif kind in ("toggle", "checkbox"):
            state.bool_value = not widget.value
        elif kind == "text_input":
            state.string_value = "12"
        else:
            continue
        states.widgets.add().CopyFrom(state)
    return states


def out_of_offer(at: AppTest) -> list[str]:
    """Widgets of the page holding a value they do not offer."""
    wrong = []
    for widget in page_widgets(at):
        kind, proto = widget.type, widget.proto
        try:
            value = widget.value
            if kind == "selectbox" and value is not None:
                widget.index  # noqa: B018  raises ValueError for a value not among the options
            elif kind == "select_slider":
                values = value if isinstance(value, (list, tuple)) else [value]
                assert all(str(widget.format_func(v)) in proto.options for v in values)
            elif kind == "multiselect":
                assert all(str(widget.format_func(v)) in proto.options for v in value)
            elif kind == "button_group" and value is not None:
                labels = [o.content for o in proto.options]
                values = value if isinstance(value, (list, tuple)) else [value]
                assert all(str(widget.format_func(v)) in labels for v in values)
            elif kind in ("number_input", "slider") and value is not None:
                values = value if isinstance(value, (list, tuple)) else [value]
                assert all(math.isfinite(v) for v in values)
                assert not proto.has_min or all(v >= proto.min for v in values) if kind == "number_input" else all(v >= proto.min for v in values)
                assert not proto.has_max or all(v <= proto.max for v in values) if kind == "number_input" else all(v <= proto.max for v in values)
        except (AssertionError, ValueError, KeyError, TypeError) as err:
            wrong.append(f"{kind} {widget.key or widget.id}: {widget.value!r} ({type(err).__name__})")
    return wrong


@pytest.mark.parametrize("page", [p.name for p in PAGES])
def test_state_left_by_one_page_fits_the_next(page):
    """Every widget of `page` at its extreme, then every other page in turn in the same session
    (a visitor who follows the navigation): each opens clean, its widgets within what they offer."""
    at = open_page(BY_NAME[page])
    at._run(widget_state=extreme_states(at))  # noqa: SLF001
    assert not at.exception, (page, [e.value for e in at.exception])
    for other in PAGES:
        if other.name == page:
            continue
        at.switch_page(other.script).run()
        assert not at.exception, (page, other.name, [e.value for e in at.exception])
        wrong = out_of_offer(at)
        assert not wrong, (page, other.name, wrong)


@pytest.mark.parametrize("scheme", ["rope", "alibi", "t5"])
def test_what_one_pages_link_seeds_every_other_page_can_draw(scheme):
    """The issue's case: /code?scheme=rope, then the RoPE page (its layout became None, an exception
    that survived every click). A link seeds the session state of the page it opens (a scheme, a
    head count, a head width other pages read under the same keys); every other page, opened next
    in the same session, must draw clean with widgets holding values they offer."""
    at = open_page(BY_NAME["code"], {"scheme": scheme, "heads": "16", "head_dim": "1024"})
    assert not at.exception, [e.value for e in at.exception]
    for other in PAGES:
        if other.name == "code":
            continue
        at.switch_page(other.script).run()
        assert not at.exception, (other.name, [e.value for e in at.exception])
        wrong = out_of_offer(at)
        assert not wrong, (other.name, wrong)

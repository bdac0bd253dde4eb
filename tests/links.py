"""What a link or a crafted session may send the app, and how the tests judge what the app made of it.

Shared by the unit battery (tests/ui/test_link_battery.py: every value below through one small app
that draws every kind of link-checked control the pages use) and the page tests
(tests/app/test_bad_input.py: per page, one run per class of input, proving the page wires the
checked controls; tests/app/test_hostile.py: widget states a crafted session sends).

The contract (docs/architecture.md, "Links"): a bad value in a link never raises; it is either taken as it is (the URL
keeps it) or replaced by a valid value with a visible notice naming the parameter; nothing the
input holds forms a link, an image, HTML, LaTeX, an icon or a directive anywhere Streamlit renders
Markdown; and the session carries on.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from unittest import mock

from streamlit.runtime.scriptrunner import RerunData
from streamlit.testing.v1 import AppTest

from ui.params import SHARED_PARAMS

MARK = "evil"  # every hostile text carries it; outside an inert code span it must never reach Markdown
SCRIPT_BOUND_S = 10.0  # one run of a page, a hostile link included (the slowest seen here: ~4 s, the first run of a page)
QUERY_LIMIT = 400_000  # characters of a query string per run: Streamlit ignores a whole query string past 524,288

# --- the values --------------------------------------------------------------------------------

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
BATTERY = {**INJECTIONS, **NUMBERS, **LISTS}  # the same value in every parameter at once


@dataclass(frozen=True)
class Param:
    """One query parameter a page reads."""

    name: str
    source: str  # "shared", "page" (read and written by the page's own code), "bound" (bind="query-params")
    widget: str = ""  # the widget type of a bound parameter, or of the widget keyed by a page parameter ("tabs" for tabs)
    lo: float | None = None  # numeric range, where there is one
    hi: float | None = None
    integer: bool = False
    max_chars: int = 0

    @property
    def numeric(self) -> bool:
        return self.lo is not None and self.hi is not None

    @property
    def kind(self) -> tuple[str, str]:
        """How the app reads it: the shared settings' parser, or the control that checks it."""
        return (self.source, self.widget)


def _edge(param: Param, side: str, step: float) -> str | None:
    if not param.numeric:
        return None
    value = (param.lo - step) if side == "lo" else (param.hi + step)
    return str(int(value)) if param.integer or float(value).is_integer() else repr(float(value))


CASES: dict[str, Callable[[Param], str | None]] = {  # a value per parameter, from its range where it has one
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
EDGES = ("at-low-edge", "at-high-edge")  # valid values: they must be taken as they are


def case_values(params: tuple[Param, ...], case: str) -> dict[str, str]:
    """The case's value for every parameter it has one for."""
    values = {p.name: CASES[case](p) for p in params}
    return {k: v for k, v in values.items() if v is not None}


# --- what a page reads -------------------------------------------------------------------------


def walk(node) -> Iterator:
    yield node
    for child in getattr(node, "children", {}).values():
        yield from walk(child)


def bound_widgets(at: AppTest) -> dict[str, object]:
    """The widgets (and bound containers) of the last run that are bound to a query parameter, by parameter name."""
    found = {}
    for node in walk(at._tree):  # noqa: SLF001
        proto = getattr(node, "proto", None)
        if proto is not None and "query_param_key" in proto.DESCRIPTOR.fields_by_name and proto.HasField("query_param_key"):
            found[proto.query_param_key] = node
    return found


def tab_sets(at: AppTest) -> list[tuple[str, list[str]]]:
    """The page's tabs bound to the URL (ui/tabs.py), as (URL parameter, tab labels), default tab first.
    Only the open tab of such a set runs, so AppTest sees only its figures."""
    found = []
    for node in walk(at.main):
        proto = getattr(node, "proto", None)
        if proto is not None and hasattr(proto, "tab_container") and proto.HasField("tab_container") and proto.tab_container.query_param_key:
            found.append((proto.tab_container.query_param_key, [tab.label for tab in node.children.values()]))
    return found


def _keyed_widgets(at: AppTest) -> dict[str, str]:
    """The type of every widget with a key of its own, by key."""
    return {node.key: node.type for node in walk(at._tree) if getattr(node, "key", None) and getattr(node, "type", None)}  # noqa: SLF001


def _param_from_widget(name: str, node) -> Param:
    proto, kind = node.proto, getattr(node, "type", type(node).__name__.lower())
    if kind in ("slider", "number_input") and "min" in proto.DESCRIPTOR.fields_by_name:
        has_range = kind == "slider" or (proto.has_min and proto.has_max)
        integer = proto.data_type == 0  # INT in both protos
        if has_range and (kind == "number_input" or len(proto.default) == 1):
            return Param(name, "bound", kind, float(proto.min), float(proto.max), integer)
    if kind == "text_input":
        return Param(name, "bound", kind, max_chars=proto.max_chars)
    return Param(name, "bound", kind)


def bound(params: tuple[Param, ...]) -> tuple[Param, ...]:
    """The parameters Streamlit keeps in step with a widget (bind="query-params": widgets, tabs, an
    expander), which it seeds from the URL again on the browser's Back and Forward."""
    return tuple(p for p in params if p.source == "bound" or p.widget == "tabs")


def history_run(at: AppTest, given: dict[str, str]) -> AppTest:
    """Rerun this session as the browser does on Back or Forward to an entry whose URL gives
    `given`: the query string changed, the widget values sent as they are, and the run flagged as
    a history navigation, on which Streamlit lets the URL win over every widget bound to it.
    (AppTest has no such run of its own: its RerunData is made with the flag set.)"""
    for key, value in given.items():
        at.query_params[key] = value
    with mock.patch("streamlit.testing.v1.local_script_runner.RerunData", functools.partial(RerunData, is_history_navigation=True)):
        return at.run()


def params_read(at: AppTest, opened: dict[str, str] | None = None) -> tuple[Param, ...]:
    """Every query parameter the last run read: the ones the app wrote to the URL itself (the shared
    settings, the page's own choices), every widget bound to the URL, and the tabs bound to it;
    `opened` (a tab opened through the link) is left out."""
    shared = {spec.name: spec for spec in SHARED_PARAMS}
    keyed = _keyed_widgets(at)
    tabs = {key for key, _ in tab_sets(at)}
    found: dict[str, Param] = {}
    for key in at.query_params:
        if key in (opened or {}):
            continue
        if key in shared:
            spec = shared[key]
            found[key] = Param(key, "shared", "", float(spec.lo), float(spec.hi), spec.integer)
        else:
            found[key] = Param(key, "page", "tabs" if key in tabs else keyed.get(key, ""))
    for key, node in bound_widgets(at).items():
        found[key] = _param_from_widget(key, node)
    found.update({key: Param(key, "page", "tabs") for key in tabs if key not in (opened or {})})
    return tuple(found.values())


# --- the oracle --------------------------------------------------------------------------------

NOTICE_TYPES = ("warning", "error", "info", "toast")
CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)
UNSAFE_IN_SPAN = set("`$:<>[]()!|*~{}&")  # none of these may come from the input, even inside a code span (a backslash there is literal)
PLAIN_TYPES = {"text", "code", "json", "arrow_data_frame", "dataframe", "exception"}  # shown as text, never parsed
ESCAPED = re.compile(r"\\[!-/:-@\[-`{-~]")  # a backslash-escaped ASCII punctuation character: CommonMark shows it as itself
PLAIN_FIELDS = {
    "selectbox": {"options", "default", "value", "raw_value", "placeholder"},  # a selectbox shows its options as text
    "text_input": {"value", "default", "placeholder"},
    "text_area": {"value", "default", "placeholder"},
}
URL_ONLY = {"pee_history"}  # components whose data is the page's URL, which the script gives history.replaceState and never shows
ALLOWED_TAGS = re.compile(r"</?(br|sup|sub|b|i|em)>")  # what the app's own figure titles use


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
        if kind == "bidi_component" and proto.component_name in URL_ONLY:
            continue
        if kind == "table":  # st.table reads every cell and header as Markdown (ui.display.static_table escapes them)
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
            if path.rsplit(".", 1)[-1] not in PLAIN_FIELDS.get(kind, ()):
                problems += [f"{kind}{path}: {problem}" for problem in text_problems(text)]
    return problems


def text_problems(text: str) -> list[str]:
    """What input (text carrying MARK) forms in a string that Streamlit renders as Markdown: any of
    it outside an inert code span, or a metacharacter of it inside one."""
    if MARK not in text.lower():
        return []
    problems = []
    if MARK in CODE_SPAN.sub("", text).lower():
        problems.append(f"input outside a code span: {text[:160]!r}")
    for _, span in CODE_SPAN.findall(text):
        if MARK in span.lower() and UNSAFE_IN_SPAN & set(span):
            problems.append(f"metacharacter in a code span of input: {span[:160]!r}")
    return problems


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


def link_problems(at: AppTest, params: tuple[Param, ...], given: dict[str, str], *, edges: bool = False) -> list[str]:
    """Everything wrong with what the app made of a link that gave `params` the values `given`: an
    exception; input that formed Markdown; a value out of what its control offers; a value replaced
    without a notice naming its parameter; with `edges`, a valid value on the edge of a range refused."""
    if at.exception:
        return [f"exception: {e.value}" for e in at.exception]
    problems = markdown_problems(at)
    texts = notices(at)
    for param in params:
        if param.name not in given:
            continue
        raw = given[param.name]
        problems += value_problems(at, param)
        if edges and param.numeric and not accepted(at, param, raw):
            problems.append(f"{param.name}={raw!r} is on the edge of {param.lo:g} .. {param.hi:g}, and was refused")
        elif not accepted(at, param, raw) and not any(param.name in text for text in texts):
            problems.append(f"{param.name}={raw[:30]!r} was replaced without a notice naming it")
    return problems


def query_groups(params: tuple[Param, ...], value: str) -> Iterator[tuple[Param, ...]]:
    """The parameters in groups whose query string, every one of them holding `value`, stays under QUERY_LIMIT."""
    per_run = max(1, QUERY_LIMIT // (3 * len(value) + 40))  # percent-encoded, a character can take 3
    for first in range(0, len(params), per_run):
        yield params[first : first + per_run]

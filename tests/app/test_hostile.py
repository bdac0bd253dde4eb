"""Hostile widget states: what one crafted session can send through Streamlit's own wire must not
raise, put markup on the page, run for long, or leave another page in a state it cannot draw.
(Hostile and bad links: tests/ui/test_link_battery.py tries every value on every kind of
link-checked control, tests/app/test_bad_input.py every class of them on every page.)

Nothing is listed by hand: the pages come from the app's navigation, the widgets from each page's
own element tree.

- `test_hostile_widget_states`: every widget of a page sent a value it cannot take, of each wire
  type the browser uses (NaN and infinity for numbers, huge ints, markup and 100 KB strings,
  unknown labels, arrays, a pressed button), one after the other in one session, each followed by
  a plain rerun: the session must carry on.
- `test_state_left_by_one_page_fits_the_next`: every widget of a page set to its extreme valid
  value, then every other page opened in the same session: its widgets hold values they offer.

The checks: no exception; no link, image, HTML, LaTeX, icon or directive formed from the input
(tests/links.py `markdown_problems`); and the script's time under SCRIPT_BOUND_S.
"""

from __future__ import annotations

import math
import time

import pytest
from streamlit.proto.WidgetStates_pb2 import WidgetStates
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import Widget

from tests.app.test_bad_input import BY_NAME, PAGES, open_page
from tests.links import INJECTIONS, SCRIPT_BOUND_S, markdown_problems, walk
from ui.path import STEPS


def timed_run(run) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


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


@pytest.mark.parametrize("page", [p.name for p in PAGES])
def test_hostile_widget_states(page):
    """Each wire value in turn, to every widget on screen, in one session: each hostile run, and the
    plain rerun after it, clean and on time."""
    at = open_page(BY_NAME[page])
    assert not at.exception
    if not page_widgets(at):  # a page of text and links alone (it shows no shared setting either): nothing to send a state to
        assert not next(step.uses for step in STEPS if (step.url_path or "problem") == page), f"{page} has no widget"
        return
    for wire, (field, value) in WIRE.items():
        states = hostile_states(at, field, value)
        seconds = timed_run(lambda: at._run(widget_state=states))  # noqa: SLF001
        assert not at.exception, (wire, [e.value for e in at.exception])
        assert not markdown_problems(at), wire
        assert seconds < SCRIPT_BOUND_S, f"{page} took {seconds:.1f} s for {wire}"
        at.run()  # the session carries on: a plain rerun after it is clean too
        assert not at.exception, (wire, [e.value for e in at.exception])


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
    """A case once found: /code?scheme=rope, then the RoPE page (its layout became None, an exception
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

"""Page controls bound to the URL, each described once: its key (also the URL parameter), label,
range or options, and default. The same description checks the link's value before the
widget exists (a bad one is dropped with a notice, see `ui.controls.check_url_value`) and draws
the widget, so a range is never typed twice and the notice always names the range drawn.

A control is a small frozen dataclass with `check()` (on every run: the URL's value, cheap) and
`draw(where)` (checks, then draws in `where`, a column or the page); `check_links(*controls)` checks
several first, so their notices stand above a row of columns or tabs.

`expected` is the notice's sentence about what the link should hold; it is formatted with the
control's own range: `{lo}`, `{hi}` for a number, `{options}` ("1, 2, 4 or 8"), `{first}`,
`{last}` for a choice, `{longest}` for a text. Format specs work: `{hi:,}` gives "20,000".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import streamlit as st

from ui.internals.session import widget_values_sent_by_browser
from ui.internals.url import drop_query_param, forget_initial_query_param
from ui.params import link_value

MAX_LISTED = 2  # a list in a link (schemes=a,b,...) is read up to this many names per option, distinct or not


# --- a page control's value in the link: checked before its widget exists, seeded, written back -------------


def follow_default(key: str, default, fits: Callable[[object], bool] = lambda value: True):
    """The value to create a page control with, when its default depends on the shared
    settings (a window over max_len, the dimensions drawn for d_model).

    While the user has not moved the control it follows its default, so a link with the same
    settings reopens the same view. Once moved, it keeps the user's value as long as that
    still `fits` the new settings (Streamlit rebuilds a widget whose range changed, so the
    value is handed over explicitly); otherwise it starts again from the default."""
    marker = f"_default_{key}"
    value = default
    if key in st.session_state and marker in st.session_state:
        current = st.session_state[key]
        try:
            fitting = bool(fits(current))
        except Exception:  # a value of another kind entirely (another page's, a crafted one): it does not fit
            fitting = False
        if current != st.session_state[marker] and fitting:
            value = current
        elif default != st.session_state[marker] or not fitting:
            del st.session_state[key]
    st.session_state[marker] = default
    return value


def _url_choice(key: str, options: list[str], default: str) -> str | None:
    """Seed a page's choice widget (keyed `key`) from the URL parameter of the same name, on
    the first run of the session: the URL carries the plain option name (`scheme=t2t`), not
    its display label. An unknown value gives a notice and the default. Call before creating
    the widget, and write the choice back to the URL after it. Returns the notice, if any.
    A browser reconnecting to a restarted server already shows the choice, perhaps just
    changed (`ui.internals.session.widget_values_sent_by_browser`): the widget then takes the
    browser's value, not the URL's.
    A value another page left under the same key (its options differ: `/code?scheme=alibi`,
    then the attention page) is not one of `options`: it is replaced, silently, by the link's
    value or the default, so a page never draws a choice it does not offer."""
    if key in st.session_state:
        current, raw = st.session_state[key], st.query_params.get(key)
        # set again even when it fits: a widget of another page under this key leaves its value but not its widget,
        # and a widget created without the value set through session state starts from its own default
        st.session_state[key] = current if is_one_of(current, options) else raw if is_one_of(raw, options) else default
        return None
    if key in widget_values_sent_by_browser():
        return None
    raw = st.query_params.get(key)
    st.session_state[key] = raw if is_one_of(raw, options) else default
    if raw is None or is_one_of(raw, options):
        return None
    return f"{link_value(key, raw)} in the link is not one of {', '.join(map(str, options))}; using {default}."


def is_one_of(value: object, options) -> bool:
    """`value` is one of `options`, of the same type (True is not 1, '1' is not 1)."""
    return any(type(value) is type(option) and value == option for option in options)


def keep_valid(key: str, fits: Callable[[object], bool]) -> None:
    """Drop this session's value under `key` unless it `fits` the control about to be drawn.

    Streamlit keeps a value set through st.session_state across pages, and two pages may use
    one key for different controls (`heads` is 1 to 16 on /code, 1 to 8 on /attention;
    `head_dim` any width on /code, a power of two on /rope). A page calls this for every value
    it reads from session state before it draws the widget, which then starts from its own
    default (or the link) instead of raising or showing a value it does not offer."""
    if key in st.session_state:
        try:
            ok = bool(fits(st.session_state[key]))
        except Exception:  # a value of another type entirely: it does not fit
            ok = False
        if not ok:
            del st.session_state[key]


CHECKED_KEY = "_url_checked"  # the link values this session has checked, one set: Streamlit copies every key of Session State at every rerun


def first_check(marker: str) -> bool:
    """Whether a link value (named by `marker`) is checked for the first time this session; from now on it is checked."""
    checked = st.session_state.setdefault(CHECKED_KEY, set())
    if marker in checked:
        return False
    checked.add(marker)
    return True


def check_url_value(key: str, accepted: Callable[[str], bool], expected: str) -> None:
    """For a page control bound to the URL (bind="query-params"); call it before creating the
    widget. Streamlit drops a URL value its widget cannot take without a word, and some (an
    int input given -inf or 1e309) even raise. So a value that is not `accepted` is taken out of
    the URL before the widget sees it, and the page says what was wrong. On every run, not once:
    Streamlit seeds a bound widget from the URL again on a page switch and on the browser's Back
    and Forward, whose URL may hold any value (a crafted entry pushed into the history)."""
    raw = st.query_params.get(key)
    if raw is None or accepted(raw):
        return
    drop_query_param(key)
    st.warning(link_notice(key, raw, expected), icon=":material/link_off:")


def link_notice(key: str, raw: str, expected: str) -> str:
    """The notice for a link value a page control cannot take: what it was (as inert text,
    `ui.params.link_value`), what it should be."""
    return f"{link_value(key, raw)} in the link is not valid: {expected}. Using the default."


def number_in(lo: float, hi: float, *, whole: bool = False) -> Callable[[str], bool]:
    """A URL value test: a finite number from lo to hi; with `whole`, a whole one ('12', '12.0'; not '1e309', 'abc')."""

    def accepted(raw: str) -> bool:
        try:
            value = float(raw)
        except ValueError:
            return False
        return math.isfinite(value) and (value.is_integer() or not whole) and lo <= value <= hi

    return accepted


def plain_whole_in(lo: int, hi: int) -> Callable[[str], bool]:
    """A URL value test: a plain run of digits from lo to hi ('12'; not '12.0', '-1', '1e3'). A run longer
    than hi's digits is out of range without reading it (int() refuses 4,300 digits)."""
    return lambda raw: raw.isascii() and raw.isdigit() and len(raw.lstrip("0")) <= len(str(hi)) and lo <= int(raw) <= hi


def is_flag(raw: str) -> bool:
    """A URL value test for a toggle: true or false (any case), as Streamlit writes them."""
    return raw.lower() in ("true", "false")


def one_of(options) -> Callable[[str], bool]:
    """A URL value test: one of the options, as text."""
    names = {str(option) for option in options}
    return lambda raw: raw in names


def _url_choices(key: str, options: list[str], default: list[str]) -> str | None:
    """`_url_choice` for a multiselect: the URL carries plain option names separated by commas
    (`schemes=rope,alibi`). Unknown names are dropped with a notice. Call before creating the
    widget, and write the names back, comma-separated. Returns the notice, if any. As in
    `_url_choice`, a reconnecting browser's own value stands, and a value another page left
    under the key is kept only as far as its names are among `options`.
    A name given twice counts once, and a link naming more names than there are options is
    read only up to that many distinct ones: its cost does not grow with the link."""
    if key in st.session_state:
        current = st.session_state[key]
        if isinstance(current, list) and all(is_one_of(name, options) for name in current) and len(set(current)) == len(current):
            st.session_state[key] = current  # set again, as in _url_choice
            return None
        known = list(dict.fromkeys(n for n in current if is_one_of(n, options))) if isinstance(current, (list, tuple)) else []
        st.session_state[key] = known or list(default)
        return None
    if key in widget_values_sent_by_browser():
        return None
    raw = st.query_params.get(key)
    if raw is None:
        st.session_state[key] = list(default)
        return None
    names: list[str] = []
    unknown: list[str] = []
    for name in raw.split(",", MAX_LISTED * len(options)):  # at most that many pieces are ever looked at
        if name and name not in names and name not in unknown:
            (names if is_one_of(name, options) else unknown).append(name)
    known = names
    st.session_state[key] = known if known or not (names or unknown) else list(default)
    if not unknown:
        return None
    named = ", ".join(link_value("", n) for n in unknown[:3]) + (f" and {len(unknown) - 3:,} more" if len(unknown) > 3 else "")
    verb, outcome = "is" if len(unknown) == 1 else "are", "left out" if known else "showing the default"
    return f"`{key}` in the link names {named}, which {verb} not among {', '.join(options)}; {outcome}."


# --- controls described once: checked from the link, drawn bound to it -------------------------------------

BOUND = "query-params"  # Streamlit keeps the widget and the URL parameter of its key in step
LINK_ICON = ":material/link_off:"


class Control(Protocol):
    def check(self) -> None: ...


def check_links(*controls: Control) -> None:
    """Check every control's URL value now, before any of them is drawn (notices first)."""
    for control in controls:
        control.check()


def _labels(labels: Mapping[Any, str] | Callable[[Any], str] | None) -> Callable[[Any], str] | None:
    """A format_func from a mapping of option -> label, or the function itself."""
    return labels.get if isinstance(labels, Mapping) else labels


def _warn(notice: str | None) -> None:
    if notice:
        st.warning(notice, icon=LINK_ICON)


@dataclass(frozen=True)
class Number:
    """A number from lo to hi (whole when lo, hi and default are ints) in a number_input, or a
    slider (`slider=True`), bound to the URL parameter `key`. With `follow=True` the default
    depends on other settings: the control follows it until the user moves it
    (`ui.controls.follow_default`), keeping a moved value while it stays within lo..hi.

    With `linked=True` (a whole number whose range depends on the data shown: a component, a
    dimension) Streamlit does not bind it: the link gives it plain digits, read whenever the
    widget is created (the first run, or its tab opened again: a widget not drawn in a run loses
    its state), and every run writes its value back to the URL; the default is followed while the
    user has not moved it, and `slider=True` draws a select_slider over lo..hi."""

    key: str
    label: str
    lo: int | float
    hi: int | float
    default: int | float
    expected: str = "a whole number from {lo} to {hi}"
    help: str | None = None
    step: int | float | None = None
    format: str | None = None
    slider: bool = False
    follow: bool = False
    linked: bool = False

    @property
    def whole(self) -> bool:
        return all(isinstance(v, int) and not isinstance(v, bool) for v in (self.lo, self.hi, self.default))

    def fits(self, value: object) -> bool:
        """A value this control can show: a finite number from lo to hi (whole for a whole-number control)."""
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or not self.lo <= value <= self.hi:
            return False
        return float(value).is_integer() if self.whole else True

    def check(self) -> None:
        keep_valid(self.key, self.fits)  # every run: a value another page left under this key
        accepted = plain_whole_in(self.lo, self.hi) if self.linked else number_in(self.lo, self.hi, whole=self.whole)
        check_url_value(self.key, accepted, self.expected.format(lo=self.lo, hi=self.hi))

    def draw(self, where: Any = st, *, default: int | float | None = None, disabled: bool = False) -> int | float:
        """Draw it in `where`; `default` replaces the described one when it depends on controls
        drawn above it. Returns an int for a whole-number control, else a float."""
        self.check()
        start = self.default if default is None else default
        if self.linked:
            raw = None if self.key in st.session_state else st.query_params.get(self.key)
            start = int(raw) if raw is not None and plain_whole_in(self.lo, self.hi)(raw) else follow_default(self.key, start, self.fits)
            if self.slider:
                value = where.select_slider(self.label, options=list(range(self.lo, self.hi + 1)), value=start, key=self.key, help=self.help)
            else:
                value = where.number_input(self.label, self.lo, self.hi, start, key=self.key, help=self.help)
            st.query_params[self.key] = str(value)  # so the address bar links to it
            return int(value)
        if self.follow:
            start = follow_default(self.key, start, lambda v: self.lo <= v <= self.hi)
        if self.slider:
            value = where.slider(self.label, self.lo, self.hi, start, self.step, key=self.key, bind=BOUND, help=self.help, disabled=disabled)
        else:
            value = where.number_input(
                self.label, self.lo, self.hi, start, step=self.step, format=self.format, key=self.key, bind=BOUND, help=self.help, disabled=disabled
            )
        return int(value) if self.whole else float(value)


def _listed(options: Sequence[Any]) -> str:
    """'1, 2, 4 or 8'."""
    names = [str(o) for o in options]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


@dataclass(frozen=True)
class Choice:
    """One of `options` in a selectbox, select_slider or segmented_control (`widget`).

    Without `labels` the options are shown as themselves and Streamlit binds the widget to
    the URL; a value not among them is dropped with a notice built from `expected`. With
    `labels` (option -> text shown, a mapping or a function) Streamlit's binding would put the
    label in the URL, so the URL carries the plain option name instead (`_url_choice`,
    written back after the widget: `layout=concat`) and an unknown name gets its notice."""

    key: str
    label: str
    options: Sequence[Any]
    default: Any
    expected: str = "the value is {options}"
    labels: Mapping[Any, str] | Callable[[Any], str] | None = None
    widget: str = "selectbox"
    help: str | None = None

    def check(self) -> None:
        if self.labels is None:
            keep_valid(self.key, lambda value: is_one_of(value, self.options))
            words = dict(options=_listed(self.options), first=self.options[0], last=self.options[-1])
            check_url_value(self.key, one_of(self.options), self.expected.format(**words))
        else:
            _warn(_url_choice(self.key, list(self.options), self.default))

    def draw(self, where: Any = st, *, disabled: bool = False) -> Any:
        self.check()
        draw = getattr(where, self.widget)
        # options that do not fit wrap onto another row (Streamlit's default in a column scrolls them, cutting the last at its edge)
        wrap = dict(wrap=True) if self.widget == "segmented_control" else {}
        if self.labels is not None:  # the session state holds the value (seeded by _url_choice)
            kwargs = dict(required=True) | wrap if self.widget == "segmented_control" else {}
            value = draw(self.label, self.options, format_func=_labels(self.labels), key=self.key, help=self.help, disabled=disabled, **kwargs)
            st.query_params[self.key] = str(value)
            return value
        if self.widget == "selectbox":
            start = dict(index=list(self.options).index(self.default))
        elif self.widget == "segmented_control":
            start = dict(default=self.default, required=True) | wrap
        else:
            start = dict(value=self.default)
        return draw(self.label, self.options, key=self.key, bind=BOUND, help=self.help, disabled=disabled, **start)


@dataclass(frozen=True)
class Choices:
    """Any of `options` in a multiselect; the URL carries plain option names separated by
    commas (`schemes=rope,alibi`), unknown ones are left out with a notice."""

    key: str
    label: str
    options: Sequence[str]
    default: Sequence[str]
    labels: Mapping[str, str] | Callable[[str], str] | None = None
    help: str | None = None

    def check(self) -> None:
        _warn(_url_choices(self.key, list(self.options), list(self.default)))

    def draw(self, where: Any = st) -> list[str]:
        self.check()
        # every chip shown: those that do not fit wrap onto another row (in a column Streamlit's default scrolls them out of sight)
        value = where.multiselect(self.label, list(self.options), format_func=_labels(self.labels) or str, key=self.key, help=self.help, wrap=True)
        st.query_params[self.key] = ",".join(value)
        return value


@dataclass(frozen=True)
class Toggle:
    """An on/off switch bound to the URL (`true` / `false`)."""

    key: str
    label: str
    default: bool
    help: str | None = None

    def check(self) -> None:
        keep_valid(self.key, lambda value: isinstance(value, bool))
        check_url_value(self.key, is_flag, "a switch is true or false")

    def draw(self, where: Any = st) -> bool:
        self.check()
        return where.toggle(self.label, value=self.default, key=self.key, bind=BOUND, help=self.help)


@dataclass(frozen=True)
class Text:
    """A line of text bound to the URL, at most `longest` characters from a link (and, with
    `cap_typing`, as typed)."""

    key: str
    label: str
    default: str
    longest: int
    expected: str
    help: str | None = None
    cap_typing: bool = True
    follow: bool = False

    def check(self) -> None:
        keep_valid(self.key, lambda value: isinstance(value, str) and (len(value) <= self.longest or not self.cap_typing))
        check_url_value(self.key, self._takes, self.expected.format(longest=self.longest))

    def _takes(self, raw: str) -> bool:
        """A link's text within `longest`, or (uncapped) the one the box holds: typed past it, and written to the URL by the box."""
        return len(raw) <= self.longest or not self.cap_typing and st.session_state.get(self.key) == raw

    def draw(self, where: Any = st, *, default: str | None = None, disabled: bool = False) -> str:
        """Draw it in `where`; `default` replaces the described one when it depends on controls above."""
        self.check()
        start = self.default if default is None else default
        if self.follow:
            start = follow_default(self.key, start)
        cap = dict(max_chars=self.longest) if self.cap_typing else {}
        return where.text_input(self.label, start, key=self.key, bind=BOUND, help=self.help, disabled=disabled, **cap)


@dataclass(frozen=True)
class Window:
    """A window of consecutive indices [start, stop) within 0 .. size - 1 (positions, dimensions), drawn
    as a two-thumb slider bound to the URL, which carries its first and last index
    (`?sin_window=100&sin_window=199`). The whole range by default, or the first `span`; the
    default follows the size until the user moves the window, or a box dragged over a heatmap
    sets it (`zoom_to`, ui/heatmap.py). A link whose window is not two whole numbers in range,
    first no later than last, gets a notice and the default."""

    key: str
    label: str = "Positions shown"
    span: int | None = None
    help: str | None = None
    noun: str = "position"

    def default(self, size: int) -> tuple[int, int]:
        return 0, size - 1 if self.span is None else min(size, self.span) - 1

    def fits(self, size: int) -> Callable[[object], bool]:
        """Whether a value is a window this control can show at this size: (first, last), whole, in range, in order."""

        def fitting(value: object) -> bool:
            whole = isinstance(value, (tuple, list)) and len(value) == 2 and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
            return whole and 0 <= value[0] <= value[1] <= size - 1

        return fitting

    def check(self, size: int) -> None:
        """The link's window checked on every run, as `check_url_value` says why."""
        keep_valid(self.key, self.fits(size))
        raw = st.query_params.get_all(self.key)
        whole = number_in(0, size - 1, whole=True)
        if not raw or len(raw) == 2 and all(whole(v) for v in raw) and float(raw[0]) <= float(raw[1]):
            return
        drop_query_param(self.key)
        expected = f"a window is two {self.noun}s from 0 to {size - 1:,}, the first no later than the last"
        st.warning(link_notice(self.key, " & ".join(raw)[:200], expected), icon=LINK_ICON)

    def draw(self, size: int, where: Any = st) -> tuple[int, int]:
        """Draw it in `where` (nothing to choose below two indices). Returns (start, stop)."""
        if size < 2:
            return 0, size
        self.check(size)
        value = follow_default(self.key, self.default(size), self.fits(size))
        if st.session_state.pop(self._zoomed, False):
            # set by zoom_to, and in session state: the slider is given its default, since Streamlit writes a
            # bound widget's value to the URL only when it differs from the value the widget is created with
            value = self.default(size)
        help = self.help or f"Narrow the window to see every {self.noun}, with exact values on hover."
        first, last = where.slider(self.label, 0, size - 1, value, key=self.key, bind=BOUND, help=help)
        return int(first), int(last) + 1

    def zoom_to(self, first: int, last: int, size: int) -> None:
        """Set the window (from a callback, before the slider is drawn): first .. last within range,
        at least two indices wide where the range has them."""
        first, last = max(0, min(int(first), size - 1)), max(0, min(int(last), size - 1))
        first, last = min(first, last), max(first, last)
        if last == first:
            first, last = (first, first + 1) if first + 1 < size else (max(0, first - 1), first)
        st.session_state[self.key] = (first, last)
        st.session_state[self._zoomed] = True
        forget_initial_query_param(self.key)

    @property
    def _zoomed(self) -> str:
        return f"_zoomed_{self.key}"

    def reset(self, size: int) -> None:
        """Back to the default window."""
        st.session_state[self.key] = self.default(size)
        forget_initial_query_param(self.key)


def number(where: Any, label: str, key: str, lo: int | float, hi: int | float, default: int | float, **options: Any) -> int | float:
    """Describe and draw a `Number` in one call (`options`: its other fields, and draw's `disabled`)."""
    disabled = options.pop("disabled", False)
    return Number(key, label, lo, hi, default, **options).draw(where, disabled=disabled)


def choice(where: Any, label: str, key: str, options: Sequence[Any], default: Any, **fields: Any) -> Any:
    """Describe and draw a `Choice` in one call."""
    disabled = fields.pop("disabled", False)
    return Choice(key, label, options, default, **fields).draw(where, disabled=disabled)


def choices(where: Any, label: str, key: str, options: Sequence[str], default: Sequence[str], **fields: Any) -> list[str]:
    """Describe and draw a `Choices` in one call."""
    return Choices(key, label, options, default, **fields).draw(where)


def toggle(where: Any, label: str, key: str, default: bool, *, help: str | None = None) -> bool:
    """Describe and draw a `Toggle` in one call."""
    return Toggle(key, label, default, help).draw(where)


def text(where: Any, label: str, key: str, default: str, longest: int, expected: str, **fields: Any) -> str:
    """Describe and draw a `Text` in one call."""
    disabled = fields.pop("disabled", False)
    return Text(key, label, default, longest, expected, **fields).draw(where, disabled=disabled)


def linked_number(where: Any, label: str, key: str, lo: int, hi: int, default: int, *, select_slider: bool = False, help: str | None = None) -> int:
    """Describe and draw a linked `Number` in one call."""
    return Number(key, label, lo, hi, default, help=help, slider=select_slider, linked=True).draw(where)

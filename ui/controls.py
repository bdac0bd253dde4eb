"""Page controls bound to the URL, each described once: its key (also the URL parameter), label,
range or options, and default. The same description checks the link's value before the
widget exists (a bad one is dropped with a notice, see `ui.shared.check_url_value`) and draws
the widget, so a range is never typed twice and the notice always names the range drawn.

A control is a small frozen dataclass with `check()` (once per session; a no-op after) and
`draw(where)` (checks, then draws in `where`, a column or the page, and returns the value).
`check_links(*controls)` checks several first, so their notices stand above a row of columns,
as a page's notices do; the functions `number`, `choice`, `choices`, `toggle` and `text`
describe and draw one control in a single call.

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

from ui.shared import (
    check_url_value,
    follow_default,
    is_flag,
    is_one_of,
    keep_valid,
    keep_choices_in_url,
    keep_in_url,
    link_notice,
    number_in,
    one_of,
    url_choice,
    url_choices,
    whole_in,
)

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
    (`ui.shared.follow_default`), keeping a moved value while it stays within lo..hi."""

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
        accepted = whole_in(self.lo, self.hi) if self.whole else number_in(self.lo, self.hi)
        check_url_value(self.key, accepted, self.expected.format(lo=self.lo, hi=self.hi))

    def draw(self, where: Any = st, *, default: int | float | None = None, disabled: bool = False) -> int | float:
        """Draw it in `where`; `default` replaces the described one when it depends on controls
        drawn above it. Returns an int for a whole-number control, else a float."""
        self.check()
        start = self.default if default is None else default
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
    label in the URL, so the URL carries the plain option name instead (`ui.shared.url_choice`,
    `keep_in_url`: `layout=concat`) and an unknown name gets url_choice's notice."""

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
            _warn(url_choice(self.key, list(self.options), self.default))

    def draw(self, where: Any = st, *, disabled: bool = False) -> Any:
        self.check()
        draw = getattr(where, self.widget)
        if self.labels is not None:  # the session state holds the value (seeded by url_choice)
            kwargs = dict(required=True) if self.widget == "segmented_control" else {}
            value = draw(self.label, self.options, format_func=_labels(self.labels), key=self.key, help=self.help, disabled=disabled, **kwargs)
            keep_in_url(self.key)
            return value
        if self.widget == "selectbox":
            start = dict(index=list(self.options).index(self.default))
        elif self.widget == "segmented_control":
            start = dict(default=self.default, required=True)
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
        _warn(url_choices(self.key, list(self.options), list(self.default)))

    def draw(self, where: Any = st) -> list[str]:
        self.check()
        value = where.multiselect(self.label, list(self.options), format_func=_labels(self.labels) or str, key=self.key, help=self.help)
        keep_choices_in_url(self.key)
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
        check_url_value(self.key, lambda raw: len(raw) <= self.longest, self.expected.format(longest=self.longest))

    def draw(self, where: Any = st, *, default: str | None = None, disabled: bool = False) -> str:
        """Draw it in `where`; `default` replaces the described one when it depends on controls above."""
        self.check()
        start = self.default if default is None else default
        if self.follow:
            start = follow_default(self.key, start)
        cap = dict(max_chars=self.longest) if self.cap_typing else {}
        return where.text_input(self.label, start, key=self.key, bind=BOUND, help=self.help, disabled=disabled, **cap)


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


def _whole_from_link(raw: str, lo: int, hi: int) -> int | None:
    """A plain run of digits from lo to hi ('12'; not '12.0', '-1', '1e3'), else None. A run
    longer than hi's digits is out of range without reading it (int() refuses 4,300 digits)."""
    if raw.isascii() and raw.isdigit() and len(raw.lstrip("0")) <= len(str(hi)) and lo <= int(raw) <= hi:
        return int(raw)
    return None


def check_linked(key: str, lo: int, hi: int) -> None:
    """A `linked_number`'s link value checked once per session, wherever the page calls this:
    above its tabs, a bad `?dim=` gets its notice whichever tab is open (the control then starts
    at its default when its tab opens)."""
    marker = f"_link_checked_{key}"
    if marker in st.session_state:
        return
    st.session_state[marker] = True
    raw = st.query_params.get(key)
    if raw is not None and _whole_from_link(raw, lo, hi) is None:
        st.warning(link_notice(key, raw, f"a whole number from {lo} to {hi}"), icon=LINK_ICON)


def linked_number(where: Any, label: str, key: str, lo: int, hi: int, default: int, *, select_slider: bool = False, help: str | None = None) -> int:
    """A whole number from lo to hi whose range depends on the data shown (a component, a
    dimension), so Streamlit does not bind it: the value is written to the URL on every run
    (`keep_in_url`) and read back from it whenever the widget is created (the first run, or its
    tab opened again: a widget not drawn in a run loses its state), so it survives a tab switch;
    an `int` widget bound to `-inf` or `1e309` would raise. The default is followed while the
    user has not moved it. A bad link value gives a notice (`check_linked`) and the default.
    Drawn as a number_input, or a select_slider over lo..hi."""
    keep_valid(key, lambda v: isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi)
    linked = None
    if key not in st.session_state:
        raw = st.query_params.get(key)
        linked = _whole_from_link(raw, lo, hi) if raw is not None else None
    check_linked(key, lo, hi)
    start = follow_default(key, default, lambda v: lo <= v <= hi)
    start = start if linked is None else linked
    if select_slider:
        value = where.select_slider(label, options=list(range(lo, hi + 1)), value=start, key=key, help=help)
    else:
        value = where.number_input(label, lo, hi, start, key=key, help=help)
    keep_in_url(key)
    return int(value)

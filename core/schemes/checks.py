"""Input checks shared by the scheme modules. Each raises ValueError with a sentence a user
understands (pages show it as it is), never a bare TypeError from deep inside numpy."""

from __future__ import annotations

import math

import numpy as np


def is_finite_number(value: object) -> bool:
    """A real, finite int or float (numpy scalars included); bools and strings are not numbers
    here. Python ints are finite however large (numpy cannot even take 10**400)."""
    if isinstance(value, (bool, np.bool_)):
        return False
    if isinstance(value, (int, np.integer)):
        return True
    return isinstance(value, (float, np.floating)) and math.isfinite(value)


# Characters a user's text keeps when it is echoed in a sentence that Streamlit renders as
# Markdown: letters and digits of any script, and these (inside a code span; outside one, fewer:
# `.` would let www.example.com become a link, `@` a mail link, `_` and `*` emphasis). Every other
# character (backticks, $ of LaTeX, : of :material/...: icons and :red[...] directives, [ ] ( ) !
# of links and images, < > & of HTML, \\, |, ~, { }, control and format characters) is written
# as a \\xNN / \\uNNNN escape, as Python's repr does, so no Markdown, LaTeX, link, image,
# icon or directive can form from it.
_KEPT_IN_CODE = frozenset(" _.,-+=/'\"%@?^#;")
_KEPT = frozenset(" ,-+='\"")


def inert(text: str, *, in_code: bool = False) -> str:
    """`text` with every character that could start Markdown, LaTeX, a Streamlit directive, a
    link or HTML written as an escape (a backtick as \\x60), for a code span (`in_code`) or
    for running text."""
    kept = _KEPT_IN_CODE if in_code else _KEPT
    out = []
    for ch in text:
        if (ch.isalnum() and ch.isprintable()) or ch in kept:
            out.append(ch)
        else:
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
    return "".join(out)


def quoted(text: object, limit: int = 40) -> str:
    """A user's text (a link value, a file or tensor name, what was typed) for a sentence that is
    rendered as Markdown: at most `limit` characters of it ("…" after a cut), made inert
    (`inert`) in a code span. The one way this app echoes what a visitor linked, typed or
    uploaded (ui.display re-exports it)."""
    raw = str(text)
    return f"`{inert(raw[:limit], in_code=True)}{'…' if len(raw) > limit else ''}`"


def shown(value: object, limit: int = 40) -> str:
    """repr(value), cut to `limit` characters for a message. A number is shown as it is;
    anything else (a string a user typed) is made inert for Markdown (`inert`)."""
    number = isinstance(value, (int, float, np.integer, np.floating))
    text = repr(value[: limit + 1]) if isinstance(value, str) else repr(value)
    text, cut = (text, "") if len(text) <= limit else (text[: limit - 3], "...")
    return (text if number else inert(text)) + cut


def whole_number(value: object, name: str, minimum: int, maximum: int | None = None) -> int:
    """`value` as an int, if it is a whole number (3 or 3.0) of at least `minimum` (and at most
    `maximum`, when given). The one whole-number check of the app: scheme settings, widths,
    lengths and the lab's configuration all ask it, so a refusal reads the same everywhere."""
    if maximum is None:
        if not is_finite_number(value) or int(value) != value or value < minimum:
            raise ValueError(f"{name} must be a whole number of at least {minimum}, got {shown(value)}.")
        return int(value)
    if not is_finite_number(value) or int(value) != value:
        raise ValueError(f"{name} must be a whole number between {minimum:,} and {maximum:,}, got {shown(value)}.")
    if not minimum <= value <= maximum:
        raise ValueError(f"{name} must be between {minimum:,} and {maximum:,}, got {shown(int(value))}.")
    return int(value)

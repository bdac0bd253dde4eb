"""Figures built once per process for the same inputs, and shared by every session.

A room follows the same links, so most redraws ask for a figure another visitor's rerun has just
built from the same arrays. `shared` keeps a builder's result under a digest of everything it
was given (arrays by dtype, shape and bytes; lists, tuples, dicts, sets and dataclasses item by
item; numbers, strings and enums by type and repr), so equal inputs give the same object back and
inputs that differ in any of these build anew: the cache cannot serve a figure of other settings,
whatever the page forgets to say. (Dicts are read in sorted key order: a builder must not draw
differently by a dict's order alone; none does.) A call with an argument of any other kind (an object whose repr could hide its
contents) is built every time.

Results are shared: nothing may change a figure after it is built. A caller that styles a figure
after building it builds its own with `builder.fresh(...)`; `Store.changed` finds a stored result
that was changed after all (tests/conftest.py turns `watch` on and asks it after every test, the page
runs included).
All builders share one least-recently-used store of at most BUDGET_BYTES, measured at storing
(arrays' bytes, strings' lengths, FIGURE_OBJECTS a figure) and counting what `Store.derived` made
from a result (a heatmap's JSON) with it; docs/deploy.md has the RSS measured.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable

import numpy as np
import plotly.graph_objects as go

from core.viz import plotly_internals as private

BUDGET_BYTES = 32 * 2**20  # every shared figure of the process together (a view of a page holds well under 1 MB of them)
LARGEST_SHARE = 8  # one result above BUDGET_BYTES / LARGEST_SHARE is not kept
FIGURE_OBJECTS = 8_000  # bytes of plotly objects around a figure's own data (tracemalloc: 21 kB for a 2-line chart whose data are 13.6 kB)
SCALAR = 64  # bytes counted for a number or any other small object
# plotly.graph_objects resolves every attribute through a module __getattr__ (a lazy import), some microseconds
# each time: `size` visits every number of a heatmap spec, so it names the class once
FIGURE = go.Figure
NUMBERS = frozenset({int, float, bool, np.float64})  # exact types: a subclass may be a dataclass or a figure, which `size` reads through


class Unkeyed(Exception):
    """An argument the digest cannot read in full."""


def _feed(h, value) -> None:
    if value is None or isinstance(value, (bool, int, float, str, bytes, complex, np.generic, enum.Enum)):
        h.update(f"{type(value).__name__}:{value!r};".encode())
    elif isinstance(value, np.ndarray):
        h.update(f"{value.dtype.descr}{value.shape}".encode())  # descr: a structured dtype's fields too
        if value.dtype == object:
            _feed(h, value.ravel().tolist())
        else:
            h.update(np.ascontiguousarray(value).tobytes())
    elif isinstance(value, (list, tuple)):
        h.update(f"{type(value).__qualname__}[".encode())  # a named tuple is not a plain one
        for item in value:
            _feed(h, item)
        h.update(b"]")
    elif isinstance(value, dict):
        h.update(b"{")
        for key in sorted(value, key=repr):
            _feed(h, key)
            _feed(h, value[key])
        h.update(b"}")
    elif isinstance(value, (set, frozenset)):
        h.update(b"<")
        for item in sorted(value, key=repr):
            _feed(h, item)
        h.update(b">")
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        h.update(f"@{type(value).__module__}.{type(value).__qualname__}(".encode())
        for field in dataclasses.fields(value):
            h.update(field.name.encode())
            _feed(h, getattr(value, field.name))
        h.update(b")")
    else:
        raise Unkeyed(type(value).__name__)


def digest(*parts) -> bytes:
    """A SHA-256 digest of nested values (2.7 times as fast as BLAKE2b over an array here: the CPU has
    SHA instructions); raises Unkeyed for a kind it cannot read in full."""
    h = hashlib.sha256()
    _feed(h, parts)
    return h.digest()


def size(value) -> int:
    """Roughly the bytes a result holds: its arrays and strings, through dicts, lists and a figure's traces and layout."""
    if value is None or type(value) in NUMBERS:  # first: most of what it visits are the numbers in a spec's lists
        return SCALAR
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, (str, bytes)):
        return len(value)
    if isinstance(value, dict):
        return sum(size(v) for v in value.values()) + 64 * len(value)
    if isinstance(value, (list, tuple)):
        return sum(size(v) for v in value) + 8 * len(value)
    if isinstance(value, FIGURE):
        return FIGURE_OBJECTS + size(_parts(value))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return sum(size(getattr(value, f.name)) for f in dataclasses.fields(value))
    return SCALAR


def _parts(fig: go.Figure) -> tuple[list, dict]:
    """A figure's traces' and layout's validated properties, read in place."""
    return private.trace_dicts(fig), private.layout_dict(fig)


def contents(value) -> bytes | None:
    """A digest of what a result holds (a figure: its traces' and layout's properties), None when it cannot be read in full."""
    if isinstance(value, FIGURE):
        value = _parts(value)
    try:
        return digest(value)
    except Unkeyed:
        return None


class Store:
    """A thread-safe LRU of results by key, and of bytes made from them (`derived`), at most `budget` bytes in all."""

    def __init__(self, budget: int, watch: bool = False) -> None:
        self.budget, self.used = budget, 0
        self.watch = watch  # record each result's contents for `changed` (the tests do; a server need not)
        self.items: OrderedDict[bytes, tuple[object, int, bytes | None]] = OrderedDict()  # key -> (result, size, its contents' digest)
        self.ids: dict[int, bytes] = {}  # id of a held result -> its key
        self.made: dict[bytes, bytes] = {}  # key -> what `derived` made from that result, dropped with it
        self.lock = threading.Lock()
        self.hits = self.misses = 0

    def get(self, key: bytes):
        with self.lock:
            found = self.items.get(key)
            if found is None:
                self.misses += 1
                return None
            self.items.move_to_end(key)
            self.hits += 1
            return found

    def put(self, key: bytes, value: object) -> None:
        n = size(value)
        if n > self.budget // LARGEST_SHARE:
            return
        seen = contents(value) if self.watch else None
        with self.lock:
            self._drop(key)
            self.items[key] = (value, n, seen)
            self.ids[id(value)] = key
            self.used += n
            self._trim()

    def _drop(self, key: bytes) -> None:
        """Forget the result under `key` and what was made from it (the lock held)."""
        old = self.items.pop(key, None)
        if old is not None:
            self.used -= old[1]
            if self.ids.get(id(old[0])) == key:
                del self.ids[id(old[0])]
        made = self.made.pop(key, None)
        if made is not None:
            self.used -= len(made)

    def _trim(self) -> None:
        """Drop the least recently used results until the store is within its budget (the lock held)."""
        while self.used > self.budget and self.items:
            self._drop(next(iter(self.items)))

    def derived(self, value: object, make: Callable[[object], bytes]) -> bytes:
        """`make(value)`, made once and kept with `value` while `value` is a result held here (a shared
        result never changes, so neither does what is made from it), counted in the budget and dropped
        with it; made afresh each time for any other value."""
        with self.lock:
            key = self.ids.get(id(value))
            if key is not None and key in self.made:
                return self.made[key]
        made = make(value)
        with self.lock:
            key = self.ids.get(id(value))
            if key is not None and key not in self.made and len(made) <= self.budget // LARGEST_SHARE:  # `value` is alive: its id names it
                self.made[key] = made
                self.used += len(made)
                self._trim()
        return made

    def changed(self) -> list[object]:
        """The stored results whose contents differ from what they were when stored (a caller changed a shared
        figure), among those stored while `watch` was on."""
        with self.lock:
            held = list(self.items.values())
        return [value for value, _, seen in held if seen is not None and contents(value) != seen]

    def clear(self) -> None:
        with self.lock:
            self.items.clear()
            self.ids.clear()
            self.made.clear()
            self.used = self.hits = self.misses = 0


STORE = Store(BUDGET_BYTES)


def shared(builder: Callable) -> Callable:
    """`builder`'s results kept in STORE under a digest of its name and arguments (see the module docstring)."""
    name = f"{builder.__module__}.{builder.__qualname__}"

    @functools.wraps(builder)
    def build(*args, **kwargs):
        try:
            key = digest(name, args, kwargs)
        except Unkeyed:
            return builder(*args, **kwargs)
        found = STORE.get(key)
        if found is not None:
            return found[0]
        value = builder(*args, **kwargs)
        STORE.put(key, value)
        return value

    build.fresh = builder  # type: ignore[attr-defined]  # a result of one's own, to change after building
    return build

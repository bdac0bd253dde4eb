"""Figures built once for the same inputs and shared (core.viz.memo): the digest tells apart every
input that could change a figure, a result is kept within the byte budget, and a change to a shared
figure is found."""

from __future__ import annotations

import collections
from dataclasses import dataclass

import numpy as np
import pytest

from core.viz import charts, memo
from core.viz.grid import strided


def test_equal_inputs_give_the_same_figure_and_any_difference_a_new_one():
    x = np.arange(5.0)
    first = charts.lines([("a", x, x**2)], title="t", x_title="x", y_title="y")
    assert charts.lines([("a", x.copy(), x**2)], title="t", x_title="x", y_title="y") is first
    for other in (
        charts.lines([("a", x, x**2 + 1e-12)], title="t", x_title="x", y_title="y"),  # one value, at the last bit that shows
        charts.lines([("a", x, (x**2).astype(np.float32))], title="t", x_title="x", y_title="y"),  # same values, another dtype
        charts.lines([("a", x, x**2)], title="t", x_title="x", y_title="y", markers=True),
        charts.lines([("b", x, x**2)], title="t", x_title="x", y_title="y"),
    ):
        assert other is not first
    assert memo.STORE.hits == 1 and memo.STORE.misses == 5


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (np.zeros((2, 3)), np.zeros((3, 2))),  # same bytes, another shape
        (np.zeros(3, dtype=np.int64), np.zeros(3, dtype=np.float64)),
        (1, 1.0),
        (True, 1),
        (0.0, -0.0),
        ("1", 1),
        ([1, 2], (1, 2)),
        ({"a": 1}, {"a": 1.0}),
        (strided(100, 10), strided(100, 20)),  # dataclasses, field by field
        (np.arange(10_000.0), np.arange(10_000.0) + np.r_[np.zeros(9_999), 1.0]),  # a long array whose repr would hide the change
        (np.array([None, None], dtype=object), np.array([[None, None]], dtype=object)),  # object arrays: their shape too
        (np.zeros(1, dtype=[("a", "<f8")]), np.zeros(1, dtype=[("b", "<f8")])),  # structured: the fields' names too
        (collections.namedtuple("P", "x y")(1, 2), (1, 2)),
    ],
)
def test_the_digest_tells_apart(a, b):
    assert memo.digest(a) != memo.digest(b)
    assert memo.digest(a) == memo.digest(a)


def test_an_argument_it_cannot_read_in_full_is_built_every_time():
    class Opaque:
        def __repr__(self) -> str:
            return "Opaque()"

    calls = []

    @memo.shared
    def build(thing):
        calls.append(thing)
        return {"n": len(calls)}

    assert build(Opaque())["n"] == 1 and build(Opaque())["n"] == 2
    assert build(1) is build(1) and len(calls) == 3


def test_the_store_keeps_its_byte_budget_dropping_the_least_recently_used():
    store = memo.Store(budget=6400)  # an eighth of it, 800 bytes, is the most one result may hold
    for k in range(8):
        store.put(bytes([k]), np.zeros(100))  # 800 bytes each: the budget is full
    store.get(bytes([0]))  # 0 is now the most recently used
    for k in (8, 9):
        store.put(bytes([k]), np.zeros(100))
    assert store.used == 6400
    assert [k[0] for k in store.items] == [3, 4, 5, 6, 7, 0, 8, 9]  # 1 and 2 dropped, the least recently used first
    store.put(b"big", np.zeros(101))  # 808 bytes: over an eighth of the budget, not kept
    assert b"big" not in store.items and store.used == 6400


def test_a_results_size_counts_its_arrays_strings_and_every_number_of_its_lists():
    spec = {"z": np.zeros((4, 5)), "title": "abc", "colours": [[1, 2, 3], [4.5, None, True]], "n": np.int64(7)}
    # the array's 160 bytes, 3 characters, two lists of 3 values (64 a value, 8 a slot) in a list of 2 slots, an np.int64 (64, as any small object), 64 a key
    assert memo.size(spec) == 160 + 3 + 2 * (3 * 64 + 3 * 8) + 2 * 8 + 64 + 4 * 64
    small, large = (charts.lines([("a", np.arange(n, dtype=float), np.zeros(n))], title="t", x_title="x", y_title="y") for n in (3, 1003))
    assert memo.size(small) > memo.FIGURE_OBJECTS and memo.size(large) - memo.size(small) == 2 * 1000 * 8  # a figure: its objects and its arrays' bytes

    @dataclass
    class Boxed(float):  # a number that is also a dataclass is read field by field
        held: np.ndarray

    boxed = float.__new__(Boxed, 1.0)  # float's own constructor takes the number alone
    boxed.held = np.zeros(1000)
    assert memo.size(boxed) == 8000


def test_a_shared_figure_changed_after_it_was_built_is_found():
    x = np.arange(3.0)
    fig = charts.lines([("a", x, x)], title="t", x_title="x", y_title="y")
    assert memo.STORE.changed() == []
    fig.data[0].line.color = "#000000"
    assert memo.STORE.changed() == [fig]
    memo.STORE.clear()  # so that the suite's own check (tests/conftest.py) does not see this one
    fresh = charts.lines.fresh([("a", x, x)], title="t", x_title="x", y_title="y")
    assert fresh is not charts.lines.fresh([("a", x, x)], title="t", x_title="x", y_title="y") and memo.STORE.items == {}


@dataclass(frozen=True)
class Box:
    values: np.ndarray


def test_a_heatmap_spec_is_shared_too():
    from core.viz.heatmap import ScaleGroup, grouped_heatmap

    ax = strided(4, 4)

    def spec(z):
        group = ScaleGroup([("", z, ax, ax)], signed=False, zmin=0.0, zmax=1.0, colorbar_title="v", hover="v")
        return grouped_heatmap([group], title="t", x_title="x", y_title="y")

    assert spec(np.eye(4).copy()) is spec(np.eye(4))
    assert spec(np.eye(4)[::-1].copy()) is not spec(np.eye(4))
    assert memo.digest(Box(np.arange(3))) != memo.digest(Box(np.arange(4)))


def test_what_is_made_from_a_held_result_is_made_once_counted_and_dropped_with_it():
    store = memo.Store(budget=6400)
    made: list[object] = []

    def make(value) -> bytes:
        made.append(value)
        return b"x" * 100

    held, other = np.zeros(100), np.zeros(100)
    store.put(b"a", held)
    assert store.derived(held, make) is store.derived(held, make) and made == [held]  # made once for a held result
    assert store.used == 800 + 100
    assert store.derived(other, make) == b"x" * 100 and store.derived(other, make) and made == [held, other, other]  # not held: every time
    for k in range(8):  # 8 more results of 800 bytes: "a" (the least recently used) and what was made from it go
        store.put(bytes([k]), np.zeros(100))
    assert b"a" not in store.items and store.made == {} and id(held) not in store.ids and store.used == 6400
    store.put(b"b", held)
    store.derived(held, make)
    assert b"b" in store.made
    store.put(b"b", np.ones(100))  # another result under the same key: what was made from the first goes with it
    assert store.made == {} and id(held) not in store.ids
    assert store.derived(held, make) and made[-1] is held and store.made == {}  # no longer held: made, not kept
    assert store.used == sum(n for _, n, _ in store.items.values()) == 7 * 800  # what derived made and trimmed for is all counted back out

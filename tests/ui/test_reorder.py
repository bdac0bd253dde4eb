"""The word-order link value (`?order=2,1,0`): what ui.reorder.parse_order takes and refuses. The
whole hostile battery goes through it in tests/ui/test_link_battery.py; the swap on a page is in
tests/app/test_problem.py."""

from __future__ import annotations

import pytest

from ui.reorder import parse_order, reversed_order


@pytest.mark.parametrize(("raw", "n", "order"), [("2,1,0", 3, (2, 1, 0)), ("0", 1, (0,)), ("1,0,3,2", 4, (1, 0, 3, 2)), ("007,0", 2, None)])
def test_a_permutation_of_every_word_is_taken(raw, n, order):
    assert parse_order(raw, n) == order


@pytest.mark.parametrize(
    "raw",
    ["", "0,1", "0,1,2,3", "0,0,1", "0,1,3", "-1,0,1", "0,1,2.0", " 0,1,2", "0,1,1e309", "inf,0,1", "٠,١,٢", "0,,1", "9" * 5000, ",".join(["0"] * 10_000)],
)
def test_anything_else_is_refused(raw):
    assert parse_order(raw, 3) is None


def test_the_default_reads_the_sentence_backwards():
    assert reversed_order(3) == (2, 1, 0) and reversed_order(1) == (0,)


def test_a_shuffle_always_reads_differently_even_when_a_word_repeats(monkeypatch):
    """Two copies of "the" swapped is a new order of the slots but the same sentence: a shuffle must change what is read."""
    import types

    import ui.reorder as reorder

    words = ("the", "cat", "the")
    state = {}
    monkeypatch.setattr(reorder, "st", types.SimpleNamespace(session_state=state))
    for _ in range(200):
        state["_s_order"] = (words, (0, 1, 2))
        reorder._shuffled("s")
        new = state["_s_order"][1]
        assert sorted(new) == [0, 1, 2] and [words[k] for k in new] != list(words)
    state["_s_order"] = (("a", "a"), (0, 1))  # every order reads the same: nothing to show, and no endless search
    reorder._shuffled("s")
    assert state["_s_order"][1] == (0, 1)

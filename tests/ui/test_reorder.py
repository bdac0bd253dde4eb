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

"""core.viz.grid: strided samples and the envelope keep what a figure needs."""

import numpy as np
import pytest

from core.viz.grid import envelope, strided


def test_strided_covers_range_within_limit():
    s = strided(131072, 500)
    assert s.step == 263 and s.count <= 500 and s.indices[0] == 0 and s.indices[-1] >= 131072 - 263
    assert s.note("position") == "every 263rd position (499 of 131,072 shown)"


def test_strided_small_range_is_whole():
    s = strided(256, 500)
    assert s.step == 1 and s.count == 256 and not s.is_sample and s.note("position") == ""


def test_strided_with_start():
    s = strided(300, 100, start=100)
    assert list(s.indices[:3]) == [100, 102, 104] and s.count == 100 and s.total == 200


@pytest.mark.parametrize(("n", "word"), [(2, "2nd"), (3, "3rd"), (11, "11th"), (21, "21st"), (112, "112th")])
def test_ordinals(n, word):
    assert strided(n * 10, 10).note("x").startswith(f"every {word} x")


def test_strided_rejects_zero_limit():
    with pytest.raises(ValueError):
        strided(10, 0)


def test_envelope_keeps_extremes_and_order():
    y = np.sin(np.arange(100_000) * 0.37)
    y[54321] = 5.0
    idx, vals = envelope(y, 1000)
    assert idx.size <= 1000 and np.all(np.diff(idx) > 0)
    assert vals.max() == 5.0 and vals.min() == y.min()
    assert np.array_equal(vals, y[idx])


def test_envelope_short_series_unchanged():
    idx, vals = envelope(np.arange(10.0), 1000)
    assert np.array_equal(idx, np.arange(10)) and np.array_equal(vals, np.arange(10.0))

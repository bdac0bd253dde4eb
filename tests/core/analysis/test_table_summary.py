"""core.analysis.table_summary's sentences, by hand."""

from __future__ import annotations

import pytest

from core.analysis import table_summary as ts


@pytest.mark.parametrize(
    ("norm", "median", "said"),
    [(3.0, 2.0, "1.5× the median"), (1.0, 3.0, "0.33× the median"), (0.0, 0.0, "all zeros, as the median row is"), (2.0, 0.0, "the median row is all zeros")],
)
def test_a_row_norm_against_the_median_says_something_true_even_when_the_median_is_zero(norm, median, said):
    assert ts.times_median(norm, median) == said

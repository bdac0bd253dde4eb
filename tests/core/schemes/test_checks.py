"""core.schemes.checks: the shared input checks of the scheme modules."""

import numpy as np
import pytest

from core.schemes.checks import is_finite_number, shown, whole_number


@pytest.mark.parametrize("value", [0, 7, -3, 2.5, np.int64(4), np.float32(1.5), 10**400])
def test_finite_numbers(value):
    assert is_finite_number(value)


@pytest.mark.parametrize("value", [True, np.bool_(False), float("nan"), float("inf"), -np.inf, "3", None, [1], np.array([1.0])])
def test_not_finite_numbers(value):
    assert not is_finite_number(value)


@pytest.mark.parametrize(("value", "minimum", "want"), [(3, 0, 3), (3.0, 1, 3), (np.int32(5), 5, 5), (np.float64(8.0), 2, 8), (10**30, 1, 10**30)])
def test_whole_numbers_pass_as_ints(value, minimum, want):
    got = whole_number(value, "n", minimum)
    assert got == want and type(got) is int


@pytest.mark.parametrize(("value", "minimum"), [(2.5, 0), (-1, 0), (0, 1), (float("nan"), 0), (float("inf"), 0), ("3", 0), (True, 0), (None, 0)])
def test_other_values_are_refused_in_words(value, minimum):
    with pytest.raises(ValueError, match=rf"^n must be a whole number of at least {minimum}, got "):
        whole_number(value, "n", minimum)


def test_a_huge_value_is_named_short():
    with pytest.raises(ValueError) as err:
        whole_number(-(10**400), "seq_len", 1)
    assert len(str(err.value)) < 100 and str(err.value).endswith("...."), str(err.value)
    assert shown("abc") == "'abc'" and len(shown("x" * 100)) == 40

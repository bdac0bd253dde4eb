"""One comparison helper with stated tolerances, shared by the tests."""

import numpy as np

ATOL = 1e-12  # float64 values of size ~1 computed two different ways
RTOL = 1e-12


def assert_close(actual, expected, *, atol: float = ATOL, rtol: float = RTOL) -> None:
    np.testing.assert_allclose(np.asarray(actual, dtype=np.float64), np.asarray(expected, dtype=np.float64), atol=atol, rtol=rtol)

"""pytest set-up for the ms Python package tests.

Run through lit (test/python/pytest.test) or by hand:
    PYTHONPATH=build/python /usr/bin/python3 -m pytest test/python
Each session uses a fresh on-disk cache directory unless MS_CACHE_DIR is set.
"""

import os
import tempfile

import numpy as np
import pytest

if "MS_CACHE_DIR" not in os.environ:
    os.environ["MS_CACHE_DIR"] = tempfile.mkdtemp(prefix="ms-pytest-cache-")


@pytest.fixture
def rng():
    return np.random.default_rng(0)


def assert_close(actual, expected, rtol=1e-5, atol=1e-6):
    """Same dtype and shape, values within rtol/atol (NumPy's isclose)."""
    expected = np.asarray(expected)
    assert isinstance(actual, np.ndarray), type(actual)
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol)

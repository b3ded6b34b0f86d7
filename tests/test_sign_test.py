"""McNemar's exact test (``tasks/shared/sign_test.py``, numpy only) against SciPy's binomial distribution.

The end of phase computed it with ``scipy.stats.binom`` before it moved into the
classification task, which runs where SciPy is not installed.
"""

import numpy as np
import pytest

from leaderboard_ci.tasks.shared.sign_test import binomial_half_sf, mcnemar_pvalues

stats = pytest.importorskip("scipy.stats")


@pytest.mark.parametrize("largest", [0, 1, 2, 7, 40, 300, 5000, 40000])
def test_binomial_tail_equals_scipy(largest):
    rng = np.random.default_rng(largest)
    n = rng.integers(0, largest + 1, size=300)
    j = rng.integers(-2, largest + 3, size=300)
    j[:20] = n[:20] // 2 + rng.integers(0, 2, size=20)  # around the middle, where both tails are large
    expected = stats.binom.sf(j - 1, n, 0.5)
    got = binomial_half_sf(j, n)
    assert np.allclose(got, expected, rtol=1e-12, atol=1e-15)
    big = expected > 1e-300
    assert np.max(np.abs(got[big] / expected[big] - 1.0)) < 1e-11  # relative, far into the tail


@pytest.mark.parametrize("sides", ["one", "two"])
def test_mcnemar_equals_the_scipy_version(sides):
    rng = np.random.default_rng(3)
    a = rng.random((400, 30)) < 0.7
    b = rng.random((400, 30)) < 0.65
    only_a = np.count_nonzero(a & ~b, axis=0)
    only_b = np.count_nonzero(b & ~a, axis=0)
    upper = stats.binom.sf(only_a - 1, only_a + only_b, 0.5)
    expected = (
        upper
        if sides == "one"
        else np.minimum(1.0, 2.0 * np.minimum(upper, stats.binom.cdf(only_a, only_a + only_b, 0.5)))
    )
    assert np.allclose(mcnemar_pvalues(a, b, sides), expected, rtol=1e-12, atol=1e-15)


def test_a_system_against_itself_gets_one():
    right = np.random.default_rng(0).random(50) < 0.5
    assert mcnemar_pvalues(right, right, "one") == 1.0
    assert mcnemar_pvalues(right, right, "two") == 1.0
    assert binomial_half_sf(np.zeros(0, np.int64), np.zeros(0, np.int64)).shape == (0,)

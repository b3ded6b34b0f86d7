"""The tie tolerance, the marks, and the paired test's p-values: +1 floor, never 0, p = 1 for a copy.

The p-values themselves are the inversion of the interval (tests/test_intervals.py checks the duality);
here: the conventions every p-value of a paired comparison keeps.
"""

import numpy as np
import pytest

from leaderboard_ci.core.intervals import METHODS, confidence_interval
from leaderboard_ci.core.significance import stars, tolerance


@pytest.mark.parametrize("method", METHODS)
def test_identical_systems_get_p_one(method):
    iv = confidence_interval(method, np.zeros(10000), 0.0, 0.95, jackknife=(np.zeros(50), None), scale=0.8)
    assert (iv.p_greater, iv.p_less, iv.p_two_sided) == (1.0, 1.0, 1.0)


@pytest.mark.parametrize("method", METHODS)
def test_rounding_noise_counts_as_a_tie(method):
    delta = 0.1 + 0.2 - 0.3  # 5.5e-17, rounding noise
    noisy = np.full(99, 2 * delta) - 1e-17
    iv = confidence_interval(method, noisy, delta, 0.95, jackknife=(np.zeros(50), None), scale=0.6)
    assert iv.p_greater == 1.0 and iv.p_two_sided == 1.0 and iv.low <= 0.0 <= iv.high


@pytest.mark.parametrize("method", METHODS)
def test_never_zero(method):
    iv = confidence_interval(method, np.linspace(0.5, 1.5, 99), 1.0, 0.95, jackknife=(np.linspace(0.9, 1.1, 50), None))
    assert iv.p_greater == pytest.approx(1 / 100) and iv.p_two_sided == pytest.approx(1 / 100)
    assert iv.p_less > 0.99  # 1, or Phi(delta / SE) for the normal interval


def test_tolerance_is_relative_to_the_scores():
    eps = np.finfo(float).eps
    assert tolerance(0.5, 0.01) == 100 * eps
    assert tolerance(2500.0, 1.0) == 100 * eps * 2500.0
    np.testing.assert_array_equal(tolerance([0.1, 30.0], [40.0, 0.0]), 100 * eps * np.array([80.0, 30.0]))


def test_nan_replicates_are_left_out():
    iv = confidence_interval("percentile", np.array([np.nan, -1.0, 1.0, 3.0]), 1.0, 0.5)
    assert iv.n_valid == 3
    assert iv.p_greater == pytest.approx(0.25)  # Q crosses 0 halfway between the first two of three: q = 0.5/2


def test_stars():
    assert [stars(p) for p in (0.0005, 0.005, 0.03, 0.07, 0.2)] == ["***", "**", "*", "†", ""]

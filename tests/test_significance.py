"""The paired-bootstrap p-value: definition, >= with tolerance, +1 smoothing, p = 1 for a copy."""
import numpy as np
import pytest

from leaderboard_ci.core.significance import bootstrap_pvalue, tolerance


def naive_pvalue(diffs, delta, gamma):
    count = 0
    for d in diffs:
        if d >= 2 * delta - gamma:
            count += 1
    return (count + 1) / (len(diffs) + 1)


def test_matches_a_naive_loop():
    rng = np.random.default_rng(0)
    for delta in (0.02, 0.0, -0.01):
        diffs = rng.normal(delta, 0.015, size=1001)
        assert bootstrap_pvalue(diffs, delta) == naive_pvalue(diffs, delta, 100 * np.finfo(float).eps * max(1.0, abs(2 * delta)))


def test_identical_systems_get_p_one():
    assert bootstrap_pvalue(np.zeros(10000), 0.0) == 1.0


def test_rounding_noise_counts_as_a_tie():
    delta = 0.1 + 0.2 - 0.3  # 5.5e-17, rounding noise
    noisy = np.full(99, 2 * delta) - 1e-17
    assert bootstrap_pvalue(noisy, delta) == 1.0


def test_never_zero_and_strictly_counted_with_ge():
    assert bootstrap_pvalue(np.full(99, -1.0), 0.5) == pytest.approx(1 / 100)
    diffs = np.array([0.2, 0.2, 0.1])
    assert bootstrap_pvalue(diffs, 0.1) == pytest.approx(3 / 4)  # d >= 0.2 counts the ties


def test_tolerance_is_relative_to_the_scores():
    eps = np.finfo(float).eps
    assert tolerance(0.5, 0.01) == 100 * eps
    assert tolerance(2500.0, 1.0) == 100 * eps * 2500.0
    np.testing.assert_array_equal(tolerance([0.1, 30.0], [40.0, 0.0]), 100 * eps * np.array([80.0, 30.0]))


def test_nan_replicates_are_left_out():
    assert bootstrap_pvalue(np.array([np.nan, 0.0, 1.0]), 0.25) == pytest.approx(2 / 3)

"""Style control (LMArena's compute_style_control): parity with scikit-learn's penalized logistic regression.

FastChat's ``fit_contextual_bt`` minimizes the log loss (ties as y = 1/2) plus ``reg / 2 |params|^2``
(``half_reg = reg / 2``, reg = 0.5) over the ratings (features ``+-ln 10``) and the style coefficients;
scikit-learn's ``LogisticRegression(C=2, fit_intercept=False)`` minimizes ``C * sum of log losses +
|params|^2 / 2``, the same objective doubled, with a tie written as two rows (y = 1 and y = 0) of weight 1/2.
"""

import math

import numpy as np
import pytest
from _fastchat_reference import style_control_elo

from leaderboard_ci.core.resampling import counts_from_indices, replicate_indices
from leaderboard_ci.tasks.preference.style import fit_style_control, style_features


def _log(seed=4, n=3000, m=6):
    rng = np.random.default_rng(seed)
    strengths = np.linspace(1100, 900, m)
    a = rng.integers(0, m, n)
    b = (a + rng.integers(1, m, n)) % m
    tokens_a, tokens_b = rng.gamma(4, 100, n), rng.gamma(4, 100, n)
    bold_a, bold_b = rng.poisson(2, n), rng.poisson(2, n)
    raw_a = np.stack([tokens_a, bold_a], axis=1)
    raw_b = np.stack([tokens_b, bold_b], axis=1)
    f = style_features(raw_a, raw_b)
    z = math.log(10) * (strengths[a] - strengths[b]) / 400 + 0.4 * f[:, 0] + 0.1 * f[:, 1]
    u = rng.random(n)
    p = 1 / (1 + np.exp(-z))
    o = np.where(rng.random(n) < 0.15, 2, np.where(u < p, 0, 1))
    return a, b, o, f, raw_a, raw_b, m


def test_features_are_lmarenas_standardized_ratios():
    raw_a = np.array([[10.0, 1.0], [30.0, 0.0], [5.0, 2.0]])
    raw_b = np.array([[20.0, 1.0], [10.0, 3.0], [5.0, 0.0]])
    diff = (raw_a - raw_b) / (raw_a + raw_b + 1)
    expected = (diff - diff.mean(axis=0)) / diff.std(axis=0)
    np.testing.assert_allclose(style_features(raw_a, raw_b), expected, rtol=0, atol=1e-15)
    plain = style_features(raw_a, raw_b, ratio=[False, True])
    d0 = raw_a[:, 0] - raw_b[:, 0]
    np.testing.assert_allclose(plain[:, 0], (d0 - d0.mean()) / d0.std(), rtol=0, atol=1e-15)


def test_style_control_equals_the_penalized_logistic_regression():
    pytest.importorskip("sklearn")
    a, b, o, f, _, _, m = _log()
    fit = fit_style_control(a, b, o, f, m)
    elo, beta = style_control_elo(a, b, o, f, m)
    assert fit.converged
    np.testing.assert_allclose(fit.elo, elo, rtol=0, atol=1e-6)
    np.testing.assert_allclose(fit.beta, beta, rtol=0, atol=1e-8)
    assert abs(fit.elo.mean() - 1000) < 1e-6 and fit.beta[0] > 0.2  # rounded to 2**-32 log units


def test_style_control_replicates_equal_sklearn_on_the_resample_counts():
    pytest.importorskip("sklearn")
    a, b, o, f, _, _, m = _log(n=1500)
    counts = counts_from_indices(replicate_indices(99, a.shape[0], 0, 3), a.shape[0])
    fit = fit_style_control(a, b, o, f, m, weights=counts)
    assert fit.converged.all()
    for r in range(3):
        elo, beta = style_control_elo(a, b, o, f, m, counts[r])
        np.testing.assert_allclose(fit.elo[r], elo, rtol=0, atol=1e-6)
        np.testing.assert_allclose(fit.beta[r], beta, rtol=0, atol=1e-8)

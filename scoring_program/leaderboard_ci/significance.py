"""One-sided tests of "system A is better than system B" on paired replicates.

Differences are *oriented*: ``d = sign * (score_A - score_B)`` with ``sign``
+1 when higher is better and -1 when lower is better, so ``d > 0`` always
means A is better.

Paired bootstrap (Berg-Kirkpatrick, Burkett & Klein 2012)
    With ``delta`` the observed difference and ``d*_b`` the difference on
    replicate ``b`` (the same resample for both systems), the bootstrap
    distribution of ``d*`` is centred near ``delta``; shifting it by ``delta``
    gives a null distribution, so

        p = (#{b : d*_b >= 2*delta - gamma} + 1) / (B + 1)

    The count uses ``>=`` with a tolerance ``gamma = 100 * eps *
    max(|scores|, |2*delta|)`` so that rounding noise never turns a tie into
    a win, and the ``+1`` keeps ``p > 0`` (a resampling test cannot prove a
    probability of 0).  A system compared with an identical copy gets
    ``delta = 0`` and ``d*_b = 0`` for every ``b``, hence ``p = 1``.
"""
from __future__ import annotations

import numpy as np

__all__ = ["tolerance", "bootstrap_pvalue", "mcnemar_pvalues", "stars"]

_EPS = np.finfo(np.float64).eps


def stars(p):
    """Significance marks: † p<.1, * p<.05, ** p<.01, *** p<.001."""
    if p < 0.001:
        return "***"
    if p < 0.01:
        return "**"
    if p < 0.05:
        return "*"
    if p < 0.1:
        return "†"
    return ""


def tolerance(scale, delta):
    """``gamma = 100 * eps * max(1, |scale|, |2 * delta|)``, elementwise.

    ``scale`` is the magnitude of the two systems' scores; the floor of 1 keeps
    the tolerance meaningful for scores near 0.
    """
    scale = np.abs(np.asarray(scale, dtype=np.float64))
    twice = np.abs(2.0 * np.asarray(delta, dtype=np.float64))
    return 100.0 * _EPS * np.maximum(np.maximum(scale, twice), 1.0)


def bootstrap_pvalue(replicate_differences, observed_difference, scale=1.0):
    """Paired-bootstrap one-sided p-value that A is better than B.

    Parameters
    ----------
    replicate_differences : array of shape ``(B,)``
        Oriented differences ``d*_b`` on the bootstrap replicates; NaN entries
        (replicates where the statistic is undefined) are left out.
    observed_difference : float
        The oriented full-sample difference ``delta``.
    scale : float
        The magnitude of the scores, for the tolerance.

    Returns
    -------
    float in ``(0, 1]``.

    Examples
    --------
    >>> bootstrap_pvalue([0.0, 0.0, 0.0], 0.0)
    1.0
    """
    d = np.asarray(replicate_differences, dtype=np.float64).ravel()
    d = d[~np.isnan(d)]
    delta = float(observed_difference)
    gamma = float(tolerance(scale, delta))
    count = int(np.count_nonzero(d >= 2.0 * delta - gamma))
    return (count + 1.0) / (d.size + 1.0)


def mcnemar_pvalues(correct_a, correct_b, sides="one"):
    """Exact one-sided McNemar test that A is more accurate than B (Yeh 2000, 3.2).

    A sign test on the discordant items: with ``b01`` items right for A only and
    ``b10`` right for B only, ``p = P(X >= b01)`` for ``X ~ Binomial(b01 + b10, 1/2)``.
    Vectorized over columns: ``correct_a`` and ``correct_b`` are boolean arrays
    of shape ``(n,)`` or ``(n, P)``.  ``sides="two"`` doubles the smaller tail
    (capped at 1), the exact two-sided sign test.  Needs SciPy (end-of-phase only).
    """
    from scipy.stats import binom

    a = np.asarray(correct_a, dtype=bool)
    b = np.asarray(correct_b, dtype=bool)
    only_a = np.count_nonzero(a & ~b, axis=0)
    only_b = np.count_nonzero(b & ~a, axis=0)
    upper = np.asarray(binom.sf(only_a - 1, only_a + only_b, 0.5), dtype=np.float64)
    if sides == "one":
        return upper
    lower = np.asarray(binom.cdf(only_a, only_a + only_b, 0.5), dtype=np.float64)
    return np.minimum(1.0, 2.0 * np.minimum(upper, lower))

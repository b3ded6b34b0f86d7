"""Shared pieces of the tests of a difference: the tie tolerance and significance marks.

Differences are *oriented*: ``d = sign * (score_A - score_B)`` with ``sign``
+1 when higher is better and -1 when lower is better, so ``d > 0`` always
means A is better.

The paired bootstrap test
    The p-values of a bootstrap comparison are not computed here: they are
    the inversion of the confidence interval shown beside them, computed by
    the same code (:func:`leaderboard_ci.core.intervals.interval_rows`, one
    row per difference; :func:`~leaderboard_ci.core.intervals.confidence_interval`
    for one).  With ``alpha = 1 - confidence_level``:

    * ``p_greater`` (one-sided, "A is better than B") is ``< alpha/2``
      exactly when the interval's low end is > 0;
    * ``p_two_sided = min(1, 2 * min(p_greater, p_less))`` is ``< alpha``
      exactly when the interval excludes 0;

    for every method (percentile, basic, BCa, normal) and every ``alpha``
    above the floor (``alpha > 2/(B+1)`` one-sided, ``alpha > 1/(B+1)``
    two-sided).  For the percentile interval ``p_greater = sup{q : Q(q) <= 0}``
    with ``Q`` the type-7 quantile function of the replicate differences.
    Every p-value is at least ``1/(B+1)`` (never 0), and a system compared
    with an identical copy (every replicate difference and the observed one
    within :func:`tolerance` of 0) gets ``p = 1``.

    Earlier versions used Berg-Kirkpatrick, Burkett & Klein's (2012) count
    ``(#{d* >= 2 delta - gamma} + 1) / (B + 1)``.  That is the inversion of
    the *basic* interval, so beside a percentile interval it disagreed with
    it wherever the bootstrap distribution is skewed (an interval excluding 0
    with p > alpha, and the reverse); it is gone.

Tolerance
    ``gamma = 100 * eps * max(1, |scores|, |2*delta|)``: rounding noise (the
    same counts summed in another order) is never a difference.
"""

from __future__ import annotations

import numpy as np

__all__ = ["tolerance", "stars"]

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

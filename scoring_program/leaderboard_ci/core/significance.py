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

__all__ = ["tolerance", "bootstrap_pvalue", "stars"]

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

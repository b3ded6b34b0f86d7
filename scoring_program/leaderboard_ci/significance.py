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

__all__ = ["tolerance", "bootstrap_pvalue"]

_EPS = np.finfo(np.float64).eps


def tolerance(*magnitudes):
    """``100 * eps * max(|x|)`` over the given values (at least ``100 * eps``)."""
    top = 1.0
    for m in magnitudes:
        m = np.max(np.abs(np.asarray(m, dtype=np.float64))) if np.size(m) else 0.0
        if np.isfinite(m) and m > top:
            top = float(m)
    return 100.0 * _EPS * top


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
    gamma = tolerance(scale, 2.0 * delta)
    count = int(np.count_nonzero(d >= 2.0 * delta - gamma))
    return (count + 1.0) / (d.size + 1.0)

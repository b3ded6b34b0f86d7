"""McNemar's exact test for accuracy (Yeh 2000, 3.2), shown beside the paired tests.

Needs SciPy's binomial distribution: end of phase only.
"""
from __future__ import annotations

import numpy as np

__all__ = ["mcnemar_pvalues"]


def mcnemar_pvalues(correct_a, correct_b, sides="one"):
    """Exact one-sided McNemar test that A is more accurate than B (Yeh 2000, 3.2).

    A sign test on the discordant items: with ``b01`` items right for A only and
    ``b10`` right for B only, ``p = P(X >= b01)`` for ``X ~ Binomial(b01 + b10, 1/2)``.
    Vectorized over columns: ``correct_a`` and ``correct_b`` are boolean arrays
    of shape ``(n,)`` or ``(n, P)``.  ``sides="two"`` doubles the smaller tail
    (capped at 1), the exact two-sided sign test.
    """
    from scipy.stats import binom  # here: importing scipy.stats costs about a second

    a = np.asarray(correct_a, dtype=bool)
    b = np.asarray(correct_b, dtype=bool)
    only_a = np.count_nonzero(a & ~b, axis=0)
    only_b = np.count_nonzero(b & ~a, axis=0)
    upper = np.asarray(binom.sf(only_a - 1, only_a + only_b, 0.5), dtype=np.float64)
    if sides == "one":
        return upper
    lower = np.asarray(binom.cdf(only_a, only_a + only_b, 0.5), dtype=np.float64)
    return np.minimum(1.0, 2.0 * np.minimum(upper, lower))

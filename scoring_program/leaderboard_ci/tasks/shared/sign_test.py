"""McNemar's exact test for accuracy (Yeh 2000, 3.2): a sign test on the discordant items, numpy only.

The end of phase shows it beside the paired tests of an accuracy target
(:meth:`ClassificationTask.pair_tests <leaderboard_ci.tasks.classification.metrics.ClassificationTask>`).
"""

from __future__ import annotations

import numpy as np

__all__ = ["mcnemar_pvalues", "binomial_half_sf"]

_RESCALE = 2.0**600


def _upper_tail(j, n):
    """``P(X >= j)`` for ``X ~ Binomial(n, 1/2)`` where ``2 j > n`` (arrays of int, same shape).

    Sums the terms from ``i = n`` down to ``j``; each is the one before times
    ``i / (n - i + 1)`` (exact ratios of the binomial coefficients), kept in range by
    scaling with powers of two, so that the relative error grows like the
    square root of the number of terms, not with ``n``.
    """
    j = np.asarray(j, dtype=np.int64).reshape(-1)
    n = np.asarray(n, dtype=np.int64).reshape(-1)
    order = np.argsort(j - n, kind="stable")  # the most terms first: the live entries are a prefix
    j, n = j[order], n[order]
    steps = n - j
    term = np.ones(j.shape)  # C(n, i) * 2**-shift, starting at C(n, n) = 1
    total = np.zeros(j.shape)
    shift = np.zeros(j.shape, dtype=np.int64)
    live = j.size
    for s in range(int(steps[0]) + 1 if j.size else 0):
        while live and steps[live - 1] < s:
            live -= 1
        total[:live] += term[:live]
        i = (n[:live] - s).astype(np.float64)  # the term just added is C(n, i); the next is C(n, i - 1)
        term[:live] *= i / np.maximum(n[:live] - i + 1.0, 1.0)
        big = np.flatnonzero(term[:live] > _RESCALE)
        if big.size:
            term[big] /= _RESCALE
            total[big] /= _RESCALE
            shift[big] += 600
    out = np.empty(j.shape)
    out[order] = np.ldexp(total, (shift - n).astype(np.int32))
    return out


def binomial_half_sf(j, n):
    """``P(X >= j)`` for ``X ~ Binomial(n, 1/2)``, elementwise (scipy's ``binom.sf(j - 1, n, 0.5)``)."""
    j, n = np.broadcast_arrays(np.asarray(j, dtype=np.int64), np.asarray(n, dtype=np.int64))
    out = np.where(j <= 0, 1.0, 0.0)
    inside = (j > 0) & (j <= n)
    if not inside.any():
        return out
    width = int(n.max()) + 2
    keys, inverse = np.unique(n[inside] * width + j[inside], return_inverse=True)  # each (j, n) once
    kn, kj = keys // width, keys % width
    direct = 2 * kj > kn
    # P(X >= j) = 1 - P(X <= j - 1) = 1 - P(X >= n - j + 1), and 2 (n - j + 1) > n when 2 j <= n
    tail = _upper_tail(np.where(direct, kj, kn - kj + 1), kn)
    out[inside] = np.where(direct, tail, 1.0 - tail)[inverse.reshape(-1)]
    return out


def mcnemar_pvalues(correct_a, correct_b, sides="one"):
    """Exact one-sided McNemar test that A is more accurate than B (Yeh 2000, 3.2).

    A sign test on the discordant items: with ``b01`` items right for A only and
    ``b10`` right for B only, ``p = P(X >= b01)`` for ``X ~ Binomial(b01 + b10, 1/2)``.
    Vectorized over columns: ``correct_a`` and ``correct_b`` are boolean arrays
    of shape ``(n,)`` or ``(n, P)``.  ``sides="two"`` doubles the smaller tail
    (capped at 1), the exact two-sided sign test.
    """
    a = np.asarray(correct_a, dtype=bool)
    b = np.asarray(correct_b, dtype=bool)
    only_a = np.count_nonzero(a & ~b, axis=0)
    only_b = np.count_nonzero(b & ~a, axis=0)
    discordant = only_a + only_b
    upper = np.asarray(binomial_half_sf(only_a, discordant), dtype=np.float64)
    if sides == "one":
        return upper
    lower = np.asarray(binomial_half_sf(only_b, discordant), dtype=np.float64)  # P(X <= b01) = P(X >= b10)
    return np.minimum(1.0, 2.0 * np.minimum(upper, lower))

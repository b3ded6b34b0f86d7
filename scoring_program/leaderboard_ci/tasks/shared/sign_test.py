"""McNemar's test for accuracy: exact on independent items (Yeh 2000, 3.2), cluster-robust on clusters.

The end of phase shows it beside the paired tests of an accuracy target
(:meth:`ClassificationTask.pair_tests <leaderboard_ci.tasks.classification.metrics.ClassificationTask>`);
with ``bootstrap.cluster`` it is Durkalski et al.'s (2003) cluster-robust version,
:func:`mcnemar_clustered_pvalues`.  Numpy only.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["mcnemar_pvalues", "mcnemar_clustered_pvalues", "binomial_half_sf"]

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


def mcnemar_clustered_pvalues(correct_a, correct_b, clusters, sides="one"):
    """Durkalski et al.'s (2003) McNemar test for clustered matched pairs: A more accurate than B.

    With ``b_k`` the items of cluster ``k`` right for A only and ``c_k`` those right for B
    only, ``z = sum_k (b_k - c_k) / sqrt(sum_k (b_k - c_k)^2)`` is asymptotically standard
    normal under "equal accuracy" as the number of clusters grows, whatever the
    correlation inside a cluster (its square is their chi-square statistic with one
    degree of freedom).  ``sides="one"``: ``p = 1 - Phi(z)``; ``"two"``: ``p = P(|Z| >= |z|)``.
    With one item per cluster the denominator is ``b + c``: McNemar's asymptotic test.
    ``p = 1`` when no cluster has a discordant difference.

    Parameters
    ----------
    correct_a, correct_b : array of bool ``(n,)`` or ``(n, P)``
    clusters : array of int ``(n,)``
        Each item's cluster code (any non-negative integers).
    sides : {"one", "two"}

    References
    ----------
    Durkalski, V. L., Palesch, Y. Y., Lipsitz, S. R. & Rust, P. F. (2003). Analysis of
    clustered matched-pair data. Statistics in Medicine 22(15), 2417-2428.
    """
    a = np.asarray(correct_a, dtype=bool)
    b = np.asarray(correct_b, dtype=bool)
    shape = a.shape[1:]
    d = (a.astype(np.int64) - b.astype(np.int64)).reshape(a.shape[0], -1)
    codes = np.unique(np.asarray(clusters), return_inverse=True)[1].reshape(-1)
    order = np.argsort(codes, kind="stable")
    starts = np.r_[0, np.flatnonzero(np.diff(codes[order])) + 1]
    per_cluster = np.add.reduceat(d[order], starts, axis=0) if d.shape[0] else np.zeros((0, d.shape[1]))
    total = per_cluster.sum(axis=0).astype(np.float64)
    spread = np.sqrt((per_cluster.astype(np.float64) ** 2).sum(axis=0))
    out = np.ones(total.shape)
    for i in np.flatnonzero(spread > 0):
        z = total[i] / spread[i]
        out[i] = 0.5 * math.erfc(z / math.sqrt(2.0)) if sides == "one" else math.erfc(abs(z) / math.sqrt(2.0))
    return out.reshape(shape)

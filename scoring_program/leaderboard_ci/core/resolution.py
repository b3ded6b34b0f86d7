"""The resampling floor of corrected p-values: how many resamples a family of tests needs.

A resampling p-value is at least ``1/(B + 1)``.  After a correction over ``n``
tests the smallest adjusted p-value can be far larger (Bonferroni, Holm:
``n/(B + 1)``), so with too few resamples no difference can ever be declared,
whatever the data.  :func:`resamples_needed` gives the smallest ``B`` that can
declare one; the max-t step-down (:mod:`leaderboard_ci.core.simultaneous`) keeps
the floor ``1/(B + 1)`` for any family.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["STATSMODELS_METHODS", "STEPDOWN_METHODS", "resamples_needed", "resolved_resamples", "smallest_level"]

#: The method names of ``statsmodels.stats.multitest.multipletests`` (checked
#: against statsmodels in the tests; statsmodels itself is not imported here).
STATSMODELS_METHODS = (
    "bonferroni",
    "sidak",
    "holm-sidak",
    "holm",
    "simes-hochberg",
    "hommel",
    "fdr_bh",
    "fdr_by",
    "fdr_tsbh",
    "fdr_tsbky",
)
#: Methods :func:`resamples_needed` knows: the max-t step-down, no correction and statsmodels' names.
STEPDOWN_METHODS = ("maxt", "none") + STATSMODELS_METHODS


def resamples_needed(method, n_tests, alpha=0.05):
    """The smallest B for which one difference at the resampling floor can be declared.

    The smallest p-value a resampling test can give is ``1/(B + 1)``.  After correction
    over ``n_tests`` tests, a single difference with that p-value is declared when

    * ``"maxt"``: ``1/(B + 1) < alpha`` (the step-down's floor does not depend on the family);
    * ``"none"``: ``1/(B + 1) <= alpha``;
    * ``"bonferroni"``, ``"holm"``, ``"hommel"``, ``"simes-hochberg"``, ``"fdr_bh"``,
      ``"fdr_tsbh"``, ``"fdr_tsbky"``: ``n/(B + 1) <= alpha`` (the smallest p-value is
      compared with ``alpha/n``; BH could reject at ``1/(B + 1)`` only if all ``n`` tests
      sat at the floor);
    * ``"sidak"``, ``"holm-sidak"``: ``1 - (1 - 1/(B + 1))^n <= alpha``;
    * ``"fdr_by"``: ``n * (1 + 1/2 + ... + 1/n)/(B + 1) <= alpha``.

    (``<`` for maxt as its verdict is ``p < alpha``; ``<=`` for statsmodels' ``reject``.)

    Parameters
    ----------
    method : str
        One of :data:`STEPDOWN_METHODS`.
    n_tests : int
        Tests in the family (at least 1).
    alpha : float

    Returns
    -------
    int
    """
    n, alpha = _checked_family(method, n_tests, alpha)

    def ok(b):
        smallest = _smallest_corrected(method, n, 1.0 / (b + 1.0))
        return smallest < alpha if method == "maxt" else smallest <= alpha

    lo, hi = 1, 2
    while not ok(hi):
        hi *= 2
    while lo < hi:  # the smallest corrected p-value decreases in b
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def _checked_family(method, n_tests, alpha):
    """``(n_tests, alpha)`` as int and float; ValueError naming the argument that is wrong."""
    if method not in STEPDOWN_METHODS:
        raise ValueError("method must be one of: %s, got %r" % (", ".join(STEPDOWN_METHODS), method))
    if isinstance(n_tests, bool) or not isinstance(n_tests, (int, np.integer)) or n_tests < 1:
        raise ValueError("n_tests must be a positive integer, got %r" % (n_tests,))
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.floating)) or not 0.0 < alpha < 1.0:
        raise ValueError("alpha must be a number strictly between 0 and 1, got %r" % (alpha,))
    return int(n_tests), float(alpha)


def _smallest_corrected(method, n, floor):
    """The corrected p-value of the smallest of ``n`` p-values when it sits at ``floor`` (``1/(B + 1)``)."""
    if method in ("maxt", "none"):
        return floor
    if method in ("sidak", "holm-sidak"):
        return -math.expm1(n * math.log1p(-floor))
    if method == "fdr_by":
        return n * sum(1.0 / i for i in range(1, n + 1)) * floor
    return n * floor


def smallest_level(method, n_tests, alpha=0.05):
    """The smallest per-test level at which ``method`` compares a p-value over ``n_tests`` tests.

    ``alpha`` for the max-t step-down (it reads the ``1 - alpha`` quantile of the maximum) and
    for no correction; ``alpha / n`` for Bonferroni, Holm, Hommel, Simes-Hochberg and the BH
    family (their first comparison); ``1 - (1 - alpha)^(1/n)`` for Sidak and Holm-Sidak;
    ``alpha / (n (1 + 1/2 + ... + 1/n))`` for BY.
    """
    if method not in STEPDOWN_METHODS:
        raise ValueError("method must be one of: %s, got %r" % (", ".join(STEPDOWN_METHODS), method))
    n = int(n_tests)
    if n < 1:
        raise ValueError("n_tests must be a positive integer, got %r" % (n_tests,))
    alpha = float(alpha)
    if method in ("maxt", "none"):
        return alpha
    if method in ("sidak", "holm-sidak"):
        return -math.expm1(math.log1p(-alpha) / n)
    if method == "fdr_by":
        return alpha / (n * sum(1.0 / i for i in range(1, n + 1)))
    return alpha / n


def resolved_resamples(method, n_tests, alpha=0.05, beyond=10):
    """The smallest B at which ``method``'s decisions over ``n_tests`` tests are resolved.

    A resampling p-value (or quantile) at level ``a`` rests on the ``B * a`` most extreme
    replicates.  Where that is a replicate or two, the p-values that decide are not
    resolved: interpolated between the most extreme replicates, they can fall below the
    level by chance and the family-wise error can exceed ``alpha``.  So, with
    ``beyond = 10``, B >= 10 n / alpha for Bonferroni, Holm or BH over ``n`` tests
    (9,000 for the 45 pairs of 10 systems, 354,000 for the 1,770 pairs of 60).

    The max-t step-down reads one quantile at ``alpha`` (B >= 10 / alpha = 200), but it
    also divides every pair by a standard deviation estimated from the same B replicates,
    and over a large family the maximum picks up the pairs whose deviation came out small.
    Measured (``tests/statistical``, equal systems, n = 1,000): family-wise error 4.75 %
    for 10 systems at B = 1,000, but 6.9 % for 60 and 8.4 % for 200 systems at B = 1,000,
    and 4.75 % (60) and 5.3 % (200) at B = 10,000.  Hence for ``maxt``:
    ``max(10 / alpha, min(10,000, 10 n))`` (450 for 45 pairs, 10,000 from 1,000 pairs on).

    Returns
    -------
    int
    """
    level = smallest_level(method, n_tests, alpha)
    needed = int(math.ceil(beyond / level - 1e-9))
    if method == "maxt":
        needed = max(needed, min(10000, 10 * int(n_tests)))
    return needed

"""Each participant's private-minus-public gap, its interval, and which gaps noise does not explain.

The public and the private test sets are independent samples of items (two
phases' reference data, or the disjoint parts of one split reference), so the
gap ``g = private - public`` of a participant is the difference of two
independent estimates.  Its replicates pair the private set's replicate ``b``
with the public set's replicate ``s(b) = (b + 1) mod B``:

    g*_b = Q*_b - P*_s(b),     b = 0 .. B - 1,   B = min(B_public, B_private)

Two different replicate numbers are independent draws of the resample
definition (:mod:`leaderboard_ci.core.resampling`: replicate ``r`` uses its own
outputs of the stream), whatever the two sets' sizes and seeds, so each
``g*_b`` is a draw of the difference of the two bootstrap distributions (had
both sets the same size and seed, pairing ``b`` with ``b`` would give both the
same resample counts, position by position).  The interval is the configured
bootstrap interval of these replicates (``percentile``, ``basic`` or
``normal``; :func:`leaderboard_ci.core.intervals.interval_rows`) and the
p-value its inversion at 0:

* two-sided (``analysis.sides: two``, the default): a gap in either direction;
* one-sided (``sides: one``): the direction fixed before the data, the one of
  overfitting, "the private score is worse than the public one".

The p-values are adjusted over the participants by Benjamini & Hochberg's
step-up (statsmodels' ``fdr_bh``), and a gap is **flagged** when its adjusted
p-value is at most ``alpha``: among the flagged gaps, the expected share of
gaps that noise alone made is at most ``alpha``.

References
----------
Benjamini, Y. & Hochberg, Y. (1995). Controlling the false discovery rate.
J. R. Stat. Soc. B 57(1), 289-300.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.intervals import interval_rows
from ..analysis.corrections import adjust
from .noise import finite_rows

__all__ = ["GAP_CORRECTION", "GapTests", "paired_gap_replicates", "gap_tests"]

#: The false-discovery correction of the gaps (statsmodels' name).
GAP_CORRECTION = "fdr_bh"


def paired_gap_replicates(public_replicates, private_replicates):
    """``(B, m)`` replicates of ``private - public``: private replicate ``b`` minus public replicate ``b + 1``.

    ``B = min(B_public, B_private)``; rows where either score is not finite are
    left out.
    """
    b = min(public_replicates.shape[0], private_replicates.shape[0])
    pub = np.roll(np.asarray(public_replicates[:b], dtype=np.float64), -1, axis=0)
    priv = np.asarray(private_replicates[:b], dtype=np.float64)
    keep = finite_rows(pub, priv)
    return priv[keep] - pub[keep]


@dataclass(frozen=True)
class GapTests:
    """The gaps of ``m`` participants (arrays in the participants' order).

    Attributes
    ----------
    gap : ndarray
        ``private - public`` in the metric's units.
    ci_low, ci_high : ndarray
        Its interval (``method`` at ``confidence_level``).
    p_value : ndarray
        Two-sided, or one-sided "private worse" (``sides``).
    p_adjusted : ndarray
        Benjamini-Hochberg over the participants (:data:`GAP_CORRECTION`).
    flagged : ndarray of bool
        ``p_adjusted <= alpha``.
    worse : ndarray of bool
        The private score is worse than the public one (in the metric's direction).
    se : ndarray
        The gap replicates' standard deviation.
    mean_gap, mean_low, mean_high : float
        The participants' mean gap and its interval (the mean of the gap replicates).
    mean_p : float
        The p-value of the mean gap (same sides).
    method, sides, correction : str
    confidence_level, alpha : float
    n_valid : int
        Paired replicates used.
    """

    gap: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    p_value: np.ndarray
    p_adjusted: np.ndarray
    flagged: np.ndarray
    worse: np.ndarray
    se: np.ndarray
    mean_gap: float
    mean_low: float
    mean_high: float
    mean_p: float
    method: str
    sides: str
    correction: str
    confidence_level: float
    alpha: float
    n_valid: int


def _p(rows, sides, sign):
    if sides == "two":
        return rows.p_two_sided
    # private worse: a lower private score when higher is better (the gap is < 0), a higher one otherwise
    return rows.p_less if sign > 0 else rows.p_greater


def gap_tests(public, public_replicates, private, private_replicates, sign, method, confidence_level, alpha, sides):
    """The gap of every participant with its interval, p-value and false-discovery flag.

    Parameters
    ----------
    public, private : ndarray ``(m,)``
        Each participant's score on the two sets.
    public_replicates, private_replicates : ndarray ``(B1, m)``, ``(B2, m)``
    sign : {+1, -1}
        +1 when higher is better.
    method : {"percentile", "basic", "normal"}
    confidence_level, alpha : float
    sides : {"two", "one"}

    Returns
    -------
    GapTests
    """
    if method not in ("percentile", "basic", "normal"):
        raise ValueError("the gaps' interval method must be percentile, basic or normal, got %r" % (method,))
    if sides not in ("two", "one"):
        raise ValueError("sides must be 'two' or 'one', got %r" % (sides,))
    public = np.asarray(public, dtype=np.float64)
    private = np.asarray(private, dtype=np.float64)
    gap = private - public
    reps = paired_gap_replicates(public_replicates, private_replicates)
    if reps.shape[0] == 0:
        raise ValueError("no replicate has a finite score on both sets")
    scale = np.maximum(np.abs(public), np.abs(private))
    rows = interval_rows(method, reps.T, gap, confidence_level, scale=scale)
    p = _p(rows, sides, sign)
    adjusted = adjust(p, GAP_CORRECTION, alpha)
    mean = interval_rows(method, reps.mean(axis=1)[None, :], np.array([gap.mean()]), confidence_level)
    return GapTests(
        gap=gap,
        ci_low=rows.low,
        ci_high=rows.high,
        p_value=p,
        p_adjusted=adjusted,
        flagged=adjusted <= alpha,
        worse=sign * gap < 0,
        se=rows.se,
        mean_gap=float(gap.mean()),
        mean_low=float(mean.low[0]),
        mean_high=float(mean.high[0]),
        mean_p=float(_p(mean, sides, sign)[0]),
        method=method,
        sides=sides,
        correction=GAP_CORRECTION,
        confidence_level=float(confidence_level),
        alpha=float(alpha),
        n_valid=int(reps.shape[0]),
    )

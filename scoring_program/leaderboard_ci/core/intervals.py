"""Bootstrap confidence intervals: percentile, basic, BCa and normal.

All three read quantiles of the bootstrap distribution with linear
interpolation between order statistics (Hyndman & Fan type 7, numpy's and
SciPy's default), so on the same replicates they give the same endpoints as
``numpy.percentile``, ``scipy.stats.bootstrap`` and CompStats.

* ``percentile``: ``[q(a/2), q(1 - a/2)]`` with ``a = 1 - confidence_level``.
* ``basic``: ``[2*t - q(1 - a/2), 2*t - q(a/2)]`` where ``t`` is the
  full-sample value.
* ``bca``: bias-corrected and accelerated (Efron & Tibshirani 1993, 14.3;
  the same formulas as ``scipy.stats.bootstrap``): ``z0 = Phi^-1(p)`` with
  ``p = (#{t* < t} + #{t* <= t}) / (2B)``, and the acceleration ``a`` from
  the jackknife.  Where SciPy would return NaN we follow documented rules:
  if ``p`` is 0 or 1 (``t`` outside the bootstrap distribution) it is clipped
  to ``1/(2B)`` or ``1 - 1/(2B)``; if the jackknife values are all equal,
  ``a = 0``.  The interval's ``note`` says when a rule applied.
* ``normal``: ``t -/+ z * SE`` with ``z = Phi^-1(1 - a/2)`` and ``SE`` the
  standard deviation of the replicates (``ddof=1``), the bootstrap standard
  error (CompStats' normal interval; Efron & Tibshirani 1993, 13.2).

Replicates that are NaN (a group with no items in that resample) are left
out; ``n_valid`` says how many were used.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import numpy as np

from .significance import tolerance

__all__ = ["Interval", "METHODS", "confidence_interval", "quantile", "ndtr", "ndtri", "check_confidence_level"]

METHODS = ("percentile", "basic", "bca", "normal")


@dataclass(frozen=True)
class Interval:
    """A confidence interval and how it was obtained."""

    low: float
    high: float
    method: str
    confidence_level: float
    n_valid: int
    note: Optional[str] = None

    def contains(self, value):
        return self.low <= value <= self.high


def check_confidence_level(confidence_level):
    """Return ``confidence_level`` as a float in (0, 1), or raise ValueError."""
    try:
        value = float(confidence_level)
    except (TypeError, ValueError):
        raise ValueError("confidence_level must be a number between 0 and 1, got %r" % (confidence_level,))
    if isinstance(confidence_level, bool) or not 0.0 < value < 1.0:
        raise ValueError("confidence_level must be between 0 and 1 (exclusive), got %r" % (confidence_level,))
    return value


def quantile(sorted_values, q):
    """Type-7 quantile of an ascending 1-d array, computed as numpy does.

    Uses numpy's interpolation formula (``a + (b - a) * g``, or
    ``b - (b - a) * (1 - g)`` when ``g >= 0.5``) so the result equals
    ``numpy.percentile(x, 100 * q)`` on modern numpy, and is the same on numpy
    1.17, whose ``quantile`` API differs.
    """
    x = np.asarray(sorted_values, dtype=np.float64)
    count = x.shape[0]
    if count == 0:
        raise ValueError("quantile of an empty array")
    h = (count - 1) * float(q)
    lo = int(math.floor(h))
    lo = min(max(lo, 0), count - 1)
    hi = min(lo + 1, count - 1)
    g = h - lo
    a, b = float(x[lo]), float(x[hi])
    diff = b - a
    if g >= 0.5:
        return b - diff * (1.0 - g)
    return a + diff * g


# ---------------------------------------------------------------------------
# The normal distribution without SciPy (the scoring path may not import it)
# ---------------------------------------------------------------------------
_SQRT2 = math.sqrt(2.0)
_SQRT2PI = math.sqrt(2.0 * math.pi)

# Acklam's rational approximation to the normal quantile (relative error 1.2e-9),
# refined below by one Halley step to full double precision.
_A = (-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
      1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00)
_B = (-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
      6.680131188771972e+01, -1.328068155288572e+01)
_C = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
      -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00)
_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
      3.754408661907416e+00)


def ndtr(x):
    """Standard normal CDF."""
    return 0.5 * math.erfc(-float(x) / _SQRT2)


def ndtri(p):
    """Standard normal quantile (inverse CDF) for 0 < p < 1; +-inf at 1 and 0."""
    p = float(p)
    if not p == p:
        return float("nan")
    if p <= 0.0:
        return float("-inf")
    if p >= 1.0:
        return float("inf")
    low = 0.02425
    if p < low:
        q = math.sqrt(-2.0 * math.log(p))
        x = ((((( _C[0] * q + _C[1]) * q + _C[2]) * q + _C[3]) * q + _C[4]) * q + _C[5]) / \
            ((((_D[0] * q + _D[1]) * q + _D[2]) * q + _D[3]) * q + 1.0)
    elif p <= 1.0 - low:
        q = p - 0.5
        r = q * q
        x = (((((_A[0] * r + _A[1]) * r + _A[2]) * r + _A[3]) * r + _A[4]) * r + _A[5]) * q / \
            (((((_B[0] * r + _B[1]) * r + _B[2]) * r + _B[3]) * r + _B[4]) * r + 1.0)
    else:
        q = math.sqrt(-2.0 * math.log1p(-p))
        x = -((((( _C[0] * q + _C[1]) * q + _C[2]) * q + _C[3]) * q + _C[4]) * q + _C[5]) / \
            ((((_D[0] * q + _D[1]) * q + _D[2]) * q + _D[3]) * q + 1.0)
    # Halley refinement of Phi(x) - p, with each tail computed on its small side.
    for _ in range(2):
        if x < 0:
            e = 0.5 * math.erfc(-x / _SQRT2) - p
        else:
            e = (1.0 - p) - 0.5 * math.erfc(x / _SQRT2)
        u = e * _SQRT2PI * math.exp(0.5 * x * x)
        x = x - u / (1.0 + 0.5 * x * u)
    return x


# ---------------------------------------------------------------------------
# Intervals
# ---------------------------------------------------------------------------
def _valid_sorted(replicates):
    values = np.asarray(replicates, dtype=np.float64).ravel()
    values = values[~np.isnan(values)]
    values.sort()
    return values


def _acceleration(jackknife_values, jackknife_weights):
    values = np.asarray(jackknife_values, dtype=np.float64).ravel()
    weights = (np.ones_like(values) if jackknife_weights is None
               else np.asarray(jackknife_weights, dtype=np.float64).ravel())
    keep = ~np.isnan(values)
    values, weights = values[keep], weights[keep]
    if values.size == 0:
        return 0.0
    mean = float((values * weights).sum() / weights.sum())
    dev = mean - values
    den = float((weights * dev * dev).sum())
    if den <= 0.0:
        return 0.0
    return float((weights * dev ** 3).sum()) / (6.0 * den ** 1.5)


def bca_levels(sorted_values, observed, alpha, acceleration):
    """The two adjusted quantile levels of the BCa interval, and a note.

    The bias correction is ``z0 = ndtri((#{t* < t} + #{t* <= t}) / 2B)``: ties
    with the observed value count half.  A replicate with the same counts as
    the full sample can differ from it in the last bits (summation order, e.g.
    after renaming classes), so a tie is "within the tolerance of the tests",
    :func:`leaderboard_ci.core.significance.tolerance` (100 eps, relative).
    """
    count = sorted_values.shape[0]
    gamma = float(tolerance(observed, 0.0))
    below = int(np.searchsorted(sorted_values, observed - gamma, side="left"))
    at_most = int(np.searchsorted(sorted_values, observed + gamma, side="right"))
    share = (below + at_most) / (2.0 * count)
    note = None
    if share <= 0.0 or share >= 1.0:
        share = min(max(share, 0.5 / count), 1.0 - 0.5 / count)
        note = "the observed value lies outside the bootstrap distribution; z0 uses %.2g" % share
    z0 = ndtri(share)
    levels = []
    for z in (ndtri(alpha), -ndtri(alpha)):
        num = z0 + z
        den = 1.0 - acceleration * num
        if den <= 0.0:
            levels.append(0.0 if z < 0 else 1.0)
            note = "the acceleration is too large for the BCa formula; an extreme quantile was used"
        else:
            levels.append(ndtr(z0 + num / den))
    return levels[0], levels[1], note


def confidence_interval(method, replicates, observed, confidence_level, jackknife=None):
    """Confidence interval of one statistic from its bootstrap replicates.

    Parameters
    ----------
    method : {"percentile", "basic", "bca", "normal"}
    replicates : array of shape ``(B,)``
        Bootstrap replicates; NaN entries are left out.
    observed : float
        The full-sample value.
    confidence_level : float
        For example 0.95.
    jackknife : tuple ``(values, weights)``, optional
        Leave-one-out values of the statistic and their multiplicities; needed
        for ``bca``.

    Returns
    -------
    Interval
    """
    if method not in METHODS:
        raise ValueError("method must be one of: %s, got %r" % (", ".join(METHODS), method))
    confidence_level = check_confidence_level(confidence_level)
    values = _valid_sorted(replicates)
    observed = float(observed)
    if values.size == 0:
        return Interval(observed, observed, method, confidence_level, 0,
                        "no resample had items for this statistic")
    alpha = (1.0 - confidence_level) / 2.0
    note = None
    if method == "percentile":
        low, high = quantile(values, alpha), quantile(values, 1.0 - alpha)
    elif method == "normal":
        se = float(np.std(values, ddof=1)) if values.size > 1 else 0.0
        z = -ndtri(alpha)
        low, high = observed - z * se, observed + z * se
    elif method == "basic":
        low = 2.0 * observed - quantile(values, 1.0 - alpha)
        high = 2.0 * observed - quantile(values, alpha)
    else:
        if jackknife is None:
            raise ValueError("the bca method needs jackknife values")
        acceleration = _acceleration(*jackknife)
        lo_level, hi_level, note = bca_levels(values, observed, alpha, acceleration)
        low, high = quantile(values, lo_level), quantile(values, hi_level)
    return Interval(float(low), float(high), method, confidence_level, int(values.size), note)

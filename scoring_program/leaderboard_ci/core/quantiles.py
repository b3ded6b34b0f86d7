"""Type-7 quantiles and the normal distribution: the arithmetic every interval and p-value shares.

The quantile of ascending values ``s`` at level ``q`` is ``s[lo] + (s[lo+1] -
s[lo]) * g`` with ``h = (count - 1) * q``, ``lo = floor(h)``, ``g = h - lo``
(Hyndman & Fan type 7, numpy's default), computed with numpy's own
interpolation formula so that values equal ``numpy.percentile``'s.  The
interval endpoints (:mod:`.intervals`) and the p-values that invert them
(:mod:`.inversion`) both evaluate quantiles with :func:`_positions` and
:func:`_interpolate`, so an endpoint and its p-value see the same doubles.

``ndtr``/``ndtri`` are the standard normal CDF and quantile, and ``t_quantile``
Student's t quantile, without SciPy (the per-submission program may not import it).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["quantile", "ndtr", "ndtri", "t_quantile"]


def _positions(count, levels):
    """``(lo, g)`` of the type-7 quantile at ``levels``: ``h = (count - 1) * level``, ``lo = floor(h)`` (clipped)."""
    h = (count - 1) * np.asarray(levels, dtype=np.float64)
    lo = np.clip(np.floor(h).astype(np.intp), 0, count - 1)
    return lo, h - lo


def _interpolate(a, b, g):
    """numpy's interpolation between order statistics ``a <= b``.

    ``a + (b - a) g``, or ``b - (b - a)(1 - g)`` from 0.5.
    """
    diff = b - a
    return np.where(g >= 0.5, b - diff * (1.0 - g), a + diff * g)


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
    lo, g = _positions(count, float(q))
    return float(_interpolate(x[lo], x[min(int(lo) + 1, count - 1)], g))


def _quantile_rows(sorted_rows, levels):
    """Type-7 quantile of each ascending row at its own level."""
    count = sorted_rows.shape[1]
    rows = np.arange(sorted_rows.shape[0])
    lo, g = _positions(count, levels)
    return _interpolate(sorted_rows[rows, lo], sorted_rows[rows, np.minimum(lo + 1, count - 1)], g)


def _order_statistics(x, ks):
    """The ``k``-th smallest value of each row of ``x`` for every ``k`` in ``ks``.

    ``x`` is permuted in place.  One single-``kth`` partition per distinct
    position, from the largest down, each on the part of the row still left
    below the previous one; a position just below the previous one is the
    maximum of that part.  (numpy's multi-``kth`` partition is several times
    slower, and even a full sort beats it.)
    """
    values = {}
    upper = x.shape[1]
    previous = None
    for k in sorted(set(int(k) for k in ks), reverse=True):
        if previous is not None and k == previous - 1:
            values[k] = x[:, :previous].max(axis=1)
            continue
        part = x[:, :upper]
        part.partition(k, axis=1)
        values[k] = x[:, k].copy()
        upper = previous = k
    return values


def _fixed_quantiles(d, levels):
    """Quantiles at fixed levels for every row, by partial sorting in place (``d`` is permuted)."""
    count = d.shape[1]
    positions = [_positions(count, level) for level in levels]
    ks = []
    for lo, _ in positions:
        ks += [int(lo), min(int(lo) + 1, count - 1)]
    values = _order_statistics(d, ks)
    return [_interpolate(values[int(lo)], values[min(int(lo) + 1, count - 1)], g) for lo, g in positions]


# ---------------------------------------------------------------------------
# The normal distribution without SciPy (the scoring path may not import it)
# ---------------------------------------------------------------------------
_SQRT2 = math.sqrt(2.0)
_SQRT2PI = math.sqrt(2.0 * math.pi)

# Acklam's rational approximation to the normal quantile (relative error 1.2e-9),
# refined below by one Halley step to full double precision.
_A = (
    -3.969683028665376e01,
    2.209460984245205e02,
    -2.759285104469687e02,
    1.383577518672690e02,
    -3.066479806614716e01,
    2.506628277459239e00,
)
_B = (-5.447609879822406e01, 1.615858368580409e02, -1.556989798598866e02, 6.680131188771972e01, -1.328068155288572e01)
_C = (
    -7.784894002430293e-03,
    -3.223964580411365e-01,
    -2.400758277161838e00,
    -2.549732539343734e00,
    4.374664141464968e00,
    2.938163982698783e00,
)
_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e00, 3.754408661907416e00)


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
        x = (((((_C[0] * q + _C[1]) * q + _C[2]) * q + _C[3]) * q + _C[4]) * q + _C[5]) / (
            (((_D[0] * q + _D[1]) * q + _D[2]) * q + _D[3]) * q + 1.0
        )
    elif p <= 1.0 - low:
        q = p - 0.5
        r = q * q
        x = (
            (((((_A[0] * r + _A[1]) * r + _A[2]) * r + _A[3]) * r + _A[4]) * r + _A[5])
            * q
            / (((((_B[0] * r + _B[1]) * r + _B[2]) * r + _B[3]) * r + _B[4]) * r + 1.0)
        )
    else:
        q = math.sqrt(-2.0 * math.log1p(-p))
        x = -(((((_C[0] * q + _C[1]) * q + _C[2]) * q + _C[3]) * q + _C[4]) * q + _C[5]) / (
            (((_D[0] * q + _D[1]) * q + _D[2]) * q + _D[3]) * q + 1.0
        )
    # Halley refinement of Phi(x) - p, with each tail computed on its small side.
    for _ in range(2):
        if x < 0:
            e = 0.5 * math.erfc(-x / _SQRT2) - p
        else:
            e = (1.0 - p) - 0.5 * math.erfc(x / _SQRT2)
        u = e * _SQRT2PI * math.exp(0.5 * x * x)
        x = x - u / (1.0 + 0.5 * x * u)
    return x


def _t_central(t, df):
    """``P(|T| <= t)`` for Student's t with an integer ``df`` (Abramowitz & Stegun 26.7.3-26.7.4), ``t >= 0``."""
    theta = math.atan(t / math.sqrt(df))
    c2 = math.cos(theta) ** 2
    if df % 2:  # odd: (2/pi) (theta + sin cos (1 + 2/3 c2 + 2*4/(3*5) c2^2 + ...)), df - 3 powers of cos
        term, total = 1.0, 1.0
        for k in range(1, (df - 1) // 2):
            term *= c2 * (2.0 * k) / (2.0 * k + 1.0)
            total += term
        return 2.0 / math.pi * (theta + math.sin(theta) * math.cos(theta) * (total if df > 1 else 0.0))
    term, total = 1.0, 1.0  # even: sin (1 + 1/2 c2 + 1*3/(2*4) c2^2 + ...), df - 2 powers of cos
    for k in range(1, df // 2):
        term *= c2 * (2.0 * k - 1.0) / (2.0 * k)
        total += term
    return math.sin(theta) * total


def t_quantile(p, df):
    """Student's t quantile for ``0.5 < p < 1`` and an integer ``df >= 1``.

    Up to ``df = 200`` the exact central probability (Abramowitz & Stegun 26.7.3-26.7.4)
    inverted by bisection to about 1e-12; beyond, the Cornish-Fisher expansion in ``1/df``
    (A&S 26.7.5, four terms: error below 1e-12 there).

    >>> round(t_quantile(0.975, 10), 4), round(t_quantile(0.975, 49), 4)
    (2.2281, 2.0096)
    """
    p, df = float(p), int(df)
    if not 0.5 < p < 1.0 or df < 1:
        raise ValueError("t_quantile needs 0.5 < p < 1 and df >= 1, got p = %r, df = %r" % (p, df))
    z = ndtri(p)
    if df > 200:
        z2 = z * z
        g1 = (z2 + 1.0) * z / 4.0
        g2 = ((5.0 * z2 + 16.0) * z2 + 3.0) * z / 96.0
        g3 = (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) * z / 384.0
        g4 = ((((79.0 * z2 + 776.0) * z2 + 1482.0) * z2 - 1920.0) * z2 - 945.0) * z / 92160.0
        return z + g1 / df + g2 / df**2 + g3 / df**3 + g4 / df**4
    target = 2.0 * p - 1.0
    lo, hi = z, max(2.0 * z, 1.0)
    while _t_central(hi, df) < target:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if _t_central(mid, df) < target:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-13 * hi:
            break
    return 0.5 * (lo + hi)

"""Bootstrap confidence intervals and the p-values that invert them.

One vectorized implementation, :func:`interval_rows`, computes every interval
and its p-values for many statistics at once (one row of replicates each);
:func:`confidence_interval` is the same code on one row.

Intervals
---------
All read quantiles of the bootstrap distribution with linear interpolation
between order statistics (Hyndman & Fan type 7, numpy's and SciPy's default),
``Q(q) = s[lo] + (s[lo+1] - s[lo]) * g`` with ``h = (B - 1) q``, ``lo =
floor(h)``, ``g = h - lo`` and ``s`` the sorted replicates, so on the same
replicates they give the same endpoints as ``numpy.percentile``,
``scipy.stats.bootstrap`` and CompStats.  With ``a = (1 - confidence_level) / 2``:

* ``percentile``: ``[Q(a), Q(1 - a)]``.
* ``basic``: ``[2t - Q(1 - a), 2t - Q(a)]`` where ``t`` is the full-sample
  value.
* ``bca``: bias-corrected and accelerated (Efron & Tibshirani 1993, 14.3;
  the same formulas as ``scipy.stats.bootstrap``): ``[Q(l(a)), Q(u(a))]`` with
  ``l(a) = Phi(z0 + (z0 + z) / (1 - acc (z0 + z)))`` for ``z = Phi^-1(a)``
  (``u`` the same with ``z = -Phi^-1(a)``), ``z0 = Phi^-1(p)``,
  ``p = (#{t* < t} + #{t* <= t}) / (2B)`` and the acceleration ``acc`` from
  the jackknife.  Where SciPy would return NaN we follow documented rules:
  if ``p`` is 0 or 1 (``t`` outside the bootstrap distribution) it is clipped
  to ``1/(2B)`` or ``1 - 1/(2B)``; if the jackknife values are all equal,
  ``acc = 0``; if ``1 - acc (z0 + z) <= 0`` the level is 0 (lower end) or 1
  (upper end).  The interval's ``note`` says when a rule applied.
* ``normal``: ``t -/+ z * SE`` with ``z = -Phi^-1(a)`` and ``SE`` the
  standard deviation of the replicates (``ddof=1``), the bootstrap standard
  error (Efron & Tibshirani 1993, 13.2).

p-values: the inversion of the interval
---------------------------------------
Each interval comes with three p-values defined so that, for every
confidence level ``L`` (``alpha = 1 - L``),

* ``p_greater < alpha / 2``  <=>  the level-``L`` interval's low end is > 0,
* ``p_less < alpha / 2``     <=>  its high end is < 0,
* ``p_two_sided = min(1, 2 * min(p_greater, p_less))``, so
  ``p_two_sided < alpha``  <=>  the interval excludes 0 (computed from the
  one-sided values before their floor, see below).

``p_greater`` is the one-sided p-value of "the statistic is > 0" (for an
oriented difference: the first system is better).  Each is the largest level
``a`` at which the interval's end still reaches 0:

* ``percentile``: ``p_greater = sup{q : Q(q) <= 0}`` and ``p_less = sup{x :
  Q(1 - x) >= 0}``, found by inverting the piecewise-linear ``Q`` where it
  crosses 0 (flat stretches and ties at 0 included); 0 if every replicate is
  on the other side, 1 if every replicate is on this side.
* ``basic``: the same inversion at ``2t`` instead of 0 (the end ``2t - Q(1 -
  a)`` is > 0 exactly when ``Q(1 - a) < 2t``).
* ``bca``: ``q0`` (the percentile inversion at 0) mapped back through the
  level map: the ``a`` with ``l(a) = q0``, i.e. ``w = Phi^-1(q0) - z0``,
  ``z = w / (1 + acc w) - z0``, ``p_greater = Phi(z)`` (and the mirror image
  for ``p_less``).
* ``normal``: ``p_greater = Phi(-t / SE)``, ``p_less = Phi(t / SE)``; with
  ``SE = 0`` the interval is the point ``t``: ``p = 1`` on the side of ``t``
  (both sides if ``t = 0``), the smallest p on the other.

The formulas give the value; the code then settles it exactly in floating
point: the p-value is the largest double ``a`` for which the endpoint, computed
by the very arithmetic that computes the interval (the type-7 quantile of
:mod:`.quantiles`, the BCa level map, ``t - z * SE``), does not exclude 0,
found by bisection on the bit patterns of doubles (:mod:`.inversion`).  So the equivalences hold
bit for bit, not only up to rounding.  (They rely on each endpoint being
monotone in ``a``, which the formulas are; the one exception is the BCa rule
for a too large acceleration, where the interval itself is not monotone in the
level: its note says so.)

Every p-value (one- and two-sided) is then floored at ``1 / (B + 1)`` and
capped at 1 (a bootstrap with ``B`` replicates cannot show a smaller
probability; never 0), so the two-sided equivalence holds for every ``alpha >
1 / (B + 1)`` and the one-sided ones for every ``alpha > 2 / (B + 1)``; at
smaller ``alpha`` the interval's ends lie between the two most extreme
replicates, and no p-value rejects.  (The two-sided floor applies to
``2 * min`` of the unfloored one-sided values, so it is ``1/(B+1)``, not
``2/(B+1)``: a Bonferroni or Holm correction over ``m`` comparisons can reject
once ``B + 1 > m / alpha``.)  With ``scale`` given (the magnitude of the compared scores), a
difference whose replicates and observed value are all within the tolerance
of :func:`leaderboard_ci.core.significance.tolerance` of 0 (a system against
an identical copy, up to summation order) gets ``p = 1`` and an interval
widened to contain 0.

Replicates that are NaN (a group with no items in that resample) are left
out; ``n_valid`` says how many were used.

References
----------
Efron, B. & Tibshirani, R. (1993). *An Introduction to the Bootstrap*,
sections 12.5, 13.2-13.3, 14.3 and 16.4 (the percentile interval and the test
it implies).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from .inversion import _TOO_LARGE, _basic_p, _bca_level, _bca_p, _Crossing, _normal_p, _percentile_p
from .quantiles import _fixed_quantiles, _quantile_rows, ndtr, ndtri, quantile  # noqa: F401 (ndtr, quantile: API)
from .significance import tolerance

__all__ = [
    "Interval",
    "IntervalRows",
    "METHODS",
    "confidence_interval",
    "interval_rows",
    "quantile",
    "ndtr",
    "ndtri",
    "check_confidence_level",
    "acceleration_rows",
]

METHODS = ("percentile", "basic", "bca", "normal")


@dataclass(frozen=True)
class Interval:
    """A confidence interval, how it was obtained, and the p-values it implies.

    ``p_greater``, ``p_less`` and ``p_two_sided`` are the inversion of the
    interval (see the module docstring); ``se`` is the bootstrap standard
    error.  Intervals not computed from bootstrap replicates (a task's own
    analytic interval) leave them None.
    """

    low: float
    high: float
    method: str
    confidence_level: float
    n_valid: int
    note: Optional[str] = None
    p_greater: Optional[float] = None
    p_less: Optional[float] = None
    p_two_sided: Optional[float] = None
    se: Optional[float] = None

    def contains(self, value):
        return self.low <= value <= self.high


@dataclass(frozen=True)
class IntervalRows:
    """Intervals and p-values of many statistics, one entry per row of replicates.

    Attributes
    ----------
    low, high : ndarray ``(P,)``
    p_greater, p_less, p_two_sided : ndarray ``(P,)``
        The inverted-interval p-values (module docstring).
    se : ndarray ``(P,)``
        Standard deviation of each row's replicates (``ddof=1``; 0 with fewer than 2).
    n_valid : int
        Replicates per row.
    notes : tuple
        Per row, None or a sentence (BCa rules).
    """

    low: np.ndarray
    high: np.ndarray
    p_greater: np.ndarray
    p_less: np.ndarray
    p_two_sided: np.ndarray
    se: np.ndarray
    n_valid: int
    notes: tuple


def check_confidence_level(confidence_level):
    """Return ``confidence_level`` as a float in (0, 1), or raise ValueError."""
    try:
        value = float(confidence_level)
    except (TypeError, ValueError):
        raise ValueError("confidence_level must be a number between 0 and 1, got %r" % (confidence_level,))
    if isinstance(confidence_level, bool) or not 0.0 < value < 1.0:
        raise ValueError("confidence_level must be between 0 and 1 (exclusive), got %r" % (confidence_level,))
    return value


def _check_method(method):
    if method not in METHODS:
        raise ValueError("method must be one of: %s, got %r" % (", ".join(METHODS), method))


# ---------------------------------------------------------------------------
# BCa pieces
# ---------------------------------------------------------------------------
def acceleration_rows(values, weights=None):
    """BCa acceleration of each row of jackknife values ``(P, n)`` (weights: multiplicities ``(n,)``).

    ``sum(w dev^3) / (6 sum(w dev^2)^1.5)`` with ``dev = mean - value``; 0 where
    the values are all equal.  NaN values must be removed by the caller.
    """
    values = np.asarray(values, dtype=np.float64)
    if weights is None:
        mean = values.sum(axis=1, keepdims=True) / values.shape[1]
        dev = mean - values
        den = (dev * dev).sum(axis=1)
        num = (dev**3).sum(axis=1)
    else:
        weights = np.asarray(weights, dtype=np.float64)
        mean = (values * weights).sum(axis=1, keepdims=True) / weights.sum()
        dev = mean - values
        den = (weights * dev * dev).sum(axis=1)
        num = (weights * dev**3).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        acc = num / (6.0 * den**1.5)
    return np.where(den > 0, acc, 0.0)


_OUTSIDE = "the observed value lies outside the bootstrap distribution; z0 uses %.2g"


def _bca_z0(sorted_rows, observed):
    """``z0`` per row and the clipped share (None where not clipped).

    Ties with the observed value count half; a tie is "within the tolerance of
    the tests" (:func:`leaderboard_ci.core.significance.tolerance`), because a
    replicate with the same counts as the full sample can differ from it in the
    last bits (summation order).
    """
    count = sorted_rows.shape[1]
    gamma = tolerance(observed, 0.0)
    below = (sorted_rows < (observed - gamma)[:, None]).sum(axis=1)
    at_most = (sorted_rows <= (observed + gamma)[:, None]).sum(axis=1)
    share = (below + at_most) / (2.0 * count)
    clipped = (share <= 0.0) | (share >= 1.0)
    share = np.clip(share, 0.5 / count, 1.0 - 0.5 / count)
    return [ndtri(s) for s in share], [float(s) if c else None for s, c in zip(share, clipped)]


# ---------------------------------------------------------------------------
# The implementation
# ---------------------------------------------------------------------------
def _row_se(d):
    """Standard deviation (``ddof=1``) of each row; 0 with fewer than 2 values.

    From the sums of ``x`` and ``x**2`` (two passes, no copy); rows where that
    would lose more than about 6 digits to cancellation (a spread below 1/1000
    of the mean) are recomputed from the centred values.
    """
    count = d.shape[1]
    if count < 2:
        return np.zeros(d.shape[0])
    s1 = d.sum(axis=1)
    mean = s1 / count
    var = (np.einsum("ij,ij->i", d, d) - s1 * mean) / (count - 1)
    redo = np.flatnonzero(~(var > 1e-6 * mean * mean))
    if redo.size:
        centred = d[redo] - mean[redo, None]
        var[redo] = np.einsum("ij,ij->i", centred, centred) / (count - 1)
    return np.sqrt(var)


def interval_rows(method, replicates, observed, confidence_level, acceleration=None, scale=None, overwrite=False):
    """Intervals and inverted-interval p-values of many statistics (one per row).

    Parameters
    ----------
    method : {"percentile", "basic", "bca", "normal"}
    replicates : ndarray ``(P, B)``
        Bootstrap replicates of each statistic, without NaN, ``B >= 1``.
    observed : ndarray ``(P,)``
        Full-sample values.
    confidence_level : float
    acceleration : ndarray ``(P,)``, optional
        BCa accelerations (:func:`acceleration_rows`); needed for ``bca``.
    scale : ndarray ``(P,)``, optional
        Magnitude of the compared scores when the rows are differences: turns
        on the identical-copy rule (p = 1, interval containing 0) for rows
        within the tolerance of 0.
    overwrite : bool
        Let the function permute ``replicates`` in place (saves a copy).

    Returns
    -------
    IntervalRows

    Notes
    -----
    The standard error is taken first, on the rows as given (for ``normal``
    on the sorted rows, the arithmetic its endpoints always had: the values
    agree to rounding); the percentile and basic endpoints come from partial
    sorts (``numpy.partition``) and the BCa ones from a full sort.  See the module docstring for the
    definitions.
    """
    d, observed, confidence_level = _checked_rows(method, replicates, observed, confidence_level, acceleration)
    if not (overwrite and d.flags.c_contiguous and d.flags.writeable):
        d = np.array(d, dtype=np.float64, order="C")
    rows, count = d.shape
    if method == "normal" and count > 1:  # on the sorted replicates: the normal interval's arithmetic, bit for bit
        se = np.std(np.sort(d, axis=1), axis=1, ddof=1)
    else:
        se = _row_se(d)
    identical = _identical_rows(d, observed, scale)
    low, high, p_g, p_l, notes = _endpoint_rows(method, d, observed, (1.0 - confidence_level) / 2.0, se, acceleration)
    low, high, p_g, p_l, p_two = _floored_rows(low, high, p_g, p_l, identical, count)
    return IntervalRows(low, high, p_g, p_l, p_two, se, int(count), notes)


def _jackknife_acceleration(jackknife):
    """The BCa acceleration ``(1,)`` of ``(values, weights or None)`` without its NaN values (0 when none is left)."""
    if jackknife is None:
        raise ValueError("the bca method needs jackknife values")
    jk_values = np.asarray(jackknife[0], dtype=np.float64).ravel()
    jk_weights = jackknife[1]
    keep = ~np.isnan(jk_values)
    if jk_weights is not None:
        jk_weights = np.asarray(jk_weights, dtype=np.float64).ravel()[keep]
    jk_values = jk_values[keep]
    return acceleration_rows(jk_values[None, :], jk_weights) if jk_values.size else np.zeros(1)


def _checked_rows(method, replicates, observed, confidence_level, acceleration):
    """``(replicates, observed, confidence_level)`` as float64 arrays and a float; ValueError if malformed."""
    _check_method(method)
    confidence_level = check_confidence_level(confidence_level)
    d = np.asarray(replicates, dtype=np.float64)
    observed = np.asarray(observed, dtype=np.float64).reshape(-1)
    if d.ndim != 2 or d.shape[0] != observed.shape[0] or d.shape[1] == 0:
        raise ValueError(
            "replicates must have shape (P, B) with B >= 1 and observed shape (P,); got %s and %s"
            % (d.shape, observed.shape)
        )
    if method == "bca" and acceleration is None:
        raise ValueError("the bca method needs jackknife values")
    return d, observed, confidence_level


def _identical_rows(d, observed, scale):
    """The rows of an identical copy: observed and replicates within the tolerance of 0 (none without ``scale``)."""
    identical = np.zeros(d.shape[0], dtype=bool)
    if scale is not None:
        gamma = tolerance(scale, observed)
        near = np.flatnonzero(np.abs(observed) <= gamma)
        if near.size:
            sub = d[near]
            identical[near] = (sub.max(axis=1) <= gamma[near]) & (sub.min(axis=1) >= -gamma[near])
    return identical


def _endpoint_rows(method, d, observed, alpha, se, acceleration):
    """``(low, high, p_greater, p_less, notes)`` of every row by ``method`` (``d`` is sorted or permuted)."""
    rows = d.shape[0]
    if method == "normal":
        z = -ndtri(alpha)
        p_g, p_l = _normal_p(observed, se)
        return observed - z * se, observed + z * se, p_g, p_l, (None,) * rows
    if method == "bca":
        return _bca_rows(d, observed, alpha, acceleration)
    c = np.zeros(rows) if method == "percentile" else 2.0 * observed
    cross = _Crossing(d, c)
    q_low, q_high = _fixed_quantiles(d, (alpha, 1.0 - alpha))  # permutes d
    if method == "percentile":
        p_g, p_l = _percentile_p(cross)
        return q_low, q_high, p_g, p_l, (None,) * rows
    p_g, p_l = _basic_p(cross)
    return 2.0 * observed - q_high, 2.0 * observed - q_low, p_g, p_l, (None,) * rows


def _bca_rows(d, observed, alpha, acceleration):
    """BCa endpoints, p-values and notes of every row (sorts ``d`` in place)."""
    rows = d.shape[0]
    cross = _Crossing(d, np.zeros(rows))
    d.sort(axis=1)
    acc = np.asarray(acceleration, dtype=np.float64).reshape(-1)
    z0, clipped = _bca_z0(d, observed)
    z_alpha = ndtri(alpha)
    levels = np.empty((2, rows))
    note_list = []
    for j in range(rows):
        note = None if clipped[j] is None else _OUTSIDE % clipped[j]
        for side, z in enumerate((z_alpha, -z_alpha)):
            levels[side, j], rule = _bca_level(z0[j], acc[j], z)
            if rule:
                note = _TOO_LARGE
        note_list.append(note)
    p_g, p_l = _bca_p(cross, z0, acc)
    return _quantile_rows(d, levels[0]), _quantile_rows(d, levels[1]), p_g, p_l, tuple(note_list)


def _floored_rows(low, high, p_g, p_l, identical, count):
    """``(low, high, p_greater, p_less, p_two_sided)``: p-values within ``[1/(B + 1), 1]``, identical copies at p = 1.

    An identical copy's interval is widened to contain 0.  -0.0 and 0.0 compare equal, so which
    one a partial sort returns as a quantile depends on numpy's version (oriented differences
    of "lower is better" metrics hold -0.0): adding 0.0 makes every zero +0.0 and changes
    nothing else, so endpoints are the same bytes everywhere.
    """
    rows = identical.shape[0]
    floor = 1.0 / (count + 1.0)
    p_two = np.maximum(np.minimum(1.0, 2.0 * np.minimum(p_g, p_l)), floor)
    p_g = np.minimum(np.maximum(p_g, floor), 1.0)
    p_l = np.minimum(np.maximum(p_l, floor), 1.0)
    low = np.array(low, dtype=np.float64).reshape(rows)
    high = np.array(high, dtype=np.float64).reshape(rows)
    if np.any(identical):
        p_g[identical] = 1.0
        p_l[identical] = 1.0
        p_two[identical] = 1.0
        low[identical] = np.minimum(low[identical], 0.0)
        high[identical] = np.maximum(high[identical], 0.0)
    low += 0.0
    high += 0.0
    return low, high, p_g, p_l, p_two


def confidence_interval(method, replicates, observed, confidence_level, jackknife=None, scale=None):
    """Confidence interval of one statistic from its bootstrap replicates, with its p-values.

    The one-row case of :func:`interval_rows`.

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
    scale : float, optional
        For a difference of two scores, their magnitude: a difference within
        the tolerance of 0 everywhere (an identical copy) then gets p = 1.

    Returns
    -------
    Interval
        With ``p_greater`` (one-sided p-value that the statistic is > 0),
        ``p_less`` and ``p_two_sided``: ``p_two_sided < 1 - confidence_level``
        exactly when the interval excludes 0 (module docstring).

    Examples
    --------
    >>> iv = confidence_interval("percentile", [0.1, 0.2, 0.3, 0.4], 0.25, 0.5)
    >>> (round(iv.low, 3), round(iv.high, 3), iv.p_two_sided)
    (0.175, 0.325, 0.4)
    """
    _check_method(method)
    confidence_level = check_confidence_level(confidence_level)
    values = np.asarray(replicates, dtype=np.float64).ravel()
    values = values[~np.isnan(values)]
    observed = float(observed)
    if values.size == 0:
        empty = "no resample had items for this statistic"
        return Interval(observed, observed, method, confidence_level, 0, empty, 1.0, 1.0, 1.0, 0.0)
    acceleration = _jackknife_acceleration(jackknife) if method == "bca" else None
    scale = None if scale is None else np.array([float(scale)])
    rows = interval_rows(method, values[None, :], np.array([observed]), confidence_level, acceleration, scale, True)
    return _first_interval(rows, method, confidence_level)


def _first_interval(rows, method, confidence_level):
    """The :class:`Interval` of the first row of :class:`IntervalRows` ``rows``."""
    return Interval(
        float(rows.low[0]),
        float(rows.high[0]),
        method,
        confidence_level,
        rows.n_valid,
        rows.notes[0],
        float(rows.p_greater[0]),
        float(rows.p_less[0]),
        float(rows.p_two_sided[0]),
        float(rows.se[0]),
    )

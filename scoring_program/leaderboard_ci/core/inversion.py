"""The exact inversion of an interval: the largest level at which its end still reaches a threshold.

:func:`leaderboard_ci.core.intervals.interval_rows` gets its p-values here
(the definitions are in that module's docstring).  Each p-value is the
largest double ``a`` at which the interval's end, computed by the very
arithmetic that computes the interval, does not exclude 0; found by bisection
on the bit patterns of doubles, started from the formula's value.
"""

from __future__ import annotations

import struct

import numpy as np

from .quantiles import _interpolate, _positions, ndtr, ndtri

_TOO_LARGE = "the acceleration is too large for the BCa formula; an extreme quantile was used"


def _bca_level(z0, acc, z):
    """The BCa quantile level for the normal quantile ``z`` (``z < 0``: lower end), and whether the rule applied."""
    num = z0 + z
    den = 1.0 - acc * num
    if den <= 0.0:
        return (0.0 if z < 0 else 1.0), True
    return ndtr(z0 + num / den), False


_TINY = 1e-300  # the smallest level tried for the normal-quantile based methods (Phi^-1(0) is -inf)


def _bits(x):
    return struct.unpack("<q", struct.pack("<d", x))[0]


def _float(bits):
    return struct.unpack("<d", struct.pack("<q", bits))[0]


def _last_true_rows(pred, lo, hi, guess=None):
    """Per row, the largest double in ``[lo, hi]`` where ``pred`` holds, for ``pred(lo)`` true and ``pred(hi)`` false.

    ``lo, hi >= 0``; bisection on the bit patterns (ordered like the values for
    non-negative doubles).  ``guess`` (the formula's value) narrows the start
    to 4096 doubles either side where it brackets the answer.
    """
    ilo = np.ascontiguousarray(lo, dtype=np.float64).view(np.int64).copy()
    ihi = np.ascontiguousarray(hi, dtype=np.float64).view(np.int64).copy()
    if guess is not None:
        g = np.clip(np.nan_to_num(np.asarray(guess, dtype=np.float64)), 0.0, 1.0).view(np.int64)
        a = np.maximum(ilo, g - 4096)
        b = np.minimum(ihi, g + 4096)
        ok_a = pred(a.view(np.float64))
        ok_b = pred(b.view(np.float64))
        ilo = np.where(ok_a, np.where(ok_b, b, a), ilo)
        ihi = np.where(ok_a, np.where(ok_b, ihi, b), a)
    while True:
        gap = ihi - ilo
        if not np.any(gap > 1):
            return ilo.view(np.float64)
        mid = ilo + gap // 2
        ok = pred(mid.view(np.float64))
        ilo = np.where(ok, mid, ilo)
        ihi = np.where(ok, ihi, mid)


def _last_true(pred, guess, lo=_TINY, hi=0.5):
    """The largest double ``a`` in ``[lo, hi]`` with ``pred(a)``, for a monotone (true, then false) ``pred``.

    Returns None if ``pred(lo)`` is false, and ``hi`` if ``pred(hi)`` is true.
    ``guess`` (the formula's value) narrows the bisection to a few thousand
    doubles when it brackets the answer.
    """
    if not pred(lo):
        return None
    if pred(hi):
        return hi
    ilo, ihi = _bits(lo), _bits(hi)
    if guess == guess and lo < guess < hi:
        g = _bits(guess)
        a, b = max(ilo, g - 4096), min(ihi, g + 4096)
        if pred(_float(a)):
            ilo = a
            if not pred(_float(b)):
                ihi = b
        else:
            ihi = a
    while ihi - ilo > 1:
        mid = ilo + (ihi - ilo) // 2
        if pred(_float(mid)):
            ilo = mid
        else:
            ihi = mid
    return _float(ilo)


class _Crossing(object):
    """Where each row's type-7 quantile function crosses a threshold ``c`` (per row).

    ``n_lt``/``n_le``: replicates ``< c`` / ``<= c``; ``max_lt``, ``max_le``,
    ``min_gt``, ``min_ge`` the order statistics around the crossing (values
    equal to ``c`` are ``c``).  The order of each row does not matter.
    """

    def __init__(self, d, c):
        count = d.shape[1]
        self.count = count
        self.c = c
        if not np.any(c):
            # c = 0: the extremes come from the bit patterns, without a masked copy.  As unsigned
            # integers positive doubles come first, in order (+0.0 is 0), then the negative ones
            # (-0.0 is 2**63); as signed integers negative doubles come first, the one nearest 0
            # (or -0.0) lowest.  Rows with a zero are done the slow way below.
            low_pos = d.view(np.uint64).min(axis=1)
            low_neg = d.view(np.int64).min(axis=1)
            has_pos = low_pos < np.uint64(1 << 63)
            has_neg = low_neg < 0
            self.min_gt = np.where(has_pos, low_pos.view(np.float64), np.inf)
            self.max_lt = np.where(has_neg, low_neg.view(np.float64), -np.inf)
            zeros = (low_pos == 0) | (low_neg == np.iinfo(np.int64).min)
            self.n_lt = np.zeros(d.shape[0], dtype=np.intp)
            self.n_le = np.full(d.shape[0], count, dtype=np.intp)
            both = np.flatnonzero(has_pos & has_neg & ~zeros)
            if both.size == d.shape[0]:
                self.n_lt = np.count_nonzero(d < 0.0, axis=1)
                self.n_le = self.n_lt.copy()
            elif both.size:
                self.n_lt[both] = np.count_nonzero(d[both] < 0.0, axis=1)
                self.n_le[both] = self.n_lt[both]
            # only one sign, no zero: every replicate > 0 (n_le = 0) or < 0 (n_lt = count)
            only_pos = has_pos & ~has_neg & ~zeros
            self.n_le[only_pos] = 0
            only_neg = has_neg & ~has_pos & ~zeros
            self.n_lt[only_neg] = count
            slow = np.flatnonzero(zeros)
            if slow.size:
                self._masked(d[slow], c[slow], slow)
        else:
            self.n_lt = np.empty(d.shape[0], dtype=np.intp)
            self.n_le = np.empty(d.shape[0], dtype=np.intp)
            self.max_lt = np.empty(d.shape[0])
            self.min_gt = np.empty(d.shape[0])
            self._masked(d, c, slice(None))
        ties = self.n_le > self.n_lt
        self.max_le = np.where(ties, c, self.max_lt)
        self.min_ge = np.where(ties, c, self.min_gt)

    def _masked(self, d, c, where):
        lt = d < c[:, None]
        gt = d > c[:, None]
        self.n_lt[where] = np.count_nonzero(lt, axis=1)
        self.n_le[where] = d.shape[1] - np.count_nonzero(gt, axis=1)
        self.max_lt[where] = np.where(lt, d, -np.inf).max(axis=1)
        self.min_gt[where] = np.where(gt, d, np.inf).min(axis=1)

    def _solve(self, k, a, b, op, below, flip, empty, full):
        """Largest ``x`` in [0, 1] where ``op(Q(level), c)`` holds, ``level = 1 - x`` if ``flip`` else ``x``.

        The crossing is in segment ``k - 1`` of the sorted row (``a``, ``b`` its
        ends); left of it the test is ``below``.  ``empty``/``full``: the answer
        where ``k`` is 0 / ``count``.
        """
        n = self.count
        out = np.where(k == 0, empty, full).astype(np.float64)
        sel = np.flatnonzero((k > 0) & (k < n))
        if sel.size:
            a, b, k, c = a[sel], b[sel], k[sel], self.c[sel]

            def holds(x):
                lo, g = _positions(n, 1.0 - x if flip else x)
                inside = op(_interpolate(a, b, g), c)
                return np.where(lo < k - 1, below, np.where(lo > k - 1, not below, inside))

            # the formula: Q crosses c at h = k - 1 + (c - a) / (b - a)
            with np.errstate(divide="ignore", invalid="ignore"):
                level = (k - 1 + (c - a) / (b - a)) / (n - 1)
            out[sel] = _last_true_rows(holds, np.zeros(sel.size), np.ones(sel.size), 1.0 - level if flip else level)
        return out

    def last_at_most(self):
        """Largest ``q`` with ``Q(q) <= c``; -1 where none (every replicate > c), 1 where every one is <= c."""
        return self._solve(self.n_le, self.max_le, self.min_gt, np.less_equal, True, False, -1.0, 1.0)

    def last_below(self):
        """Largest ``q`` with ``Q(q) < c``; -1 where none, 1 where every replicate is < c."""
        return self._solve(self.n_lt, self.max_lt, self.min_ge, np.less, True, False, -1.0, 1.0)

    def last_upper_at_least(self):
        """Largest ``x`` with ``Q(1 - x) >= c`` (``1 - x`` rounded as the interval rounds it); 0 where none."""
        return self._solve(self.n_lt, self.max_lt, self.min_ge, np.greater_equal, False, True, 1.0, 0.0)


def _percentile_p(cross):
    """``(p_greater, p_less)`` of the percentile interval (raw, before floor)."""
    return np.maximum(cross.last_at_most(), 0.0), cross.last_upper_at_least()


def _basic_p(cross):
    """``(p_greater, p_less)`` of the basic interval: the percentile inversion at ``2t`` with the sides swapped."""
    return cross.last_upper_at_least(), np.maximum(cross.last_at_most(), 0.0)


def _bca_p(cross, z0, acc):
    """``(p_greater, p_less)`` of the BCa interval: the percentile inversion at 0 mapped through the level map."""
    top = cross.last_at_most()  # low end <= 0  <=>  l(a) <= top
    below = cross.last_below()  # high end >= 0  <=>  u(a) > below
    p_g = np.empty(top.shape)
    p_l = np.empty(top.shape)
    for j in range(top.shape[0]):
        p_g[j] = _bca_side(float(top[j]), float(z0[j]), float(acc[j]), lower=True)
        p_l[j] = _bca_side(float(below[j]), float(z0[j]), float(acc[j]), lower=False)
    return p_g, p_l


def _bca_side(edge, z0, acc, lower):
    if edge < 0.0:  # lower: every replicate > 0, the low end is > 0 at every level; upper: high end never < 0
        return 0.0 if lower else 1.0
    if edge >= 1.0:
        return 1.0 if lower else 0.0
    if lower:

        def holds(a):
            return _bca_level(z0, acc, ndtri(a))[0] <= edge
    else:

        def holds(a):
            return _bca_level(z0, acc, -ndtri(a))[0] > edge

    # the formula: l(a) = edge for z = ndtri(a) (lower end) or -ndtri(a) (upper end)
    w = ndtri(edge) - z0
    den = 1.0 + acc * w
    if den > 0:
        num = w / den
        guess = ndtr(num - z0) if lower else ndtr(z0 - num)
    else:
        guess = float("nan")
    return _normal_side(holds, guess)


def _normal_side(holds, guess):
    a = _last_true(holds, guess)
    if a is None:
        return 0.0
    if a == 0.5:  # the end reaches 0 at every level: the formula's value (at least 0.5)
        return min(1.0, max(0.5, guess)) if guess == guess else 1.0
    return a


def _normal_p(observed, se):
    p_g = np.empty(observed.shape)
    p_l = np.empty(observed.shape)
    for j in range(observed.shape[0]):
        t, s = float(observed[j]), float(se[j])
        if s == 0.0:
            p_g[j] = 1.0 if t <= 0 else 0.0
            p_l[j] = 1.0 if t >= 0 else 0.0
            continue
        # low end t - z s <= 0 and high end t + z s >= 0, with z = -ndtri(a) as the interval computes it
        p_g[j] = _normal_side(lambda a, t=t, s=s: t - (-ndtri(a)) * s <= 0.0, ndtr(-t / s))
        p_l[j] = _normal_side(lambda a, t=t, s=s: t + (-ndtri(a)) * s >= 0.0, ndtr(t / s))
    return p_g, p_l

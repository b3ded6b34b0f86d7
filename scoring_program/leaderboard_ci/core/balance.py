"""Balance for the max-t family: near-copy pairs go through their own bootstrap distribution.

The max-t step-down (:mod:`leaderboard_ci.core.simultaneous`) compares every pair's
studentized difference ``t = delta / se`` with one critical value, the quantile of the
maximum over the pairs of the replicates' ``t*``.  The maximum is fair to pairs whose
``t*`` are close to normal; a pair of *near-copies* (two runs that differ on a handful of
items: seeds of one model) has a discrete, heavy-tailed ``t*`` whose extremes lie far
beyond a normal pair's, so the maximum is theirs and everyone's critical value rises
(in a 61-system ROC-AUC phase with twelve seeds of one model, from 3.96 to 4.19 standard
errors, the Gaussian Bonferroni bound for its 1,830 pairs).

Balance (Beran 1988; Romano & Wolf 2005, 2010) sends each pair's statistic through its own
bootstrap distribution before the maximum: ``z = Phi^-1(H_j(t))`` with ``H_j`` the
distribution of the pair's ``t*``, so that every pair has the same (normal) marginal
distribution and weighs alike in the maximum.  Its empirical version resolves tail
probabilities down to ``1/B`` only, while the maximum over many pairs needs them far
below that (near 4 standard errors at 60 systems, a tail of 3e-5), and its Monte-Carlo
noise at the observed value is larger than the studentization's.  So:

* a pair keeps ``z = t`` (the normal distribution's own transform, exact in every tail)
  unless it is a **near-copy**: its difference varies less across resamples than either
  system's score (``se < min(se_a, se_b)``: the two runs rise and fall together) *and*
  its replicates are measurably non-normal (``|skewness| > 6 sqrt(6/B)`` or excess
  kurtosis ``> 6 sqrt(24/B)``, six Monte-Carlo standard errors of a normal sample's), with
  ``B >= 100``;
* a near-copy's transform ``g_j`` is its smoothed empirical one: through the knots
  ``(Q_j(Phi(z)), z)`` for ``z`` on a grid of step 0.05 from ``-z0`` to ``z0`` (``Q_j`` the
  type-7 quantile of its ``t*``, ``z0 = Phi^-1(1 - k0/B)``, ``k0 = max(10, B/200)``
  replicates beyond each end), linear between knots (a run of equal quantiles, an atom of
  a discrete distribution, is one knot at the mean of its ``z``), and beyond the last knot
  ``(t_K, z_K)`` an exponential tail ``Phi^-1(1 - Phi(-z_K) exp(-(t - t_K)/beta))`` with
  ``beta`` the mean excess of the replicates beyond ``t_K`` (at least ``1/z0``), the
  mirror image below the first knot.  Strictly increasing, unbounded, invertible in
  closed form: the pair's simultaneous interval is ``{theta : |g_j((delta - theta)/se)| <=
  c}``.

The transform is a fixed function of the replicates, applied alike to the observed
statistic and to every replicate, so the maximum's quantile is still read from the same
replicates.  Reversing a pair's orientation mirrors its transform:
``g_(b,a)(t) = -g_(a,b)(-t)``.

References
----------
Beran, R. (1988). Balanced simultaneous confidence sets. JASA 83(403), 679-686.
Romano, J. P. & Wolf, M. (2005). Exact and approximate stepdown methods for multiple
hypothesis testing. JASA 100(469), 94-108.
Romano, J. P. & Wolf, M. (2010). Balanced control of generalized error rates. Annals of
Statistics 38(1), 598-633.
"""

from __future__ import annotations

import math

import numpy as np

from .quantiles import _interpolate, _positions, ndtr, ndtri

__all__ = ["MIN_RESAMPLES", "Shapes", "grid_for", "non_normal"]

#: Below this many replicates no pair is balanced (its transform would rest on a handful of them).
MIN_RESAMPLES = 100
#: A near-copy's difference varies less across resamples than this times either system's score.
TOGETHER = 1.0
#: Monte-Carlo standard errors by which a near-copy's skewness or kurtosis must exceed a normal sample's.
SIGMAS = 6.0
_GRID_STEP = 0.05
_SQRT2 = math.sqrt(2.0)
_LOG_SQRT2PI = 0.5 * math.log(2.0 * math.pi)


def _logsf(z):
    """``log(1 - Phi(z))`` for a float, accurate far in the upper tail."""
    if z < 37.0:
        return math.log(0.5 * math.erfc(z / _SQRT2))
    return -0.5 * z * z - math.log(z) - _LOG_SQRT2PI + math.log1p(-1.0 / (z * z))


def _isf_log(log_p):
    """``z`` with ``log(1 - Phi(z)) = log_p`` (``log_p <= log 0.5``), for a float."""
    if log_p > -700.0:
        return -ndtri(math.exp(log_p))
    z = math.sqrt(-2.0 * log_p)
    for _ in range(3):  # 1 - Phi(z) ~ phi(z) / z: z^2 = -2 log_p - log(2 pi z^2)
        z = math.sqrt(-2.0 * log_p - 2.0 * _LOG_SQRT2PI - 2.0 * math.log(z))
    return z


def non_normal(skewness, excess_kurtosis, count):
    """Whether replicates are measurably non-normal: ``|skewness|`` or excess kurtosis beyond 6 Monte-Carlo SEs.

    Boolean array over pairs; always False below :data:`MIN_RESAMPLES` replicates.  (A
    near-copy is also a pair whose difference varies less than either system's score, which
    the caller checks: ``se < min(se_a, se_b)``.)
    """
    skewness = np.asarray(skewness, dtype=np.float64)
    if count < MIN_RESAMPLES:
        return np.zeros(skewness.shape, dtype=bool)
    with np.errstate(invalid="ignore"):
        return (np.abs(skewness) > SIGMAS * math.sqrt(6.0 / count)) | (
            np.asarray(excess_kurtosis) > SIGMAS * math.sqrt(24.0 / count)
        )


def _grid(count):
    """``(z, levels, z0)``: the knots' normal scores, their levels ``Phi(z)``, and ``z0``."""
    k0 = max(10, int(math.ceil(count / 200.0)))
    z0 = -ndtri(k0 / float(count))
    steps = int(math.ceil(2.0 * z0 / _GRID_STEP))
    z = np.linspace(-z0, z0, steps + 1)
    return z, np.array([ndtr(v) for v in z]), z0


class _Transform(object):
    """One pair's ``g`` (module docstring): knots ``t``/``z`` and the two exponential tails."""

    def __init__(self, tstar, grid):
        z, levels, z0 = grid
        s = np.sort(np.asarray(tstar, dtype=np.float64))
        lo, g = _positions(s.size, levels)
        kt = _interpolate(s[lo], s[np.minimum(lo + 1, s.size - 1)], g)
        starts = np.r_[0, np.flatnonzero(np.diff(kt) > 0) + 1]  # runs of equal quantiles: one knot each
        self.kt = kt[starts]
        self.kz = np.add.reduceat(z, starts) / np.diff(np.r_[starts, z.size])
        floor = 1.0 / z0
        top, bottom = self.kt[-1], self.kt[0]
        above, below = s[s > top], s[s < bottom]
        self.beta_up = max(float(np.mean(above - top)), floor) if above.size else floor
        self.beta_low = max(float(np.mean(bottom - below)), floor) if below.size else floor
        self.logp_up = _logsf(float(self.kz[-1]))
        self.logp_low = _logsf(-float(self.kz[0]))

    def forward(self, values):
        """``g(values)`` (a new array)."""
        v = np.asarray(values, dtype=np.float64)
        out = np.interp(v, self.kt, self.kz)
        top, bottom = self.kt[-1], self.kt[0]
        for i in np.flatnonzero(v > top):
            out.flat[i] = _isf_log(self.logp_up - (v.flat[i] - top) / self.beta_up)
        for i in np.flatnonzero(v < bottom):
            out.flat[i] = -_isf_log(self.logp_low - (bottom - v.flat[i]) / self.beta_low)
        return out

    def inverse(self, z):
        """``g^-1(z)`` for a float ``z`` (``+-inf`` for ``+-inf``)."""
        z = float(z)
        if math.isinf(z):
            return z
        if self.kz[0] <= z <= self.kz[-1]:
            return float(np.interp(z, self.kz, self.kt))
        if z > self.kz[-1]:
            return float(self.kt[-1] + self.beta_up * (self.logp_up - _logsf(z)))
        return float(self.kt[0] - self.beta_low * (self.logp_low - _logsf(-z)))


class Shapes(object):
    """The transforms of a family's pairs: identity, or a near-copy's own (module docstring).

    Parameters
    ----------
    n_pairs : int

    Attributes
    ----------
    row : ndarray of int ``(P,)``
        Each pair's transform (index into the transforms), -1 for the identity.
    flip : ndarray of bool ``(P,)``
        The pair is the reverse orientation of the one its transform was built for.
    """

    def __init__(self, n_pairs):
        self.row = np.full(int(n_pairs), -1, dtype=np.intp)
        self.flip = np.zeros(int(n_pairs), dtype=bool)
        self.transforms = []

    @property
    def balanced(self):
        """Boolean ``(P,)``: the near-copies."""
        return self.row >= 0

    @staticmethod
    def transform(tstar, grid):
        """The transform of studentized replicates ``tstar`` (for :meth:`adopt`)."""
        return _Transform(tstar, grid)

    def adopt(self, pair, transform):
        """Give ``pair`` (in its own orientation) a transform from :meth:`transform`."""
        self.row[pair] = len(self.transforms)
        self.transforms.append(transform)

    def subset(self, indices, flip):
        """The shapes of ``pairs[indices]``, each reversed where ``flip`` is True."""
        out = Shapes(0)
        out.row = self.row[indices]
        out.flip = self.flip[indices] ^ np.asarray(flip, dtype=bool)
        out.transforms = self.transforms
        return out

    def apply(self, pair, values):
        """``g_pair(values)`` (a new array; the values themselves for the identity)."""
        r = self.row[pair]
        if r < 0:
            return values
        g = self.transforms[r]
        return -g.forward(-values) if self.flip[pair] else g.forward(values)

    def inverse(self, pair, z):
        """``g_pair^-1(z)`` for a float."""
        r = self.row[pair]
        if r < 0:
            return float(z)
        g = self.transforms[r]
        return -g.inverse(-z) if self.flip[pair] else g.inverse(z)


def grid_for(count):
    """The knots' grid for ``count`` replicates (shared by every pair of a family)."""
    return _grid(int(count))

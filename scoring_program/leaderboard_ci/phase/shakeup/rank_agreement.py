"""How well two leaderboards agree: Kendall's tau and Spearman's rho, their interval and their noise band.

The observed agreement is Kendall's tau-b and Spearman's rho between the
participants' public scores ``p`` and private scores ``q``
(``scipy.stats.kendalltau`` and ``spearmanr`` give the same values).  With
``DP``, ``DQ`` the deviations of the public and private replicates from their
bootstrap means (:func:`~.noise.deviations`) and ``s(b) = (b + 1) mod B``
(world ``b`` takes the public set's replicate ``b + 1`` and the private set's
replicate ``b``: two replicate numbers, hence independent draws whatever the
two sets' sizes and seeds), two distributions of ``B`` values each:

* **the noise band**, the rank correlation of two leaderboards whose
  participants are exactly as good on both sets, so that only the two test
  sets' noise reorders them.  Each participant's scores are split into their
  precision-weighted mean ``a = (vQ p + vP q) / (vP + vQ)`` and their
  difference ``d = p - q`` (``vP``, ``vQ``: the variances of its replicates on
  each set).  If nobody adapted to the public set, ``d`` is the difference of two
  independent noises, independent of ``a`` (exactly so for normal noise), so the
  leaderboards could as well have been ``(a + wP d*, a - wQ d*)`` with
  ``d* = DP[s(b)] - DQ[b]`` another draw of that difference (``wP = vP / (vP + vQ)``,
  ``wQ = 1 - wP``).  The observed ``(p, q)`` is one such pair, so the observed
  tau falls in the band's middle ``1 - alpha`` share as often as that share says
  (measured in the validity suite).  The band is conditional on ``a``: nothing
  about the participants' true scores is estimated.
* **the interval**, the observed value moved by the spread of
  ``tau(p + DP[s(b)], q + DQ[b])``, both test sets resampled:
  ``[tau - (median - Q(a)), tau + (Q(1 - a) - median)]`` (clipped to [-1, 1]).
  Resampling adds noise to scores that already hold one draw of it, which moves
  the replicates' centre below the observed value but keeps their spread; the
  interval therefore takes the spread and keeps the observed centre.

The shake-up is larger than noise when the observed tau is below what the
noise band gives: the one-sided p-value ``(1 + #{tau0_b <= tau + tol}) / (B + 1)``
(the share of noise-only worlds that agree at most as little, +1 smoothing,
never 0).

Kendall's tau-b of many rows is computed in ``O(B k log k)`` without SciPy:
each row is sorted by (x, y) and its discordant pairs are counted with a
Fenwick (binary indexed) tree, one position at a time for all rows at once;
ties are counted from the sorted runs (Knight 1966).

References
----------
Knight, W. R. (1966). A computer method for calculating Kendall's tau with
ungrouped data. J. Am. Stat. Assoc. 61(314), 436-439.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.quantiles import quantile
from ...core.significance import tolerance
from .noise import deviations, finite_rows

__all__ = ["kendall_tau_rows", "spearman_rho_rows", "Agreement", "AgreementStatistic", "rank_agreement", "noise_worlds"]


def _tied_pairs(sorted_rows):
    """Pairs of equal values in each ascending row: ``sum over runs of t (t - 1) / 2``."""
    rows, k = sorted_rows.shape
    run = np.zeros(rows, dtype=np.int64)
    total = np.zeros(rows, dtype=np.int64)
    for j in range(1, k):
        run = np.where(sorted_rows[:, j] == sorted_rows[:, j - 1], run + 1, 0)
        total += run
    return total


def _dense_ranks(values):
    """1-based dense ranks of each row (equal values share a rank)."""
    order = np.argsort(values, axis=1, kind="stable")
    ordered = np.take_along_axis(values, order, axis=1)
    steps = np.ones(values.shape, dtype=np.int64)
    steps[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    dense = np.cumsum(steps, axis=1)
    out = np.empty(values.shape, dtype=np.int64)
    np.put_along_axis(out, order, dense, axis=1)
    return out


#: Rows of :func:`_discordant`'s trees at a time (a tree of 500 systems: 1 KB of int16 a row, 4 MB in all).
DISCORDANT_ROWS = 4096


def _discordant(y_ranks):
    """Pairs ``i < j`` with ``y[i] > y[j]`` in each row (strict inversions), by a Fenwick tree per row.

    ``y_ranks`` holds ranks 1..k.  The trees of :data:`DISCORDANT_ROWS` rows are one flat array
    (row ``r``'s node ``i`` at ``r * (k + 2) + i``), of the narrowest integer type that holds
    their counts, so it stays in the cache; node 0 stays 0 (a finished query reads it) and node
    ``k + 1`` takes the updates that ran past ``k``, so every step is one gather or one scatter
    over the rows, with no mask.  Exact integers: the blocks change no count.
    """
    rows, k = y_ranks.shape
    width = k + 2
    steps = int(k).bit_length() + 1
    dtype = np.int16 if (steps + 1) * k < np.iinfo(np.int16).max else np.int64  # node k + 1: < steps * k
    out = np.empty(rows, dtype=np.int64)
    for r0 in range(0, rows, DISCORDANT_ROWS):
        ranks = np.ascontiguousarray(y_ranks[r0 : r0 + DISCORDANT_ROWS].T, dtype=np.intp)  # (k, block)
        block = ranks.shape[1]
        tree = np.zeros(block * width, dtype=dtype)
        base = np.arange(block, dtype=np.intp) * width
        count = np.zeros(block, dtype=np.int64)
        low = np.empty(block, dtype=np.intp)
        for j in range(k):
            at_most = np.zeros(block, dtype=np.int64)  # values already seen that are <= r
            node = ranks[j].copy()
            at = base + node
            for _ in range(steps):
                at_most += tree[at]
                np.bitwise_and(node, -node, out=low)
                node -= low
                at -= low
            count += j - at_most
            node = ranks[j].copy()
            for _ in range(steps):
                tree[base + node] += 1
                np.bitwise_and(node, -node, out=low)
                node += low
                np.minimum(node, k + 1, out=node)
        out[r0 : r0 + block] = count
    return out


def kendall_tau_rows(x, y):
    """Kendall's tau-b between ``x[b]`` and ``y[b]`` for every row ``b`` (as ``scipy.stats.kendalltau``).

    ``tau_b = (C - D) / sqrt((n0 - n1)(n0 - n2))`` with ``n0 = k(k-1)/2``, ``n1``
    and ``n2`` the pairs tied in ``x`` and in ``y``, and ``C - D = n0 - n1 - n2 + n3 - 2 D``
    (``n3``: tied in both, ``D``: discordant).  NaN where either row is constant.
    """
    x = np.atleast_2d(np.asarray(x, dtype=np.float64))
    y = np.atleast_2d(np.asarray(y, dtype=np.float64))
    if x.shape != y.shape:
        raise ValueError("x and y must have the same shape, got %s and %s" % (x.shape, y.shape))
    rows, k = x.shape
    if k < 2:
        return np.full(rows, np.nan)
    order = np.lexsort((y, x), axis=1)  # by x, then y
    xs = np.take_along_axis(x, order, axis=1)
    ys = np.take_along_axis(y, order, axis=1)
    n0 = k * (k - 1) // 2
    n1 = _tied_pairs(xs)
    n2 = _tied_pairs(np.sort(y, axis=1))
    same = np.zeros(rows, dtype=np.int64)  # pairs tied in x and in y: runs of equal (x, y)
    run = np.zeros(rows, dtype=np.int64)
    for j in range(1, k):
        run = np.where((xs[:, j] == xs[:, j - 1]) & (ys[:, j] == ys[:, j - 1]), run + 1, 0)
        same += run
    discordant = _discordant(_dense_ranks(ys))
    numerator = (n0 - n1 - n2 + same - 2 * discordant).astype(np.float64)
    denominator = np.sqrt((n0 - n1).astype(np.float64) * (n0 - n2).astype(np.float64))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, numerator / np.where(denominator > 0, denominator, 1.0), np.nan)


def _average_ranks(values):
    """Average ranks of each row (ties get the mean of their positions), 1-based."""
    rows, k = values.shape
    order = np.argsort(values, axis=1, kind="stable")
    ordered = np.take_along_axis(values, order, axis=1)
    new = np.ones((rows, k), dtype=bool)
    new[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    group = np.cumsum(new, axis=1) - 1  # run number of each sorted position
    position = np.broadcast_to(np.arange(1, k + 1, dtype=np.float64), (rows, k))
    offset = (np.arange(rows) * k)[:, None]
    flat = (group + offset).ravel()
    sums = np.bincount(flat, weights=position.ravel(), minlength=rows * k)
    counts = np.bincount(flat, minlength=rows * k)
    mean = sums[flat] / counts[flat]
    out = np.empty((rows, k), dtype=np.float64)
    np.put_along_axis(out, order, mean.reshape(rows, k), axis=1)
    return out


def spearman_rho_rows(x, y):
    """Spearman's rho between ``x[b]`` and ``y[b]`` for every row: Pearson's r of the average ranks."""
    x = np.atleast_2d(np.asarray(x, dtype=np.float64))
    y = np.atleast_2d(np.asarray(y, dtype=np.float64))
    if x.shape != y.shape:
        raise ValueError("x and y must have the same shape, got %s and %s" % (x.shape, y.shape))
    rx = _average_ranks(x)
    ry = _average_ranks(y)
    rx -= rx.mean(axis=1, keepdims=True)
    ry -= ry.mean(axis=1, keepdims=True)
    num = np.einsum("ij,ij->i", rx, ry)
    den = np.sqrt(np.einsum("ij,ij->i", rx, rx) * np.einsum("ij,ij->i", ry, ry))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


@dataclass(frozen=True)
class AgreementStatistic:
    """One rank correlation: observed, its interval, and what noise alone gives.

    Attributes
    ----------
    name : str
        ``kendall_tau`` or ``spearman_rho``.
    value : float
        Between the observed public and private scores.
    ci_low, ci_high : float
        The interval (the module docstring): the observed value moved by the
        spread of the correlation when both test sets are resampled.
    noise : float
        The median of the noise-only worlds (the value expected if nobody adapted).
    noise_low, noise_high : float
        The noise band: the ``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles of
        the noise-only worlds.
    p_value : float
        One-sided: the share of noise-only worlds that agree at most as little
        (``(1 + count) / (B + 1)``).
    """

    name: str
    value: float
    ci_low: float
    ci_high: float
    noise: float
    noise_low: float
    noise_high: float
    p_value: float


@dataclass(frozen=True)
class Agreement:
    """Kendall's tau and Spearman's rho of two leaderboards (:func:`rank_agreement`)."""

    tau: AgreementStatistic
    rho: AgreementStatistic
    confidence_level: float
    n_valid: int
    m: int


def _statistic(name, value, resampled, noise, confidence_level):
    a = (1.0 - confidence_level) / 2.0
    resampled = np.sort(resampled[np.isfinite(resampled)])
    noise = np.sort(noise[np.isfinite(noise)])
    if not np.isfinite(value) or resampled.size == 0 or noise.size == 0:
        nan = float("nan")
        return AgreementStatistic(name, float(value), nan, nan, nan, nan, nan, nan)
    middle = quantile(resampled, 0.5)
    gamma = float(tolerance(1.0, value))
    count = int(np.count_nonzero(noise <= value + gamma))
    return AgreementStatistic(
        name,
        float(value),
        max(-1.0, value - (middle - quantile(resampled, a))),
        min(1.0, value + (quantile(resampled, 1.0 - a) - middle)),
        quantile(noise, 0.5),
        quantile(noise, a),
        quantile(noise, 1.0 - a),
        (count + 1.0) / (noise.size + 1.0),
    )


def noise_worlds(public, private, dev_public, dev_private):
    """The noise-only leaderboards ``(a + wP d*, a - wQ d*)`` of the module docstring, each ``(B, m)``.

    ``dev_public`` and ``dev_private`` are already paired (row ``b`` of each is one world).
    """
    vp = dev_public.var(axis=0)
    vq = dev_private.var(axis=0)
    total = vp + vq
    wp = np.where(total > 0, vp / np.where(total > 0, total, 1.0), 0.5)
    wq = 1.0 - wp
    mean = wq * public + wp * private
    diff = dev_public - dev_private
    return mean + wp * diff, mean - wq * diff


def rank_agreement(public, public_replicates, private, private_replicates, confidence_level=0.95):
    """Kendall's tau and Spearman's rho between two leaderboards, with intervals and noise bands.

    Parameters
    ----------
    public, private : ndarray ``(m,)``
        Each participant's score on the public and on the private set.
    public_replicates, private_replicates : ndarray ``(B1, m)``, ``(B2, m)``
        Their replicate scores, each set on its own resamples.
    confidence_level : float

    Returns
    -------
    Agreement
        The worlds pair the public replicate ``b + 1`` with the private replicate
        ``b`` (``b < min(B1, B2)``; rows with a non-finite score left out).  Both
        correlations are invariant to the metric's direction.
    """
    public = np.asarray(public, dtype=np.float64)
    private = np.asarray(private, dtype=np.float64)
    b = min(public_replicates.shape[0], private_replicates.shape[0])
    pub = np.roll(np.asarray(public_replicates[:b], dtype=np.float64), -1, axis=0)
    priv = np.asarray(private_replicates[:b], dtype=np.float64)
    keep = finite_rows(pub, priv)
    pub, priv = pub[keep], priv[keep]
    dev_pub, dev_priv = deviations(pub), deviations(priv)
    null_pub, null_priv = noise_worlds(public, private, dev_pub, dev_priv)
    out = []
    for name, rows in (("kendall_tau", kendall_tau_rows), ("spearman_rho", spearman_rho_rows)):
        value = float(rows(public[None, :], private[None, :])[0])
        resampled = rows(public + dev_pub, private + dev_priv)
        noise = rows(null_pub, null_priv)
        out.append(_statistic(name, value, resampled, noise, confidence_level))
    return Agreement(out[0], out[1], float(confidence_level), int(pub.shape[0]), int(public.shape[0]))

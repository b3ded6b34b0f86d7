"""Paired differences between systems: observed value, CI and bootstrap p-value.

For a pair ``(a, b)`` the *oriented* difference is ``sign * (score_a -
score_b)`` (``sign`` = +1 when higher is better, -1 when lower is better), so
a positive difference always means ``a`` is better.  Its bootstrap replicates
are the same difference on each replicate, both systems scored on the same
resample (paired).  The one-sided p-value is Berg-Kirkpatrick et al.'s,
``(#{d* >= 2 delta - gamma} + 1) / (B + 1)``; the two-sided one counts
``|d* - delta| >= |delta| - gamma`` (the shifted bootstrap distribution as the
null, in both tails).  Intervals and p-values follow
:mod:`leaderboard_ci.core.intervals` and :mod:`leaderboard_ci.core.significance`,
vectorized over chunks of pairs so that memory stays bounded:
``chunk_pairs * B`` doubles at a time per thread (by default about 32 MB).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .intervals import METHODS, check_confidence_level, ndtr, ndtri
from .parallel import resolve_jobs, run_spans
from .significance import tolerance

__all__ = ["PairStatistics", "pair_statistics", "quantile_rows", "ranked_pairs"]

@dataclass(frozen=True)
class PairStatistics:
    """Arrays over pairs: observed oriented difference, CI, one-sided p-value."""

    a: np.ndarray
    b: np.ndarray
    difference: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    p_value: np.ndarray  # one-sided: a better than b (Berg-Kirkpatrick)
    p_two_sided: np.ndarray  # either direction: #{|d* - delta| >= |delta|}
    n_valid: int


def ranked_pairs(order):
    """All pairs ``(a, b)`` with ``a`` ranked above ``b``, row by row.

    ``order`` lists system indices from best to worst.  Pairs come as
    ``(order[0], order[1]), (order[0], order[2]), ..., (order[1], order[2]), ...``
    """
    order = np.asarray(order, dtype=np.intp)
    m = order.shape[0]
    rows, cols = np.triu_indices(m, k=1)
    return np.stack([order[rows], order[cols]], axis=1)


def quantile_rows(sorted_or_partitioned, positions_lo, fractions):
    """Type-7 quantiles of each row, given the order statistics needed.

    ``positions_lo`` (per row) is ``floor(h)`` and ``fractions`` ``h -
    floor(h)``; uses the same interpolation formula as
    :func:`leaderboard_ci.core.intervals.quantile`, so values are identical.
    """
    x = sorted_or_partitioned
    count = x.shape[1]
    rows = np.arange(x.shape[0])
    lo = np.clip(positions_lo, 0, count - 1)
    hi = np.minimum(lo + 1, count - 1)
    return _interpolate(x[rows, lo], x[rows, hi], fractions)


def _interpolate(a, b, fractions):
    """numpy's type-7 interpolation between the order statistics ``a`` and ``b`` (as intervals.quantile)."""
    diff = b - a
    return np.where(fractions >= 0.5, b - diff * (1.0 - fractions), a + diff * fractions)


def _levels_to_positions(count, levels):
    h = (count - 1) * np.asarray(levels, dtype=np.float64)
    lo = np.floor(h).astype(np.intp)
    lo = np.clip(lo, 0, count - 1)
    return lo, h - lo


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


def _fixed_quantiles(d, level_lo, level_hi):
    """Quantiles at two fixed levels for every row, by partial sorting in place (``d`` is overwritten)."""
    count = d.shape[1]
    out = []
    levels = [level_lo, level_hi]
    positions = [_levels_to_positions(count, np.full(1, level)) for level in levels]
    ks = []
    for lo, _ in positions:
        ks += [int(lo[0]), min(int(lo[0]) + 1, count - 1)]
    values = _order_statistics(d, ks)
    for lo, f in positions:
        lo = int(lo[0])
        out.append(_interpolate(values[lo], values[min(lo + 1, count - 1)], f[0]))
    return out[0], out[1]


def _acceleration_rows(jack):
    """BCa acceleration of each row of per-item jackknife values ``(P, n)``."""
    dev = jack.mean(axis=1, keepdims=True) - jack
    den = (dev * dev).sum(axis=1)
    num = (dev ** 3).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        acc = num / (6.0 * den ** 1.5)
    return np.where(den > 0, acc, 0.0)


def _bca_quantiles(d, observed, acceleration, alpha):
    """BCa endpoints per row (``d`` has no NaN), as intervals.bca_levels does."""
    count = d.shape[1]
    s = np.sort(d, axis=1)
    gamma = tolerance(observed, 0.0)  # ties within rounding count half, as in intervals.bca_levels
    below = (s < (observed - gamma)[:, None]).sum(axis=1)
    at_most = (s <= (observed + gamma)[:, None]).sum(axis=1)
    share = (below + at_most) / (2.0 * count)
    share = np.clip(share, 0.5 / count, 1.0 - 0.5 / count)
    z_alpha = ndtri(alpha)
    levels = np.empty((2, d.shape[0]))
    for j in range(d.shape[0]):
        z0 = ndtri(share[j])
        for row, z in enumerate((z_alpha, -z_alpha)):
            num = z0 + z
            den = 1.0 - acceleration[j] * num
            levels[row, j] = (0.0 if z < 0 else 1.0) if den <= 0 else ndtr(z0 + num / den)
    lo1, f1 = _levels_to_positions(count, levels[0])
    lo2, f2 = _levels_to_positions(count, levels[1])
    return quantile_rows(s, lo1, f1), quantile_rows(s, lo2, f2)


def pair_statistics(replicates, full, pairs, sign, method="percentile", confidence_level=0.95,
                    jackknife=None, chunk_pairs=None, n_jobs=1):
    """Differences, CIs and paired-bootstrap p-values for many pairs.

    Parameters
    ----------
    replicates : ndarray ``(B, m)``
        Replicate scores of each system (one target).  Rows where any system
        is NaN (a group empty in that resample) are left out.
    full : ndarray ``(m,)``
        Full-sample scores.
    pairs : ndarray ``(P, 2)`` of system indices ``(a, b)``.
    sign : float
        +1 when higher is better, -1 when lower is better.
    method : {"percentile", "basic", "bca"}
    jackknife : ndarray ``(n, m)``, optional
        Per-item leave-one-out scores (for ``bca``).
    chunk_pairs : int, optional
        Pairs per chunk (memory only): a chunk holds ``chunk_pairs * B``
        doubles, about 32 MB by default, per thread.
    n_jobs : int or "auto"
        Threads over chunks of pairs (numpy releases the GIL in every step).
        The numbers do not depend on it, nor on ``chunk_pairs``.

    Returns
    -------
    PairStatistics

    Notes
    -----
    Each system's replicates are laid out contiguously (a ``(m, B)`` copy),
    so a pair's ``B`` differences are one contiguous row: the gather, the
    counts and the in-place partial sort all run along rows.
    """
    if method not in METHODS:
        raise ValueError("method must be one of: %s, got %r" % (", ".join(METHODS), method))
    if method == "bca" and jackknife is None:
        raise ValueError("the bca method needs jackknife values")
    confidence_level = check_confidence_level(confidence_level)
    replicates = np.asarray(replicates, dtype=np.float64)
    full = np.asarray(full, dtype=np.float64)
    if replicates.ndim != 2 or full.shape != (replicates.shape[1],):
        raise ValueError("replicates must have shape (B, m) and full shape (m,); got %s and %s"
                         % (replicates.shape, full.shape))
    pairs = np.asarray(pairs, dtype=np.intp).reshape(-1, 2)
    if pairs.size and (pairs.min() < 0 or pairs.max() >= full.shape[0]):
        raise ValueError("pairs must index the %d systems (0 to %d), got values from %d to %d"
                         % (full.shape[0], full.shape[0] - 1, pairs.min(), pairs.max()))
    if sign not in (1, -1, 1.0, -1.0):
        raise ValueError("sign must be +1 (higher is better) or -1 (lower is better), got %r" % (sign,))
    if method == "bca" and np.shape(jackknife)[1:] != (full.shape[0],):
        raise ValueError("jackknife must have shape (n, m) with m = %d, got %s" % (full.shape[0], np.shape(jackknife)))
    valid = np.all(np.isfinite(replicates), axis=1)
    reps = replicates[valid] if not valid.all() else replicates
    count = reps.shape[0]
    reps_t = np.ascontiguousarray(reps.T)  # (m, count)
    jack_t = np.ascontiguousarray(np.asarray(jackknife, dtype=np.float64).T) if method == "bca" else None
    alpha = (1.0 - confidence_level) / 2.0
    n_pairs = pairs.shape[0]
    out = {k: np.empty(n_pairs) for k in ("difference", "ci_low", "ci_high", "p_value", "p_two_sided")}
    if chunk_pairs is None:
        chunk_pairs = max(1, (4 << 20) // max(1, count))

    def chunk(start):
        a = pairs[start:start + chunk_pairs, 0]
        b = pairs[start:start + chunk_pairs, 1]
        sl = slice(start, start + a.shape[0])
        observed = sign * (full[a] - full[b])
        out["difference"][sl] = observed
        if count == 0:
            out["ci_low"][sl] = observed
            out["ci_high"][sl] = observed
            out["p_value"][sl] = 1.0
            out["p_two_sided"][sl] = 1.0
            return
        d = reps_t[a]
        np.subtract(d, reps_t[b], out=d)
        if sign != 1:  # 1.0 * x == x exactly: skip the pass
            np.multiply(d, sign, out=d)
        # p-value: (#{d* >= 2 delta - gamma} + 1) / (B + 1), as significance.bootstrap_pvalue
        gamma = tolerance(np.maximum(np.abs(full[a]), np.abs(full[b])), observed)
        hits = np.empty(d.shape, dtype=bool)
        np.greater_equal(d, (2.0 * observed - gamma)[:, None], out=hits)
        out["p_value"][sl] = (np.count_nonzero(hits, axis=1) + 1.0) / (count + 1.0)
        centred = np.subtract(d, observed[:, None])
        np.abs(centred, out=centred)
        np.greater_equal(centred, (np.abs(observed) - gamma)[:, None], out=hits)
        del centred
        out["p_two_sided"][sl] = (np.count_nonzero(hits, axis=1) + 1.0) / (count + 1.0)
        del hits
        if method == "bca":
            jack = jack_t[a]
            np.subtract(jack, jack_t[b], out=jack)
            if sign != 1:
                np.multiply(jack, sign, out=jack)
            low, high = _bca_quantiles(d, observed, _acceleration_rows(jack), alpha)
        else:
            low, high = _fixed_quantiles(d, alpha, 1.0 - alpha)  # partitions d in place
            if method == "basic":
                low, high = 2.0 * observed - high, 2.0 * observed - low
        out["ci_low"][sl] = low
        out["ci_high"][sl] = high

    run_spans(chunk, range(0, n_pairs, chunk_pairs), resolve_jobs(n_jobs))
    return PairStatistics(pairs[:, 0].copy(), pairs[:, 1].copy(), out["difference"], out["ci_low"],
                          out["ci_high"], out["p_value"], out["p_two_sided"], int(count))

"""Statistics of a benchmark of several tasks: gains, gaps, aggregates and rank uncertainty.

Everything works on replicate scores: for each test set, ``full`` holds each
system's full-sample score ``(m,)`` and ``replicates`` its scores on the test
set's bootstrap resamples ``(B, m)``.  Different test sets (tasks, languages)
are different items, so their resamples are drawn independently (the adapter
gives each its own seed); replicate ``b`` of two test sets are then independent
draws, and a statistic combining test sets is computed replicate by replicate.

Gain (ODESIA; Nava-Muñoz et al. call the idea baseline calibration)
    ``delta = 100 * sign * (s - b) / |b - r|`` with ``s`` the system's score,
    ``b`` the baseline's (the mean of several baseline runs' scores, replicate by
    replicate) and ``r`` the reference point; ``sign`` makes a positive gain
    better for lower-is-better metrics too.
Gap between languages (ODESIA's Ind(EN, ES))
    ``delta_EN - delta_ES``, with a percentile CI and a two-sided bootstrap
    p-value for "no gap": ``(#{|d* - d| >= |d| - gamma} + 1) / (B + 1)``
    (the convention of :mod:`.significance`).
Aggregate
    The (optionally weighted) mean over tasks of each system's score or gain,
    replicate by replicate.
Rank uncertainty
    Each system's rank on every replicate (1 = best; ties share the best rank),
    a percentile rank interval and P(1st): the probability that the system is
    the best, with the ``k`` systems tied at rank 1 in a replicate sharing it
    (``1/k`` each), so that it sums to 1 over the systems.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .intervals import quantile
from .significance import tolerance

__all__ = [
    "gain",
    "reference_point",
    "gap",
    "GapResult",
    "aggregate",
    "ranks",
    "RankSummary",
    "rank_summary",
    "average_ranks",
]


def reference_point(best, direction, baseline_score):
    """ODESIA's reference ``r``: the top of the scale for bounded higher-is-better metrics whose
    baseline is below it, the bottom (0) for unbounded or lower-is-better metrics.

    Parameters
    ----------
    best : float or None
        The metric's best value (None: unbounded).
    direction : {"higher", "lower"}
    baseline_score : float
    """
    if direction == "higher" and best is not None and baseline_score < best:
        return float(best)
    return 0.0


def gain(scores, baseline, r, sign):
    """``100 * sign * (s - b) / |b - r|``, elementwise; NaN where ``b == r``.

    ``scores`` and ``baseline`` broadcast (e.g. ``(B, m)`` and ``(B, 1)``).
    """
    scores = np.asarray(scores, dtype=np.float64)
    baseline = np.asarray(baseline, dtype=np.float64)
    den = np.abs(baseline - r)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = 100.0 * sign * (scores - baseline) / den
    return np.where(den == 0, np.nan, out)


@dataclass(frozen=True)
class GapResult:
    """A difference of two quantities measured on independent test sets."""

    gap: np.ndarray  # (m,)
    ci_low: np.ndarray
    ci_high: np.ndarray
    p_value: np.ndarray  # two-sided, "no gap"
    replicates: np.ndarray  # (B, m)


def gap(first_full, first_reps, second_full, second_reps, confidence_level=0.95):
    """``first - second`` per system, with a percentile CI and a two-sided p-value.

    ``*_full`` are ``(m,)``, ``*_reps`` ``(B, m)`` on independent resamples.
    Replicates where either side is NaN are left out of that system's interval.
    """
    full = np.asarray(first_full, dtype=np.float64) - np.asarray(second_full, dtype=np.float64)
    reps = np.asarray(first_reps, dtype=np.float64) - np.asarray(second_reps, dtype=np.float64)
    alpha = (1.0 - confidence_level) / 2.0
    m = full.shape[0]
    low, high, p = np.full(m, np.nan), np.full(m, np.nan), np.full(m, np.nan)
    for j in range(m):
        d = reps[:, j]
        d = np.sort(d[np.isfinite(d)])
        if not np.isfinite(full[j]) or d.size == 0:
            continue
        low[j] = quantile(d, alpha)
        high[j] = quantile(d, 1.0 - alpha)
        g = float(tolerance(abs(full[j]), full[j]))
        p[j] = (np.count_nonzero(np.abs(d - full[j]) >= abs(full[j]) - g) + 1.0) / (d.size + 1.0)
    return GapResult(full, low, high, p, reps)


def aggregate(values, weights=None):
    """The weighted mean over the last axis but one: ``(..., T, m) -> (..., m)``.

    ``values`` stacks T tasks; NaN in any task makes that entry NaN.
    """
    values = np.asarray(values, dtype=np.float64)
    t = values.shape[-2]
    w = np.ones(t) if weights is None else np.asarray(weights, dtype=np.float64)
    if w.shape != (t,) or np.any(w < 0) or w.sum() <= 0:
        raise ValueError("weights must be %d non-negative numbers with a positive sum, got %r" % (t, weights))
    w = w / w.sum()
    return np.tensordot(np.moveaxis(values, -2, -1), w, axes=([-1], [0]))


#: Elements of the ``(rows, m, m)`` comparison :func:`ranks` holds at once (32 MB of doubles).
_RANK_BLOCK = 1 << 22


def _tolerant_ranks(block):
    """:func:`ranks` of rows by the pairwise rule (NaN already -inf): ``(r, m)`` -> ``(r, m)``."""
    with np.errstate(invalid="ignore"):  # -inf - -inf (two NaN scores): NaN, a tie
        diff = block[:, None, :] - block[:, :, None]  # [r, j, k]: s_k - s_j
        scale = np.maximum(np.abs(block)[:, None, :], np.abs(block)[:, :, None])
        better = (diff > tolerance(np.where(np.isfinite(scale), scale, 0.0), diff)) | (diff == np.inf)
    return 1 + np.count_nonzero(better, axis=-1)


def ranks(scores, sign):
    """Ranks of the systems (last axis) in every row: 1 = best; tied systems share the best rank.

    ``rank_j = 1 + #{k : sign * (s_k - s_j) > gamma}`` with
    ``gamma = tolerance(max(|s_j|, |s_k|), s_k - s_j)`` (:func:`.significance.tolerance`):
    scores equal up to rounding are ties, so a sum computed in another order
    does not split them.  NaN scores rank last (tied among themselves).  The
    one rank function of the package: the benchmark's bootstrap ranks and the
    joint ranks of the rank sets (:func:`.simultaneous.rank_sets`) both use it.

    Fast path: a row whose sorted scores have no gap in ``(0, 100 eps max(1, |s|)]``
    (no near-tie) ranks the same by the exact comparison ``s_k > s_j``; only the
    rows with a near-tie are compared pairwise with the tolerance.  Rows are
    compared in blocks of at most ``_RANK_BLOCK`` elements.
    """
    s = sign * np.asarray(scores, dtype=np.float64)
    flat = np.where(np.isnan(s), -np.inf, s).reshape(-1, s.shape[-1])
    m = flat.shape[1]
    out = np.empty(flat.shape, dtype=np.int64)
    step = max(1, _RANK_BLOCK // max(1, m * m))
    for a in range(0, flat.shape[0], step):
        block = flat[a : a + step]
        out[a : a + step] = 1 + np.count_nonzero(block[:, None, :] > block[:, :, None], axis=-1)
    with np.errstate(invalid="ignore"):
        gaps = np.diff(np.sort(flat, axis=1), axis=1)
        top = np.max(np.where(np.isfinite(flat), np.abs(flat), 0.0), axis=1, initial=0.0)
        near = np.flatnonzero(np.any((gaps > 0) & (gaps <= tolerance(top, 0.0)[:, None]), axis=1))
    for a in range(0, near.size, step):
        rows = near[a : a + step]
        out[rows] = _tolerant_ranks(flat[rows])
    return out.reshape(s.shape)


@dataclass(frozen=True)
class RankSummary:
    """Each system's observed rank and its bootstrap distribution."""

    rank: np.ndarray  # (m,) on the full sample
    low: np.ndarray  # (m,) rank interval
    high: np.ndarray
    p_first: np.ndarray  # (m,) P(1st): share of replicates won, a k-way tie at rank 1 counting 1/k each
    distribution: np.ndarray  # (m, m): share of replicates with rank k + 1


def rank_summary(full, replicates, sign, confidence_level=0.95):
    """Observed ranks, percentile rank intervals and each system's probability of being first.

    Parameters
    ----------
    full : array of float, shape (m,)
        Full-sample scores.
    replicates : array of float, shape (B, m)
        Scores on the bootstrap resamples.
    sign : {1.0, -1.0}
        +1 when higher is better.
    confidence_level : float

    Returns
    -------
    RankSummary
        ``low``/``high`` are the lower and upper order statistics of the replicate
        ranks; ``p_first`` is the mean over replicates of ``1/k`` for the ``k``
        systems tied at rank 1 (0 for the others), a probability over systems:
        it sums to 1.  ``distribution`` keeps the unsplit share of each rank.
    """
    full = np.asarray(full, dtype=np.float64)
    reps = np.asarray(replicates, dtype=np.float64)
    if full.ndim != 1 or reps.ndim != 2 or reps.shape[1] != full.shape[0] or reps.shape[0] == 0:
        raise ValueError(
            "rank_summary needs full scores (m,) and replicates (B, m) with B >= 1, got shapes %s and %s"
            % (full.shape, reps.shape)
        )
    m = full.shape[0]
    observed = ranks(full[None, :], sign)[0]
    rep_ranks = ranks(reps, sign)  # (B, m)
    alpha = (1.0 - confidence_level) / 2.0
    srt = np.sort(rep_ranks, axis=0)
    b = srt.shape[0]
    lo_index = int(np.floor(alpha * (b - 1)))
    hi_index = int(np.ceil((1.0 - alpha) * (b - 1)))
    distribution = np.stack([(rep_ranks == k).mean(axis=0) for k in range(1, m + 1)], axis=1)
    first = rep_ranks == 1  # every replicate has at least one system at rank 1
    p_first = (first / first.sum(axis=1, keepdims=True)).mean(axis=0)
    return RankSummary(observed, srt[lo_index], srt[hi_index], p_first, distribution)


def average_ranks(scores, sign):
    """Mean rank of each system over tasks (``scores`` ``(T, m)``), ties given their average rank.

    As in Demšar (2006) and the Friedman test: within each task, tied systems get
    the mean of the ranks they span.
    """
    s = -sign * np.asarray(scores, dtype=np.float64)  # smaller is better for ranking
    t, m = s.shape
    out = np.empty((t, m))
    for i in range(t):
        order = np.argsort(s[i], kind="mergesort")
        sorted_values = s[i][order]
        r = np.empty(m)
        start = 0
        while start < m:
            stop = start
            while stop + 1 < m and sorted_values[stop + 1] == sorted_values[start]:
                stop += 1
            r[order[start : stop + 1]] = (start + stop) / 2.0 + 1.0
            start = stop + 1
        out[i] = r
    return out.mean(axis=0), out

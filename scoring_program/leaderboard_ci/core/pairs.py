"""Paired differences between systems: observed value, CI, standard error and p-values.

For a pair ``(a, b)`` the *oriented* difference is ``sign * (score_a -
score_b)`` (``sign`` = +1 when higher is better, -1 when lower is better), so
a positive difference always means ``a`` is better.  Its bootstrap replicates
are the same difference on each replicate, both systems scored on the same
resample (paired).  The interval and both p-values come from
:func:`leaderboard_ci.core.intervals.interval_rows`, the one implementation
the single-statistic :func:`~leaderboard_ci.core.intervals.confidence_interval`
also runs: ``p_value`` (one-sided, ``a`` better than ``b``) is ``< alpha/2``
exactly when ``ci_low > 0`` (for ``alpha > 2/(B+1)``), and ``p_two_sided``
is ``< alpha`` exactly when ``[ci_low, ci_high]`` excludes 0 (for ``alpha >
1/(B+1)``), with ``alpha = 1 - confidence_level``; see that module for the
definitions.  The work runs over
chunks of pairs so that memory stays bounded: ``chunk_pairs * B`` doubles at a
time per thread (by default about 32 MB).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Optional

import numpy as np

from .intervals import METHODS, acceleration_rows, check_confidence_level, interval_rows
from .parallel import resolve_jobs, run_spans

__all__ = ["PairStatistics", "pair_statistics", "ranked_pairs"]


@dataclass(frozen=True)
class PairStatistics:
    """Arrays over pairs: observed oriented difference, CI, p-values, standard error.

    ``p_value`` is the one-sided p-value that ``a`` is better than ``b`` and
    ``p_two_sided`` the two-sided one, both the inversion of ``[ci_low,
    ci_high]`` (:mod:`leaderboard_ci.core.intervals`).  ``se`` is the bootstrap
    standard deviation of the oriented difference (``ddof=1``); None when the
    statistics were assembled without it.
    """

    a: np.ndarray
    b: np.ndarray
    difference: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    p_value: np.ndarray  # one-sided, a better than b: < alpha/2 exactly when ci_low > 0
    p_two_sided: np.ndarray  # < alpha exactly when [ci_low, ci_high] excludes 0
    n_valid: int
    se: Optional[np.ndarray] = None


def ranked_pairs(order):
    """All pairs ``(a, b)`` with ``a`` ranked above ``b``, row by row.

    ``order`` lists system indices from best to worst.  Pairs come as
    ``(order[0], order[1]), (order[0], order[2]), ..., (order[1], order[2]), ...``
    """
    order = np.asarray(order, dtype=np.intp)
    m = order.shape[0]
    rows, cols = np.triu_indices(m, k=1)
    return np.stack([order[rows], order[cols]], axis=1)


def pair_statistics(
    replicates,
    full,
    pairs,
    sign,
    method="percentile",
    confidence_level=0.95,
    jackknife=None,
    chunk_pairs=None,
    n_jobs=1,
):
    """Differences, CIs, standard errors and the p-values that invert the CIs, for many pairs.

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
    method : {"percentile", "basic", "bca", "normal"}
        As :func:`leaderboard_ci.core.intervals.confidence_interval` on each
        pair's differences (the same code, one row per pair).
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
        ``p_value`` (one-sided, ``a`` better than ``b``) is ``< alpha/2``
        exactly when ``ci_low > 0``; ``p_two_sided`` is ``< alpha`` exactly
        when the interval excludes 0 (``alpha = 1 - confidence_level``, above
        the floor ``1/(B+1)`` of every p-value: ``2/(B+1)`` for the one-sided
        statement); a pair of identical systems gets 1 for both.

    Notes
    -----
    Each system's replicates are laid out contiguously (a ``(m, B)`` copy),
    so a pair's ``B`` differences are one contiguous row: the gather, the
    counts and the in-place partial sort all run along rows.  The percentile
    and basic endpoints come from partial sorts; only ``bca`` sorts fully.
    """
    full, pairs, confidence_level, reps_t, jack_t = _pair_inputs(
        replicates, full, pairs, sign, method, confidence_level, jackknife
    )
    count = reps_t.shape[1]  # the valid replicates
    out = {k: np.empty(pairs.shape[0]) for k in _PAIR_COLUMNS}
    chunk_pairs = max(1, (4 << 20) // max(1, count)) if chunk_pairs is None else chunk_pairs
    work = functools.partial(_pair_chunk, out, pairs, chunk_pairs, full, reps_t, jack_t, sign, method, confidence_level)
    run_spans(work, range(0, pairs.shape[0], chunk_pairs), resolve_jobs(n_jobs))
    return PairStatistics(pairs[:, 0].copy(), pairs[:, 1].copy(), *_ordered(out), int(count), out["se"])


#: The per-pair columns of :class:`PairStatistics`, in its order (``n_valid`` comes before ``se``).
_PAIR_COLUMNS = ("difference", "ci_low", "ci_high", "p_value", "p_two_sided", "se")


def _ordered(out):
    """The five columns of :class:`PairStatistics` before ``n_valid``, from ``out``."""
    return [out[k] for k in _PAIR_COLUMNS[:5]]


def _pair_inputs(replicates, full, pairs, sign, method, confidence_level, jackknife):
    """The checked inputs: ``(full, pairs, confidence_level, replicates by system, jackknife by system or None)``.

    The replicates with a non-finite score are left out; each system's replicates (and
    jackknife values) are laid out contiguously, ``(m, B)``.  ValueError names what is wrong.
    """
    if method not in METHODS:
        raise ValueError("method must be one of: %s, got %r" % (", ".join(METHODS), method))
    if method == "bca" and jackknife is None:
        raise ValueError("the bca method needs jackknife values")
    confidence_level = check_confidence_level(confidence_level)
    replicates = np.asarray(replicates, dtype=np.float64)
    full = np.asarray(full, dtype=np.float64)
    if replicates.ndim != 2 or full.shape != (replicates.shape[1],):
        raise ValueError(
            "replicates must have shape (B, m) and full shape (m,); got %s and %s" % (replicates.shape, full.shape)
        )
    pairs = np.asarray(pairs, dtype=np.intp).reshape(-1, 2)
    if pairs.size and (pairs.min() < 0 or pairs.max() >= full.shape[0]):
        raise ValueError(
            "pairs must index the %d systems (0 to %d), got values from %d to %d"
            % (full.shape[0], full.shape[0] - 1, pairs.min(), pairs.max())
        )
    if sign not in (1, -1, 1.0, -1.0):
        raise ValueError("sign must be +1 (higher is better) or -1 (lower is better), got %r" % (sign,))
    if method == "bca" and np.shape(jackknife)[1:] != (full.shape[0],):
        raise ValueError("jackknife must have shape (n, m) with m = %d, got %s" % (full.shape[0], np.shape(jackknife)))
    valid = np.all(np.isfinite(replicates), axis=1)
    reps = replicates[valid] if not valid.all() else replicates
    reps_t = np.ascontiguousarray(reps.T)  # (m, count)
    jack_t = np.ascontiguousarray(np.asarray(jackknife, dtype=np.float64).T) if method == "bca" else None
    return full, pairs, confidence_level, reps_t, jack_t


def _pair_chunk(out, pairs, chunk_pairs, full, reps_t, jack_t, sign, method, confidence_level, start):
    """Fill ``out``'s rows of pairs ``start .. start + chunk_pairs - 1``: differences, intervals, p-values, SE."""
    a = pairs[start : start + chunk_pairs, 0]
    b = pairs[start : start + chunk_pairs, 1]
    sl = slice(start, start + a.shape[0])
    observed = sign * (full[a] - full[b])
    out["difference"][sl] = observed
    if reps_t.shape[1] == 0:
        out["ci_low"][sl] = observed
        out["ci_high"][sl] = observed
        out["p_value"][sl] = 1.0
        out["p_two_sided"][sl] = 1.0
        out["se"][sl] = 0.0
        return
    d = reps_t[a]
    np.subtract(d, reps_t[b], out=d)
    if sign != 1:  # 1.0 * x == x exactly: skip the pass
        np.multiply(d, sign, out=d)
    acceleration = None
    if method == "bca":
        jack = jack_t[a]
        np.subtract(jack, jack_t[b], out=jack)
        if sign != 1:
            np.multiply(jack, sign, out=jack)
        acceleration = acceleration_rows(jack)
    scale = np.maximum(np.abs(full[a]), np.abs(full[b]))
    rows = interval_rows(
        method, d, observed, confidence_level, acceleration=acceleration, scale=scale, overwrite=True
    )  # permutes d
    out["ci_low"][sl] = rows.low
    out["ci_high"][sl] = rows.high
    out["p_value"][sl] = rows.p_greater
    out["p_two_sided"][sl] = rows.p_two_sided
    out["se"][sl] = rows.se

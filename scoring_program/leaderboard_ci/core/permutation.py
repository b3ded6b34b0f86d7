"""Paired approximate randomization (permutation) test for many pairs of systems.

Yeh (2000); the Fisher-Pitman paired test of Bestgen (2022).  Under the null
hypothesis that two systems are exchangeable, swapping their outputs on any
item is as likely as not.  For a pair ``(a, b)`` with observed oriented
difference ``delta`` (positive = ``a`` better):

* if ``d`` items differ between the two systems and ``d <= 20``, all ``2**d``
  swap patterns are enumerated and ``p = #{delta' >= delta - gamma} / 2**d``
  (exact; the identity is one of the patterns, so ``p >= 2**-d``); the
  two-sided p counts ``|delta'| >= |delta| - gamma``;
* otherwise ``P`` random swap patterns are drawn and
  ``p = (#{delta' >= delta - gamma} + 1) / (P + 1)``.  Pattern ``r`` swaps item
  ``j`` when the top bit of output ``2**127 + r*n + j`` of ``PCG64(seed)`` is
  set (:func:`leaderboard_ci.core.resampling.swap_signs`): every pair sees the same
  patterns, and the result depends on nothing else.

With clusters (``bootstrap.cluster``) whole clusters are swapped: the units
above are the ``C`` clusters (a cluster differs when any of its items does),
the per-item statistics are summed within each cluster, and pattern ``r``
swaps cluster ``j`` when the top bit of output ``2**127 + r*C + j`` is set.
With one item per cluster this is the item test, pattern for pattern.

Swapping is linear in per-item statistics (class counts, per-item sums), so
for a block of patterns ``S`` all systems are handled by one product ``S @ M``
and a pair's swapped statistics are ``full_a - V_a + V_b``.  Metrics whose
statistic is not a sum over items (Spearman, custom metrics) are refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from .resampling import check_n_resamples, swap_signs
from .significance import tolerance

__all__ = ["PermutationUnsupported", "permutation_pvalues", "EXACT_LIMIT"]

EXACT_LIMIT = 20


class PermutationUnsupported(ValueError):
    """The metric's statistic is not additive over items."""


def _item_matrices(scorer):
    """Per-item statistic rows of each accumulator of one system (float64)."""
    mats = []
    for acc in scorer.accumulators:
        if hasattr(acc, "linear_matrix") and acc.dtype == np.int64:
            mats.append(acc.linear_matrix(np.float64))
        elif hasattr(acc, "item_values"):
            mats.append(acc.item_values())
        else:
            raise PermutationUnsupported(
                "the permutation test needs metrics that are sums over items; %s is not "
                "(use analysis.test: bootstrap)" % type(acc).__name__
            )
    return mats


def _differ(predictions, a, b):
    """Whether systems ``a`` and ``b`` differ on each item: ``(n,)`` or ``(n, len(a))`` bool.

    A system's per-item prediction may be a row (a multi-label item's 0/1 vector);
    the item differs when any entry does.
    """
    unequal = predictions[:, a] != predictions[:, b]
    extra = predictions.ndim - 2
    return unequal.any(axis=tuple(range(unequal.ndim - extra, unequal.ndim))) if extra > 0 else unequal


def _differences(scorer, full_a, full_b, shift, signs):
    """Oriented differences after swapping: ``shift[k]`` = what moves from a to b."""
    stats_a = [fa[None, :] - s for fa, s in zip(full_a, shift)]
    stats_b = [fb[None, :] + s for fb, s in zip(full_b, shift)]
    return signs[None, :] * (scorer.scores(stats_a) - scorer.scores(stats_b))


def _exact_pvalue(scorer, items_a, items_b, full_a, full_b, diff_items, observed, gamma, signs, chunk=1 << 15):
    """Enumerate every swap pattern of the differing items: (one-sided, two-sided) p."""
    d = diff_items.size
    total = 1 << d
    bits = np.arange(d, dtype=np.int64)
    delta_items = [ma[diff_items] - mb[diff_items] for ma, mb in zip(items_a, items_b)]
    hits = np.zeros(observed.shape[0])
    hits_low = np.zeros(observed.shape[0])
    hits_two = np.zeros(observed.shape[0])
    for start in range(0, total, chunk):
        codes = np.arange(start, min(start + chunk, total), dtype=np.int64)
        patterns = ((codes[:, None] >> bits[None, :]) & 1).astype(np.float64)
        shift = [patterns @ di for di in delta_items]
        deltas = _differences(scorer, full_a, full_b, shift, signs)
        hits += (deltas >= (observed - gamma)[None, :]).sum(axis=0)
        hits_low += (deltas <= (observed + gamma)[None, :]).sum(axis=0)
        hits_two += (np.abs(deltas) >= (np.abs(observed) - gamma)[None, :]).sum(axis=0)
    return hits / float(total), hits_low / float(total), hits_two / float(total)


def _cluster_rows(mat, clusters, n_clusters):
    """Per-cluster sums of per-item rows ``(n, F)`` -> ``(C, F)``."""
    mat = np.asarray(mat, dtype=np.float64)
    out = np.empty((n_clusters, mat.shape[1]))
    for k in range(mat.shape[1]):
        out[:, k] = np.bincount(clusters, weights=mat[:, k], minlength=n_clusters)
    return out


def _differ_units(predictions, a, b, clusters, n_clusters):
    """:func:`_differ` per unit: per item, or per cluster (a cluster differs when any item does)."""
    item = _differ(predictions, a, b)
    if clusters is None:
        return item
    if item.ndim == 1:
        return np.bincount(clusters, weights=item, minlength=n_clusters) > 0
    return _cluster_rows(item, clusters, n_clusters) > 0


def permutation_pvalues(
    scorers, full_scores, pairs, predictions, seed, n_permutations, block_rows=None, progress=None, clusters=None
):
    """Permutation p-values of every pair and target, in both directions and two-sided.

    Parameters
    ----------
    scorers : list of scorers (same metrics, gold and layout; see :mod:`.systems`)
    full_scores : ndarray ``(m, T)``
        Full-sample scores (the observed differences come from these).
    pairs : ndarray ``(P, 2)``
    predictions : ndarray ``(n, m)`` or ``(n, m, ...)``
        Aligned predictions, to find the items where two systems differ (an
        item differs when any entry of its row does).
    seed, n_permutations : int
    clusters : array of int ``(n,)``, optional
        Cluster codes ``0 .. C-1``: whole clusters are swapped (module docstring).

    Returns
    -------
    p : ndarray ``(P, T)``, one-sided: ``a`` better than ``b`` (``delta' >= delta - gamma``)
    p_reversed : ndarray ``(P, T)``, one-sided: ``b`` better than ``a``
        (``delta' <= delta + gamma``; the same count as ``p`` of the pair ``(b, a)``)
    p_two_sided : ndarray ``(P, T)``, either direction (``|delta'| >= |delta| - gamma``)
    exact : ndarray ``(P,)`` of bool (True where all patterns were enumerated)
    """
    n_permutations = check_n_resamples(n_permutations)
    pairs, full_scores, predictions = _checked_inputs(scorers, full_scores, pairs, predictions)
    units = _units_of(scorers, full_scores, pairs, predictions, clusters)
    exact = _differing_units(predictions, pairs, units) <= EXACT_LIMIT
    p = np.empty((pairs.shape[0], len(units.model.targets)))
    p_low = np.empty_like(p)
    p_two = np.empty_like(p)
    for i in np.flatnonzero(exact):  # exact enumeration, pair by pair
        a, b = pairs[i]
        diff_items = np.flatnonzero(_differ_units(predictions, a, b, units.clusters, units.n_clusters))
        p[i], p_low[i], p_two[i] = _exact_pvalue(
            units.model,
            units.items[a],
            units.items[b],
            units.fulls[a],
            units.fulls[b],
            diff_items,
            units.observed[i],
            units.gamma[i],
            units.signs,
        )
    sampled = np.flatnonzero(~exact)
    if sampled.size:  # Monte Carlo for the others, all pairs sharing each block of patterns
        counts = _sampled_counts(units, pairs, sampled, seed, n_permutations, block_rows, progress)
        p[sampled], p_low[sampled], p_two[sampled] = [(c + 1.0) / (n_permutations + 1.0) for c in counts]
    return p, p_low, p_two, exact


def _checked_inputs(scorers, full_scores, pairs, predictions):
    """``(pairs, full_scores, predictions)`` as arrays; ValueError naming the one whose shape is wrong."""
    pairs = np.asarray(pairs, dtype=np.intp).reshape(-1, 2)
    full_scores = np.asarray(full_scores, dtype=np.float64)
    predictions = np.asarray(predictions)
    m = len(scorers)
    if full_scores.ndim != 2 or full_scores.shape[0] != m:
        raise ValueError("full_scores must have one row per scorer (%d), got shape %s" % (m, full_scores.shape))
    if predictions.ndim < 2 or predictions.shape[1] != m:
        raise ValueError("predictions must have shape (n, %d), one column per scorer, got %s" % (m, predictions.shape))
    if pairs.size and (pairs.min() < 0 or pairs.max() >= m):
        raise ValueError("pairs must index the %d systems (0 to %d)" % (m, m - 1))
    return pairs, full_scores, predictions


@dataclass(frozen=True)
class _Units:
    """What the swaps act on: each system's per-unit statistic matrices and their sums, the observed differences.

    ``items[j]`` are system ``j``'s per-unit matrices (per item, or summed per cluster when
    ``clusters`` is given: then ``n = n_clusters`` units are swapped), ``fulls[j]`` their
    column sums; ``observed`` and ``gamma`` (the tie tolerance) are per pair and target.
    """

    model: object
    signs: np.ndarray
    items: list
    fulls: list
    n: int
    clusters: Optional[np.ndarray]
    n_clusters: Optional[int]
    observed: np.ndarray
    gamma: np.ndarray


def _units_of(scorers, full_scores, pairs, predictions, clusters):
    """The :class:`_Units` of the scorers (the swapped units: items, or clusters of items)."""
    model = scorers[0]
    signs = np.array([t.metric.sign for t in model.targets])
    items = [_item_matrices(s) for s in scorers]
    fulls = [[mat.sum(axis=0) for mat in mats] for mats in items]
    n = predictions.shape[0]
    n_clusters = None
    if clusters is not None:
        clusters = np.asarray(clusters, dtype=np.intp)
        n_clusters = n = int(clusters.max()) + 1
        items = [[_cluster_rows(mat, clusters, n) for mat in mats] for mats in items]
    observed = signs[None, :] * (full_scores[pairs[:, 0]] - full_scores[pairs[:, 1]])
    gamma = tolerance(np.maximum(np.abs(full_scores[pairs[:, 0]]), np.abs(full_scores[pairs[:, 1]])), observed)
    return _Units(model, signs, items, fulls, n, clusters, n_clusters, observed, gamma)


def _differing_units(predictions, pairs, units):
    """How many units each pair's two systems predict differently (chunks of 4,096 pairs)."""
    differing = np.empty(pairs.shape[0], dtype=np.intp)
    for start in range(0, pairs.shape[0], 4096):
        chunk = pairs[start : start + 4096]
        differing[start : start + chunk.shape[0]] = _differ_units(
            predictions, chunk[:, 0], chunk[:, 1], units.clusters, units.n_clusters
        ).sum(axis=0)
    return differing


def _sampled_counts(units, pairs, sampled, seed, n_permutations, block_rows, progress):
    """``(upper, lower, two-sided)`` counts of random swaps at least as extreme, for the ``sampled`` pairs.

    Every pair shares each block of swap patterns (:func:`~leaderboard_ci.core.resampling.swap_signs`):
    the patterns move all systems' unit matrices at once (one matrix product), and each pair
    reads what moves from ``a`` to ``b`` (``V_a - V_b``) in chunks of 512 pairs.
    """
    m = len(units.items)
    stacked = [np.concatenate([units.items[j][k] for j in range(m)], axis=1) for k in range(len(units.items[0]))]
    widths = [units.items[0][k].shape[1] for k in range(len(units.items[0]))]
    counts = np.zeros((3, sampled.size, len(units.model.targets)))
    rows = block_rows or max(1, min(256, (1 << 18) // max(1, sampled.size)))
    for r0 in range(0, n_permutations, rows):
        r1 = min(r0 + rows, n_permutations)
        s = swap_signs(seed, units.n, r0, r1).astype(np.float64)
        moved = [(s @ mat).reshape(r1 - r0, m, w) for mat, w in zip(stacked, widths)]
        for c0 in range(0, sampled.size, 512):
            idx = sampled[c0 : c0 + 512]
            counts[:, c0 : c0 + idx.size] += _extreme_counts(units, pairs, idx, moved, r1 - r0)
        if progress is not None:
            progress(r1 - r0)
    return counts


def _extreme_counts(units, pairs, idx, moved, n_rows):
    """``(3, len(idx), T)``: how many of ``n_rows`` swap patterns give a difference at least as extreme."""
    a, b = pairs[idx, 0], pairs[idx, 1]
    rows_here = n_rows * idx.size
    # what moves from a to b on swapped items: V_a - V_b
    shift = [(mv[:, a, :] - mv[:, b, :]).reshape(rows_here, -1) for mv in moved]
    fa = [
        np.repeat(np.stack([units.fulls[j][k] for j in a])[None], n_rows, axis=0).reshape(rows_here, -1)
        for k in range(len(moved))
    ]
    fb = [
        np.repeat(np.stack([units.fulls[j][k] for j in b])[None], n_rows, axis=0).reshape(rows_here, -1)
        for k in range(len(moved))
    ]
    score_a = units.model.scores([x - y for x, y in zip(fa, shift)])
    score_b = units.model.scores([x + y for x, y in zip(fb, shift)])
    deltas = (units.signs[None, :] * (score_a - score_b)).reshape(n_rows, idx.size, -1)
    observed, gamma = units.observed[idx][None, :, :], units.gamma[idx][None, :, :]
    return np.stack(
        [
            (deltas >= observed - gamma).sum(axis=0),
            (deltas <= observed + gamma).sum(axis=0),
            (np.abs(deltas) >= np.abs(observed) - gamma).sum(axis=0),
        ]
    )

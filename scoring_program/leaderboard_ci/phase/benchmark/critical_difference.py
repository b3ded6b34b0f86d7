"""Friedman's test over a benchmark's test sets, then Nemenyi's critical difference or Wilcoxon + Holm.

Demšar, J. (2006). Statistical comparisons of classifiers over multiple data
sets. JMLR 7, 1-30: the average ranks, the Friedman statistic, Nemenyi's
critical difference ``q_alpha sqrt(k (k + 1) / (6 N))`` and the cliques of the
critical-difference diagram.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from ...core.benchmark_stats import average_ranks
from ..analysis.corrections import adjust

__all__ = ["critical_difference"]


def critical_difference(test_sets, systems, of, gain_full, test="nemenyi", alpha=0.05, sign=1.0):
    """Friedman test over the test sets, then Nemenyi's critical difference or Wilcoxon + Holm.

    Uses the systems present in every test set; None with fewer than 4 test sets or 2 systems.
    Returns ``{"systems", "average_ranks", "friedman_statistic", "friedman_p", "test", "alpha",
    "cd" (Nemenyi), "pairs" (Wilcoxon: a, b, p, p_holm), "cliques"}``.
    """
    from scipy import stats  # imported when used: the commands' --help need not load SciPy

    def values(ts):
        full = gain_full[ts.label] if of == "gain" else None
        if full is None:
            full = np.full(len(systems), np.nan)
            full[[systems.index(n) for n in ts.names]] = ts.full
        return full

    matrix = np.stack([values(ts) for ts in test_sets])  # (N, M)
    keep = np.all(np.isfinite(matrix), axis=0)
    n_sets, k = matrix.shape[0], int(keep.sum())
    if n_sets < 4 or k < 2:
        return None
    data = matrix[:, keep]
    names = [s for s, kept in zip(systems, keep) if kept]
    avg, _ = average_ranks(data, sign)
    if k >= 3:
        stat, p = stats.friedmanchisquare(*[data[:, j] for j in range(k)])
    else:
        stat, p = np.nan, np.nan
    out = OrderedDict(
        [
            ("systems", names),
            ("average_ranks", [float(a) for a in avg]),
            ("friedman_statistic", float(stat)),
            ("friedman_p", float(p)),
            ("test", test),
            ("alpha", alpha),
            ("n_test_sets", n_sets),
        ]
    )
    different = set()
    if test == "nemenyi":
        q = stats.studentized_range.ppf(1 - alpha, k, np.inf) / np.sqrt(2.0)
        cd = float(q * np.sqrt(k * (k + 1) / (6.0 * n_sets)))
        out["cd"] = cd
        for a in range(k):
            for c in range(a + 1, k):
                if abs(avg[a] - avg[c]) > cd:
                    different.add(frozenset((a, c)))
    else:
        pairs, pvals = [], []
        for a in range(k):
            for c in range(a + 1, k):
                diff = data[:, a] - data[:, c]
                p_ac = 1.0 if np.all(diff == 0) else float(stats.wilcoxon(data[:, a], data[:, c]).pvalue)
                pairs.append((a, c))
                pvals.append(p_ac)
        holm = adjust(np.array(pvals), "holm")
        out["pairs"] = [
            OrderedDict([("a", names[a]), ("b", names[c]), ("p", p_), ("p_holm", float(h))])
            for (a, c), p_, h in zip(pairs, pvals, holm)
        ]
        different = set(frozenset(pc) for pc, h in zip(pairs, holm) if h <= alpha)
    out["cliques"] = _cliques(avg, different)
    out["cliques"] = [[names[j] for j in clique] for clique in out["cliques"]]
    return out


def _cliques(avg, different):
    """Maximal groups of systems, contiguous in average rank, with no significant difference inside."""
    order = list(np.argsort(avg, kind="mergesort"))
    cliques = []
    for start in range(len(order)):
        stop = start
        while stop + 1 < len(order) and all(
            frozenset((order[i], order[stop + 1])) not in different for i in range(start, stop + 1)
        ):
            stop += 1
        if stop > start:
            members = order[start : stop + 1]
            if not any(set(members) <= set(c) for c in cliques):
                cliques.append(members)
    return cliques

"""Competition indicators (Nava-Muñoz, Graff & Escalante 2024, Table 6).

All from full-sample scores and corrected p-values; no I/O.

* ``n``: items in the test set; ``m``: systems; ``possible_comparisons``:
  ``m (m - 1) / 2``.
* ``ties_with_winner[c]``: systems whose difference to the winner is not
  significant at ``alpha`` after correction ``c`` ("none" = uncorrected).
* ``non_significant_pairs[c]``: pairs not significantly different after ``c``.
* ``winner_minus_median``: ``|winner - median(scores)|``.
* ``cv``: coefficient of variation of the systems' scores, in percent:
  ``100 * sd(scores, ddof=1) / |mean(scores)|`` (CompStats' definition), null
  when ``m < 2`` or the mean is 0.
* ``ppi``: Performance Potential Index, ``100 * |best - winner|`` on the
  metric's own scale, where ``best`` is the metric's best possible value
  (1 for accuracy, F1, MCC, kappa, R², correlations); null, with the reason,
  for metrics in the target's units (MAE, MSE, RMSE) and custom metrics
  without a declared best value.
"""

from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np

__all__ = ["competition_indicators", "coefficient_of_variation"]


def coefficient_of_variation(scores):
    """``100 * sd(ddof=1) / |mean|``, or None when undefined."""
    scores = np.asarray(scores, dtype=np.float64)
    if scores.size < 2:
        return None
    mean = float(scores.mean())
    if mean == 0.0:
        return None
    return 100.0 * float(scores.std(ddof=1)) / abs(mean)


def competition_indicators(
    n, scores, winner, vs_winner_adjusted, pair_adjusted, alpha, ppi_value, ppi_reason, strict=(), unresolved=()
):
    """The indicators of one metric as an ordered mapping.

    Parameters
    ----------
    n : int
    scores : array ``(m,)`` full-sample scores
    winner : int
        Index of the winner in ``scores``.
    vs_winner_adjusted : mapping correction -> array ``(m - 1,)`` of p-values
        (including ``"none"`` for the raw ones).
    pair_adjusted : mapping correction -> array ``(m (m - 1) / 2,)``.
    alpha : float
    ppi_value, ppi_reason : from :func:`leaderboard_ci.tasks.shared.base.ppi`.
    strict : tuple of str
        Corrections whose verdict is ``p < alpha`` (the max-t step-down), so a tie is
        ``p >= alpha``; for the others (statsmodels' ``reject``) a tie is ``p > alpha``.
    unresolved : tuple of str
        Corrections that cannot declare any difference at this number of resamples (every
        adjusted p-value at the resampling floor): their counts are None, not "all tied".
    """
    scores = np.asarray(scores, dtype=np.float64)
    m = int(scores.size)
    out = OrderedDict()
    out["n"] = int(n)
    out["m"] = m
    out["possible_comparisons"] = m * (m - 1) // 2

    def ties(c, p):
        if c in unresolved:
            return None
        p = np.asarray(p)
        return int(np.count_nonzero(p >= alpha if c in strict else p > alpha))

    out["ties_with_winner"] = OrderedDict((c, ties(c, p)) for c, p in vs_winner_adjusted.items())
    out["non_significant_pairs"] = OrderedDict((c, ties(c, p)) for c, p in pair_adjusted.items())
    out["winner_minus_median"] = abs(float(scores[winner]) - float(np.median(scores))) if m else None
    out["cv"] = coefficient_of_variation(scores)
    out["ppi"] = None if ppi_value is None or not math.isfinite(ppi_value) else float(ppi_value)
    if out["ppi"] is None:
        out["ppi_reason"] = ppi_reason
    return out

"""Multiple-comparison corrections through statsmodels (end-of-phase only).

``statsmodels.stats.multitest.multipletests`` does the work; this module only
applies it within *families* of tests and always passes ``method=`` (the
statsmodels default, ``hs``, is never used implicitly).  Method names are
statsmodels' own (``bonferroni``, ``holm``, ``fdr_bh``, ...); their display names are
statsmodels' too (:data:`leaderboard_ci.report.formatting.CORRECTION_NAMES`).
"""

from __future__ import annotations

import numpy as np

__all__ = ["adjust", "adjust_within"]


def adjust(pvalues, method, alpha=0.05):
    """Adjusted p-values of one family (``method="none"`` returns them unchanged)."""
    p = np.asarray(pvalues, dtype=np.float64)
    if method == "none" or p.size == 0:
        return p.copy()
    if np.any(np.isnan(p)):
        raise ValueError("p-values must not be NaN")  # statsmodels mishandles NaN
    from statsmodels.stats.multitest import multipletests

    return np.asarray(multipletests(p, alpha=alpha, method=method)[1], dtype=np.float64)


def adjust_within(pvalues, families, method, alpha=0.05):
    """Adjust each family of tests separately.

    ``families`` is a list of index arrays partitioning (part of) ``pvalues``;
    entries in no family are left unadjusted.
    """
    p = np.asarray(pvalues, dtype=np.float64)
    out = p.copy()
    for members in families:
        members = np.asarray(members, dtype=np.intp)
        if members.size:
            out[members] = adjust(p[members], method, alpha)
    return out

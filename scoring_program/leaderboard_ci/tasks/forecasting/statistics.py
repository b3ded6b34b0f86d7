"""Forecasting statistics: exact sums of every configured metric's per-series columns (see :mod:`.metrics`).

Python 3.7, numpy only.
"""

from __future__ import annotations

import numpy as np

from ...core.accumulators import ExactSums
from . import metrics
from .encoding import configured
from .metrics import shape_of

__all__ = ["Statistics"]


class Statistics:
    """Exact sums of the per-series columns of every metric, overall and per group, and the series counts.

    One :class:`ExactSums` holds, for each configured metric's columns and for
    all series and each group, the column (0 outside the group), then one
    column of ones per target (the number of series drawn).
    """

    def __init__(self, add, gold, predictions, metrics, group_codes, n_groups, layout=None):
        predictions = np.asarray(predictions)
        n = gold.n
        specs = configured(metrics)
        names = predictions.dtype.names or ()
        missing = [spec.key for spec in specs if spec.key not in names]
        if predictions.shape != (n,) or missing:
            raise ValueError(
                "predictions must be %d encoded series (forecasting.read_predictions) with the metrics %s, got %s %s"
                % (n, ", ".join(missing) or "configured", predictions.dtype, predictions.shape)
            )
        columns = [np.asarray(predictions[spec.key], dtype=np.float64).reshape(n, -1) for spec in specs]
        table = np.concatenate(columns, axis=1) if columns else np.zeros((n, 0))
        if not np.all(np.isfinite(table)):
            raise ValueError("the encoded per-series columns must be finite")
        self.layout, at = {}, 0
        for spec, column in zip(specs, columns):
            self.layout[spec.key] = (at, column.shape[1])
            at += column.shape[1]
        has_groups = gold.groups is not None
        masks = [np.ones(n, dtype=bool)] + ([group_codes == j for j in range(n_groups)] if has_groups else [])
        self.n_targets = len(masks)
        self.width = at
        blocks = [np.where(mask[:, None], table, 0.0) for mask in masks]
        counts = np.stack([mask.astype(np.float64) for mask in masks], axis=1)
        self._acc = ExactSums(np.concatenate(blocks + [counts], axis=1))
        self._sums = add(self._acc)
        self._masks = masks

    def prepare(self, stats):
        return stats

    def score(self, stats, spec, j):
        """The score of ``spec`` on all series (``j`` 0) or group ``j - 1``, for every replicate."""
        sums = np.asarray(stats[self._sums], dtype=np.float64)
        first, k = self.layout[spec.key]
        block = sums[:, j * self.width + first : j * self.width + first + k]
        count = sums[:, self.n_targets * self.width + j]
        return metrics.score_from_sums(spec.name, block, count)

    def unit_values(self, spec, j):
        """Each series' value of a mean-shaped metric (its mean is the score), or None."""
        if spec.key not in self.layout or shape_of(spec.name) != "mean":
            return None
        first, _ = self.layout[spec.key]
        return self._acc.item_values()[self._masks[j], first].copy()

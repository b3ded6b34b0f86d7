"""The statistics of one segmentation system: exact sums of per-image counts, and scores from them.

The unit of resampling is the **image** (one row of the gold).  Each image
contributes its per-class counts ``(tp, gold, pred)`` (:mod:`.counts`); a
replicate's counts are their sums weighted by the draws, which
:class:`~leaderboard_ci.core.accumulators.ExactSums` computes exactly (the
counts are integers), so every dataset-level metric of a replicate equals the
metric of the resampled data set's pooled confusion matrix.  The per-image
metrics add two columns per metric: each image's value and whether it counts;
a replicate's score is their weighted ratio, the mean over the drawn images.

Groups (``groups.column``) repeat the columns with the other groups' images
set to 0, as the ranking task does.  Standard library and numpy only.
"""

from __future__ import annotations

import numpy as np

from ...core.accumulators import ExactSums
from ...core.intervals import confidence_interval
from ..shared.base import ClassRow
from .counts import GOLD, PRED, TP
from .metrics import DATASET_METRICS, IMAGE_METRICS, METRICS, NAME, class_ratios, image_values

__all__ = ["Statistics", "chosen_classes", "check_predictions", "unit_rows"]


def chosen_classes(spec, labels):
    """The class indices ``spec`` averages over: its ``labels`` option, else every class."""
    if spec.labels is None:
        return np.arange(len(labels))
    index = dict((label, i) for i, label in enumerate(labels))
    return np.array([index[label] for label in spec.labels], dtype=np.intp)


def check_predictions(gold, predictions):
    """The ``(n, 2, k)`` int64 encoded predictions (``[tp, pred]`` per image and class), or ValueError."""
    values = np.asarray(gold.values)
    predictions = np.asarray(predictions)
    n, k = values.shape
    if predictions.shape != (n, 2, k) or predictions.dtype.kind not in "iu":
        raise ValueError(
            "segmentation predictions must be the (%d, 2, %d) integer counts [tp, pred] of each image and class "
            "(segmentation.encode_values), got %s %s" % (n, k, predictions.dtype, predictions.shape)
        )
    return predictions.astype(np.int64, copy=False)


def _dedupe(metrics):
    seen, out = set(), []
    for spec in metrics:
        if spec.task == NAME and spec.key not in seen:
            seen.add(spec.key)
            out.append(spec)
    return out


class Statistics:
    """Exact sums of a system's per-image counts (and per-image metric values), overall and per group."""

    def __init__(self, add, gold, predictions, metrics, group_codes, n_groups, layout=None):
        predictions = check_predictions(gold, predictions)
        gold_counts = np.asarray(gold.values, dtype=np.int64)
        self.n, self.k = gold_counts.shape
        self.labels = tuple(gold.labels)
        counts = np.stack(
            [predictions[:, 0], gold_counts, predictions[:, 1]], axis=1
        )  # (n, 3, k) in the order TP, GOLD, PRED
        self._counts_by_image = counts
        has_groups = gold.groups is not None
        self._masks = [np.ones(self.n, dtype=bool)] + (
            [np.asarray(group_codes) == j for j in range(n_groups)] if has_groups else []
        )
        flat = counts.reshape(self.n, -1)
        self._width = flat.shape[1]
        self._sums = add(ExactSums(np.concatenate([flat * mask[:, None] for mask in self._masks], axis=1)))
        self._column = {}
        self._image_values = {}
        columns = []
        for spec in _dedupe(metrics):
            if spec.name not in IMAGE_METRICS:
                continue
            chosen = chosen_classes(spec, self.labels)
            values, counted = image_values(
                spec.name,
                counts[:, TP][:, chosen],
                counts[:, GOLD][:, chosen],
                counts[:, PRED][:, chosen],
                spec.option("empty", "skip"),
            )
            self._column[spec.key] = len(columns)
            self._image_values[spec.key] = (values, counted > 0)
            for mask in self._masks:
                columns.extend([np.where(mask, values, 0.0), np.where(mask, counted, 0.0)])
        self._images = add(ExactSums(np.stack(columns, axis=1))) if columns else None

    def prepare(self, stats):
        return stats

    def class_counts(self, stats, j=0):
        """The summed ``(tp, gold, pred)``, each ``(R, k)``, of all images (``j`` 0) or group ``j - 1``."""
        sums = np.asarray(stats[self._sums], dtype=np.float64)
        block = sums[:, j * self._width : (j + 1) * self._width].reshape(sums.shape[0], 3, self.k)
        return block[:, TP], block[:, GOLD], block[:, PRED]

    def score(self, stats, spec, j):
        """``spec`` on all images (``j`` 0) or group ``j - 1``, one value per replicate (NaN: nothing to average).

        The metric's formula (:data:`.metrics.METRICS`) gets the chosen classes' summed ``(tp, gold, pred)``,
        or a per-image metric's summed ``(values, counted)``.
        """
        if spec.name in DATASET_METRICS:
            chosen = chosen_classes(spec, self.labels)
            tp, gold, pred = self.class_counts(stats, j)
            return METRICS[spec.name].score((tp[:, chosen], gold[:, chosen], pred[:, chosen]), spec)
        sums = np.asarray(stats[self._images], dtype=np.float64)
        column = self._column[spec.key] + 2 * j
        return METRICS[spec.name].score((sums[:, column], sums[:, column + 1]), spec)

    def unit_values(self, spec, j):
        """Each counted image's value of a per-image metric (their mean is the score), or None."""
        found = self._image_values.get(spec.key)
        if found is None:
            return None
        values, counted = found
        return values[counted & self._masks[j]].copy()

    def gold_images_per_class(self, items=None):
        """How many images hold each class in the gold (``items``: a boolean image mask, or all)."""
        present = self._counts_by_image[:, GOLD] > 0
        if items is not None:
            present = present[np.asarray(items, dtype=bool)]
        return present.sum(axis=0)


def unit_rows(statistics, full_stats, rep_stats, labels, method, confidence_level, zero_division):
    """Per-class rows: pixel precision, recall and F1 (= the class's Dice), with the Dice's interval.

    ``precision = tp / pred``, ``recall = tp / gold`` (the class's accuracy) and
    ``F1 = 2 tp / (gold + pred)``, the class's Dice over the pooled pixels; its
    IoU is ``F1 / (2 - F1)``.  A class neither in the gold nor predicted gets
    ``zero_division``.  ``predicted`` and ``support`` count pixels.
    """
    tp, gold, pred = statistics.class_counts(full_stats)
    rep_tp, rep_gold, rep_pred = statistics.class_counts(rep_stats)
    fill = float(zero_division)

    def ratios(name, a, b, c):
        values = class_ratios(name, a, b, c)
        return np.where(np.isnan(values), fill, values)

    precision = ratios("accuracy", tp, pred, pred)  # tp / pred: the accuracy formula with pred as the denominator
    recall = ratios("accuracy", tp, gold, pred)
    dice = ratios("dice", tp, gold, pred)
    dice_reps = ratios("dice", rep_tp, rep_gold, rep_pred)
    method = method if method != "bca" else "percentile"  # no per-class jackknife
    rows = []
    for c, label in enumerate(labels):
        rows.append(
            ClassRow(
                str(label),
                float(precision[0, c]),
                float(recall[0, c]),
                float(dice[0, c]),
                confidence_interval(method, dice_reps[:, c], float(dice[0, c]), confidence_level),
                int(pred[0, c]),
                int(gold[0, c]),
            )
        )
    return tuple(rows)

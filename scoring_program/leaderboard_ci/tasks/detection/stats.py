"""The detection task's ``Statistics``: one accumulator of per-category features over image weights.

The resampling unit is the image.  :class:`DetectionSums` is the accumulator
(:mod:`leaderboard_ci.core.accumulators`) that turns a block of resample
counts into every replicate's features (:mod:`.features`); it is not a
weighted sum of per-image values (average precision is read off cumulative
sums in score order), so like ROC-AUC's ``BinaryCurve`` it serves the
bootstrap and the jackknife but not the end-of-phase permutation test.

Standard library and numpy only (Python 3.7, numpy 1.17).
"""

from __future__ import annotations

import numpy as np

from ...core.accumulators import _FromCounts
from ...core.intervals import confidence_interval
from ..shared.base import ClassRow
from .boxes import AREA_RANGES, IOU_THRESHOLDS
from .features import RECALL_COMBOS, Features, SystemFeatures
from .matching import Detections, GoldObjects
from .metrics import category_ap, metric_values
from .segm_gold import is_segm, mask_detections

__all__ = ["Statistics", "DetectionSums", "gold_objects", "detections", "decode", "category_rows"]

_A = AREA_RANGES.shape[0]
_T = IOU_THRESHOLDS.shape[0]
_LINEAR = _A + len(RECALL_COMBOS) * _T


def _flat(values, width, what):
    """``(table, image index)`` of an object array of per-image ``(rows, width)`` arrays."""
    values = np.asarray(values, dtype=object)
    parts = []
    for i, part in enumerate(values):
        part = np.asarray(part, dtype=np.float64)
        if part.ndim != 2 or part.shape[1] != width:
            raise ValueError("%s of image %d must be a (rows, %d) array, got shape %s" % (what, i, width, part.shape))
        parts.append(part)
    sizes = np.array([p.shape[0] for p in parts], dtype=np.intp)
    table = np.concatenate(parts, axis=0) if parts else np.zeros((0, width))
    return table, np.repeat(np.arange(len(parts)), sizes)


def gold_objects(values):
    """:class:`~.matching.GoldObjects` of the gold's per-image arrays, sorted by image, category, file order."""
    table, image = _flat(values, 7, "the gold")
    category = table[:, 6].astype(np.intp)
    order = np.lexsort((np.arange(image.shape[0]), category, image))
    table = table[order]
    return GoldObjects(image[order], category[order], table[:, :4], table[:, 4], table[:, 5] > 0)


def detections(values):
    """:class:`~.matching.Detections` of a submission's per-image arrays (file order within each image)."""
    table, image = _flat(values, 6, "the detections")
    return Detections(image, table[:, 5].astype(np.intp), table[:, :4], table[:, 4])


class DetectionSums(_FromCounts):
    """Every replicate's per-category features (:class:`~.features.Features`, flattened) from resample counts.

    Features per category: ``npig`` per area range (4), true positives per recall
    combination and IoU threshold (60), precision sums per area range and threshold
    (40), and VOC's AP when computed (1).
    """

    what = "detection"

    def __init__(self, system, n_images):
        super(DetectionSums, self).__init__(n_images)
        self.system = system
        self.n_categories = system.n_categories
        self.per_category = _LINEAR + _A * _T + (1 if system.voc else 0)
        self.n_features = self.n_categories * self.per_category

    def _from_weights(self, weights):
        counts = np.rint(np.asarray(weights, dtype=np.float64)).astype(np.int32)
        f = self.system.features(counts)
        parts = [
            f.positives,
            f.true_positives.reshape(f.positives.shape[0], self.n_categories, -1),
            f.precision_sums.reshape(f.positives.shape[0], self.n_categories, -1),
        ]
        if f.voc is not None:
            parts.append(f.voc[:, :, None])
        return np.concatenate(parts, axis=2).reshape(f.positives.shape[0], -1)

    def unpack(self, stats):
        """:class:`~.features.Features` of flattened rows ``(N, n_features)``."""
        stats = np.asarray(stats, dtype=np.float64).reshape(-1, self.n_categories, self.per_category)
        n = stats.shape[0]
        voc = stats[:, :, -1] if self.system.voc else None
        return Features(
            stats[:, :, :_A],
            stats[:, :, _A:_LINEAR].reshape(n, self.n_categories, len(RECALL_COMBOS), _T),
            stats[:, :, _LINEAR : _LINEAR + _A * _T].reshape(n, self.n_categories, _A, _T),
            voc,
        )


class Statistics(object):
    """One system's detections matched to the gold, and the metrics of every (re)sample of images.

    Parameters follow the task protocol: ``gold.values`` and ``predictions`` hold one array per image
    (:mod:`.files`); ``metrics`` decide whether VOC's AP is computed.
    """

    def __init__(self, add, gold, predictions, metrics, group_codes, n_groups, layout=None):
        if gold.groups is not None:
            raise ValueError(
                "the detection task has no groups (use bootstrap.cluster for images of one video or scene)"
            )
        predictions = np.asarray(predictions, dtype=object)
        if predictions.shape != (gold.n,):
            raise ValueError(
                "predictions must hold one array of detections per image: %d, got %s" % (gold.n, predictions.shape)
            )
        voc = any(spec.name == "voc_ap50" for spec in metrics)
        n_categories = len(gold.labels)
        dets = detections(predictions) if not is_segm(gold.settings) else mask_detections(predictions, gold.values)
        if dets.category.size and (dets.category.min() < 0 or dets.category.max() >= n_categories):
            raise ValueError("detection category codes must lie in [0, %d)" % n_categories)
        self.system = SystemFeatures(gold_objects(gold.values), dets, gold.n, n_categories, voc=voc)
        self.detection_categories = dets.category
        self.sums = DetectionSums(self.system, gold.n)
        self.slot = add(self.sums)

    def prepare(self, stats):
        return self.sums.unpack(stats[self.slot])

    def score(self, prepared, spec, j):
        if j != 0:
            raise ValueError("the detection task has no groups")
        return metric_values(spec.name, prepared)


def decode(gold, values):
    """The per-image arrays as they are (``x, y, w, h, area, crowd, category`` / ``x, y, w, h, score, category``)."""
    return np.asarray(values, dtype=object)


def category_rows(statistics, full_stats, rep_stats, labels, method, confidence_level, zero_division):
    """Per category: AP@[.50:.95] with its interval (the table's F1 column), AP50, AR@100, counts.

    A :class:`~leaderboard_ci.tasks.shared.base.ClassRow` per category with gold boxes: ``precision``
    holds its AP50, ``recall`` its AR@100, ``f1`` its AP@[.50:.95] and ``f1_interval`` that AP's
    interval over the replicates; ``predicted`` counts the system's detections of the category
    and ``support`` the gold's non-crowd boxes (the detailed results show a row only when both
    reach ``detailed_results.min_count``, as for classes).
    """
    sums = statistics.sums
    full = sums.unpack(full_stats[statistics.slot])
    reps = sums.unpack(rep_stats[statistics.slot])
    ap, ap_reps = category_ap(full)[0], category_ap(reps)
    ap50 = full.precision_sums[0, :, 0, 0] / 101.0
    npig = full.positives[0, :, 0]
    ar100 = np.where(npig > 0, full.true_positives[0, :, 2, :].mean(axis=1) / np.where(npig > 0, npig, 1.0), np.nan)
    predicted = np.bincount(statistics.detection_categories, minlength=len(labels))
    method = method if method != "bca" else "percentile"  # BCa would need per-category jackknife values
    rows = []
    for k, label in enumerate(labels):
        if npig[k] <= 0:
            continue
        reps_k = ap_reps[:, k]
        interval = confidence_interval(method, reps_k[~np.isnan(reps_k)], ap[k], confidence_level)
        rows.append(
            ClassRow(label, float(ap50[k]), float(ar100[k]), float(ap[k]), interval, int(predicted[k]), int(npig[k]))
        )
    return tuple(rows)

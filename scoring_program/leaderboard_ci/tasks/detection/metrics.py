"""COCO's twelve box metrics and VOC's AP50 from per-category features, vectorized over replicates.

pycocotools' ``COCOeval.summarize`` (``iouType='bbox'``) reports the mean of
the entries of ``precision[T, R, K, A, M]`` or ``recall[T, K, A, M]`` that are
not -1, where -1 marks a category with no non-ignored gold box in the area
range (``npig == 0``).  A category without gold is therefore left out of the
mean (not counted as 0), and a metric whose every category is left out is -1
in pycocotools; here it is NaN (undefined: the replicate is left out of the
interval, and the scoring program refuses a metric that is undefined on the
whole test set).

=================  ======================================================  =========
metric             definition (means over categories with ``npig > 0``)     stats[i]
=================  ======================================================  =========
``map``            precision, IoU .50:.95, area all, maxDets 100            0
``ap50``           the same at IoU .50                                      1
``ap75``           the same at IoU .75                                      2
``ap_small``       IoU .50:.95, area small                                  3
``ap_medium``      IoU .50:.95, area medium                                 4
``ap_large``       IoU .50:.95, area large                                  5
``ar1``            recall, IoU .50:.95, area all, maxDets 1                 6
``ar10``           the same with maxDets 10                                 7
``ar100``          the same with maxDets 100                                8
``ar_small``       recall, area small, maxDets 100                          9
``ar_medium``      recall, area medium, maxDets 100                         10
``ar_large``       recall, area large, maxDets 100                          11
``voc_ap50``       VOC2010+ all-point AP at IoU .50 (all detections)        -
=================  ======================================================  =========

A precision entry is one of the 101 interpolated precisions of a category,
area range and threshold, so the AP metrics are ``sum of precision sums /
(101 * thresholds * categories)``; a recall entry is ``TP / npig``.

Standard library and numpy only (Python 3.7, numpy 1.17).
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from ..metrics import Metric, Metrics
from .boxes import IOU_THRESHOLDS, RECALL_THRESHOLDS

__all__ = ["NAME", "METRICS", "COCO_METRICS", "METRIC_ORDER", "metric_values", "metric_area", "category_ap"]

NAME = "detection"

_ALL_T = tuple(range(IOU_THRESHOLDS.shape[0]))
_T50 = (int(np.where(IOU_THRESHOLDS == 0.5)[0][0]),)
_T75 = (int(np.where(IOU_THRESHOLDS == 0.75)[0][0]),)

#: name -> ("ap", area range, thresholds) or ("ar", recall combo of features.RECALL_COMBOS, area range)
COCO_METRICS = OrderedDict(
    [
        ("map", ("ap", 0, _ALL_T)),
        ("ap50", ("ap", 0, _T50)),
        ("ap75", ("ap", 0, _T75)),
        ("ap_small", ("ap", 1, _ALL_T)),
        ("ap_medium", ("ap", 2, _ALL_T)),
        ("ap_large", ("ap", 3, _ALL_T)),
        ("ar1", ("ar", 0, 0)),
        ("ar10", ("ar", 1, 0)),
        ("ar100", ("ar", 2, 0)),
        ("ar_small", ("ar", 3, 1)),
        ("ar_medium", ("ar", 4, 2)),
        ("ar_large", ("ar", 5, 3)),
    ]
)
#: pycocotools' ``stats`` order, then VOC.
METRIC_ORDER = tuple(COCO_METRICS) + ("voc_ap50",)
_POINTS = RECALL_THRESHOLDS.shape[0]


def _mean_over_valid(per_category, valid):
    """Mean over the valid categories of each row; NaN where none is valid."""
    count = valid.sum(axis=1)
    total = np.where(valid, per_category, 0.0).sum(axis=1)
    out = np.full(per_category.shape[0], np.nan)
    np.divide(total, count, out=out, where=count > 0)
    return out


def metric_values(name, features):
    """The values of metric ``name`` on each row of ``features`` (:class:`~.features.Features`), ``(R,)``."""
    if name == "voc_ap50":
        if features.voc is None:
            raise ValueError("VOC AP was not computed for these features")
        valid = features.positives[:, :, 0] > 0
        return _mean_over_valid(features.voc, valid)
    kind, first, second = COCO_METRICS[name]
    if kind == "ap":
        area, thresholds = first, second
        valid = features.positives[:, :, area] > 0
        sums = features.precision_sums[:, :, area, :][:, :, list(thresholds)].sum(axis=2)
        return _mean_over_valid(sums / float(_POINTS * len(thresholds)), valid)
    combo, area = first, second
    npig = features.positives[:, :, area]
    valid = npig > 0
    recall = features.true_positives[:, :, combo, :] / np.where(valid, npig, 1.0)[:, :, None]
    return _mean_over_valid(recall.mean(axis=2), valid)


def category_ap(features):
    """Per-category AP@[.50:.95] (area all, maxDets 100), ``(R, K)``; NaN for a category without positives."""
    valid = features.positives[:, :, 0] > 0
    ap = features.precision_sums[:, :, 0, :].sum(axis=2) / float(_POINTS * len(_ALL_T))
    return np.where(valid, ap, np.nan)


def _formula(name):
    def formula(features, spec):
        return metric_values(name, features)

    return formula


def _metric(name, title, aliases=()):
    return Metric(NAME, name, title, "higher", 1.0, aliases=tuple(aliases), formula=_formula(name))


#: The task's metrics (names in canonical spelling: lower case, ``-`` and spaces as ``_``).
METRICS = Metrics(
    [
        _metric(
            "map",
            "AP@[.50:.95]",
            ("ap", "coco_map", "bbox_map", "map_coco", "ap@[.5:.95]", "ap@[.50:.95]", "map@[.5:.95]", "map_50_95"),
        ),
        _metric("ap50", "AP50", ("ap_50", "map50", "map_50")),
        _metric("ap75", "AP75", ("ap_75", "map75", "map_75")),
        _metric("ap_small", "AP small", ("aps",)),
        _metric("ap_medium", "AP medium", ("apm",)),
        _metric("ap_large", "AP large", ("apl",)),
        _metric("ar1", "AR@1", ("ar@1", "ar_1")),
        _metric("ar10", "AR@10", ("ar@10", "ar_10")),
        _metric("ar100", "AR@100", ("ar@100", "ar_100")),
        _metric("ar_small", "AR small", ("ars",)),
        _metric("ar_medium", "AR medium", ("arm",)),
        _metric("ar_large", "AR large", ("arl",)),
        _metric("voc_ap50", "VOC AP50", ("voc_map", "voc_ap", "voc_map50", "pascal_voc_ap50")),
    ]
)


def metric_area(name):
    """The area range number (:data:`~.boxes.AREA_NAMES`) a metric's categories need a positive in."""
    if name in COCO_METRICS:
        kind, first, second = COCO_METRICS[name]
        return first if kind == "ap" else second
    return 0

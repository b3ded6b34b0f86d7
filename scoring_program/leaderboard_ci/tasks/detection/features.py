"""One system's sufficient statistics per image, and its features on any weighting of the images.

:class:`SystemFeatures` matches a system's detections to the gold boxes once
(:mod:`.matching`), then gives, for a matrix of image weights (the full
sample, a block of bootstrap replicates, or a jackknife), the per-category
numbers every COCO metric is a function of:

``positives``  ``(R, K, 4)``
    non-ignored gold boxes (``npig``) per area range: the weighted sum of the
    per-image counts;
``true_positives``  ``(R, K, 6, T)``
    true positives among each image's first ``maxDet`` detections, for the
    recall combinations :data:`RECALL_COMBOS` (area range, maxDet): linear in the weights;
``precision_sums``  ``(R, K, 4, T)``
    the sum of the 101 interpolated precisions per area range and IoU
    threshold at ``maxDet = 100`` (:mod:`.curves`);
``voc``  ``(R, K)``
    VOC's all-point AP at IoU 0.5 (when asked for).

A weight is how many copies of an image the data set holds; a category's
values are those pycocotools computes on that data set (a category with no
positive in it is excluded by the metric formulas, :mod:`.metrics`).

Standard library and numpy only (Python 3.7, numpy 1.17).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from .boxes import AREA_RANGES, IOU_THRESHOLDS, MAX_DETS, in_area_range
from .curves import Curves
from .matching import TP, match, stable_order

__all__ = ["RECALL_COMBOS", "BLOCK_ELEMENTS", "Features", "SystemFeatures"]

#: The (area range, maxDet) pairs of the recall metrics: AR@1, AR@10, AR@100, then AR small/medium/large at 100.
RECALL_COMBOS = ((0, 1), (0, 10), (0, 100), (1, 100), (2, 100), (3, 100))
#: The recall combinations summed linearly (maxDet below 100); the others come with the curves.
_LINEAR_COMBOS = tuple(c for c in RECALL_COMBOS if c[1] < MAX_DETS[-1])
_CURVE_COMBOS = [i for i, c in enumerate(RECALL_COMBOS) if c[1] == MAX_DETS[-1]]
#: Units times replicates per sub-block of :meth:`SystemFeatures.features` (memory only).
BLOCK_ELEMENTS = 1 << 21
_A = AREA_RANGES.shape[0]
_T = IOU_THRESHOLDS.shape[0]

Features = namedtuple("Features", "positives true_positives precision_sums voc")


class SystemFeatures(object):
    """A system's matched detections, and its per-category features under image weights.

    Parameters
    ----------
    gold : GoldObjects
        The gold boxes, sorted by image, category and file order.
    dets : Detections
        The system's detections, in file order.
    n_images, n_categories : int
    voc : bool
        Whether VOC's AP is computed too.
    """

    def __init__(self, gold, dets, n_images, n_categories, voc=False):
        self.n_images = int(n_images)
        self.n_categories = int(n_categories)
        self.voc = bool(voc)
        self.matches = m = match(gold, dets, n_categories, voc=voc)
        k_of_gold = np.asarray(gold.category, dtype=np.intp)
        k_of_det = np.asarray(dets.category, dtype=np.intp)
        # per (image, category) pair: npig per area range, then true positives per recall combo and threshold
        pair_gold = _pair_index(gold.image, k_of_gold, n_categories)
        pair_det = _pair_index(dets.image, k_of_det, n_categories)
        pairs = np.union1d(pair_gold, pair_det)
        n_pairs = pairs.shape[0]
        at_gold = np.searchsorted(pairs, pair_gold)
        at_det = np.searchsorted(pairs, pair_det)
        # the linear part: npig per area range, and true positives among the first 1 and 10 (those
        # among the first 100 are the curves' totals); integer sums, exact in float32 below 2**24
        values = np.zeros((n_pairs, _A + len(_LINEAR_COMBOS) * _T))
        for a in range(_A):
            values[:, a] = np.bincount(at_gold, weights=~m.gold_ignored[a], minlength=n_pairs)
        for c, (a, max_det) in enumerate(_LINEAR_COMBOS):
            first = m.rank < max_det
            for t in range(_T):
                hit = first & (m.coco[a * _T + t] == TP)
                values[:, _A + c * _T + t] = np.bincount(at_det, weights=hit, minlength=n_pairs)
        self._largest = float(values.max()) if values.size else 0.0
        self._pair_values = []
        self._pair_images = []
        pair_category = pairs % n_categories
        for k in range(n_categories):
            mine = pair_category == k
            self._pair_values.append(values[mine].astype(np.float32))  # exact: small integers
            self._pair_images.append((pairs[mine] // n_categories).astype(np.intp))
        # per category: the curves, detections in the resampled data set's order
        det_area = dets.box[:, 2] * dets.box[:, 3] if dets.area is None else dets.area
        in_range = in_area_range(det_area)
        row_base = np.repeat(np.arange(_A), _T)
        score = np.asarray(dets.score, dtype=np.float64)
        self.curves, self.voc_curves = [], []
        for k in range(n_categories):
            idx = np.flatnonzero(k_of_det == k)
            order = idx[_curve_order(m.rank[idx], dets.image[idx], score[idx])]
            kept = order[m.rank[order] < MAX_DETS[-1]]
            self.curves.append(
                Curves(dets.image[kept], score[kept], m.coco[:, kept], row_base, in_range[:, kept], n_images, "coco")
            )
            if self.voc:
                self.voc_curves.append(
                    Curves(
                        dets.image[order],
                        score[order],
                        m.voc[None, order],
                        np.zeros(1, np.intp),
                        np.ones((1, order.shape[0]), dtype=bool),
                        n_images,
                        "voc",
                    )
                )

    def features(self, weights):
        """:class:`Features` of an integer weight matrix ``(R, n_images)`` (one replicate per row).

        Replicates are processed in sub-blocks of about :data:`BLOCK_ELEMENTS` units times
        replicates (memory; the values do not depend on it).
        """
        weights = np.asarray(weights)
        if weights.ndim != 2 or weights.shape[1] != self.n_images:
            raise ValueError("weights must be (R, n_images) = (R, %d), got %s" % (self.n_images, weights.shape))
        reps = weights.shape[0]
        k_count = self.n_categories
        positives = np.zeros((reps, k_count, _A))
        true_positives = np.zeros((reps, k_count, len(RECALL_COMBOS), _T))
        precision_sums = np.zeros((reps, k_count, _A, _T))
        voc = np.zeros((reps, k_count)) if self.voc else None
        units = max([c.units for c in self.curves + self.voc_curves] + [1])
        step = max(1, min(reps, BLOCK_ELEMENTS // units))
        for r0 in range(0, reps, step):
            r1 = min(reps, r0 + step)
            part = np.ascontiguousarray(weights[r0:r1], dtype=np.int32)
            n = r1 - r0
            exact32 = float(part.sum(axis=1).max()) * self._largest < 2**24
            for k in range(k_count):
                if self._pair_images[k].size:
                    dtype = np.float32 if exact32 else np.float64
                    w = np.take(part, self._pair_images[k], axis=1).astype(dtype)
                    linear = (w @ self._pair_values[k].astype(dtype, copy=False)).astype(np.float64)
                    positives[r0:r1, k] = linear[:, :_A]
                    true_positives[r0:r1, k, : len(_LINEAR_COMBOS)] = linear[:, _A:].reshape(n, -1, _T)
                npig = positives[r0:r1, k, :]  # (R, 4)
                sums, totals = self.curves[k].sums(part, np.repeat(npig, _T, axis=1))
                precision_sums[r0:r1, k] = sums.reshape(n, _A, _T)
                true_positives[r0:r1, k, _CURVE_COMBOS] = totals.reshape(n, _A, _T)
                if self.voc:
                    voc[r0:r1, k] = self.voc_curves[k].sums(part, npig[:, :1])[0][:, 0]
        return Features(positives, true_positives, precision_sums, voc)


def _pair_index(image, category, n_categories):
    return np.asarray(image, dtype=np.int64) * int(n_categories) + np.asarray(category, dtype=np.int64)


def _curve_order(rank, image, score):
    """``np.lexsort((rank, image, -score))``: descending score, then image, then rank (then position).

    Three stable sorts, least significant key first (rank and image as radix sorts, :func:`stable_order`):
    the lexsort's order, a third of its time on 250,000 detections.
    """
    order = stable_order(rank)
    order = order[stable_order(image[order])]
    return order[np.argsort(-np.asarray(score[order], dtype=np.float64), kind="mergesort")]

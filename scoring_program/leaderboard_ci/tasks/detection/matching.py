"""Per-image matching of detections to gold boxes: COCO's greedy matching and PASCAL VOC's.

Matching never looks across images, so a detection's outcome (true positive,
false positive or ignored) is a fact of its image, the same in every bootstrap
replicate that draws the image: these outcomes are the sufficient statistics
of :mod:`.curves`.

COCO (pycocotools ``COCOeval.evaluateImg``, ``iouType='bbox'``)
------------------------------------------------------------------
For each image and category, the detections are taken in descending score
order (a stable sort of the file's order, as pycocotools' ``mergesort``), the
first ``maxDet = 100`` only.  For each IoU threshold ``t`` and area range
``a``, a gold box is *ignored* when it is a crowd region or its ``area`` lies
outside ``a``; the gold boxes are scanned non-ignored first (file order within
each kind).  Each detection in turn takes, among the gold boxes still free
(a crowd region stays free) with IoU >= ``t``, the one of highest IoU, ties to
the last scanned; a non-ignored box beats any ignored one.  A detection
matched to a non-ignored box is a true positive, one matched to an ignored
box is ignored, an unmatched one is a false positive unless its own area
``w * h`` lies outside ``a`` (then ignored).  This is pycocotools' loop with
its ``break`` at the first ignored box once a regular one is matched.

PASCAL VOC (``VOCevaldet`` of the VOC2010+ devkit)
----------------------------------------------------
Every detection of the image and category, in descending score order (no
limit), takes the gold box of highest IoU among *all* of them (the first on
ties, as the devkit's strict ``>``): below 0.5 it is a false positive;
a crowd region (VOC's "difficult" object) makes it ignored; a box already
taken by a higher-scored detection makes it a false positive (a duplicate);
otherwise it is a true positive and takes the box.  The IoU is
:func:`.boxes.box_iou` (COCO's boxes are continuous ``[x, y, w, h]``: no
devkit ``+1``; a crowd region's union is the detection's area, as in COCO).

Only detection-box pairs with IoU >= 0.5 can match under either rule, so the
IoUs are computed pair by pair in bounded chunks and the others dropped.
COCO's greedy loop then runs once per rank (at most 100), over every image,
category, threshold and area range at once; VOC's needs no loop (a box goes
to the first detection, in score order, whose best box it is).

Standard library and numpy only (Python 3.7, numpy 1.17).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from .boxes import AREA_RANGES, IOU_THRESHOLDS, MAX_DETS, MIN_IOU, box_iou, in_area_range

__all__ = [
    "FP",
    "TP",
    "IGNORED",
    "N_ROWS",
    "row_of",
    "GoldObjects",
    "Detections",
    "Matches",
    "detection_order",
    "stable_order",
    "match",
]

#: Outcome codes of a detection.
FP, TP, IGNORED = 0, 1, 2
_T = IOU_THRESHOLDS.shape[0]
_A = AREA_RANGES.shape[0]
#: COCO outcome rows: one per (area range, IoU threshold), row ``a * T + t``.
N_ROWS = _A * _T
#: Candidate pairs per chunk of the IoU computation (bounds memory, never changes a result).
_PAIR_CHUNK = 1 << 21

#: Gold boxes in (image, category, file) order: image index, category code, ``[x, y, w, h]``, area, crowd flag.
GoldObjects = namedtuple("GoldObjects", "image category box area crowd")
#: Detections in file order: image index, category code, ``[x, y, w, h]``, score; for masks
#: (``iou_type: segm``) also each one's area and the pairs ``(detection, gold index, IoU)`` of IoU >= 0.5.
Detections = namedtuple("Detections", "image category box score area pairs", defaults=(None, None))


class Matches(namedtuple("Matches", "order rank coco voc gold_ignored matched_box")):
    """What matching found.

    Attributes
    ----------
    order : int array ``(D,)``
        Detection indices sorted by image, category, descending score (file order on ties).
    rank : int array ``(D,)``
        Each detection's rank among its image-category pair's (0 = highest score).
    coco : int8 array ``(N_ROWS, D)``
        COCO outcome (:data:`FP`, :data:`TP`, :data:`IGNORED`) in row ``a * T + t``
        (:func:`row_of`); detections beyond ``maxDet`` are :data:`IGNORED`.
    voc : int8 array ``(D,)`` or None
        VOC outcome at IoU 0.5 (None when not asked for).
    gold_ignored : bool array ``(4, G)``
        Whether each gold box is ignored in each area range (crowd or out of range).
    matched_box : int array ``(D,)``
        The gold box each detection is matched to at IoU .50, area all (-1: none).
    """


def row_of(area, threshold):
    """The COCO outcome row of area range ``area`` and IoU threshold number ``threshold``."""
    return area * _T + threshold


def detection_order(image, category, score):
    """Indices sorting detections by image, category, descending score, then file order.

    Two stable sorts: by descending score, then by the pair key ``image * (max category + 1) + category``
    (codes, at least 0): the order of ``np.lexsort((arange, -score, category, image))``, three times faster
    on 10^6 detections (a lexsort compares four keys; a stable sort keeps the earlier order of equal keys).
    """
    n = image.shape[0]
    image, category = np.asarray(image, dtype=np.int64), np.asarray(category, dtype=np.int64)
    if n == 0 or image.min() < 0 or category.min() < 0:
        return np.lexsort((np.arange(n), -np.asarray(score, dtype=np.float64), category, image))
    by_score = np.argsort(-np.asarray(score, dtype=np.float64), kind="mergesort")
    key = image * (int(category.max()) + 1) + category
    return by_score[stable_order(key[by_score])]


def stable_order(keys):
    """Indices sorting integer ``keys`` with equal keys in their order: ``np.argsort(keys, kind="mergesort")``.

    Keys from 0 to 65,535 (a pair key of 2,000 images and 4 categories, an image code) are sorted as
    ``uint16``, which numpy (1.17 on) sorts by radix when asked for a stable sort: 20 times faster on
    10^6 keys than the merge sort of ``int64``, and the same order (a stable sort has one result).
    """
    keys = np.asarray(keys)
    if keys.size and np.issubdtype(keys.dtype, np.integer) and keys.min() >= 0 and keys.max() < 65536:
        return np.argsort(keys.astype(np.uint16), kind="stable")
    return np.argsort(keys, kind="mergesort")


def _pair_keys(image, category, n_categories):
    return np.asarray(image, dtype=np.int64) * int(n_categories) + np.asarray(category, dtype=np.int64)


def _candidates(gold, dets, det_sorted, gold_key, det_key_sorted):
    """Pairs ``(sorted detection position, gold index, IoU)`` with IoU >= 0.5, in detection then gold order."""
    start = np.searchsorted(gold_key, det_key_sorted, side="left")
    stop = np.searchsorted(gold_key, det_key_sorted, side="right")
    counts = stop - start
    out_det, out_gold, out_iou = [], [], []
    cum = np.cumsum(counts)
    first = 0
    while first < det_sorted.shape[0]:
        # detections first .. last - 1 hold at most _PAIR_CHUNK pairs (one detection may hold more)
        base = cum[first - 1] if first else 0
        last = int(np.searchsorted(cum, base + _PAIR_CHUNK, side="right"))
        last = max(last, first + 1)
        c = counts[first:last]
        total = int(c.sum())
        if total:
            pos = np.repeat(np.arange(first, last), c)
            offsets = np.arange(total) - np.repeat(np.cumsum(c) - c, c)
            g = np.repeat(start[first:last], c) + offsets
            d = det_sorted[pos]
            iou = box_iou(dets.box[d], gold.box[g], gold.crowd[g])
            keep = iou >= MIN_IOU
            out_det.append(pos[keep])
            out_gold.append(g[keep])
            out_iou.append(iou[keep])
        first = last
    if not out_det:
        return np.zeros(0, np.intp), np.zeros(0, np.intp), np.zeros(0)
    return np.concatenate(out_det), np.concatenate(out_gold), np.concatenate(out_iou)


def _given_candidates(pairs, det_sorted, n_dets):
    """:func:`_candidates` from precomputed ``(detection, gold index, IoU)`` pairs (masks)."""
    position = np.full(n_dets, -1, dtype=np.intp)
    position[det_sorted] = np.arange(det_sorted.shape[0])
    det, gold, iou = pairs
    pos = position[det]
    kept = np.flatnonzero(pos >= 0)
    order = kept[np.lexsort((gold[kept], pos[kept]))]
    return pos[order], np.asarray(gold, dtype=np.intp)[order], np.asarray(iou, dtype=np.float64)[order]


def _segments(keys):
    """``(starts, segment of each element)`` of runs of equal ``keys`` (sorted)."""
    new = np.ones(keys.shape[0], dtype=bool)
    new[1:] = keys[1:] != keys[:-1]
    starts = np.flatnonzero(new)
    return starts, np.cumsum(new) - 1


def _coco_greedy(gold, n_dets, rank_sorted, det_sorted, cand_pos, cand_gold, cand_iou, gold_ignored):
    """COCO outcomes ``(N_ROWS, D)`` of the matched detections (FP elsewhere), rank by rank."""
    n_gold = gold.crowd.shape[0]
    outcome = np.zeros((N_ROWS, n_dets), dtype=np.int8)
    matched_box = np.full(n_dets, -1, dtype=np.intp)
    matched = np.zeros((N_ROWS, n_gold), dtype=bool)
    thresholds = np.minimum(IOU_THRESHOLDS, 1 - 1e-10)
    row_threshold = np.tile(thresholds, _A)[:, None]  # row a * T + t
    row_ignored = np.repeat(gold_ignored, _T, axis=0)  # (N_ROWS, G)
    crowd = np.asarray(gold.crowd, dtype=bool)
    cand_rank = rank_sorted[cand_pos]
    order = np.argsort(cand_rank, kind="mergesort")  # by rank, then detection, then gold order
    by_rank = np.searchsorted(cand_rank[order], np.arange(MAX_DETS[-1] + 1))
    for r in range(MAX_DETS[-1]):
        sel = order[by_rank[r] : by_rank[r + 1]]
        if not sel.size:
            continue
        e_gold = cand_gold[sel]
        e_iou = cand_iou[sel]
        starts, seg = _segments(cand_pos[sel])
        local = np.arange(sel.size) - starts[seg] + 1
        eligible = (~matched[:, e_gold] | crowd[e_gold]) & (e_iou[None, :] >= row_threshold)
        ignored = row_ignored[:, e_gold]
        regular = eligible & ~ignored
        has_regular = np.logical_or.reduceat(regular, starts, axis=1)
        candidate = np.where(has_regular[:, seg], regular, eligible & ignored)
        value = np.where(candidate, e_iou[None, :], -1.0)
        best = np.maximum.reduceat(value, starts, axis=1)
        hit = candidate & (value == best[:, seg])
        last = np.maximum.reduceat(np.where(hit, local[None, :], 0), starts, axis=1)
        rows, segs = np.nonzero(last)
        chosen = starts[segs] + last[rows, segs] - 1
        matched[rows, e_gold[chosen]] = True
        dets = det_sorted[cand_pos[sel][chosen]]
        outcome[rows, dets] = np.where(ignored[rows, chosen], IGNORED, TP)
        first = rows == 0  # area all, IoU .50
        matched_box[dets[first]] = e_gold[chosen[first]]
    return outcome, matched_box


def _voc_outcomes(gold, n_dets, det_sorted, cand_pos, cand_gold, cand_iou):
    """VOC outcomes ``(D,)``: each detection's best box (first on ties), then TP, duplicate FP or ignored.

    A box is taken by the first detection (in score order) whose best box it is, so the devkit's
    sequential loop is one sort: among the detections sharing a best non-crowd box, the first is
    the true positive and the others are duplicates.
    """
    outcome = np.zeros(n_dets, dtype=np.int8)
    if not cand_pos.size:
        return outcome
    starts, seg = _segments(cand_pos)
    best = np.maximum.reduceat(cand_iou, starts)
    hit = cand_iou == best[seg]
    first = np.minimum.reduceat(np.where(hit, np.arange(cand_pos.size), cand_pos.size), starts)
    g = cand_gold[first]
    position = cand_pos[first]  # position in score order: earlier is higher scored in its pair
    is_crowd = np.asarray(gold.crowd, dtype=bool)[g]
    by_box = np.lexsort((position, g))
    new_box = np.ones(by_box.size, dtype=bool)
    new_box[1:] = g[by_box][1:] != g[by_box][:-1]
    fresh = np.zeros(by_box.size, dtype=bool)
    fresh[by_box] = new_box
    outcome[det_sorted[position]] = np.where(is_crowd, IGNORED, np.where(fresh, TP, FP))
    return outcome


def match(gold, dets, n_categories, voc=False):
    """Match detections to gold boxes in every image and category (see the module docstring).

    Parameters
    ----------
    gold : GoldObjects
        Sorted by image, category, then file order.
    dets : Detections
        In file order (within an image, the file order breaks score ties).
    n_categories : int
    voc : bool
        Whether to compute the VOC outcomes too.

    Returns
    -------
    Matches
    """
    n_dets = dets.score.shape[0]
    gold_key = _pair_keys(gold.image, gold.category, n_categories)
    if gold_key.size and np.any(np.diff(gold_key) < 0):
        raise ValueError("gold boxes must be sorted by image and category")
    order = detection_order(dets.image, dets.category, dets.score)
    det_key_sorted = _pair_keys(dets.image[order], dets.category[order], n_categories)
    pair_starts, pair_of = _segments(det_key_sorted)
    rank_sorted = np.arange(n_dets) - pair_starts[pair_of] if n_dets else np.zeros(0, np.intp)
    rank = np.empty(n_dets, dtype=np.intp)
    rank[order] = rank_sorted
    gold_ignored = gold.crowd[None, :] | ~in_area_range(gold.area)

    kept = rank_sorted < MAX_DETS[-1]
    coco_sorted = order[kept]
    if dets.pairs is None:
        cand_pos, cand_gold, cand_iou = _candidates(gold, dets, coco_sorted, gold_key, det_key_sorted[kept])
    else:
        cand_pos, cand_gold, cand_iou = _given_candidates(dets.pairs, coco_sorted, n_dets)
    coco, matched_box = _coco_greedy(
        gold, n_dets, rank_sorted[kept], coco_sorted, cand_pos, cand_gold, cand_iou, gold_ignored
    )
    # unmatched detections whose own area lies outside the range are ignored; beyond maxDet, all are
    det_area = dets.box[:, 2] * dets.box[:, 3] if dets.area is None else dets.area
    outside = ~in_area_range(det_area)  # (4, D)
    coco[(coco == FP) & np.repeat(outside, _T, axis=0)] = IGNORED
    coco[:, rank >= MAX_DETS[-1]] = IGNORED

    voc_outcome = None
    if voc:
        if kept.all():
            vpos, vgold, viou = cand_pos, cand_gold, cand_iou
        else:
            vpos, vgold, viou = (
                _candidates(gold, dets, order, gold_key, det_key_sorted)
                if dets.pairs is None
                else _given_candidates(dets.pairs, order, n_dets)
            )
        voc_outcome = _voc_outcomes(gold, n_dets, order, vpos, vgold, viou)
    return Matches(order, rank, coco, voc_outcome, gold_ignored, matched_box)

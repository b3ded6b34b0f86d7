"""Instance segmentation (``iou_type: segm``): the setting, the gold's masks, the statistics' detections.

With ``iou_type: segm`` a detection is matched to the gold objects by the IoU
of its mask with theirs (pycocotools' ``COCOeval(iouType='segm')``); the
rest (the gold's ``area`` for the area ranges, crowd regions, matching,
curves, the twelve numbers) is the box task's.  The gold's annotations each
carry a ``segmentation``, as ``COCO.annToRLE`` reads it: polygons
``[[x1, y1, x2, y2, ...], ...]`` of the image's ``height`` and ``width``, or
RLE ``{"size": [h, w], "counts": [...] or "..."}`` of that size
(:mod:`.masks`).  Messages never quote a gold value.

Standard library and numpy only (Python 3.7, numpy 1.17).
"""

from __future__ import annotations

import math
from collections import namedtuple
from dataclasses import dataclass

import numpy as np

from ..settings import TaskSettings, setting
from .masks import (
    MAX_PIXELS,
    MAX_POLYGON_STEPS,
    counts_problems,
    decode_strings,
    masks_from_counts,
    masks_from_intervals,
    polygon_intervals,
    polygon_steps,
    union_intervals,
)
from .matching import Detections

__all__ = [
    "IOU_TYPES",
    "DetectionSettings",
    "is_segm",
    "segmentation_problem",
    "image_sizes",
    "GoldMasks",
    "gold_masks",
    "BoxGold",
    "gold_notes",
]

IOU_TYPES = ("bbox", "segm")
#: Bound on a size or a count before it is compared with the image's (keeps every product in int64).
_WIDEST = 1 << 31
_NUMBER = (int, float)


def _iou_type(value):
    if value not in IOU_TYPES:
        raise ValueError("iou_type must be bbox (boxes) or segm (instance masks), got %r" % (value,))
    return value


@dataclass(frozen=True)
class DetectionSettings(TaskSettings):
    """``iou_type``: whether detections are boxes (``bbox``) or instance masks (``segm``)."""

    iou_type: str = setting(
        "bbox",
        "bbox (boxes, the default) or segm (instance masks: COCO RLE results, mask IoU as COCOeval(iouType='segm')).",
        parse=_iou_type,
    )


@dataclass(frozen=True)
class BoxGold:
    """What a box competition (``iou_type: bbox``) keeps of a gold whose annotations carry masks: how many.

    It is the gold's ``reference`` only for :func:`gold_notes` (the submissions' boxes are read without it).
    """

    masked: int
    annotations: int


def gold_notes(gold, metric_specs):
    """The task's ``gold_notes`` (:class:`~leaderboard_ci.tasks.protocol.TaskType`): masks a box config ignores."""
    found = gold.reference
    if not isinstance(found, BoxGold) or not found.masked:
        return ()
    return (
        "%d of the %d gold annotations carry a segmentation (a mask), and this competition scores boxes "
        "(iou_type: bbox, the default): to score the masks as COCOeval(iouType='segm') does, add "
        "'iou_type: segm' to config.yaml (docs/tasks/detection.md)" % (found.masked, found.annotations),
    )


def is_segm(settings):
    """Whether ``settings`` (a ``ReadContext``'s or a gold standard's) ask for instance masks."""
    return DetectionSettings.given(settings).iou_type == "segm"


def _is_int(value):
    return type(value) is int or (type(value) is float and math.isfinite(value) and value.is_integer())


def segmentation_problem(value, polygons=True):
    """What is wrong with the shape of a ``segmentation`` (a sentence's end), or None; values never quoted."""
    if isinstance(value, dict):
        size, counts = value.get("size"), value.get("counts")
        if not isinstance(size, list) or len(size) != 2 or not all(_is_int(v) and 0 < v < _WIDEST for v in size):
            return "has a segmentation whose size is not [height, width], two positive integers"
        if isinstance(counts, str):
            return None
        too_many = isinstance(counts, list) and len(counts) > int(size[0]) * int(size[1]) + 1
        if (
            isinstance(counts, list)
            and counts
            and not too_many
            and all(type(c) is int and 0 <= c < _WIDEST for c in counts)
        ):
            return None
        return (
            "has a segmentation whose counts are neither a COCO RLE string nor a list of integers from 0 to "
            "the height times the width"
        )
    if polygons and isinstance(value, list) and value and all(isinstance(p, list) for p in value):
        for part in value:
            if len(part) < 6 or len(part) % 2 or any(type(v) not in _NUMBER for v in part):
                return "has a polygon that is not a list of at least three points x1, y1, x2, y2, ..."
            if not all(math.isfinite(v) for v in part):
                return "has a polygon with a coordinate that is not a finite number"
        return None
    if polygons:
        return 'has a segmentation that is neither polygons [[x1, y1, ...], ...] nor RLE {"size", "counts"}'
    return 'has a segmentation that is not COCO RLE {"size": [height, width], "counts": "..."}'


def image_sizes(fields_of_images):
    """``(heights, widths, index of the first image without a valid size or None)`` from the images' fields."""
    heights, widths = [], []
    for i, fields in enumerate(fields_of_images):
        h, w = fields.get("height"), fields.get("width")
        if not (_is_int(h) and _is_int(w) and h > 0 and w > 0 and h * w < MAX_PIXELS):
            return None, None, i
        heights.append(int(h))
        widths.append(int(w))
    return np.array(heights, dtype=np.int64), np.array(widths, dtype=np.int64), None


#: The gold's masks: ``masks`` (:class:`~.masks.Masks`) of the objects in the per-image arrays' order
#: (image by image, file order within each), the images' sizes, and each object's image and category code.
GoldMasks = namedtuple("GoldMasks", "masks height width image category crowd")


#: Fine-grid points per chunk of polygons rasterized at once (memory only, never a result).
_POLYGON_CHUNK = 1 << 22


def _polygon_parts(polygons, owner, h_of, w_of):
    """``(starts, ends, annotation)`` of the union of each annotation's polygons, in chunks of polygons."""
    steps = polygon_steps(polygons)
    cum = np.cumsum(steps)
    out = []
    first = 0
    while first < len(polygons):
        base = cum[first - 1] if first else 0.0
        last = max(int(np.searchsorted(cum, base + _POLYGON_CHUNK, side="right")), first + 1)
        mine = owner[first:last]
        s, e, p = polygon_intervals(polygons[first:last], h_of[mine], w_of[mine])
        out.append((s, e, mine[p]))
        first = last
    starts, ends, which = (np.concatenate([part[i] for part in out]) for i in range(3))
    return union_intervals(starts, ends, which)


def gold_masks(segmentations, where, image, category, crowd, heights, widths, fail):
    """:class:`GoldMasks` of the annotations' segmentations (file order), their image positions and categories.

    ``where[j]`` is annotation ``j``'s index in the file (for messages); ``fail(message)`` raises.
    """
    n = len(segmentations)
    image = np.asarray(image, dtype=np.intp)
    order = np.argsort(image, kind="mergesort")
    h_of = heights[image] if n else np.zeros(0, np.int64)
    w_of = widths[image] if n else np.zeros(0, np.int64)
    strings, string_of, lists, list_of, polygons, polygon_of = [], [], [], [], [], []
    for j, segm in enumerate(segmentations):
        if isinstance(segm, dict):
            if list(segm["size"]) != [h_of[j], w_of[j]]:
                fail(
                    "annotations[%d] has an RLE segmentation whose size is not its image's height and width" % where[j]
                )
            if isinstance(segm["counts"], str):
                strings.append(segm["counts"])
                string_of.append(j)
            else:
                lists.append(segm["counts"])
                list_of.append(j)
        else:
            polygons.extend(segm)
            polygon_of.extend([j] * len(segm))
    parts = []
    if polygons:
        polygon_of = np.array(polygon_of, dtype=np.int64)
        total = np.bincount(polygon_of, weights=polygon_steps(polygons), minlength=n)
        too_long = np.flatnonzero(~(total <= MAX_POLYGON_STEPS))
        if too_long.size:
            fail(
                "annotations[%d] has a polygon far outside its image (its outline is too long to draw)"
                % where[too_long[0]]
            )
        parts.append(_polygon_parts(polygons, polygon_of, h_of, w_of))
    counts = {}
    if strings:
        most = np.array([h_of[j] * w_of[j] + 1 for j in string_of], dtype=np.int64)
        decoded, indptr, problem = decode_strings(strings, most)
        if problem is not None:
            fail("annotations[%d] has an RLE counts string that %s" % (where[string_of[problem[0]]], problem[1]))
        for i, j in enumerate(string_of):
            counts[j] = decoded[indptr[i] : indptr[i + 1]]
    for i, j in enumerate(list_of):
        counts[j] = np.array(lists[i], dtype=np.int64)
    if counts:
        rle = sorted(counts)
        flat = np.concatenate([counts[j] for j in rle])
        indptr = np.concatenate([[0], np.cumsum([counts[j].shape[0] for j in rle])]).astype(np.int64)
        for i, problem in enumerate(counts_problems(flat, indptr, h_of[rle], w_of[rle])):
            if problem is not None:
                fail(
                    "annotations[%d] has RLE counts that are negative or do not sum to its image's height "
                    "times width" % where[rle[i]]
                )
        found = masks_from_counts(flat, indptr, h_of[rle], w_of[rle])
        owner = np.repeat(np.array(rle, dtype=np.int64), np.diff(found.indptr))
        parts.append((found.starts, found.ends, owner))
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    starts, ends, which = (np.concatenate([p[i] for p in parts] or [np.zeros(0, np.int64)]) for i in range(3))
    which = rank[which]
    by_mask = np.lexsort((starts, which))
    masks = masks_from_intervals(starts[by_mask], ends[by_mask], which[by_mask], h_of[order], w_of[order])
    category = np.asarray(category, dtype=np.intp)[order]
    return GoldMasks(masks, heights, widths, image[order], category, np.asarray(crowd, dtype=bool)[order])


def mask_detections(values, gold_values):
    """:class:`~.matching.Detections` of per-image mask detections, with their areas and IoU pairs.

    ``pairs`` are ``(detection, gold object in :func:`~.stats.gold_objects` order, IoU)``.
    """
    values = np.asarray(values, dtype=object)
    parts = [np.asarray(v, dtype=np.float64) for v in values]
    width = max([p.shape[1] for p in parts] + [7])
    parts = [p if p.shape[1] == width else np.zeros((0, width)) for p in parts]
    sizes = np.array([p.shape[0] for p in parts], dtype=np.intp)
    table = np.concatenate(parts) if parts else np.zeros((0, width))
    image = np.repeat(np.arange(len(parts)), sizes)
    gold_sizes = np.array([np.asarray(g).shape[0] for g in gold_values], dtype=np.int64)
    gold_offset = np.concatenate([[0], np.cumsum(gold_sizes)[:-1]]) if gold_sizes.size else gold_sizes
    gold_table = np.concatenate([np.asarray(g, dtype=np.float64) for g in gold_values]) if gold_sizes.size else None
    gold_image = np.repeat(np.arange(gold_sizes.shape[0]), gold_sizes)
    gold_category = gold_table[:, 6].astype(np.intp) if gold_table is not None else np.zeros(0, np.intp)
    rank = np.empty(gold_image.shape[0], dtype=np.intp)
    rank[np.lexsort((np.arange(gold_image.shape[0]), gold_category, gold_image))] = np.arange(gold_image.shape[0])
    rows = table[:, 7::2]
    det, slot = np.nonzero(rows >= 0)
    g = rank[gold_offset[image[det]] + rows[det, slot].astype(np.int64)] if det.size else det
    iou = table[det, 8 + 2 * slot]
    return Detections(image, table[:, 5].astype(np.intp), table[:, :4], table[:, 4], table[:, 6], (det, g, iou))

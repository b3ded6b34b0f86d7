"""Instance segmentation results (``iou_type: segm``): COCO RLE detections, and their mask IoUs with the gold.

A submission is a COCO results file of masks, as ``COCO.loadRes`` reads it: a
JSON list of ``{"image_id", "category_id", "segmentation": {"size": [h, w],
"counts": "..."}, "score"}`` (counts compressed, or a list of integers).  The
mask's size must be its image's; the counts must sum to ``h * w``.  A
``bbox`` is optional and not used for the IoU; but as in ``loadRes``, when
the detections carry boxes a detection's *area* (which decides whether an
unmatched detection is ignored in an area range) is the box's ``w * h``,
otherwise the mask's pixel count: either every detection has a bbox or none.

Reading a submission computes, for every detection, the IoU of its mask with
each gold mask of its image and category whose box overlaps its box
(:func:`.masks.mask_iou`), and keeps the pairs of IoU at least 0.5 (no
threshold accepts less): one ``(d, 7 + 2 P)`` array per image, ``x, y, w, h,
score, category code, area`` then ``P`` pairs ``(the gold object's row in
its image, IoU)`` (row -1 pads).  :func:`.segm_gold.mask_detections` turns them into the
:class:`~.matching.Detections` that matching reads instead of box IoUs.

Standard library and numpy only (Python 3.7, numpy 1.17).
"""

from __future__ import annotations

import dataclasses
import json
from array import array
from collections import OrderedDict

import numpy as np

from ..shared.base import UnscoredIds
from ..shared.json_documents import kind
from . import files
from .boxes import MIN_IOU
from .masks import (
    box_overlap,
    boxes,
    counts_problems,
    decode_strings,
    mask_iou,
    masks_from_counts,
    masks_from_intervals,
    to_counts,
    to_string,
)
from .segm_gold import is_segm, segmentation_problem

__all__ = [
    "MASK_COLUMNS",
    "MASK_RESULTS_SHAPE",
    "mask_results",
    "read_predictions",
    "encode_values",
    "submission_format",
]

MASK_COLUMNS = ("x", "y", "w", "h", "score", "category", "area")
_EXAMPLE = (
    '{"image_id": 42, "category_id": 18, "segmentation": {"size": [height, width], "counts": "..."}, "score": 0.93}'
)
MASK_RESULTS_SHAPE = "a JSON list of detections like [%s, ...] (COCO's results format for masks)" % _EXAMPLE
_KEYS = ("image_id", "category_id", "segmentation", "score")


def _problem(record, images, categories, quote):
    """The sentence's end saying what is wrong with one mask detection (a participant's values quoted)."""
    if not isinstance(record, dict):
        return "is a JSON %s; expected an object %s" % (kind(record), _EXAMPLE)
    for key in _KEYS:
        if key not in record:
            hint = " (this competition scores masks: iou_type segm)" if key == "segmentation" else ""
            return 'has no "%s"%s; expected an object %s' % (key, hint, _EXAMPLE)
    problem = files._record_problem(dict(record, bbox=record.get("bbox", [0, 0, 0, 0])), images, categories, quote)
    if problem is not None:
        return problem
    return segmentation_problem(record["segmentation"], polygons=False)


class _Read(object):
    """The detections read so far: columns, and each mask's counts (strings decoded batch by batch)."""

    def __init__(self):
        self.columns = [array("d") for _ in range(5)]  # x, y, w, h, score
        self.image, self.category = array("q"), array("q")
        self.counts, self.lengths = [], array("q")
        self.with_box = None


def _add(out, values, images, categories, sizes, quote):
    """Append a batch; ``(index, message end)`` of its first bad record, or None."""
    n_images = sizes[0].shape[0]
    strings, string_at, lists, list_at, shapes = [], [], [], [], []
    for i, record in enumerate(values):
        problem = _problem(record, images, categories, quote)
        if problem is not None:
            return i, problem
        has_box = "bbox" in record
        if out.with_box is None:
            out.with_box = has_box
        if has_box != out.with_box:
            return i, (
                "has %s bbox while detection 1 has %s; as pycocotools takes the detections' areas from their "
                "boxes when the first has one, give a bbox to every detection or to none"
                % (("a", "none") if has_box else ("no", "one"))
            )
        image = images.raw.get(record["image_id"])
        size = record["segmentation"]["size"]
        if image < n_images and [int(size[0]), int(size[1])] != [sizes[0][image], sizes[1][image]]:
            return i, "has a segmentation of size %s, not the size of image %s in the gold" % (
                files._shown(size, quote),
                files._shown(record["image_id"], quote),
            )
        counts = record["segmentation"]["counts"]
        (strings if isinstance(counts, str) else lists).append(counts)
        (string_at if isinstance(counts, str) else list_at).append(i)
        shapes.append((int(size[0]), int(size[1])))
        box = record.get("bbox", (np.nan,) * 4)
        for column, value in zip(out.columns, (box[0], box[1], box[2], box[3], record["score"])):
            column.append(value)
        out.image.append(image)
        out.category.append(categories.raw.get(record["category_id"]))
    decoded = [None] * len(values)
    if strings:
        most = np.array([shapes[i][0] * shapes[i][1] + 1 for i in string_at], dtype=np.int64)
        flat, indptr, problem = decode_strings(strings, most)
        if problem is not None:
            return string_at[problem[0]], "has a segmentation counts string that " + problem[1]
        for k, i in enumerate(string_at):
            decoded[i] = flat[indptr[k] : indptr[k + 1]]
    for k, i in enumerate(list_at):
        decoded[i] = np.array(lists[k], dtype=np.int64)
    lengths = np.array([d.shape[0] for d in decoded], dtype=np.int64)
    flat = np.concatenate(decoded) if decoded else np.zeros(0, np.int64)
    indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    shape = np.array(shapes, dtype=np.int64).reshape(-1, 2)
    for i, problem in enumerate(counts_problems(flat, indptr, shape[:, 0], shape[:, 1])):
        if problem is not None:
            return i, "has segmentation counts that %s of its size" % problem
    out.counts.append((flat, indptr, shape))
    return None


#: Candidate pairs per chunk of :func:`_pairs` (memory only, never a result).
_PAIR_CHUNK = 1 << 21


def _pairs(masks, image, category, reference, n_categories):
    """``(detection, gold object, IoU)`` of the pairs of one image and category with IoU >= 0.5.

    Only pairs whose boxes overlap are computed (the others have IoU 0), in chunks of at most
    :data:`_PAIR_CHUNK` candidates (one detection's may be more).
    """
    gold = reference.masks
    g_key = reference.image.astype(np.int64) * n_categories + reference.category
    g_order = np.lexsort((np.arange(g_key.shape[0]), g_key))
    g_sorted = g_key[g_order]
    d_key = image.astype(np.int64) * n_categories + category
    start = np.searchsorted(g_sorted, d_key, side="left")
    count = np.searchsorted(g_sorted, d_key, side="right") - start
    d_box, g_box = boxes(masks), boxes(gold)
    cum = np.cumsum(count)
    out = []
    first = 0
    while first < d_key.shape[0]:
        base = cum[first - 1] if first else 0
        last = max(int(np.searchsorted(cum, base + _PAIR_CHUNK, side="right")), first + 1)
        c = count[first:last]
        total = int(c.sum())
        det = np.repeat(np.arange(first, last), c)
        g = g_order[np.repeat(start[first:last], c) + np.arange(total) - np.repeat(np.cumsum(c) - c, c)]
        near = box_overlap(d_box[det], g_box[g])
        det, g = det[near], g[near]
        iou = mask_iou(masks, gold, det, g, reference.crowd[g])
        keep = iou >= MIN_IOU
        out.append((det[keep], g[keep], iou[keep]))
        first = last
    if not out:
        return np.zeros(0, np.intp), np.zeros(0, np.intp), np.zeros(0)
    return tuple(np.concatenate([part[i] for part in out]) for i in range(3))


def _encode(out, reference, n_categories):
    """One ``(d, 7 + 2 P)`` array per gold image (see the module docstring)."""
    n_images = reference.height.shape[0]
    image = np.frombuffer(out.image, dtype=np.int64)
    scored = image < n_images
    table = np.stack([np.frombuffer(c, dtype=np.float64) for c in out.columns], axis=1) if image.size else None
    if table is None:
        table = np.zeros((0, 5))
    category = np.frombuffer(out.category, dtype=np.int64)
    parts = out.counts or [(np.zeros(0, np.int64), np.zeros(1, np.int64), np.zeros((0, 2), np.int64))]
    flat = np.concatenate([p[0] for p in parts])
    lengths = np.concatenate([np.diff(p[1]) for p in parts])
    shape = np.concatenate([p[2] for p in parts])
    keep = np.flatnonzero(scored)
    indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    masks = masks_from_counts(flat, indptr, shape[:, 0], shape[:, 1])
    area = table[:, 2] * table[:, 3] if out.with_box else masks.area.astype(np.float64)
    det, g, iou = _pairs(_subset(masks, keep), image[keep], category[keep], reference, n_categories)
    width = int(np.bincount(det).max()) if det.size else 0
    extra = np.full((keep.shape[0], 2 * width), -1.0)
    if det.size:
        order = np.lexsort((g, det))
        det, g, iou = det[order], g[order], iou[order]
        slot = np.arange(det.shape[0]) - np.searchsorted(det, det, side="left")
        first_row = np.searchsorted(reference.image, reference.image[g], side="left")
        extra[det, 2 * slot] = g - first_row
        extra[det, 2 * slot + 1] = iou
    table = np.concatenate(
        [table[keep, :4], table[keep, 4:5], category[keep, None].astype(np.float64), area[keep, None], extra], axis=1
    )
    return files._per_image(table, image[keep], n_images)


def _subset(masks, keep):
    """The masks ``keep`` (indices, in order) of :class:`~.masks.Masks` ``masks``."""
    lo, hi = masks.indptr[keep], masks.indptr[keep + 1]
    per = hi - lo
    index = np.repeat(lo, per) + np.arange(int(per.sum())) - np.repeat(np.cumsum(per) - per, per)
    indptr = np.concatenate([[0], np.cumsum(per)]).astype(np.int64)
    return masks._replace(
        height=masks.height[keep],
        width=masks.width[keep],
        indptr=indptr,
        starts=masks.starts[index],
        ends=masks.ends[index],
        area=masks.area[keep],
    )


def mask_results(source, chunks, gold_ids, labels, reference, quote, unscored=None):
    """A participant's COCO mask results file as one array per gold image (see the module docstring)."""
    stream, images, categories = files.open_results(source, chunks, gold_ids, labels, unscored, MASK_RESULTS_SHAPE)
    out = _Read()
    offset = 0
    sizes = (reference.height, reference.width)
    for batch in stream.batches():
        bad = _add(out, batch.values, images, categories, sizes, quote)
        if bad is not None:
            raise source.at(batch.line_of(bad[0]), "detection %d %s" % (offset + bad[0] + 1, bad[1]))
        offset += len(batch.values)
    stream.finish()
    return _encode(out, reference, len(labels))


def read_predictions(submission, gold, context):
    """A participant's results: boxes (:func:`.files.read_predictions`) or, with ``iou_type: segm``, masks."""
    if not is_segm(context.settings):
        return files.read_predictions(submission, gold, context)
    found = submission.file()
    return mask_results(
        found.source,
        found.lines().chunks(),
        gold.ids,
        gold.labels,
        gold.reference,
        found.quote,
        UnscoredIds(found.source, context),
    )


def encode_values(gold_values, systems, labels=None, settings=None):
    """In-memory encoding: the gold a COCO instances dict, each system a COCO results list (boxes or masks)."""
    if not is_segm(settings):
        return files.encode_values(gold_values, systems, labels, settings)
    units = files.gold_from_coco(gold_values, segm=True)
    coded = OrderedDict()
    for name, records in systems.items():
        if not isinstance(records, list):
            raise ValueError("system %r: expected %s" % (name, MASK_RESULTS_SHAPE))
        out = _Read()
        images, categories = files._gold_ids(units["ids"], units["labels"])
        sizes = (units["reference"].height, units["reference"].width)
        bad = _add(out, records, images, categories, sizes, repr)
        if bad is not None:
            raise ValueError("system %r: detection %d %s" % (name, bad[0] + 1, bad[1]))
        coded[name] = _encode(out, units["reference"], len(units["labels"]))
    return units["values"], units["labels"], coded


def _square(h, w):
    """The compressed RLE of a square of up to 10 pixels a side in the top-left corner of an ``h x w`` image."""
    side = min(10, h, w)
    starts = np.arange(side, dtype=np.int64) * h
    masks = masks_from_intervals(starts, starts + side, np.zeros(side, np.int64), [h], [w])
    return {"size": [int(h), int(w)], "counts": to_string(to_counts(masks, 0))}


def submission_format(gold, files_config, metrics):
    """What participants submit: boxes (:func:`.files.submission_format`) or, with ``iou_type: segm``, masks."""
    boxes_format = files.submission_format(gold, files_config, metrics)
    if not is_segm(gold.settings) or gold.reference is None:
        return boxes_format
    ids = [json.loads(i) for i in (gold.ids or ())]
    sizes = list(zip(gold.reference.height.tolist(), gold.reference.width.tolist()))
    first = json.loads(gold.labels[0][gold.labels[0].rindex(" (") + 2 : -1]) if gold.labels else 1
    sample = [
        {"image_id": i, "category_id": first, "segmentation": _square(h, w), "score": 0.5}
        for i, (h, w) in zip(ids, sizes)
    ]
    shown = ",\n".join("  " + json.dumps(record) for record in sample[:2])
    public = json.loads(boxes_format.public_files[0][1])
    public["images"] = [{"id": i, "height": h, "width": w} for i, (h, w) in zip(ids, sizes)]
    return dataclasses.replace(
        boxes_format,
        goal="Segment the objects of each of the {n} test images: a mask, a category and a score for each object.",
        description=(
            "A **COCO results file of masks** (what pycocotools' `loadRes` reads): one JSON list of detections "
            'for all test images, each `{"image_id": ..., "category_id": ..., "segmentation": {"size": [height, '
            'width], "counts": "..."}, "score": ...}`, the mask in COCO\'s run-length encoding as '
            "`pycocotools.mask.encode` writes it (the counts string decoded to text), of its image's height and "
            "width (`image_info_test.json`). A `bbox` is optional: give one to every detection or to none (with "
            "boxes, a detection's area is its box's, as in pycocotools). Only the 100 highest-scored detections "
            "of an image and category count, as in pycocotools.\n\n```\n[\n%s%s\n]\n```\n"
            % (shown, ",\n  ..." if len(sample) > 2 else "")
        ),
        file_name="segmentations.json",
        sample=json.dumps(sample) + "\n",
        public_files=(("image_info_test.json", json.dumps(public, indent=1) + "\n"),),
    )

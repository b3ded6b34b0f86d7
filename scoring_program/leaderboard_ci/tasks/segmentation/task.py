"""Semantic segmentation: the in-memory encoding (``analyze``) and what participants submit (``init``).

The task type itself is built in the subpackage's ``__init__`` from the modules:
:mod:`.reading` (``read_gold``, ``read_predictions``), :mod:`.metrics` (the catalog),
:mod:`.settings`, :mod:`.statistics`.  Standard library and numpy only.
"""

from __future__ import annotations

import numpy as np

from ..protocol import SubmissionFormat
from .masks import check_values
from .png import encode_png
from .reading import GoldMasks, gold_class_counts, prediction_counts
from .settings import DEFAULT_IGNORE_INDEX

__all__ = ["encode_values", "submission_format"]


def _as_mask(values, what):
    mask = np.asarray(values)
    if mask.ndim != 2 or mask.dtype.kind not in "biu":
        raise ValueError("%s must be a 2-d integer mask, got %s %s" % (what, mask.dtype, mask.shape))
    if mask.size and int(mask.min()) < 0:
        raise ValueError("%s holds a negative value" % what)
    return mask.astype(np.uint8 if not mask.size or int(mask.max()) < 256 else np.uint16)


def encode_values(gold_values, systems, labels=None, settings=None):
    """``(gold counts, labels, {name: counts})`` from in-memory masks (2-d integer arrays per image).

    ``gold_values`` is a sequence of gold masks; ``systems`` maps names to
    sequences of predicted masks of the same shapes.  Without ``labels`` the
    classes are ``"0"`` to ``"k-1"``, ``k`` one more than the largest class
    value found.  ``settings`` is the task's :class:`.settings.SegmentationSettings`
    (its ``ignore_index``), or None for the defaults.
    """
    ignore = DEFAULT_IGNORE_INDEX if settings is None else settings.ignore_index
    gold_masks = [_as_mask(m, "gold image %d" % i) for i, m in enumerate(gold_values)]
    if not gold_masks:
        raise ValueError("the segmentation gold holds no image")
    predicted = dict(
        (name, [_as_mask(m, "system %r image %d" % (name, i)) for i, m in enumerate(masks)])
        for name, masks in systems.items()
    )
    if labels is None:
        top = max(int(np.max(np.where(m == ignore, 0, m))) for m in gold_masks)
        for masks in predicted.values():
            top = max([top] + [int(m.max()) for m in masks])
        labels = tuple(str(c) for c in range(top + 1))
    k = len(labels)
    reference = GoldMasks(gold_masks, k, ignore)
    counts = [gold_class_counts(m, k, ignore) for m in gold_masks]
    for i, found in enumerate(counts):
        if found is None:
            raise ValueError(
                "gold image %d holds a value that is neither a class index below %d nor %s" % (i, k, ignore)
            )
    gold = np.array(counts, dtype=np.int64).reshape(len(counts), k)
    coded = {}
    for name, masks in predicted.items():
        if len(masks) != len(gold_masks):
            raise ValueError("system %r has %d masks for %d gold images" % (name, len(masks), len(gold_masks)))
        out = np.zeros((len(masks), 2, k), dtype=np.int64)
        for i, (g, m) in enumerate(zip(gold_masks, masks)):
            if m.shape != g.shape:
                raise ValueError("system %r image %d is %s; the gold is %s" % (name, i, m.shape, g.shape))
            problem = check_values(m, k)
            if problem is not None:
                raise ValueError("system %r image %d %s" % (name, i, problem))
            out[i] = prediction_counts(g, m, reference)
        coded[name] = out
    return gold, tuple(labels), coded


def submission_format(gold, files, metrics):
    """What participants submit: a zip of masks, one per test image; the sample predicts class 0 everywhere.

    Built from public facts only: the image ids, their sizes (the test images' own) and the class names.
    """
    ids = list(gold.ids or ())
    shapes = [mask.shape for mask in gold.reference.masks] if gold.reference is not None else [(1, 1)] * len(ids)
    labels = list(gold.labels or ())
    classes = ", ".join("%d `%s`" % (i, label) for i, label in enumerate(labels[:30]))
    first = ids[0] if ids else "image_id"
    return SubmissionFormat(
        unit="image",
        units="images",
        goal="Label every pixel of each of the {n} test images with its class.",
        description=(
            "One **mask** per test image, named by the image's id (`%s.png`; `test_ids.txt` lists the ids), the "
            "size of its image (`image_sizes.csv`), holding the class index of every pixel: %s%s. A mask is an "
            "8-bit grayscale or palette PNG (`PIL.Image.fromarray(mask.astype(numpy.uint8)).save(path)`), a "
            "`.npy` file (`numpy.save`) or a `.npz` file holding the one array (`numpy.savez_compressed`); "
            "folders inside the zip follow the ids. A missing or extra mask, a mask of the wrong size, a value "
            "that is not a class index, a colour PNG or a damaged file is refused with the file's name.\n"
            % (first, classes, "" if len(labels) <= 30 else ", ...")
        ),
        file_name="sample_submission",
        sample="",
        public_files=(
            ("test_ids.txt", "".join(i + "\n" for i in ids)),
            (
                "image_sizes.csv",
                "id,height,width\n" + "".join("%s,%d,%d\n" % (i, h, w) for i, (h, w) in zip(ids, shapes)),
            ),
        ),
        sample_files=tuple((i + ".png", encode_png(np.zeros(shape, dtype=np.uint8))) for i, shape in zip(ids, shapes)),
    )

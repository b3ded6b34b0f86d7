"""Semantic segmentation: one class mask per image, scored by mIoU, Dice and pixel accuracy, resampled by image.

The task module protocol (see :mod:`leaderboard_ci.tasks`) for masks:

* **files**: the gold (``files.gold``) and every submission are folders of
  masks, one per image, named by the image's id; PNG (8-bit grayscale or
  palette), ``.npy`` or ``.npz`` (:mod:`.reading`, :mod:`.masks`,
  :mod:`.png`).  ``labels`` (the config's) names the classes, index 0 first;
  gold pixels equal to ``ignore_index`` (default 255) are not scored.
* **encoding**: the gold's values are its ``(n, k)`` pixels per image and
  class; a system's are its ``(n, 2, k)`` intersections and predicted pixels
  per image and class: the compact form of the per-image confusion matrices
  that every metric needs (:mod:`.counts`).
* **statistics** (:mod:`.statistics`): exact sums of those counts under the
  resample counts of the images; the metrics (:mod:`.metrics`) from the sums.
"""

from __future__ import annotations

import re

import numpy as np

from ..base import MetricInfo
from ..protocol import SubmissionFormat, TaskType
from .masks import check_values
from .metrics import EMPTY, IMAGE_METRICS
from .png import encode_png
from .reading import (
    DEFAULT_IGNORE_INDEX,
    GoldMasks,
    gold_class_counts,
    prediction_counts,
    read_gold_folder,
    read_prediction_folder,
)
from .statistics import NAME, Statistics, unit_rows

__all__ = ["NAME", "METRICS", "ALIASES", "OPTIONS", "SETTINGS", "SegmentationTask", "TASK", "encode_values"]

METRICS = {
    "miou": MetricInfo(NAME, "higher", 1.0, "mIoU"),
    "dice": MetricInfo(NAME, "higher", 1.0, "Dice"),
    "pixel_accuracy": MetricInfo(NAME, "higher", 1.0, "Pixel accuracy"),
    "mean_accuracy": MetricInfo(NAME, "higher", 1.0, "Mean class accuracy"),
    "fwiou": MetricInfo(NAME, "higher", 1.0, "FWIoU"),
    "image_iou": MetricInfo(NAME, "higher", 1.0, "mIoU per image"),
    "image_dice": MetricInfo(NAME, "higher", 1.0, "Dice per image"),
}
ALIASES = {
    "iou": "miou",
    "mean_iou": "miou",
    "jaccard": "miou",
    "mdice": "dice",
    "mean_dice": "dice",
    "accuracy": "pixel_accuracy",
    "aacc": "pixel_accuracy",
    "overall_accuracy": "pixel_accuracy",
    "macc": "mean_accuracy",
    "mean_class_accuracy": "mean_accuracy",
    "frequency_weighted_iou": "fwiou",
    "image_miou": "image_iou",
    "per_image_iou": "image_iou",
    "per_image_dice": "image_dice",
    "case_dice": "image_dice",
}
OPTIONS = ("labels", "empty")
SETTINGS = ("ignore_index", "max_pixels")
_KEY_PART = re.compile(r"[^A-Za-z0-9]+")


def make_spec(name, options, defaults):
    """``(fields, key, title)``: ``labels`` restricts the average to some classes; ``empty`` is per-image only."""
    labels = options.get("labels")
    title = METRICS[name].title
    key = name
    if labels is not None:
        if isinstance(labels, (str, int, float)) or not labels:
            raise ValueError("labels must be a non-empty list of class names, got %r" % (labels,))
        labels = tuple(str(x) for x in labels)
        if len(set(labels)) != len(labels):
            raise ValueError("labels lists a class twice: %s" % ", ".join(labels))
        if defaults.get("labels") is not None:
            unknown = [label for label in labels if label not in defaults["labels"]]
            if unknown:
                raise ValueError("label %r is not one of the classes: %s" % (unknown[0], ", ".join(defaults["labels"])))
        key = "%s_%s" % (name, "_".join(_KEY_PART.sub("_", label).strip("_").lower() for label in labels))
        title = "%s (%s)" % (title, ", ".join(labels))
    empty = options.get("empty")
    if empty is not None:
        if name not in IMAGE_METRICS:
            raise ValueError("only the per-image metrics (%s) take empty" % ", ".join(IMAGE_METRICS))
        if empty not in EMPTY:
            raise ValueError("empty must be one of: %s, got %r" % (", ".join(EMPTY), empty))
        if empty != "skip":
            key, title = "%s_empty_%s" % (key, empty), "%s, empty %s" % (title, empty)
    fields = {"labels": labels, "options": (("empty", empty),) if empty is not None else ()}
    return fields, key, title


def parse_settings(values):
    """``ignore_index`` (0-65535, or null for none) and ``max_pixels`` (a gold mask's most pixels)."""
    out = dict(values)
    if "ignore_index" in out:
        value = out["ignore_index"]
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 65535):
            raise ValueError("ignore_index must be an integer from 0 to 65535 (or null), got %r" % (value,))
    if "max_pixels" in out:
        value = out["max_pixels"]
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 2**31:
            raise ValueError("max_pixels must be an integer from 1 to 2**31, got %r" % (value,))
    return out


def check_config(metrics, settings, labels):
    """Classes must be named (``labels``), and ``ignore_index`` must not be one of their indices."""
    if labels is None:
        raise ValueError("task segmentation needs labels: the class names, in the order of their indices 0, 1, ...")
    ignore = dict(settings).get("ignore_index", DEFAULT_IGNORE_INDEX)
    if ignore is not None and ignore < len(labels):
        raise ValueError(
            "ignore_index %d is the index of class %r; set it to a value that is not a class (255 by default)"
            % (ignore, labels[ignore])
        )
    if len(labels) > 65535:
        raise ValueError("a mask holds at most 65,536 classes (16-bit values)")


def encode_values(gold_values, systems, labels=None, settings=None):
    """``(gold counts, labels, {name: counts})`` from in-memory masks (2-d integer arrays per image).

    ``gold_values`` is a sequence of gold masks; ``systems`` maps names to
    sequences of predicted masks of the same shapes.  Without ``labels`` the
    classes are ``"0"`` to ``"k-1"``, ``k`` one more than the largest class
    value found.
    """
    ignore = dict(settings or ()).get("ignore_index", DEFAULT_IGNORE_INDEX)
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


def _as_mask(values, what):
    mask = np.asarray(values)
    if mask.ndim != 2 or mask.dtype.kind not in "biu":
        raise ValueError("%s must be a 2-d integer mask, got %s %s" % (what, mask.dtype, mask.shape))
    if mask.size and int(mask.min()) < 0:
        raise ValueError("%s holds a negative value" % what)
    return mask.astype(np.uint8 if not mask.size or int(mask.max()) < 256 else np.uint16)


def decode(gold, values):
    """Custom metrics receive the encoded counts: ``(n, 2, k)`` ``[tp, pred]`` per image and class."""
    return np.asarray(values)


def metric_signature(spec, gold):
    """``classes:19|ignore:255`` (and ``agg:image|empty:skip`` for the per-image metrics)."""
    if spec.task != NAME:
        return None
    ignore = dict(gold.settings).get("ignore_index", DEFAULT_IGNORE_INDEX)
    text = "classes:%d|ignore:%s" % (len(spec.labels or gold.labels or ()), "none" if ignore is None else ignore)
    if spec.name in IMAGE_METRICS:
        text += "|agg:image|empty:%s" % spec.option("empty", "skip")
    return text


def submission_format(gold, files, metrics):
    """What participants submit: a zip of masks, one per test image; the sample predicts class 0 everywhere.

    Built from public facts only: the image ids, their sizes (the test images' own) and the class names.
    """
    ids = list(gold.ids or ())
    shapes = [mask.shape for mask in gold.reference.masks] if gold.reference is not None else [(1, 1)] * len(ids)
    labels = list(gold.labels or ())
    classes = ", ".join("%d `%s`" % (i, label) for i, label in enumerate(labels[:30]))
    first = ids[0] if ids else "image_id"
    sample = tuple((i + ".png", encode_png(np.zeros(shape, dtype=np.uint8))) for i, shape in zip(ids, shapes))
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
        sample=sample,
        public_files=(
            ("test_ids.txt", "".join(i + "\n" for i in ids)),
            (
                "image_sizes.csv",
                "id,height,width\n" + "".join("%s,%d,%d\n" % (i, h, w) for i, (h, w) in zip(ids, shapes)),
            ),
        ),
    )


class SegmentationTask(TaskType):
    """Semantic segmentation: folders of class masks, one resampling unit per image (see the module docstring)."""

    NAME, METRICS, ALIASES, OPTIONS, SETTINGS, Statistics = NAME, METRICS, ALIASES, OPTIONS, SETTINGS, Statistics
    SETTING_DOCS = {
        "ignore_index": "Gold pixels with this value are not scored (default 255; null: every pixel is a class).",
        "max_pixels": "The most pixels a gold mask may have (default 67,108,864); a submitted mask must have its "
        "gold image's size.",
    }
    OPTION_DOCS = {
        "labels": "The classes the metric averages over (a subset of labels); pixel_accuracy and fwiou count "
        "their gold pixels only.",
        "empty": "Per-image metrics: a class absent from both an image's gold and prediction is skipped "
        "(default) or counts as one.",
    }
    UNIT_VALUES_NAME = "image"
    READS_FOLDERS = True
    make_spec, parse_settings = staticmethod(make_spec), staticmethod(parse_settings)
    check_config, encode_values = staticmethod(check_config), staticmethod(encode_values)
    decode, metric_signature = staticmethod(decode), staticmethod(metric_signature)
    read_gold_folder = staticmethod(read_gold_folder)
    read_prediction_folder = staticmethod(read_prediction_folder)
    unit_rows, submission_format = staticmethod(unit_rows), staticmethod(submission_format)

    def unit_values(self, statistics, spec, j):
        """Each image's value of a per-image metric (their mean is the score); None for the dataset-level ones."""
        return statistics.unit_values(spec, j)


TASK = SegmentationTask()

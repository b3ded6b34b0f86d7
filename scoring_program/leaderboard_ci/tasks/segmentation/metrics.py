"""The segmentation metrics, from per-class pixel counts, vectorized over replicates.

Two aggregations, named apart:

**Dataset level** (``miou``, ``dice``, ``pixel_accuracy``, ``mean_accuracy``,
``fwiou``): the pixels of all images are pooled into one confusion matrix, as
mmsegmentation, the Cityscapes and ADE20K benchmarks and scikit-learn's
``confusion_matrix`` over all pixels do.  With ``tp``, ``gold`` and ``pred``
the summed counts of class ``c`` (:mod:`.counts`), ``union = gold + pred - tp``:

* IoU of class ``c``: ``tp / union``; Dice: ``2 tp / (gold + pred)``; accuracy
  of class ``c``: ``tp / gold``;
* ``miou``, ``dice``: the mean over the classes with ``union > 0`` (a class
  neither in the gold nor predicted is left out: mmsegmentation's ``nanmean``,
  torchmetrics' ``MulticlassJaccardIndex(average="macro")``, which gives such
  a class weight 0);
* ``mean_accuracy``: the mean over the classes with ``gold > 0``;
* ``pixel_accuracy``: ``sum tp / sum gold``;
* ``fwiou``: ``sum_c (gold_c / sum gold) IoU_c`` (frequency-weighted IoU; a class
  with no gold pixel weighs 0).

**Per image** (``image_iou``, ``image_dice``): each image's own mean over
classes of its IoU (Dice), then the mean over images, as medical-imaging
challenges report a mean Dice over cases.  A class absent from both an image's
gold and its prediction is left out of that image's mean (``empty: skip``,
nnU-Net's and torchmetrics' NaN), or counts as 1, a correct "nothing here"
(``empty: one``, as BraTS scores an empty region); an image with no class
left is left out of the mean over images.  (torchmetrics' ``MeanIoU`` module
averages over all (image, class) pairs instead, which weighs an image by its
number of classes present; see ``docs/tasks/segmentation.md``.)

The ``labels`` option restricts any metric to some classes: the mean runs
over those only, and ``pixel_accuracy`` and ``fwiou`` count the gold pixels of
those classes only.

A replicate whose drawn images leave no class to average over (no valid
pixel) scores NaN.  Each metric is one :class:`SegmentationMetric` of the
catalog :data:`METRICS` (names, options, formula).  Standard library and numpy only.
"""

from __future__ import annotations

import re

import numpy as np

from ..metrics import Metric, Metrics, Option
from .settings import SegmentationSettings

__all__ = [
    "NAME",
    "METRICS",
    "DATASET_METRICS",
    "IMAGE_METRICS",
    "EMPTY",
    "SegmentationMetric",
    "dataset_scores",
    "class_ratios",
    "image_values",
    "mean_over",
]

NAME = "segmentation"

#: Metrics of the pooled confusion matrix.
DATASET_METRICS = ("miou", "dice", "pixel_accuracy", "mean_accuracy", "fwiou")
#: Metrics averaged over images (each image's own mean over classes).
IMAGE_METRICS = ("image_iou", "image_dice")
#: What a class absent from both an image's gold and prediction counts for, in the per-image metrics.
EMPTY = ("skip", "one")


def _divide(top, bottom):
    """``top / bottom`` where ``bottom > 0``, NaN elsewhere (no warning)."""
    top = np.asarray(top, dtype=np.float64)
    bottom = np.asarray(bottom, dtype=np.float64)
    out = np.full(np.broadcast(top, bottom).shape, np.nan)
    np.divide(top, bottom, out=out, where=bottom > 0)
    return out


def mean_over(values):
    """The mean over the last axis of the values that are not NaN; NaN where all are."""
    values = np.asarray(values, dtype=np.float64)
    defined = ~np.isnan(values)
    count = defined.sum(axis=-1)
    total = np.where(defined, values, 0.0).sum(axis=-1)
    return _divide(total, count)


def class_ratios(name, tp, gold, pred):
    """Per-class IoU (``iou``), Dice (``dice``) or accuracy (``accuracy``): NaN where undefined."""
    tp, gold, pred = (np.asarray(a, dtype=np.float64) for a in (tp, gold, pred))
    if name == "iou":
        return _divide(tp, gold + pred - tp)
    if name == "dice":
        return _divide(2.0 * tp, gold + pred)
    if name == "accuracy":
        return _divide(tp, gold)
    raise ValueError("unknown per-class ratio %r" % (name,))


def dataset_scores(name, tp, gold, pred):
    """A dataset-level metric of summed counts ``(R, k)`` (the chosen classes' columns): ``(R,)``.

    ``tp``, ``gold`` and ``pred`` hold, per replicate and class, the
    intersections, gold pixels and predicted pixels over the drawn images
    (each drawn image counted as often as it is drawn).
    """
    if name == "miou":
        return mean_over(class_ratios("iou", tp, gold, pred))
    if name == "dice":
        return mean_over(class_ratios("dice", tp, gold, pred))
    if name == "mean_accuracy":
        return mean_over(class_ratios("accuracy", tp, gold, pred))
    tp, gold = np.asarray(tp, dtype=np.float64), np.asarray(gold, dtype=np.float64)
    if name == "pixel_accuracy":
        return _divide(tp.sum(axis=-1), gold.sum(axis=-1))
    if name == "fwiou":
        iou = class_ratios("iou", tp, gold, pred)
        weighted = np.where(gold > 0, gold * np.where(np.isnan(iou), 0.0, iou), 0.0)
        return _divide(weighted.sum(axis=-1), gold.sum(axis=-1))
    raise ValueError("%r is not a dataset-level segmentation metric" % (name,))


def image_values(name, tp, gold, pred, empty="skip"):
    """Each image's value of a per-image metric and whether it counts: ``(values, counted)``, both ``(n,)``.

    ``tp``, ``gold``, ``pred`` are ``(n, k)`` per-image counts of the chosen
    classes.  ``values`` is the image's mean over classes of its IoU
    (``image_iou``) or Dice (``image_dice``), 0 where the image does not count;
    ``counted`` is 1 for an image with a class to average over, else 0.  The
    score of a (re)sample is ``sum(w * values) / sum(w * counted)`` with ``w``
    the draws of each image.
    """
    ratio = {"image_iou": "iou", "image_dice": "dice"}.get(name)
    if ratio is None:
        raise ValueError("%r is not a per-image segmentation metric" % (name,))
    if empty not in EMPTY:
        raise ValueError("empty must be one of %s, got %r" % (", ".join(EMPTY), empty))
    per_class = class_ratios(ratio, tp, gold, pred)
    if empty == "one":
        per_class = np.where(np.isnan(per_class), 1.0, per_class)
    values = mean_over(per_class)
    counted = ~np.isnan(values)
    return np.where(counted, values, 0.0), counted.astype(np.float64)


# ---------------------------------------------------------------------------
# The catalog
# ---------------------------------------------------------------------------
_KEY_PART = re.compile(r"[^A-Za-z0-9]+")


def _labels(value):
    if isinstance(value, (str, int, float)) or not value:
        raise ValueError("labels must be a non-empty list of class names, got %r" % (value,))
    labels = tuple(str(x) for x in value)
    if len(set(labels)) != len(labels):
        raise ValueError("labels lists a class twice: %s" % ", ".join(labels))
    return labels


def _empty(value):
    if value not in EMPTY:
        raise ValueError("empty must be one of: %s, got %r" % (", ".join(EMPTY), value))
    return value


LABELS_OPTION = Option(
    "labels",
    "The classes the metric averages over (a subset of labels); pixel_accuracy and fwiou count their gold pixels only.",
    None,
    _labels,
)
EMPTY_OPTION = Option(
    "empty",
    "Per-image metrics: a class absent from both an image's gold and prediction is skipped (default) or counts as one.",
    "skip",
    _empty,
)


class SegmentationMetric(Metric):
    """A segmentation metric: ``labels`` (a class subset) and ``empty`` name themselves in the key and title.

    ``formula(sums, spec)``: for a dataset-level metric ``sums`` is ``(tp, gold,
    pred)``, each ``(R, k')`` over the chosen classes; for a per-image metric
    ``(total, counted)``, each ``(R,)``: the weighted sums of the images' values
    and of whether they count.
    """

    def make_spec(self, options, defaults):
        allowed = dict((option.name, option) for option in self.options)
        unknown = sorted(set(options) - set(allowed))
        if unknown:
            raise ValueError(
                "%s takes no option %r (it takes: %s)" % (self.name, unknown[0], ", ".join(sorted(allowed)))
            )
        key, title = self.name, self.title
        labels = options.get("labels")
        if labels is not None:
            labels = LABELS_OPTION.value(labels)
            known = defaults.get("labels")
            unknown = [label for label in labels if known is not None and label not in known]
            if unknown:
                raise ValueError("label %r is not one of the classes: %s" % (unknown[0], ", ".join(known)))
            key = "%s_%s" % (key, "_".join(_KEY_PART.sub("_", label).strip("_").lower() for label in labels))
            title = "%s (%s)" % (title, ", ".join(labels))
        chosen = ()
        if options.get("empty") is not None:
            empty = EMPTY_OPTION.value(options["empty"])
            if empty != EMPTY_OPTION.default:
                key, title, chosen = "%s_empty_%s" % (key, empty), "%s, empty %s" % (title, empty), (("empty", empty),)
        return {"labels": labels, "options": chosen}, key, title

    def parse_name(self, name):
        """``image_dice_empty_one`` is ``image_dice`` with ``empty: one`` (the key names the option)."""
        for empty in EMPTY:
            if self.name in IMAGE_METRICS and name == "%s_empty_%s" % (self.name, empty):
                return {"empty": empty}
        return None

    def signature(self, spec, gold):
        """``classes:19|ignore:255``, and ``agg:image|empty:skip`` for the per-image metrics."""
        ignore = SegmentationSettings.of(gold).ignore_index
        text = "classes:%d|ignore:%s" % (len(spec.labels or gold.labels or ()), "none" if ignore is None else ignore)
        if self.name in IMAGE_METRICS:
            text += "|agg:image|empty:%s" % spec.option("empty", "skip")
        return text


def _dataset(name):
    def formula(sums, spec):
        tp, gold, pred = sums
        return dataset_scores(name, tp, gold, pred)

    return formula


def _image_mean(sums, spec):
    total, counted = sums
    out = np.full(np.shape(total), np.nan)
    np.divide(total, counted, out=out, where=np.asarray(counted) > 0)
    return out


def _metric(name, title, aliases, per_image=False):
    return SegmentationMetric(
        NAME,
        name,
        title,
        "higher",
        1.0,
        aliases=aliases,
        options=(LABELS_OPTION, EMPTY_OPTION) if per_image else (LABELS_OPTION,),
        needs=("image_values",) if per_image else ("tp", "gold", "pred"),
        formula=_image_mean if per_image else _dataset(name),
    )


METRICS = Metrics(
    [
        _metric("miou", "mIoU", ("iou", "mean_iou", "jaccard")),
        _metric("dice", "Dice", ("mdice", "mean_dice")),
        _metric("pixel_accuracy", "Pixel accuracy", ("accuracy", "aacc", "overall_accuracy")),
        _metric("mean_accuracy", "Mean class accuracy", ("macc", "mean_class_accuracy")),
        _metric("fwiou", "FWIoU", ("frequency_weighted_iou",)),
        _metric("image_iou", "mIoU per image", ("image_miou", "per_image_iou"), per_image=True),
        _metric("image_dice", "Dice per image", ("per_image_dice", "case_dice"), per_image=True),
    ]
)

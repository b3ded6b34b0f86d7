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

``classes`` restricts any metric to some classes (the config's ``labels``
option): the mean runs over those only, and ``pixel_accuracy`` and ``fwiou``
count the gold pixels of those classes only.

A replicate whose drawn images leave no class to average over (no valid
pixel) scores NaN.  Standard library and numpy only.
"""

from __future__ import annotations

import numpy as np

__all__ = ["DATASET_METRICS", "IMAGE_METRICS", "EMPTY", "dataset_scores", "class_ratios", "image_values", "mean_over"]

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

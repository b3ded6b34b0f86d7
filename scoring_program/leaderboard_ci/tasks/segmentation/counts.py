"""Per-image pixel counts: the sufficient statistics of every segmentation metric.

For one image with gold mask ``g`` and predicted mask ``p`` over ``k`` classes, the
confusion matrix ``C[a, b]`` counts the pixels of gold class ``a`` predicted as
``b``, over the pixels whose gold is not ``ignore_index``.  Every metric of the task
(:mod:`.metrics`) is a function of three of its summaries per class ``c``:

* ``tp[c] = C[c, c]``: pixels of class ``c`` predicted as ``c`` (the intersection);
* ``gold[c] = sum_b C[c, b]``: gold pixels of class ``c``;
* ``pred[c] = sum_a C[a, c]``: pixels predicted as ``c`` (where the gold is not ignored).

so the ``3k`` numbers ``(tp, gold, pred)`` are the compact form of the ``k x k``
matrix that the metrics need, and since the confusion matrix of a set of images
is the sum of theirs, a bootstrap replicate's counts are the per-image counts
weighted by how many times each image is drawn: exact integers.

Standard library and numpy only (Python 3.7, numpy 1.17).
"""

from __future__ import annotations

import numpy as np

__all__ = ["TP", "GOLD", "PRED", "class_lookup", "image_counts", "confusion_matrix"]

#: Rows of the ``(3, k)`` counts of an image: ``counts[TP]`` are its intersections per class.
TP, GOLD, PRED = 0, 1, 2


def class_lookup(n_classes, ignore_index, size):
    """The code table of gold values: ``value * k`` for a class, ``k * k`` for ``ignore_index``.

    ``size`` is the number of possible values (256 for uint8 masks, 65536 for
    uint16); values that are neither a class nor ``ignore_index`` map to
    ``k * k + k`` (never present in a gold that was checked).
    """
    k = int(n_classes)
    table = np.full(size, k * k + k, dtype=np.intp)
    table[:k] = np.arange(k, dtype=np.intp) * k
    if ignore_index is not None and 0 <= ignore_index < size:
        table[ignore_index] = k * k
    return table


def confusion_matrix(gold, pred, n_classes, ignore_index=None, lookup=None):
    """The ``k x k`` confusion matrix of one image (rows: gold class, columns: predicted class).

    Parameters
    ----------
    gold, pred : 2-d arrays of the same shape
        Unsigned class indices; the gold may hold ``ignore_index``, the
        prediction holds classes only (both checked by the readers).
    n_classes : int
    ignore_index : int or None
    lookup : array, optional
        :func:`class_lookup` for the gold's dtype (built when not given).
    """
    k = int(n_classes)
    gold = np.asarray(gold)
    if lookup is None:
        lookup = class_lookup(k, ignore_index, 65536 if gold.dtype.itemsize > 1 else 256)
    codes = lookup[gold.ravel()]
    codes += np.asarray(pred).ravel()
    found = np.bincount(codes, minlength=k * k + 2 * k)
    return found[: k * k].reshape(k, k).astype(np.int64)


def image_counts(matrix):
    """``(3, k)`` int64 ``[tp, gold, pred]`` of one image's confusion matrix."""
    matrix = np.asarray(matrix, dtype=np.int64)
    return np.stack([np.diagonal(matrix), matrix.sum(axis=1), matrix.sum(axis=0)])

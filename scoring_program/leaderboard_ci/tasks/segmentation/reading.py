"""Reading the gold masks and a submission's masks into per-image counts (``read_gold``, ``read_predictions``).

The gold is a folder of masks (``files.gold`` names it in the reference data); its
masks stay in memory (:class:`GoldMasks`, the gold standard's ``reference``) for
every submission to be compared with.  A submission is a folder of masks, one per
gold image (:mod:`.folders`); each mask is read (:mod:`.masks`), checked against its
image's size and the class indices, and reduced at once to its counts ``[tp, pred]``
per class (:mod:`.counts`), so one predicted mask is in memory at a time.

Messages name the file (relative to the submission, or ``ref/...``) and what was
expected.  A gold mask's values are never quoted: a gold message says which file is
wrong and how, not which pixel.  Standard library and numpy only.
"""

from __future__ import annotations

import numpy as np

from ..protocol import GoldData
from ..shared.base import UnscoredIds
from .counts import class_lookup, confusion_matrix
from .folders import FolderError, mask_ids, match_masks
from .masks import MaskError, check_values, read_mask
from .settings import SegmentationSettings

__all__ = ["GoldMasks", "read_gold", "read_predictions", "prediction_counts", "gold_class_counts"]

#: A mask file may take this many bytes per pixel (an int64 .npy), plus a header (.npy's longest, 64 KiB).
_BYTES_PER_PIXEL = 8
_HEADER_BYTES = (1 << 16) + 256


class GoldMasks(object):
    """The gold's masks, in image order, and how their values are read (kept for every submission)."""

    def __init__(self, masks, n_classes, ignore_index):
        self.masks = list(masks)
        self.n_classes = int(n_classes)
        self.ignore_index = ignore_index
        self._lookups = {}

    def lookup(self, dtype):
        """The gold-value code table for masks of ``dtype`` (:func:`.counts.class_lookup`), built once."""
        size = 256 if np.dtype(dtype).itemsize == 1 else 65536
        table = self._lookups.get(size)
        if table is None:
            table = self._lookups[size] = class_lookup(self.n_classes, self.ignore_index, size)
        return table


def gold_class_counts(mask, n_classes, ignore_index):
    """``(k,)`` pixels of each class in a gold mask, or None when it holds a value that is neither a class
    nor ``ignore_index`` (one pass: the counts of every value)."""
    k = int(n_classes)
    counts = np.bincount(mask.ravel(), minlength=k)
    ignored = counts[ignore_index] if ignore_index is not None and k <= ignore_index < counts.size else 0
    return counts[:k].astype(np.int64) if counts[k:].sum() == ignored else None


def _read(file, max_pixels, expected=None):
    """One mask of a folder, or the file's one-sentence error."""
    pixels = max_pixels if expected is None else expected[0] * expected[1]
    try:
        return read_mask(file.path, pixels, pixels * _BYTES_PER_PIXEL + _HEADER_BYTES, expected)
    except MaskError as exc:
        raise file.source.whole(str(exc))


def read_gold(gold, context):
    """The gold folder's masks as :class:`~leaderboard_ci.tasks.protocol.GoldData`.

    ``values`` are the ``(n, k)`` gold pixels per image and class, ``ids`` the
    image ids, ``design`` ``{"folder": the first folder of each id (the id itself
    at the top)}`` for ``bootstrap.cluster`` and ``groups.column: folder``,
    ``reference`` the :class:`GoldMasks`.
    """
    labels = context.labels
    if labels is None:  # the configuration checks it first; a gold read without a config may not have it
        raise gold.source.error(
            "%s: task segmentation needs labels: the class names, in the order of their indices 0, 1, ..."
            % context.config_name
        )
    settings = context.settings if isinstance(context.settings, SegmentationSettings) else SegmentationSettings()
    k, ignore = len(labels), settings.ignore_index
    folder = gold.folder()
    try:
        found = mask_ids(folder.names, folder.prefix)
    except FolderError as exc:
        raise gold.source.error(str(exc))
    ids = list(found)
    masks, counts = [], []
    for ident in ids:
        file = folder.file(found[ident])
        mask = _read(file, settings.max_pixels)
        class_counts = gold_class_counts(mask, k, ignore)
        if class_counts is None:
            raise file.source.whole(
                "holds a value that is neither a class index (0 to %d, the %d labels) nor ignore_index %s; check "
                "the labels and ignore_index in %s" % (k - 1, k, ignore, context.config_name)
            )
        masks.append(mask)
        counts.append(class_counts)
    folders = [ident.split("/", 1)[0] for ident in ids]
    return GoldData(
        lines=[1] * len(ids),
        values=np.array(counts, dtype=np.int64).reshape(len(ids), k),
        labels=tuple(str(label) for label in labels),
        ids=ids,
        groups=folders if context.group_column == "folder" else None,
        design={"folder": folders},
        reference=GoldMasks(masks, k, ignore),
    )


def prediction_counts(gold_mask, mask, reference):
    """``(2, k)`` int64 ``[tp, pred]`` of one predicted mask against its gold mask."""
    matrix = confusion_matrix(
        gold_mask, mask, reference.n_classes, reference.ignore_index, reference.lookup(gold_mask.dtype)
    )
    return np.stack([np.diagonal(matrix), matrix.sum(axis=0)])


def _drop_unscored(folder, found, scored, k, unscored):
    """``files.unscored_ids: ignore``: the masks of images the gold does not score are read, their values
    checked and dropped (at most ``files.max_ids`` images in all); a scored image without a mask is then
    reported with neither a count nor an id."""
    for ident in found:
        error = None if ident in scored else unscored.decoy(ident, len(scored))
        if error is not None:
            raise error
    kept = {}
    for ident, name in found.items():
        if ident in scored:
            kept[ident] = name
            continue
        file = folder.file(name)
        problem = check_values(_read(file, _DECOY_PIXELS), k)
        if problem is not None:
            raise file.source.whole(problem)
    if len(kept) < len(scored):
        raise folder.source.error(
            "the submission has no mask for some of the test images; give one mask per test image, named by its id"
        )
    return kept


#: The largest mask of an unscored image read under ``files.unscored_ids: ignore`` (its size is not the gold's).
_DECOY_PIXELS = 1 << 24


def read_predictions(submission, gold, context):
    """A submission's masks as ``(n, 2, k)`` int64 counts ``[tp, pred]`` per image and class.

    The submission's folder (:meth:`~leaderboard_ci.tasks.protocol.SubmissionInput.folder`: its total
    size bounded by ``files.max_megabytes``); each mask bounded by its gold image's pixels.
    """
    reference = gold.reference
    folder = submission.folder()
    k = reference.n_classes
    try:
        found = mask_ids(folder.names, folder.prefix)
        if context.unscored_ids == "ignore":
            found = _drop_unscored(folder, found, set(gold.ids), k, UnscoredIds(folder.source, context))
        names = match_masks(found, list(gold.ids), folder.prefix)
    except FolderError as exc:
        raise folder.source.error(str(exc))
    out = np.zeros((gold.n, 2, k), dtype=np.int64)
    for i, name in enumerate(names):
        file = folder.file(name)
        mask = _read(file, None, reference.masks[i].shape)
        problem = check_values(mask, k)
        if problem is not None:
            raise file.source.whole(problem)
        out[i] = prediction_counts(reference.masks[i], mask, reference)
    return out

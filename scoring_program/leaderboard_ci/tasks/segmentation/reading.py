"""Reading the gold masks and a submission's masks into per-image counts.

The gold is a folder of masks (``files.gold`` names it in the reference data);
its masks stay in memory (:class:`GoldMasks`, the gold standard's
``reference``) for every submission to be compared with.  A submission is a
folder of masks, one per gold image (:mod:`.folders`); each mask is read
(:mod:`.masks`), checked against its image's size and the class indices, and
reduced at once to its counts ``[tp, pred]`` per class (:mod:`.counts`), so
one predicted mask is in memory at a time.

Messages name the file (relative to the submission, or ``ref/...``) and what
was expected.  A gold mask's values are never quoted: a gold message says
which file is wrong and how, not which pixel.  Standard library and numpy only.
"""

from __future__ import annotations

import os

import numpy as np

from .counts import class_lookup, confusion_matrix
from .folders import FolderError, list_masks, match_masks
from .masks import MaskError, check_values, read_mask

__all__ = [
    "GoldMasks",
    "DEFAULT_IGNORE_INDEX",
    "DEFAULT_MAX_PIXELS",
    "MAX_GOLD_IMAGES",
    "read_gold_folder",
    "read_prediction_folder",
    "prediction_counts",
    "gold_class_counts",
    "shown_name",
]

DEFAULT_IGNORE_INDEX = 255
#: The most pixels a gold mask may have (64 megapixels: above every public benchmark's images).
DEFAULT_MAX_PIXELS = 64 * 2**20
#: The most files a gold folder may hold.
MAX_GOLD_IMAGES = 2000000
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


def shown_name(text, limit=120):
    """A file name as a message shows it: invisible characters escaped, long names shortened in the middle."""
    text = str(text)
    if not text.isprintable():
        text = text.encode("unicode_escape").decode("ascii")
    if len(text) > limit:
        text = text[: limit // 2 - 2] + "..." + text[-(limit // 2 - 1) :]
    return text


def _settings(settings):
    settings = dict(settings or ())
    ignore = settings.get("ignore_index", DEFAULT_IGNORE_INDEX)
    return ignore, int(settings.get("max_pixels") or DEFAULT_MAX_PIXELS)


def gold_class_counts(mask, n_classes, ignore_index):
    """``(k,)`` pixels of each class in a gold mask, or None when it holds a value that is neither a class
    nor ``ignore_index`` (one pass: the counts of every value)."""
    k = int(n_classes)
    counts = np.bincount(mask.ravel(), minlength=k)
    others = counts[k:].sum() - (
        counts[ignore_index] if ignore_index is not None and k <= ignore_index < counts.size else 0
    )
    return counts[:k].astype(np.int64) if others == 0 else None


def read_gold_folder(source, labels, settings):
    """The gold folder's masks as the units of the gold standard (``read_gold``'s dictionary).

    Returns ``{"lines", "values", "labels", "ids", "groups", "design", "reference"}``:
    ``values`` the ``(n, k)`` gold pixels per image and class, ``ids`` the image
    ids, ``design`` ``{"folder": the first folder of each id (the id itself at the top)}``
    for ``bootstrap.cluster`` and ``groups.column``, ``reference`` the :class:`GoldMasks`.
    """
    if labels is None:
        raise source.error(
            "%s: task segmentation needs labels: the class names, in the order of their indices 0, 1, ..."
            % settings.get("config_name", "config.yaml")
        )
    k = len(labels)
    ignore, max_pixels = _settings(settings)
    prefix = source.name.rstrip("/") + "/"
    try:
        found = list_masks(source.path, MAX_GOLD_IMAGES, lambda name: shown_name(prefix + name))
    except FolderError as exc:
        raise source.error(str(exc))
    if not found:
        raise source.error("%s holds no mask (.png, .npy or .npz); expected one mask per test image" % prefix)
    ids = list(found)
    masks, counts = [], []
    for ident in ids:
        name = shown_name(prefix + found[ident])
        try:
            mask = read_mask(
                os.path.join(source.path, found[ident]), max_pixels, max_pixels * _BYTES_PER_PIXEL + _HEADER_BYTES
            )
        except MaskError as exc:
            raise source.error("%s %s" % (name, exc))
        class_counts = gold_class_counts(mask, k, ignore)
        if class_counts is None:
            raise source.error(
                "%s holds a value that is neither a class index (0 to %d, the %d labels) nor ignore_index %s; "
                "check the labels and ignore_index in %s" % (name, k - 1, k, ignore, settings.get("config_name"))
            )
        masks.append(mask)
        counts.append(class_counts)
    folders = [ident.split("/", 1)[0] for ident in ids]
    group_column = settings.get("group_column")
    return {
        "lines": [0] * len(ids),
        "values": np.array(counts, dtype=np.int64).reshape(len(ids), k),
        "labels": tuple(str(label) for label in labels),
        "ids": ids,
        "groups": folders if group_column == "folder" else None,
        "design": {"folder": folders},
        "reference": GoldMasks(masks, k, ignore),
    }


def prediction_counts(gold_mask, mask, reference):
    """``(2, k)`` int64 ``[tp, pred]`` of one predicted mask against its gold mask."""
    matrix = confusion_matrix(
        gold_mask, mask, reference.n_classes, reference.ignore_index, reference.lookup(gold_mask.dtype)
    )
    return np.stack([np.diagonal(matrix), matrix.sum(axis=0)])


def read_prediction_folder(source, gold, settings):
    """A submission folder's masks as ``(n, 2, k)`` int64 counts ``[tp, pred]`` per image and class.

    ``settings["max_bytes"]`` (None: no bound) bounds the masks' total size;
    each mask is bounded by its gold image's pixels.
    """
    reference = gold.reference
    prefix = source.name.rstrip("/") + "/" if source.name else ""

    def shown(name):
        return shown_name(prefix + name)

    try:
        found = list_masks(source.path, gold.n + 1000, shown)
        paths = match_masks(found, list(gold.ids), shown)
    except FolderError as exc:
        raise source.error(str(exc))
    max_bytes = settings.get("max_bytes")
    if max_bytes is not None:
        total = sum(os.stat(os.path.join(source.path, p)).st_size for p in paths)
        if total > max_bytes:
            raise source.error(
                "the submission's masks take %s MB; the limit is %g MB (save them as 8-bit PNGs)"
                % (("%.1f" if total >= 1e5 else "%.2g") % (total / 1e6), max_bytes / 1e6)
            )
    k = reference.n_classes
    out = np.zeros((gold.n, 2, k), dtype=np.int64)
    for i, path in enumerate(paths):
        expected = reference.masks[i].shape
        pixels = expected[0] * expected[1]
        try:
            mask = read_mask(
                os.path.join(source.path, path), pixels, pixels * _BYTES_PER_PIXEL + _HEADER_BYTES, expected
            )
        except MaskError as exc:
            raise source.error("%s %s" % (shown(path), exc))
        problem = check_values(mask, k)
        if problem is not None:
            raise source.error("%s %s" % (shown(path), problem))
        out[i] = prediction_counts(reference.masks[i], mask, reference)
    return out

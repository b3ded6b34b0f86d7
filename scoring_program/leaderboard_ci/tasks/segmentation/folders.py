"""Which mask file belongs to which image: a folder's files as image ids, matched with the gold's.

The scoring program lists a folder (:class:`~leaderboard_ci.tasks.protocol.InputFolder`):
the platform's and the operating system's files (``metadata``, ``__MACOSX/``, ``._*``),
hidden files and documentation are left out, symbolic links refused, one wrapping folder
entered.  Here an image's **id** is its mask's path relative to the folder without the
extension, with ``/`` between folders: ``img_001`` for ``img_001.png``,
``frankfurt/frankfurt_000000_000294`` for a Cityscapes-style tree.  The gold folder
defines the ids; a submission holds one mask per id, in any of the mask formats
(:data:`~.masks.MASK_EXTENSIONS`).

A file of another kind, a folder nested deeper than :data:`MAX_DEPTH`, two masks of one
image, a mask of no test image or a test image without a mask is one sentence naming the
file(s) and what was expected (:class:`FolderError`).  Standard library only.
"""

from __future__ import annotations

import os

from .masks import MASK_EXTENSIONS

__all__ = ["MAX_DEPTH", "FolderError", "mask_ids", "match_masks", "list_names", "shown_name"]

#: Masks in folders deeper than this (inside the submission or gold folder) are refused.
MAX_DEPTH = 6


class FolderError(ValueError):
    """What is wrong with a folder of masks: a whole sentence (the caller raises it with its error class)."""


def shown_name(text, limit=120):
    """A name as a message shows it: invisible characters escaped, a long name shortened in the middle."""
    text = str(text)
    if not text.isprintable():
        text = text.encode("unicode_escape").decode("ascii")
    if len(text) > limit:
        text = text[: limit // 2 - 2] + "..." + text[-(limit // 2 - 1) :]
    return text


def list_names(values, limit=5):
    """Up to ``limit`` names (escaped) joined by commas, with a count of the rest."""
    values = [shown_name(v) for v in values]
    shown = ", ".join(values[:limit])
    return shown + (" and %d more" % (len(values) - limit) if len(values) > limit else "")


#: For a JSON file among masks: COCO's masks (RLE or polygons) are per object, not a class per pixel.
_COCO_HINT = (
    " (COCO masks, RLE or polygons, are per object: paint each image's objects into one mask of class indices "
    "first, e.g. with pycocotools.mask.decode)"
)


def mask_ids(names, prefix=""):
    """``{image id: file name}`` of a folder's files (FolderError for anything that is not a mask).

    ``prefix`` is how messages name the folder's files (``ref/masks/``, or the
    wrapping folder of a submission).
    """
    found = {}
    for name in names:
        stem, extension = os.path.splitext(name)
        if extension.lower() not in MASK_EXTENSIONS:
            raise FolderError(
                "%s is not a mask; expected only masks (.png, .npy or .npz), one per test image, named by the "
                "image's id%s" % (shown_name(prefix + name), _COCO_HINT if extension.lower() == ".json" else "")
            )
        depth = (prefix + name).count("/")
        if depth > MAX_DEPTH:
            raise FolderError(
                "%s is nested %d folders deep; expected the masks at the top of the zip or in folders at most "
                "%d deep" % (shown_name(prefix + name), depth, MAX_DEPTH)
            )
        if stem in found:
            raise FolderError(
                "%s and %s are two masks of image %s; keep one"
                % (shown_name(prefix + found[stem]), shown_name(prefix + name), shown_name(stem))
            )
        found[stem] = name
    return found


def match_masks(found, ids, prefix="", example_extension=".png"):
    """``[file name of each image's mask]`` in the order of ``ids`` (FolderError naming what differs).

    ``found`` is :func:`mask_ids`' mapping.  When the listing entered a wrapping
    folder (``prefix``, how messages name the files) that the gold's ids start
    with (a gold of one city folder, zipped as that folder), the ids are
    matched with the prefix; the names returned stay relative to the folder.
    """
    if prefix and ids and all(i.startswith(prefix) for i in ids) and not any(i.startswith(prefix) for i in found):
        found = dict((prefix + i, name) for i, name in found.items())
    wanted = set(ids)
    extra = [prefix + found[i] for i in sorted(found) if i not in wanted]
    example = "%s%s" % (ids[0], example_extension) if ids else "image_id.png"
    if extra:
        raise FolderError(
            "%s %s no test image; expected masks named by the test images' ids (e.g. %s)"
            % (list_names(extra), "names" if len(extra) == 1 else "name", shown_name(example))
        )
    missing = [i for i in ids if i not in found]
    if missing:
        raise FolderError(
            "the submission has no mask for {:,} of the {:,} test images ({}); expected one mask per test "
            "image, named by its id (e.g. {})".format(
                len(missing), len(ids), list_names(missing), shown_name(missing[0] + example_extension)
            )
        )
    return [found[i] for i in ids]

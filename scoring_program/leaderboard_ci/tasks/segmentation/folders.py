"""Which mask file belongs to which image: listing a folder of masks and matching it with the gold's.

An image's id is its mask's path relative to the folder, without the extension,
with ``/`` between folders: ``img_001`` for ``img_001.png``,
``frankfurt/frankfurt_000000_000294`` for a Cityscapes-style tree.  The gold
folder defines the ids; a submission holds one mask per id, in any of the
mask formats (:data:`~.masks.MASK_EXTENSIONS`), at the top of the zip or
inside one folder.

Ignored without a word: what operating systems and the platform add
(``__MACOSX/``, ``._*``, ``.DS_Store``, ``Thumbs.db``, ``desktop.ini``, the
worker's ``metadata``), hidden files and documentation (``README*``,
``*.md``, ``*.txt``, ``*.pdf``).  Any other file, a symbolic link, a folder
nested deeper than :data:`MAX_DEPTH`, more files than the bound, two masks of
one image, a mask of no test image or a test image without a mask is one
sentence naming the file(s) and what was expected.  Standard library only.
"""

from __future__ import annotations

import os
import stat

from .masks import MASK_EXTENSIONS

__all__ = ["MAX_DEPTH", "FolderError", "list_masks", "match_masks", "list_names"]

#: Folders inside the submission (or gold) folder deeper than this are refused.
MAX_DEPTH = 6
_SYSTEM = ("__macosx", "metadata", ".ds_store", "thumbs.db", "desktop.ini")
_DOCS_PREFIXES = ("readme", "license", "licence", "changelog")
_DOCS_SUFFIXES = (".md", ".txt", ".rst", ".pdf", ".ipynb", ".log", "~")


class FolderError(ValueError):
    """What is wrong with a folder of masks: a whole sentence (the caller picks the error class)."""


def list_names(values, limit=5):
    """Up to ``limit`` names joined by commas, with a count of the rest (names are escaped by the caller)."""
    values = list(values)
    shown = ", ".join(values[:limit])
    return shown + (" and %d more" % (len(values) - limit) if len(values) > limit else "")


def _skipped(name):
    lower = name.lower()
    return (
        lower in _SYSTEM or name.startswith(".") or lower.startswith(_DOCS_PREFIXES) or lower.endswith(_DOCS_SUFFIXES)
    )


def list_masks(root, max_files, shown=lambda name: name):
    """``{image id: relative path}`` of the mask files under ``root``, in sorted order (FolderError).

    ``max_files`` bounds the files looked at (the listing stops beyond it);
    ``shown(name)`` escapes a relative name for a message.
    """
    found = {}
    seen = 0
    real_root = os.path.realpath(root)
    pending = [("", 0)]
    while pending:
        prefix, depth = pending.pop()
        folder = os.path.join(root, prefix) if prefix else root
        for name in sorted(os.listdir(folder)):
            relative = prefix + name
            if _skipped(name):
                continue
            path = os.path.join(folder, name)
            mode = os.lstat(path).st_mode
            if stat.S_ISLNK(mode) or not os.path.realpath(path).startswith(real_root + os.sep):
                raise FolderError("%s is a symbolic link; submit the mask itself" % shown(relative))
            if stat.S_ISDIR(mode):
                if depth >= MAX_DEPTH:
                    raise FolderError(
                        "%s/ is nested %d folders deep; expected the masks at the top of the zip or in its "
                        "folders, at most %d deep" % (shown(relative), depth + 1, MAX_DEPTH)
                    )
                pending.append((relative + "/", depth + 1))
                continue
            seen += 1
            if seen > max_files:
                raise FolderError(
                    "the submission holds more than {:,} files; expected one mask per test image".format(max_files)
                )
            stem, extension = os.path.splitext(relative)
            if not stat.S_ISREG(mode) or extension.lower() not in MASK_EXTENSIONS:
                raise FolderError(
                    "%s is not a mask; expected only masks (.png, .npy or .npz), one per test image, named by "
                    "the image's id" % shown(relative)
                )
            if stem in found:
                raise FolderError(
                    "%s and %s are two masks of image %s; keep one" % (shown(found[stem]), shown(relative), shown(stem))
                )
            found[stem] = relative
    return dict(sorted(found.items()))


def _wrapper(found, ids):
    """The one folder every mask sits in, when stripping it names the images better (a zipped folder)."""
    tops = set(i.split("/", 1)[0] for i in found)
    if len(tops) != 1 or any("/" not in i for i in found):
        return None
    top = tops.pop()
    if any(i.startswith(top + "/") for i in ids):
        return None
    return top + "/"


def match_masks(found, ids, shown=lambda name: name, example_extension=".png"):
    """``[relative path of each image's mask]`` in the order of ``ids`` (FolderError naming what differs).

    ``found`` is :func:`list_masks`' mapping; one wrapping folder around all
    the masks is stripped when the ids do not start with it.
    """
    wrapper = _wrapper(found, ids)
    if wrapper is not None:
        found = dict((i[len(wrapper) :], path) for i, path in found.items())
    wanted = set(ids)
    extra = [found[i] for i in sorted(found) if i not in wanted]
    example = "%s%s" % (ids[0], example_extension) if ids else "image_id.png"
    if not found:
        raise FolderError(
            "the submission holds no mask; expected one mask per test image, named by the image's id "
            "(e.g. %s), at the top of the zip" % shown(example)
        )
    if extra:
        raise FolderError(
            "%s %s no test image; expected masks named by the test images' ids (e.g. %s)"
            % (list_names([shown(e) for e in extra]), "names" if len(extra) == 1 else "name", shown(example))
        )
    missing = [i for i in ids if i not in found]
    if missing:
        raise FolderError(
            "the submission has no mask for {:,} of the {:,} test images ({}); expected one mask per test "
            "image, named by its id (e.g. {})".format(
                len(missing), len(ids), list_names([shown(m) for m in missing]), shown(missing[0] + example_extension)
            )
        )
    return [found[i] for i in ids]

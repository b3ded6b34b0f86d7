"""Finding the participant's prediction file in the submission folder (``res/``).

:func:`find_prediction_file` looks at the top of ``res/`` and, when that holds
no candidate but one folder, inside that folder.  The worker's ``metadata``,
``__MACOSX/`` and ``._*`` files are ignored without a word; hidden files,
documentation and editor files (``README*``, ``LICENSE*``, ``*.md``, backups,
lock files, ``Thumbs.db``, ``desktop.ini``) are never candidates, and the
message says so when nothing else is there.  Among several candidates the
configured name wins, then the only data file, then the only file whose
first line names the expected columns; otherwise the message names the
candidates.  Every name a message echoes is escaped.  Standard library only.
"""

import os
import stat

from .errors import SubmissionError
from .formats import Columns, Source, has_columns, list_names, quote
from .text_files import escape

__all__ = ["find_prediction_file", "list_folder", "MAX_FOLDER_FILES"]

#: Files and folders the platform or an operating system adds; ignored without a word.
_SYSTEM_NAMES = ("__MACOSX", "metadata", ".DS_Store")
#: Never prediction files: documentation, licences, editors' backups and lock files, Windows' files.
_NOT_PREDICTIONS_PREFIXES = ("readme", "license", "licence", "copying", "changelog", "~$", ".~lock")
_NOT_PREDICTIONS_SUFFIXES = (
    ".md",
    ".markdown",
    ".rst",
    "~",
    ".bak",
    ".orig",
    ".swp",
    ".swo",
    ".tmp",
    ".lock",
    ".lck",
    ".pdf",
    ".docx",
    ".doc",
    ".ipynb",
)
_NOT_PREDICTIONS_NAMES = ("thumbs.db", "desktop.ini")
#: Candidates whose first line is read to find the one with the expected columns.
_MAX_LOOKED_AT = 20
#: Extensions of files that may hold predictions (used only to break ties).
_DATA_EXTENSIONS = (
    ".csv",
    ".tsv",
    ".tab",
    ".txt",
    ".json",
    ".jsonl",
    ".ndjson",
    ".pred",
    ".preds",
    ".predictions",
    ".out",
    ".labels",
    ".dat",
    "",
)


# ---------------------------------------------------------------------------
# Finding the prediction file
# ---------------------------------------------------------------------------
class _FoundPath(str):
    """The path of a found prediction file, remembering its name relative to the submission folder."""

    def __new__(cls, path, shown):
        self = super(_FoundPath, cls).__new__(cls, path)
        self.shown = shown
        return self


def _found(res_dir, name):
    return _FoundPath(os.path.join(res_dir, name), name)


def _is_system(name):
    return name in _SYSTEM_NAMES or name.startswith("._")


def _never_predictions(name):
    """Whether a file's name says it is documentation, a backup, a lock file or an OS file."""
    lower = name.lower()
    return (
        lower in _NOT_PREDICTIONS_NAMES
        or lower.startswith(_NOT_PREDICTIONS_PREFIXES)
        or lower.endswith(_NOT_PREDICTIONS_SUFFIXES)
        or (lower.startswith("#") and lower.endswith("#"))
    )


class _Listing(object):
    """What a submission folder holds: candidate files, folders, and files left out (with why)."""

    def __init__(self):
        self.files, self.folders, self.hidden, self.other = [], [], [], []


def _entries(folder, res_dir, prefix, listing=None):
    """The entries of ``folder`` (relative names, with ``prefix``) as a :class:`_Listing`.

    Symbolic links and anything whose real path leaves ``res/`` are refused.
    """
    listing = listing or _Listing()
    found = _Listing()
    real_res = os.path.realpath(res_dir)
    for name in sorted(os.listdir(folder)):
        if _is_system(name):
            continue
        shown = prefix + name
        if name.startswith("."):
            listing.hidden.append(shown)
            continue
        path = os.path.join(folder, name)
        if os.path.islink(path):
            if _never_predictions(name):
                listing.other.append(shown)
                continue
            raise SubmissionError("%s is a symbolic link; submit the file itself, not a link" % escape(shown, 200))
        real = os.path.realpath(path)
        if not real.startswith(real_res + os.sep):
            raise SubmissionError("%s is outside the submission; submit the file itself" % escape(shown, 200))
        mode = os.lstat(path).st_mode
        if stat.S_ISDIR(mode):
            found.folders.append(shown)
        elif stat.S_ISREG(mode):
            if _never_predictions(name):
                listing.other.append(shown)
            else:
                found.files.append(shown)
    listing.files, listing.folders = found.files, found.folders
    return listing


def _names(values, limit=5):
    return list_names(values, limit)


def _nothing(listing):
    """The error for a submission without a candidate file, saying what it holds instead."""
    if not listing.hidden and not listing.other:
        return SubmissionError(
            "the submission is empty: the zip holds no prediction file; put your prediction "
            "file (e.g. predictions.csv) at the top of the zip"
        )
    parts = []
    only = len(listing.hidden) + len(listing.other) == 1
    if listing.hidden:
        many = len(listing.hidden) > 1
        parts.append(
            "%s %s hidden (the name starts with a dot) and %s ignored"
            % (
                "its only file, %s," % _names(listing.hidden) if only else _names(listing.hidden),
                "are" if many else "is",
                "are" if many else "is",
            )
        )
    if listing.other:
        many = len(listing.other) > 1
        parts.append(
            "%s %s documentation or editor file%s, never read as predictions"
            % (
                "its only file, %s," % _names(listing.other) if only else _names(listing.other),
                "are" if many else "is a",
                "s" if many else "",
            )
        )
    return SubmissionError(
        "the submission holds no prediction file: %s; add your prediction file under a "
        "plain name such as predictions.csv" % "; ".join(parts)
    )


def _pick_named(res_dir, wanted, listing, nested):
    """The file named ``wanted`` (at the top or in the one folder)."""
    for name in listing.files + nested + listing.other:
        if os.path.basename(name) == wanted:
            return _found(res_dir, name)
    inside = [
        name
        for folder in ([] if nested else listing.folders[:_MAX_LOOKED_AT])
        for name in _entries(os.path.join(res_dir, folder), res_dir, folder + "/", _Listing()).files
        if os.path.basename(name) == wanted
    ]
    if inside:  # in several folders (one folder alone would be ``nested``): say where, and the fix
        raise SubmissionError(
            "the submission has %d folder%s holding a file named %s (%s); expected one "
            "prediction file, at the top of the zip or in a single folder: zip only the file to be scored"
            % (len(inside), "s" if len(inside) > 1 else "", quote(wanted), _names(inside))
        )
    found = listing.files + nested + [f + "/" for f in listing.folders if not nested] + listing.hidden
    raise SubmissionError(
        "the submission has no file named %s (found: %s); name your prediction file %s "
        "and put it at the top of the zip" % (quote(wanted), _names(found) or "nothing", escape(wanted, 200))
    )


def _columns_of(config):
    files = config.files
    return Columns(files.prediction_columns, id=files.id_column, id_required=files.id_column is not None)


def _pick_only(res_dir, files, config):
    """The prediction file among ``files``: the only one, the only data file, the only one with the columns."""
    if len(files) == 1:
        return _found(res_dir, files[0])
    data = [f for f in files if os.path.splitext(f)[1].lower() in _DATA_EXTENSIONS]
    if len(data) == 1:
        return _found(res_dir, data[0])
    candidates = data or files
    columns = _columns_of(config)
    if len(candidates) > _MAX_LOOKED_AT:
        raise SubmissionError(
            "the submission has %d candidate prediction files (%s); submit a zip holding only "
            "your prediction file" % (len(candidates), _names(candidates))
        )
    matching = [f for f in candidates if has_columns(Source(os.path.join(res_dir, f), f), columns)]
    if len(matching) == 1:
        return _found(res_dir, matching[0])
    expected = columns.describe_header(",")
    which = (
        "each has the header %s" % expected
        if len(matching) == len(candidates) and len(candidates) == 2
        else "%d of them have the header %s" % (len(matching), expected)
        if matching
        else "none has the header %s" % expected
    )
    raise SubmissionError(
        "the submission has %d candidate prediction files (%s) and %s; submit a zip holding "
        "only your prediction file" % (len(candidates), _names(candidates), which)
    )


def find_prediction_file(res_dir, config):
    """Locate the participant's prediction file in ``res/``.

    The file may be at the top of ``res/`` or inside exactly one folder (a
    zip of a folder).  The worker's ``metadata`` file, ``__MACOSX/`` and
    ``._*`` files are ignored; hidden files (``.name``), documentation and
    editor files (``README*``, ``LICENSE*``, ``*.md``, backups, lock files,
    ``Thumbs.db``, ``desktop.ini``) are never candidates, and one folder is
    searched even when such files sit next to it.  With ``files.predictions``
    set, that name is taken; otherwise the only candidate, else the only one
    with a data extension, else the only one whose first line names the
    expected columns; otherwise the message names the candidates.

    Parameters
    ----------
    res_dir : str
        The submission folder (``$input/res``).
    config : Config

    Returns
    -------
    str
        The path of the prediction file (it also remembers its name
        relative to ``res_dir``, which messages use).

    Raises
    ------
    SubmissionError
        For an empty submission, several candidates, deep nesting, symbolic
        links, or a missing named file.
    """
    if not os.path.isdir(res_dir):
        raise _nothing(_Listing())
    listing = _entries(res_dir, res_dir, "")
    nested = []
    if not listing.files and len(listing.folders) == 1:
        folder = listing.folders[0]
        inner = _entries(os.path.join(res_dir, folder), res_dir, folder + "/", _Listing())
        listing.hidden += inner.hidden
        listing.other += inner.other
        nested = inner.files
        if not nested and inner.folders:
            raise SubmissionError(
                "the prediction file is nested too deep (in %s); put it at the top of the zip"
                % _names([d + "/" for d in inner.folders], 3)
            )
        if not nested and config.files.predictions is None:
            raise _nothing(listing)
    wanted = config.files.predictions
    if wanted is not None:
        return _pick_named(res_dir, wanted, listing, nested)
    if listing.files:
        return _pick_only(res_dir, listing.files, config)
    if nested:
        return _pick_only(res_dir, nested, config)
    if listing.folders:
        inside = [
            name
            for folder in listing.folders[:_MAX_LOOKED_AT]
            for name in _entries(os.path.join(res_dir, folder), res_dir, folder + "/", _Listing()).files
        ]
        names = [os.path.basename(name) for name in inside]
        repeated = sorted(set(n for n in names if names.count(n) > 1))
        if repeated:
            raise SubmissionError(
                "the submission has %d folders holding a file named %s (%s); expected one prediction "
                "file, at the top of the zip or in a single folder: zip only the file to be scored"
                % (
                    len([f for f in inside if os.path.basename(f) == repeated[0]]),
                    quote(repeated[0]),
                    _names([f for f in inside if os.path.basename(f) == repeated[0]]),
                )
            )
        raise SubmissionError(
            "the submission has %d folders (%s) and no prediction file at its top; expected one "
            "prediction file, at the top of the zip or in a single folder"
            % (len(listing.folders), _names([f + "/" for f in listing.folders]))
        )
    raise _nothing(listing)


# ---------------------------------------------------------------------------
# A folder of files (a task that reads the submission's folder itself)
# ---------------------------------------------------------------------------
#: A submission folder with more files than this is refused (a bound on the listing's time and memory).
MAX_FOLDER_FILES = 200000


def list_folder(path, error=SubmissionError, enter_one=False, what="the submission"):
    """``(folder, names)``: every file under ``path`` by its relative name (``/``-separated), sorted.

    The platform's and the operating system's files (``metadata``, ``__MACOSX/``,
    ``._*``, ``.DS_Store``), hidden files and folders, and documentation or
    editor files are left out; a symbolic link, or anything whose real path
    leaves ``path``, is refused with ``error``.  With ``enter_one``, a folder
    whose top holds nothing but one folder (a zip of a folder) is listed from
    inside that folder, which is then the returned ``folder``.  ``what`` names
    the folder in messages.
    """
    real_root = os.path.realpath(path)
    if enter_one:
        top = _entries(path, path, "")
        if not top.files and len(top.folders) == 1:
            path = os.path.join(path, top.folders[0])
    names = []
    for folder, dirs, files in os.walk(path):
        kept = []
        for name in sorted(dirs):
            full = os.path.join(folder, name)
            if os.path.islink(full):
                raise error("%s is a symbolic link; submit the files themselves" % escape(_relative(full, path), 200))
            if not (_is_system(name) or name.startswith(".")):
                kept.append(name)
        dirs[:] = kept
        for name in sorted(files):
            full = os.path.join(folder, name)
            if _is_system(name) or name.startswith(".") or _never_predictions(name):
                continue
            if os.path.islink(full) or not os.path.realpath(full).startswith(real_root + os.sep):
                raise error("%s is a symbolic link; submit the files themselves" % escape(_relative(full, path), 200))
            if stat.S_ISREG(os.lstat(full).st_mode):
                names.append(_relative(full, path))
            if len(names) > MAX_FOLDER_FILES:
                raise error("%s holds more than %d files; expected one file per test unit" % (what, MAX_FOLDER_FILES))
    if not names:
        raise error("%s holds no files; expected one file per test unit (see the evaluation page)" % what)
    return path, sorted(names)


def _relative(full, root):
    return os.path.relpath(full, root).replace(os.sep, "/")

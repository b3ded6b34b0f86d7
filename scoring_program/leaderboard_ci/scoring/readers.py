"""The input side of the scoring program: find, read and align the files.

* :func:`find_prediction_file` locates the participant's file in ``res/``;
* :func:`read_gold` reads the organizer's gold standard into a
  :class:`~leaderboard_ci.tasks.scorer.GoldStandard`;
* :func:`read_predictions` reads the participant's file and aligns it with
  the gold items (by id when both files have ids, else by order);
* :func:`read_baseline` reads the organizer's baseline the same way.

The file formats are in :mod:`leaderboard_ci.scoring.formats`.  A participant's
mistake raises :class:`SubmissionError` with one sentence naming the file, the
line and what was expected; the organizer's raises :class:`ConfigError`.  No
message ever quotes a gold label or value, or says whether an item is right:
gold ids are public, gold labels are not.

Only the standard library and numpy are used (the per-submission path runs on
Python 3.7 with numpy 1.17).
"""
import hashlib
import os
import stat
from array import array

import numpy as np

from .config import check_key_lengths
from .errors import ConfigError, SubmissionError
from .formats import Columns, Source, list_names, open_table, quote
from .text_files import iter_lines
from ..tasks.base import GoldStandard
from ..tasks.registry import task_module

__all__ = ["find_prediction_file", "read_gold", "read_predictions", "read_baseline"]

#: Files and folders a zip may carry besides the predictions.
_IGNORED_NAMES = ("__MACOSX", "Thumbs.db", "desktop.ini", "metadata")
#: Extensions of files that may hold predictions (used only to break ties).
_DATA_EXTENSIONS = (".csv", ".tsv", ".tab", ".txt", ".json", ".jsonl", ".ndjson", ".pred", ".preds",
                    ".predictions", ".out", ".labels", ".dat", "")
_MAX_ABS = 1e100
_LISTED_LABELS = 20


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


def _ignored(name):
    return name.startswith(".") or name in _IGNORED_NAMES


def _entries(folder, res_dir, prefix):
    """Files and folders of ``folder`` that matter, as ``(files, folders)`` of relative names.

    Symbolic links and anything whose real path leaves ``res/`` are refused.
    """
    files, folders = [], []
    real_res = os.path.realpath(res_dir)
    for name in sorted(os.listdir(folder)):
        if _ignored(name):
            continue
        path = os.path.join(folder, name)
        shown = prefix + name
        if os.path.islink(path):
            raise SubmissionError("%s is a symbolic link; submit the file itself, not a link" % shown)
        real = os.path.realpath(path)
        if not real.startswith(real_res + os.sep):
            raise SubmissionError("%s is outside the submission; submit the file itself" % shown)
        mode = os.lstat(path).st_mode
        if stat.S_ISDIR(mode):
            folders.append(shown)
        elif stat.S_ISREG(mode):
            files.append(shown)
    return files, folders


def _pick_named(res_dir, wanted, files, folders, nested):
    """The file named ``wanted`` (at the top or in the one folder)."""
    for name in files + nested:
        if os.path.basename(name) == wanted:
            return _found(res_dir, name)
    found = files + nested + [f + "/" for f in folders if not nested]
    raise SubmissionError("the submission has no file named %s (found: %s); name your prediction file %s "
                          "and put it at the top of the zip"
                          % (quote(wanted), list_names(found, 5) or "nothing", wanted))


def _pick_only(res_dir, files):
    """The only data file among ``files``, or an error listing the candidates."""
    if len(files) == 1:
        return _found(res_dir, files[0])
    data = [f for f in files if os.path.splitext(f)[1].lower() in _DATA_EXTENSIONS]
    if len(data) == 1:
        return _found(res_dir, data[0])
    candidates = data or files
    raise SubmissionError("the submission has %d candidate prediction files (%s); submit a zip with exactly "
                          "one prediction file, or the organizers can set files.predictions"
                          % (len(candidates), list_names(candidates, 5)))


def find_prediction_file(res_dir, config):
    """Locate the participant's prediction file in ``res/``.

    The file may be at the top of ``res/`` or inside exactly one folder (a
    zip of a folder).  The worker's ``metadata`` file, ``__MACOSX/``,
    dotfiles and ``Thumbs.db`` are ignored.  With ``files.predictions`` set,
    that name is taken; otherwise the only data file.

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
    empty = SubmissionError("the submission is empty: the zip holds no prediction file; put your prediction "
                            "file (e.g. predictions.csv) at the top of the zip")
    if not os.path.isdir(res_dir):
        raise empty
    files, folders = _entries(res_dir, res_dir, "")
    nested = []
    if not files and len(folders) == 1:
        nested, deeper = _entries(os.path.join(res_dir, folders[0]), res_dir, folders[0] + "/")
        if not nested and not deeper:
            raise empty
        if not nested:
            raise SubmissionError("the prediction file is nested too deep (in %s); put it at the top of the zip"
                                  % list_names([d + "/" for d in deeper], 3))
    wanted = config.files.predictions
    if wanted is not None:
        return _pick_named(res_dir, wanted, files, folders, nested)
    if files:
        return _pick_only(res_dir, files)
    if nested:
        return _pick_only(res_dir, nested)
    if folders:
        raise SubmissionError("the submission has %d folders (%s) and no prediction file; put the prediction "
                              "file at the top of the zip" % (len(folders), list_names([f + "/" for f in folders], 5)))
    raise empty


def _display_name(path):
    """How messages name a prediction file: relative to ``res/``, never absolute."""
    shown = getattr(path, "shown", None)
    if shown is not None:
        return shown
    parent, name = os.path.split(os.path.abspath(path))
    grandparent, folder = os.path.split(parent)
    if folder != "res" and os.path.basename(grandparent) == "res":
        return "%s/%s" % (folder, name)
    return name


# ---------------------------------------------------------------------------
# Alignment
# ---------------------------------------------------------------------------
def _no_rows(source, table, n):
    if table.format in ("csv", "tsv"):
        return source.whole("has a header but no predictions; expected one line per test item (%d)" % n)
    return source.whole("has no predictions; expected one per test item (%d)" % n)


def _new_values(typecode):
    """Where parsed values are collected: a typed array, or a list for structured values (typecode None)."""
    return array(typecode) if typecode else []


def _finish(values, typecode, stack):
    """The collected values as the task's array."""
    if typecode is None:
        return stack(values)
    return np.frombuffer(values, dtype=np.float64 if typecode == "d" else np.int64)


def _align_by_order(source, table, n, convert, typecode, stack):
    """Values in file order; there must be exactly ``n`` rows (reading stops at row n + 1)."""
    values = _new_values(typecode)
    for line, _, text, _ in table.rows:
        if len(values) == n:
            raise source.at(line, "more predictions than the %d test items; expected exactly %d "
                                  "predictions, one per test item in order" % (n, n))
        values.append(convert(line, text))
    if not values:
        raise _no_rows(source, table, n)
    if len(values) < n:
        raise source.whole("has %d predictions, expected %d (one per test item, in the order of the test set)"
                           % (len(values), n))
    return _finish(values, typecode, stack)


def _missing_ids(source, gold, seen, count):
    missing = gold.n - count
    shown, start = [], 0
    while len(shown) < 3:
        start = seen.find(0, start)
        if start < 0:
            break
        shown.append(gold.ids[start])
        start += 1
    return source.whole("is missing %d of the %d test ids (e.g. %s); give one prediction for every id"
                        % (missing, gold.n, ", ".join(quote(i) for i in shown)))


def _align_by_id(source, table, gold, convert, typecode, stack):
    """Values placed at their id's position in the gold order."""
    index = dict((ident, position) for position, ident in enumerate(gold.ids))
    seen = bytearray(gold.n)
    positions, lines, values = array("q"), array("q"), _new_values(typecode)
    unknown, first_unknown = 0, None
    for line, ident, text, _ in table.rows:
        if ident == "":
            raise source.at(line, "the id is empty")
        value = convert(line, text)
        position = index.get(ident)
        if position is None:
            unknown += 1
            first_unknown = first_unknown or (ident, line)
            continue
        if seen[position]:
            raise source.at(line, "id %s appears again (first on line %d); give one prediction per id"
                                  % (quote(ident), lines[positions.index(position)]))
        seen[position] = 1
        positions.append(position)
        lines.append(line)
        values.append(value)
    if unknown:
        raise source.whole("has %d id%s that %s not in the test set (the first is %s, on line %d); expected "
                           "ids like %s" % (unknown, "s" if unknown > 1 else "", "are" if unknown > 1 else "is",
                                            quote(first_unknown[0]), first_unknown[1], quote(gold.ids[0])))
    if not positions:
        raise _no_rows(source, table, gold.n)
    if len(positions) < gold.n:
        raise _missing_ids(source, gold, seen, len(positions))
    order = np.argsort(np.frombuffer(positions, dtype=np.int64), kind="stable")
    if typecode is None:
        return stack([values[i] for i in order])
    return np.frombuffer(values, dtype=np.float64 if typecode == "d" else np.int64)[order]


def _read_system(path, name, config, gold, max_bytes):
    """Read and align one system's predictions; errors are SubmissionError."""
    source = Source(path, name)
    size = os.stat(path).st_size
    if max_bytes is not None and size > max_bytes:
        raise source.whole("is %s MB; the limit is %g MB" % (_megabytes(size), config.files.max_megabytes))
    by_id = gold.ids is not None and config.files.id_column is not None
    columns = Columns(config.files.prediction_columns, id=config.files.id_column if by_id else None,
                      id_required=by_id, looks_like_data=_data_test(gold))
    task = task_module(gold.kind)
    settings = task_settings(config)
    try:
        if hasattr(task, "read_predictions"):  # a format of the task's own (CoNLL, TREC runs, SQuAD JSON)
            return task.read_predictions(source, iter_lines(source), gold, settings)
        convert, typecode = task.value_parser(source, gold, quote, settings)
        table = open_table(source, config.files.format, columns)
        if table.format == "lines" and gold.ids is not None:
            convert = _unheaded(source, columns, gold, convert)
        stack = None if typecode else (lambda values: task.stack(values, gold, settings))
        if by_id and table.has_ids:
            values = _align_by_id(source, table, gold, convert, typecode, stack)
        else:
            values = _align_by_order(source, table, gold.n, convert, typecode, stack)
    except (IOError, OSError) as exc:
        raise source.whole("cannot be read (%s)" % (exc.strerror or type(exc).__name__))
    if typecode is None:
        return values
    return values.astype(np.intp) if typecode == "q" else values.astype(np.float64)


def task_settings(config):
    """What a task module reads: its own settings (``config.task_settings``) and the file settings."""
    files = config.files
    settings = dict(config.task_settings)
    settings.update(format=files.format, id_column=files.id_column, gold_column=files.gold_column,
                    prediction_columns=files.prediction_columns, config_name=config.source,
                    metrics=config.metrics)
    return settings


def _megabytes(size):
    """A file size in MB (10^6 bytes) for a message: ``312.5``, ``0.025``."""
    megabytes = size / 1e6
    return "%.1f" % megabytes if megabytes >= 1 else "%.2g" % megabytes


def _unheaded(source, columns, gold, convert):
    """``convert``, explaining a rejected line that holds an id and a value (a missing header)."""
    def checked(line, text):
        try:
            return convert(line, text)
        except SubmissionError:
            ids = frozenset(gold.ids or ())
            for delimiter in (",", "\t", ";"):
                if delimiter in text and text.split(delimiter, 1)[0].strip() in ids:
                    raise source.at(line, "the line holds an id and a prediction, but the file has no header; "
                                          "start the file with the header %s" % columns.describe_header(delimiter))
            raise
    return checked


def _data_test(gold):
    """``looks_like_data(fields)``: whether a would-be header row is really data (an id or a value)."""
    ids = frozenset(gold.ids or ())
    is_value = task_module(gold.kind).is_value

    def looks_like_data(fields):
        return any(field in ids or is_value(gold, field) for field in fields)
    return looks_like_data


def read_predictions(path, config, gold):
    """Read the participant's prediction file, aligned with the gold items.

    Parameters
    ----------
    path : str
        From :func:`find_prediction_file`.
    config : Config
    gold : GoldStandard

    Returns
    -------
    ndarray
        ``np.intp`` codes into ``gold.labels`` (classification) or float64
        values (regression), in the gold order.

    Raises
    ------
    SubmissionError
        One sentence naming the file, the line and what was expected.
    """
    return _read_system(path, _display_name(path), config, gold, config.files.max_megabytes * 1e6)


def read_baseline(ref_dir, config, gold):
    """Read the organizer's baseline predictions (``ref/<baseline.file>``).

    Parsed exactly like a submission; any problem is a :class:`ConfigError`
    saying it is the baseline's.
    """
    name = config.baseline.file
    path = os.path.join(ref_dir, name)
    if not os.path.isfile(path):
        raise ConfigError("the baseline file ref/%s (baseline.file) is missing from the reference data" % name)
    try:
        return _read_system(path, "ref/" + name, config, gold, None)
    except SubmissionError as exc:
        raise ConfigError("the baseline %s (baseline.file) cannot be used: %s" % (quote(config.baseline.name),
                                                                                 exc.message))


# ---------------------------------------------------------------------------
# The gold standard
# ---------------------------------------------------------------------------
def _sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _gold_rows(source, config):
    """The gold file's rows as lists ``(lines, ids, values, groups)``; ids/groups may be None."""
    files = config.files
    group = config.groups.column if config.groups is not None else None
    columns = Columns((files.gold_column,), id=files.id_column, id_required=True, group=group)
    table = open_table(source, "auto", columns)
    if group is not None and not table.has_groups:
        raise source.whole("has no columns, so it cannot hold the group column %s (groups.column); use a CSV "
                           "file with a header" % quote(group))
    lines, ids, values, groups = [], [], [], []
    for line, ident, value, group_value in table.rows:
        lines.append(line)
        ids.append(ident)
        values.append(value)
        groups.append(group_value)
    if not values:
        raise source.whole("has no items")
    keep_ids = table.has_ids and files.id_column is not None
    return lines, ids if keep_ids else None, values, groups if table.has_groups else None


def _check_gold_ids(source, lines, ids):
    first_line = {}
    for line, ident in zip(lines, ids):
        if ident == "":
            raise source.at(line, "the id is empty")
        if ident in first_line:
            raise source.at(line, "id %s appears again (first on line %d); gold ids must be unique"
                                  % (quote(ident), first_line[ident]))
        first_line[ident] = line


def _gold_groups(source, config, lines, groups):
    """``(group_values, codes)`` from the gold group column."""
    settings = config.groups
    for line, value in zip(lines, groups):
        if value == "":
            raise source.at(line, "the group column %s is empty" % quote(settings.column))
    present = sorted(set(groups))
    if settings.values is None:
        group_values = tuple(present)
    else:
        group_values = tuple(settings.values)
        unlisted = [g for g in present if g not in group_values]
        if unlisted:
            raise source.whole("has group values that groups.values in %s does not list: %s"
                               % (config.source, ", ".join(quote(g) for g in unlisted[:5])))
        absent = [g for g in group_values if g not in set(present)]
        if absent:
            raise ConfigError("%s: groups.values lists %s, which no item of ref/%s has"
                              % (config.source, ", ".join(quote(g) for g in absent[:5]), config.files.gold))
    index = dict((value, code) for code, value in enumerate(group_values))
    return group_values, np.array([index[value] for value in groups], dtype=np.intp)


def read_gold(ref_dir, config):
    """Read ``ref/<files.gold>`` into a :class:`GoldStandard`.

    Parameters
    ----------
    ref_dir : str
        The reference-data folder (``$input/ref``).
    config : Config

    Returns
    -------
    GoldStandard

    Raises
    ------
    ConfigError
        For a missing or malformed gold file, duplicate ids, labels or group
        values that disagree with the config, or score keys that would be
        too long.  Messages never quote a gold label or value.
    """
    name = config.files.gold
    path = os.path.join(ref_dir, name)
    if not os.path.isfile(path):
        present = sorted(n for n in os.listdir(ref_dir) if not n.startswith(".")) if os.path.isdir(ref_dir) else []
        raise ConfigError("the gold file ref/%s (files.gold) is missing from the reference data (ref/ holds: %s)"
                          % (name, list_names(present, 5) or "nothing"))
    source = Source(path, "ref/" + name, error=ConfigError, may_quote=False)
    task = task_module(config.kind)
    settings = task_settings(config)
    try:
        if hasattr(task, "read_gold"):  # a format of the task's own: the task parses and encodes the units
            units = task.read_gold(source, iter_lines(source), config.labels, settings)
            lines, ids, codes, labels, groups = (units["lines"], units.get("ids"), units["values"],
                                                  units.get("labels"), units.get("groups"))
        else:
            lines, ids, values, groups = _gold_rows(source, config)
        sha256 = _sha256(path)
    except (IOError, OSError) as exc:
        raise source.whole("cannot be read (%s)" % (exc.strerror or type(exc).__name__))
    if ids is not None:
        _check_gold_ids(source, lines, ids)
    if not hasattr(task, "read_gold"):
        codes, labels = task.encode_gold(source, lines, values, config.labels, config.source, settings)
    mismatch = task.check_metrics(config.metrics, labels)
    if mismatch is not None:
        raise ConfigError("%s: metric %s: %s" % (config.source, mismatch[0], mismatch[1]))
    group_values, group_codes = None, None
    if config.groups is not None:
        if groups is None:
            raise ConfigError("%s: groups.column %s: the %s gold format of ref/%s has no group column"
                              % (config.source, quote(config.groups.column), task.NAME, name))
        group_values, group_codes = _gold_groups(source, config, lines, groups)
        check_key_lengths(config.metrics, group_values, config.source, with_baseline=config.baseline is not None)
    return GoldStandard(values=codes, labels=labels, ids=tuple(ids) if ids is not None else None,
                        groups=group_codes, group_values=group_values, source=name, sha256=sha256,
                        task=task.NAME)

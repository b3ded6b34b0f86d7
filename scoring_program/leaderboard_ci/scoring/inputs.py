"""The files a task type reads, as the task protocol's inputs (:mod:`leaderboard_ci.tasks.protocol`).

A task reads its gold and a submission itself (``read_gold``, ``read_predictions``);
these classes give it every view a format needs and do what every format shares:

* :class:`GoldFile` / :class:`GoldFolder`: ``ref/<files.gold>``; the decoded lines,
  the id / gold / group columns of a table (:meth:`GoldFile.rows`), or the files of
  a folder;
* :class:`Submission`: a participant's ``res/`` (or the organizer's baseline);
  :meth:`Submission.file` finds the one prediction file by the documented rules
  (:mod:`.submission_files`) and checks its size; :meth:`Submission.folder` lists
  every file of the submission (one nested folder is entered), for a task that
  reads a folder of masks;
* :class:`PredictionFile`: one prediction file; :meth:`PredictionFile.values`
  reads its value column and aligns it with the gold (by id, else in order).

Every problem is one sentence naming the file (and line) through the file's
:class:`~leaderboard_ci.scoring.text_files.Source`: the participant's
:class:`SubmissionError`, or the organizer's :class:`ConfigError` for the gold and
the baseline.  Standard library and numpy only (Python 3.7).
"""

import hashlib
import itertools
import os

import numpy as np

from ..tasks import protocol
from .alignment import align_by_id, align_by_order
from .errors import SubmissionError
from .formats import Columns, Source, open_table, own_rows_test, quote
from .resampling_units import TableDesign
from .submission_files import find_prediction_file, list_folder
from .text_files import TextFile

__all__ = ["context_of", "GoldFile", "GoldFolder", "gold_input", "Submission", "PredictionFile", "Folder", "megabytes"]


def context_of(config):
    """The :class:`~leaderboard_ci.tasks.protocol.ReadContext` of a configuration."""
    files = config.files
    return protocol.ReadContext(
        settings=config.task_settings,
        metrics=tuple(config.metrics),
        labels=config.labels,
        config_name=config.source,
        format=files.format,
        id_column=files.id_column,
        gold_column=files.gold_column,
        prediction_columns=tuple(files.prediction_columns),
        group_column=config.groups.column if config.groups else None,
        unscored_ids=files.unscored_ids,
        max_ids=files.max_ids,
    )


def megabytes(size):
    """A file size in MB (10^6 bytes) for a message: ``312.5``, ``0.025``."""
    value = size / 1e6
    return "%.1f" % value if value >= 1 else "%.2g" % value


class _File(protocol.InputFile):
    """A file and the :class:`Source` its messages go through."""

    def __init__(self, source):
        self.source = source
        self.path = source.path

    def quote(self, text):
        return quote(text)

    def lines(self):
        return TextFile(self.source)


class Folder(protocol.InputFolder):
    """The files of a folder, listed by :func:`~leaderboard_ci.scoring.submission_files.list_folder`.

    ``prefix`` is how messages name the folder's files (``""`` at the top of the
    submission, ``"masks/"``, ``"ref/masks/"``); ``name`` how they name the folder.
    """

    def __init__(self, path, prefix, name, error, names, may_quote=True):
        self.path, self.names, self.prefix = path, tuple(names), prefix
        self.source = Source(path, name, error=error, may_quote=may_quote)
        self._error, self._may_quote = error, may_quote

    def file(self, name):
        if name not in self.names:
            raise self.source.whole("has no file %s" % quote(name))
        source = Source(os.path.join(self.path, name), self.prefix + name, error=self._error, may_quote=self._may_quote)
        return _File(source)

    def size(self):
        return sum(os.path.getsize(os.path.join(self.path, name)) for name in self.names)


# ---------------------------------------------------------------------------
# The gold
# ---------------------------------------------------------------------------
class GoldFile(_File, protocol.GoldInput):
    """``ref/<files.gold>``, a file: its lines, or the columns of a table."""

    def __init__(self, source, config):
        super(GoldFile, self).__init__(source)
        self.config = config

    def rows(self):
        source, config = self.source, self.config
        files = config.files
        group = config.groups.column if config.groups is not None else None
        names = (files.gold_column, files.id_column, group)
        columns = Columns(
            (files.gold_column,),
            id=files.id_column,
            id_required=True,
            group=group,
            looks_like_data=own_rows_test(source, names),
            what="gold",
        )
        table = open_table(source, "auto", columns)
        if group is not None and not table.has_groups:
            raise source.whole(
                "has no columns, so it cannot hold the group column %s (groups.column); use a CSV "
                "file with a header" % quote(group)
            )
        lines, ids, values, groups = [], [], [], []
        for batch_lines, batch_ids, batch_values, batch_groups in table.batches:  # whole batches, not row by row
            lines.extend(batch_lines)
            ids.extend(batch_ids if batch_ids is not None else itertools.repeat(None, len(batch_values)))
            values.extend(batch_values)
            groups.extend(batch_groups if batch_groups is not None else itertools.repeat(None, len(batch_values)))
        if not values:
            raise source.whole("has no items")
        keep_ids = table.has_ids and files.id_column is not None
        return protocol.GoldRows(
            tuple(lines),
            tuple(ids) if keep_ids else None,
            tuple(values),
            tuple(groups) if table.has_groups else None,
            TableDesign(source, config, len(values)),
        )

    def folder(self):
        raise self.source.whole("is a file; this task type reads a folder of files (files.gold names it)")

    def sha256(self):
        digest = hashlib.sha256()
        with open(self.path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        return digest.hexdigest()


class GoldFolder(protocol.GoldInput):
    """``ref/<files.gold>``, a folder: its files."""

    def __init__(self, source, config):
        self.source, self.path, self.config = source, source.path, config

    def quote(self, text):
        return quote(text)

    def _not_a_file(self):
        return self.source.whole("is a folder; this task type reads one gold file (files.gold names it)")

    def lines(self):
        raise self._not_a_file()

    def rows(self):
        raise self._not_a_file()

    def folder(self):
        root, names = list_folder(self.path, self.source.error, what=self.source.shown)
        name = self.source.name
        return Folder(root, name.rstrip("/") + "/", name, self.source.error, names, may_quote=False)

    def sha256(self):
        """A digest of every file's name and bytes, in name order."""
        digest = hashlib.sha256()
        folder = self.folder()
        for name in folder.names:
            digest.update(name.encode("utf-8") + b"\x00")
            with open(os.path.join(self.path, name), "rb") as handle:
                for block in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(block)
        return digest.hexdigest()


def gold_input(path, name, config, error):
    """The :class:`GoldFile` or :class:`GoldFolder` at ``path`` (named ``name`` in messages)."""
    source = Source(path, name, error=error, may_quote=False)
    return GoldFolder(source, config) if os.path.isdir(path) else GoldFile(source, config)


# ---------------------------------------------------------------------------
# A submission
# ---------------------------------------------------------------------------
class PredictionFile(_File, protocol.PredictionFile):
    """One prediction file; :meth:`values` reads the id and value columns."""

    def __init__(self, source, config, gold):
        super(PredictionFile, self).__init__(source)
        self.config, self.gold = config, gold

    def values(self, convert, typecode, stack=None, is_value=None):
        source, config, gold = self.source, self.config, self.gold
        ignore = config.files.unscored_ids == "ignore"
        by_id = gold.ids is not None and config.files.id_column is not None
        is_value = _value_test(config, gold, is_value)
        columns = Columns(
            config.files.prediction_columns,
            id=config.files.id_column if by_id else None,
            id_required=by_id,
            looks_like_data=_either(
                _data_test(gold, is_value, use_ids=not ignore),
                own_rows_test(source, tuple(config.files.prediction_columns) + (config.files.id_column,)),
            ),
            is_value=is_value,
        )
        table = open_table(source, config.files.format, columns)
        if table.format == "lines" and gold.ids is not None:
            convert = _unheaded(source, columns, gold, convert, is_value, use_ids=not ignore)
        if by_id and table.has_ids:
            max_rows = config.files.max_ids if ignore else None
            values = align_by_id(source, table, gold, convert, typecode, stack, config.files.unscored_ids, max_rows)
        elif ignore and by_id:
            raise source.whole(
                "has no ids; this competition matches predictions to test items by id: start the "
                "file with the header %s" % columns.describe_header(",")
            )
        else:
            values = align_by_order(source, table, gold.n, convert, typecode, stack)
        if typecode is None:
            return values
        return values.astype(np.intp) if typecode == "q" else values.astype(np.float64)


class Submission(protocol.SubmissionInput):
    """A submission folder (``res/``) or file (an already found prediction file, a baseline file).

    Parameters
    ----------
    path : str
        The folder, or the file.
    name : str
        How messages name a file given directly (``predictions.csv``, ``ref/baseline.csv``).
    config, gold
        The configuration and the gold standard.
    max_bytes : float or None
        The size limit (``files.max_megabytes``), of the file or of the folder's files together.
    error : type
        The exception class of its messages (the participant's, or the organizer's for a baseline).
    """

    def __init__(self, path, name, config, gold, max_bytes, error=SubmissionError):
        self.path, self.name, self.config, self.gold = path, name, config, gold
        self.max_bytes, self.error = max_bytes, error
        self.last_source = Source(path, name, error=error)  # what the task asked for last: its read errors name it

    def file(self):
        path, name = self.path, self.name
        if os.path.isdir(path):
            path = find_prediction_file(path, self.config)
            name = path.shown
        source = Source(path, name, error=self.error)
        self.last_source = source
        size = os.stat(path).st_size
        if self.max_bytes is not None and size > self.max_bytes:
            raise source.whole("is %s MB; the limit is %g MB" % (megabytes(size), self.config.files.max_megabytes))
        return PredictionFile(source, self.config, self.gold)

    def folder(self):
        if not os.path.isdir(self.path):
            raise self.error("%s is one file; this task type reads a folder of files (zip the folder)" % self.name)
        root, names = list_folder(self.path, self.error, enter_one=True)
        inner = os.path.relpath(root, self.path).replace(os.sep, "/")
        prefix = "" if inner == "." else inner + "/"
        folder = Folder(root, prefix, prefix or "the submission", self.error, names)
        self.last_source = folder.source
        size = folder.size()
        if self.max_bytes is not None and size > self.max_bytes:
            raise self.error(
                "the submission's files are %s MB together; the limit is %g MB"
                % (megabytes(size), self.config.files.max_megabytes)
            )
        return folder


# ---------------------------------------------------------------------------
# Header detection of the column format
# ---------------------------------------------------------------------------
def _unheaded(source, columns, gold, convert, is_value, use_ids=True):
    """``convert``, explaining a rejected line that holds an id and a value (a missing header).

    Without ``use_ids`` (unscored ids are ignored) the line is recognized by
    its value after a delimiter, never by whether its id is in the gold.
    """

    def checked(line, text):
        try:
            return convert(line, text)
        except SubmissionError:
            ids = frozenset(gold.ids or ()) if use_ids else frozenset()
            for delimiter in (",", "\t", ";"):
                if delimiter not in text:
                    continue
                head, rest = (part.strip() for part in text.split(delimiter, 1))
                if (head in ids) if use_ids else (head and is_value(rest)):
                    raise source.at(
                        line,
                        "the line holds an id and a prediction, but the file has no header; "
                        "start the file with the header %s" % columns.describe_header(delimiter),
                    )
            raise

    return checked


def _value_test(config, gold, is_value):
    """``is_value(text)``: whether a header field is a value of the task, judged without gold facts.

    With labels read from the gold (``labels`` not configured), asking whether
    a field is one of them would tell a participant which classes the gold
    holds; then only numbers count as values.
    """
    if gold.labels is not None and config.labels is None:
        return _number_like
    return is_value or _never


def _never(text):
    return False


def _number_like(text):
    try:
        float(text)
    except (TypeError, ValueError):
        return False
    return "_" not in text


def _data_test(gold, is_value, use_ids=True):
    """``looks_like_data(fields)``: whether a would-be header row is really data (an id or a value)."""
    ids = frozenset(gold.ids or ()) if use_ids else frozenset()

    def looks_like_data(fields):
        return any(field in ids or is_value(field) for field in fields)

    return looks_like_data


def _either(first, second):
    """A ``looks_like_data`` that is true when either test is."""
    return lambda fields: first(fields) or second(fields)

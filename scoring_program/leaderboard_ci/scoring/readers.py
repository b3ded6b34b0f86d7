"""The input side of the scoring program: find, read and align the files.

* :func:`find_prediction_file` (from :mod:`.submission_files`) locates the participant's file in ``res/``;
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

import numpy as np

from ..tasks.base import GoldStandard
from ..tasks.registry import task_type
from .alignment import align_by_id as _align_by_id
from .alignment import align_by_order as _align_by_order
from .config import check_key_lengths
from .errors import ConfigError, SubmissionError
from .formats import Columns, Source, list_names, open_table, quote
from .resampling_units import attach_design
from .submission_files import find_prediction_file
from .text_files import TextFile

__all__ = ["find_prediction_file", "read_gold", "read_predictions", "read_baseline", "organizer_warnings"]


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


def _read_system(path, name, config, gold, max_bytes):
    """Read and align one system's predictions; errors are SubmissionError."""
    source = Source(path, name)
    size = os.stat(path).st_size
    if max_bytes is not None and size > max_bytes:
        raise source.whole("is %s MB; the limit is %g MB" % (_megabytes(size), config.files.max_megabytes))
    ignore = config.files.unscored_ids == "ignore"
    by_id = gold.ids is not None and config.files.id_column is not None
    task = task_type(gold.kind)
    is_value = _value_test(config, gold)
    columns = Columns(
        config.files.prediction_columns,
        id=config.files.id_column if by_id else None,
        id_required=by_id,
        looks_like_data=_data_test(gold, is_value, use_ids=not ignore),
        is_value=is_value,
    )
    settings = task_settings(config)
    try:
        if task.OWN_PREDICTION_FORMAT:  # a format of the task's own (CoNLL, TREC runs, SQuAD JSON)
            return task.read_predictions(source, TextFile(source), gold, settings)
        convert, typecode = task.value_parser(source, gold, quote, settings)
        table = open_table(source, config.files.format, columns)
        if table.format == "lines" and gold.ids is not None:
            convert = _unheaded(source, columns, gold, convert, is_value, use_ids=not ignore)
        stack = None if typecode else (lambda values: task.stack(values, gold, settings))
        if by_id and table.has_ids:
            values = _align_by_id(
                source,
                table,
                gold,
                convert,
                typecode,
                stack,
                config.files.unscored_ids,
                config.files.max_ids if ignore else None,
            )
        elif ignore and by_id:
            raise source.whole(
                "has no ids; this competition matches predictions to test items by id: start the "
                "file with the header %s" % columns.describe_header(",")
            )
        else:
            values = _align_by_order(source, table, gold.n, convert, typecode, stack)
    except (IOError, OSError) as exc:
        raise source.whole("cannot be read (%s)" % (exc.strerror or type(exc).__name__))
    except SubmissionError:
        raise
    except RecursionError:  # a parser of a task's own format, without its own check
        raise source.whole(
            "cannot be read: it holds lists or objects nested deeper than Python can read (thousands of "
            "levels); expected the few levels of the task's format (see the competition's evaluation page)"
        )
    except MemoryError:
        raise source.whole("cannot be read within the memory the scoring program has; send a smaller file")
    except (OverflowError, ValueError) as exc:  # e.g. Python's limit on the digits of an integer
        if isinstance(exc, ConfigError):
            raise
        raise source.whole(
            "cannot be read: it holds a number too large to convert (more than 4,300 digits); expected "
            "numbers of at most a few dozen digits"
        )
    if typecode is None:
        return values
    return values.astype(np.intp) if typecode == "q" else values.astype(np.float64)


def organizer_warnings(config):
    """Sentences for the organizer about settings that weaken what participants may be told.

    Without ``labels`` the label set is the gold's: messages cannot list the
    valid labels (that would reveal the gold's classes), and a valid label
    that the gold happens not to hold is rejected.
    """
    return list(task_type(config.kind).organizer_warnings(config.labels, config.source))


def task_settings(config):
    """What a task module reads: its own settings (``config.task_settings``) and the file settings.

    ``public_labels`` is the configured ``labels`` (None when the labels come
    from the gold): the only label set a participant's message may list.
    """
    files = config.files
    settings = dict(config.task_settings)
    settings.update(
        format=files.format,
        id_column=files.id_column,
        gold_column=files.gold_column,
        prediction_columns=files.prediction_columns,
        config_name=config.source,
        labels=config.labels,
        group_column=config.groups.column if config.groups else None,
        public_labels=config.labels,
        metrics=config.metrics,
    )
    return settings


def _megabytes(size):
    """A file size in MB (10^6 bytes) for a message: ``312.5``, ``0.025``."""
    megabytes = size / 1e6
    return "%.1f" % megabytes if megabytes >= 1 else "%.2g" % megabytes


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


def _value_test(config, gold):
    """``is_value(text)``: whether a header field is a value of the task, judged without gold facts.

    With labels read from the gold (``labels`` not configured), asking whether
    a field is one of them would tell a participant which classes the gold
    holds; then only numbers count as values.
    """
    if gold.labels is not None and config.labels is None:
        return _number_like
    task = task_type(gold.kind)
    return lambda text: task.is_value(gold, text)


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
        raise ConfigError(
            "the baseline %s (baseline.file) cannot be used: %s" % (quote(config.baseline.name), exc.message)
        )


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
        raise source.whole(
            "has no columns, so it cannot hold the group column %s (groups.column); use a CSV "
            "file with a header" % quote(group)
        )
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
            raise source.at(line, "the id is empty; expected the id of a test item in the id column")
        if ident in first_line:
            raise source.at(
                line,
                "id %s appears again (first on line %d); gold ids must be unique" % (quote(ident), first_line[ident]),
            )
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
            raise source.whole(
                "has group values that groups.values in %s does not list: %s"
                % (config.source, ", ".join(quote(g) for g in unlisted[:5]))
            )
        absent = [g for g in group_values if g not in set(present)]
        if absent:
            raise ConfigError(
                "%s: groups.values lists %s, which no item of ref/%s has"
                % (config.source, ", ".join(quote(g) for g in absent[:5]), config.files.gold)
            )
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
        raise ConfigError(
            "the gold file ref/%s (files.gold) is missing from the reference data (ref/ holds: %s)"
            % (name, list_names(present, 5) or "nothing")
        )
    source = Source(path, "ref/" + name, error=ConfigError, may_quote=False)
    task = task_type(config.kind)
    settings = task_settings(config)
    try:
        if task.OWN_GOLD_FORMAT:  # a format of the task's own: the task parses and encodes the units
            units = task.read_gold(source, TextFile(source), config.labels, settings)
            lines, ids, codes, labels, groups = (
                units["lines"],
                units.get("ids"),
                units["values"],
                units.get("labels"),
                units.get("groups"),
            )
        else:
            lines, ids, values, groups = _gold_rows(source, config)
        sha256 = _sha256(path)
    except (IOError, OSError) as exc:
        raise source.whole("cannot be read (%s)" % (exc.strerror or type(exc).__name__))
    if ids is not None:
        _check_gold_ids(source, lines, ids)
        if config.files.unscored_ids == "ignore" and len(ids) > config.files.max_ids:
            raise ConfigError(
                "%s: files.max_ids ({:,}) is below the number of items of ref/%s; set it to the "
                "number of public test ids".format(config.files.max_ids)
                % (config.source, name)
            )
    if not task.OWN_GOLD_FORMAT:
        codes, labels = task.encode_gold(source, lines, values, config.labels, config.source, settings)
    mismatch = task.check_metrics(config.metrics, labels)
    if mismatch is not None:
        if config.labels is None:  # the labels are the gold's: the message must not list them
            raise ConfigError(
                "%s: metric %s names a class (labels or pos_label) that ref/%s does not have, or "
                "needs another number of classes; set labels in %s to the task's classes"
                % (config.source, mismatch[0], name, config.source)
            )
        raise ConfigError("%s: metric %s: %s" % (config.source, mismatch[0], mismatch[1]))
    group_values, group_codes = None, None
    if config.groups is not None:
        if groups is None:
            raise ConfigError(
                "%s: groups.column %s: the %s gold format of ref/%s has no group column"
                % (config.source, quote(config.groups.column), task.NAME, name)
            )
        group_values, group_codes = _gold_groups(source, config, lines, groups)
        check_key_lengths(config.metrics, group_values, config.source, with_baseline=config.baseline is not None)
    gold = GoldStandard(
        values=codes,
        labels=labels,
        ids=tuple(ids) if ids is not None else None,
        groups=group_codes,
        group_values=group_values,
        source=name,
        sha256=sha256,
        task=task.NAME,
        settings=config.task_settings,
        public_inputs=tuple(units.get("public") or ()) if task.OWN_GOLD_FORMAT else (),
    )
    # bootstrap.cluster / bootstrap.strata (issue 21): their codes, read by .resampling_units
    return attach_design(source, config, gold, task, units if task.OWN_GOLD_FORMAT else None)

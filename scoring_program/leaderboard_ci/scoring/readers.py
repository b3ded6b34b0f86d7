"""The input side of the scoring program: find, read and align the files.

* :func:`find_prediction_file` (from :mod:`.submission_files`) locates the participant's file in ``res/``;
* :func:`read_gold` reads the organizer's gold standard into a
  :class:`~leaderboard_ci.tasks.shared.scorer.GoldStandard`;
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

import os

import numpy as np

from ..tasks.protocol import GoldStandard
from ..tasks.registry import task_type
from .config import check_key_lengths
from .errors import ConfigError, SubmissionError
from .formats import list_names, quote
from .inputs import Submission, context_of, gold_input
from .resampling_units import attach_design
from .submission_files import find_prediction_file

__all__ = [
    "find_prediction_file",
    "read_gold",
    "read_submission",
    "read_predictions",
    "read_baseline",
    "organizer_warnings",
]


def _display_name(path):
    """How messages name a prediction file: relative to ``res/``, never absolute."""
    shown = getattr(path, "shown", None)  # a path found by find_prediction_file knows its name
    if shown is not None:
        return shown
    parent, name = os.path.split(os.path.abspath(path))
    grandparent, folder = os.path.split(parent)
    if folder != "res" and os.path.basename(grandparent) == "res":
        return "%s/%s" % (folder, name)
    return name


def _read_system(submission, config, gold):
    """The task's reading of one system's submission, aligned with the gold; errors are SubmissionError."""
    task = task_type(gold.kind)
    try:
        values = task.read_predictions(submission, gold, context_of(config))
    except (IOError, OSError) as exc:
        raise submission.last_source.whole("cannot be read (%s)" % (exc.strerror or type(exc).__name__))
    except SubmissionError:
        raise
    except RecursionError:  # a parser of a task's own format, without its own check
        raise submission.last_source.whole(
            "cannot be read: it holds lists or objects nested deeper than Python can read (thousands of "
            "levels); expected the few levels of the task's format (see the competition's evaluation page)"
        )
    except MemoryError:
        raise submission.last_source.whole(
            "cannot be read within the memory the scoring program has; send a smaller file"
        )
    except (OverflowError, ValueError) as exc:  # e.g. Python's limit on the digits of an integer
        if isinstance(exc, ConfigError):
            raise
        raise submission.last_source.whole(
            "cannot be read: it holds a number too large to convert (more than 4,300 digits); expected "
            "numbers of at most a few dozen digits"
        )
    return values


def organizer_warnings(config):
    """Sentences for the organizer about settings that weaken what participants may be told.

    Without ``labels`` the label set is the gold's: messages cannot list the
    valid labels (that would reveal the gold's classes), and a valid label
    that the gold happens not to hold is rejected.
    """
    return list(config.task_settings.organizer_warnings(config.labels, config.source))


def read_submission(res_dir, config, gold):
    """Read a participant's submission folder (``res/``), aligned with the gold units.

    The task type reads it (``read_predictions``): its one prediction file
    (found by :func:`find_prediction_file`) or, for a task that reads a folder
    of files, every file.

    Raises
    ------
    SubmissionError
        One sentence naming the file, the line and what was expected.
    """
    return _read_system(Submission(res_dir, "res", config, gold, config.files.max_megabytes * 1e6), config, gold)


def read_predictions(path, config, gold):
    """Read the participant's prediction file, aligned with the gold items.

    Parameters
    ----------
    path : str
        From :func:`find_prediction_file` (or any prediction file).
    config : Config
    gold : GoldStandard

    Returns
    -------
    ndarray
        The task's encoding (``np.intp`` class codes, float64 values, records...), in the gold order.

    Raises
    ------
    SubmissionError
        One sentence naming the file, the line and what was expected.
    """
    submission = Submission(path, _display_name(path), config, gold, config.files.max_megabytes * 1e6)
    return _read_system(submission, config, gold)


def read_baseline(ref_dir, config, gold):
    """Read the organizer's baseline predictions (``ref/<baseline.file>``).

    Parsed exactly like a submission; any problem is a :class:`ConfigError`
    saying it is the baseline's.
    """
    name = config.baseline.file
    path = os.path.join(ref_dir, name)
    if not os.path.exists(path):
        raise ConfigError("the baseline file ref/%s (baseline.file) is missing from the reference data" % name)
    try:
        return _read_system(Submission(path, "ref/" + name, config, gold, None), config, gold)
    except SubmissionError as exc:
        raise ConfigError(
            "the baseline %s (baseline.file) cannot be used: %s" % (quote(config.baseline.name), exc.message)
        )


# ---------------------------------------------------------------------------
# The gold standard
# ---------------------------------------------------------------------------
def _check_gold_ids(source, lines, ids):
    unique = set(ids)
    if len(unique) == len(ids) and "" not in unique:
        return  # the usual gold, checked in C; else the loop below finds the first problem's line
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
    if not os.path.exists(path):
        present = sorted(n for n in os.listdir(ref_dir) if not n.startswith(".")) if os.path.isdir(ref_dir) else []
        raise ConfigError(
            "the gold file ref/%s (files.gold) is missing from the reference data (ref/ holds: %s)"
            % (name, list_names(present, 5) or "nothing")
        )
    gold_file = gold_input(path, "ref/" + name, config, ConfigError)
    source = gold_file.source
    task = task_type(config.kind)
    try:
        units = task.read_gold(gold_file, context_of(config))
        sha256 = gold_file.sha256()
    except (IOError, OSError) as exc:
        raise source.whole("cannot be read (%s)" % (exc.strerror or type(exc).__name__))
    lines, ids, codes, labels, groups = units.lines, units.ids, units.values, units.labels, units.groups
    if ids is not None:
        _check_gold_ids(source, lines, ids)
        if config.files.unscored_ids == "ignore" and len(ids) > config.files.max_ids:
            raise ConfigError(
                "%s: files.max_ids ({:,}) is below the number of items of ref/%s; set it to the "
                "number of public test ids".format(config.files.max_ids)
                % (config.source, name)
            )
    mismatch = task.metrics.check_gold(config.metrics, labels)
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
                % (config.source, quote(config.groups.column), task.name, name)
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
        task=task.name,
        settings=config.task_settings,
        reference=units.reference,
        public_inputs=tuple(units.public or ()),
    )
    # bootstrap.cluster / bootstrap.strata (issue 21): their codes, read by .resampling_units
    return attach_design(source, config, gold, task, units.design)

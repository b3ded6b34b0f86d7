"""The task-type protocol: a small required core and optional, typed capabilities.

A task type is one subpackage of :mod:`leaderboard_ci.tasks` whose ``__init__``
builds one :class:`TaskType` named ``TASK``; the registry
(:mod:`leaderboard_ci.tasks.registry`) hands it out by name.  The rest of the
package (configuration, readers, evaluation, end of phase, reports, tools)
reaches a task only through the fields below, never by its name.

The required core (:data:`CORE`)
    ``name``; ``metrics``, the catalog of :class:`~leaderboard_ci.tasks.metrics.Metric`
    objects; ``Settings``, the frozen dataclass of the task's own ``config.yaml``
    keys (:class:`~leaderboard_ci.tasks.settings.TaskSettings`); ``read_gold`` and
    ``read_predictions``, which read the organizer's and a participant's files
    through the :class:`GoldInput` and :class:`SubmissionInput` the scoring
    program hands them; ``encode_values``, the same encoding from Python values
    (``analyze``); ``Statistics``, the per-unit sufficient statistics whose
    weighted sums under the resample counts give every metric (:class:`TaskStatistics`).

The optional capabilities (:data:`CAPABILITIES`)
    Each is None when the task has none, a typed piece when it has it, so a
    caller asks ``task.pair_tests is not None`` and never probes for a hook:
    ``submission_format`` (what ``leaderboard-ci init`` shows participants),
    ``pair_tests`` (:class:`PairTests`: McNemar, DeLong), ``unit_table``
    (:class:`UnitTable`: per class, label or entity type), ``unit_values``
    (per-unit values whose mean is the score), ``analytic_interval`` (DeLong's),
    ``sparse_units``, ``item_contributions`` and ``score_notes`` (the validity notes).

Reading files
    A task reads its inputs itself: ``read_gold(gold, context)`` and
    ``read_predictions(submission, gold, context)`` are the only parsing path.
    The inputs offer every view a format needs: the decoded text lines of one
    file (CoNLL, TREC runs, JSON), the id and value columns of a table
    (:meth:`GoldInput.rows`, :meth:`PredictionFile.values`: what
    :class:`~leaderboard_ci.tasks.shared.columns.ColumnFormat` reads for the
    tasks that opt into it), or the files of a folder (masks, one file per
    image: :meth:`SubmissionInput.folder`).  The scoring program implements
    them (:mod:`leaderboard_ci.scoring.inputs`): finding the file in ``res/``,
    size limits, encodings, and messages that name the file and line.

What each field means, with the rules a task's messages follow and the tests a
task ships: ``docs/adding_a_task_type.md``.  ``tests/test_task_protocol.py``
checks every registered task against this module, and this module against that page.

Python 3.7, numpy only.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Callable, Optional, Tuple

import numpy as np

from .metrics import Metric, Metrics, Option
from .settings import TaskSettings, setting
from .shared.base import FEW_UNITS, ClassRow, GoldStandard, MetricInfo, MetricSpec, SparseUnits, Target, ppi

__all__ = [
    "TaskType",
    "CORE",
    "CAPABILITIES",
    "TaskStatistics",
    "ReadContext",
    "GoldData",
    "GoldRows",
    "GoldInput",
    "InputFile",
    "InputFolder",
    "PredictionFile",
    "SubmissionInput",
    "SubmissionFormat",
    "PairTests",
    "UnitTable",
    "as_array",
    "statistics_unit_values",
    # the protocol's values, defined beside it
    "Metric",
    "Metrics",
    "Option",
    "TaskSettings",
    "setting",
    "GoldStandard",
    "MetricSpec",
    "MetricInfo",
    "Target",
    "ClassRow",
    "SparseUnits",
    "FEW_UNITS",
    "ppi",
]


# ---------------------------------------------------------------------------
# What the readers get and give
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class ReadContext:
    """What a task's readers know of the configuration besides their own files.

    Attributes
    ----------
    settings : TaskSettings
        The task's own settings (its ``Settings`` class).
    metrics : tuple of MetricSpec
        The configured metrics (a check that depends on them, such as
        probabilities in [0, 1] for log loss, can then name the line).
    labels : tuple of str or None
        The configured ``labels``; None when the label set comes from the
        gold.  The only label set a participant's message may list.
    config_name : str
        How messages name the configuration (``config.yaml``).
    format : str
        ``files.format`` (``auto``, ``csv``, ``tsv``, ``json``, ``jsonl``, ``lines``).
    id_column, gold_column : str or None
        ``files.id_column`` and ``files.gold_column``.
    prediction_columns : tuple of str
        ``files.prediction_columns``: accepted names of the value column.
    group_column : str or None
        ``groups.column``.
    unscored_ids : {"error", "ignore"}
        ``files.unscored_ids``: whether ids the gold does not have are an
        error or (decoy ids) read, checked and left out.
    max_ids : int or None
        ``files.max_ids``: how many rows a file may hold with decoy ids.
    """

    settings: TaskSettings = TaskSettings()
    metrics: Tuple[MetricSpec, ...] = ()
    labels: Optional[Tuple[str, ...]] = None
    config_name: str = "config.yaml"
    format: str = "auto"
    id_column: Optional[str] = "id"
    gold_column: Optional[str] = "label"
    prediction_columns: Tuple[str, ...] = ("prediction",)
    group_column: Optional[str] = None
    unscored_ids: str = "error"
    max_ids: Optional[int] = None


@dataclass(frozen=True)
class GoldData:
    """What a task's ``read_gold`` gives: one entry per resampling unit.

    Attributes
    ----------
    lines : sequence of int
        The line where each unit starts (a format without lines: 1 for every
        unit); messages about a unit's id or group name it.
    values : ndarray
        The encoded gold, one row per unit (the task's encoding).
    labels : tuple of str or None
        The task's label set, where it has one.
    ids : sequence of str or None
        The units' ids (public: participants name them), when the format has them.
    groups : sequence of str or None
        Each unit's value of ``groups.column``, when the format carries it.
    design : mapping or None
        ``{column: one string per unit}``: the values ``bootstrap.cluster`` and
        ``bootstrap.strata`` may name (the SQuAD article ``title``, the CoNLL
        ``document``); the column format's mapping reads the gold table's columns.
    reference : object or None
        What the task keeps of the gold to read each submission against,
        besides the encoded ``values`` the statistics use (segmentation: the
        gold masks, which every predicted mask is compared with); it becomes
        ``GoldStandard.reference``, never hashed, compared or resampled.
    public : tuple of (str, value) pairs
        ``(file name, JSON value)`` of the participants' inputs the gold carries without its answers (a SQuAD
        file's articles, contexts and questions), for ``public_data/`` (``GoldStandard.public_inputs``).
    """

    lines: Any
    values: Any
    labels: Optional[Tuple[str, ...]] = None
    ids: Optional[Any] = None
    groups: Optional[Any] = None
    design: Optional[Any] = None
    reference: Optional[Any] = None
    public: Tuple[Tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class GoldRows:
    """The id, gold and group columns of a gold table, row by row (:meth:`GoldInput.rows`).

    ``ids`` is None when the table has no id column (or ``files.id_column`` is
    not set), ``groups`` when no ``groups.column`` is configured; ``design``
    reads any other column of the table, ``{column: one string per row}``.
    """

    lines: Tuple[int, ...]
    ids: Optional[Tuple[str, ...]]
    values: Tuple[str, ...]
    groups: Optional[Tuple[str, ...]]
    design: Any = None


class InputFile(object):
    """One file a task reads: the gold file, a participant's prediction file, a file of a folder.

    Attributes
    ----------
    source
        How messages name the file: ``source.at(line, text)`` and
        ``source.whole(text)`` return the exception to raise (the participant's
        for a submission, the organizer's for the gold; a gold value is never
        quoted); ``source.shown`` is its escaped name, ``source.extension`` its
        lower-case extension, ``source.path`` where it is.
    path : str
        Where the file is (a task that reads bytes opens it itself).
    """

    source = None
    path = None

    def quote(self, text):
        """A participant's ``text`` in quotes for a message: invisible characters shown, long text shortened."""
        raise NotImplementedError

    def lines(self):
        """The decoded text: iterating gives ``(line number, text)`` (encodings, NUL bytes and overlong lines
        already refused); ``.text()`` is the whole document, ``.blocks()`` batches of lines,
        ``.first_character()`` the first non-blank character, ``.source_size()`` the size in bytes."""
        raise NotImplementedError


class InputFolder(object):
    """The files of a folder a task reads whole (one mask per image, one file per series).

    Attributes
    ----------
    source
        Messages about the folder as a whole (``source.whole(text)``).
    names : tuple of str
        The files' names relative to the folder (``a/b.png``), sorted; the
        platform's files (``metadata``, ``__MACOSX/``, ``._*``), hidden files
        and documentation are left out, symbolic links refused.
    """

    source = None
    names = ()

    def file(self, name):
        """The :class:`InputFile` of one of :attr:`names`."""
        raise NotImplementedError


class GoldInput(InputFile):
    """The organizer's gold standard (``ref/<files.gold>``), a file or a folder."""

    def rows(self):
        """The :class:`GoldRows` of a gold table (CSV, TSV, JSON, JSON Lines) by the ``files:`` columns."""
        raise NotImplementedError

    def folder(self):
        """The :class:`InputFolder` when ``files.gold`` names a folder."""
        raise NotImplementedError


class PredictionFile(InputFile):
    """The one prediction file of a submission."""

    def values(self, convert, typecode, stack=None, is_value=None):
        """The file's value column, aligned with the gold units (by id when both have ids, else in order).

        Parameters
        ----------
        convert : callable
            ``convert(line, text) -> value``: one cell into the task's encoding
            (raises ``source.at(line, ...)``); it depends on ``text`` alone, so
            each distinct text of a batch is converted once.
        typecode : {"q", "d"} or None
            The ``array`` code the values are collected in (int64, float64);
            None for structured values, built by ``stack``.
        stack : callable, optional
            ``stack(values) -> array`` of the values in gold order (typecode None).
        is_value : callable, optional
            ``is_value(text) -> bool``: whether a would-be header field is a
            value (a label, a number), i.e. the file has no header.
        """
        raise NotImplementedError


class SubmissionInput(object):
    """A participant's submission (``res/``) or the organizer's baseline, as the task chooses to read it.

    Attributes
    ----------
    name : str
        How messages name the submission.
    """

    name = "the submission"

    def file(self):
        """The :class:`PredictionFile`: the one file of the submission, found by the documented rules
        (``files.predictions``, the only candidate, the only data file, the only one with the columns)."""
        raise NotImplementedError

    def folder(self):
        """The :class:`InputFolder` of the submission's files (a zip of one folder is read inside it)."""
        raise NotImplementedError


#: What participants submit, for the pages, starting kit and sample submission ``leaderboard-ci init``
#: writes (the ``submission_format`` capability).
@dataclass(frozen=True)
class SubmissionFormat:
    """What participants submit.

    Attributes
    ----------
    unit, units : str
        One resampling unit, and several ("test item"/"test items", "query"/"queries").
    goal : str
        The overview's first sentence, ``{n}`` for the number of units.
    description : str
        Markdown: what the file holds, with a short example.
    file_name : str
        The prediction file's default name.
    sample : str
        The text of a file the scoring program accepts, built from public ids
        and labels only (never from gold answers: a constant label, uniform
        probabilities, an empty answer).
    public_files : tuple of (str, str)
        ``(name, text)`` of the files of ``public_data/`` (the test ids).
    sample_files : tuple of (str, bytes)
        For a task that reads a folder of files: ``(relative name, bytes)`` of
        the files of a submission the program accepts (a mask of class 0 per
        image), built from public facts only; then ``sample`` is empty and
        ``file_name`` names the starting kit's folder that holds them.
    """

    unit: str
    units: str
    goal: str
    description: str
    file_name: str
    sample: str
    public_files: Tuple[Tuple[str, str], ...] = ()
    sample_files: Tuple[Tuple[str, bytes], ...] = ()


# ---------------------------------------------------------------------------
# Statistics
# ---------------------------------------------------------------------------
class TaskStatistics(object):
    """What a task's ``Statistics`` class does (a task may subclass this; only the methods count).

    ``Statistics(add, gold, predictions, metrics, group_codes, n_groups, layout)``
    validates one system's encoded ``predictions`` against the ``gold``
    (ValueError saying what it got), creates the accumulators of
    :mod:`leaderboard_ci.core.accumulators` (per-unit statistics whose weighted
    sums under the resample counts are exact) and registers each with
    ``add(accumulator) -> slot``.  ``group_codes`` gives each unit's group
    (``n_groups`` of them; all 0 without groups); ``layout`` is a
    task-specific storage choice that never changes a score.  The unit of
    resampling is whatever one row of ``gold.values`` is.

    Linear accumulators (``linear_matrix``) make the end-of-phase stacking and
    the permutation test work with no more code; a non-linear replicate (AP
    from cumulative sums in score order) is an accumulator of its own.
    """

    def prepare(self, stats):
        """Whatever :meth:`score` reads, from ``stats`` (one ``(N, features)`` array per slot); once per block."""
        return stats

    def score(self, prepared, spec, j):
        """The ``(N,)`` scores of MetricSpec ``spec`` on all units (``j == 0``) or on group ``j - 1``."""
        raise NotImplementedError


# ---------------------------------------------------------------------------
# Capabilities
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class PairTests:
    """Exact tests of the end-of-phase pairs table, beside the bootstrap's and the permutation test's.

    Attributes
    ----------
    columns : tuple of (str, str, tuple of str)
        ``(column, title, metric names)``: every column :attr:`run` may
        return, its title in the reports, the metrics it tests; in the order
        the reports show them (classification: ``("p_mcnemar", "p (McNemar)",
        ("accuracy",))``).
    run : callable
        ``run(spec, gold, predictions, items, pairs, sides) -> {column: (title,
        p-values)}`` for the columns that apply to ``spec``: ``predictions`` is
        ``(n, m, ...)`` (every system's encoded values), ``items`` the target's
        boolean unit mask, ``pairs`` the ``(P, 2)`` ranked pairs (better first),
        ``sides`` ``"one"`` or ``"two"``.
    """

    columns: Tuple[Tuple[str, str, Tuple[str, ...]], ...]
    run: Callable[..., Any]

    def titles(self):
        """``{column: title}`` in the declared order."""
        return OrderedDict((column, title) for column, title, _ in self.columns)

    def needed(self, metrics):
        """Whether a column applies to one of ``metrics`` (MetricSpecs): the end of phase then keeps every
        system's per-unit predictions for the pair stage."""
        tested = set(name for _, _, names in self.columns for name in names)
        return any(spec.name in tested for spec in metrics)


@dataclass(frozen=True)
class UnitTable:
    """The per-unit table (class, label, entity type) of ``detailed_results.html`` and the end-of-phase report.

    Attributes
    ----------
    unit : str
        What a row is, singular (``"class"``, ``"label"``, ``"entity type"``).
    rows : callable
        ``rows(statistics, full_stats, rep_stats, labels, method,
        confidence_level, zero_division) -> tuple of ClassRow``: per unit the
        precision, recall, F1 and its interval, and the predicted count.
    titles : tuple of 3 str
        What the reports call the rows' ``precision``, ``recall`` and ``f1``
        (the one with the interval): ``("precision", "recall", "F1")`` by
        default; detection's per-category table says ``("AP50", "AR@100", "AP")``.
    """

    unit: str
    rows: Callable[..., Any]
    titles: Tuple[str, str, str] = ("precision", "recall", "F1")


def as_array(gold, values):
    """The default ``decode``: encoded values as the array a custom metric function receives."""
    return np.asarray(values)


def statistics_unit_values(statistics, spec, j):
    """The ``unit_values`` capability of a task whose ``Statistics`` has a ``unit_values(spec, j)`` method
    (per-unit values whose mean is the score, or None for a metric that is no such mean)."""
    return statistics.unit_values(spec, j)


# ---------------------------------------------------------------------------
# The task type
# ---------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class TaskType:
    """One task type: its core (names, metrics, settings, readers, statistics) and its capabilities.

    Functions are plain functions of the task's modules, stored in the fields
    (never bound to the instance); arguments are positional, in the order given.

    Core
    ----
    name : str
        The value of ``task:`` in ``config.yaml``.
    metrics : Metrics
        The catalog of the task's metrics (names, options, formulas).
    Statistics : type
        The per-unit statistics of one system (:class:`TaskStatistics`).
    read_gold : callable
        ``read_gold(gold, context) -> GoldData`` from a :class:`GoldInput` and
        the :class:`ReadContext`; errors through ``gold.source``, never quoting
        a gold value.
    read_predictions : callable
        ``read_predictions(submission, gold, context) -> array`` aligned with
        the gold's units, from a :class:`SubmissionInput` (errors through the
        source of the file or folder the task asked for).
    encode_values : callable
        ``encode_values(gold_values, systems, labels, settings) -> (values,
        labels, {name: values})``: the same encoding from Python values, for
        ``analyze`` (ValueError naming the system).
    Settings : type
        The task's :class:`~leaderboard_ci.tasks.settings.TaskSettings` subclass.
    decode : callable
        ``decode(gold, values)``: encoded values as a custom metric function
        receives them (default :func:`as_array`).
    unit_name : str
        What one resampling unit is, singular, in reports (``"query"``,
        ``"segment"``; default ``"item"``).

    Capabilities (None: the task has none)
    --------------------------------------
    submission_format : callable
        ``submission_format(gold, files, metrics) -> SubmissionFormat`` for
        ``leaderboard-ci init`` (``files``: the config's ``files:`` section).
    pair_tests : PairTests
    unit_table : UnitTable
    unit_values : callable
        ``unit_values(statistics, spec, j) -> array or None``: for a metric that
        is the mean of a value per unit, that value on every unit (``j == 0``)
        or on the units of group ``j - 1``; the report draws each system's
        distribution of them.
    analytic_interval : callable
        ``analytic_interval(statistics, spec, group, confidence_level) ->
        Interval or None``: a closed-form interval the per-submission program
        shows instead of the bootstrap's (DeLong's for ``roc_auc`` with
        ``interval: delong``).
    sparse_units : callable
        ``sparse_units(spec, gold, predictions, items) -> tuple of SparseUnits``:
        where ``spec``'s interval rests on almost nothing in the ``items`` (a
        boolean mask; all when None), with one system's ``predictions`` or
        none; ``scoring.validity`` turns them into sentences.
    item_contributions : callable
        ``item_contributions(spec, gold, predictions) -> (terms, noun,
        coverage) or None``: for a metric that is the mean of non-negative
        per-unit terms, those terms, what they are called and what a coverage
        study found when a few dominate; the heavy-tail note reads them.
    score_notes : callable
        ``score_notes(spec, gold, predictions) -> tuple of str``: sentences for
        the participant's page about what the score of ``spec`` on these
        predictions stands for, when the number alone would mislead
        (``preference``: a model that never won has no finite maximum-likelihood score).
    gold_notes : callable
        ``gold_notes(gold, metric_specs) -> tuple of str``: sentences for the organizer (``init``'s
        output and README) about what the program does with this gold that they may not expect
        (``forecasting``: how many series' histories are one season or shorter, scaled with ``m = 1``).
    counts_only : callable
        ``counts_only(metric_specs) -> bool``: whether every statistic of these metrics reads each
        replicate's resample counts alone (never the drawn indices), so the scoring program may draw the
        first replicates' counts in a thread while it reads the submission
        (:class:`~leaderboard_ci.core.replicates.DrawAhead`; ``soft_labels``: ICM-Soft).
    """

    name: str
    metrics: Metrics
    Statistics: type
    read_gold: Callable[..., Any]
    read_predictions: Callable[..., Any]
    encode_values: Callable[..., Any]
    Settings: type = TaskSettings
    decode: Callable[..., Any] = as_array
    unit_name: str = "item"
    submission_format: Optional[Callable[..., Any]] = None
    pair_tests: Optional[PairTests] = None
    unit_table: Optional[UnitTable] = None
    unit_values: Optional[Callable[..., Any]] = None
    analytic_interval: Optional[Callable[..., Any]] = None
    sparse_units: Optional[Callable[..., Any]] = None
    item_contributions: Optional[Callable[..., Any]] = None
    score_notes: Optional[Callable[..., Any]] = None
    gold_notes: Optional[Callable[..., Any]] = None
    counts_only: Optional[Callable[..., Any]] = None

    def __post_init__(self):
        for metric in self.metrics.values():
            if metric.task != self.name:
                raise ValueError("metric %s belongs to task %s, not %s" % (metric.name, metric.task, self.name))

    def __repr__(self):
        return "<task type %s>" % self.name


#: The fields every task type defines (or takes the default of).
CORE = (
    "name",
    "metrics",
    "Statistics",
    "read_gold",
    "read_predictions",
    "encode_values",
    "Settings",
    "decode",
    "unit_name",
)
#: The optional capabilities: None when the task has none.
CAPABILITIES = (
    "submission_format",
    "pair_tests",
    "unit_table",
    "unit_values",
    "analytic_interval",
    "sparse_units",
    "item_contributions",
    "score_notes",
    "gold_notes",
    "counts_only",
)

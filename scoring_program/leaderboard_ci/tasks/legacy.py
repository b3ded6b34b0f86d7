"""The previous task-type protocol, a base class, and :func:`as_task_type`, its bridge to :mod:`.protocol`.

Temporary: each task type moves to :class:`leaderboard_ci.tasks.protocol.TaskType`
in its own commit; until then the registry hands out ``as_task_type(TASK)``.

A task type is one module of :mod:`leaderboard_ci.tasks` that defines a
subclass of :class:`TaskType` and an instance of it named ``TASK``; the
registry (:mod:`leaderboard_ci.tasks.registry`) hands out these instances.
The rest of the package (configuration, readers, evaluation, end of phase,
reports) reaches a task only through the attributes below, never by its
name: the optional hooks have documented no-op defaults here, so no caller
asks whether a task has a hook.

What each attribute means, with the rules a task's messages follow, is in
``docs/adding_a_task_type.md``; :data:`REQUIRED` and :data:`HOOKS` list them
(the conformance test ``tests/test_task_protocol.py`` checks every registered
task against them, and them against that page).
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numpy as np

from . import protocol as new
from .metrics import Metric, Metrics, Option
from .prediction_tables import TableWords, table_format, table_sample
from .settings import TaskSettings

__all__ = ["TaskType", "SubmissionFormat", "REQUIRED", "HOOKS", "CONSTANTS"]

#: What every task type defines (or inherits a default of): names, parsing, statistics.
REQUIRED = (
    "NAME",
    "METRICS",
    "ALIASES",
    "OPTIONS",
    "resolve_name",
    "known_names",
    "make_spec",
    "check_metrics",
    "encode_gold",
    "value_parser",
    "is_value",
    "encode_values",
    "decode",
    "Statistics",
)
#: Optional hooks: each has a default that does nothing (or says "nothing of the kind").
HOOKS = (
    "SETTINGS",
    "SETTING_DOCS",
    "OPTION_DOCS",
    "parse_settings",
    "check_config",
    "organizer_warnings",
    "stack",
    "OWN_GOLD_FORMAT",
    "read_gold",
    "OWN_PREDICTION_FORMAT",
    "read_predictions",
    "analytic_interval",
    "metric_signature",
    "UNIT_VALUES_NAME",
    "unit_values",
    "sparse_units",
    "item_contributions",
    "score_notes",
    "UNIT_NAME",
    "unit_rows",
    "PAIR_TESTS",
    "needs_pair_tests",
    "pair_tests",
    "submission_format",
)
#: The attributes above that are values, not callables (``Statistics`` is a class).
CONSTANTS = (
    "NAME",
    "METRICS",
    "ALIASES",
    "OPTIONS",
    "SETTINGS",
    "SETTING_DOCS",
    "OPTION_DOCS",
    "OWN_GOLD_FORMAT",
    "OWN_PREDICTION_FORMAT",
    "UNIT_VALUES_NAME",
    "UNIT_NAME",
    "PAIR_TESTS",
)


#: What participants submit, for the pages, starting kit and sample submission ``leaderboard-ci init`` writes:
#: ``unit``/``units`` name a resampling unit ("test item"/"test items", "query"/"queries"); ``goal`` is the
#: overview's first sentence with ``{n}`` for the number of units; ``description`` is Markdown (what the file
#: holds, with a short example); ``file_name`` the prediction file's default name; ``sample`` the text of a
#: file the scoring program accepts (built from public ids and labels only, never from gold answers);
#: ``public_files`` ``((name, text), ...)`` for the ``public_data/`` scaffold.
SubmissionFormat = namedtuple(
    "SubmissionFormat", "unit units goal description file_name sample public_files sample_files", defaults=((),)
)


def _csv_cell(text):
    text = str(text)
    return '"%s"' % text.replace('"', '""') if any(c in text for c in ',"\n') else text


class TaskType(object):
    """One task type: how its values are parsed and encoded, its statistics, metrics and hooks.

    A subclass sets the names (``NAME``, ``METRICS``...) and ``Statistics``,
    overrides what differs from the defaults below, and its module creates the
    one instance ``TASK``.  Methods take no state of their own: a module may
    bind its functions as ``staticmethod``; the signatures are the ones here.
    """

    # -- Names -----------------------------------------------------------------------------------------------------
    #: The task's name, the value of ``task:`` in ``config.yaml``.
    NAME = None
    #: ``{metric name: MetricInfo(NAME, direction, best, title, ppi)}``.
    METRICS = {}
    #: Other spellings of metric names, ``{alias: name}``.
    ALIASES = {}
    #: The metric options a config entry may give besides ``name`` and ``key``.
    OPTIONS = ()
    #: The ``Statistics`` class (per-item accumulators of one system, and scores from their sums).
    Statistics = None

    def resolve_name(self, name):
        """``(metric, implied options)`` for a canonical metric name, alias or shorthand, or None.

        Default: the aliases, then the metric names themselves, with no implied options.
        """
        name = self.ALIASES.get(name, name)
        return (name, {}) if name in self.METRICS else None

    def metric_options(self, name):
        """The options metric ``name`` takes, for messages (default: :attr:`OPTIONS`, all of the task's)."""
        return tuple(self.OPTIONS)

    def score_notes(self, spec, gold, predictions):
        """Sentences about what the score of ``spec`` stands for (default: none)."""
        return ()

    def known_names(self):
        """One spelling of every metric, for messages and "did you mean" (default: the metric names, sorted)."""
        return sorted(self.METRICS)

    def make_spec(self, name, options, defaults):
        """``(fields for MetricSpec, default key, title)`` of metric ``name`` (ValueError saying what is wrong).

        Default, for a task whose metrics take no options: no fields, the
        metric's name as key and its title.  The configuration has already
        refused options outside :attr:`OPTIONS`.
        """
        return {}, name, self.METRICS[name].title

    def check_metrics(self, metrics, labels):
        """``(metric key, message)`` of the first metric the gold's ``labels`` do not allow, or None (default)."""
        return None

    # -- Values ----------------------------------------------------------------------------------------------------
    def encode_gold(self, source, lines, values, labels=None, config_name="config.yaml", settings=None):
        """``(encoded values, labels)`` of the gold column's text ``values`` (unless :attr:`OWN_GOLD_FORMAT`)."""
        raise NotImplementedError("task %s reads its gold with read_gold" % self.NAME)

    def value_parser(self, source, gold, quote=repr, settings=None):
        """``(convert(line, text), typecode)`` for participant values (unless :attr:`OWN_PREDICTION_FORMAT`)."""
        raise NotImplementedError("task %s reads predictions with read_predictions" % self.NAME)

    def is_value(self, gold, text):
        """Whether a would-be header field is really a value (default: never, the file must have its header)."""
        return False

    def encode_values(self, gold_values, systems, labels=None, settings=None):
        """``(gold values, labels, {system: values})`` for the in-memory analysis API (ValueError)."""
        raise NotImplementedError("task %s has no in-memory encoding" % self.NAME)

    def decode(self, gold, values):
        """Encoded values as a custom metric function receives them (default: as an array)."""
        return np.asarray(values)

    # -- Optional: settings ----------------------------------------------------------------------------------------
    #: Top-level ``config.yaml`` keys this task owns.
    SETTINGS = ()
    #: ``{setting: one line}`` and ``{metric option: one line}``: what the configuration reference
    #: (``docs/configuration.md``, generated) says of each; an option left out gets the generic sentence.
    SETTING_DOCS = {}
    OPTION_DOCS = {}

    def parse_settings(self, values):
        """Validated ``{key: hashable value}`` of the task's own keys present in the config (default: as given)."""
        return dict(values)

    def check_config(self, metrics, settings, labels):
        """Cross-check the metrics with the task's settings and the configured labels (ValueError; default: none)."""
        return None

    def organizer_warnings(self, labels, source):
        """Sentences for the organizer about settings that weaken participants' messages (default: none).

        ``labels`` is the configured label set (None: read from the gold), ``source`` the config's name.
        """
        return ()

    # -- Optional: file formats ------------------------------------------------------------------------------------
    #: True when the task parses its gold file itself (:meth:`read_gold`) instead of the gold column.
    OWN_GOLD_FORMAT = False
    #: True when the task parses prediction files itself (:meth:`read_predictions`).
    OWN_PREDICTION_FORMAT = False

    def stack(self, values, gold, settings):
        """The array of structured values (``value_parser``'s ``typecode`` None), in gold order."""
        raise NotImplementedError("task %s stores scalar values (typecode q or d)" % self.NAME)

    def read_gold(self, source, lines, labels, settings):
        """``{"lines", "values", "labels", "ids", "groups"}`` from a gold file of the task's own format.

        An optional ``"design"``, ``{name: per-unit strings}``, offers the values that
        ``bootstrap.cluster`` / ``bootstrap.strata`` may name (e.g. the SQuAD article ``title``).
        """
        raise NotImplementedError("task %s reads its gold from the gold column" % self.NAME)

    def read_predictions(self, source, lines, gold, settings):
        """The predictions' array, aligned with the gold, from a file of the task's own format."""
        raise NotImplementedError("task %s reads predictions from the prediction columns" % self.NAME)

    # -- Optional: intervals and per-unit values -------------------------------------------------------------------
    def analytic_interval(self, statistics, spec, group, confidence_level):
        """A closed-form Interval the per-submission program shows instead of the bootstrap's, or None (default)."""
        return None

    def metric_signature(self, spec, gold):
        """The options behind ``spec``'s numbers in the field's own signature style, or None (default).

        Written into the signature after ``metric:`` (generation: sacrebleu's
        ``nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp``), so a score can be
        compared with one computed by the field's reference tool.
        """
        return None

    #: What one resampling unit is, for the per-unit value plots (``"query"``).
    UNIT_VALUES_NAME = "unit"

    def unit_values(self, statistics, spec, j):
        """Per-unit values whose mean is the score (all units, ``j`` 0, or group ``j - 1``), or None (default)."""
        return None

    def sparse_units(self, spec, gold, predictions=None, items=None):
        """Tuple of :class:`~leaderboard_ci.tasks.shared.base.SparseUnits` where ``spec``'s interval rests on little."""
        return ()

    def item_contributions(self, spec, gold, predictions):
        """``(non-negative per-item terms, noun, coverage)`` of a per-item-mean metric, or None (default)."""
        return None

    #: What a row of the per-unit table is (``"class"``, ``"label"``, ``"entity type"``).
    UNIT_NAME = "class"

    def unit_rows(self, statistics, full_stats, rep_stats, labels, method, confidence_level, zero_division):
        """The per-unit table's rows (``ClassRow``), or None when the task has no such table (default)."""
        return None

    # -- Optional: the end of phase's pair tests -------------------------------------------------------------------
    #: ``((column, title, metric names), ...)``: every column :meth:`pair_tests` may return, its title in the
    #: reports, and the metrics it tests; in the order the reports show them.
    PAIR_TESTS = ()

    def needs_pair_tests(self, metrics):
        """Whether :meth:`pair_tests` may return a column for one of ``metrics`` (MetricSpecs).

        The end of phase then keeps every system's per-item predictions for the pair stage.
        """
        tested = set(name for _, _, names in self.PAIR_TESTS for name in names)
        return any(spec.name in tested for spec in metrics)

    def pair_tests(self, spec, gold, predictions, items, pairs, sides):
        """Tests of the pairs table beside the bootstrap's: ``{column: (title, p-values over pairs)}``.

        ``predictions`` is ``(n, m, ...)`` (every system's encoded values),
        ``items`` the target's boolean item mask, ``pairs`` the ``(P, 2)``
        ranked pairs (better first), ``sides`` ``"one"`` or ``"two"``.  Only
        columns of :attr:`PAIR_TESTS`, with the title given there (default: none, ``{}``).
        """
        return {}

    # -- Optional: what participants submit -------------------------------------------------------------------------
    def submission_format(self, gold, files, metrics):
        """The :data:`SubmissionFormat` of the prediction file, for the pages ``leaderboard-ci init`` writes.

        ``gold`` is the :class:`~leaderboard_ci.tasks.shared.base.GoldStandard`, ``files`` the config's ``files:``
        section, ``metrics`` the MetricSpecs.  Default, for the tasks read by the id and value columns: a CSV
        with the id column and the gold column, and a sample holding one constant value (the first label,
        or 0) for every id.
        """
        fmt, name = table_format(files, "predictions.csv")
        words = TableWords(fmt)
        value = gold.labels[0] if gold.labels else (0 if fmt in ("json", "jsonl") else "0")
        target = files.gold_column
        ids = gold.ids
        n = int(np.asarray(gold.values).shape[0])
        if ids is not None and files.id_column and fmt != "lines":
            header, rows = (files.id_column, target), [(i, value) for i in ids]
            what = "one %s per test item, in any order, with the %s `%s` and `%s`" % (
                words.row,
                words.columns,
                files.id_column,
                target,
            )
            public = (("test_ids.txt", "\n".join(ids) + "\n"),)
        else:
            header, rows = (target,), [(value,)] * n
            if fmt == "lines":
                what = "one value per line, without a header, in the order of the test items"
            elif words.header:
                what = "a header `%s`, then one value per line, in the order of the test items" % target
            else:
                what = "one %s per test item, in the order of the test items, with the %s `%s`" % (
                    words.row,
                    words.columns,
                    target,
                )
            public = (("test_ids.txt", "\n".join(ids) + "\n"),) if ids is not None else ()
        labels = (
            " The %s is one of: %s." % (target, ", ".join("`%s`" % label for label in gold.labels))
            if gold.labels and len(gold.labels) <= 30
            else ""
        )
        sample, example = table_sample(fmt, header, rows)
        return SubmissionFormat(
            unit="test item",
            units="test items",
            goal="Predict the %s of each of the {n} test items." % target,
            description="A %s file with %s.%s\n\n```\n%s\n```\n" % (words.noun, what, labels, example),
            file_name=name,
            sample=sample,
            public_files=public,
        )

    def __repr__(self):
        return "<task type %s>" % self.NAME


# ---------------------------------------------------------------------------
# The bridge to the new protocol
# ---------------------------------------------------------------------------
@dataclass(frozen=True, eq=False, repr=False)
class _BridgedMetric(Metric):
    legacy: object = None

    def make_spec(self, options, defaults):
        return self.legacy.make_spec(self.name, options, defaults)

    def signature(self, spec, gold):
        return self.legacy.metric_signature(spec, gold)


class _BridgedMetrics(Metrics):
    def __init__(self, legacy):
        super(_BridgedMetrics, self).__init__(
            [
                _BridgedMetric(
                    info.task,
                    name,
                    info.title,
                    info.direction,
                    info.best,
                    info.ppi,
                    options=tuple(Option(o, "-") for o in legacy.metric_options(name)),
                    legacy=legacy,
                )
                for name, info in legacy.METRICS.items()
            ]
        )
        self.legacy = legacy

    @property
    def aliases(self):
        return dict(self.legacy.ALIASES)

    @property
    def shorthands(self):
        return {}

    @property
    def options(self):
        return tuple(self.legacy.OPTIONS)

    @property
    def option_docs(self):
        return dict(self.legacy.OPTION_DOCS)

    def resolve(self, name):
        found = self.legacy.resolve_name(name)
        return None if found is None else (self[found[0]], dict(found[1]))

    def known_names(self):
        return list(self.legacy.known_names())

    def check_gold(self, specs, labels):
        return self.legacy.check_metrics(specs, labels)


class _Keys(object):
    """``Settings.keys()``: the task's setting names; ``settings.keys()``: the keys an instance holds (``dict()``)."""

    def __get__(self, obj, cls):
        if obj is None:
            return lambda: tuple(cls.legacy.SETTINGS)
        return lambda: [key for key, _ in obj.pairs]


@dataclass(frozen=True)
class _BridgedSettings(TaskSettings):
    """The old settings dict as sorted pairs; iterating gives the pairs (``dict(settings)``)."""

    pairs: tuple = ()
    legacy = None

    def __iter__(self):
        return iter(self.pairs)

    def __getitem__(self, key):  # dict(settings): keys() then each value
        return dict(self.pairs)[key]

    keys = _Keys()

    @classmethod
    def docs(cls):
        return dict(cls.legacy.SETTING_DOCS)

    @classmethod
    def defaults(cls):
        return cls.legacy.parse_settings({})

    @classmethod
    def parse(cls, values):
        return cls(pairs=tuple(sorted(cls.legacy.parse_settings(values).items())))

    def check(self, metrics, labels):
        return self.legacy.check_config(metrics, dict(self.pairs), labels)

    def organizer_warnings(self, labels, source):
        return self.legacy.organizer_warnings(labels, source)


class _LegacyDict(dict):
    """The previous protocol's settings dict; its keys read as attributes too (``UnscoredIds``)."""

    def __getattr__(self, name):
        return self.get(name)


def _legacy_settings(context):
    settings = _LegacyDict(context.settings or ())
    settings.update(
        format=context.format,
        id_column=context.id_column,
        gold_column=context.gold_column,
        prediction_columns=context.prediction_columns,
        config_name=context.config_name,
        labels=context.labels,
        group_column=context.group_column,
        public_labels=context.labels,
        metrics=context.metrics,
        unscored_ids=context.unscored_ids,
        max_ids=context.max_ids,
    )
    return settings


def _overrides(task, name):
    return getattr(type(task), name) is not getattr(TaskType, name)


def as_task_type(old):
    """The :class:`~leaderboard_ci.tasks.protocol.TaskType` of a task written to the previous protocol."""
    settings = type("%sSettings" % old.NAME.title(), (_BridgedSettings,), {"legacy": old})
    settings = dataclass(frozen=True)(settings)

    def read_gold(gold, context):
        legacy = _legacy_settings(context)
        if old.OWN_GOLD_FORMAT:
            units = old.read_gold(gold.source, gold.lines(), context.labels, legacy)
            return new.GoldData(
                units["lines"],
                units["values"],
                units.get("labels"),
                units.get("ids"),
                units.get("groups"),
                units.get("design"),
            )
        rows = gold.rows()
        codes, labels = old.encode_gold(
            gold.source, rows.lines, rows.values, context.labels, context.config_name, legacy
        )
        return new.GoldData(rows.lines, codes, labels, rows.ids, rows.groups, rows.design)

    def read_predictions(submission, gold, context):
        legacy = _legacy_settings(context)
        predictions = submission.file()
        if old.OWN_PREDICTION_FORMAT:
            return old.read_predictions(predictions.source, predictions.lines(), gold, legacy)
        convert, typecode = old.value_parser(predictions.source, gold, predictions.quote, legacy)
        stack = None if typecode else (lambda values: old.stack(values, gold, legacy))
        return predictions.values(convert, typecode, stack, lambda text: old.is_value(gold, text))

    def encode_values(gold_values, systems, labels, settings):
        return old.encode_values(gold_values, systems, labels, dict(settings or ()))

    def optional(name, value):
        return value if _overrides(old, name) else None

    return new.TaskType(
        name=old.NAME,
        metrics=_BridgedMetrics(old),
        Statistics=old.Statistics,
        read_gold=read_gold,
        read_predictions=read_predictions,
        encode_values=encode_values,
        Settings=settings,
        decode=old.decode,
        unit_name="item" if old.UNIT_VALUES_NAME == "unit" else old.UNIT_VALUES_NAME,
        submission_format=old.submission_format,
        pair_tests=new.PairTests(old.PAIR_TESTS, old.pair_tests) if old.PAIR_TESTS else None,
        unit_table=new.UnitTable(old.UNIT_NAME, old.unit_rows) if _overrides(old, "unit_rows") else None,
        unit_values=optional("unit_values", old.unit_values),
        analytic_interval=optional("analytic_interval", old.analytic_interval),
        sparse_units=optional("sparse_units", old.sparse_units),
        item_contributions=optional("item_contributions", old.item_contributions),
        score_notes=optional("score_notes", old.score_notes),
    )

"""The scoring configuration: ``config.yaml`` in the program folder.

An optional ``config.yaml`` in the reference-data folder (``ref/``) is merged
over it key by key, so one scoring program can serve several tasks with
different reference data.  Every mistake raises :class:`ConfigError` naming
the file, the key and the allowed values.

Each section is a frozen dataclass whose fields are its keys, with their types,
defaults and documentation (:mod:`leaderboard_ci.scoring.schema`); the
configuration reference, ``docs/configuration.md``, is generated from them
(``python3 -m leaderboard_ci.tools.config_reference``).
"""

from __future__ import annotations

import difflib
import io
import os
from collections import OrderedDict
from dataclasses import dataclass
from typing import Optional, Tuple

import yaml

from ..core.intervals import METHODS
from ..core.parallel import MAX_JOBS, check_jobs
from ..core.resampling import check_seed
from ..core.resolution import STATSMODELS_METHODS
from ..tasks.protocol import TaskSettings
from ..tasks.registry import TASKS, find_metric
from ..tasks.shared.base import MetricSpec, check_labels
from .custom import load_custom_metric
from .errors import ConfigError
from .metric_config import MAX_KEY_LENGTH, parse_metric
from .outputs import OutputSettings, check_output_groups, column_key, group_slug
from .schema import (
    Choice,
    Delegate,
    Flag,
    Integer,
    ListOf,
    Name,
    Nullable,
    Number,
    lower,
    section_keys,
    setting,
    setting_fields,
    unknown_key,
    validate_section,
)

__all__ = [
    "Config",
    "BootstrapSettings",
    "FileSettings",
    "GroupSettings",
    "BaselineSettings",
    "AnalysisSettings",
    "DetailedSettings",
    "load_config",
    "parse_config",
    "read_config",
    "merge_configs",
    "config_from_options",
    "option_names",
    "sections",
    "CONFIG_NAME",
    "DEFAULT_SEED",
    "CORRECTION_METHODS",
    "CORRECTIONS",
    "column_key",
    "group_slug",
    "check_key_lengths",
]

CONFIG_NAME = "config.yaml"
#: The default seed, the same as sacrebleu's paired bootstrap.
DEFAULT_SEED = 12345
MAX_RESAMPLES = 1000000

#: The method names of ``statsmodels.stats.multitest.multipletests``.
CORRECTION_METHODS = STATSMODELS_METHODS
#: Every ``analysis.corrections`` entry accepted: the resampling-based max-t step-down
#: (Romano & Wolf 2005, :mod:`leaderboard_ci.core.simultaneous`), then statsmodels' methods.
CORRECTIONS = ("maxt",) + CORRECTION_METHODS
#: The default corrections; the first is the default ``analysis.primary``.
DEFAULT_CORRECTIONS = ("maxt", "holm", "bonferroni", "fdr_bh")
FAMILIES = ("all_pairs", "vs_winner", "per_row")
TESTS = ("bootstrap", "permutation")
FORMATS = ("auto", "csv", "tsv", "lines", "json", "jsonl")
#: ``files.unscored_ids``: a prediction for an id the gold does not have is an error, or is ignored
#: (decoys: the public test set holds more ids than the gold scores).  With ``ignore``, a prediction
#: file may have at most ``files.max_ids`` rows (the public test ids): this bounds the reading.
UNSCORED_IDS = ("error", "ignore")

#: Suffixes appended to a metric key in ``scores.json``; the longest bounds the key length.
SUFFIXES = ("", "_ci_low", "_ci_high", "_se", "_vs_base", "_vs_base_ci_low", "_vs_base_ci_high", "_vs_base_p")


def _task_name(value):
    return str(value).strip().lower()


@dataclass(frozen=True)
class BootstrapSettings:
    """The resampling of the per-submission intervals (and of the end-of-phase analysis)."""

    n_resamples: int = setting(10000, "B, the number of bootstrap resamples.", Integer(1, MAX_RESAMPLES))
    confidence_level: float = setting(0.95, "The level of every interval.", Number(0, 1))
    method: str = setting(
        "percentile",
        "How an interval is read from the replicates: percentile, basic, bca, or "
        "normal (score +- z SE, SE the standard deviation of the replicates).",
        Choice(METHODS, lower),
    )
    seed: int = setting(
        DEFAULT_SEED,
        "Fixed, so that every submission is scored on the same resamples (0 is a valid seed).",
        Delegate(check_seed, "integer from 0 to 2**128-1"),
    )
    n_jobs: object = setting(
        "auto",
        "Threads; the results are identical for any value.",
        Delegate(check_jobs, "auto, or an integer from 1 to %d" % MAX_JOBS),
    )
    cluster: Optional[str] = setting(
        None,
        "A gold column whose values are resampled as whole clusters (e.g. the passage of each "
        "question, the document of each sentence); null: items are independent. See Method.",
        Nullable(Name()),
    )
    strata: Optional[str] = setting(
        None,
        "A gold column whose values are strata, each resampled within itself and keeping its "
        "size (e.g. the language of a balanced test set); null: no strata.",
        Nullable(Name()),
    )
    cluster_correction: bool = setting(
        True,
        "With cluster or strata: widen each replicate's deviation from the score by "
        "sqrt(mean of C/(C-1) over strata) x t(C-S)/z, the small-cluster correction of cluster-robust "
        "inference (C clusters, S strata; 1.04 at 50 clusters, 1.01 at 200). See Method.",
        Flag(),
    )

    design_file: Optional[str] = setting(
        None,
        "A CSV file in the reference data with an id column (files.id_column) and the cluster "
        "and strata columns, one row per gold unit: for task types whose gold cannot carry them "
        "(ranking: each query's topic); null: the columns are the gold's.",
        Nullable(Name(file=True)),
    )

    @classmethod
    def _finish(cls, values, where):
        if values.get("design_file") is not None and values.get("cluster") is None and values.get("strata") is None:
            raise ConfigError(
                "%s.design_file needs %s.cluster or %s.strata (the columns to read)" % (where, where, where)
            )
        if values.get("cluster") is not None and values.get("cluster") == values.get("strata"):
            raise ConfigError("%s.cluster and %s.strata name the same column; give different columns" % (where, where))
        return values


@dataclass(frozen=True)
class FileSettings:
    """Where the gold and the predictions are, and how they are read."""

    gold: str = setting("gold.csv", "The gold file in the reference data.", Name(file=True))
    predictions: Optional[str] = setting(
        None,
        "The file name expected in submissions (null: the submission's only data file).",
        Nullable(Name(file=True)),
    )
    id_column: Optional[str] = setting(
        "id", "The id column (null: the files have no ids and align by order).", Nullable(Name())
    )
    gold_column: str = setting("label", "The gold's label or value column.", Name())
    prediction_column: Optional[str] = setting(
        None,
        "The submission's column.",
        Nullable(Name()),
        default_doc="the gold column's name, prediction, pred or label",
    )
    format: str = setting(
        "auto",
        "The file format (auto: from the extension and the content; lines: one value per line).",
        Choice(FORMATS, lower),
    )
    max_megabytes: float = setting(200.0, "Larger submissions are refused before reading.", Number(0, 1e6))
    unscored_ids: str = setting(
        "error",
        "A prediction for an id the gold does not have is an error, or is read, "
        "checked and ignored (ignore: decoys, the public test set holds more ids than the "
        "gold scores; messages then give no gold count and no scored id).",
        Choice(UNSCORED_IDS, lower),
    )
    max_ids: int = setting(
        1000000,
        "With `unscored_ids: ignore`, the most rows a prediction file may have (the "
        "number of public test ids); reading stops at the next row.",
        Integer(1, 10**9),
    )

    @property
    def prediction_columns(self):
        """Header names accepted for the prediction column, in order of preference."""
        if self.prediction_column is not None:
            return (self.prediction_column,)
        names = [self.gold_column, "prediction", "pred", "label"]
        return tuple(dict.fromkeys(names))

    @classmethod
    def _finish(cls, values, where):
        if values.get("unscored_ids") == "ignore" and values.get("id_column", cls.id_column) is None:
            raise ConfigError("%s.unscored_ids: ignore needs ids (files.id_column)" % where)
        return values


@dataclass(frozen=True)
class GroupSettings:
    """Scores and intervals per group of items (e.g. per language), besides all items."""

    #: ``groups: language`` stands for ``groups: {column: language}``.
    _shorthand = ("column", "a column name")
    column: str = setting(doc="The gold column that holds each item's group.", check=Name())
    values: Optional[Tuple[str, ...]] = setting(
        None,
        "The groups, in column order.",
        Nullable(ListOf(Name(), "a non-empty list", min_length=1)),
        default_doc="the values of the gold column",
    )

    @classmethod
    def _finish(cls, values, where):
        if values.get("values") is not None:
            slugs = [group_slug(v) for v in values["values"]]
            if len(set(slugs)) != len(slugs):
                raise ConfigError(
                    "%s.values %s collide as score keys (%s)" % (where, ", ".join(values["values"]), ", ".join(slugs))
                )
        return values


@dataclass(frozen=True)
class BaselineSettings:
    """A baseline's predictions in the reference data: every submission is compared with it."""

    #: ``baseline: majority.csv`` stands for ``baseline: {file: majority.csv}``.
    _shorthand = ("file", "a file name")
    file: str = setting(doc="The baseline's prediction file in the reference data.", check=Name(file=True))
    name: str = setting("baseline", "Its name in the pages.", Name())


@dataclass(frozen=True)
class AnalysisSettings:
    """End-of-phase settings (ignored by the per-submission program)."""

    test: str = setting(
        "bootstrap",
        "The test of a pair: bootstrap (the inversion of the pair's interval) or "
        "permutation (paired approximate randomization).",
        Choice(TESTS),
    )
    alpha: float = setting(0.05, "The significance level.", Number(0, 1))
    corrections: Tuple[str, ...] = setting(
        DEFAULT_CORRECTIONS,
        "The multiple-comparison corrections reported: "
        "maxt (Romano-Wolf max-t step-down on the bootstrap replicates) and "
        "statsmodels' methods.",
        ListOf(Choice(CORRECTIONS), single=True),
    )
    family: str = setting(
        "all_pairs", "The tests each correction runs over: all_pairs, vs_winner or per_row.", Choice(FAMILIES)
    )
    n_permutations: int = setting(10000, "Permutations of the permutation test.", Integer(1, MAX_RESAMPLES))
    reference_point: Optional[float] = setting(
        None,
        "r of the baseline-calibrated gain.",
        Nullable(Number(-1e300, 1e300, kind="number")),
        default_doc="the metric's best value (a metric without one, such as ICM or ICM-Soft, gets no gain)",
    )
    primary: str = setting(
        "maxt",
        "The correction that decides the stars, the letters, the significant column "
        "and the systems tied with the winner.",
        kind="one of analysis.corrections, or none",
        default_doc="maxt if listed, else holm if listed, else the first correction",
    )
    sides: str = setting(
        "two",
        "two: decisions use two-sided p-values (the ranking picks which system of a pair "
        "is better); one: one-sided throughout.",
        Choice(("two", "one"), str),
    )

    @classmethod
    def _finish(cls, values, where):
        corrections = values.get("corrections", cls.corrections)
        default = next((c for c in ("maxt", "holm") if c in corrections), corrections[0] if corrections else "none")
        values["primary"] = Choice(tuple(corrections) + ("none",))(
            values.get("primary", default), "%s.primary (one of analysis.corrections, or none)" % where
        )
        return values


@dataclass(frozen=True)
class DetailedSettings:
    """What ``detailed_results.html`` shows besides the scores."""

    per_class: bool = setting(
        False,
        "true: the per-class (per-label, per-entity-type) table and the notes that count a "
        "class's predictions. Off by default: the table is an item oracle (predict one class on "
        "10 chosen items and another class on 10 others, and the two precisions say which of those "
        "items are right; precision * predicted / recall gives the gold's class counts), and "
        "`min_count` only makes the probe larger. The end-of-phase report keeps its per-class tables.",
        Flag(),
    )
    min_count: int = setting(
        10,
        "With `per_class: true`, a class's precision, recall and F1 (and their intervals) are shown "
        "only when the submission predicted it, and the gold holds it, at least this many times; "
        "below that a row would tell right from wrong for single items (a probe of this many items "
        "per class still reads them).",
        Integer(1, 10**9),
    )


@dataclass(frozen=True)
class Config:
    """The whole ``config.yaml``: the metrics, the top-level keys and one dataclass per section."""

    metrics: Tuple[MetricSpec, ...] = setting(
        doc="",
        rows=(
            (
                "metric",
                "metric entry",
                "(required)",
                "The official metric, which ranks the leaderboard: a name "
                "(`f1_macro`), a mapping (`{name: f1, average: macro, labels: [favor, against], key: f1_fa}`) or "
                "`{custom: file.py}`; see Metric entries.",
            ),
            (
                "extra_metrics",
                "list of metric entries",
                "[]",
                "More metrics, each with its own columns. A reference-data config.yaml that names its task or "
                "metric but no extra_metrics keeps those of the program's config.yaml that its task type offers "
                "and that are not its official metric again (the stock program's accuracy stays with a "
                "classification task, goes with another, and is one column with metric: accuracy).",
            ),
        ),
    )
    task: Optional[str] = setting(
        None,
        "The task type: how gold and predictions are parsed.",
        Nullable(Choice(TASKS, _task_name)),
        default_doc="the official metric's task",
    )
    labels: Optional[Tuple[str, ...]] = setting(
        None,
        "The label set, in the order of the tables.",
        Nullable(
            ListOf(
                Name(), "a list of at least two class labels", min_length=2, indexed=True, unique="lists a class twice"
            )
        ),
        default_doc="the labels of the gold",
    )
    pos_label: Optional[str] = setting(None, "The positive class of the `*_binary` metrics.", Nullable(Name()))
    zero_division: float = setting(
        0.0,
        "The value of precision, recall and F1 when undefined, as in scikit-learn.",
        Choice((0, 1), phrase="0 or 1"),
    )
    bootstrap: BootstrapSettings = setting(default_factory=BootstrapSettings, section=BootstrapSettings)
    files: FileSettings = setting(default_factory=FileSettings, section=FileSettings)
    groups: Optional[GroupSettings] = setting(None, section=GroupSettings)
    baseline: Optional[BaselineSettings] = setting(None, section=BaselineSettings)
    analysis: AnalysisSettings = setting(default_factory=AnalysisSettings, section=AnalysisSettings)
    outputs: OutputSettings = setting(default_factory=OutputSettings, section=OutputSettings)
    detailed_results: DetailedSettings = setting(default_factory=DetailedSettings, section=DetailedSettings)
    source: str = CONFIG_NAME
    program_dir: Optional[str] = None
    #: The task type's own settings (its ``Settings`` dataclass, :mod:`leaderboard_ci.tasks.settings`).
    task_settings: TaskSettings = TaskSettings()

    @property
    def official(self):
        """The metric that ranks the leaderboard."""
        return self.metrics[0]

    @property
    def kind(self):
        """The task type (``task:``, else the official metric's): how gold and predictions are parsed."""
        return self.task or self.official.task


# ---------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------
def read_config(path, shown=None):
    """The mapping in a YAML configuration file, not yet validated.

    Parameters
    ----------
    path : str
    shown : str, optional
        How messages name the file (default: its base name; ``ref/config.yaml``).

    Raises
    ------
    ConfigError
        Invalid YAML (with the line), not UTF-8, or not a mapping.
    """
    shown = shown or os.path.basename(path)
    try:
        with io.open(path, "r", encoding="utf-8-sig") as handle:
            data = yaml.safe_load(handle)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = " line %d" % (mark.line + 1) if mark is not None else ""
        problem = str(getattr(exc, "problem", None) or exc).replace("\n", " ")
        raise ConfigError("%s%s is not valid YAML: %s" % (shown, where, problem))
    except UnicodeDecodeError:
        raise ConfigError("%s is not UTF-8 text" % shown)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError("%s must be a mapping of keys to values, got %s" % (shown, type(data).__name__))
    return data


def merge_configs(base, *overrides):
    """``base`` with each of ``overrides`` merged over it key by key (nested mappings merged, not replaced).

    This is how ``ref/config.yaml`` overrides the program's ``config.yaml``.  The
    arguments are not changed.
    """
    out = dict(base)
    for override in overrides:
        for key, value in override.items():
            if isinstance(value, dict) and isinstance(out.get(key), dict):
                out[key] = merge_configs(out[key], value)
            else:
                out[key] = value
    return out


def load_config(program_dir, ref_dir=None, path=None):
    """Load ``config.yaml`` from the program folder, merged with ``ref/config.yaml``.

    Parameters
    ----------
    program_dir : str
        The scoring program folder (custom metrics are loaded from here).
    ref_dir : str, optional
        The reference-data folder; its ``config.yaml``, if any, overrides.
    path : str, optional
        An explicit config file instead of ``program_dir/config.yaml``.
    """
    path = path or os.path.join(program_dir, CONFIG_NAME)
    if not os.path.isfile(path):
        raise ConfigError("the scoring program has no %s (looked for %s)" % (CONFIG_NAME, path))
    data = read_config(path)
    source = os.path.basename(path)
    if ref_dir is not None:
        override = os.path.join(ref_dir, CONFIG_NAME)
        if os.path.isfile(override):
            ref = read_config(override, "ref/" + CONFIG_NAME)
            data = merge_configs(data, ref)
            if "extra_metrics" not in ref and ("task" in ref or "metric" in ref):
                data["extra_metrics"] = offered_extra_metrics(data)
            source = "%s + ref/%s" % (source, CONFIG_NAME)
    return parse_config(data, source=source, program_dir=program_dir)


def offered_extra_metrics(data):
    """The ``extra_metrics`` of ``data`` that its task type offers (custom metrics kept).

    A ``ref/config.yaml`` that names its task or official metric but no extra metrics keeps, of the
    program's ``extra_metrics``, those its task type has: the stock program's ``[accuracy]`` stays with a
    classification task and goes with a soft-label or preference one (its metrics would be refused there).
    An entry the lookup cannot place (a misspelt name) is kept, and refused later with its own sentence.
    """
    extra = data.get("extra_metrics")
    if not isinstance(extra, (list, tuple)):
        return extra
    extra = [entry for entry in extra if not _same_metric(entry, data.get("metric"))]
    task = data.get("task")
    if task is None:
        name = _entry_name(data.get("metric"))
        found = find_metric(name) if isinstance(name, str) else None
        task = found[0].name if found is not None else None
    else:
        task = _task_name(task)
    if task not in TASKS:
        return extra
    kept = []
    for entry in extra:
        name = _entry_name(entry)
        if not isinstance(name, str) or find_metric(name, task) is not None or find_metric(name) is None:
            kept.append(entry)
    return kept


def _same_metric(entry, official):
    """Whether an inherited extra metric is the official one (``metric: accuracy`` in ``ref/config.yaml``
    beside the stock program's ``extra_metrics: [accuracy]``: one column, not a clash of two keys)."""
    if isinstance(entry, dict) and set(entry) - {"name"} or isinstance(official, dict) and set(official) - {"name"}:
        return False  # options or a key of their own: kept, and any real clash named by its own sentence
    name, official = _entry_name(entry), _entry_name(official)
    if not isinstance(name, str) or not isinstance(official, str):
        return False
    one, other = find_metric(name), find_metric(official)
    if one is None or other is None:
        return name == official
    return one == other  # (task type, metric name, implied options)


def _entry_name(entry):
    """The metric name of a ``metric``/``extra_metrics`` entry: the string itself, or a mapping's ``name``."""
    return entry.get("name") if isinstance(entry, dict) else entry


# ---------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------
def sections():
    """``{key: dataclass}`` of the sections of ``config.yaml`` (``bootstrap``, ``files``, ...), in order."""
    return OrderedDict((f.name, s.section) for f, s in setting_fields(Config) if s.section is not None)


def check_key_lengths(metrics, group_values, source, with_baseline=False):
    """Every key a submission can produce must fit Codabench's 36 characters."""
    suffixes = SUFFIXES if with_baseline else SUFFIXES[:4]
    longest = max(suffixes, key=len)
    for spec in metrics:
        for group in [None] + [str(v) for v in (group_values or ())]:
            key = column_key(spec.key, group, longest)
            if len(key) <= MAX_KEY_LENGTH:
                continue
            room = MAX_KEY_LENGTH - len(longest) - (len(group_slug(group)) + 1 if group is not None else 0)
            hint = (
                "give metric %r a shorter key (key: at most %d characters)" % (spec.key, room)
                if room >= 1
                else "shorten the metric's key"
            )
            if group is not None:
                hint += " or the group value %r" % group
            raise ConfigError(
                "%s: the score key %r would be %d characters, over Codabench's %d; %s"
                % (source, key, len(key), MAX_KEY_LENGTH, hint)
            )


def _parse_metrics(data, source, program_dir, labels, pos_label, zero_division, task):
    def custom_loader(path, where):
        if program_dir is None:
            raise ConfigError("%s: custom metric %s needs the program folder" % (where, path))
        return load_custom_metric(program_dir, path, where)

    if "metric" not in data:
        raise ConfigError("%s: 'metric' is required (the official metric, e.g. metric: f1_macro)" % source)
    entries = [("metric", data["metric"])]
    extra = data.get("extra_metrics") or []
    if not isinstance(extra, (list, tuple)):
        raise ConfigError("%s: extra_metrics must be a list of metrics, got %r" % (source, extra))
    entries += [("extra_metrics[%d]" % i, e) for i, e in enumerate(extra)]
    metrics = tuple(
        parse_metric(
            entry,
            "%s: %s" % (source, where),
            label_set=labels,
            default_pos_label=pos_label,
            default_zero_division=zero_division,
            custom_loader=custom_loader,
            task=task,
        )
        for where, entry in entries
    )
    keys = [m.key for m in metrics]
    for key in keys:
        if keys.count(key) > 1:
            raise ConfigError("%s: two metrics have the key %r; give one of them another 'key'" % (source, key))
    tasks = list(OrderedDict((m.task, None) for m in metrics))
    if len(tasks) > 1 or (task is not None and tasks != [task]):
        raise ConfigError(
            "%s: metrics of different task types (%s)%s; one task parses predictions one way"
            % (source, ", ".join("%s: %s" % (m.key, m.task) for m in metrics), " under task: %s" % task if task else "")
        )
    return metrics


def parse_config(data, source=CONFIG_NAME, program_dir=None):
    """Validate a config mapping and return a :class:`Config`.

    The top-level keys and every section are read against their dataclasses
    (:func:`leaderboard_ci.scoring.schema.validate_section`); the metrics by
    :func:`~leaderboard_ci.scoring.metric_config.parse_metric`; a task's own
    top-level keys by its task module.  Every mistake is one
    :class:`ConfigError` sentence naming ``source`` and the key.
    """
    if not isinstance(data, dict):
        raise ConfigError("%s must be a mapping of keys to values" % source)
    top, parts = section_keys(Config), sections()
    extra = set(data) - set(top)
    # Task modules are imported only when a key might be a task's setting: the named task's alone when
    # it owns every extra key (each task imported costs the per-submission start-up its compile time).
    named = data.get("task")
    named = TASKS[named] if isinstance(named, str) and named in TASKS else None
    if not extra:  # no task imported: a config of top-level keys only (the stock one) needs none here
        owners = ()
    elif named is not None and extra <= set(named.Settings.keys()):
        owners = (named,)
    else:
        owners = TASKS.values()
    task_keys = dict((key, module) for module in owners for key in module.Settings.keys())
    unknown = sorted(extra - set(task_keys), key=str)
    if unknown:
        raise unknown_key(
            "%s: %r" % (source, unknown[0]),
            unknown[0],
            top,
            dict((name, section_keys(cls)) for name, cls in parts.items()),
            also=sorted(task_keys),
        )
    given = dict(
        (f.name, s.check(data[f.name], "%s: %s" % (source, f.name)))
        for f, s in setting_fields(Config)
        if s.check is not None and f.name in data
    )
    task, labels, pos_label = given.get("task"), given.get("labels"), given.get("pos_label")
    zero_division = given.get("zero_division", 0)
    metrics = _parse_metrics(data, source, program_dir, labels, pos_label, zero_division, task)

    module = TASKS[task or metrics[0].task]
    keys = module.Settings.keys()
    foreign = sorted(key for key in data if key in task_keys and key not in keys)
    if foreign:
        owners = sorted(other.name for other in TASKS.values() if foreign[0] in other.Settings.keys())
        raise ConfigError(
            "%s: %s is a setting of task %s; this configuration's task is %s"
            % (source, foreign[0], " or ".join(owners), module.name)
        )
    own = dict((key, data[key]) for key in keys if key in data)
    try:
        task_settings = module.Settings.parse(own)
    except ValueError as exc:
        raise ConfigError("%s: %s" % (source, exc))
    try:  # settings that constrain the metrics (e.g. a coarse level)
        task_settings.check(tuple(metrics), labels)
    except ValueError as exc:
        raise ConfigError("%s: %s" % (source, exc))
    if pos_label is not None and labels is not None:
        try:
            check_labels("pos_label", None, None, pos_label, labels)
        except ValueError as exc:
            raise ConfigError("%s: %s" % (source, exc))

    others = dict((name, section_keys(cls)) for name, cls in parts.items())
    optional = set(f.name for f, s in setting_fields(Config) if f.default is None)  # groups, baseline
    settings = dict(
        (
            name,
            None
            if data.get(name) is None and name in optional
            else validate_section(cls, data.get(name), name, source, others),
        )
        for name, cls in parts.items()
    )
    groups = settings["groups"]
    if groups is not None and groups.values is not None:
        check_output_groups(settings["outputs"], groups.values, source)
    check_key_lengths(
        metrics, groups.values if groups else None, source, with_baseline=settings["baseline"] is not None
    )
    return Config(
        task=task,
        task_settings=task_settings,
        metrics=metrics,
        labels=labels,
        pos_label=pos_label,
        zero_division=float(zero_division),
        source=source,
        program_dir=program_dir,
        **settings,
    )


# ---------------------------------------------------------------------------
# The Python API's keyword options
# ---------------------------------------------------------------------------
#: The sections whose keys :func:`config_from_options` takes as keyword options (the statistics).
OPTION_SECTIONS = ("bootstrap", "analysis")


def option_names():
    """``{option: section or None}``: the keyword options of :func:`config_from_options`.

    The keys of :data:`OPTION_SECTIONS`, the top-level keys ``task``, ``labels``,
    ``pos_label`` and ``zero_division`` (section None) and every task's own settings.
    """
    names = OrderedDict((f.name, None) for f, s in setting_fields(Config) if s.check is not None)
    for name in OPTION_SECTIONS:
        names.update((key, name) for key in section_keys(sections()[name]))
    for module in TASKS.values():
        names.update((key, None) for key in module.Settings.keys())
    return names


def config_from_options(metric, extra_metrics=None, source="analyze()", **options):
    """A :class:`Config` from keyword options, validated as ``config.yaml`` is (the Python API).

    Parameters
    ----------
    metric : str or dict
        The official metric, as ``metric:`` in ``config.yaml``.
    extra_metrics : sequence, optional
    source : str
        How messages name the options (``"analyze()"``).
    **options
        Any key of :func:`option_names`, flat: ``n_resamples=2000, alpha=0.01,
        corrections=["holm"], labels=[...], relevance_threshold=2``.

    Raises
    ------
    TypeError
        An unknown option.
    ConfigError
        A bad value, in the words ``config.yaml`` would get.
    """
    names = option_names()
    unknown = sorted(set(options) - set(names))
    if unknown:
        close = difflib.get_close_matches(unknown[0], list(names), n=1, cutoff=0.75)
        raise TypeError(
            "unexpected keyword argument %r%s" % (unknown[0], " (did you mean %r?)" % close[0] if close else "")
        )
    data = {"metric": metric}
    if extra_metrics:
        data["extra_metrics"] = list(extra_metrics)
    for key, value in options.items():
        if names[key] is None:
            data[key] = list(value) if key == "labels" and value is not None else value
        else:
            data.setdefault(names[key], {})[key] = value
    return parse_config(data, source=source)

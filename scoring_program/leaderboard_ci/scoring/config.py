"""The scoring configuration: ``config.yaml`` in the program folder.

An optional ``config.yaml`` in the reference-data folder (``ref/``) is merged
over it key by key, so one scoring program can serve several tasks with
different reference data.  Every mistake raises :class:`ConfigError` naming
the file, the key and the allowed values.

See the README's "Configuration reference" for every key with examples.
"""
from __future__ import annotations

import io
from collections import OrderedDict
import numbers
import os
from dataclasses import dataclass, field
from typing import Optional, Tuple

import yaml

from .custom import load_custom_metric
from .errors import ConfigError
from ..core.intervals import METHODS
from ..core.parallel import check_jobs
from ..core.resampling import check_seed
from ..tasks.base import MetricSpec
from ..tasks.base import check_labels
from ..tasks.registry import TASKS
from .metric_config import MAX_KEY_LENGTH, parse_metric
from .outputs import OutputSettings, check_output_groups, column_key, group_slug, parse_outputs

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

#: The method names of ``statsmodels.stats.multitest.multipletests`` (checked
#: against statsmodels in the tests; statsmodels itself is not imported here).
CORRECTION_METHODS = ("bonferroni", "sidak", "holm-sidak", "holm", "simes-hochberg", "hommel",
                      "fdr_bh", "fdr_by", "fdr_tsbh", "fdr_tsbky")
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


@dataclass(frozen=True)
class BootstrapSettings:
    n_resamples: int = 10000
    confidence_level: float = 0.95
    method: str = "percentile"
    seed: int = DEFAULT_SEED
    n_jobs: object = "auto"


@dataclass(frozen=True)
class FileSettings:
    gold: str = "gold.csv"
    predictions: Optional[str] = None
    id_column: Optional[str] = "id"
    gold_column: str = "label"
    prediction_column: Optional[str] = None
    format: str = "auto"
    max_megabytes: float = 200.0
    unscored_ids: str = "error"
    max_ids: int = 1000000

    @property
    def prediction_columns(self):
        """Header names accepted for the prediction column, in order of preference."""
        if self.prediction_column is not None:
            return (self.prediction_column,)
        names = [self.gold_column, "prediction", "pred", "label"]
        return tuple(dict.fromkeys(names))


@dataclass(frozen=True)
class GroupSettings:
    column: str
    values: Optional[Tuple[str, ...]] = None


@dataclass(frozen=True)
class BaselineSettings:
    file: str
    name: str = "baseline"


@dataclass(frozen=True)
class AnalysisSettings:
    """End-of-phase settings (ignored by the per-submission program)."""

    test: str = "bootstrap"
    alpha: float = 0.05
    corrections: Tuple[str, ...] = DEFAULT_CORRECTIONS
    family: str = "all_pairs"
    n_permutations: int = 10000
    reference_point: Optional[float] = None
    primary: str = "maxt"
    sides: str = "two"


@dataclass(frozen=True)
class DetailedSettings:
    """What ``detailed_results.html`` shows besides the scores.

    ``per_class``: the per-class table (False: not shown).  ``min_count``: a
    class's precision, recall and F1 (and their intervals) are shown only
    when the submission predicted it, and the gold holds it, at least this
    many times; below that a row would tell right from wrong for single items.
    """

    per_class: bool = True
    min_count: int = 10


@dataclass(frozen=True)
class Config:
    metrics: Tuple[MetricSpec, ...]
    labels: Optional[Tuple[str, ...]] = None
    pos_label: Optional[str] = None
    zero_division: float = 0.0
    bootstrap: BootstrapSettings = field(default_factory=BootstrapSettings)
    files: FileSettings = field(default_factory=FileSettings)
    groups: Optional[GroupSettings] = None
    baseline: Optional[BaselineSettings] = None
    analysis: AnalysisSettings = field(default_factory=AnalysisSettings)
    outputs: OutputSettings = field(default_factory=OutputSettings)
    detailed_results: DetailedSettings = field(default_factory=DetailedSettings)
    source: str = CONFIG_NAME
    program_dir: Optional[str] = None
    task: Optional[str] = None
    #: The task module's own settings (its ``SETTINGS`` keys), as sorted ``(key, value)`` pairs.
    task_settings: Tuple[Tuple[str, object], ...] = ()

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
def _read_yaml(path, shown=None):
    """The mapping in a YAML file; ``shown`` is how messages name it (``config.yaml``, ``ref/config.yaml``)."""
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


def _merge(base, override):
    out = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
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
    data = _read_yaml(path)
    source = os.path.basename(path)
    if ref_dir is not None:
        override = os.path.join(ref_dir, CONFIG_NAME)
        if os.path.isfile(override):
            data = _merge(data, _read_yaml(override, "ref/" + CONFIG_NAME))
            source = "%s + ref/%s" % (source, CONFIG_NAME)
    return parse_config(data, source=source, program_dir=program_dir)


# ---------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------
_TOP_KEYS = ("metric", "extra_metrics", "task", "labels", "pos_label", "zero_division", "bootstrap",
             "files", "groups", "baseline", "analysis", "outputs", "detailed_results")


def _section(data, key, allowed, source):
    value = data.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ConfigError("%s: %s must be a mapping, got %r" % (source, key, value))
    unknown = sorted(set(value) - set(allowed))
    if unknown:
        raise ConfigError("%s: %s.%s is not a known key; allowed: %s"
                          % (source, key, unknown[0], ", ".join(allowed)))
    return value


def _int(value, where, low, high):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not low <= value <= high:
        raise ConfigError("%s must be an integer from %d to %d, got %r" % (where, low, high, value))
    return int(value)


def _checked(check, value, prefix):
    """``check(value)`` from the core, its ValueError/TypeError as a ConfigError starting with ``prefix``."""
    try:
        return check(value)
    except (TypeError, ValueError) as exc:
        raise ConfigError("%s%s" % (prefix, exc))


def _number(value, where, low, high, low_open=True, high_open=True):
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if ok:
        value = float(value)
        ok = (value > low if low_open else value >= low) and (value < high if high_open else value <= high)
    if not ok:
        raise ConfigError("%s must be a number %s %g and %s %g, got %r"
                          % (where, ">" if low_open else ">=", low, "<" if high_open else "<=", high, value))
    return value


def _choice(value, where, choices):
    if value not in choices:
        raise ConfigError("%s must be one of: %s, got %r" % (where, ", ".join(choices), value))
    return value


def _name(value, where, allow_none=False):
    if value is None and allow_none:
        return None
    if isinstance(value, bool):
        raise ConfigError("%s is %r because YAML reads yes/no/on/off/true/false as booleans; "
                          "quote it (e.g. \"yes\")" % (where, value))
    if not isinstance(value, (str, int)) or str(value).strip() == "":
        raise ConfigError("%s must be a non-empty name, got %r" % (where, value))
    return str(value).strip()


def _file_name(value, where, allow_none=False):
    name = _name(value, where, allow_none)
    if name is not None and (os.path.isabs(name) or ".." in name.replace("\\", "/").split("/")):
        raise ConfigError("%s must be a file name inside its folder, got %r" % (where, value))
    return name


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
            hint = ("give metric %r a shorter key (key: at most %d characters)" % (spec.key, room)
                    if room >= 1 else "shorten the metric's key")
            if group is not None:
                hint += " or the group value %r" % group
            raise ConfigError("%s: the score key %r would be %d characters, over Codabench's %d; %s"
                              % (source, key, len(key), MAX_KEY_LENGTH, hint))


def parse_config(data, source=CONFIG_NAME, program_dir=None):
    """Validate a config mapping and return a :class:`Config`."""
    if not isinstance(data, dict):
        raise ConfigError("%s must be a mapping of keys to values" % source)
    extra = set(data) - set(_TOP_KEYS)
    # Task modules are imported only when a key might be a task's setting.
    task_keys = dict((key, module) for module in (TASKS.values() if extra else ())
                     for key in module.SETTINGS)
    unknown = sorted(extra - set(task_keys))
    if unknown:
        raise ConfigError("%s: %r is not a known key; allowed: %s" % (source, unknown[0], ", ".join(_TOP_KEYS)))

    labels = data.get("labels")
    if labels is not None:
        if isinstance(labels, (str, bytes, numbers.Number)) or not isinstance(labels, (list, tuple)) or len(labels) < 2:
            raise ConfigError("%s: labels must be a list of at least two class labels, got %r" % (source, labels))
        labels = tuple(_name(x, "%s: labels[%d]" % (source, i)) for i, x in enumerate(labels))
        if len(set(labels)) != len(labels):
            raise ConfigError("%s: labels lists a class twice: %s" % (source, ", ".join(labels)))
    pos_label = _name(data.get("pos_label"), "%s: pos_label" % source, allow_none=True)
    zero_division = data.get("zero_division", 0)
    if isinstance(zero_division, bool) or zero_division not in (0, 1):
        raise ConfigError("%s: zero_division must be 0 or 1, got %r" % (source, zero_division))

    task = data.get("task")
    if task is not None:
        task = _choice(str(task).strip().lower(), "%s: task" % source, tuple(TASKS))

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
    metrics = []
    for where, entry in entries:
        metrics.append(parse_metric(entry, "%s: %s" % (source, where), label_set=labels,
                                    default_pos_label=pos_label, default_zero_division=zero_division,
                                    custom_loader=custom_loader, task=task))
    keys = [m.key for m in metrics]
    for key in keys:
        if keys.count(key) > 1:
            raise ConfigError("%s: two metrics have the key %r; give one of them another 'key'"
                              % (source, key))
    tasks = list(OrderedDict((m.task, None) for m in metrics))
    if len(tasks) > 1 or (task is not None and tasks != [task]):
        raise ConfigError("%s: metrics of different task types (%s)%s; one task parses predictions one way"
                          % (source, ", ".join("%s: %s" % (m.key, m.task) for m in metrics),
                             " under task: %s" % task if task else ""))
    module = TASKS[task or tasks[0]]
    foreign = sorted(key for key in data if key in task_keys and key not in module.SETTINGS)
    if foreign:
        raise ConfigError("%s: %s is a setting of task %s; this configuration's task is %s"
                          % (source, foreign[0], task_keys[foreign[0]].NAME, module.NAME))
    own = dict((key, data[key]) for key in module.SETTINGS if key in data)
    try:
        task_settings = module.parse_settings(own)
    except ValueError as exc:
        raise ConfigError("%s: %s" % (source, exc))
    try:  # settings that constrain the metrics (e.g. a coarse level)
        module.check_config(tuple(metrics), task_settings, labels)
    except ValueError as exc:
        raise ConfigError("%s: %s" % (source, exc))
    if pos_label is not None and labels is not None:
        try:
            check_labels("pos_label", None, None, pos_label, labels)
        except ValueError as exc:
            raise ConfigError("%s: %s" % (source, exc))

    b = _section(data, "bootstrap", ("n_resamples", "confidence_level", "method", "seed", "n_jobs"), source)
    n_jobs = _checked(check_jobs, b.get("n_jobs", "auto"), "%s: bootstrap." % source)
    seed = b.get("seed", DEFAULT_SEED)
    bootstrap = BootstrapSettings(
        n_resamples=_int(b.get("n_resamples", 10000), "%s: bootstrap.n_resamples" % source, 1, MAX_RESAMPLES),
        confidence_level=_number(b.get("confidence_level", 0.95), "%s: bootstrap.confidence_level" % source, 0, 1),
        method=_choice(str(b.get("method", "percentile")).lower(), "%s: bootstrap.method" % source, METHODS),
        seed=_checked(check_seed, seed, "%s: bootstrap." % source),
        n_jobs=n_jobs,
    )

    f = _section(data, "files", ("gold", "predictions", "id_column", "gold_column", "prediction_column",
                                 "format", "max_megabytes", "unscored_ids", "max_ids"), source)
    files = FileSettings(
        gold=_file_name(f.get("gold", "gold.csv"), "%s: files.gold" % source),
        predictions=_file_name(f.get("predictions"), "%s: files.predictions" % source, allow_none=True),
        id_column=_name(f.get("id_column", "id"), "%s: files.id_column" % source, allow_none=True),
        gold_column=_name(f.get("gold_column", "label"), "%s: files.gold_column" % source),
        prediction_column=_name(f.get("prediction_column"), "%s: files.prediction_column" % source,
                                allow_none=True),
        format=_choice(str(f.get("format", "auto")).lower(), "%s: files.format" % source, FORMATS),
        max_megabytes=_number(f.get("max_megabytes", 200), "%s: files.max_megabytes" % source, 0, 1e6),
        unscored_ids=_choice(str(f.get("unscored_ids", "error")).lower(), "%s: files.unscored_ids" % source,
                             UNSCORED_IDS),
        max_ids=_int(f.get("max_ids", 1000000), "%s: files.max_ids" % source, 1, 10 ** 9),
    )
    if files.unscored_ids == "ignore" and files.id_column is None:
        raise ConfigError("%s: files.unscored_ids: ignore needs ids (files.id_column)" % source)
    d = _section(data, "detailed_results", ("per_class", "min_count"), source)
    per_class = d.get("per_class", True)
    if not isinstance(per_class, bool):
        raise ConfigError("%s: detailed_results.per_class must be true or false, got %r" % (source, per_class))
    detailed = DetailedSettings(per_class=per_class, min_count=_int(d.get("min_count", 10),
                                                                   "%s: detailed_results.min_count" % source,
                                                                   1, 10 ** 9))

    groups = data.get("groups")
    if groups is not None:
        if isinstance(groups, str):
            groups = {"column": groups}
        if not isinstance(groups, dict):
            raise ConfigError("%s: groups must be a column name or {column: ..., values: [...]}" % source)
        g = _section({"groups": groups}, "groups", ("column", "values"), source)
        values = g.get("values")
        if values is not None:
            if not isinstance(values, (list, tuple)) or not values:
                raise ConfigError("%s: groups.values must be a non-empty list, got %r" % (source, values))
            values = tuple(_name(v, "%s: groups.values" % source) for v in values)
            slugs = [group_slug(v) for v in values]
            if len(set(slugs)) != len(slugs):
                raise ConfigError("%s: groups.values %s collide as score keys (%s)"
                                  % (source, ", ".join(values), ", ".join(slugs)))
        groups = GroupSettings(column=_name(g.get("column"), "%s: groups.column" % source), values=values)

    baseline = data.get("baseline")
    if baseline is not None:
        if isinstance(baseline, str):
            baseline = {"file": baseline}
        bl = _section({"baseline": baseline}, "baseline", ("file", "name"), source)
        baseline = BaselineSettings(file=_file_name(bl.get("file"), "%s: baseline.file" % source),
                                    name=_name(bl.get("name", "baseline"), "%s: baseline.name" % source))

    a = _section(data, "analysis", ("test", "alpha", "corrections", "family", "n_permutations",
                                    "reference_point", "primary", "sides"), source)
    corrections = a.get("corrections", list(DEFAULT_CORRECTIONS))
    if isinstance(corrections, str):
        corrections = [corrections]
    if not isinstance(corrections, (list, tuple)):
        raise ConfigError("%s: analysis.corrections must be a list" % source)
    corrections = tuple(_choice(c, "%s: analysis.corrections" % source, CORRECTIONS) for c in corrections)
    reference_point = a.get("reference_point")
    if reference_point is not None:
        reference_point = _number(reference_point, "%s: analysis.reference_point" % source, -1e300, 1e300)
    default_primary = next((c for c in ("maxt", "holm") if c in corrections), corrections[0] if corrections else "none")
    primary = a.get("primary", default_primary)
    _choice(primary, "%s: analysis.primary (one of analysis.corrections, or none)" % source,
            tuple(corrections) + ("none",))
    analysis = AnalysisSettings(
        primary=primary,
        sides=_choice(str(a.get("sides", "two")), "%s: analysis.sides" % source, ("two", "one")),
        test=_choice(a.get("test", "bootstrap"), "%s: analysis.test" % source, TESTS),
        alpha=_number(a.get("alpha", 0.05), "%s: analysis.alpha" % source, 0, 1),
        corrections=corrections,
        family=_choice(a.get("family", "all_pairs"), "%s: analysis.family" % source, FAMILIES),
        n_permutations=_int(a.get("n_permutations", 10000), "%s: analysis.n_permutations" % source, 1, MAX_RESAMPLES),
        reference_point=reference_point,
    )

    outputs = parse_outputs(data.get("outputs"), source)
    if groups is not None and groups.values is not None:
        check_output_groups(outputs, groups.values, source)
    check_key_lengths(metrics, groups.values if groups else None, source, with_baseline=baseline is not None)
    return Config(task=task, task_settings=tuple(sorted(task_settings.items())), metrics=tuple(metrics),
                  labels=labels, pos_label=pos_label, zero_division=float(zero_division), bootstrap=bootstrap,
                  files=files, groups=groups, baseline=baseline, analysis=analysis, outputs=outputs,
                  detailed_results=detailed, source=source, program_dir=program_dir)

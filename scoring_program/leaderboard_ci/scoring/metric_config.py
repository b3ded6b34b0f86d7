"""Metric entries of ``config.yaml``: names, aliases, parameters and score keys.

:func:`parse_metric` turns ``metric: f1_macro`` or ``{name: f1, average: macro,
labels: [favor, against], key: f1_fa}`` into a :class:`~leaderboard_ci.tasks.metrics.MetricSpec`,
and checks that every key fits Codabench's limits (36 characters, letters,
digits and underscores).  Every mistake is a :class:`ConfigError` naming the
entry and the allowed values.
"""
from __future__ import annotations

from ..tasks.metrics import METRICS, MetricSpec
from .errors import ConfigError
from .limits import KEY_PATTERN, MAX_KEY_LENGTH

__all__ = ["parse_metric", "check_labels_against", "check_key", "MAX_KEY_LENGTH", "AVERAGES", "KAPPA_WEIGHTS"]

AVERAGES = ("macro", "micro", "weighted", "binary")
KAPPA_WEIGHTS = ("linear", "quadratic")

_ALIASES = {
    "acc": "accuracy",
    "matthews_corrcoef": "mcc",
    "kappa": "cohen_kappa",
    "qwk": "cohen_kappa:quadratic",
    "quadratic_kappa": "cohen_kappa:quadratic",
    "linear_kappa": "cohen_kappa:linear",
    "pearsonr": "pearson",
    "spearmanr": "spearman",
    "mean_absolute_error": "mae",
    "mean_squared_error": "mse",
    "root_mean_squared_error": "rmse",
    "r2_score": "r2",
    "f1_score": "f1",
    "fscore": "f1",
}




def _canonical(text):
    return str(text).strip().lower().replace("-", "_").replace(" ", "_")


def _split_shorthand(text):
    """'f1_macro' / 'macro_f1' -> ('f1', 'macro'); 'qwk' -> ('cohen_kappa', weights)."""
    name = _canonical(text)
    name = _ALIASES.get(name, name)
    if name.startswith("cohen_kappa:"):
        return "cohen_kappa", None, name.split(":", 1)[1]
    for avg in AVERAGES:
        for base in ("precision", "recall", "f1"):
            if name in ("%s_%s" % (base, avg), "%s_%s" % (avg, base)):
                return base, avg, None
    return name, None, None


def parse_metric(entry, where, label_set=None, default_pos_label=None, default_zero_division=0.0,
                 custom_loader=None):
    """Build a :class:`MetricSpec` from a config entry.

    Parameters
    ----------
    entry : str or dict
        ``"f1_macro"``, or a mapping such as
        ``{name: f1, average: macro, labels: [favor, against], key: f1_fa}``,
        or ``{custom: my_metric.py}``.
    where : str
        How to name the entry in error messages, e.g. ``"config.yaml: metric"``.
    label_set : sequence of str, optional
        The task's labels, when already known, to check ``labels`` and
        ``pos_label`` against.
    custom_loader : callable, optional
        ``custom_loader(path, where) -> MetricInfo`` for custom metrics.

    Raises
    ------
    ConfigError
        Naming the key and the allowed values.
    """
    if isinstance(entry, str):
        entry = {"name": entry}
    if not isinstance(entry, dict):
        raise ConfigError("%s must be a metric name or a mapping, got %r" % (where, entry))
    allowed = {"name", "key", "average", "labels", "pos_label", "zero_division", "weights", "custom"}
    unknown = sorted(set(entry) - allowed)
    if unknown:
        raise ConfigError("%s has unknown key %r; allowed keys: %s"
                          % (where, unknown[0], ", ".join(sorted(allowed))))

    if "custom" in entry:
        path = entry["custom"]
        if not isinstance(path, str) or not path.endswith(".py"):
            raise ConfigError("%s: custom must name a .py file in the program folder, got %r" % (where, path))
        if custom_loader is None:
            raise ConfigError("%s: custom metrics need the program folder to load %s" % (where, path))
        info = custom_loader(path, where)
        key = entry.get("key") or _canonical(path[:-3].split("/")[-1])
        spec = MetricSpec(name="custom", key=str(key), custom_path=path, custom_info=info)
        check_key(spec.key, where)
        return spec

    if "name" not in entry:
        raise ConfigError("%s needs a 'name' (one of: %s)" % (where, ", ".join(sorted(METRICS))))
    name, average, weights = _split_shorthand(entry["name"])
    if name not in METRICS:
        raise ConfigError("%s: unknown metric %r; known metrics: %s, or {custom: file.py}"
                          % (where, entry["name"], ", ".join(_known_names())))
    info = METRICS[name]
    if "average" in entry:
        average = _canonical(entry["average"])
    if "weights" in entry:
        weights = entry["weights"] if entry["weights"] is None else _canonical(entry["weights"])

    if info.needs_average:
        if average is None:
            raise ConfigError("%s: %s needs an average, one of: %s (e.g. %s_macro)"
                              % (where, name, ", ".join(AVERAGES), name))
        if average not in AVERAGES:
            raise ConfigError("%s: average must be one of: %s, got %r" % (where, ", ".join(AVERAGES), average))
    elif average is not None:
        raise ConfigError("%s: %s takes no average (got %r)" % (where, name, average))
    if weights is not None and name != "cohen_kappa":
        raise ConfigError("%s: only cohen_kappa takes weights" % where)
    if weights is not None and weights not in KAPPA_WEIGHTS:
        raise ConfigError("%s: weights must be one of: %s, got %r" % (where, ", ".join(KAPPA_WEIGHTS), weights))

    labels = entry.get("labels")
    if labels is not None:
        if name not in ("precision", "recall", "f1"):
            raise ConfigError("%s: only precision, recall and f1 take a labels subset" % where)
        if isinstance(labels, (str, int, float)) or not labels:
            raise ConfigError("%s: labels must be a non-empty list of class labels, got %r" % (where, labels))
        labels = tuple(str(x) for x in labels)
        if len(set(labels)) != len(labels):
            raise ConfigError("%s: labels lists a class twice: %s" % (where, ", ".join(labels)))
    pos_label = entry.get("pos_label", default_pos_label if average == "binary" else None)
    if pos_label is not None:
        pos_label = str(pos_label)
    if average == "binary":
        if pos_label is None:
            raise ConfigError("%s: %s_binary needs pos_label (the positive class)" % (where, name))
        if labels is not None:
            raise ConfigError("%s: binary averaging uses pos_label; drop labels" % where)
    zero_division = entry.get("zero_division", default_zero_division)
    if isinstance(zero_division, bool) or zero_division not in (0, 1):
        raise ConfigError("%s: zero_division must be 0 or 1, got %r" % (where, zero_division))

    if label_set is not None:
        check_labels_against(name, average, labels, pos_label, label_set, where)

    key = entry.get("key")
    if key is None:
        key = name if average is None else "%s_%s" % (name, average)
        if weights:
            key = "%s_kappa" % ("qw" if weights == "quadratic" else "lw")
    spec = MetricSpec(name=name, key=str(key), average=average, labels=labels, pos_label=pos_label,
                      zero_division=float(zero_division), weights=weights)
    check_key(spec.key, where)
    return spec


def check_labels_against(name, average, labels, pos_label, label_set, where):
    """Check a metric's ``labels`` and ``pos_label`` against the task's label set."""
    label_set = [str(x) for x in label_set]
    for label in labels or ():
        if label not in label_set:
            raise ConfigError("%s: label %r is not one of the task's labels: %s"
                              % (where, label, ", ".join(label_set)))
    if pos_label is not None and pos_label not in label_set:
        raise ConfigError("%s: pos_label %r is not one of the task's labels: %s"
                          % (where, pos_label, ", ".join(label_set)))
    if average == "binary" and len(label_set) != 2:
        raise ConfigError("%s: %s_binary needs exactly two labels, the task has %d (%s); "
                          "for one class's score use {name: %s, average: macro, labels: [%s]}"
                          % (where, name, len(label_set), ", ".join(label_set), name, pos_label))


def check_key(key, where):
    if not KEY_PATTERN.match(key):
        raise ConfigError("%s: key %r may only contain letters, digits and underscores" % (where, key))
    if len(key) > MAX_KEY_LENGTH:
        raise ConfigError("%s: key %r is %d characters; Codabench allows %d"
                          % (where, key, len(key), MAX_KEY_LENGTH))


def _known_names():
    names = []
    for name, info in sorted(METRICS.items()):
        if info.needs_average:
            names.extend("%s_%s" % (name, avg) for avg in AVERAGES)
        else:
            names.append(name)
    return names + ["qwk"]

"""Metric entries of ``config.yaml``: names, aliases, parameters and score keys.

:func:`parse_metric` turns ``metric: f1_macro`` or ``{name: f1, average: macro,
labels: [favor, against], key: f1_fa}`` into a :class:`~leaderboard_ci.tasks.shared.base.MetricSpec`.
The metric's task module (found by name in :mod:`leaderboard_ci.tasks.registry`)
validates its options; this module adds what every metric shares: the entry's
shape, the leaderboard key and Codabench's limits on it (36 characters;
letters, digits and underscores).  Every mistake is a :class:`ConfigError`
naming the entry and the allowed values, with a suggestion for a misspelt name.
"""

from __future__ import annotations

from ..tasks.protocol import MetricSpec
from ..tasks.registry import canonical_name, find_metric, known_metric_names, suggest_metric
from .errors import ConfigError
from .limits import KEY_PATTERN, MAX_KEY_LENGTH

__all__ = ["parse_metric", "check_key", "MAX_KEY_LENGTH", "ENTRY_KEYS", "OPTION_DOCS"]

#: The keys every metric entry may have, whatever its task, and what they mean (the reference page's table).
ENTRY_KEYS = (
    (
        "name",
        "The metric's name or a shorthand that implies options (f1_macro is {name: f1, average: macro}; "
        "ndcg@10 is {name: ndcg, k: 10}).",
    ),
    (
        "key",
        "The scores.json key and leaderboard column (letters, digits and underscores; with its suffixes such as "
        "_ci_high at most 36 characters); default: the name with its options (f1_macro, ndcg_10).",
    ),
    (
        "custom",
        "Instead of name: a Python file in the program folder that defines the metric ({custom: file.py}); "
        "a custom metric takes key besides.",
    ),
)
#: What each metric option means; a task type's metrics declare the options they take
#: (:class:`~leaderboard_ci.tasks.metrics.Option`), whose own line wins over this one.
OPTION_DOCS = {
    "average": "How per-class (per-label, per-entity-type) values are averaged: macro, micro, weighted, and binary "
    "(one class) or samples (per item) where the task has them.",
    "labels": "The classes a macro average runs over: a subset of the label set (scikit-learn's labels=).",
    "pos_label": "The positive class of a binary average; default: the top-level pos_label.",
    "zero_division": "The value of a 0/0 precision, recall or F1 (0 or 1); default: the top-level zero_division.",
    "weights": "Cohen's kappa weights: linear or quadratic (qwk is quadratic).",
    "multi_class": "ROC-AUC of more than two classes: ovr (one against the rest) or ovo (one against one).",
    "k": "The cut-off: the first k documents of a ranking (ndcg@10), or the k best classes (top-k accuracy).",
    "threshold": "The score above which a binary prediction is positive (default 0.5).",
    "positive_when": "Binary scores: a score is positive when above the threshold (default) or at_or_above it.",
    "interval": "roc_auc only: bootstrap (default) or delong, DeLong's analytic interval in the per-submission page.",
    "level": "fine (default) or coarse: the metric on the coarse labels that the hierarchy maps the fine ones to.",
}


def _unknown_metric(where, text, task):
    hint = suggest_metric(text, task)
    known = ", ".join(known_metric_names(task))
    return ConfigError(
        "%s: unknown metric %r%s; known metrics%s: %s, or {custom: file.py}"
        % (where, text, " (did you mean %r?)" % hint if hint else "", " of task %s" % task if task else "", known)
    )


def parse_metric(
    entry, where, label_set=None, default_pos_label=None, default_zero_division=0.0, custom_loader=None, task=None
):
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
    task : str, optional
        The configured ``task:``; names are then looked up in that task only.

    Raises
    ------
    ConfigError
        Naming the key and the allowed values.
    """
    if isinstance(entry, str):
        entry = {"name": entry}
    if not isinstance(entry, dict):
        raise ConfigError("%s must be a metric name or a mapping, got %r" % (where, entry))

    if "custom" in entry:
        unknown = sorted(set(entry) - {"custom", "key"})
        if unknown:
            raise ConfigError("%s has unknown key %r; a custom metric takes: custom, key" % (where, unknown[0]))
        path = entry["custom"]
        if not isinstance(path, str) or not path.endswith(".py"):
            raise ConfigError("%s: custom must name a .py file in the program folder, got %r" % (where, path))
        if custom_loader is None:
            raise ConfigError("%s: custom metrics need the program folder to load %s" % (where, path))
        info = custom_loader(path, where)
        key = entry.get("key") or canonical_name(path[:-3].split("/")[-1])
        spec = MetricSpec(name="custom", key=str(key), info=info, custom_path=path)
        check_key(spec.key, where)
        return spec

    if "name" not in entry:
        raise ConfigError("%s needs a 'name' (one of: %s)" % (where, ", ".join(known_metric_names(task))))
    found = find_metric(entry["name"], task)
    if found is None:
        raise _unknown_metric(where, entry["name"], task)
    module, name, implied = found
    unknown = sorted(set(entry) - {"name", "key"} - set(module.metrics.options))
    if unknown:
        own = ["name", "key"] + sorted(option.name for option in module.metrics[name].options)
        raise ConfigError("%s has unknown key %r; %s takes: %s" % (where, unknown[0], name, ", ".join(own)))
    options = dict(implied)
    options.update((k, entry[k]) for k in module.metrics.options if k in entry)
    defaults = {"labels": label_set, "pos_label": default_pos_label, "zero_division": default_zero_division}
    try:
        fields, default_key, title = module.metrics.make_spec(name, options, defaults)
    except ValueError as exc:
        raise ConfigError("%s: %s" % (where, exc))
    spec = MetricSpec(
        name=name,
        key=str(entry.get("key") or default_key),
        info=module.metrics[name].info,
        display_title=title,
        **fields,
    )
    check_key(spec.key, where)
    return spec


def check_key(key, where):
    """A leaderboard key must be letters, digits and underscores, at most 36 characters."""
    if not KEY_PATTERN.match(key):
        raise ConfigError("%s: key %r may only contain letters, digits and underscores" % (where, key))
    if len(key) > MAX_KEY_LENGTH:
        raise ConfigError("%s: key %r is %d characters; Codabench allows %d" % (where, key, len(key), MAX_KEY_LENGTH))

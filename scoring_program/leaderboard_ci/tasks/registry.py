"""The task types, and which task each metric name belongs to.

A new task type is registered by adding its subpackage to ``_MODULES``; the
subpackage's ``__init__`` builds its :class:`~leaderboard_ci.tasks.protocol.TaskType`
``TASK``, which is what the registry hands out (see ``docs/adding_a_task_type.md``).
"""

from __future__ import annotations

import difflib
import importlib
from collections import OrderedDict

from .shared.base import canonical_name

__all__ = [
    "TASKS",
    "DEFAULT_TASK",
    "task_type",
    "find_metric",
    "known_metric_names",
    "suggest_metric",
    "canonical_name",
    "pair_test_titles",
    "official_metric_options",
]

#: Task name -> subpackage under leaderboard_ci.tasks, in the order metric names are looked up
#: and messages list them.  A new task type is one more entry.
_MODULES = OrderedDict(
    [
        ("classification", "classification"),
        ("regression", "regression"),
        ("scores", "scores"),
        ("multilabel", "multilabel"),
        ("sequence", "sequence"),
        ("qa", "qa"),
        ("ranking", "ranking"),
        ("soft_labels", "soft_labels"),
        ("preference", "preference"),
        ("generation", "generation"),
        ("detection", "detection"),
        ("forecasting", "forecasting"),
        ("segmentation", "segmentation"),
    ]
)
#: The task of a custom metric file that sets no ``KIND``: the first registered.
DEFAULT_TASK = next(iter(_MODULES))


class _Registry(object):
    """Task name -> the task's :class:`~leaderboard_ci.tasks.protocol.TaskType` instance, imported when first asked for.

    The per-submission program then imports only the task modules it uses (a
    classification competition imports one), which keeps its start-up short.
    Iterating gives the names; ``values()`` imports every module.
    """

    def __init__(self, modules):
        self._names = modules
        self._loaded = {}

    def __getitem__(self, name):
        task = self._loaded.get(name)
        if task is None:
            task = importlib.import_module("%s.%s" % (__package__, self._names[name])).TASK
            self._loaded[name] = task
        return task

    def __contains__(self, name):
        return name in self._names

    def __iter__(self):
        return iter(self._names)

    def __len__(self):
        return len(self._names)

    def values(self):
        return [self[name] for name in self._names]

    def module_name(self, name):
        """The dotted name of task ``name``'s subpackage (its docstring says what the task scores)."""
        return "%s.%s" % (__package__, self._names[name])


TASKS = _Registry(_MODULES)


def task_type(name):
    """The :class:`~leaderboard_ci.tasks.protocol.TaskType` of task ``name`` (ValueError naming the known tasks)."""
    try:
        return TASKS[name]
    except KeyError:
        raise ValueError("unknown task %r; known tasks: %s" % (name, ", ".join(TASKS)))


def pair_test_titles():
    """``{column: title}`` of every task's pair tests (its ``pair_tests`` capability), in registry order.

    The reports show a pairs table's column under this title when the column is
    there; no report names a test.
    """
    titles = OrderedDict()
    for task in TASKS.values():
        if task.pair_tests is not None:
            for column, title in task.pair_tests.titles().items():
                titles.setdefault(column, title)
    return titles


def find_metric(text, task=None):
    """``(task type, metric name, implied options)`` for a metric name or shorthand, or None.

    With ``task`` given, only that task's metrics are searched.
    """
    name = canonical_name(text)
    for task_name in TASKS:
        if task is not None and task_name != task:
            continue
        module = TASKS[task_name]
        found = module.metrics.resolve(name)
        if found is not None:
            return module, found[0].name, found[1]
    return None


def known_metric_names(task=None):
    """Every accepted metric name (one spelling each), task by task."""
    names = []
    for module in TASKS.values():
        if task is None or module.name == task:
            names.extend(module.metrics.known_names())
    return names


def suggest_metric(text, task=None):
    """The closest known metric name or alias to ``text``, or None ("did you mean ...?")."""
    name = canonical_name(text)
    candidates = set(known_metric_names(task))
    for module in TASKS.values():
        if task is None or module.name == task:
            candidates.update(module.metrics.aliases)
            candidates.update(module.metrics.shorthands)
    close = difflib.get_close_matches(name, sorted(candidates), n=1, cutoff=0.75)
    return close[0] if close else None


def official_metric_options(config, gold):
    """The official metric's options in its task type's signature style (:meth:`Metric.signature
    <leaderboard_ci.tasks.metrics.Metric.signature>`), or None."""
    spec = config.official
    if spec.task not in TASKS or spec.name not in TASKS[spec.task].metrics:
        return None
    return TASKS[spec.task].metrics[spec.name].signature(spec, gold)

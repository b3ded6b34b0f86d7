"""The task types, and which task each metric name belongs to.

A new task type is registered by adding its module to :data:`TASKS` (see
:mod:`leaderboard_ci.tasks` for what the module provides).
"""
from __future__ import annotations

import difflib
from collections import OrderedDict

from . import classification, multilabel, qa, ranking, regression, scores, sequence

__all__ = ["TASKS", "task_module", "find_metric", "known_metric_names", "suggest_metric", "canonical_name"]

#: Task name -> task module, in the order messages list them.
TASKS = OrderedDict((module.NAME, module) for module in (classification, regression, scores, multilabel, sequence,
                                                          qa, ranking))


def task_module(name):
    """The module of task ``name`` (ValueError naming the known tasks)."""
    try:
        return TASKS[name]
    except KeyError:
        raise ValueError("unknown task %r; known tasks: %s" % (name, ", ".join(TASKS)))


def canonical_name(text):
    """A metric name as looked up: lower case, ``-`` and spaces as ``_``."""
    return str(text).strip().lower().replace("-", "_").replace(" ", "_")


def find_metric(text, task=None):
    """``(task module, metric name, implied options)`` for a metric name or shorthand, or None.

    With ``task`` given, only that task's metrics are searched.
    """
    name = canonical_name(text)
    for module in TASKS.values():
        if task is not None and module.NAME != task:
            continue
        found = module.resolve_name(name)
        if found is not None:
            return (module,) + tuple(found)
    return None


def known_metric_names(task=None):
    """Every accepted metric name (one spelling each), task by task."""
    names = []
    for module in TASKS.values():
        if task is None or module.NAME == task:
            names.extend(module.known_names())
    return names


def suggest_metric(text, task=None):
    """The closest known metric name or alias to ``text``, or None ("did you mean ...?")."""
    name = canonical_name(text)
    candidates = set(known_metric_names(task))
    for module in TASKS.values():
        if task is None or module.NAME == task:
            candidates.update(getattr(module, "ALIASES", {}))
    close = difflib.get_close_matches(name, sorted(candidates), n=1, cutoff=0.75)
    return close[0] if close else None

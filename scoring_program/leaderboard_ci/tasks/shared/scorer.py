"""One system's accumulators on one gold standard, and scores of every target from their sums.

A :class:`SystemScorer` asks the gold standard's task module (see
:mod:`leaderboard_ci.tasks`) for the per-item statistics its metrics need,
adds one accumulator per custom metric and group, and turns accumulator sums
into scores for every *target*: a configured metric on all items or on one
group.  The same scorer serves the full sample, every block of bootstrap
replicates and the jackknife, in the per-submission program and in the
end-of-phase analysis, which is why both report identical numbers.
"""

from __future__ import annotations

import numpy as np

from ...core.accumulators import WeightedFunction
from ..registry import task_type
from .base import GoldStandard, Target

__all__ = ["GoldStandard", "Target", "SystemScorer"]


class SystemScorer:
    """Accumulators and score formulas for one system's predictions.

    Parameters
    ----------
    metrics : sequence of MetricSpec
        The configured metrics (the first is the official one), all of the gold's task.
    gold : GoldStandard
    predictions : ndarray
        Aligned with the gold items, encoded by the task module (class codes,
        float64 values, ...).
    layout : optional
        A task-specific statistics layout (classification: ``"confusion"`` or
        ``"reduced"``); never changes the scores.  The end-of-phase analysis
        asks for ``"reduced"``.
    custom : mapping, optional
        ``{metric key: score function}`` for the custom metrics among
        ``metrics`` (already loaded: see :mod:`leaderboard_ci.scoring.custom`).

    Attributes
    ----------
    accumulators : list
        The accumulators (see :mod:`leaderboard_ci.core.accumulators`).
    targets : tuple of Target
        Every metric on all items, then on each group, metric by metric.
    statistics : object
        The task module's ``Statistics`` (e.g. class counts for per-class tables).
    """

    def __init__(self, metrics, gold, predictions, layout=None, custom=None):
        self.gold = gold
        self.metrics = tuple(metrics)
        self.task = task_type(gold.kind)
        for spec in self.metrics:
            if spec.task != self.task.name:
                raise ValueError(
                    "metric %r is a %s metric; this gold standard is %s" % (spec.key, spec.task, self.task.name)
                )
        self.group_values = tuple(gold.group_values) if gold.group_values is not None else ()
        self.targets = tuple(Target(spec, group) for spec in self.metrics for group in (None,) + self.group_values)
        self.accumulators = []
        if gold.groups is None:
            group_codes, n_groups = np.zeros(gold.n, dtype=np.intp), 1
        else:
            group_codes, n_groups = np.asarray(gold.groups, dtype=np.intp), len(self.group_values)
        self.statistics = self.task.Statistics(
            self._add, gold, predictions, self.metrics, group_codes, n_groups, layout
        )
        self._custom_slots = {}
        customs = [m for m in self.metrics if m.name == "custom"]
        if customs:
            custom = dict(custom or {})
            y_true = self.task.decode(gold, gold.values)
            y_pred = self.task.decode(gold, predictions)
            for spec in customs:
                fn = custom.get(spec.key)
                if fn is None:
                    raise ValueError(
                        "custom metric %r has no score function; pass custom={%r: fn}" % (spec.key, spec.key)
                    )
                self._custom_slots[(spec.key, 0)] = self._add(WeightedFunction(_bind(fn, y_true, y_pred), gold.n))
                for j in range(len(self.group_values)):
                    items = np.flatnonzero(group_codes == j)
                    self._custom_slots[(spec.key, j + 1)] = self._add(
                        WeightedFunction(_bind(fn, y_true[items], y_pred[items]), gold.n, items)
                    )

    def _add(self, accumulator):
        """Register an accumulator; returns its position in the statistics lists."""
        self.accumulators.append(accumulator)
        return len(self.accumulators) - 1

    def batch_key(self):
        """A key equal for scorers whose :meth:`scores` is the same function of the statistics, or None.

        Scorers of one gold standard and one metric list whose task statistics say they hold
        nothing of the predictions (``Statistics.batch_key``) score every system's rows in one
        call (:class:`~leaderboard_ci.core.systems.PairedPlan`): each row's score is computed
        from that row alone, with the same operations, so the numbers are the same bytes.
        Custom metrics read their own accumulators: no key.
        """
        own = getattr(self.statistics, "batch_key", None)
        key = None if own is None or self._custom_slots else own()
        if key is None:
            return None
        shapes = tuple((type(a).__name__, a.n_features) for a in self.accumulators)
        return (id(self.gold), tuple(id(m) for m in self.metrics), self.group_values, shapes, key)

    def scores(self, stats):
        """Scores of every target, shape ``(N, len(targets))``.

        ``stats`` is a list with one ``(N, n_features)`` array per
        accumulator (full sample: N = 1; replicates; or jackknife).
        """
        n_rows = np.asarray(stats[0]).shape[0]
        out = np.empty((n_rows, len(self.targets)))
        prepared = self.statistics.prepare(stats)
        col = 0
        for spec in self.metrics:
            for j in range(1 + len(self.group_values)):
                if spec.name == "custom":
                    out[:, col] = np.asarray(stats[self._custom_slots[(spec.key, j)]], dtype=np.float64)[:, 0]
                else:
                    out[:, col] = self.statistics.score(prepared, spec, j)
                col += 1
        return out


def _bind(fn, y_true, y_pred):
    def call(weights):
        return fn(y_true, y_pred, weights)

    return call

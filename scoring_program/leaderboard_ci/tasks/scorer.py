"""From one system's predictions to accumulators, and from statistics to scores.

A :class:`SystemScorer` knows, for one system on one gold standard, which
sufficient statistics its metrics need (the accumulators) and how to turn
those statistics into scores for every *target*: a configured metric on all
items or on one group.  The same scorer serves the full sample, every block
of bootstrap replicates and the jackknife, in the per-submission program and
in the end-of-phase analysis, which is why both report identical numbers.

Statistic layouts
-----------------
Classification, K classes, G groups (G = 1 without groups):
    * ``confusion``: one :class:`CodeCounts` of ``g*K*K + gold*K + predicted``
      (used when K <= 16, or when weighted kappa needs the full matrix);
    * ``reduced``: :class:`CodeCounts` of ``g*2K + K*correct + predicted``
      and of ``g*K + gold`` (for many classes: 3K numbers instead of K*K).
Regression: one :class:`ExactSums` with a column per (needed sum, group or
all), plus :class:`CodeCounts` of the group codes when there are groups, a
:class:`RankSums` per group for Spearman, and a :class:`WeightedFunction`
per group for a custom metric.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

import numpy as np

from ..core.accumulators import CodeCounts, ExactSums, RankSums, WeightedFunction
from .metrics import REGRESSION_NEEDS, ClassStats, RegressionSums, classification_score, regression_score

__all__ = ["GoldStandard", "Target", "SystemScorer", "label_positions"]

_FULL_CONFUSION_MAX_CLASSES = 16
_SUM_ORDER = ("abs_err", "sq_err", "y", "yy", "p", "pp", "yp")


@dataclass(frozen=True)
class GoldStandard:
    """The reference data, parsed and encoded.

    Attributes
    ----------
    values : ndarray
        Class codes (indices into ``labels``) or float64 targets.
    labels : tuple of str or None
        The task's label set, in order (classification only).
    ids : tuple of str or None
        Item ids, when the gold file has them.
    groups : ndarray of int or None
        Group codes (indices into ``group_values``).
    group_values : tuple of str or None
    source : str
        The gold file's name, for messages.
    sha256 : str
        Hex digest of the gold file's bytes (for the signature).
    """

    values: np.ndarray
    labels: Optional[Tuple[str, ...]] = None
    ids: Optional[Tuple[str, ...]] = None
    groups: Optional[np.ndarray] = None
    group_values: Optional[Tuple[str, ...]] = None
    source: str = "gold"
    sha256: str = ""

    @property
    def n(self):
        return int(self.values.shape[0])

    @property
    def kind(self):
        return "classification" if self.labels is not None else "regression"


@dataclass(frozen=True)
class Target:
    """A metric on all items (``group`` None) or on one group."""

    metric: object  # MetricSpec
    group: Optional[str] = None


def label_positions(spec, labels):
    """Positions of the classes a metric averages over (None = all)."""
    if spec.average == "binary":
        return [labels.index(spec.pos_label)]
    if spec.labels is not None:
        return [labels.index(label) for label in spec.labels]
    return None


class SystemScorer:
    """Accumulators and score formulas for one system's predictions.

    Parameters
    ----------
    metrics : sequence of MetricSpec
        The configured metrics (the first is the official one).
    gold : GoldStandard
    predictions : ndarray
        Aligned with the gold items: class codes or float64 values.
    layout : {None, "confusion", "reduced"}
        Classification statistics layout.  None picks ``confusion`` for up to
        16 classes (cheapest for one system) and ``reduced`` beyond.  The scores
        are identical either way (the counts are exact integers); the
        end-of-phase analysis asks for ``reduced`` (3K numbers per system).
    custom : mapping, optional
        ``{metric key: score function}`` for the custom metrics among
        ``metrics`` (already loaded: see :mod:`leaderboard_ci.scoring.custom`).
    """

    def __init__(self, metrics, gold, predictions, layout=None, custom=None):
        self.gold = gold
        self.metrics = tuple(metrics)
        self._custom = dict(custom or {})
        self.group_values = tuple(gold.group_values) if gold.group_values is not None else ()
        self.targets = tuple(Target(spec, group) for spec in self.metrics
                             for group in (None,) + self.group_values)
        predictions = np.asarray(predictions)
        self.accumulators = []
        self._slots = {}
        if layout not in (None, "confusion", "reduced"):
            raise ValueError("layout must be None, 'confusion' or 'reduced', got %r" % (layout,))
        self._layout_request = layout
        if gold.kind == "classification":
            self._build_classification(predictions)
        else:
            self._build_regression(predictions)
        self._build_custom(predictions)

    # -- construction ------------------------------------------------------
    def _add(self, name, accumulator):
        self._slots[name] = len(self.accumulators)
        self.accumulators.append(accumulator)

    def _group_codes(self):
        if self.gold.groups is None:
            return np.zeros(self.gold.n, dtype=np.intp), 1
        return np.asarray(self.gold.groups, dtype=np.intp), len(self.group_values)

    def _build_classification(self, pred):
        gold = np.asarray(self.gold.values, dtype=np.intp)
        pred = np.asarray(pred, dtype=np.intp)
        k = len(self.gold.labels)
        g, n_groups = self._group_codes()
        self.n_classes = k
        needs_full = any(m.name == "cohen_kappa" and m.weights for m in self.metrics)
        if needs_full:
            self.layout = "confusion"
        elif self._layout_request is not None:
            self.layout = self._layout_request
        else:
            self.layout = "confusion" if k <= _FULL_CONFUSION_MAX_CLASSES else "reduced"
        if self.layout == "confusion":
            self._add("confusion", CodeCounts(g * k * k + gold * k + pred, n_groups * k * k))
        else:
            correct = (gold == pred).astype(np.intp)
            self._add("predicted", CodeCounts(g * 2 * k + k * correct + pred, n_groups * 2 * k))
            self._add("gold", CodeCounts(g * k + gold, n_groups * k))
        self._label_index = {m.key: label_positions(m, list(self.gold.labels)) for m in self.metrics}

    def _build_regression(self, pred):
        y = np.asarray(self.gold.values, dtype=np.float64)
        p = np.asarray(pred, dtype=np.float64)
        # One centring constant for gold and predictions, shared by every system
        # (the formulas are shift invariant): swapping two systems' items, as
        # the permutation test does, then stays a linear operation on the sums.
        centre = y.mean()
        yc = y - centre
        pc = p - centre
        per_item = {"abs_err": np.abs(y - p), "sq_err": (y - p) ** 2, "y": yc, "yy": yc * yc,
                    "p": pc, "pp": pc * pc, "yp": yc * pc}
        needed = set()
        for spec in self.metrics:
            needed.update(REGRESSION_NEEDS.get(spec.name, ()))
        self._sum_names = [name for name in _SUM_ORDER if name in needed]
        g, n_groups = self._group_codes()
        masks = [None] + ([g == j for j in range(n_groups)] if self.gold.groups is not None else [])
        columns = []
        self._sum_column = {}
        for name in self._sum_names:
            for j, mask in enumerate(masks):
                self._sum_column[(name, j)] = len(columns)
                columns.append(per_item[name] if mask is None else np.where(mask, per_item[name], 0.0))
        if columns:
            self._add("sums", ExactSums(np.stack(columns, axis=1)))
        if self.gold.groups is not None:
            self._add("group_counts", CodeCounts(g, n_groups))
        if any(m.name == "spearman" for m in self.metrics):
            self._add("ranks", RankSums(y, p))
            for j in range(len(self.group_values)):
                items = np.flatnonzero(g == j)
                self._add(("ranks", j), RankSums(y[items], p[items], n_total=self.gold.n, items=items))

    def _build_custom(self, pred):
        customs = [m for m in self.metrics if m.name == "custom"]
        if not customs:
            return
        if self.gold.kind == "classification":
            labels = np.asarray(self.gold.labels, dtype=object)
            y_true = labels[np.asarray(self.gold.values, dtype=np.intp)]
            y_pred = labels[np.asarray(pred, dtype=np.intp)]
        else:
            y_true = np.asarray(self.gold.values, dtype=np.float64)
            y_pred = np.asarray(pred, dtype=np.float64)
        g, _ = self._group_codes()
        for spec in customs:
            fn = self._custom.get(spec.key)
            if fn is None:
                raise ValueError("custom metric %r has no score function; pass custom={%r: fn}" % (spec.key, spec.key))
            self._add(("custom", spec.key, None), WeightedFunction(_bind(fn, y_true, y_pred), self.gold.n))
            for j in range(len(self.group_values)):
                items = np.flatnonzero(g == j)
                self._add(("custom", spec.key, j),
                          WeightedFunction(_bind(fn, y_true[items], y_pred[items]), self.gold.n, items))

    # -- statistics to scores ---------------------------------------------
    def class_stats(self, stats):
        """ClassStats of all items and of each group, from accumulator outputs.

        Returns ``(overall, per_group)`` with arrays of shape ``(N, K)`` and
        ``(N, G, K)``.
        """
        k = self.n_classes
        if self.layout == "confusion":
            c = np.asarray(stats[self._slots["confusion"]], dtype=np.float64)
            c = c.reshape(c.shape[0], -1, k, k)
            return ClassStats.from_confusion(c.sum(axis=1)), ClassStats.from_confusion(c)
        a = np.asarray(stats[self._slots["predicted"]], dtype=np.float64)
        a = a.reshape(a.shape[0], -1, 2, k)
        t = np.asarray(stats[self._slots["gold"]], dtype=np.float64)
        t = t.reshape(t.shape[0], -1, k)
        tp = a[:, :, 1, :]
        pred = a[:, :, 0, :] + tp
        return ClassStats(tp.sum(axis=1), pred.sum(axis=1), t.sum(axis=1)), ClassStats(tp, pred, t)

    def _regression_sums(self, stats, j):
        """RegressionSums of all items (j = 0) or of group j - 1."""
        rows = None
        sums = {}
        if "sums" in self._slots:
            s = np.asarray(stats[self._slots["sums"]], dtype=np.float64)
            rows = s.shape[0]
            for name in self._sum_names:
                sums[name] = s[:, self._sum_column[(name, j)]]
        if j == 0:
            if rows is None:
                rows = np.asarray(stats[0]).shape[0]
            n = np.full(rows, float(self.gold.n))
        else:
            n = np.asarray(stats[self._slots["group_counts"]], dtype=np.float64)[:, j - 1]
        return RegressionSums(n, **sums)

    def _rank_sums(self, stats, j):
        slot = self._slots["ranks"] if j == 0 else self._slots[("ranks", j - 1)]
        r = np.asarray(stats[slot], dtype=np.float64)
        return RegressionSums(r[:, 0], y=r[:, 1], yy=r[:, 2], p=r[:, 3], pp=r[:, 4], yp=r[:, 5])

    def scores(self, stats):
        """Scores of every target, shape ``(N, len(targets))``.

        ``stats`` is a list with one ``(N, n_features)`` array per
        accumulator (full sample: N = 1; replicates; or jackknife).
        """
        n_rows = np.asarray(stats[0]).shape[0]
        out = np.empty((n_rows, len(self.targets)))
        groups = (None,) + self.group_values
        if self.gold.kind == "classification":
            overall, per_group = self.class_stats(stats)
        col = 0
        for spec in self.metrics:
            for j, group in enumerate(groups):
                if spec.name == "custom":
                    slot = self._slots[("custom", spec.key, None if j == 0 else j - 1)]
                    out[:, col] = np.asarray(stats[slot], dtype=np.float64)[:, 0]
                elif self.gold.kind == "classification":
                    cs = overall if j == 0 else ClassStats(per_group.tp[:, j - 1], per_group.pred[:, j - 1],
                                                           per_group.true[:, j - 1],
                                                           None if per_group.confusion is None
                                                           else per_group.confusion[:, j - 1])
                    out[:, col] = classification_score(spec, cs, self._label_index[spec.key])
                elif spec.name == "spearman":
                    out[:, col] = regression_score(spec, self._rank_sums(stats, j))
                else:
                    out[:, col] = regression_score(spec, self._regression_sums(stats, j))
                col += 1
        return out


def _bind(fn, y_true, y_pred):
    def call(weights):
        return fn(y_true, y_pred, weights)
    return call

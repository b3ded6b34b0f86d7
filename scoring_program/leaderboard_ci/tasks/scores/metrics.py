"""Scored predictions: a score or one probability per class for each item, gold class labels.

The task type's metrics and statistics:

* **files**: the gold standard is ``id,label`` (classes, read like
  classification); a submission is a CSV/TSV file with a header, read by
  :func:`read_predictions`: binary ``id,score`` (any real score for the
  positive class; a probability for log loss and Brier), or one column per
  class named by the class labels (``id,cat,dog,bird``), in any order;
* **per-item statistics**: tie-group counts of the sorted scores for ROC-AUC
  and average precision (:class:`~.score_metrics.BinaryCurve`: weighted rank
  statistics from the resample counts, O(n) per replicate), exact sums of
  the per-item log loss and Brier terms, hit counts for top-k accuracy, and
  the class counts of :mod:`.classification` for the label metrics of the
  thresholded (binary) or arg-max (multi-class) predictions;
* **metrics**: ``roc_auc`` (binary; multi-class ``multi_class: ovr`` with
  ``average: macro`` or ``weighted``, ``ovo`` macro), ``average_precision``
  (binary; multi-class macro or weighted one-vs-rest), ``log_loss``,
  ``brier``, ``top_k_accuracy`` (``k``), and every classification metric
  (``accuracy``, ``f1_macro``, ...) of the predicted labels (binary:
  positive when the score is above ``threshold``, 0.5 by default, or at
  least it with ``positive_when: at_or_above``;
  multi-class: the arg-max, the first class on ties).  Each equals
  scikit-learn's with ``sample_weight`` = the resample counts
  (``tests/test_scores.py``).  One :class:`~leaderboard_ci.tasks.metrics.Metric`
  each (:data:`METRICS`), whose formula reads the statistics' view of a (re)sample.

Undefined values: a replicate in which a class needed by ROC-AUC or average
precision is absent gives NaN (scikit-learn raises), and the interval uses
the other replicates; with the usual sizes this does not happen.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from ...core.accumulators import CodeCounts, ExactSums
from ...core.intervals import Interval
from ..classification import files as classification_files
from ..classification import metrics as classification
from ..metrics import Metric, Metrics, Option
from ..protocol import PairTests
from ..settings import TaskSettings, setting
from ..shared.base import SparseUnits, item_mask
from ..shared.sparse import class_code_units, is_macro
from .curves import BinaryCurve, ap_from_stats, auc_from_stats, delong_auc, delong_pvalues
from .files import DEFAULT_SUM_TOLERANCE, PROBABILITY_METRICS
from .files import read_predictions as _read_score_file

__all__ = [
    "NAME",
    "METRICS",
    "ScoresSettings",
    "encode_values",
    "decode",
    "Statistics",
    "PAIR_TESTS",
    "pair_tests",
    "log_loss_terms",
    "brier_terms",
    "sparse_units",
    "item_contributions",
    "analytic_interval",
    "FEW_RANKED",
]

NAME = "scores"

#: ``positive_when``: a binary score is positive when it is above the threshold (default) or at least it.
POSITIVE_WHEN = ("above", "at_or_above")
_PROBABILITY_METRICS = PROBABILITY_METRICS


def _tolerance(value):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 1:
        raise ValueError("sum_tolerance must be a number from 0 to 1 (e.g. 1e-6), got %r" % (value,))
    return float(value)


@dataclass(frozen=True)
class ScoresSettings(TaskSettings):
    """The top-level key of a scored-predictions task: ``sum_tolerance``."""

    sum_tolerance: float = setting(
        DEFAULT_SUM_TOLERANCE, "How far a row of class probabilities may be from 1 (log loss only).", parse=_tolerance
    )


# ---------------------------------------------------------------------------
# The metrics: one object each
# ---------------------------------------------------------------------------
def _no(name, option, value):
    if value is not None:
        raise ValueError("%s takes no %s (got %r)" % (name, option, value))


def _make_spec(metric, options, defaults):
    """``(fields, default key, title)`` of a metric of this task (ValueError saying what is wrong)."""
    name = metric.name
    options = dict(options)
    interval = options.pop("interval", None)
    if interval is not None:
        interval = str(interval).strip().lower()
        if name != "roc_auc" or interval not in ("bootstrap", "delong"):
            raise ValueError(
                "interval: delong is an option of roc_auc only (interval: bootstrap or delong), got "
                "%s for %s" % (interval, name)
            )
    threshold = options.pop("threshold", None)
    positive_when = options.pop("positive_when", None)
    multi_class = options.pop("multi_class", None)
    k = options.pop("k", None)
    if isinstance(metric, _LabelMetric):
        _no(name, "multi_class", multi_class)
        _no(name, "k", k)
        if threshold is not None and (
            isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not math.isfinite(threshold)
        ):
            raise ValueError("threshold must be a number, got %r" % (threshold,))
        if positive_when is not None and str(positive_when).strip().lower() not in POSITIVE_WHEN:
            raise ValueError("positive_when must be above or at_or_above, got %r" % (positive_when,))
        fields, key, title = classification.ClassificationMetric.make_spec(metric, options, defaults)
        threshold = 0.5 if threshold is None else float(threshold)
        fields["options"] = (("threshold", threshold),)
        if positive_when is not None and str(positive_when).strip().lower() == "at_or_above":
            fields["options"] = (("positive_when", "at_or_above"), ("threshold", threshold))
        return fields, key, title
    _no(name, "threshold", threshold)
    _no(name, "positive_when", positive_when)
    for option in ("labels", "weights", "zero_division"):
        _no(name, option, options.get(option))
    average = options.get("average")
    if average is not None:
        average = str(average).strip().lower()
    pos_label = options.get("pos_label", defaults.get("pos_label"))
    pos_label = None if pos_label is None else str(pos_label)
    title = metric.title
    extra = []
    if name == "roc_auc":
        _no(name, "k", k)
        named = multi_class is not None  # roc_auc_ovr or multi_class: ovr keep their name in the key
        multi_class = "ovr" if multi_class is None else str(multi_class).strip().lower()
        if multi_class not in ("ovr", "ovo"):
            raise ValueError("multi_class must be ovr or ovo, got %r" % (multi_class,))
        average = average or "macro"
        allowed = ("macro", "weighted") if multi_class == "ovr" else ("macro",)
        if average not in allowed:
            raise ValueError(
                "roc_auc with multi_class %s takes average %s, got %r" % (multi_class, " or ".join(allowed), average)
            )
        extra = [("multi_class", multi_class)] + ([("interval", interval)] if interval == "delong" else [])
        key = (
            "roc_auc"
            if (multi_class, average) == ("ovr", "macro") and not named
            else "roc_auc_%s%s" % (multi_class, "_weighted" if average == "weighted" else "")
        )
    elif name == "average_precision":
        _no(name, "k", k)
        _no(name, "multi_class", multi_class)
        average = average or "macro"
        if average not in ("macro", "weighted"):
            raise ValueError("average_precision takes average macro or weighted, got %r" % (average,))
        key = "average_precision" if average == "macro" else "average_precision_weighted"
    elif name == "top_k_accuracy":
        _no(name, "multi_class", multi_class)
        _no(name, "average", average)
        if k is None:
            raise ValueError("top_k_accuracy needs k (e.g. top_3_accuracy, or k: 3)")
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ValueError("k must be a whole number of at least 1, got %r" % (k,))
        extra = [("k", int(k))]
        key = "top_%d_accuracy" % k
        title = "top-%d accuracy" % k
    else:
        _no(name, "k", k)
        _no(name, "multi_class", multi_class)
        _no(name, "average", average)
        key = name
    if defaults.get("labels") is not None and pos_label is not None:
        classification.check_labels(name, None, None, pos_label, defaults["labels"])
    fields = dict(average=average, pos_label=pos_label, options=tuple(sorted(extra)))
    return fields, key, title


def _check_gold(spec, labels):
    """Why the gold's classes do not allow ``spec``, or None."""
    k = len(labels or ())
    if k < 2:
        return "the gold standard has %d class; scored predictions need at least two" % k
    if spec.name == "top_k_accuracy" and k == 2:
        return "top_k_accuracy needs more than two classes (binary tasks: use accuracy)"
    if spec.name == "top_k_accuracy" and spec.option("k") >= k:
        return "k = %d is not below the number of classes (%d)" % (spec.option("k"), k)
    if spec.name == "roc_auc" and k > 2 and spec.option("interval") == "delong":
        return "interval: delong is for binary ROC-AUC; this task has %d classes" % k
    if spec.name == "roc_auc" and k == 2 and spec.option("multi_class") == "ovo":
        return "roc_auc_ovo needs more than two classes; use roc_auc"
    if spec.name in classification.METRICS:
        return classification.METRICS[spec.name].check_gold(spec, labels)
    if spec.pos_label is not None and spec.pos_label not in labels:
        return "pos_label %r is not one of the task's labels" % spec.pos_label
    return None


#: Every option a metric of this task may be given (each metric's ``make_spec`` says which apply to it).
OPTIONS = classification.OPTIONS + (
    Option("multi_class", "ROC-AUC of more than two classes: ovr (one against the rest) or ovo (one against one)."),
    Option("k", "The cut-off: the first k documents of a ranking (ndcg@10), or the k best classes (top-k accuracy)."),
    Option("threshold", "The score above which a binary prediction is positive (default 0.5)."),
    Option("positive_when", "Binary scores: a score is positive when above the threshold (default) or at_or_above it."),
    Option(
        "interval",
        "roc_auc only: bootstrap (default) or delong, DeLong's analytic interval in the per-submission page.",
    ),
)


def _options(*names):
    return tuple(option for option in OPTIONS if option.name in names)


@dataclass(frozen=True, eq=False, repr=False)
class ScoresMetric(Metric):
    """A metric of scores: ROC-AUC, average precision, log loss, Brier score, top-k accuracy."""

    def parse_name(self, name):
        if self.name == "top_k_accuracy":
            match = re.match(r"^top_([0-9]+)_accuracy$", name)
            if match:
                return {"k": int(match.group(1))}
        return None

    def make_spec(self, options, defaults):
        return _make_spec(self, options, defaults)

    def check_gold(self, spec, labels):
        return _check_gold(spec, labels)


@dataclass(frozen=True, eq=False, repr=False)
class _LabelMetric(classification.ClassificationMetric):
    """A classification metric of the labels the scores give: thresholded (binary) or the arg-max."""

    def make_spec(self, options, defaults):
        return _make_spec(self, options, defaults)

    def check_gold(self, spec, labels):
        return _check_gold(spec, labels)


def _label_score(view, spec):
    return view.label_score(spec)


def _mean_term(view, spec):
    return view.mean_term(spec.name)


def _top_k(view, spec):
    return view.top_k(spec)


def _ranked(of_curve):
    def formula(view, spec):
        return view.ranked(spec, of_curve)

    return formula


def _shorthands(pairs):
    return tuple((spelling, tuple(sorted(options.items()))) for spelling, options in pairs)


METRICS = Metrics(
    [
        ScoresMetric(
            NAME,
            "roc_auc",
            "ROC-AUC",
            "higher",
            1.0,
            aliases=("auc", "roc_auc_score", "rocauc", "auroc"),
            shorthands=_shorthands(
                [
                    ("roc_auc_ovr", {"multi_class": "ovr", "average": "macro"}),
                    ("roc_auc_ovr_weighted", {"multi_class": "ovr", "average": "weighted"}),
                    ("roc_auc_ovo", {"multi_class": "ovo", "average": "macro"}),
                ]
            ),
            spellings=("roc_auc", "roc_auc_ovr", "roc_auc_ovr_weighted", "roc_auc_ovo"),
            options=_options("average", "pos_label", "multi_class", "interval"),
            needs=("curves",),
            formula=_ranked(auc_from_stats),
        ),
        ScoresMetric(
            NAME,
            "average_precision",
            "average precision",
            "higher",
            1.0,
            aliases=("ap", "average_precision_score"),
            shorthands=_shorthands(
                [
                    ("average_precision_macro", {"average": "macro"}),
                    ("average_precision_weighted", {"average": "weighted"}),
                ]
            ),
            spellings=("average_precision", "average_precision_macro"),
            options=_options("average", "pos_label"),
            needs=("curves", "precision_curve"),
            formula=_ranked(ap_from_stats),
        ),
        ScoresMetric(
            NAME,
            "log_loss",
            "log loss",
            "lower",
            0.0,
            ppi=False,
            aliases=("logloss", "cross_entropy"),
            options=_options("pos_label"),
            needs=("log_loss",),
            formula=_mean_term,
        ),
        ScoresMetric(
            NAME,
            "brier",
            "Brier score",
            "lower",
            0.0,
            aliases=("brier_score", "brier_score_loss"),
            options=_options("pos_label"),
            needs=("brier",),
            formula=_mean_term,
        ),
        ScoresMetric(
            NAME,
            "top_k_accuracy",
            "top-k accuracy",
            "higher",
            1.0,
            aliases=("top_k_accuracy_score",),
            options=_options("k"),
            needs=("hits",),
            formula=_top_k,
        ),
    ]
    + [
        # every classification metric, of the thresholded (binary) or arg-max (multi-class) labels
        _LabelMetric(
            NAME,
            m.name,
            m.title,
            m.direction,
            m.best,
            m.ppi,
            aliases=m.aliases,
            shorthands=m.shorthands,
            spellings=m.spellings,
            options=m.options + _options("threshold", "positive_when"),
            needs=("labels",),
            formula=_label_score,
            averages=m.averages,
        )
        for m in classification.METRICS.values()
    ],
    options=OPTIONS,
)


# ---------------------------------------------------------------------------
# Values
# ---------------------------------------------------------------------------
def encode_values(gold_values, systems, labels, settings):
    """In-memory encoding for the analysis API: ``(codes, labels, {name: (n, C) float64 scores})``.

    A system's scores are an array ``(n,)`` (binary: the positive class's
    score) or ``(n, K)`` (a column per class in label order).
    """
    codes, labels, _ = classification_files.encode_values(gold_values, {}, labels)
    coded = {}
    for name, scores in systems.items():
        arr = np.asarray(scores, dtype=np.float64)
        if arr.ndim == 1:
            arr = arr[:, None]
        if (
            arr.ndim != 2
            or arr.shape[0] != codes.shape[0]
            or arr.shape[1] not in (1, len(labels))
            or (arr.shape[1] == 1 and len(labels) != 2)
        ):
            raise ValueError(
                "system %r needs %d rows of scores with one column (binary) or %d (one per class), "
                "got shape %s" % (name, codes.shape[0], len(labels), np.shape(scores))
            )
        if not np.all(np.isfinite(arr)):
            raise ValueError("system %r has scores that are not finite numbers" % (name,))
        coded[name] = arr
    return codes, labels, coded


def decode(gold, values):
    """Custom metrics receive the gold labels' codes and the ``(n, C)`` scores."""
    return np.asarray(values)


# ---------------------------------------------------------------------------
# Per-item statistics and scores
# ---------------------------------------------------------------------------
def read_predictions(submission, gold, context):
    """A submission's scores (:func:`.files.read_predictions`), a binary task's in one layout: a file with one
    column per class keeps the positive class's column, ``(n, 1)`` as an ``id,score`` file gives it.

    Every metric of a binary task reads only that column (``top_k_accuracy`` needs more than two classes),
    so the scores are the same either way; the end of phase's item tests compare submissions item by item
    and need them alike (a phase mixing the two layouts stopped with "all input arrays must have the
    same shape").
    """
    matrix = _read_score_file(submission, gold, context)
    if len(gold.labels) == 2 and matrix.shape[1] == 2:
        pos = _positive_code(context.metrics, gold.labels)
        matrix = np.ascontiguousarray(matrix[:, pos : pos + 1])
    return matrix


def _positive_code(metrics, labels):
    for spec in metrics:
        if spec.pos_label is not None and spec.name not in classification.METRICS:
            return list(labels).index(spec.pos_label)
    return len(labels) - 1


def _score_column(p, pos):
    """The positive class's scores of a binary problem: the single column, or column ``pos``."""
    return p[:, 0] if p.shape[1] == 1 else p[:, pos]


def log_loss_terms(y, p, pos):
    """Per-item log loss ``-log p(true class)``, clipped to machine epsilon as scikit-learn does.

    ``y`` class codes ``(n,)``; ``p`` ``(n, 1)`` (binary: the positive class ``pos``'s
    probability) or ``(n, k)``.
    """
    eps = np.finfo(np.float64).eps
    if p.shape[1] == 1 or p.shape[1] == 2:
        s = _score_column(p, pos)
        prob_true = np.where(y == pos, np.clip(s, eps, 1 - eps), np.clip(1.0 - s, eps, 1 - eps))
    else:
        prob_true = np.clip(p[np.arange(y.shape[0]), y], eps, 1 - eps)
    # math.log (the C library's), not np.log: numpy's SIMD logarithm differs in the last
    # bit between numpy versions, and scores.json must have the same bytes in every image.
    return -np.array([math.log(x) for x in prob_true.tolist()], dtype=np.float64)


def brier_terms(y, p, pos):
    """Per-item Brier score (binary: of the positive class; else summed over the classes)."""
    if p.shape[1] == 1 or p.shape[1] == 2:
        return ((y == pos) - _score_column(p, pos)) ** 2
    onehot = np.zeros_like(p)
    onehot[np.arange(y.shape[0]), y] = 1.0
    return ((onehot - p) ** 2).sum(axis=1)


class Statistics:
    """Accumulators of one system's scores, and the metrics from their sums.

    * ROC-AUC and average precision: one :class:`BinaryCurve` per binary
      problem (the positive class; each class against the rest; each ordered
      pair of classes for one-vs-one) and per group;
    * log loss and Brier score: :class:`ExactSums` of the per-item terms;
    * top-k accuracy: :class:`CodeCounts` of ``group * 2 + hit``;
    * label metrics: :class:`classification.Statistics` of the predicted
      labels, one per distinct threshold.
    """

    def __init__(self, add, gold, predictions, metrics, group_codes, n_groups, layout=None):
        y = np.asarray(gold.values, dtype=np.intp)
        p = np.asarray(predictions, dtype=np.float64)
        if p.ndim == 1:
            p = p[:, None]
        labels = list(gold.labels)
        k = len(labels)
        if p.ndim != 2 or p.shape[0] != y.shape[0] or p.shape[1] not in (1, k) or (p.shape[1] == 1 and k != 2):
            raise ValueError(
                "predictions must have shape (%d, %d)%s, got %s"
                % (y.shape[0], k, " or (%d, 1)" % y.shape[0] if k == 2 else "", p.shape)
            )
        if not np.all(np.isfinite(p)):
            raise ValueError("predictions must be finite numbers")
        self.n = n = y.shape[0]
        self.k = k
        self.binary = k == 2
        pos = _positive_code(metrics, labels)
        self.pos = pos
        self._score = p[:, 0] if p.shape[1] == 1 else p[:, pos] if self.binary else None
        has_groups = gold.groups is not None
        g = np.asarray(group_codes, dtype=np.intp)
        self._n_groups = n_groups
        self._group_values = tuple(gold.group_values or ())
        self._subsets = [None] + ([np.flatnonzero(g == j) for j in range(n_groups)] if has_groups else [])
        self._group_counts = add(CodeCounts(g, n_groups)) if has_groups else None
        self._curves = {}
        self._add = add
        names = set(m.name for m in metrics)
        self._y, self._p = y, p
        if names & set(_PROBABILITY_METRICS):
            if np.any((p < 0) | (p > 1)):
                raise ValueError("log loss and the Brier score need probabilities between 0 and 1")
            terms = []
            if "log_loss" in names:
                terms.append(self._log_loss_terms())
            if "brier" in names:
                terms.append(self._brier_terms())
            self._term_names = [m for m in _PROBABILITY_METRICS if m in names]
            columns = [
                t if sub is None else np.where(np.isin(np.arange(n), sub), t, 0.0)
                for t in terms
                for sub in self._subsets
            ]
            self._terms = add(ExactSums(np.stack(columns, axis=1)))
        self._hits = {}
        # average precision first: its curves also serve ROC-AUC
        for spec in sorted(metrics, key=lambda m: m.name != "average_precision"):
            if spec.name == "top_k_accuracy":
                kk = spec.option("k")
                if kk not in self._hits:
                    self._hits[kk] = add(CodeCounts(2 * g + self._top_k_hits(kk), 2 * n_groups))
            elif spec.name in ("roc_auc", "average_precision"):
                for j in range(len(self._subsets)):
                    for problem in self._problems(spec):
                        self._curve(problem, j, with_ap=spec.name == "average_precision")
        label_specs = [m for m in metrics if m.name in classification.METRICS]
        self._labels = {}
        for cut in sorted(set(_cut(m) for m in label_specs)):
            specs = [m for m in label_specs if _cut(m) == cut]
            self._labels[cut] = classification.Statistics(
                add, gold, self._predicted(*cut), specs, group_codes, n_groups, layout
            )

    # -- per-item quantities --------------------------------------------------
    def _log_loss_terms(self):
        return log_loss_terms(self._y, self._p, self.pos)

    def _brier_terms(self):
        return brier_terms(self._y, self._p, self.pos)

    def _top_k_hits(self, k):
        # scikit-learn: a stable ascending argsort, reversed (among ties the higher class index ranks first)
        ranked = np.argsort(self._p, axis=1, kind="mergesort")[:, ::-1][:, :k]
        return (ranked == self._y[:, None]).any(axis=1).astype(np.intp)

    def _predicted(self, threshold, inclusive=False):
        if self.binary:
            positive = self._score >= threshold if inclusive else self._score > threshold
            return np.where(positive, self.pos, 1 - self.pos).astype(np.intp)
        return np.argmax(self._p, axis=1).astype(np.intp)

    # -- binary ranking problems ----------------------------------------------
    def _problems(self, spec):
        """The binary problems of a rank metric: ``("pos",)``, ``("ovr", c)`` or ``("ovo", a, b)``."""
        if self.binary:
            return [("pos",)]
        if spec.name == "roc_auc" and spec.option("multi_class") == "ovo":
            return [("ovo", a, b) for a in range(self.k) for b in range(self.k) if a != b]
        return [("ovr", c) for c in range(self.k)]

    def _curve(self, problem, j, with_ap):
        key = (problem, j)
        found = self._curves.get(key)
        if found is not None and (found[1] or not with_ap):
            return found[0]
        sub = self._subsets[j]
        items = np.arange(self.n) if sub is None else sub
        if problem[0] == "pos":
            scores, positive = self._score[items], self._y[items] == self.pos
        elif problem[0] == "ovr":
            scores, positive = self._p[items, problem[1]], self._y[items] == problem[1]
        else:
            a, b = problem[1], problem[2]
            items = items[(self._y[items] == a) | (self._y[items] == b)]
            scores, positive = self._p[items, a], self._y[items] == a
        slot = self._add(
            BinaryCurve(
                scores, positive, n_total=self.n, items=None if items.size == self.n else items, with_ap=with_ap
            )
        )
        self._curves[key] = (slot, with_ap)
        return slot

    # -- scores ----------------------------------------------------------------
    def prepare(self, stats):
        return stats

    def _count(self, stats, j):
        rows = np.asarray(stats[0]).shape[0]
        if j == 0:
            return np.full(rows, float(self.n))
        return np.asarray(stats[self._group_counts], dtype=np.float64)[:, j - 1]

    def score(self, stats, spec, j):
        """Scores of ``spec`` on all items (``j`` 0) or group ``j - 1``, one per row of ``stats``: its formula."""
        return METRICS[spec.name].score(_View(self, stats, j), spec)

    def analytic_interval(self, spec, group, confidence_level):
        """DeLong's interval of a binary ROC-AUC configured with ``interval: delong``, else None.

        ``(AUC - z se, AUC + z se)`` clipped to [0, 1] as R's pROC does, with DeLong's
        (1988) variance from the placements of the positives and negatives.
        """
        if spec.name != "roc_auc" or spec.option("interval") != "delong" or not self.binary:
            return None
        sub = self._subsets[0 if group is None else 1 + list(self._group_values).index(group)]
        items = np.arange(self.n) if sub is None else sub
        try:
            _, _, low, high = delong_auc(self._y[items] == self.pos, self._score[items], confidence_level)
        except ValueError as exc:
            return Interval(float("nan"), float("nan"), "delong", confidence_level, 0, note=str(exc))
        return Interval(low, high, "delong", confidence_level, int(items.size), note="DeLong (1988) normal interval")


class _View(object):
    """What a metric's formula reads: the statistics of one (re)sample block, on all items or one group."""

    def __init__(self, statistics, stats, j):
        self.statistics, self.stats, self.j = statistics, stats, j

    def label_score(self, spec):
        """A classification metric of the thresholded (binary) or arg-max labels."""
        labels = self.statistics._labels[_cut(spec)]
        return labels.score(labels.prepare(self.stats), spec, self.j)

    def mean_term(self, name):
        """The mean of a per-item term (log loss, Brier score); NaN for an empty group."""
        st, stats, j = self.statistics, self.stats, self.j
        column = st._term_names.index(name) * len(st._subsets) + j
        total = np.asarray(stats[st._terms], dtype=np.float64)[:, column]
        count = st._count(stats, j)
        return np.where(count == 0, np.nan, total / np.where(count == 0, 1.0, count))

    def top_k(self, spec):
        """The share of items whose true class is among the k best scores."""
        st, stats, j = self.statistics, self.stats, self.j
        c = np.asarray(stats[st._hits[spec.option("k")]], dtype=np.float64).reshape(-1, st._n_groups, 2)
        hits = c[:, :, 1].sum(axis=1) if j == 0 else c[:, j - 1, 1]
        count = c.sum(axis=(1, 2)) if j == 0 else c[:, j - 1].sum(axis=1)
        return np.where(count == 0, np.nan, hits / np.where(count == 0, 1.0, count))

    def ranked(self, spec, of_curve):
        """A ranking metric (``of_curve``: ROC-AUC or average precision of one binary problem), averaged."""
        st, stats, j = self.statistics, self.stats, self.j
        with_ap = "precision_curve" in METRICS[spec.name].needs
        curves = [np.asarray(stats[st._curve(problem, j, with_ap)], dtype=np.float64) for problem in st._problems(spec)]
        per = np.stack([of_curve(c) for c in curves], axis=1)
        if st.binary:
            return per[:, 0]
        if spec.name == "roc_auc" and spec.option("multi_class") == "ovo":
            # each unordered pair: the mean of its two directions; then the mean over pairs
            return per.mean(axis=1)
        if spec.average == "weighted":
            weights = np.stack([c[:, 0] for c in curves], axis=1)  # the positives of each class
            total = weights.sum(axis=1)
            return (per * weights).sum(axis=1) / np.where(total == 0, np.nan, total)
        return per.mean(axis=1)


def analytic_interval(statistics, spec, group, confidence_level):
    """DeLong's interval for ``roc_auc`` with ``interval: delong`` (:meth:`Statistics.analytic_interval`)."""
    return statistics.analytic_interval(spec, group, confidence_level)


def pair_tests(spec, gold, predictions, items, pairs, sides):
    """Tests of the end-of-phase pairs table besides the bootstrap: DeLong's test for binary ROC-AUC
    (with ``bootstrap.cluster``, Obuchowski's clustered covariance).

    ``predictions`` is ``(n, m, C)`` (every system's scores), ``items`` a boolean
    mask of the target's items, ``pairs`` ``(P, 2)``.  Returns ``{column: (title, p-values)}``.
    """
    labels = list(gold.labels)
    if spec.name != "roc_auc" or len(labels) != 2:
        return {}
    pos = _positive_code([spec], labels)
    p = np.asarray(predictions, dtype=np.float64)
    if p.ndim == 2:
        p = p[:, :, None]
    scores = p[items][:, :, 0 if p.shape[2] == 1 else pos]
    positive = np.asarray(gold.values)[items] == pos
    clusters = None if gold.clusters is None else np.asarray(gold.clusters)[items]
    try:
        return {"p_delong": ("p (DeLong)", delong_pvalues(positive, scores.T, pairs, sides, clusters))}
    except ValueError:
        return {}


# ---------------------------------------------------------------------------
# Where an interval rests on almost nothing (sparse_units) and heavy tails (item_contributions)
# ---------------------------------------------------------------------------
#: ROC-AUC and average precision with this many positive (or negative) items, or fewer, are flagged:
#: each of them then moves the score by a tenth or more, and the resamples that miss or repeat one swing it.
FEW_RANKED = 10
#: What the coverage study found for ROC-AUC.
RANKED_COVERAGE = "87% instead of 95% for ROC-AUC at n = 200 in a coverage study"


def _cut(spec):
    """``(threshold, inclusive)`` of a binary label metric: positive above (or at least) the threshold."""
    return spec.option("threshold", 0.5), spec.option("positive_when", "above") == "at_or_above"


def _as_matrix(predictions):
    p = np.asarray(predictions, dtype=np.float64)
    return p[:, None] if p.ndim == 1 else p


def _predicted_labels(spec, labels, predictions):
    """The class codes a label metric scores: the threshold (binary) or the arg-max."""
    p = _as_matrix(predictions)
    if len(labels) == 2:
        pos = _positive_code([spec], labels)
        threshold, inclusive = _cut(spec)
        score = _score_column(p, pos)
        positive = score >= threshold if inclusive else score > threshold
        return np.where(positive, pos, 1 - pos).astype(np.intp)
    return np.argmax(p, axis=1).astype(np.intp)


def sparse_units(spec, gold, predictions=None, items=None):
    """Classes on which ``spec``'s interval rests on almost nothing, in the ``items``.

    ROC-AUC and average precision: a binary problem with at most :data:`FEW_RANKED`
    positive or negative items (the positive class, or each class of a macro
    one-vs-rest or one-vs-one average); the macro-averaged label metrics: as in
    :func:`.classification.sparse_units`, with the system's thresholded labels.
    """
    labels = list(gold.labels or ())
    y = np.asarray(gold.values, dtype=np.intp)
    keep = item_mask(y.shape[0], items)
    if spec.name in classification.METRICS:
        if not is_macro(spec) or not labels:
            return ()
        predicted = None if predictions is None else _predicted_labels(spec, labels, predictions)
        return class_code_units(labels, y, predicted, keep)
    if spec.name not in ("roc_auc", "average_precision") or not labels:
        return ()
    counts = np.bincount(y[keep], minlength=len(labels))[: len(labels)]
    total = int(keep.sum())
    if len(labels) == 2:
        pos = _positive_code([spec], labels)
        few = [(str(labels[pos]), int(counts[pos]))] if counts[pos] <= FEW_RANKED else []
        if total - counts[pos] <= FEW_RANKED:
            few.append((str(labels[1 - pos]), int(total - counts[pos])))
    elif spec.average == "weighted":
        return ()
    else:
        few = [(str(labels[c]), int(counts[c])) for c in range(len(labels)) if counts[c] <= FEW_RANKED]
    if not few:
        return ()
    return (SparseUnits("class", "gold", tuple(few), FEW_RANKED, RANKED_COVERAGE),)


def item_contributions(spec, gold, predictions):
    """Per-item terms whose mean is log loss or the Brier score; None for the other metrics.

    Returns ``(terms, noun, coverage)`` as :func:`.regression.item_contributions`.
    A true class given (near-)zero probability makes a term of up to 36 (the
    clipping at machine epsilon) beside terms below 1.
    """
    if spec.name not in _PROBABILITY_METRICS or not gold.labels:
        return None
    y = np.asarray(gold.values, dtype=np.intp)
    p = _as_matrix(predictions)
    pos = _positive_code([spec], list(gold.labels))
    if spec.name == "log_loss":
        return log_loss_terms(y, p, pos), "log loss", None
    return brier_terms(y, p, pos), "Brier score", None


#: DeLong's test of binary ROC-AUC in the end-of-phase pairs table.
PAIR_TESTS = PairTests((("p_delong", "p (DeLong)", ("roc_auc",)),), pair_tests)

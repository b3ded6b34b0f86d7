"""Single-label classification: one class label per item.

The task type's metrics and statistics (its labels are read in :mod:`.files`):

* **per-item statistics**: :class:`Statistics` counts codes
  (``group*K*K + gold*K + predicted``, or ``group*2K + K*correct + predicted``
  and ``group*K + gold`` for many classes): exact integers under any resample;
* **metrics**: accuracy, balanced accuracy, precision/recall/F1 (macro, micro,
  weighted, binary; over a labels subset), MCC, Cohen's kappa (linear and
  quadratic weights), vectorized over replicates, equal to scikit-learn's on
  every replicate (``tests/test_metrics.py``), one
  :class:`~leaderboard_ci.tasks.metrics.Metric` each (:data:`METRICS`); PyEvALL's ICM and ICM-Norm
  (flat, or over ``hierarchy: {label: parent}`` for hierarchical mono-label),
  from the same class counts (:class:`.icm.MonoLabelICM`), equal to PyEvALL
  0.2.11 on every replicate (``tests/test_icm_tasks.py``);
* **unit table**: :func:`unit_rows`, per-class precision, recall, F1 and its CI.

Statistical choices (also in docs/tasks/classification.md)
----------------------------------------------------------
* **Label set.**  Averages over classes use the *task's* label set (the
  configured ``labels``, or the classes of the full gold standard) on every
  replicate, exactly as scikit-learn does when given ``labels=``.  A
  replicate-dependent label set would change what "macro" averages over
  whenever a rare class is not drawn, and two systems compared on the same
  replicate could be averaged over different classes.  A class absent from a
  replicate contributes ``zero_division`` where its score is 0/0.  Balanced
  accuracy is the exception, because scikit-learn defines it as the mean
  recall over the classes *present in the gold standard*; gold presence is
  shared by all systems, so it stays paired.
* **Undefined values never become NaN.**  Precision, recall and F1 use
  ``zero_division`` (0 or 1); MCC and Cohen's kappa are 0 when undefined
  (scikit-learn, with ``replace_undefined_by=0.0`` for kappa).  The only NaN
  is for a *group* with no items in a replicate.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.accumulators import CodeCounts
from ...core.intervals import confidence_interval
from ..metrics import Metrics, Option
from ..protocol import PairTests, UnitTable
from ..settings import TaskSettings, setting
from ..shared.averaged import AveragedMetric
from ..shared.base import ClassRow, canonical_name, check_labels
from ..shared.icm import MonoLabelICM, check_hierarchy_labels, hierarchy_tree, icm_signature, norm, parse_hierarchy
from ..shared.sign_test import mcnemar_clustered_pvalues, mcnemar_pvalues
from ..shared.sparse import is_macro

__all__ = [
    "NAME",
    "METRICS",
    "ClassificationMetric",
    "ClassificationSettings",
    "ClassStats",
    "ClassRow",
    "classification_score",
    "per_class_scores",
    "check_labels",
    "Statistics",
    "UNIT_TABLE",
    "PAIR_TESTS",
    "AVERAGES",
    "KAPPA_WEIGHTS",
    "is_macro",
]

NAME = "classification"
AVERAGES = ("macro", "micro", "weighted", "binary")
KAPPA_WEIGHTS = ("linear", "quadratic")
_AVERAGED = ("precision", "recall", "f1")
_FULL_CONFUSION_MAX_CLASSES = 16


@dataclass(frozen=True)
class ClassificationSettings(TaskSettings):
    """The top-level keys of a classification task: ``hierarchy`` for ICM over a label tree."""

    hierarchy: object = setting(
        None,
        "{label: parent} for icm and icm_norm (hierarchical mono-label, e.g. EXIST 2023 task 2: "
        '{DIRECT: "YES", REPORTED: "YES", JUDGEMENTAL: "YES"}, YES quoted since YAML reads a bare YES as true); a '
        "parent need not be a label and may have a parent of its own; without it ICM is flat.",
        parse=lambda value: None if value is None else parse_hierarchy(value),
    )

    def check(self, metrics, labels):
        """A hierarchy is for icm / icm_norm, and names labels (or their parents) only (ValueError)."""
        if self.hierarchy is None:
            return
        if not any("icm" in _needs(spec) for spec in metrics):
            raise ValueError(
                "hierarchy is used only by icm and icm_norm; add one of them to the metrics or drop hierarchy"
            )
        if labels is not None:
            check_hierarchy_labels(self.hierarchy, labels)

    def organizer_warnings(self, labels, source):
        """Without ``labels`` the label set is the gold's: participants' messages cannot list it."""
        if labels is not None:
            return ()
        return (
            "%s: labels is not set, so the label set is read from the gold: participants' messages cannot list the "
            "valid labels, and a valid label absent from the gold is rejected; list the task's classes under labels"
            % source,
        )


def label_tree(labels, settings):
    """The label :class:`~..shared.icm.Tree` of ICM: over the ``hierarchy`` setting if there is one, else flat."""
    return hierarchy_tree(labels, settings.hierarchy)


class ClassStats:
    """Class counts of one or many (re)samples.

    Parameters
    ----------
    tp, pred, true : array_like of shape ``(..., K)``
        Per class: correct predictions, predictions, and gold occurrences.
    confusion : array_like of shape ``(..., K, K)``, optional
        Gold classes in rows, predicted classes in columns.  Only weighted
        kappa needs it.
    index : sequence of int, optional
        Positions of the classes precision, recall and F1 average over (a
        ``labels`` subset, the ``pos_label``); all when None.
    icm, lca : optional
        What ``icm`` and ``icm_norm`` read: the :class:`~..shared.icm.MonoLabelICM`
        and the misses per common ancestor (None: from the confusion matrix).
    """

    __slots__ = ("tp", "pred", "true", "confusion", "index", "icm", "lca")

    def __init__(self, tp, pred, true, confusion=None, index=None, icm=None, lca=None):
        self.tp = np.asarray(tp, dtype=np.float64)
        self.pred = np.asarray(pred, dtype=np.float64)
        self.true = np.asarray(true, dtype=np.float64)
        self.confusion = None if confusion is None else np.asarray(confusion, dtype=np.float64)
        self.index = index  # positions of the classes an average runs over (None: all)
        self.icm = icm  # the MonoLabelICM of icm / icm_norm, and its misses per common ancestor
        self.lca = lca

    @classmethod
    def from_confusion(cls, confusion):
        c = np.asarray(confusion, dtype=np.float64)
        tp = np.diagonal(c, axis1=-2, axis2=-1).copy()
        return cls(tp, c.sum(axis=-2), c.sum(axis=-1), confusion=c)

    @property
    def n(self):
        return self.true.sum(axis=-1)


def _divide(num, den, zero_division):
    """num / den, with ``zero_division`` where den == 0 (scikit-learn's rule)."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    zero = den == 0
    out = num / np.where(zero, 1.0, den)
    if np.any(zero):
        out = np.where(zero, zero_division, out)
    return out


def _average(values, average, weights):
    """Average per-class values over the last axis like scikit-learn."""
    if average == "macro" or average == "binary":
        return values.mean(axis=-1)
    if average == "weighted":
        total = weights.sum(axis=-1)
        weighted = (values * weights).sum(axis=-1) / np.where(total == 0, 1.0, total)
        # scikit-learn falls back to the plain mean when all weights are zero.
        return np.where(total == 0, values.mean(axis=-1), weighted)
    raise ValueError("unknown average %r" % (average,))


def _prf(kind, tp, pred, true, average, zero_division):
    """Precision, recall or F1 of the selected classes, averaged."""
    if average == "micro":
        tp, pred, true = tp.sum(axis=-1), pred.sum(axis=-1), true.sum(axis=-1)
    if kind == "precision":
        values = _divide(tp, pred, zero_division)
    elif kind == "recall":
        values = _divide(tp, true, zero_division)
    else:
        values = _divide(2.0 * tp, true + pred, zero_division)
    if average == "micro":
        return values
    return _average(values, average, true)


def _mcc(stats):
    t, p = stats.true, stats.pred
    n = t.sum(axis=-1)
    correct = stats.tp.sum(axis=-1)
    cov_tp = correct * n - (t * p).sum(axis=-1)
    cov_pp = n * n - (p * p).sum(axis=-1)
    cov_tt = n * n - (t * t).sum(axis=-1)
    prod = cov_pp * cov_tt
    return np.where(prod == 0, 0.0, cov_tp / np.sqrt(np.where(prod == 0, 1.0, prod)))


def _kappa(stats, weights):
    t, p = stats.true, stats.pred
    n = t.sum(axis=-1)
    k = t.shape[-1]
    if weights is None:
        observed = n - stats.tp.sum(axis=-1)  # sum of off-diagonal counts
        # sum_{i != j} p_i t_j / n  ==  (n^2 - sum_k p_k t_k) / n
        expected = (n * n - (p * t).sum(axis=-1)) / np.where(n == 0, 1.0, n)
    else:
        if stats.confusion is None:
            raise ValueError("weighted kappa needs the confusion matrix")
        grid = np.arange(k, dtype=np.float64)
        w = np.abs(grid[None, :] - grid[:, None])
        if weights == "quadratic":
            w = w**2
        observed = (stats.confusion * w).sum(axis=(-2, -1))
        outer = t[..., :, None] * p[..., None, :]  # gold rows x predicted columns
        expected = (outer * w).sum(axis=(-2, -1)) / np.where(n == 0, 1.0, n)
    undefined = (n == 0) | (expected == 0)
    return np.where(undefined, 0.0, 1.0 - observed / np.where(undefined, 1.0, expected))


def _balanced_accuracy(stats):
    present = stats.true > 0
    recall = stats.tp / np.where(present, stats.true, 1.0)
    n_present = present.sum(axis=-1)
    return (recall * present).sum(axis=-1) / np.where(n_present == 0, 1, n_present)


# ---------------------------------------------------------------------------
# The metrics: one object each
# ---------------------------------------------------------------------------
def _accuracy(stats, spec):
    n = stats.n
    return stats.tp.sum(axis=-1) / np.where(n == 0, 1.0, n)


def _balanced(stats, spec):
    return _balanced_accuracy(stats)


def _averaged(kind):
    def formula(stats, spec):
        tp, pred, true = stats.tp, stats.pred, stats.true
        if stats.index is not None:
            sel = np.asarray(stats.index, dtype=np.intp)
            tp, pred, true = tp[..., sel], pred[..., sel], true[..., sel]
        return _prf(kind, tp, pred, true, spec.average, spec.zero_division)

    return formula


def _mcc_formula(stats, spec):
    return _mcc(stats)


def _kappa_formula(stats, spec):
    return _kappa(stats, spec.weights)


def _icm_formula(normalized):
    def formula(stats, spec):
        counts = stats.lca
        if counts is None and stats.confusion is not None:
            counts = stats.icm.lca_counts(stats.confusion)
        icm, self_icm = stats.icm.scores(stats.tp, stats.pred, stats.true, counts)
        return norm(icm, self_icm) if normalized else icm

    return formula


#: The options of the label metrics (each metric's ``make_spec`` says which apply to it).
OPTIONS = (
    Option(
        "average",
        "How per-class (per-label, per-entity-type) values are averaged: macro, micro, weighted, and binary "
        "(one class) or samples (per item) where the task has them.",
    ),
    Option("labels", "The classes a macro average runs over: a subset of the label set (scikit-learn's labels=)."),
    Option("pos_label", "The positive class of a binary average; default: the top-level pos_label."),
    Option(
        "zero_division", "The value of a 0/0 precision, recall or F1 (0 or 1); default: the top-level zero_division."
    ),
    Option("weights", "Cohen's kappa weights: linear or quadratic (qwk is quadratic)."),
)


@dataclass(frozen=True, eq=False, repr=False)
class ClassificationMetric(AveragedMetric):
    """A metric of class labels: the options ``average``, ``labels``, ``pos_label``, ``zero_division``,
    ``weights`` (each metric takes those that apply), named in the key and title (``f1_macro``, ``qw_kappa``).

    ``averaged`` metrics (precision, recall, F1) are spelled with their average (``f1_macro``, ``macro_f1``).
    """

    def make_spec(self, options, defaults):
        """``(fields, default key, title)``, the options checked (ValueError saying what is wrong).

        ``defaults`` holds the config's ``labels``, ``pos_label`` and ``zero_division``.
        """
        return _make_spec(self, options, defaults)

    def check_gold(self, spec, labels):
        if spec.labels is not None or spec.pos_label is not None or spec.average == "binary":
            try:
                check_labels(spec.name, spec.average, spec.labels, spec.pos_label, labels)
            except ValueError as exc:
                return str(exc)
        return None


@dataclass(frozen=True, eq=False, repr=False)
class ICMMetric(ClassificationMetric):
    """ICM and ICM-Norm over the gold's labels, flat or over ``hierarchy``: their signature names the tree."""

    def signature(self, spec, gold):
        return icm_signature(label_tree(tuple(gold.labels), ClassificationSettings.of(gold)))


def _option(*names):
    return tuple(option for option in OPTIONS if option.name in names)


#: What precision, recall and F1 take (an average over classes); Cohen's kappa takes its weights.
_AVERAGED_OPTIONS = _option("average", "labels", "pos_label", "zero_division")
_KAPPA_SHORTHANDS = (
    ("qwk", "quadratic"),
    ("quadratic_kappa", "quadratic"),
    ("qw_kappa", "quadratic"),
    ("linear_kappa", "linear"),
    ("lw_kappa", "linear"),
)


def _metric(name, title, formula, best=1.0, **fields):
    return ClassificationMetric(NAME, name, title, "higher", best, formula=formula, **fields)


def _averaged_metric(name, title, aliases):
    return _metric(name, title, _averaged(name), averages=AVERAGES, aliases=aliases, options=_AVERAGED_OPTIONS)


METRICS = Metrics(
    [
        _metric("accuracy", "accuracy", _accuracy, aliases=("acc", "accuracy_score")),
        _metric("balanced_accuracy", "balanced accuracy", _balanced, aliases=("balanced_accuracy_score",)),
        _metric(
            "cohen_kappa",
            "Cohen's kappa",
            _kappa_formula,
            aliases=("kappa", "cohen_kappa_score"),
            spellings=("cohen_kappa", "qwk", "linear_kappa"),
            shorthands=tuple((s, (("weights", w),)) for s, w in _KAPPA_SHORTHANDS),
            options=_option("weights"),
            needs=("weighted_confusion",),
        ),
        _averaged_metric("f1", "F1", ("f1_score", "fscore")),
        ICMMetric(NAME, "icm", "ICM", "higher", None, ppi=False, formula=_icm_formula(False), needs=("icm",)),
        ICMMetric(
            NAME,
            "icm_norm",
            "ICM-Norm",
            "higher",
            1.0,
            ppi=False,
            aliases=("icmnorm",),
            formula=_icm_formula(True),
            needs=("icm",),
        ),
        _metric("mcc", "MCC", _mcc_formula, aliases=("matthews_corrcoef",)),
        _averaged_metric("precision", "precision", ("precision_score",)),
        _averaged_metric("recall", "recall", ("recall_score",)),
    ],
    options=OPTIONS,
)


def classification_score(spec, stats, label_index=None):
    """Score a classification metric for every (re)sample in ``stats`` (its formula).

    Parameters
    ----------
    spec : MetricSpec
    stats : ClassStats
        Counts with the classes in the task's label order.
    label_index : sequence of int, optional
        Positions of ``spec.labels`` (the averaging subset) in the label order;
        all classes when None.

    Returns
    -------
    ndarray of scores, one per (re)sample; NaN where the sample is empty.
    """
    if spec.name not in METRICS:
        raise ValueError("%r is not a classification metric" % (spec.name,))
    if label_index is not None:
        stats = ClassStats(stats.tp, stats.pred, stats.true, stats.confusion, label_index, stats.icm, stats.lca)
    out = np.asarray(METRICS[spec.name].score(stats, spec), dtype=np.float64)
    return np.where(stats.n == 0, np.nan, out)


def per_class_scores(stats, zero_division=0.0):
    """Per-class precision, recall and F1 (arrays of shape ``(..., K)``)."""
    precision = _divide(stats.tp, stats.pred, zero_division)
    recall = _divide(stats.tp, stats.true, zero_division)
    f1 = _divide(2.0 * stats.tp, stats.true + stats.pred, zero_division)
    return precision, recall, f1


# ---------------------------------------------------------------------------
# Metric options
# ---------------------------------------------------------------------------
def _make_spec(metric, options, defaults):
    """Validated fields of ``metric`` with ``options`` (ValueError saying what is wrong)."""
    name = metric.name
    average = options.get("average")
    weights = options.get("weights")
    if average is not None:
        average = canonical_name(average)
    if weights is not None:
        weights = canonical_name(weights)
    if name in _AVERAGED:
        if average is None:
            raise ValueError("%s needs an average, one of: %s (e.g. %s_macro)" % (name, ", ".join(AVERAGES), name))
        if average not in AVERAGES:
            raise ValueError("average must be one of: %s, got %r" % (", ".join(AVERAGES), average))
    elif average is not None:
        raise ValueError("%s takes no average (got %r)" % (name, average))
    if weights is not None and name != "cohen_kappa":
        raise ValueError("only cohen_kappa takes weights")
    if weights is not None and weights not in KAPPA_WEIGHTS:
        raise ValueError("weights must be one of: %s, got %r" % (", ".join(KAPPA_WEIGHTS), weights))
    labels = options.get("labels")
    if labels is not None:
        if name not in _AVERAGED:
            raise ValueError("only precision, recall and f1 take a labels subset")
        if isinstance(labels, (str, int, float)) or not labels:
            raise ValueError("labels must be a non-empty list of class labels, got %r" % (labels,))
        labels = tuple(str(x) for x in labels)
        if len(set(labels)) != len(labels):
            raise ValueError("labels lists a class twice: %s" % ", ".join(labels))
    pos_label = options.get("pos_label", defaults.get("pos_label") if average == "binary" else None)
    if pos_label is not None:
        pos_label = str(pos_label)
    if average == "binary":
        if pos_label is None:
            raise ValueError("%s_binary needs pos_label (the positive class)" % name)
        if labels is not None:
            raise ValueError("binary averaging uses pos_label; drop labels")
    zero_division = options.get("zero_division", defaults.get("zero_division", 0.0))
    if isinstance(zero_division, bool) or zero_division not in (0, 1):
        raise ValueError("zero_division must be 0 or 1, got %r" % (zero_division,))
    if defaults.get("labels") is not None:
        check_labels(name, average, labels, pos_label, defaults["labels"])
    key = name if average is None else "%s_%s" % (name, average)
    if weights:
        key = "%s_kappa" % ("qw" if weights == "quadratic" else "lw")
    fields = dict(
        average=average, labels=labels, pos_label=pos_label, zero_division=float(zero_division), weights=weights
    )
    return fields, key, _title(metric, average, labels, pos_label, weights)


def _title(metric, average, labels, pos_label, weights):
    name, title = metric.name, metric.title
    if name in _AVERAGED:
        if average == "binary" and pos_label is not None:
            return "%s (%s)" % (title, pos_label)
        title = "%s-%s" % (average, title)
        if labels is not None:
            title += " (%s)" % ", ".join(labels)
        return title
    if name == "cohen_kappa" and weights:
        return "%s-weighted kappa" % weights
    return title


# ---------------------------------------------------------------------------
# Per-item statistics and scores
# ---------------------------------------------------------------------------
def label_positions(spec, labels):
    """Positions of the classes a metric averages over (None = all)."""
    if spec.average == "binary":
        return [labels.index(spec.pos_label)]
    if spec.labels is not None:
        return [labels.index(label) for label in spec.labels]
    return None


class Statistics:
    """Class-count accumulators of one system, and scores from their sums.

    Layouts, K classes, G groups (G = 1 without groups):

    * ``confusion``: one :class:`CodeCounts` of ``g*K*K + gold*K + predicted``
      (up to 16 classes, or when weighted kappa needs the full matrix);
    * ``reduced``: :class:`CodeCounts` of ``g*2K + K*correct + predicted`` and
      of ``g*K + gold`` (3K numbers instead of K*K).

    The scores are identical in both layouts (the counts are exact integers).
    """

    def __init__(self, add, gold, predictions, metrics, group_codes, n_groups, layout=None):
        if layout not in (None, "confusion", "reduced"):
            raise ValueError("layout must be None, 'confusion' or 'reduced', got %r" % (layout,))
        codes = np.asarray(gold.values, dtype=np.intp)
        pred = np.asarray(predictions)
        k = len(gold.labels)
        if pred.shape != codes.shape:
            raise ValueError(
                "predictions must have shape %s (one class code per item), got %s" % (codes.shape, pred.shape)
            )
        if pred.size and (not np.issubdtype(pred.dtype, np.integer) or pred.min() < 0 or pred.max() >= k):
            raise ValueError("predictions must be class codes from 0 to %d" % (k - 1))
        pred = pred.astype(np.intp)
        self.n_classes = k
        needs_full = any(m.weights for m in metrics if "weighted_confusion" in _needs(m))
        self._icm = self._lca = None
        if any("icm" in _needs(m) for m in metrics):
            self._icm = MonoLabelICM(label_tree(tuple(gold.labels), ClassificationSettings.of(gold)), gold.labels)
        if needs_full:
            self.layout = "confusion"
        elif layout is not None:
            self.layout = layout
        else:
            self.layout = "confusion" if k <= _FULL_CONFUSION_MAX_CLASSES else "reduced"
        g = group_codes
        if self.layout == "confusion":
            self._confusion = add(CodeCounts(g * k * k + codes * k + pred, n_groups * k * k))
        else:
            correct = (codes == pred).astype(np.intp)
            self._predicted = add(CodeCounts(g * 2 * k + k * correct + pred, n_groups * 2 * k))
            self._gold = add(CodeCounts(g * k + codes, n_groups * k))
        if self._icm is not None and self._icm.lca_nodes and self.layout != "confusion":
            # over a hierarchy, without the confusion matrix: the misses per common ancestor
            width = len(self._icm.lca_nodes) + 1
            self._lca = add(CodeCounts(g * width + self._icm.lca_codes(codes, pred), n_groups * width))
        self._label_index = dict((m.key, label_positions(m, list(gold.labels))) for m in metrics)

    def batch_key(self):
        """What :meth:`score` depends on besides the statistics (the layout and where each count is), or None.

        None with ICM (its hierarchy's scorer is not batched).
        """
        if self._icm is not None:
            return None
        places = tuple(getattr(self, name, None) for name in ("_confusion", "_predicted", "_gold"))
        return (self.layout, self.n_classes, places, self._lca)

    def class_stats(self, stats):
        """ClassStats of all items and of each group: arrays ``(N, K)`` and ``(N, G, K)``."""
        k = self.n_classes
        if self.layout == "confusion":
            c = np.asarray(stats[self._confusion], dtype=np.float64)
            c = c.reshape(c.shape[0], -1, k, k)
            return ClassStats.from_confusion(c.sum(axis=1)), ClassStats.from_confusion(c)
        a = np.asarray(stats[self._predicted], dtype=np.float64)
        a = a.reshape(a.shape[0], -1, 2, k)
        t = np.asarray(stats[self._gold], dtype=np.float64)
        t = t.reshape(t.shape[0], -1, k)
        tp = a[:, :, 1, :]
        pred = a[:, :, 0, :] + tp
        return ClassStats(tp.sum(axis=1), pred.sum(axis=1), t.sum(axis=1)), ClassStats(tp, pred, t)

    def prepare(self, stats):
        if self._lca is None:
            return self.class_stats(stats) + (None,)
        lca = np.asarray(stats[self._lca], dtype=np.float64)
        return self.class_stats(stats) + (lca.reshape(lca.shape[0], -1, len(self._icm.lca_nodes) + 1),)

    def score(self, prepared, spec, j):
        """Scores of ``spec`` on all items (``j`` 0) or group ``j - 1``, by its formula."""
        overall, per_group, lca = prepared
        if j == 0:
            cs = overall
        else:
            cs = ClassStats(
                per_group.tp[:, j - 1],
                per_group.pred[:, j - 1],
                per_group.true[:, j - 1],
                None if per_group.confusion is None else per_group.confusion[:, j - 1],
            )
        if "icm" in _needs(spec):  # ICM's own value on an empty sample (no NaN)
            counts = None if lca is None else (lca.sum(axis=1) if j == 0 else lca[:, j - 1])
            return METRICS[spec.name].score(
                ClassStats(cs.tp, cs.pred, cs.true, cs.confusion, None, self._icm, counts), spec
            )
        return classification_score(spec, cs, self._label_index[spec.key])


def _needs(spec):
    """What ``spec``'s formula needs beyond the class counts (nothing for a custom metric)."""
    return METRICS[spec.name].needs if spec.name in METRICS else ()


def unit_rows(statistics, full_stats, rep_stats, labels, method, confidence_level, zero_division):
    """Per-class rows of the detailed results: precision, recall, F1 and the F1's CI."""
    full_overall, _ = statistics.class_stats(full_stats)
    rep_overall, _ = statistics.class_stats(rep_stats)
    precision, recall, f1 = per_class_scores(full_overall, zero_division)
    _, _, f1_reps = per_class_scores(rep_overall, zero_division)
    # BCa needs per-class jackknife values; per-class rows use the percentile method for BCa.
    method = method if method != "bca" else "percentile"
    rows = []
    for k, label in enumerate(labels):
        interval = confidence_interval(method, f1_reps[:, k], f1[0, k], confidence_level)
        rows.append(
            ClassRow(
                label,
                float(precision[0, k]),
                float(recall[0, k]),
                float(f1[0, k]),
                interval,
                int(full_overall.pred[0, k]),
                int(full_overall.true[0, k]),
            )
        )
    return tuple(rows)


def pair_tests(spec, gold, predictions, items, pairs, sides):
    """McNemar's test of accuracy on the target's items (``p_mcnemar``), for the end-of-phase pairs: exact, or
    Durkalski et al.'s cluster-robust version with ``bootstrap.cluster``."""
    if spec.name != "accuracy":
        return {}
    items = np.asarray(items, dtype=bool)
    correct = (np.asarray(predictions) == np.asarray(gold.values)[:, None])[items]
    a, b = correct[:, pairs[:, 0]], correct[:, pairs[:, 1]]
    if gold.clusters is not None:
        return {"p_mcnemar": ("p (McNemar)", mcnemar_clustered_pvalues(a, b, np.asarray(gold.clusters)[items], sides))}
    return {"p_mcnemar": ("p (McNemar)", mcnemar_pvalues(a, b, sides))}


#: The per-class table (precision, recall, F1 and its interval) and McNemar's test of accuracy.
UNIT_TABLE = UnitTable("class", unit_rows)
PAIR_TESTS = PairTests((("p_mcnemar", "p (McNemar)", ("accuracy",)),), pair_tests)

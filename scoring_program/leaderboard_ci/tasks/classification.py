"""Single-label classification: one class label per item.

The task module protocol (see :mod:`leaderboard_ci.tasks`) for labels:

* **parse**: :func:`encode_gold` (the gold column's labels into codes over the
  task's label set) and :func:`value_parser` (a participant's label into a code,
  with a hint for case variants and ``1.0`` for ``1``);
* **per-item statistics**: :class:`Statistics` counts codes
  (``group*K*K + gold*K + predicted``, or ``group*2K + K*correct + predicted``
  and ``group*K + gold`` for many classes): exact integers under any resample;
* **metrics**: accuracy, balanced accuracy, precision/recall/F1 (macro, micro,
  weighted, binary; over a labels subset), MCC, Cohen's kappa (linear and
  quadratic weights), vectorized over replicates, equal to scikit-learn's on
  every replicate (``tests/test_metrics.py``); PyEvALL's ICM and ICM-Norm
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

import math

import numpy as np

from ..core.accumulators import CodeCounts
from ..core.intervals import confidence_interval
from .base import ClassRow, MetricInfo, canonical_name, check_labels, resolve_averaged
from .icm import MonoLabelICM, check_hierarchy_labels, hierarchy_tree, icm_signature, norm, parse_hierarchy
from .protocol import TaskType
from .sign_test import mcnemar_pvalues
from .sparse import is_macro  # the sparse_units hook
from .sparse import macro_class_units as sparse_units

__all__ = [
    "NAME",
    "METRICS",
    "ClassStats",
    "ClassRow",
    "classification_score",
    "per_class_scores",
    "resolve_name",
    "make_spec",
    "check_labels",
    "known_names",
    "encode_gold",
    "encode_values",
    "value_parser",
    "is_value",
    "decode",
    "Statistics",
    "unit_rows",
    "AVERAGES",
    "KAPPA_WEIGHTS",
    "is_macro",
    "sparse_units",
    "pair_tests",
    "ClassificationTask",
    "TASK",
]

NAME = "classification"
#: What a row of the per-unit table is.
UNIT_NAME = "class"
AVERAGES = ("macro", "micro", "weighted", "binary")
KAPPA_WEIGHTS = ("linear", "quadratic")
_AVERAGED = ("precision", "recall", "f1")
_FULL_CONFUSION_MAX_CLASSES = 16
_LISTED_LABELS = 20

METRICS = {
    "accuracy": MetricInfo(NAME, "higher", 1.0, "accuracy"),
    "balanced_accuracy": MetricInfo(NAME, "higher", 1.0, "balanced accuracy"),
    "precision": MetricInfo(NAME, "higher", 1.0, "precision"),
    "recall": MetricInfo(NAME, "higher", 1.0, "recall"),
    "f1": MetricInfo(NAME, "higher", 1.0, "F1"),
    "mcc": MetricInfo(NAME, "higher", 1.0, "MCC"),
    "cohen_kappa": MetricInfo(NAME, "higher", 1.0, "Cohen's kappa"),
    "icm": MetricInfo(NAME, "higher", None, "ICM", ppi=False),
    "icm_norm": MetricInfo(NAME, "higher", 1.0, "ICM-Norm", ppi=False),
}
_ICM = ("icm", "icm_norm")
#: Other spellings of the metric names (listed in docs/configuration.md, generated from them).
ALIASES = {
    "acc": "accuracy",
    "accuracy_score": "accuracy",
    "matthews_corrcoef": "mcc",
    "kappa": "cohen_kappa",
    "cohen_kappa_score": "cohen_kappa",
    "qwk": "cohen_kappa:quadratic",
    "quadratic_kappa": "cohen_kappa:quadratic",
    "qw_kappa": "cohen_kappa:quadratic",
    "linear_kappa": "cohen_kappa:linear",
    "lw_kappa": "cohen_kappa:linear",
    "f1_score": "f1",
    "fscore": "f1",
    "precision_score": "precision",
    "recall_score": "recall",
    "balanced_accuracy_score": "balanced_accuracy",
    "icmnorm": "icm_norm",
}
#: The metric options of this task (besides ``name`` and ``key``).
OPTIONS = ("average", "labels", "pos_label", "zero_division", "weights")
#: Top-level config keys this task owns.
SETTINGS = ("hierarchy",)
SETTING_DOCS = {
    "hierarchy": "{label: parent} for icm and icm_norm (hierarchical mono-label, e.g. EXIST 2023 task 2: "
    '{DIRECT: "YES", REPORTED: "YES", JUDGEMENTAL: "YES"}, YES quoted since YAML reads a bare YES as true); a '
    "parent need not be a label and may have a parent of its own; without it ICM is flat."
}


class ClassStats:
    """Class counts of one or many (re)samples.

    Parameters
    ----------
    tp, pred, true : array_like of shape ``(..., K)``
        Per class: correct predictions, predictions, and gold occurrences.
    confusion : array_like of shape ``(..., K, K)``, optional
        Gold classes in rows, predicted classes in columns.  Only weighted
        kappa needs it.
    """

    __slots__ = ("tp", "pred", "true", "confusion")

    def __init__(self, tp, pred, true, confusion=None):
        self.tp = np.asarray(tp, dtype=np.float64)
        self.pred = np.asarray(pred, dtype=np.float64)
        self.true = np.asarray(true, dtype=np.float64)
        self.confusion = None if confusion is None else np.asarray(confusion, dtype=np.float64)

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


def classification_score(spec, stats, label_index=None):
    """Score a classification metric for every (re)sample in ``stats``.

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
    n = stats.n
    name = spec.name
    if name == "accuracy":
        out = stats.tp.sum(axis=-1) / np.where(n == 0, 1.0, n)
    elif name == "balanced_accuracy":
        out = _balanced_accuracy(stats)
    elif name in ("precision", "recall", "f1"):
        tp, pred, true = stats.tp, stats.pred, stats.true
        if label_index is not None:
            sel = np.asarray(label_index, dtype=np.intp)
            tp, pred, true = tp[..., sel], pred[..., sel], true[..., sel]
        out = _prf(name, tp, pred, true, spec.average, spec.zero_division)
    elif name == "mcc":
        out = _mcc(stats)
    elif name == "cohen_kappa":
        out = _kappa(stats, spec.weights)
    else:
        raise ValueError("%r is not a classification metric" % (name,))
    out = np.asarray(out, dtype=np.float64)
    return np.where(n == 0, np.nan, out)


def per_class_scores(stats, zero_division=0.0):
    """Per-class precision, recall and F1 (arrays of shape ``(..., K)``)."""
    precision = _divide(stats.tp, stats.pred, zero_division)
    recall = _divide(stats.tp, stats.true, zero_division)
    f1 = _divide(2.0 * stats.tp, stats.true + stats.pred, zero_division)
    return precision, recall, f1


# ---------------------------------------------------------------------------
# Metric names and options
# ---------------------------------------------------------------------------
def resolve_name(name):
    """``(metric, implied options)`` for a canonical name or shorthand, or None.

    ``f1_macro`` and ``macro_f1`` -> ``("f1", {"average": "macro"})``;
    ``qwk`` -> ``("cohen_kappa", {"weights": "quadratic"})``.
    """
    name = ALIASES.get(name, name)
    if name.startswith("cohen_kappa:"):
        return "cohen_kappa", {"weights": name.split(":", 1)[1]}
    return resolve_averaged(name, METRICS, _AVERAGED, AVERAGES)


def known_names():
    """Every accepted spelling of this task's metrics, for messages and suggestions."""
    names = []
    for name in sorted(METRICS):
        if name in _AVERAGED:
            names.extend("%s_%s" % (name, average) for average in AVERAGES)
        else:
            names.append(name)
    return names + ["qwk", "linear_kappa"]


def make_spec(name, options, defaults):
    """Validated fields of a metric of this task (raises ValueError saying what is wrong).

    ``options`` are the entry's options (implied by the name or given);
    ``defaults`` holds the config's ``labels``, ``pos_label`` and
    ``zero_division``.  Returns ``(fields for MetricSpec, default key, title)``.
    """
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
    return fields, key, _title(name, average, labels, pos_label, weights)


def _title(name, average, labels, pos_label, weights):
    title = METRICS[name].title
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


def check_metrics(metrics, labels):
    """``(metric key, message)`` of the first metric whose labels disagree with the gold's, or None."""
    for spec in metrics:
        if spec.task != NAME:
            continue
        if spec.labels is not None or spec.pos_label is not None or spec.average == "binary":
            try:
                check_labels(spec.name, spec.average, spec.labels, spec.pos_label, labels)
            except ValueError as exc:
                return spec.key, str(exc)
    return None


def parse_settings(values):
    """Validated ``hierarchy`` (ValueError)."""
    if values.get("hierarchy") is None:
        return {}
    return {"hierarchy": parse_hierarchy(values["hierarchy"])}


def check_config(metrics, settings, labels):
    """A hierarchy is for icm / icm_norm, and names labels (or their parents) only (ValueError)."""
    hierarchy = settings.get("hierarchy")
    if hierarchy is None:
        return
    if not any(spec.name in _ICM for spec in metrics):
        raise ValueError("hierarchy is used only by icm and icm_norm; add one of them to the metrics or drop hierarchy")
    if labels is not None:
        check_hierarchy_labels(hierarchy, labels)


def label_tree(labels, settings):
    """The label :class:`.icm.Tree` of ICM: over ``hierarchy`` if the settings have one, else flat."""
    return hierarchy_tree(labels, dict(settings or ()).get("hierarchy"))


def metric_signature(spec, gold):
    """ICM's parameters and the shape of its tree (``alpha1:2|alpha2:2|beta:3|...``); None for other metrics."""
    if spec.task != NAME or spec.name not in _ICM:
        return None
    return icm_signature(label_tree(tuple(gold.labels), gold.settings))


# ---------------------------------------------------------------------------
# Values
# ---------------------------------------------------------------------------
def _as_number(text):
    """The finite float ``text`` denotes, or None."""
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) and "_" not in text else None


def _sorted_labels(values):
    """Unique labels, numerically sorted when all are numbers, else as strings."""
    unique = sorted(set(values))
    numbers = [_as_number(label) for label in unique]
    if all(number is not None for number in numbers):
        return tuple(label for _, label in sorted(zip(numbers, unique)))
    return tuple(unique)


def encode_gold(source, lines, values, labels=None, config_name="config.yaml", settings=None):
    """``(codes, labels)`` of the gold column: codes into the configured or found label set.

    Messages name the file and line, never a gold label.
    """
    for line, value in zip(lines, values):
        if value == "":
            raise source.at(line, "the label is empty; expected a class label on every line")
    if labels is None:
        labels = _sorted_labels(values)
    else:
        labels = tuple(labels)
        known = set(labels)
        for line, value in zip(lines, values):
            if value not in known:
                raise source.at(line, "the label is not in the labels list of %s; add it to labels" % config_name)
    index = dict((label, code) for code, label in enumerate(labels))
    return np.array([index[value] for value in values], dtype=np.intp), labels


def encode_values(gold_values, systems, labels=None, settings=None):
    """In-memory encoding for the analysis API: ``(codes, labels, {name: codes})`` (ValueError)."""
    gold_values = [str(v) for v in gold_values]
    if labels is None:
        labels = _natural_sorted(set(gold_values))
    labels = tuple(str(x) for x in labels)
    index = dict((label, i) for i, label in enumerate(labels))
    unknown = sorted(set(gold_values) - set(index))
    if unknown:
        raise ValueError("gold label %r is not one of the labels: %s" % (unknown[0], ", ".join(labels)))
    coded = {}
    for name, preds in systems.items():
        preds = [str(v) for v in preds]
        if len(preds) != len(gold_values):
            raise ValueError("system %r has %d predictions for %d items" % (name, len(preds), len(gold_values)))
        bad = [p for p in preds if p not in index]
        if bad:
            raise ValueError("system %r predicts %r, not one of the labels: %s" % (name, bad[0], ", ".join(labels)))
        coded[name] = np.array([index[p] for p in preds], dtype=np.intp)
    return np.array([index[v] for v in gold_values], dtype=np.intp), labels, coded


def _natural_sorted(values):
    values = [str(v) for v in values]
    try:
        return tuple(sorted(values, key=float))
    except ValueError:
        return tuple(sorted(values))


def _label_list(labels):
    if len(labels) <= _LISTED_LABELS:
        return "one of: %s" % ", ".join(labels)
    return "one of the %d labels (%s, ...)" % (len(labels), ", ".join(labels[:_LISTED_LABELS]))


def _label_hint(text, labels, quote):
    """Why a participant's label may not match: letter case or a number's spelling."""
    same_case = [label for label in labels if label.casefold() == text.casefold()]
    if len(same_case) == 1:
        return " (labels are case-sensitive; did you mean %s?)" % quote(same_case[0])
    number = _as_number(text)
    if number is not None:
        same_number = [label for label in labels if _as_number(label) == number]
        if len(same_number) == 1:
            return " (write %s, not %s)" % (quote(same_number[0])[1:-1], quote(text)[1:-1])
    return ""


def value_parser(source, gold, quote=repr, settings=None):
    """``(convert(line, text) -> code, typecode)``; messages list labels only if configured (``public_labels``)."""
    labels = gold.labels
    index = dict((label, code) for code, label in enumerate(labels))
    public = (settings or {}).get("public_labels", labels)

    def convert(line, text):
        found = index.get(text)
        if found is not None:
            return found
        if public is None:
            what = "one of the task's labels"
            if text == "":
                raise source.at(line, "the prediction is empty; expected %s" % what)
            raise source.at(line, "label %s is not %s" % (quote(text), what))
        if text == "":
            raise source.at(line, "the prediction is empty; expected %s" % _label_list(labels))
        raise source.at(
            line, "label %s is not %s%s" % (quote(text), _label_list(labels), _label_hint(text, labels, quote))
        )

    return convert, "q"


def is_value(gold, text):
    """Whether a header field is really a value (a label), i.e. the file has no header."""
    return text in set(gold.labels or ())


def decode(gold, codes):
    """Labels as strings, for custom metric functions."""
    return np.asarray(gold.labels, dtype=object)[np.asarray(codes, dtype=np.intp)]


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
        needs_full = any(m.name == "cohen_kappa" and m.weights for m in metrics)
        self._icm = self._lca = None
        if any(m.name in _ICM for m in metrics):
            self._icm = MonoLabelICM(label_tree(tuple(gold.labels), gold.settings), gold.labels)
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
        """Scores of ``spec`` on all items (``j`` 0) or group ``j - 1``."""
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
        if spec.name in _ICM:
            if lca is not None:
                counts = lca.sum(axis=1) if j == 0 else lca[:, j - 1]
            else:
                counts = None if cs.confusion is None else self._icm.lca_counts(cs.confusion)
            icm, self_icm = self._icm.scores(cs.tp, cs.pred, cs.true, counts)
            return icm if spec.name == "icm" else norm(icm, self_icm)
        return classification_score(spec, cs, self._label_index[spec.key])


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
    """McNemar's exact test of accuracy on the target's items (``p_mcnemar``), for the end-of-phase pairs."""
    if spec.name != "accuracy":
        return {}
    correct = (np.asarray(predictions) == np.asarray(gold.values)[:, None])[np.asarray(items, dtype=bool)]
    return {"p_mcnemar": ("p (McNemar)", mcnemar_pvalues(correct[:, pairs[:, 0]], correct[:, pairs[:, 1]], sides))}


def organizer_warnings(labels, source):
    """Without ``labels`` the label set is the gold's: participants' messages cannot list it."""
    if labels is not None:
        return ()
    return (
        "%s: labels is not set, so the label set is read from the gold: participants' messages cannot list the "
        "valid labels, and a valid label absent from the gold is rejected; list the task's classes under labels"
        % source,
    )


class ClassificationTask(TaskType):
    """Single-label classification (see the module's docstring)."""

    NAME, METRICS, ALIASES, OPTIONS, UNIT_NAME, Statistics = NAME, METRICS, ALIASES, OPTIONS, UNIT_NAME, Statistics
    SETTINGS, SETTING_DOCS = SETTINGS, SETTING_DOCS
    parse_settings, check_config = staticmethod(parse_settings), staticmethod(check_config)
    metric_signature = staticmethod(metric_signature)
    PAIR_TESTS = (("p_mcnemar", "p (McNemar)", ("accuracy",)),)
    resolve_name, known_names = staticmethod(resolve_name), staticmethod(known_names)
    make_spec, check_metrics = staticmethod(make_spec), staticmethod(check_metrics)
    encode_gold, value_parser, is_value = staticmethod(encode_gold), staticmethod(value_parser), staticmethod(is_value)
    encode_values, decode = staticmethod(encode_values), staticmethod(decode)
    organizer_warnings, sparse_units = staticmethod(organizer_warnings), staticmethod(sparse_units)
    unit_rows, pair_tests = staticmethod(unit_rows), staticmethod(pair_tests)


TASK = ClassificationTask()

"""Multi-label classification: a set of labels per item (``task: multilabel``).

The task type's pieces (see :mod:`leaderboard_ci.tasks`) for label sets:

* **parse**: :mod:`.multilabel_files` reads CSV/TSV ``id,labels`` (labels of an
  item in one cell, separated by ``label_separator``, default ``|``), CSV/TSV
  with one 0/1 column per label, and JSON / JSON Lines with a list of labels
  per id, into a 0/1 indicator matrix ``(n, K)`` over the task's labels;
* **per-item statistics**: 0/1 indicators summed under the resample counts
  (:class:`~leaderboard_ci.core.accumulators.IndicatorSums`: per label
  ``tp`` and ``predicted`` for the system, ``true`` for the gold; per item
  "exact match", "nothing predicted", "neither") and, for the ``samples``
  averages, the per-item precision, recall, F1 and Jaccard
  (:class:`~leaderboard_ci.core.accumulators.ExactSums`).  Every sum is exact,
  so every replicate's score is the same number whoever computes it;
* **metrics**: precision, recall, F1 (micro, macro, weighted, samples; a
  ``labels`` subset), Jaccard (micro, macro, weighted, samples), Hamming loss
  and subset accuracy, equal to scikit-learn's on the label-indicator
  matrices with ``sample_weight`` = the resample counts
  (``tests/test_multilabel.py``); PyEvALL's ICM and ICM-Norm (flat, or over
  the hierarchy's tree at the fine level), from per-item integer coefficients
  of the labels' information content (:func:`.icm.hard_icm_terms`), equal to
  PyEvALL 0.2.11 on every replicate (``tests/test_icm_tasks.py``);
* **hierarchy**: ``hierarchy: {fine: coarse}`` maps each label to a coarse
  label (its parent); a metric with ``level: coarse`` (or a ``coarse_`` name, e.g.
  ``coarse_f1_macro``) is the same metric on the coarse indicator matrices,
  where an item has a coarse label when it has any of its fine labels; a
  coarse label may have a parent of its own (a tree of three levels or more,
  DIPROMATS' technique -> category -> true), which ICM's tree uses;
* **unit table**: :func:`unit_rows`, per-label precision, recall, F1 and its CI.

Conventions (scikit-learn's, also in docs/tasks/multilabel.md)
--------------------------------------------------------------
* Averages over labels use the task's label set (the configured ``labels``,
  else the labels of the gold standard) on every replicate.
* ``zero_division`` (0 or 1) replaces every 0/0: a label never predicted
  (precision), never in the gold (recall), in neither (F1, Jaccard); in the
  ``samples`` average, an item with no predicted / no gold / neither label.
* ``weighted`` weights each label by its gold count; when no selected label
  occurs in the (re)sample it is the plain mean (scikit-learn's fallback).
* Hamming loss is the fraction of wrong (item, label) cells; lower is better.
  Subset accuracy is the fraction of items whose label set is exactly right.
* The only NaN is a group with no items in a replicate.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.accumulators import ExactSums, IndicatorSums
from ...core.intervals import confidence_interval
from ..metrics import Metrics, Option
from ..prediction_tables import TableWords, table_format, table_sample
from ..protocol import SubmissionFormat, UnitTable
from ..settings import TaskSettings, setting
from ..shared.averaged import AveragedMetric
from ..shared.base import ClassRow, item_mask
from ..shared.icm import hard_icm_terms, hierarchy_tree, icm_from_sums, icm_signature, norm, parse_hierarchy, tree_pairs
from ..shared.sparse import few_units
from .files import DEFAULT_SEPARATOR, encode_label_sets, read_gold, read_predictions

__all__ = [
    "NAME",
    "METRICS",
    "MultilabelMetric",
    "MultilabelSettings",
    "AVERAGES",
    "LEVELS",
    "read_gold",
    "read_predictions",
    "encode_values",
    "decode",
    "Statistics",
    "UNIT_TABLE",
    "hierarchy_matrix",
    "multilabel_score",
    "sparse_units",
    "submission_format",
]

NAME = "multilabel"
AVERAGES = ("micro", "macro", "weighted", "samples")
LEVELS = ("fine", "coarse")
_SAMPLE_VALUES = ("precision", "recall", "f1", "jaccard")  # per-item values of the samples averages


# ---------------------------------------------------------------------------
# Settings
# ---------------------------------------------------------------------------
def _separator(separator):
    """``label_separator``: a non-empty string without surrounding spaces, line breaks or quotes (ValueError)."""
    if not isinstance(separator, str) or not separator or (separator.strip() and separator.strip() != separator):
        raise ValueError(
            "label_separator must be a non-empty string such as '|' (no surrounding spaces), got %r" % (separator,)
        )
    if "\n" in separator or "\r" in separator or '"' in separator:
        raise ValueError("label_separator cannot hold a line break or a double quote, got %r" % (separator,))
    return separator


def _hierarchy(value):
    """A fine -> coarse mapping (a tree only when icm needs one), or None."""
    if value is None:
        return None
    return parse_hierarchy(value, "{fine_label: coarse_label, ...}", parent="coarse label", acyclic=False)


def _inner(hierarchy):
    """The nodes that are some other node's parent (a self-mapping makes no parent)."""
    return set(parent for child, parent in hierarchy if child != parent)


def _coarse_labels(hierarchy, labels=None):
    """Coarse labels, in order of first appearance: the parents of the labels (of the nodes that are no
    other node's parent when ``labels`` is None).  Higher levels of a deeper tree serve ICM only."""
    inner = _inner(hierarchy)
    below = (lambda child: child in labels) if labels is not None else (lambda child: child not in inner)
    return tuple(dict.fromkeys(coarse for fine, coarse in hierarchy if below(fine)))


@dataclass(frozen=True)
class MultilabelSettings(TaskSettings):
    """The top-level keys of a multi-label task: the ``label_separator`` of a cell, the coarse ``hierarchy``."""

    label_separator: str = setting(
        DEFAULT_SEPARATOR, "Separates the labels of an item in one CSV/TSV cell.", parse=_separator
    )
    hierarchy: object = setting(
        None, "{fine_label: coarse_label} for every label; enables the coarse level (level: coarse).", parse=_hierarchy
    )

    def check(self, metrics, labels):
        """Cross-checks of the metrics, the hierarchy and the configured labels (ValueError)."""
        hierarchy = self.hierarchy
        fine_icm = any("icm" in _needs(spec) and spec.option("level", "fine") == "fine" for spec in metrics)
        if hierarchy is not None and fine_icm:
            try:
                tree_pairs(hierarchy)
            except ValueError as exc:
                raise ValueError("%s; icm over the hierarchy needs a tree (a label may map to itself)" % exc)
        for spec in metrics:
            if spec.task != NAME or spec.option("level", "fine") != "coarse":
                continue
            if hierarchy is None:
                raise ValueError(
                    "metric %s is computed on the coarse level, which needs hierarchy: "
                    "{fine_label: coarse_label, ...}" % spec.key
                )
            coarse = _coarse_labels(hierarchy, labels)
            for label in spec.labels or ():
                if label not in coarse:
                    raise ValueError(
                        "metric %s: label %r is not a coarse label of hierarchy (%s)"
                        % (spec.key, label, ", ".join(coarse))
                    )
        if hierarchy is not None and labels is not None:
            _check_mapped(hierarchy, labels)


def _check_mapped(hierarchy, labels):
    """Every label of ``labels`` has a coarse label, and the hierarchy maps only labels (ValueError)."""
    inner = _inner(hierarchy)
    for fine, _ in hierarchy:
        if fine not in labels and fine not in inner:  # an inner node of a deeper tree maps to its own parent
            raise ValueError(
                "hierarchy maps %r, which is neither one of the labels (%s) nor the coarse label of one"
                % (fine, ", ".join(labels))
            )
    mapped = set(fine for fine, _ in hierarchy)
    unmapped = [label for label in labels if label not in mapped]
    if unmapped:
        raise ValueError(
            "hierarchy has no coarse label for %s; map every label (a label may map to itself)"
            % ", ".join(repr(x) for x in unmapped)
        )


# ---------------------------------------------------------------------------
# The metrics: one object each
# ---------------------------------------------------------------------------
def _canonical(text):
    return str(text).strip().lower().replace("-", "_").replace(" ", "_")


#: The options of the multi-label metrics: every metric takes ``level``; the averaged ones their average.
OPTIONS = (
    Option(
        "average",
        "How per-class (per-label, per-entity-type) values are averaged: macro, micro, weighted, and binary "
        "(one class) or samples (per item) where the task has them.",
    ),
    Option("labels", "The classes a macro average runs over: a subset of the label set (scikit-learn's labels=)."),
    Option(
        "zero_division", "The value of a 0/0 precision, recall or F1 (0 or 1); default: the top-level zero_division."
    ),
    Option(
        "level", "fine (default) or coarse: the metric on the coarse labels that the hierarchy maps the fine ones to."
    ),
)


@dataclass(frozen=True, eq=False, repr=False)
class MultilabelMetric(AveragedMetric):
    """A metric of label sets, at the fine level or (``level: coarse``, ``coarse_f1_macro``) the coarse one."""

    def parse_name(self, name):
        for level in LEVELS:
            prefix = level + "_"
            if name.startswith(prefix):
                rest = name[len(prefix) :]
                if rest in (self.name,) + self.aliases:
                    return {"level": level}
                implied = AveragedMetric.parse_name(self, rest)
                return None if implied is None else dict(implied, level=level)
        return AveragedMetric.parse_name(self, name)

    def known_names(self):
        return AveragedMetric.known_names(self) + (self.spellings if self.averages else ())

    def make_spec(self, options, defaults):
        """Validated fields: ``(fields for MetricSpec, default key, title)`` (ValueError saying what is wrong)."""
        return _make_spec(self, options, defaults)

    def check_gold(self, spec, labels):
        """A fine-level labels subset the label set lacks (the message names only the configured label)."""
        if spec.option("level", "fine") != "fine":
            return None
        present = set(labels or ())
        for label in spec.labels or ():
            if label not in present:
                return (
                    "label %r of its labels is not one of the task's labels (no gold item has it); "
                    "list every label under labels: to score a label the gold never uses" % label
                )
        return None


@dataclass(frozen=True, eq=False, repr=False)
class MultilabelICM(MultilabelMetric):
    """ICM and ICM-Norm of label sets: their signature names the tree (the hierarchy's at the fine level)."""

    def signature(self, spec, gold):
        level = spec.option("level", "fine")
        labels = tuple(gold.labels)
        settings = MultilabelSettings.of(gold)
        if level == "coarse":
            labels = hierarchy_matrix(labels, settings.hierarchy)[0]
        return icm_signature(label_tree(labels, settings, level))


def _make_spec(metric, options, defaults):
    name, averaged = metric.name, metric.averaged
    average = options.get("average")
    if average is not None:
        average = _canonical(average)
    if averaged:
        if average is None:
            raise ValueError("%s needs an average, one of: %s (e.g. %s_macro)" % (name, ", ".join(AVERAGES), name))
        if average not in AVERAGES:
            raise ValueError("average must be one of: %s, got %r" % (", ".join(AVERAGES), average))
    elif average is not None:
        raise ValueError("%s takes no average (got %r)" % (name, average))
    level = _canonical(options.get("level", "fine"))
    if level not in LEVELS:
        raise ValueError("level must be one of: %s, got %r" % (", ".join(LEVELS), options.get("level")))
    labels = _labels_subset(metric, options.get("labels"), average, level, defaults.get("labels"))
    zero_division = options.get("zero_division", defaults.get("zero_division", 0.0))
    if isinstance(zero_division, bool) or zero_division not in (0, 1):
        raise ValueError("zero_division must be 0 or 1, got %r" % (zero_division,))
    key = name if average is None else "%s_%s" % (name, average)
    title = metric.title if average is None else "%s-%s" % (average, metric.title)
    if labels is not None:
        title += " (%s)" % ", ".join(labels)
    extra = ()
    if level == "coarse":
        key, title, extra = "coarse_" + key, "coarse " + title, (("level", "coarse"),)
    fields = dict(average=average, labels=labels, zero_division=float(zero_division), options=extra)
    return fields, key, title


def _labels_subset(metric, labels, average, level, known):
    """The ``labels`` option, checked (ValueError), as a tuple of str; or None."""
    if labels is None:
        return None
    if not metric.averaged or average == "samples":
        raise ValueError(
            "a labels subset is for precision, recall, f1 and jaccard with average micro, macro or weighted"
        )
    if isinstance(labels, (str, int, float)) or not isinstance(labels, (list, tuple)) or not labels:
        raise ValueError("labels must be a non-empty list of labels, got %r" % (labels,))
    labels = tuple(str(x) for x in labels)
    if len(set(labels)) != len(labels):
        raise ValueError("labels lists a label twice: %s" % ", ".join(labels))
    if known is not None and level == "fine":
        for label in labels:
            if label not in known:
                raise ValueError("label %r is not one of the labels: %s" % (label, ", ".join(known)))
    return labels


def _hamming(sums, spec):
    tp, pred, true = sums["tp"], sums["pred"], sums["true"]
    k = tp.shape[-1]
    return (pred + true - 2.0 * tp).sum(axis=-1) / (np.where(sums["n"] == 0, 1.0, sums["n"]) * k)


def _subset_accuracy(sums, spec):
    return sums["exact"] / np.where(sums["n"] == 0, 1.0, sums["n"])


def _averaged(sums, spec):
    """Precision, recall, F1 or Jaccard: per item (samples) or per label (micro, macro, weighted)."""
    safe_n = np.where(sums["n"] == 0, 1.0, sums["n"])
    name, zd = spec.name, spec.zero_division
    if spec.average == "samples":
        undefined = {"precision": "pred_empty", "recall": "true_empty"}.get(name, "both_empty")
        return (sums["s_" + name] + zd * sums[undefined]) / safe_n
    tp, pred, true = sums["tp"], sums["pred"], sums["true"]
    index = sums.get("index")
    if index is not None:
        tp, pred, true = tp[:, index], pred[:, index], true[:, index]
    if spec.average == "micro":
        return _per_label(name, tp.sum(axis=-1), pred.sum(axis=-1), true.sum(axis=-1), zd)
    values = _per_label(name, tp, pred, true, zd)
    if spec.average == "macro":
        return values.mean(axis=-1)
    total = true.sum(axis=-1)  # weighted by gold counts; the plain mean when they are all zero
    weighted = (values * true).sum(axis=-1) / np.where(total == 0, 1.0, total)
    return np.where(total == 0, values.mean(axis=-1), weighted)


def _icm(normalized):
    def formula(sums, spec):
        k = sums["icm_nodes"]
        member, icm, self_icm = sums["icm"][:, :k], sums["icm"][:, k : 2 * k], sums["icm"][:, 2 * k :]
        score = icm_from_sums(sums["n"], member, icm)
        return norm(score, icm_from_sums(sums["n"], member, self_icm)) if normalized else score

    return formula


def _option(*names):
    return tuple(option for option in OPTIONS if option.name in names)


def _averaged_metric(name, title, aliases, spellings=()):
    return MultilabelMetric(
        NAME,
        name,
        title,
        "higher",
        1.0,
        aliases=aliases,
        spellings=spellings,
        options=OPTIONS,
        averages=AVERAGES,
        formula=_averaged,
    )


METRICS = Metrics(
    [
        _averaged_metric("precision", "precision", ("precision_score",)),
        _averaged_metric("recall", "recall", ("recall_score",)),
        _averaged_metric("f1", "F1", ("f1_score", "fscore"), spellings=("coarse_f1_macro",)),
        _averaged_metric("jaccard", "Jaccard", ("jaccard_score",)),
        MultilabelMetric(
            NAME,
            "hamming_loss",
            "Hamming loss",
            "lower",
            0.0,
            aliases=("hamming",),
            options=_option("level"),
            formula=_hamming,
        ),
        MultilabelMetric(
            NAME,
            "subset_accuracy",
            "subset accuracy",
            "higher",
            1.0,
            aliases=("exact_match", "exact_match_ratio", "accuracy", "accuracy_score"),
            options=_option("level"),
            formula=_subset_accuracy,
        ),
        MultilabelICM(
            NAME, "icm", "ICM", "higher", None, ppi=False, options=_option("level"), needs=("icm",), formula=_icm(False)
        ),
        MultilabelICM(
            NAME,
            "icm_norm",
            "ICM-Norm",
            "higher",
            1.0,
            ppi=False,
            aliases=("icmnorm",),
            options=_option("level"),
            needs=("icm",),
            formula=_icm(True),
        ),
    ],
    options=OPTIONS,
)


def _needs(spec):
    """What ``spec``'s formula needs beyond the label counts (nothing for a custom metric)."""
    return METRICS[spec.name].needs if spec.name in METRICS else ()


# ---------------------------------------------------------------------------
# Values for the Python API
# ---------------------------------------------------------------------------
def encode_values(gold_values, systems, labels=None, settings=None):
    """In-memory encoding for ``analyze()``: ``(indicators, labels, {name: indicators})`` (ValueError).

    Each item is a list (tuple, set) of labels, a string of labels separated
    by ``|``, or a 0/1 row (then ``labels`` names the columns, or they are
    ``0 .. K-1``).
    """
    return encode_label_sets(gold_values, systems, labels)


def decode(gold, values):
    """The 0/1 indicator matrix ``(n, K)`` a custom metric receives (columns in ``gold.labels`` order)."""
    return np.asarray(values, dtype=np.int64)


def hierarchy_matrix(labels, hierarchy):
    """``(coarse labels, 0/1 matrix (K, K_coarse))`` of a ``((fine, coarse), ...)`` hierarchy (ValueError).

    A label's coarse label is its parent; in a tree of three levels or more (DIPROMATS: technique ->
    category -> true), the entries of the inner nodes serve ICM's tree and are not coarse labels.
    """
    coarse = _coarse_labels(hierarchy, labels)
    mapping = dict(hierarchy)
    index = dict((c, j) for j, c in enumerate(coarse))
    matrix = np.zeros((len(labels), len(coarse)), dtype=np.int64)
    for k, label in enumerate(labels):
        if label not in mapping:
            raise ValueError(
                "hierarchy has no coarse label for label number %d of %d; map every label" % (k + 1, len(labels))
            )
        matrix[k, index[mapping[label]]] = 1
    inner = _inner(hierarchy)
    unknown = [fine for fine in mapping if fine not in set(labels) and fine not in inner]
    if unknown:
        raise ValueError("hierarchy maps %r, which is not one of the task's labels" % unknown[0])
    return coarse, matrix


# ---------------------------------------------------------------------------
# Scores from sums
# ---------------------------------------------------------------------------
def _divide(num, den, zero_division):
    """num / den, with ``zero_division`` where den == 0 (scikit-learn's rule)."""
    zero = den == 0
    out = num / np.where(zero, 1.0, den)
    return np.where(zero, zero_division, out) if np.any(zero) else out


def _per_label(name, tp, pred, true, zero_division):
    if name == "precision":
        return _divide(tp, pred, zero_division)
    if name == "recall":
        return _divide(tp, true, zero_division)
    if name == "f1":
        return _divide(2.0 * tp, true + pred, zero_division)
    return _divide(tp, true + pred - tp, zero_division)  # jaccard


def multilabel_score(spec, sums, label_index=None):
    """Score a multi-label metric for every (re)sample of ``sums`` (its formula).

    ``sums`` is a dict of arrays: ``tp``, ``pred``, ``true`` ``(N, K)``; ``n``,
    ``exact``, ``pred_empty``, ``true_empty``, ``both_empty`` ``(N,)``; and the
    samples sums ``s_precision``, ``s_recall``, ``s_f1``, ``s_jaccard`` ``(N,)``
    where configured.  NaN where the sample is empty.
    """
    out = METRICS[spec.name].score(dict(sums, index=label_index), spec)
    return np.where(sums["n"] == 0, np.nan, np.asarray(out, dtype=np.float64))


def _sample_values(y, p):
    """Per-item precision, recall, F1 and Jaccard (0 where undefined) and the 0/0 indicators."""
    tp = (y & p).sum(axis=1).astype(np.float64)
    n_pred = p.sum(axis=1).astype(np.float64)
    n_true = y.sum(axis=1).astype(np.float64)
    values = np.stack(
        [
            _divide(tp, n_pred, 0.0),
            _divide(tp, n_true, 0.0),
            _divide(2.0 * tp, n_true + n_pred, 0.0),
            _divide(tp, n_true + n_pred - tp, 0.0),
        ],
        axis=1,
    )
    return values, n_pred == 0, n_true == 0, (n_pred + n_true) == 0


# ---------------------------------------------------------------------------
# Per-item statistics
# ---------------------------------------------------------------------------
def _by_group(features, group_codes, n_groups):
    """``(n, G*F)``: each item's features in its group's block of columns."""
    if n_groups == 1:
        return features
    n, f = features.shape
    out = np.zeros((n, n_groups, f), dtype=features.dtype)
    out[np.arange(n), group_codes, :] = features
    return out.reshape(n, n_groups * f)


class Statistics:
    """Indicator sums of one system, and scores from them, per level (fine, coarse) and group.

    Per level with K labels, per group: the system's ``IndicatorSums`` columns
    ``tp_1..tp_K, pred_1..pred_K, exact, pred_empty, both_empty``; the gold's
    ``true_1..true_K, true_empty, one`` (identical for every system, so the
    end-of-phase stacking counts them once); and, when a ``samples`` average
    is configured, ``ExactSums`` of the per-item precision, recall, F1 and
    Jaccard.
    """

    def __init__(self, add, gold, predictions, metrics, group_codes, n_groups, layout=None):
        y = np.asarray(gold.values)
        p = np.asarray(predictions)
        k = len(gold.labels)
        if y.ndim != 2 or y.shape[1] != k:
            raise ValueError("the gold values must be a 0/1 matrix of shape (n, %d)" % k)
        if p.shape != y.shape:
            raise ValueError("predictions must have shape %s (a 0/1 row per item), got %s" % (y.shape, p.shape))
        if p.size and (p.min() < 0 or p.max() > 1):
            raise ValueError("predictions must be 0/1 label indicators")
        y, p = y.astype(bool), p.astype(bool)
        self.labels = {"fine": tuple(gold.labels)}
        levels = {"fine": (y, p)}
        settings = MultilabelSettings.of(gold)
        if any(m.option("level", "fine") == "coarse" for m in metrics):
            if not settings.hierarchy:
                raise ValueError("coarse-level metrics need hierarchy in the task settings")
            coarse, matrix = hierarchy_matrix(self.labels["fine"], settings.hierarchy)
            self.labels["coarse"] = coarse
            levels["coarse"] = ((y.astype(np.int64) @ matrix) > 0, (p.astype(np.int64) @ matrix) > 0)
        self.n_groups = n_groups
        self._slots, self._nodes = {}, {}
        for level, (yl, pl) in levels.items():
            specs = [m for m in metrics if m.option("level", "fine") == level]
            values, pred_empty, true_empty, both_empty = _sample_values(yl, pl)
            exact = (yl == pl).all(axis=1)
            system = np.concatenate([yl & pl, pl, exact[:, None], pred_empty[:, None], both_empty[:, None]], axis=1)
            gold_part = np.concatenate([yl, true_empty[:, None], np.ones((yl.shape[0], 1), dtype=bool)], axis=1)
            slots = {
                "system": add(IndicatorSums(_by_group(system, group_codes, n_groups))),
                "gold": add(IndicatorSums(_by_group(gold_part, group_codes, n_groups))),
            }
            if any(m.average == "samples" for m in specs):
                slots["samples"] = add(ExactSums(_by_group(values, group_codes, n_groups)))
            if any("icm" in _needs(m) for m in specs):
                tree = label_tree(self.labels[level], settings, level)
                self._nodes[level] = len(tree.nodes)
                slots["icm"] = add(
                    ExactSums(_by_group(_icm_terms(tree, self.labels[level], yl, pl), group_codes, n_groups))
                )
            self._slots[level] = slots
        self._label_index = {}
        for m in metrics:
            if m.labels is not None:
                names = self.labels.get(m.option("level", "fine"), ())
                self._label_index[m.key] = np.array([names.index(x) for x in m.labels], dtype=np.intp)

    def prepare(self, stats):
        """Per level: arrays ``(N, G, width)`` of the system, gold and samples sums."""
        out = {}
        for level, slots in self._slots.items():
            out[level] = dict(
                (
                    part,
                    np.asarray(stats[slot], dtype=np.float64).reshape(
                        np.asarray(stats[slot]).shape[0], self.n_groups, -1
                    ),
                )
                for part, slot in slots.items()
            )
        return out

    def sums(self, prepared, level, j):
        """The sums of ``level`` on all items (``j`` 0) or group ``j - 1``, as :func:`multilabel_score` takes."""
        parts = prepared[level]
        pick = (lambda a: a.sum(axis=1)) if j == 0 else (lambda a: a[:, j - 1])
        system, gold = pick(parts["system"]), pick(parts["gold"])
        k = len(self.labels[level])
        out = {
            "tp": system[:, :k],
            "pred": system[:, k : 2 * k],
            "exact": system[:, 2 * k],
            "pred_empty": system[:, 2 * k + 1],
            "both_empty": system[:, 2 * k + 2],
            "true": gold[:, :k],
            "true_empty": gold[:, k],
            "n": gold[:, k + 1],
        }
        if "samples" in parts:
            samples = pick(parts["samples"])
            for i, what in enumerate(_SAMPLE_VALUES):
                out["s_" + what] = samples[:, i]
        if "icm" in parts:
            out["icm"] = pick(parts["icm"])
            out["icm_nodes"] = self._nodes[level]
        return out

    def score(self, prepared, spec, j):
        """Scores of ``spec`` on all items (``j`` 0) or group ``j - 1``."""
        sums = self.sums(prepared, spec.option("level", "fine"), j)
        if "icm" in _needs(spec):  # ICM's own value on an empty sample (no NaN)
            return METRICS[spec.name].score(sums, spec)
        return multilabel_score(spec, sums, self._label_index.get(spec.key))


def label_tree(labels, settings, level="fine"):
    """ICM's label :class:`.icm.Tree`: the hierarchy's (fine -> coarse) at the fine level if there is one, else flat."""
    return hierarchy_tree(labels, settings.hierarchy if level == "fine" else None)


def _icm_terms(tree, labels, y, p):
    """``(n, 3 nodes)``: each item's node memberships and its ICM and ICM(G, G) coefficients."""
    gold = [[labels[k] for k in np.flatnonzero(row)] for row in y]
    pred = [[labels[k] for k in np.flatnonzero(row)] for row in p]
    return np.concatenate(hard_icm_terms(tree, gold, pred), axis=1)


def unit_rows(statistics, full_stats, rep_stats, labels, method, confidence_level, zero_division):
    """Per-label rows of the detailed results: precision, recall, F1 and the F1's CI (fine labels)."""
    full = statistics.sums(statistics.prepare(full_stats), "fine", 0)
    reps = statistics.sums(statistics.prepare(rep_stats), "fine", 0)
    precision = _per_label("precision", full["tp"], full["pred"], full["true"], zero_division)
    recall = _per_label("recall", full["tp"], full["pred"], full["true"], zero_division)
    f1 = _per_label("f1", full["tp"], full["pred"], full["true"], zero_division)
    f1_reps = _per_label("f1", reps["tp"], reps["pred"], reps["true"], zero_division)
    method = method if method != "bca" else "percentile"  # BCa would need per-label jackknife values
    rows = []
    for k, label in enumerate(labels):
        interval = confidence_interval(method, f1_reps[:, k], f1[0, k], confidence_level)
        rows.append(
            ClassRow(
                label, float(precision[0, k]), float(recall[0, k]), float(f1[0, k]), interval, int(full["pred"][0, k])
            )
        )
    return tuple(rows)


# ---------------------------------------------------------------------------
# Where an interval rests on almost nothing (the sparse_units hook)
# ---------------------------------------------------------------------------
#: What the coverage study found for macro averages over labels with few items.
SPARSE_COVERAGE = "89% instead of 95% for macro-F1 at n = 200 in a coverage study"


def _level_indicators(spec, gold, values):
    """``(label names, (n, K) bool)`` of ``values`` at the metric's level (fine, or coarse by the hierarchy)."""
    x = np.asarray(values).astype(bool)
    labels = tuple(gold.labels)
    if spec.option("level", "fine") == "coarse":
        labels, matrix = hierarchy_matrix(labels, MultilabelSettings.of(gold).hierarchy)
        x = (x.astype(np.int64) @ matrix) > 0
    return labels, x


def sparse_units(spec, gold, predictions=None, items=None):
    """Labels on which a macro average's interval rests on almost nothing, in the ``items``.

    For a macro-averaged precision, recall, F1 or Jaccard (at its level, over its
    ``labels`` if configured): the labels on at most :data:`~.base.FEW_UNITS` gold
    items and, with ``predictions`` (one system's 0/1 rows), those it predicts at
    most that many times.  An empty tuple for other metrics.
    """
    if spec.average != "macro" or spec.name not in METRICS or not METRICS[spec.name].averaged or gold.labels is None:
        return ()
    labels, y = _level_indicators(spec, gold, gold.values)
    keep = item_mask(y.shape[0], items)
    chosen = None if spec.labels is None else [labels.index(x) for x in spec.labels]
    predicted = None if predictions is None else _level_indicators(spec, gold, predictions)[1][keep].sum(axis=0)
    return few_units("label", labels, y[keep].sum(axis=0), predicted, SPARSE_COVERAGE, chosen=chosen)


def submission_format(gold, files, metrics):
    """What participants submit: a label set per id (a separated cell, 0/1 columns or JSON)."""
    separator = MultilabelSettings.of(gold).label_separator
    labels = list(gold.labels or ())
    id_column = files.id_column if gold.ids is not None else None
    fmt, name = table_format(files, "predictions.csv")
    words = TableWords(fmt)
    as_list = fmt in ("json", "jsonl")
    header = ([id_column] if id_column else []) + [files.gold_column]
    ids = gold.ids or [None] * int(gold.values.shape[0])

    def row(ident, chosen):
        cell = chosen if as_list else separator.join(chosen)
        return ([ident] if id_column else []) + [cell]

    sample, _ = table_sample(fmt, header, [row(i, []) for i in ids])
    _, example = table_sample(fmt, header, [row(i, labels[: k % 3]) for k, i in enumerate(ids[:4])])
    where = "one %s per test item, %s" % (words.row, "in any order" if id_column else "in the order of the test items")
    cell = (
        "the labels of an item in a list; an empty list means no label"
        if as_list
        else "the labels of an item in one cell, separated by `%s`; an empty cell means no label" % separator
    )
    return SubmissionFormat(
        unit="test item",
        units="test items",
        goal="Predict the set of labels of each of the {n} test items.",
        description=(
            "A %s file with %s%s: %s. The labels are %s. Also accepted: one 0/1 column per label (CSV or TSV), "
            'JSON `{"id": ["label", ...]}` or JSON Lines `{"id": ..., "labels": [...]}`.\n\n```\n%s\n```\n'
            % (
                words.noun,
                "a header and " if words.header else "",
                where,
                cell,
                ", ".join("`%s`" % label for label in labels),
                example,
            )
        ),
        file_name=name,
        sample=sample,
        public_files=(("test_ids.txt", "\n".join(gold.ids) + "\n"),) if id_column else (),
    )


#: The per-label table (fine labels) of the detailed results and the end-of-phase report.
UNIT_TABLE = UnitTable("label", unit_rows)

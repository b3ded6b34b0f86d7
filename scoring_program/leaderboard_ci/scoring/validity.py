"""Plain-language warnings where an interval rests on almost nothing.

An independent coverage study found bootstrap intervals covering 76-90 % instead of
95 % in two situations, which these functions detect so that the detailed results and
the end-of-phase report can say so:

* a macro-averaged metric (macro precision, recall or F1, balanced accuracy) when a
  class has :data:`FEW` or fewer gold items, or :data:`FEW` or fewer predictions, in the
  test set or in a group: that class's precision or recall, a full share of the average,
  is computed from a handful of items and jumps between resamples;
* RMSE (and MSE) with heavy-tailed errors: when a few items carry a large share of the
  squared error (:data:`HEAVY_TAIL_SHARE` of it in the largest 1 %, at least 3 items),
  the resamples that miss or repeat them swing the score and the interval is too short
  (near 90 % at n of about 300).

Messages for participants never give a gold count: "at most 3 gold items" is the most
they say.  Only numpy; Python 3.7.
"""
from __future__ import annotations

import numpy as np

__all__ = ["FEW", "HEAVY_TAIL_SHARE", "sparse_classes", "sparse_class_notes", "tail_share", "heavy_tail_note",
           "is_macro"]

#: Classes with this many gold items or predictions, or fewer, are flagged.
FEW = 3
#: Share of the squared error in the largest 1 % of items (at least 3) above which RMSE is flagged.
HEAVY_TAIL_SHARE = 0.2


def is_macro(spec):
    """Whether a metric averages over classes with equal weight (macro P/R/F1, balanced accuracy)."""
    return spec.name == "balanced_accuracy" or (spec.name in ("precision", "recall", "f1")
                                                 and getattr(spec, "average", None) == "macro")


def sparse_classes(labels, gold_codes, predicted_codes, items=None, few=FEW):
    """``(classes with few gold items, {class: predictions} for classes predicted few times)``.

    Parameters
    ----------
    labels : sequence of str
        The class labels, indexed by code.
    gold_codes, predicted_codes : array of int
        Class codes per item (``predicted_codes`` may be None: gold only).
    items : array of bool, optional
        The items to count (a group); all by default.
    """
    gold = np.asarray(gold_codes)
    keep = np.ones(gold.shape[0], dtype=bool) if items is None else np.asarray(items, dtype=bool)
    k = len(labels)
    gold_counts = np.bincount(gold[keep].astype(np.intp), minlength=k)[:k]
    few_gold = [str(labels[c]) for c in range(k) if gold_counts[c] <= few]
    few_pred = {}
    if predicted_codes is not None:
        pred = np.asarray(predicted_codes)[keep].astype(np.intp)
        pred = pred[(pred >= 0) & (pred < k)]
        pred_counts = np.bincount(pred, minlength=k)[:k]
        few_pred = dict((str(labels[c]), int(pred_counts[c])) for c in range(k) if pred_counts[c] <= few)
    return few_gold, few_pred


def _names(values, limit=6):
    values = list(values)
    shown = ", ".join("'%s'" % v for v in values[:limit])
    return shown + (" and %d more" % (len(values) - limit) if len(values) > limit else "")


def sparse_class_notes(metrics, labels, gold_codes, predicted_codes, groups=None, group_values=None,
                       predictor="you predict", name_gold_classes=True, per_class=True):
    """Notes for the macro-averaged metrics among ``metrics`` (empty when none applies).

    ``predictor`` starts the sentence about predictions ("you predict", "knn predicts");
    with ``predicted_codes`` None only the gold counts are checked.  For participants
    (``name_gold_classes=False``) the note on rare gold classes names neither the classes
    nor the groups nor a count: which classes are rare in the gold is a fact of the gold.
    ``per_class=False`` (the organizer turned the per-class table off) drops the notes
    that list classes.
    """
    macro = [m for m in metrics if is_macro(m)]
    if not macro or labels is None:
        return []
    titles = ", ".join(m.title for m in macro)
    scopes = [(None, None)]
    if groups is not None and group_values is not None:
        codes = np.asarray(groups)
        scopes += [(value, codes == g) for g, value in enumerate(group_values)]
    notes = []
    for value, items in scopes:
        where = "the test set" if value is None else "group '%s'" % value
        few_gold, few_pred = sparse_classes(labels, gold_codes, predicted_codes, items)
        if few_gold and not name_gold_classes:
            generic = ("Some classes have very few items in the test data, so %s rest%s on almost nothing for "
                       "them: such intervals can cover far less than their nominal level (76-90%% instead of 95%% "
                       "in a coverage study)." % (titles, "" if len(macro) > 1 else "s"))
            if generic not in notes:
                notes.append(generic)
        elif few_gold:
            notes.append("In %s, %s %s at most %d gold items, so %s rest%s on almost nothing for %s: such "
                         "intervals can cover far less than their nominal level (76-90%% instead of 95%% in a "
                         "coverage study)."
                         % (where, ("classes %s" if len(few_gold) > 1 else "class %s") % _names(few_gold),
                            "have" if len(few_gold) > 1 else "has", FEW, titles, "" if len(macro) > 1 else "s",
                            "them" if len(few_gold) > 1 else "it"))
        if few_pred and per_class and (name_gold_classes or value is None):  # group membership is the gold's
            listed = ", ".join("'%s' %d time%s" % (c, n, "" if n == 1 else "s") for c, n in list(few_pred.items())[:6])
            notes.append("In %s, %s %s (at most %d), so the precision of %s in %s rests on almost nothing "
                         "and the interval can cover far less than its nominal level."
                         % (where, predictor, ("classes %s" if len(few_pred) > 1 else "class %s") % listed, FEW,
                            "those classes" if len(few_pred) > 1 else "that class", titles))
    return notes


def tail_share(gold_values, predictions, items=None):
    """Share of the squared error carried by the largest 1 % of items (at least 3); None for fewer than 10 items."""
    y = np.asarray(gold_values, dtype=np.float64)
    p = np.asarray(predictions, dtype=np.float64)
    if items is not None:
        keep = np.asarray(items, dtype=bool)
        y, p = y[keep], p[keep]
    squared = (y - p) ** 2
    squared = squared[np.isfinite(squared)]
    if squared.size < 10:
        return None
    total = float(squared.sum())
    if total <= 0.0:
        return 0.0
    top = max(3, int(np.ceil(0.01 * squared.size)))
    return float(np.sort(squared)[-top:].sum()) / total


def heavy_tail_note(metrics, gold_values, predictions, items=None, where="the test set", who="your predictions"):
    """A note when RMSE or MSE is configured and a few items carry much of the squared error; else None.

    ``who`` names the predictions ("your predictions", "knn's predictions").
    """
    squared = [m for m in metrics if m.name in ("rmse", "mse")]
    if not squared:
        return None
    share = tail_share(gold_values, predictions, items)
    if share is None or share < HEAVY_TAIL_SHARE:
        return None
    n = int(np.count_nonzero(items)) if items is not None else int(np.asarray(gold_values).shape[0])
    top = max(3, int(np.ceil(0.01 * n)))
    return ("In %s, the %d largest errors of %s carry %.0f%% of the squared error (heavy tails), so the %s "
            "interval depends on whether a resample includes those few items and can cover less than its nominal "
            "level (about 90%% instead of 95%% at n = 300 in a coverage study)."
            % (where, top, who, 100 * share, " and ".join(m.title for m in squared)))

"""What the task types' ``sparse_units`` hooks share: counting units of a macro average.

A macro average gives each unit (class, label, entity type) an equal share of the
score; a unit with at most :data:`~.base.FEW_UNITS` gold occurrences or predictions
contributes a precision or recall computed from a handful of items, which jumps
between resamples, so the interval rests on almost nothing (see
:mod:`leaderboard_ci.scoring.validity`).  Only numpy; Python 3.7.
"""

from __future__ import annotations

import numpy as np

from .base import FEW_UNITS, SparseUnits, item_mask

__all__ = ["is_macro", "few_units", "class_code_units", "macro_class_units", "few_queries"]

#: What the coverage study found for macro-averaged metrics over single-label classes with few items.
CLASS_COVERAGE = "76-90% instead of 95% in a coverage study"


def is_macro(spec):
    """Whether a single-label metric averages over classes with equal weight (macro P/R/F1, balanced accuracy)."""
    return spec.name == "balanced_accuracy" or (spec.name in ("precision", "recall", "f1") and spec.average == "macro")


def few_units(
    unit,
    names,
    gold_counts,
    predicted_counts,
    coverage,
    gold_of="gold items",
    predicted_of="predictions",
    chosen=None,
    few=FEW_UNITS,
):
    """:class:`~.base.SparseUnits` of the units (``chosen`` indices; all by default) counted ``few`` times or less.

    ``gold_counts`` and ``predicted_counts`` (None: not checked) are per unit, in
    the order of ``names``.
    """
    chosen = range(len(names)) if chosen is None else chosen
    out = []
    for side, counts, of in (("gold", gold_counts, gold_of), ("predicted", predicted_counts, predicted_of)):
        if counts is None:
            continue
        found = tuple((str(names[k]), int(counts[k])) for k in chosen if counts[k] <= few)
        if found:
            out.append(SparseUnits(unit, side, found, few, coverage, of))
    return tuple(out)


def class_code_units(labels, gold_codes, predicted_codes=None, items=None):
    """Classes with few gold items or few predictions, from class codes (``classification``, ``scores``)."""
    gold = np.asarray(gold_codes)
    keep = item_mask(gold.shape[0], items)
    k = len(labels)
    gold_counts = np.bincount(gold[keep].astype(np.intp), minlength=k)[:k]
    pred_counts = None
    if predicted_codes is not None:
        pred = np.asarray(predicted_codes)[keep].astype(np.intp)
        pred_counts = np.bincount(pred[(pred >= 0) & (pred < k)], minlength=k)[:k]
    return few_units("class", labels, gold_counts, pred_counts, CLASS_COVERAGE)


def macro_class_units(spec, gold, predictions=None, items=None):
    """The ``classification`` task's ``sparse_units`` hook: for a macro average, the classes with at most
    :data:`~.base.FEW_UNITS` gold items in the ``items`` (all by default) or, with ``predictions``
    (one system's class codes), predictions."""
    if not is_macro(spec) or gold.labels is None:
        return ()
    return class_code_units(gold.labels, gold.values, predictions, items)


def few_queries(judged, items, few, coverage):
    """One unnamed :class:`~.base.SparseUnits` when at most ``few`` queries (rows of ``judged``) have a relevant
    document in the ``items``; else an empty tuple."""
    judged = np.asarray(judged, dtype=bool)
    k = int(judged[item_mask(judged.shape[0], items)].any(axis=1).sum())
    if k > few:
        return ()
    return (SparseUnits("query", "gold", (("", k),), few, coverage, "a relevant document"),)

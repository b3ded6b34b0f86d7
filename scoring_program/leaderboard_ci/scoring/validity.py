"""Plain-language warnings where an interval rests on almost nothing, or looks surer than it is.

An independent coverage study found bootstrap intervals covering less than their
nominal 95 % in a few situations, which these functions detect so that the detailed
results and the end-of-phase report can say so:

* **sparse units**: a macro average over classes, labels or entity types when one of
  them has :data:`FEW` or fewer gold occurrences, or :data:`FEW` or fewer predictions
  (76-90 % for single-label classes, 89 % for multi-label macro-F1, 93 % for entity
  macro-F1 at n = 200); ROC-AUC and average precision with few positives or negatives
  (87 %); a mean over a handful of queries.  The task type says which units are
  sparse through its ``sparse_units`` hook (:mod:`leaderboard_ci.tasks`); nothing here
  names a task type.
* **heavy tails**: a metric that is the mean of per-item terms (squared or absolute
  errors, log loss, Brier score: the task's ``item_contributions`` hook) when the
  largest 1 % of the terms (at least 3) carry :data:`HEAVY_TAIL_SHARE` of their sum:
  the resamples that miss or repeat those items swing the score (RMSE: about 90 %
  coverage at n of about 300).
* **degenerate intervals**: an interval of zero width, or one that ends at the best
  value the metric can take.  Every resample gave the same value (no errors on the
  test set, say), which is not certainty: the bootstrap cannot see variability the
  test set does not show.

Messages for participants (``participant=True``) never give a gold count nor name
a unit that is rare in the gold, nor a group where it is: those are facts of the gold.
Only numpy; Python 3.7.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from ..tasks.registry import task_type
from ..tasks.shared.base import FEW_UNITS, GoldStandard
from ..tasks.shared.sparse import is_macro

__all__ = [
    "FEW",
    "HEAVY_TAIL_SHARE",
    "is_macro",
    "sparse_units_of",
    "sparse_notes",
    "sparse_class_notes",
    "item_contributions_of",
    "tail_share",
    "heavy_tail_notes",
    "degenerate_interval_note",
    "degenerate_notes",
    "submission_warnings",
    "target_scopes",
    "system_flags",
    "phase_notes",
]

#: Units (classes, labels, entity types) with this many gold items or predictions, or fewer, are flagged.
FEW = FEW_UNITS
#: Share of a per-item metric's sum carried by its largest 1 % of items (at least 3) above which it is flagged.
HEAVY_TAIL_SHARE = 0.2

_PLURALS = {"class": "classes", "entity type": "entity types", "query": "queries", "label": "labels"}
#: What participants read for the counted thing (never the word "gold").
_PARTICIPANT_OF = {"gold items": "items", "gold entities": "entities"}


def _plural(unit):
    return _PLURALS.get(unit, unit + "s")


def _names(values, limit=6):
    values = list(values)
    shown = ", ".join("'%s'" % v for v in values[:limit])
    return shown + (" and %d more" % (len(values) - limit) if len(values) > limit else "")


def _rest(titles):
    """``("F1 and recall", "rest")`` / ``("F1", "rests")``."""
    return " and ".join(titles), "rest" if len(titles) > 1 else "rests"


def target_scopes(gold, group=None, every_group=True):
    """``[(items mask or None, "the test set" / "group 'x'", group value)]``: all items and each group.

    With ``group`` given, only that group's scope; with ``every_group=False`` and no
    ``group``, only all items (one target of the end-of-phase analysis).
    """
    scopes = []
    if group is None:
        scopes.append((None, "the test set", None))
        if every_group and gold.groups is not None and gold.group_values is not None:
            codes = np.asarray(gold.groups)
            scopes += [(codes == g, "group '%s'" % v, v) for g, v in enumerate(gold.group_values)]
    else:
        codes = np.asarray(gold.groups)
        scopes.append((codes == list(gold.group_values).index(group), "group '%s'" % group, group))
    return scopes


# ---------------------------------------------------------------------------
# Sparse units
# ---------------------------------------------------------------------------
def sparse_units_of(spec, gold, predictions=None, items=None):
    """The task's :class:`~leaderboard_ci.tasks.shared.base.SparseUnits` of ``spec`` (empty without the capability)."""
    sparse_units = task_type(gold.kind).sparse_units
    return () if sparse_units is None else tuple(sparse_units(spec, gold, predictions, items))


def _gold_sentence(found, titles, where, participant):
    what, verb = _rest(titles)
    unit, counts = found.unit, found.counts
    unnamed = all(name == "" for name, _ in counts)
    if participant:
        if unnamed:
            return (
                "Few %s in the test data have %s, so %s %s on almost nothing: such intervals can cover less "
                "than their nominal level (%s)." % (_plural(unit), found.of, what, verb, found.coverage)
            )
        return (
            "Some %s have very few %s in the test data, so %s %s on almost nothing for them: such intervals "
            "can cover far less than their nominal level (%s)."
            % (_plural(unit), _PARTICIPANT_OF.get(found.of, found.of), what, verb, found.coverage)
        )
    if unnamed:
        k = sum(n for _, n in counts)
        return (
            "In %s, only %d %s %s %s (at most %d), so %s %s on almost nothing: such intervals can cover less "
            "than their nominal level (%s)."
            % (
                where,
                k,
                unit if k == 1 else _plural(unit),
                "has" if k == 1 else "have",
                found.of,
                found.few,
                what,
                verb,
                found.coverage,
            )
        )
    names = [name for name, _ in counts]
    many = len(names) > 1
    return (
        "In %s, %s %s %s at most %d %s, so %s %s on almost nothing for %s: such intervals can cover far less "
        "than their nominal level (%s)."
        % (
            where,
            _plural(unit) if many else unit,
            _names(names),
            "have" if many else "has",
            found.few,
            found.of,
            what,
            verb,
            "them" if many else "it",
            found.coverage,
        )
    )


def _predicted_sentence(found, titles, where, predictor):
    listed = ", ".join("'%s' %d time%s" % (c, n, "" if n == 1 else "s") for c, n in found.counts[:6])
    if len(found.counts) > 6:
        listed += " and %d more" % (len(found.counts) - 6)
    many = len(found.counts) > 1
    return (
        "In %s, %s %s %s (at most %d), so the precision of %s in %s rests on almost nothing and the interval "
        "can cover far less than its nominal level."
        % (
            where,
            predictor,
            _plural(found.unit) if many else found.unit,
            listed,
            found.few,
            "those %s" % _plural(found.unit) if many else "that %s" % found.unit,
            " and ".join(titles),
        )
    )


def sparse_notes(
    metrics,
    gold,
    predictions=None,
    predictor="you predict",
    participant=False,
    per_class=True,
    group=None,
    every_group=True,
):
    """Notes where the ``metrics``' intervals rest on sparse units (empty when none applies).

    Parameters
    ----------
    metrics : sequence of MetricSpec
    gold : GoldStandard
    predictions : array, optional
        One system's encoded predictions; None checks the gold only.
    predictor : str
        Starts the sentence about predictions ("you predict", "knn predicts").
    participant : bool
        For the participant's page: the note on units rare in the gold names neither
        the units nor the group nor a count, and predictions are checked on all items
        only (group membership is the gold's).
    per_class : bool
        False (on the participant's page unless the organizer turned the per-unit table
        on: ``detailed_results.per_class``) drops the notes that list units.
    group : str, optional
        Only this group's items; by default all items and then each group
        (``every_group=False``: all items only).
    """
    collected = OrderedDict()  # sentence key -> (found, where, titles)
    for items, where, value in target_scopes(gold, group, every_group):
        for spec in metrics:
            for found in sparse_units_of(spec, gold, predictions, items):
                if found.side == "predicted" and (not per_class or (participant and value is not None)):
                    continue
                place = "" if participant and found.side == "gold" else where
                key = (found, place)
                if key not in collected:
                    collected[key] = (found, place, [])
                if spec.title not in collected[key][2]:
                    collected[key][2].append(spec.title)
    notes = []
    for found, where, titles in collected.values():
        if found.side == "gold":
            text = _gold_sentence(found, titles, where, participant)
        else:
            text = _predicted_sentence(found, titles, where, predictor)
        if text not in notes:
            notes.append(text)
    return notes


def sparse_class_notes(
    metrics,
    labels,
    gold_codes,
    predicted_codes,
    groups=None,
    group_values=None,
    predictor="you predict",
    name_gold_classes=True,
    per_class=True,
):
    """:func:`sparse_notes` for single-label class codes (``name_gold_classes=False``: the participant's)."""
    gold = GoldStandard(
        values=np.asarray(gold_codes), labels=tuple(labels), groups=groups, group_values=group_values
    )  # class codes with labels: the label task
    return sparse_notes(metrics, gold, predicted_codes, predictor, not name_gold_classes, per_class)


# ---------------------------------------------------------------------------
# Heavy tails
# ---------------------------------------------------------------------------
def item_contributions_of(spec, gold, predictions):
    """The task's ``(terms, noun, coverage)`` of a per-item-mean metric, or None."""
    item_contributions = task_type(gold.kind).item_contributions
    return None if item_contributions is None else item_contributions(spec, gold, predictions)


def _top_count(n):
    return max(3, int(np.ceil(0.01 * n)))


def tail_share(contributions, items=None):
    """Share of the sum of non-negative per-item ``contributions`` carried by the largest 1 % (at least 3).

    None for fewer than 10 finite terms; 0 when they sum to 0.
    """
    terms = np.asarray(contributions, dtype=np.float64)
    if items is not None:
        terms = terms[np.asarray(items, dtype=bool)]
    terms = terms[np.isfinite(terms)]
    if terms.size < 10:
        return None
    total = float(terms.sum())
    if total <= 0.0:
        return 0.0
    return float(np.sort(terms)[-_top_count(terms.size) :].sum()) / total


def heavy_tail_notes(
    metrics, gold, predictions, items=None, where="the test set", who="your predictions", participant=False
):
    """Notes for the ``metrics`` whose largest per-item terms carry much of their sum (heavy tails).

    One note per kind of term ("squared error" for RMSE and MSE together).  For
    participants the note gives neither the number of items nor the share.
    """
    by_noun = OrderedDict()
    for spec in metrics:
        found = item_contributions_of(spec, gold, predictions)
        if found is None:
            continue
        terms, noun, coverage = found
        share = tail_share(terms, items)
        if share is None or share < HEAVY_TAIL_SHARE:
            continue
        n = int(np.count_nonzero(np.isfinite(terms if items is None else np.asarray(terms)[np.asarray(items, bool)])))
        entry = by_noun.setdefault(noun, [share, _top_count(n), coverage, []])
        entry[3].append(spec.title)
    notes = []
    for noun, (share, top, coverage, titles) in by_noun.items():
        level = "its nominal level" + (" (%s)" % coverage if coverage else "")
        if participant:
            notes.append(
                "In %s, a few items carry a large share of the %s of %s (heavy tails), so the %s interval "
                "depends on whether a resample includes those few items and can cover less than %s."
                % (where, noun, who, " and ".join(titles), level)
            )
        else:
            notes.append(
                "In %s, the %d largest terms of %s carry %.0f%% of the %s (heavy tails), so the %s interval "
                "depends on whether a resample includes those few items and can cover less than %s."
                % (where, top, who, 100 * share, noun, " and ".join(titles), level)
            )
    return notes


# ---------------------------------------------------------------------------
# Degenerate intervals
# ---------------------------------------------------------------------------
_NOT_CERTAIN = (
    "every resample gave the same value (for example, no errors on the test set), so the bootstrap "
    "cannot see variability the test set does not show: this is not certainty, the true uncertainty "
    "is larger (with no errors among n items, a 95%% bound on the error rate is still about 3/n, the "
    "rule of three)"
)
#: A zero-width interval away from the best value: the value does not depend on which items are drawn.
_CONSTANT = (
    "every resample gave the same value whichever items it drew, because the predictions do not vary in "
    "the way the metric reads them (for example, a ROC-AUC of 0.5 for scores that are all equal, an MCC or "
    "kappa of 0 for a single predicted class, a difference of 0 between identical predictions), so the "
    "interval shows no uncertainty; it is not certainty: it says nothing about how the value would vary"
)


def _zero_width_reason(value, best):
    """Why an interval has zero width: no errors (the value is the best one: the rule of three) or a constant."""
    return _NOT_CERTAIN % () if best is not None and abs(value - best) <= 1e-12 else _CONSTANT


def _fmt(value):
    return "%.4g" % value


def _zero_width(low, high):
    return high - low <= 1e-12 * max(1.0, abs(low), abs(high))


def degenerate_interval_note(low, high, where, best=None, title="the metric"):
    """A sentence when the interval ``[low, high]`` has zero width or ends at ``best``; else None.

    ``where`` starts the sentence ("F1, all items"); ``best`` is the best value the
    metric can take (``spec.info.best``; None for a difference or an unbounded metric).
    """
    if low is None or high is None or not (np.isfinite(low) and np.isfinite(high)):
        return None
    if _zero_width(low, high):
        return "%s: the interval [%s, %s] has zero width: %s." % (
            where,
            _fmt(low),
            _fmt(high),
            _zero_width_reason(low, best),
        )
    if best is not None and (abs(high - best) <= 1e-12 or abs(low - best) <= 1e-12):
        return (
            "%s: the interval ends at %s, the best value %s can take: the resamples without the few "
            "errors all give %s, so the interval stops at the bound; that is not certainty, the true "
            "uncertainty is larger on that side and the interval can cover less than its nominal level."
            % (where, _fmt(best), title, _fmt(best))
        )
    return None


def degenerate_notes(title, best, names, lows, highs, limit=5, what="interval", n_items=None):
    """Notes on the systems whose ``title`` ``what`` (their score interval, say) is degenerate, aggregated.

    One note for the systems with zero-width intervals, one for those ending at
    ``best`` (the metric's best value, ``spec.info.best``; None: not checked).
    For the end-of-phase report and the benchmark (organizers): names are the
    systems', and ``n_items`` (the target's items) makes the rule of three concrete.
    """
    zero, constant, bound = [], [], []
    for name, low, high in zip(names, lows, highs):
        if low is None or high is None or not (np.isfinite(low) and np.isfinite(high)):
            continue
        if _zero_width(low, high):
            (zero if best is not None and abs(low - best) <= 1e-12 else constant).append(str(name))
        elif best is not None and (abs(high - best) <= 1e-12 or abs(low - best) <= 1e-12):
            bound.append(str(name))

    def listed(found):
        return ", ".join(found[:limit]) + (" ..." if len(found) > limit else "")

    reason = _NOT_CERTAIN % ()
    if n_items:
        reason = reason.replace(
            "among n items, a 95% bound on the error rate is still about 3/n",
            "among %d items, a 95%% bound on the error rate is still about 3/%d = %.2g"
            % (n_items, n_items, 3.0 / n_items),
        )
    notes = []
    for found, why in ((zero, reason), (constant, _CONSTANT)):
        if not found:
            continue
        notes.append(
            "%d system%s ha%s a zero-width %s %s (%s): %s"
            % (
                len(found),
                "s" if len(found) > 1 else "",
                "ve" if len(found) > 1 else "s",
                title,
                what,
                listed(found),
                why,
            )
        )
    if bound:
        notes.append(
            "%d system%s ha%s %s %s %s ending at %s, the best value it can take (%s): the resamples "
            "without the few errors all give %s; that is not certainty, the true uncertainty is larger on "
            "that side and such intervals can cover less than their nominal level"
            % (
                len(bound),
                "s" if len(bound) > 1 else "",
                "ve" if len(bound) > 1 else "s",
                "their" if len(bound) > 1 else "its",
                title,
                what,
                _fmt(best),
                listed(bound),
                _fmt(best),
            )
        )
    return notes


# ---------------------------------------------------------------------------
# The per-submission program's warnings
# ---------------------------------------------------------------------------
def submission_warnings(metrics, gold, predictions, per_class=True):
    """The participant's warnings: sparse units, then heavy tails, on all items and each group."""
    notes = sparse_notes(metrics, gold, predictions, participant=True, per_class=per_class)
    for items, where, _ in target_scopes(gold):
        notes += heavy_tail_notes(metrics, gold, predictions, items, where, participant=True)
    score_notes = task_type(gold.kind).score_notes
    for spec in metrics if score_notes is not None else ():
        notes += [note for note in score_notes(spec, gold, predictions) if note not in notes]
    return tuple(notes)


# ---------------------------------------------------------------------------
# The end-of-phase analysis' notes (one target: a metric on all items or one group)
# ---------------------------------------------------------------------------
def system_flags(gold, spec, group, values):
    """``(sparse, heavy)`` of one system on one target: it predicts some unit few times; heavy tails."""
    items = None if group is None else target_scopes(gold, group)[0][0]
    sparse = any(found.side == "predicted" for found in sparse_units_of(spec, gold, values, items))
    heavy = bool(heavy_tail_notes([spec], gold, values, items))
    return sparse, heavy


def _lower_first(text):
    text = text[:1].lower() + text[1:]
    return text[:-1] if text.endswith(".") else text


def phase_notes(gold, spec, group, names, flags, limit=5):
    """The organizer's notes on one target: sparse gold units (named), and the systems flagged by ``flags``.

    ``flags`` holds every system's :func:`system_flags`.  The notes start in lower
    case and have no final period, like the analysis' other notes.
    """
    where = "the test set" if group is None else "group '%s'" % group
    notes = [_lower_first(n) for n in sparse_notes([spec], gold, None, group=group, every_group=False)]
    table = task_type(gold.kind).unit_table
    unit = table.unit if table is not None else "class"

    def listed(found):
        return ", ".join(found[:limit]) + (" ..." if len(found) > limit else "")

    sparse = [names[j] for j in range(len(names)) if flags[j][0]]
    if sparse:
        notes.append(
            "in %s, %d system%s some %s at most %d times (%s): the precision of that %s, and so the %s "
            "interval, rests on almost nothing for %s"
            % (
                where,
                len(sparse),
                "s predict" if len(sparse) > 1 else " predicts",
                unit,
                FEW,
                listed(sparse),
                unit,
                spec.title,
                "them" if len(sparse) > 1 else "it",
            )
        )
    heavy = [names[j] for j in range(len(names)) if flags[j][1]]
    if heavy:
        notes.append(
            "in %s, the largest 1%% of per-item terms (at least 3 items) carry at least a fifth of the sum "
            "behind %s for %d system%s (%s): heavy tails, so these intervals can cover less than their "
            "nominal level (RMSE: about 90%% instead of 95%% at n = 300 in a coverage study)"
            % (where, spec.title, len(heavy), "s" if len(heavy) > 1 else "", listed(heavy))
        )
    return notes

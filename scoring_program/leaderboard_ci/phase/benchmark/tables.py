"""The benchmark's tables, one step each: scores, gains, gaps, aggregates, pairs and rank intervals.

Every interval follows ``bootstrap.method`` of the task it belongs to:

* a score's interval uses its task's method, BCa with the system's jackknife
  on that test set, so it equals the task's own leaderboard on the same
  resamples (Efron, B. (1987). Better bootstrap confidence intervals. JASA
  82(397), 171-185 for BCa; Davison & Hinkley (1997), ch. 5, for basic);
* a gain's interval uses its task's method, except that BCa, which has no
  jackknife of the gain, reads the percentile interval (as the end-of-phase
  gain table does), said in a note;
* intervals across test sets (aggregates and their pairs) use the method the
  scope's tasks share; tasks asking different methods, or BCa (no jackknife
  over a union of test sets), read the percentile interval, said in a note;
* gaps between two languages keep :func:`~leaderboard_ci.core.benchmark_stats.gap`'s
  percentile interval and two-sided p-value (independent resamples: no paired method applies).

Systems missing from a test set are NaN there (:func:`aligned`).
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pandas as pd

from ...core.benchmark_stats import aggregate, average_ranks, gain, gap, rank_summary, reference_point
from ...core.intervals import confidence_interval
from ...core.pairs import pair_statistics, ranked_pairs
from ...scoring.errors import ConfigError
from ...scoring.validity import degenerate_notes
from ..analysis.corrections import adjust

__all__ = [
    "aligned",
    "interval",
    "score_table",
    "gain_table",
    "gap_table",
    "aggregate_setting",
    "scopes_of",
    "aggregate_tables",
    "test_set_ranks",
    "SCORE_COLUMNS",
    "GAIN_COLUMNS",
    "GAP_COLUMNS",
    "AGGREGATE_COLUMNS",
    "PAIR_COLUMNS",
    "RANK_COLUMNS",
]

SCORE_COLUMNS = ["task", "language", "system", "score", "ci_low", "ci_high"]
GAIN_COLUMNS = ["task", "language", "system", "gain", "ci_low", "ci_high", "reference_point", "baseline"]
GAP_COLUMNS = ["task", "languages", "system", "gap", "ci_low", "ci_high", "p_value", "of"]
AGGREGATE_COLUMNS = ["scope", "system", "value", "ci_low", "ci_high", "rank", "average_rank"]
PAIR_COLUMNS = ["scope", "a", "b", "diff", "ci_low", "ci_high", "p_value", "p_holm"]
RANK_COLUMNS = ["scope", "system", "rank", "rank_pct_low", "rank_pct_high", "p_first"]


def aligned(systems, ts, values):
    """``(..., m_ts) -> (..., M)``: a test set's values on the benchmark's systems, NaN where absent."""
    out = np.full(values.shape[:-1] + (len(systems),), np.nan)
    out[..., [systems.index(n) for n in ts.names]] = values
    return out


def interval(method, reps, observed, level, jackknife=None):
    """``(low, high)`` of ``method`` from the finite replicates; NaN when none is finite."""
    d = np.asarray(reps, dtype=np.float64)
    keep = np.isfinite(d)
    if not keep.any() or not np.isfinite(observed):
        return np.nan, np.nan
    iv = confidence_interval(method, d[keep], observed, level, jackknife=jackknife)
    return iv.low, iv.high


def _noted(ts, title, best, rows):
    """The zero-width-interval notes of one test set's rows, prefixed with its label."""
    return [
        "%s: %s" % (ts.label, n)
        for n in degenerate_notes(
            title, best, ts.names, [r["ci_low"] for r in rows], [r["ci_high"] for r in rows], n_items=ts.n_items
        )
    ]


def score_table(test_sets, level):
    """Each system's official score on each test set with its task's interval.

    Returns ``(table, notes)``, ``notes[label]`` the test set's zero-width-interval notes.
    """
    rows, notes = [], OrderedDict()
    for ts in test_sets:
        block = []
        for j, name in enumerate(ts.names):
            jackknife = ts.jackknife[j] if ts.method == "bca" else None
            low, high = interval(ts.method, ts.replicates[:, j], ts.full[j], level, jackknife)
            block.append(
                OrderedDict(zip(SCORE_COLUMNS, (ts.task.name, ts.task.language, name, float(ts.full[j]), low, high)))
            )
        rows += block
        notes[ts.label] = _noted(ts, ts.metric.title, ts.metric.info.best, block)
    return pd.DataFrame(rows, columns=SCORE_COLUMNS), notes


def gain_table(test_sets, systems, level):
    """ODESIA's gain over the mean baseline of every test set with baselines.

    Returns ``(table, gain_full, gain_reps, notes)``; ``gain_full[label]`` is
    ``(M,)`` and ``gain_reps[label]`` ``(B, M)``, aligned on ``systems``;
    ``notes[label]`` lists the test set's notes.
    """
    rows, all_notes, gain_full, gain_reps = [], OrderedDict(), OrderedDict(), OrderedDict()
    for ts in test_sets:
        if ts.baseline_full is None:
            continue
        notes = all_notes[ts.label] = []
        spec = ts.metric
        r = ts.task.reference_point
        if r is None:
            r = reference_point(spec.info.best, spec.direction, ts.baseline_full)
        g_full = gain(ts.full, ts.baseline_full, r, spec.sign)
        g_reps = gain(ts.replicates, ts.baseline_replicates[:, None], r, spec.sign)
        gain_full[ts.label], gain_reps[ts.label] = aligned(systems, ts, g_full), aligned(systems, ts, g_reps)
        if ts.baseline_full == r:
            notes.append("%s: the baseline already reaches the reference point %g; no gain" % (ts.label, r))
        method = "percentile" if ts.method == "bca" else ts.method
        if ts.method == "bca":
            notes.append("%s: gains read percentile intervals (BCa needs a jackknife of the gain)" % ts.label)
        block = []
        for j, name in enumerate(ts.names):
            low, high = interval(method, g_reps[:, j], g_full[j], level)
            values = (ts.task.name, ts.task.language, name, float(g_full[j]), low, high, r, ts.baseline_full)
            block.append(OrderedDict(zip(GAIN_COLUMNS, values)))
        rows += block
        # the gain reaches +100 where the score reaches the reference point, the metric's best value
        notes += _noted(ts, "gain", 100.0 if r == spec.info.best else None, block)
    return pd.DataFrame(rows, columns=GAIN_COLUMNS), gain_full, gain_reps, all_notes


def gap_table(test_sets, systems, gain_full, gain_reps, level):
    """The gap between the first two languages of each task (first minus second), of gains when both have them."""
    rows, by_task = [], OrderedDict()
    for ts in test_sets:
        by_task.setdefault(ts.task.name, []).append(ts)
    for task, sets in by_task.items():
        if len(sets) < 2:
            continue
        first, second = sets[0], sets[1]
        use_gain = first.label in gain_full and second.label in gain_full
        if not use_gain and first.metric.name != second.metric.name:
            continue
        if use_gain:
            sides = [(gain_full[ts.label], gain_reps[ts.label]) for ts in (first, second)]
        else:
            sides = [(aligned(systems, ts, ts.full), aligned(systems, ts, ts.replicates)) for ts in (first, second)]
        result = gap(sides[0][0], sides[0][1], sides[1][0], sides[1][1], level)
        languages = "%s - %s" % (first.task.language, second.task.language)
        for j, name in enumerate(systems):
            if np.isfinite(result.gap[j]):
                values = (task, languages, name, float(result.gap[j]), result.ci_low[j], result.ci_high[j])
                values += (result.p_value[j], "gain" if use_gain else "score")
                rows.append(OrderedDict(zip(GAP_COLUMNS, values)))
    return pd.DataFrame(rows, columns=GAP_COLUMNS)


def aggregate_setting(definition, test_sets, gain_full):
    """What the aggregates average (``"gain"`` or ``"score"``) and its sign (+1: higher is better)."""
    of = definition.aggregate_of or ("gain" if len(gain_full) == len(test_sets) else "score")
    if of == "gain" and len(gain_full) != len(test_sets):
        raise ConfigError(
            "%s: aggregate.of: gain needs baselines for every task (missing for %s)"
            % (definition.source, ", ".join(ts.label for ts in test_sets if ts.label not in gain_full))
        )
    if of == "score" and len(set(ts.metric.direction for ts in test_sets)) > 1:
        raise ConfigError(
            "%s: aggregate.of: score mixes higher- and lower-is-better metrics; give every task "
            "baselines and aggregate gains" % definition.source
        )
    return of, 1.0 if of == "gain" else test_sets[0].metric.sign


def scopes_of(test_sets):
    """``{scope: test sets}``: one scope per language (in order of appearance), then ``"all"``."""
    scopes = OrderedDict()
    for ts in test_sets:
        if ts.task.language is not None:
            scopes.setdefault(ts.task.language, []).append(ts)
    scopes["all"] = list(test_sets)
    return scopes


def scope_method(sets):
    """The interval method of a scope: the one its tasks share, percentile for BCa or a mix; and its note."""
    methods = sorted(set(ts.method for ts in sets))
    if methods == ["percentile"] or (len(methods) == 1 and methods[0] != "bca"):
        return methods[0], None
    why = "BCa has no jackknife across test sets" if methods == ["bca"] else "its tasks ask " + ", ".join(methods)
    return "percentile", why


def _stacks(sets, systems, of, gain_full, gain_reps):
    """``(T, M)`` full values and ``(B, T, M)`` replicates of what the aggregates average."""
    full = np.stack([gain_full[ts.label] if of == "gain" else aligned(systems, ts, ts.full) for ts in sets])
    reps = np.stack(
        [gain_reps[ts.label] if of == "gain" else aligned(systems, ts, ts.replicates) for ts in sets], axis=1
    )
    return full, reps


def _scope_pairs(scope, systems, idx, agg_full, agg_reps, sign, method, level):
    """Adjacent-and-all pairs of the systems present in a scope, with paired intervals and Holm's p-values."""
    order = sorted(range(idx.size), key=lambda k: (-sign * agg_full[idx[k]], systems[idx[k]]))
    pairs = ranked_pairs(order)
    stats = pair_statistics(agg_reps[:, idx], agg_full[idx], pairs, sign, method, level)
    holm = adjust(stats.p_two_sided, "holm")
    columns = zip(pairs, stats.difference, stats.ci_low, stats.ci_high, stats.p_two_sided, holm)
    return [
        OrderedDict(zip(PAIR_COLUMNS, (scope, systems[idx[a]], systems[idx[c]]) + tuple(map(float, numbers))))
        for (a, c), *numbers in columns
    ]


def aggregate_tables(scopes, systems, weights_of, of, sign, gain_full, gain_reps, level):
    """Per scope: weighted aggregate with its interval and ranks, its pairs, and its rank intervals.

    Returns ``(aggregate rows, pair rows, rank rows, notes)``.
    """
    agg_rows, pair_rows, rank_rows, notes = [], [], [], []
    for scope, sets in scopes.items():
        method, why = scope_method(sets)
        if why is not None:
            notes.append("aggregates over %s read percentile intervals (%s)" % (scope, why))
        full_stack, rep_stack = _stacks(sets, systems, of, gain_full, gain_reps)
        weights = [weights_of(ts) for ts in sets]
        agg_full, agg_reps = aggregate(full_stack, weights), aggregate(rep_stack, weights)
        present = np.isfinite(agg_full)
        mean_rank = np.full(len(systems), np.nan)
        if present.sum() >= 2:
            avg, _ = average_ranks(np.where(np.isfinite(full_stack), full_stack, -np.inf * sign)[:, present], sign)
            mean_rank[present] = avg
        summary = rank_summary(agg_full[present], agg_reps[:, present], sign, level)
        idx = np.flatnonzero(present)
        for k, j in enumerate(idx):
            low, high = interval(method, agg_reps[:, j], agg_full[j], level)
            rank = int(summary.rank[k])
            values = (scope, systems[j], float(agg_full[j]), low, high, rank, float(mean_rank[j]))
            agg_rows.append(OrderedDict(zip(AGGREGATE_COLUMNS, values)))
            values = (scope, systems[j], rank, int(summary.low[k]), int(summary.high[k]), float(summary.p_first[k]))
            rank_rows.append(OrderedDict(zip(RANK_COLUMNS, values)))
        if idx.size >= 2:
            pair_rows += _scope_pairs(scope, systems, idx, agg_full, agg_reps, sign, method, level)
    return agg_rows, pair_rows, rank_rows, notes


def test_set_ranks(test_sets, level):
    """Rank intervals (bootstrap-rank percentiles) of the systems on each test set."""
    rows = []
    for ts in test_sets:
        summary = rank_summary(ts.full, ts.replicates, ts.metric.sign, level)
        for j, name in enumerate(ts.names):
            values = (
                ts.label,
                name,
                int(summary.rank[j]),
                int(summary.low[j]),
                int(summary.high[j]),
                float(summary.p_first[j]),
            )
            rows.append(OrderedDict(zip(RANK_COLUMNS, values)))
    return rows

"""The analysis of one target (a metric on all items or on one group) of the end-of-phase.

Ranks the systems by full-sample score, computes their CIs, every pair's
difference with CI and p-values (paired bootstrap or permutation, and the
task's own tests such as McNemar's for accuracy), corrects them within the configured family (the max-t step-down of
:mod:`leaderboard_ci.core.simultaneous`, statsmodels' methods), and derives the
rank confidence sets, the set tied with the winner, the letters, the
indicators and the baseline-calibrated gains.  See
:mod:`leaderboard_ci.phase.analysis`.

The max-t step-down (``maxt``) always runs on the bootstrap replicates'
studentized two-sided differences, whatever ``analysis.test`` and
``analysis.sides`` say: it needs the joint distribution of every pair's
difference, which the bootstrap replicates give and the per-pair permutation
and McNemar tests do not.  Its simultaneous intervals (``fw_low``, ``fw_high``, with
``direction_only`` for the pairs a later step decides)
and the rank sets are computed whether or not ``maxt`` is among the configured
corrections; ``p_maxt`` is a column only when it is.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...core.benchmark_stats import gap
from ...core.indicators import competition_indicators
from ...core.intervals import confidence_interval
from ...core.letters import MAX_SYSTEMS as LETTERS_MAX_SYSTEMS
from ...core.letters import letter_groups
from ...core.pairs import pair_statistics, ranked_pairs
from ...core.significance import stars
from ...core.simultaneous import (
    maxt_stepdown,
    maxt_within,
    rank_sets,
    resamples_needed,
    resolved_resamples,
    smallest_level,
)
from ...scoring.config import column_key
from ...scoring.resampling_units import design_notes
from ...scoring.validity import degenerate_notes, phase_notes, system_flags
from ...tasks.registry import task_type
from ...tasks.shared.base import ppi as ppi_of
from .corrections import adjust, adjust_within
from .results import TargetAnalysis

__all__ = [
    "analyze_target",
    "finish_target",
    "item_pair_tests",
    "near_copy_note",
    "system_validity_flags",
    "target_order",
    "group_gaps",
    "reference_point",
]


def _permutation_for(permutation, pairs, t, m):
    """One-sided and two-sided permutation p-values of ranked ``pairs`` for target ``t``.

    The test ran once over pairs ``(a, b)`` with ``a < b`` in sorted order (every pair,
    or every pair a block pair needs); a ranked pair whose better system has the
    higher index reads the lower tail.
    """
    all_pairs, (upper, lower, two, exact) = permutation
    a, b = pairs[:, 0], pairs[:, 1]
    low, high = np.minimum(a, b), np.maximum(a, b)
    keys = all_pairs[:, 0] * m + all_pairs[:, 1]  # sorted: the pairs come in (low, high) order
    row = np.searchsorted(keys, low * m + high)  # position of (low, high) in all_pairs
    forward = a < b
    one = np.where(forward, upper[row, t], lower[row, t])
    return one, two[row, t], exact[row]


def _rank_order(scores, sign, names):
    """Indices from best to worst by full-sample score, ties broken by name."""
    return sorted(range(len(names)), key=lambda j: (-sign * scores[j], names[j]))


def _pair_families(pairs_order_rows, m, family):
    """Index arrays of the pairs table's correction families (each row for per_row, else all pairs)."""
    if family == "per_row":
        return [np.flatnonzero(pairs_order_rows == r) for r in range(m - 1)]
    return [np.arange(pairs_order_rows.shape[0])]


def target_order(full, spec, names, baseline):
    """Systems from best to worst on one target, and the notes the order needs.

    By full-sample score in the metric's direction, ties broken by name; the
    winner is the best system that is not the baseline.
    """
    sign = spec.sign
    m = len(names)
    order = _rank_order(full, sign, names)
    notes = []
    if baseline is not None and m > 1 and names[order[0]] == baseline:
        # The winner is the best system that is not the baseline; the baseline keeps its rank
        # (1) in the table and is listed right after the winner.
        order.insert(1, order.pop(0))
        notes.append(
            "the baseline %s scores better (%.4g) than every submission; the winner, %s (%.4g), is the "
            "best system that is not the baseline" % (baseline, full[order[1]], names[order[0]], full[order[0]])
        )
    return order, notes


def target_items(gold, group):
    """Boolean mask of the items of a target (all items, or one group's)."""
    if group is None:
        return np.ones(gold.n, bool)
    return np.asarray(gold.groups) == list(gold.group_values).index(group)


def item_pair_tests(config, gold, target, t, pairs, predictions, permutation=None):
    """The pair tests that need per-item predictions, for ranked ``pairs`` of one target.

    ``predictions`` is ``(n, m)`` (the columns ``pairs`` index); ``permutation`` is
    ``(pairs, (p_upper, p_lower, p_two, exact))`` from
    :func:`~leaderboard_ci.core.permutation.permutation_pvalues` over pairs ``a < b``
    of the same columns, or None.  Returns an OrderedDict: ``permutation`` ->
    ``(p_one, p_two, exact)``, then the task's own tests (its ``pair_tests``:
    McNemar's for accuracy, DeLong's for ROC-AUC) as ``column -> p-values``; their
    titles are the task's ``PAIR_TESTS`` (:func:`~leaderboard_ci.tasks.registry.pair_test_titles`).
    """
    an = config.analysis
    spec = target.metric
    out = OrderedDict()
    m = predictions.shape[1]
    if permutation is not None:
        out["permutation"] = _permutation_for(permutation, pairs, t, m)
    # With bootstrap.cluster the tasks give their cluster-robust versions (Durkalski et al.'s McNemar,
    # Obuchowski's DeLong): gold.clusters reaches them with the gold.
    pair_tests = task_type(gold.kind).pair_tests
    if m > 1 and pair_tests is not None:
        tests = pair_tests.run(spec, gold, predictions, target_items(gold, target.group), pairs, an.sides)
        for column, (_title, values) in tests.items():
            out[column] = values
    return out


def pair_columns(config, stats, item_tests):
    """The pairs table's test columns: ``(tests, p_main)`` from the bootstrap statistics and item tests.

    ``p_main`` is the p-value that is corrected and decides (two-sided by default,
    see ``analysis.sides``); ``tests`` holds the columns shown beside it.
    """
    two = config.analysis.sides == "two"
    p_one = stats.p_value
    p_main = stats.p_two_sided if two else stats.p_value
    tests = OrderedDict([("p_bootstrap", p_main)])
    for key, values in item_tests.items():
        if key == "permutation":
            p_one, p_two_perm, exact = values
            p_main = p_two_perm if two else p_one
            tests["p_permutation"] = p_main
            tests["exact"] = exact
        else:
            tests[key] = values
    if two:
        tests["p_one_sided"] = p_one
    return tests, p_main


def analyze_target(config, gold, scores, t, names, pred_matrix, baseline, n_jobs=1, permutation=None):
    """The :class:`TargetAnalysis` of target ``t`` (a metric on all items or one group).

    ``permutation`` is ``(pairs, (p_upper, p_lower, p_two, exact))`` from
    :func:`~leaderboard_ci.core.permutation.permutation_pvalues` over every pair
    ``a < b`` of systems, or None.
    """
    bs = config.bootstrap
    target = scores.targets[t]
    full = scores.full[:, t]
    reps = scores.replicates[:, :, t]
    order, notes = target_order(full, target.metric, names, baseline)
    pairs = ranked_pairs(order)
    jack = scores.jackknife_matrix(t) if bs.method == "bca" and len(names) > 1 else None
    stats = pair_statistics(
        reps, full, pairs, target.metric.sign, bs.method, bs.confidence_level, jackknife=jack, n_jobs=n_jobs
    )
    tests = item_pair_tests(config, gold, target, t, pairs, pred_matrix, permutation)
    flags = [system_validity_flags(gold, target, pred_matrix[:, j]) for j in range(len(names))]
    return finish_target(
        config, gold, scores, t, names, order, notes, pairs, stats, tests, flags, baseline, n_jobs=n_jobs
    )


def _significant(p, method, alpha):
    """The verdict of a correction: ``p < alpha`` for the max-t step-down, statsmodels' ``p <= alpha`` otherwise."""
    p = np.asarray(p, dtype=np.float64)
    return p < alpha if method == "maxt" else p <= alpha


def _maxt_within(reps, full, pairs, sign, families, alpha, n_jobs):
    """Max-t step-down within each family of ``pairs``: ``(p, fw_low, fw_high, direction_only)`` over the pairs."""
    p = np.ones(pairs.shape[0])
    low = np.full(pairs.shape[0], -np.inf)
    high = np.full(pairs.shape[0], np.inf)
    direction = np.zeros(pairs.shape[0], dtype=bool)
    families = [members for members in families if members.size]
    for members, test in zip(families, maxt_within(reps, full, pairs, sign, families, alpha, n_jobs=n_jobs)):
        p[members], low[members], high[members] = test.p_adjusted, test.low, test.high
        direction[members] = test.direction_only
    return p, low, high, direction


def near_copy_note(names, pairs, near, critical, limit=3):
    """One sentence naming the near-copy pairs (:mod:`leaderboard_ci.core.balance`), or None.

    ``near`` flags ``pairs`` (``(P, 2)`` indices into ``names``); ``critical`` is the family's
    single-step critical value.
    """
    count = int(np.count_nonzero(near))
    if not count:
        return None
    shown = ["%s and %s" % (names[a], names[b]) for a, b in pairs[near][:limit]]
    more = "" if count <= limit else " and %d more" % (count - limit)
    return (
        "%d %s near-copies (%s%s): their difference rests on so few items that its bootstrap distribution is far "
        "from normal, as with seeds of one model; each is compared through its own bootstrap distribution, so they "
        "do not raise the critical value of the other pairs (%.2f standard errors); to compare participants rather "
        "than runs, rerun with --per-participant best"
        % (count, "pair is" if count == 1 else "pairs are", "; ".join(shown), more, critical)
    )


def floor_note(smallest, n_tests, n_valid, alpha, what):
    """One sentence for shown corrections (not the primary) that no B this small lets declare a difference, or None.

    ``smallest`` maps each such correction to its smallest adjusted p-value: all of them sit at the resampling
    floor (about ``n_tests/(B+1)`` for Holm and Bonferroni), so their columns say nothing and their indicators
    (ties with the winner, non-significant pairs) are left empty.
    """
    if not smallest:
        return None
    from ...report.formatting import correction_name  # display names only (no rendering)

    needed = max(resamples_needed(method, n_tests, alpha) for method in smallest)
    names = [correction_name(method, long=True) for method in smallest]
    several = len(names) > 1
    return (
        "with B = %s resamples no difference can be significant after %s over %s (%s tests): %s smallest "
        "adjusted p-value is %s, not below alpha = %g, so %s indicators are left empty; B >= %s is needed"
        % (
            format(n_valid, ","),
            " or ".join([", ".join(names[:-1]), names[-1]]) if several else names[0],
            what,
            format(n_tests, ","),
            "their" if several else "its",
            " and ".join("%.3g" % p for p in sorted(set(float(v) for v in smallest.values()))),
            alpha,
            "their" if several else "its",
            format(needed, ","),
        )
    )


def too_few_resamples_note(method, n_tests, n_valid, alpha, what):
    """One sentence when ``n_valid`` resamples are too few for ``method`` over ``n_tests`` tests, else None.

    Two cases: no adjusted p-value can fall below ``alpha`` at all
    (:func:`~leaderboard_ci.core.simultaneous.resamples_needed`), or the smallest level the
    method compares with has fewer than about 10 replicates beyond it, so the deciding
    p-values are not resolved (:func:`~leaderboard_ci.core.simultaneous.resolved_resamples`).
    """
    if n_tests < 1:
        return None
    from ...report.formatting import correction_name  # display names only (no rendering)

    name = correction_name(method, long=True)
    needed = resamples_needed(method, n_tests, alpha)
    resolved = resolved_resamples(method, n_tests, alpha)
    maxt = (
        ""
        if method == "maxt"
        else " (the max-t step-down needs only B >= %s)" % format(resolved_resamples("maxt", n_tests, alpha), ",")
    )
    if n_valid < needed:
        floor = "1/(B+1)" if method in ("maxt", "none") else "about %d/(B+1)" % n_tests
        return (
            "with B = %s resamples no difference can be significant after %s over %s (%s tests): the smallest "
            "adjusted p-value is %s, not below alpha = %g; B >= %s is needed%s"
            % (
                format(n_valid, ","),
                name,
                what,
                format(n_tests, ","),
                floor,
                alpha,
                format(max(needed, resolved), ","),
                maxt,
            )
        )
    if n_valid < resolved and method == "maxt" and n_valid * alpha >= 10:
        return (
            "with B = %s resamples the %s over %s (%s tests) studentizes every pair with a standard deviation "
            "estimated from too few replicates for a family this large, and its family-wise error can exceed "
            "alpha (6.9 %% for 60 equal systems at B = 1,000 in the validity study, 4.75 %% at B = 10,000); "
            "B >= %s is needed" % (format(n_valid, ","), name, what, format(n_tests, ","), format(resolved, ","))
        )
    if n_valid < resolved:
        level = smallest_level(method, n_tests, alpha)
        return (
            "with B = %s resamples %s over %s (%s tests) compares p-values with levels down to %.2g, beyond "
            "which lie only about %.1f replicates: those p-values are not resolved and the family-wise error "
            "can exceed alpha; B >= %s is needed%s"
            % (
                format(n_valid, ","),
                name,
                what,
                format(n_tests, ","),
                level,
                n_valid * level,
                format(resolved, ","),
                maxt,
            )
        )
    return None


@dataclass(frozen=True)
class _Corrected:
    """Every correction's p-values over the pairs and over the winner's comparisons, with the max-t intervals.

    ``pairs`` and ``winner`` map each method (``"none"``, the configured corrections) to its
    adjusted p-values; ``fw`` and ``winner_fw`` are ``(p, low, high, direction_only)`` of the
    max-t step-down within the family, over the pairs and the winner's comparisons.
    """

    pairs: OrderedDict
    winner: OrderedDict
    fw: tuple
    winner_fw: tuple


def finish_target(config, gold, scores, t, names, order, notes, pairs, stats, item_tests, flags, baseline, n_jobs=1):
    """The :class:`TargetAnalysis` of target ``t`` from its ranking and its pairs' numbers.

    ``stats`` (:class:`~leaderboard_ci.core.pairs.PairStatistics`) and ``item_tests``
    (:func:`item_pair_tests`) are over the ranked ``pairs`` (``ranked_pairs(order)``),
    wherever they were computed; ``flags`` are every system's
    :func:`system_validity_flags`.  The max-t step-down, its family-wise intervals and the
    rank sets are computed here from ``scores.replicates`` (every system's replicate
    scores, which the caller holds in blocks too), on ``n_jobs`` threads.

    The steps: the target's notes; the max-t step-down over all pairs and the rank sets;
    the systems table (scores and intervals); the corrections within the family; the pairs
    and vs-winner tables; the rank columns and letters; the family's note; the indicators
    and the baseline-calibrated gains.
    """
    an = config.analysis
    target = scores.targets[t]
    spec = target.metric
    full = scores.full[:, t]
    reps = scores.replicates[:, :, t]
    winner = order[0]
    notes = _target_notes(config, gold, target, names, flags, notes)
    all_test = maxt_stepdown(reps, full, pairs, spec.sign, an.alpha, n_jobs=n_jobs)
    ranks = rank_sets(reps, full, spec.sign, an.alpha, family_test=all_test, pairs=pairs, n_jobs=n_jobs)
    systems = _systems_table(config, gold, scores, t, names, order, ranks, notes)
    row_of_pair = _row_of_pair(order, pairs)
    winner_idx = np.flatnonzero(row_of_pair == 0)
    tests, p_main = pair_columns(config, stats, item_tests)
    corrected = _correct(an, reps, full, pairs, spec.sign, all_test, p_main, row_of_pair, winner_idx, n_jobs)
    pairs_df = _pairs_table(an, names, pairs, stats, tests, p_main, corrected, all_test.near_copy)
    vs = _vs_winner_table(an, pairs_df, winner_idx, corrected)
    tied = _add_rank_columns(an, systems, names, order, ranks, pairs, corrected, notes)
    note, at_floor = _family_note_and_floor(an, len(names), pairs.shape[0], winner_idx.size, all_test, corrected)
    copies = near_copy_note(names, pairs, all_test.near_copy, all_test.critical_simultaneous)
    if copies:
        notes.append(copies)
    indicators = _indicators(an, gold, target, full, winner, corrected, at_floor)
    gains = _gains_or_note(config, spec, names, full, reps, baseline, order, notes)
    return TargetAnalysis(
        key=column_key(spec.key, target.group),
        metric=spec,
        group=target.group,
        winner=names[winner],
        systems=systems,
        vs_winner=vs,
        pairs=pairs_df,
        indicators=indicators,
        tied_with_winner=tied,
        gains=gains,
        replicates=reps[:, order],
        notes=notes,
        family_note=note,
        critical_value=float(all_test.critical_simultaneous),
    )


def _target_notes(config, gold, target, names, flags, notes):
    """The notes a target starts with: the caller's, the systems' validity, the clusters' design (all items only).

    Parameters
    ----------
    config, gold : Config, GoldStandard
    target : the target (a metric on all items or one group)
    names : list of str
    flags : list
        Every system's :func:`system_validity_flags`.
    notes : list of str
        The notes so far (the ranking's).

    Returns
    -------
    list of str
        A new list, to which the later steps append.
    """
    notes = list(notes) + validity_notes(gold, target.metric, target.group, names, flags)
    if target.group is None:  # the clusters' notes (few, very unequal), once per metric
        notes += [note[0].lower() + note[1:].rstrip(".") for note in design_notes(config, gold)]
    return notes


def _systems_table(config, gold, scores, t, names, order, ranks, notes):
    """Every system's rank, score and confidence interval (equal to the leaderboard's), in rank order.

    Parameters
    ----------
    config, gold : Config, GoldStandard
    scores : SystemScores
        Full-sample and replicate scores (and the jackknife for BCa).
    t : int
        The target's column.
    names, order : list of str, sequence of int
        System names and the ranking (indices into ``names``).
    ranks : RankSets
        From :func:`~leaderboard_ci.core.simultaneous.rank_sets`; ``rank`` is shown.
    notes : list of str
        Appended to: an interval's own note, degenerate intervals, resamples left out.

    Returns
    -------
    pandas.DataFrame
        Columns ``rank``, ``name``, ``score``, ``ci_low``, ``ci_high``.
    """
    bs = config.bootstrap
    target = scores.targets[t]
    full = scores.full[:, t]
    reps = scores.replicates[:, :, t]
    rows = []
    for j in order:
        jk = None
        if scores.jackknife is not None:
            jk_scores, jk_weights, _ = scores.jackknife[j]
            jk = (jk_scores[:, t], jk_weights)
        iv = confidence_interval(bs.method, reps[:, j], full[j], bs.confidence_level, jackknife=jk)
        rows.append(
            OrderedDict(
                [
                    ("rank", int(ranks.rank[j])),
                    ("name", names[j]),
                    ("score", float(full[j])),
                    ("ci_low", iv.low),
                    ("ci_high", iv.high),
                ]
            )
        )
        if iv.note:
            notes.append("%s: %s" % (names[j], iv.note))
    systems = pd.DataFrame(rows)
    notes += degenerate_notes(
        target.metric.title,
        target.metric.info.best,
        systems["name"],
        systems["ci_low"],
        systems["ci_high"],
        n_items=int(np.count_nonzero(target_items(gold, target.group))),
    )
    if np.isnan(reps).any():
        valid = int(np.all(np.isfinite(reps), axis=1).sum())
        notes.append(
            "%d of %d resamples had no items for this group and were left out"
            % (bs.n_resamples - valid, bs.n_resamples)
        )
    return systems


def _row_of_pair(order, pairs):
    """Each ranked pair's row: the rank position of its better-ranked system ``a`` (0 for the winner's pairs)."""
    position_of = np.empty(len(order), dtype=np.intp)
    position_of[np.asarray(order, dtype=np.intp)] = np.arange(len(order))
    return position_of[pairs[:, 0]]


def _correct(an, reps, full, pairs, sign, all_test, p_main, row_of_pair, winner_idx, n_jobs):
    """Every configured correction within ``analysis.family``, over the pairs and the winner's comparisons.

    The max-t step-down over all pairs (``all_test``) serves the ``all_pairs`` family; ``per_row``
    runs it within each row and the winner's comparisons form one family otherwise.  statsmodels'
    methods adjust ``p_main`` (:func:`~leaderboard_ci.phase.analysis.corrections.adjust_within`).

    Returns
    -------
    _Corrected
    """
    families = _pair_families(row_of_pair, len(full), an.family)
    if an.family == "per_row":
        fw = _maxt_within(reps, full, pairs, sign, families, an.alpha, n_jobs)
    else:
        fw = (all_test.p_adjusted, all_test.low, all_test.high, all_test.direction_only)
    if an.family == "all_pairs":
        winner_fw = tuple(column[winner_idx] for column in fw)
    else:  # the winner's comparisons are one family (per_row: its row, the same family)
        winner_fw = _maxt_within(reps, full, pairs[winner_idx], sign, [np.arange(winner_idx.size)], an.alpha, n_jobs)
    pair_adjusted, winner_adjusted = OrderedDict(), OrderedDict()
    for method in ("none",) + tuple(an.corrections):
        if method == "maxt":
            pair_adjusted[method], winner_adjusted[method] = fw[0], winner_fw[0]
            continue
        pair_adjusted[method] = adjust_within(p_main, families, method, an.alpha)
        if an.family == "all_pairs":
            winner_adjusted[method] = pair_adjusted[method][winner_idx]
        else:
            winner_adjusted[method] = adjust(p_main[winner_idx], method, an.alpha)
    return _Corrected(pair_adjusted, winner_adjusted, tuple(fw), tuple(winner_fw))


def _pairs_table(an, names, pairs, stats, tests, p_main, corrected, near_copy):
    """The pairs table in rank order: (better-ranked ``a``, worse-ranked ``b``), tests, corrections, intervals.

    Parameters
    ----------
    an : the ``analysis`` settings
    names : list of str
    pairs : ndarray of shape (P, 2)
    stats : PairStatistics
    tests, p_main : from :func:`pair_columns`
    corrected : _Corrected
    near_copy : ndarray of bool

    Returns
    -------
    pandas.DataFrame
    """
    name_array = np.asarray(names, dtype=object)
    pair_rows = OrderedDict(
        [
            ("a", name_array[pairs[:, 0]]),
            ("b", name_array[pairs[:, 1]]),
            ("diff", stats.difference),
            ("ci_low", stats.ci_low),
            ("ci_high", stats.ci_high),
            ("p_value", p_main),
        ]
    )
    for key, values in tests.items():
        if key != "p_value":
            pair_rows[key] = values
    for method in an.corrections:
        pair_rows["p_" + method] = corrected.pairs[method]
    _, pair_rows["fw_low"], pair_rows["fw_high"], pair_rows["direction_only"] = corrected.fw
    pair_rows["near_copy"] = near_copy
    pair_rows["stars"] = [stars(p) for p in corrected.pairs[an.primary]]
    return pd.DataFrame(pair_rows)


def _vs_winner_table(an, pairs_df, winner_idx, corrected):
    """The winner's comparisons (``name`` is the other system), corrected within their own family.

    Returns
    -------
    pandas.DataFrame
        The pairs table's rows of the winner, with the winner family's corrections, max-t
        intervals, stars and ``significant`` (the primary correction's verdict).
    """
    vs = pairs_df.iloc[winner_idx].drop(columns=["a"]).rename(columns={"b": "name"}).reset_index(drop=True)
    for method in an.corrections:
        vs["p_" + method] = corrected.winner[method]
    _, vs["fw_low"], vs["fw_high"], vs["direction_only"] = corrected.winner_fw
    vs["stars"] = [stars(p) for p in corrected.winner[an.primary]]
    vs["significant"] = _significant(corrected.winner[an.primary], an.primary, an.alpha)
    return vs


def _add_rank_columns(an, systems, names, order, ranks, pairs, corrected, notes):
    """Add the rank sets, the letters and ``tied_with_winner`` to ``systems``; return the names tied with the winner.

    The letters (systems sharing a letter are not declared different by the primary
    correction) are shown up to :data:`~leaderboard_ci.core.letters.MAX_SYSTEMS` systems;
    above, a note says they are omitted.
    """
    in_order = np.asarray(order, dtype=np.intp)
    systems["rank_set_low"] = ranks.low[in_order]
    systems["rank_set_high"] = ranks.high[in_order]
    systems["rank_set_marginal_low"] = ranks.low_marginal[in_order]
    systems["rank_set_marginal_high"] = ranks.high_marginal[in_order]
    tied = [names[j] for j in order if ranks.low[j] == 1]
    letters = None
    if len(names) <= LETTERS_MAX_SYSTEMS:
        decided = _significant(corrected.pairs[an.primary], an.primary, an.alpha)
        different = set(frozenset((names[a], names[b])) for (a, b), sig in zip(pairs, decided) if sig)
        letters = letter_groups([names[j] for j in order], different)
    systems["letters"] = [letters[n] for n in systems["name"]] if letters is not None else ""
    systems["tied_with_winner"] = systems["name"].isin(tied)
    if letters is None:
        notes.append("the letter display is omitted above %d systems" % LETTERS_MAX_SYSTEMS)
    return tied


def _family_note_and_floor(an, m, n_pairs, n_winner, all_test, corrected):
    """The family's note and the shown corrections at their floor: ``(note or None, [method])``.

    A correction is at its floor when the valid resamples are fewer than it needs to declare
    any difference in a family of this size (:func:`~leaderboard_ci.core.simultaneous.resamples_needed`)
    and it declares none: its counts mean nothing at this B.
    """
    family_size = {"all_pairs": n_pairs, "vs_winner": n_winner, "per_row": n_winner}[an.family]
    what = {
        "all_pairs": "all %d pairs" % n_pairs,
        "vs_winner": "the comparisons with the winner",
        "per_row": "each row's comparisons",
    }[an.family]
    at_floor = [
        c
        for c in an.corrections
        if m > 1
        and c != "none"
        and all_test.n_valid < resamples_needed(c, family_size, an.alpha)
        and not np.any(_significant(corrected.pairs[c], c, an.alpha))
    ]
    notes = [too_few_resamples_note(an.primary, family_size, all_test.n_valid, an.alpha, what) if m > 1 else None]
    smallest = OrderedDict(
        (c, np.nanmin(corrected.pairs[c])) for c in at_floor if c != an.primary and c in corrected.pairs
    )
    notes.append(floor_note(smallest, family_size, all_test.n_valid, an.alpha, what))
    return "; ".join(n for n in notes if n) or None, at_floor


def _indicators(an, gold, target, full, winner, corrected, at_floor):
    """The competition's indicators (:func:`~leaderboard_ci.core.indicators.competition_indicators`) of a target."""
    ppi_value, ppi_reason = ppi_of(target.metric, full[winner])
    return competition_indicators(
        int(np.count_nonzero(target_items(gold, target.group))),
        full,
        winner,
        corrected.winner,
        corrected.pairs,
        an.alpha,
        ppi_value,
        ppi_reason,
        strict=("maxt",),
        unresolved=at_floor,
    )


def _gains_or_note(config, spec, names, full, reps, baseline, order, notes):
    """The baseline-calibrated gains, or None (no baseline; or no fixed best value, said in ``notes``)."""
    if baseline is None:
        return None
    if config.analysis.reference_point is None and spec.info.best is None:
        # no fixed scale (ICM, ICM-Soft, Elo): a share of the way to a best value it does not have means nothing
        notes.append(
            "%s has no fixed best value, so no baseline-calibrated gain (the share of the way from the baseline "
            "to the best value) is shown; set analysis.reference_point to give one" % spec.title
        )
        return None
    return _gains(config, spec, names, full, reps, baseline, order)


def system_validity_flags(gold, target, values):
    """``(sparse, heavy)`` for one system on one target (see :func:`validity_notes`).

    ``sparse``: the system predicts some unit of a macro average (class, label,
    entity type) at most 3 times in the target's items (the task's ``sparse_units``
    hook); ``heavy``: on a metric that is a mean of per-item terms (RMSE, MAE, log
    loss...), its largest 1 % of terms carry much of the sum.
    """
    return system_flags(gold, target.metric, target.group, values)


def validity_notes(gold, spec, group, names, flags, limit=5):
    """Where this target's intervals rest on almost nothing (see :mod:`leaderboard_ci.scoring.validity`).

    Units of a macro average with at most 3 gold items in the target's items, ROC-AUC or
    AP with few positives or negatives, few queries; systems predicting a unit at most
    3 times, and systems with heavy-tailed per-item terms; ``flags`` holds each system's
    :func:`system_validity_flags`.
    """
    return phase_notes(gold, spec, group, names, flags, limit)


def reference_point(config, spec):
    """ODESIA's reference r: the configured point, else the metric's best value, else 0 (then no gain is shown)."""
    if config.analysis.reference_point is not None:
        return float(config.analysis.reference_point)
    best = spec.info.best
    return float(best) if best is not None else 0.0


def _gains(config, spec, names, full, reps, baseline, order):
    """Baseline-calibrated gain 100 * sign * (s - b) / |b - r| with its CI (percentile)."""
    b = names.index(baseline)
    r = reference_point(config, spec)
    denominator = abs(full[b] - r)
    rows = []
    for j in order:
        if denominator == 0:
            rows.append(
                OrderedDict(
                    [
                        ("name", names[j]),
                        ("gain", None),
                        ("ci_low", None),
                        ("ci_high", None),
                        ("note", "the baseline already reaches the reference point %g" % r),
                    ]
                )
            )
            continue
        gain = 100.0 * spec.sign * (full[j] - full[b]) / denominator
        with np.errstate(divide="ignore", invalid="ignore"):
            rep = 100.0 * spec.sign * (reps[:, j] - reps[:, b]) / np.abs(reps[:, b] - r)
        rep = np.where(np.isfinite(rep), rep, np.nan)
        method = "percentile" if config.bootstrap.method == "bca" else config.bootstrap.method
        iv = confidence_interval(method, rep, gain, config.bootstrap.confidence_level)
        rows.append(
            OrderedDict(
                [("name", names[j]), ("gain", float(gain)), ("ci_low", iv.low), ("ci_high", iv.high), ("note", "")]
            )
        )
    frame = pd.DataFrame(rows)
    frame.attrs["reference_point"] = r
    frame.attrs["baseline"] = baseline
    return frame


def _group_replicates(target, quantity):
    """``{system: (full value, replicates)}`` of a group target's scores or gains (as :func:`_gains` computes them)."""
    names = list(target.systems["name"])
    reps = target.replicates  # (B, m) in rank order, like target.systems
    full = np.asarray(target.systems["score"], dtype=np.float64)
    if quantity == "gain":
        b = names.index(target.gains.attrs["baseline"])
        r = target.gains.attrs["reference_point"]
        with np.errstate(divide="ignore", invalid="ignore"):
            reps = 100.0 * target.metric.sign * (reps - reps[:, [b]]) / np.abs(reps[:, [b]] - r)
        reps = np.where(np.isfinite(reps), reps, np.nan)
        full = np.asarray(
            [np.nan if g is None else g for g in target.gains.set_index("name").loc[names, "gain"]], dtype=np.float64
        )
    return dict((name, (full[j], reps[:, j])) for j, name in enumerate(names))


def group_gaps(config, targets, baseline):
    """Gap between groups of each system's gain (ODESIA), or of its score without a baseline, with its CI.

    The groups are parts of one test set, so both sides use the same resamples: the gap's
    replicates are the replicate-by-replicate differences; percentile CI and two-sided
    p-value for "no gap" (:func:`leaderboard_ci.core.benchmark_stats.gap`).
    """
    rows = []
    groups = []
    for target in targets.values():
        if target.group is not None and target.group not in groups:
            groups.append(target.group)
    if len(groups) < 2:
        return None
    level = config.bootstrap.confidence_level
    for spec in config.metrics:
        first_target = targets[column_key(spec.key, groups[0])]
        quantity = "gain" if first_target.gains is not None else "score"
        per_group = dict((g, _group_replicates(targets[column_key(spec.key, g)], quantity)) for g in groups)
        first = groups[0]
        names = list(per_group[first])
        for other in groups[1:]:
            shared = [n for n in names if n in per_group[other]]
            result = gap(
                np.array([per_group[first][n][0] for n in shared]),
                np.stack([per_group[first][n][1] for n in shared], axis=1),
                np.array([per_group[other][n][0] for n in shared]),
                np.stack([per_group[other][n][1] for n in shared], axis=1),
                level,
            )
            for j, name in enumerate(shared):
                value = result.gap[j]
                rows.append(
                    OrderedDict(
                        [
                            ("metric", spec.key),
                            ("quantity", quantity),
                            ("name", name),
                            ("groups", "%s - %s" % (first, other)),
                            ("gap", float(value) if np.isfinite(value) else None),
                            ("ci_low", result.ci_low[j]),
                            ("ci_high", result.ci_high[j]),
                            ("p_value", result.p_value[j]),
                        ]
                    )
                )
    return pd.DataFrame(rows)

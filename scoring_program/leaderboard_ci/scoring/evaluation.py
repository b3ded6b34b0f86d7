"""Score one submission: the official metric, extras, groups, CIs, baseline.

:func:`evaluate` does no I/O.  It returns a :class:`SubmissionResult`, which
knows its leaderboard scores (:meth:`SubmissionResult.leaderboard_scores`)
and carries everything ``detailed_results.html`` shows.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Optional, Tuple

import numpy as np

from .._version import __version__
from ..core.accumulators import cluster_jackknife, jackknife
from ..core.intervals import Interval, confidence_interval
from ..core.replicates import compute_replicates, draw_ahead, expand_replicates
from ..core.signature import Signature
from ..tasks.registry import official_metric_options, task_type
from ..tasks.shared.scorer import SystemScorer
from .config import column_key
from .custom import custom_functions
from .outputs import written_keys
from .resampling_units import design_notes
from .validity import submission_warnings

__all__ = ["ScoreResult", "BaselineComparison", "SubmissionResult", "evaluate", "design_expansion"]


@dataclass(frozen=True)
class ScoreResult:
    """A metric's full-sample score and CI, on all items or one group."""

    metric: object  # MetricSpec
    group: Optional[str]
    score: float
    interval: Interval
    replicates: np.ndarray
    n_items: int

    @property
    def key(self):
        return column_key(self.metric.key, self.group)

    @property
    def standard_error(self):
        """The bootstrap standard error: the standard deviation of the replicates (ddof=1)."""
        values = self.replicates[~np.isnan(self.replicates)]
        return float(np.std(values, ddof=1)) if values.size > 1 else 0.0


@dataclass(frozen=True)
class BaselineComparison:
    """The submission minus the baseline, oriented so that positive is better.

    ``p_value`` is the one-sided p-value that the submission is better: the
    inversion of ``interval`` (``interval.p_greater``), so ``p_value < (1 -
    confidence_level) / 2`` exactly when ``interval.low > 0``.
    """

    metric: object
    group: Optional[str]
    baseline_name: str
    baseline_score: float
    difference: float
    interval: Interval
    p_value: float
    replicates: np.ndarray

    @property
    def key(self):
        return column_key(self.metric.key, self.group, "_vs_base")


@dataclass(frozen=True)
class SubmissionResult:
    scores: Tuple[ScoreResult, ...]
    baseline: Tuple[BaselineComparison, ...]
    per_class: tuple  # the task's unit rows (tasks.shared.base.ClassRow: label, precision, recall, F1, ...)
    signature: Signature
    unit_name: str = "class"  # what a row of per_class is: class, label, entity type
    #: Plain-language warnings where an interval rests on almost nothing (see :mod:`.validity`).
    warnings: Tuple[str, ...] = ()
    #: What the per-unit table calls its precision, recall and F1 columns (the task's ``UnitTable.titles``).
    unit_titles: Tuple[str, str, str] = ("precision", "recall", "F1")
    #: How many clusters and strata the resamples draw (``bootstrap.cluster``/``strata``); None without, or withheld.
    n_clusters: Optional[int] = None
    n_strata: Optional[int] = None

    @property
    def official(self):
        return self.scores[0]

    def leaderboard_scores(self, config=None):
        """The ``scores.json`` mapping: key -> finite float, official metric first.

        For each metric (and group): ``key``, ``key_ci_low``, ``key_ci_high``,
        ``key_se``; with a baseline also ``key_vs_base`` (positive = better than
        the baseline), its CI and ``key_vs_base_p`` (one-sided p-value that the
        submission is better, the inversion of that CI: below ``(1 -
        confidence_level) / 2`` exactly when ``key_vs_base_ci_low > 0``).  With ``config``, only the keys its
        ``outputs:``
        section selects (:func:`leaderboard_ci.scoring.outputs.written_keys`), in
        that order; without, every key but ``_se``.
        """
        out = OrderedDict()
        se_keys = set()
        for s in self.scores:
            out[s.key] = s.score
            out[s.key + "_ci_low"] = s.interval.low
            out[s.key + "_ci_high"] = s.interval.high
            out[s.key + "_se"] = s.standard_error
            se_keys.add(s.key + "_se")
        for b in self.baseline:
            out[b.key] = b.difference
            out[b.key + "_ci_low"] = b.interval.low
            out[b.key + "_ci_high"] = b.interval.high
            out[b.key + "_p"] = b.p_value
        if config is None:
            keys = [k for k in out if k not in se_keys]
        else:
            groups = []
            for s in self.scores:
                if s.group is not None and s.group not in groups:
                    groups.append(s.group)
            keys = written_keys(config, groups)
        out = OrderedDict((k, out[k]) for k in keys)
        for key, value in out.items():
            if not np.isfinite(value):
                raise ValueError("score %s is not finite (%r); this is a bug" % (key, value))
        return out


def draws_ahead(config, gold):
    """The first replicates' counts, drawn in a thread from now on (:class:`~leaderboard_ci.core.replicates.DrawAhead`).

    None unless they will be used: the item bootstrap, more than one thread, and metrics whose statistics all
    read the counts alone (the task's ``counts_only(metrics)`` capability); :func:`evaluate` takes them.
    """
    reads = task_type(gold.kind).counts_only
    if reads is None or not reads(config.metrics) or gold.clusters is not None or gold.strata is not None:
        return None
    bs = config.bootstrap
    return draw_ahead(gold.n, bs.seed, bs.n_resamples, bs.n_jobs)


def evaluate(config, gold, predictions, baseline=None, progress=None, ahead=None):
    """Score a submission against the gold standard, with bootstrap CIs.

    Parameters
    ----------
    config : Config
    gold : GoldStandard
    predictions : ndarray
        Aligned with the gold items (class codes or float64 values).
    baseline : ndarray, optional
        The baseline's predictions, aligned the same way.  Each score then
        also gets its difference to the baseline, with a paired CI and the
        one-sided p-value that inverts it.
    progress : callable, optional
        Called with the number of replicates finished.
    ahead : DrawAhead, optional
        The replicates drawn while the submission was read (:func:`draws_ahead`); the same bytes without.

    Returns
    -------
    SubmissionResult

    Notes
    -----
    The steps: check the alignment; score the submission (and the baseline) on the full
    sample and on every replicate (:func:`_scored_systems`); the jackknives BCa needs; each
    score's interval; each difference to the baseline; the per-class table; the signature.
    """
    _check_aligned(gold, predictions, baseline)
    scored = _scored_systems(config, gold, predictions, baseline, progress, ahead)
    own_jack, pair_jack = _jackknives(config, gold, scored)
    # With decoy ids (files.unscored_ids: ignore) how many items are scored is a fact of the gold:
    # the participant's page and signature then give no count.
    hide_counts = config.files.unscored_ids == "ignore"
    group_sizes = dict((g, None) for g in _group_sizes(gold)) if hide_counts else _group_sizes(gold)
    results = _score_results(config, scored, own_jack, group_sizes)
    comparisons = _baseline_comparisons(config, scored, pair_jack) if baseline is not None else []
    table = scored.main.task.unit_table
    resampling = scored.resampling
    return SubmissionResult(
        tuple(results),
        tuple(comparisons),
        _per_class_rows(config, gold, scored),
        _signature(config, gold, scored.expansion, hide_counts),
        table.unit if table is not None else "class",
        tuple(validity_warnings(config, gold, predictions)) + tuple(design_notes(config, gold, hide_counts)),
        tuple(table.titles) if table is not None else ("precision", "recall", "F1"),
        n_clusters=resampling.n_units if resampling is not None and resampling.clustered and not hide_counts else None,
        n_strata=resampling.n_strata if gold.strata is not None and not hide_counts else None,
    )


def _check_aligned(gold, predictions, baseline):
    """Raise ValueError unless the predictions (and the baseline) hold one value per gold item."""
    for what, values in (("predictions", predictions), ("baseline", baseline)):
        if values is not None and np.shape(values)[:1] != (gold.n,):
            raise ValueError(
                "%s has %s values for %d gold items; align them with the gold first"
                % (what, np.shape(values)[0] if np.ndim(values) else "no array of", gold.n)
            )


@dataclass(frozen=True)
class _Scored:
    """The submission's (and the baseline's) statistics and scores, full-sample and per replicate.

    ``systems`` are the :class:`~leaderboard_ci.tasks.shared.scorer.SystemScorer` of the
    submission, then the baseline; ``spans`` their accumulators' ranges in ``full`` and
    ``reps`` (the accumulators' statistics); ``full_scores[i]`` (``T``) and
    ``rep_scores[i]`` (``B x T``) are system ``i``'s scores, the replicates scaled by the
    small-cluster ``expansion``.
    """

    systems: list
    spans: list
    full: list
    reps: list
    full_scores: list
    rep_scores: list
    resampling: object
    expansion: float

    @property
    def main(self):
        return self.systems[0]

    def scores_of(self, stats, i):
        """System ``i``'s scores from statistics laid out as ``full`` or ``reps``."""
        return _scores_of(self.systems, self.spans, stats, i)


def _scores_of(systems, spans, stats, i):
    a, b = spans[i]
    return systems[i].scores(stats[a:b])


def _scored_systems(config, gold, predictions, baseline, progress, ahead=None):
    """Score the submission (and the baseline) on the full sample and on every replicate.

    All systems' accumulators share one pass over the replicates
    (:func:`~leaderboard_ci.core.replicates.compute_replicates`), so the baseline's
    replicate ``b`` uses the submission's resample ``b`` (a paired difference).  With a
    small-cluster correction the replicate scores are expanded exactly as the end of phase
    does (:func:`design_expansion`).

    Returns
    -------
    _Scored
    """
    bs = config.bootstrap
    custom = custom_functions(config)
    systems = [SystemScorer(config.metrics, gold, predictions, custom=custom)]
    if baseline is not None:
        systems.append(SystemScorer(config.metrics, gold, baseline, custom=custom))
    accumulators = [acc for system in systems for acc in system.accumulators]
    spans, start = [], 0
    for system in systems:
        spans.append((start, start + len(system.accumulators)))
        start += len(system.accumulators)
    full = [acc.full()[None, :] for acc in accumulators]
    resampling = gold.resampling()
    reps = compute_replicates(
        accumulators,
        gold.n,
        bs.seed,
        bs.n_resamples,
        n_jobs=bs.n_jobs,
        progress=progress,
        resampling=resampling,
        ahead=ahead,
    )
    full_scores = [_scores_of(systems, spans, full, i)[0] for i in range(len(systems))]
    rep_scores = [_scores_of(systems, spans, reps, i) for i in range(len(systems))]
    expansion = design_expansion(config, resampling)
    if expansion != 1.0:  # the small-cluster correction, exactly as the end of phase applies it
        targets = systems[0].targets
        best = [np.nan if t.metric.info.best is None else t.metric.info.best for t in targets]
        signs = [t.metric.sign for t in targets]
        rep_scores = [expand_replicates(r, f, expansion, best, signs) for r, f in zip(rep_scores, full_scores)]
    return _Scored(systems, spans, full, reps, full_scores, rep_scores, resampling, expansion)


def _jackknives(config, gold, scored):
    """``(own, pair)``: the jackknives ``method: bca`` needs (None otherwise).

    ``own`` is the submission's own jackknife (its own keys: the same values the end-of-phase
    report computes); ``pair``, with a baseline, a joint one for the paired difference:
    ``([scores of each system], weights)``.
    """
    if config.bootstrap.method != "bca":
        return None, None
    own = system_jackknife(scored.main, gold.n, scored.resampling)
    pair = None
    if len(scored.systems) > 1:
        accumulators = [acc for system in scored.systems for acc in system.accumulators]
        stats, weights, _ = design_jackknife(accumulators, gold.n, scored.resampling)
        pair = ([scored.scores_of(stats, i) for i in range(len(scored.systems))], weights)
    return own, pair


def _score_results(config, scored, own_jack, group_sizes):
    """Each target's :class:`ScoreResult`: the score, its interval (a task's own where it has one), replicates."""
    bs = config.bootstrap
    main = scored.main
    full, reps = scored.full_scores[0], scored.rep_scores[0]
    results = []
    for t, target in enumerate(main.targets):
        jk = (own_jack[0][:, t], own_jack[1]) if own_jack is not None else None
        interval = confidence_interval(bs.method, reps[:, t], full[t], bs.confidence_level, jackknife=jk)
        # a task's own interval for this metric (e.g. DeLong's for ROC-AUC), if it has one
        if main.task.analytic_interval is not None:
            own = main.task.analytic_interval(main.statistics, target.metric, target.group, bs.confidence_level)
            interval = own or interval
        size = group_sizes[target.group]
        results.append(ScoreResult(target.metric, target.group, float(full[t]), interval, reps[:, t].copy(), size))
    return results


def _baseline_comparisons(config, scored, pair_jack):
    """Each target's :class:`BaselineComparison`: the paired difference to the baseline, its CI and p-value.

    ``p_greater`` is the one-sided p-value that inverts this very interval
    (``p < alpha/2`` exactly when ``low > 0``).
    """
    bs = config.bootstrap
    (own_full, base_full), (own_reps, base_reps) = scored.full_scores, scored.rep_scores
    comparisons = []
    for t, target in enumerate(scored.main.targets):
        sign = target.metric.sign
        diff_full = sign * (own_full[t] - base_full[t])
        diff_reps = sign * (own_reps[:, t] - base_reps[:, t])
        jk = None
        if pair_jack is not None:
            jk = (sign * (pair_jack[0][0][:, t] - pair_jack[0][1][:, t]), pair_jack[1])
        interval = confidence_interval(
            bs.method,
            diff_reps,
            diff_full,
            bs.confidence_level,
            jackknife=jk,
            scale=max(abs(own_full[t]), abs(base_full[t])),
        )
        comparisons.append(
            BaselineComparison(
                target.metric,
                target.group,
                config.baseline.name,
                float(base_full[t]),
                float(diff_full),
                interval,
                interval.p_greater,
                diff_reps,
            )
        )
    return comparisons


def _per_class_rows(config, gold, scored):
    """The task's per-unit table (per class, per query type, ...) of the submission, or ``()``."""
    main = scored.main
    table = main.task.unit_table
    if table is None:
        return ()
    n_own = len(main.accumulators)
    bs = config.bootstrap
    rows = table.rows(
        main.statistics,
        scored.full[:n_own],
        scored.reps[:n_own],
        gold.labels,
        bs.method,
        bs.confidence_level,
        config.zero_division,
    )
    return rows or ()


def _signature(config, gold, expansion, hide_counts):
    """The submission's :class:`~leaderboard_ci.core.signature.Signature` (no item count with decoy ids).

    No gold hash: the signature is shown to participants, and a hash would let anyone confirm a
    reconstructed gold offline.  The end-of-phase report (for organizers) keeps it.
    """
    bs = config.bootstrap
    return Signature(
        metric=config.official.key,
        n_resamples=bs.n_resamples,
        seed=bs.seed,
        method=bs.method,
        confidence_level=bs.confidence_level,
        n_items=None if hide_counts else gold.n,
        gold_sha256=None,
        version=__version__,
        cluster=bs.cluster,
        strata=bs.strata,
        metric_options=official_metric_options(config, gold),
        expansion=None if expansion == 1.0 else float("%.4g" % expansion),
    )


def design_expansion(config, resampling):
    """The small-cluster correction's factor of the design (1 without clusters or strata, or when
    ``bootstrap.cluster_correction`` is false): :meth:`leaderboard_ci.core.resampling.Resampling.expansion`
    at the configured level.  The per-submission program and the end of phase both use it."""
    if resampling is None or resampling.trivial or not config.bootstrap.cluster_correction:
        return 1.0
    return resampling.expansion(config.bootstrap.confidence_level)


def validity_warnings(config, gold, predictions):
    """The submission's warnings: units with almost no items or predictions, heavy tails (:mod:`.validity`)."""
    return submission_warnings(config.metrics, gold, predictions, per_class=config.detailed_results.per_class)


def design_jackknife(accumulators, n, resampling=None):
    """The jackknife that matches the resampling: leave one cluster out with clusters, else one item."""
    if resampling is not None and resampling.clustered:
        return cluster_jackknife(accumulators, resampling)
    return jackknife(accumulators, n)


def system_jackknife(scorer, n, resampling=None):
    """Jackknife scores of one system (its own keys): ``(scores (J, T), weights (J,))``."""
    stats, weights, _ = design_jackknife(scorer.accumulators, n, resampling)
    return scorer.scores(stats), weights


def _group_sizes(gold):
    sizes = {None: gold.n}
    if gold.groups is not None:
        counts = np.bincount(np.asarray(gold.groups, dtype=np.intp), minlength=len(gold.group_values))
        for value, count in zip(gold.group_values, counts):
            sizes[value] = int(count)
    return sizes

"""Benchmarks of several tasks and languages: ODESIA's tables, gaps with CIs, aggregates, rank intervals.

A benchmark is defined by ``benchmark.yaml``::

    title: My benchmark
    seed: 12345                      # optional; every test set derives its own seed from it
    confidence_level: 0.95           # optional
    n_resamples: 10000               # optional (default: each task's config)
    names: names.csv                 # optional: submission,name (systems are matched by name)
    aggregate: {of: gain, weights: {sentiment: 2}}   # optional: gain (default with baselines) or score
    critical_difference: {test: nemenyi, alpha: 0.05}  # or wilcoxon (Wilcoxon signed-rank + Holm)
    tasks:
      - name: sentiment
        language: en                 # optional split tag (language, stratum...)
        reference: en/sentiment      # a reference-data folder: gold + config.yaml, as for the scoring program
        submissions: en/sentiment/submissions   # anything the end-of-phase command reads
        file: sentiment_en.csv       # optional: this task's file in each submission (a glob)
        phase: 45                    # optional: only the submissions of this Codabench phase id
        baselines: [lr.csv, svm.csv] # optional: files in the reference folder; b = the mean of their scores
        reference_point: 1.0         # optional: r (default: ODESIA's rule, see core.benchmark_stats)

A top-level ``submissions: bulk_submissions.zip`` feeds every task that gives
none: a Codabench multi-task phase's bulk download holds one zip per
participant submission with one file per task (see
:mod:`.benchmark_submissions`); each such task reads its own file, ``file:``,
else its config's ``files.predictions``, else the file its scoring program
would pick.  Paths are relative to the file.  Each (task, language) is a *test set* with its own
items; its resamples use its own seed, ``SHA-256("<seed>|<task>|<language>")`` read
as a 63-bit integer, so test sets are resampled independently (their CIs therefore
differ slightly from those of each task's own leaderboard, which uses the
configured seed).  Only each task's official metric on all items is used.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from typing import Optional

import numpy as np
import pandas as pd

from ...core.benchmark_stats import aggregate, average_ranks, gain, gap, rank_summary, reference_point
from ...core.intervals import confidence_interval
from ...core.pairs import pair_statistics, ranked_pairs
from ...core.systems import paired_scores
from ...scoring.config import BaselineSettings, load_config
from ...scoring.errors import ConfigError
from ...scoring.readers import read_baseline, read_gold
from ...scoring.validity import degenerate_notes
from ..analysis.corrections import adjust
from ..analysis.systems import build_plan
from ..ingestion.submissions import load_systems
from .definition import BenchmarkDefinition, TaskSpec, load_benchmark
from .submissions import SharedSubmissions, task_systems

__all__ = [
    "BenchmarkDefinition",
    "TaskSpec",
    "ScoredTestSet",
    "BenchmarkResult",
    "load_benchmark",
    "score_test_set",
    "analyze_benchmark",
    "seed_for_test_set",
]


def seed_for_test_set(seed, task, language):
    """The seed of one test set: the first 63 bits of SHA-256("seed|task|language")."""
    digest = hashlib.sha256(("%d|%s|%s" % (seed, task, language or "")).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") >> 1


@dataclass
class ScoredTestSet:
    """The official metric's full-sample and replicate scores of every system on one test set."""

    task: TaskSpec
    metric: object  # MetricSpec
    names: tuple
    full: np.ndarray  # (m,)
    replicates: np.ndarray  # (B, m)
    baseline_full: Optional[float]  # mean of the baseline runs
    baseline_replicates: Optional[np.ndarray]  # (B,)
    n_items: int
    seed: int
    skipped: list = field(default_factory=list)

    @property
    def label(self):
        return self.task.label


def score_test_set(task, definition, workdir, n_jobs="auto", shared=None):
    """Read one test set's gold, submissions and baselines and score them on its own resamples.

    ``shared`` (a :class:`SharedSubmissions`) unpacks a submissions path read
    by several tasks once; a task with ``file``, or whose submissions other
    tasks read, reads each submission's file of its own.
    """
    config = load_config(definition.program, task.reference)
    bootstrap = replace(
        config.bootstrap,
        seed=seed_for_test_set(definition.seed, task.name, task.language),
        n_resamples=definition.n_resamples or config.bootstrap.n_resamples,
    )
    config = replace(config, bootstrap=bootstrap, baseline=None, groups=None)
    gold = read_gold(task.reference, config)
    if task.file is not None or task.shared or task.phase is not None:
        shared = shared or SharedSubmissions(workdir, definition.names)
        coded, skipped = task_systems(task, config, gold, shared, definition.source)
    else:
        coded, skipped, _ = load_systems(
            task.submissions, config, gold, workdir, names_map=definition.names, warnings_list=[]
        )
    baselines = []
    for _i, file_name in enumerate(task.baselines):
        settings = replace(config, baseline=BaselineSettings(file=file_name, name=file_name))
        baselines.append(read_baseline(task.reference, settings, gold))
    names = list(coded)
    predictions = [coded[k] for k in names] + baselines
    labels = names + ["__baseline_%d" % i for i in range(len(baselines))]
    plan = build_plan(config, gold, predictions, labels)
    scores = paired_scores(plan, bootstrap.n_resamples, n_jobs=n_jobs)
    full, reps = scores.full[:, 0], scores.replicates[:, :, 0]
    m = len(names)
    b_full = float(np.mean(full[m:])) if baselines else None
    b_reps = reps[:, m:].mean(axis=1) if baselines else None
    return ScoredTestSet(
        task,
        config.official,
        tuple(names),
        full[:m],
        reps[:, :m],
        b_full,
        b_reps,
        gold.n,
        bootstrap.seed,
        list(skipped),
    )


@dataclass
class BenchmarkResult:
    """Everything the benchmark report shows (DataFrames in long form)."""

    definition: BenchmarkDefinition
    test_sets: list
    systems: tuple
    scores: pd.DataFrame  # task, language, system, score, ci_low, ci_high
    gains: pd.DataFrame  # task, language, system, gain, ci_low, ci_high, reference_point, baseline
    gaps: pd.DataFrame  # task, languages, system, gap, ci_low, ci_high, p_value, of
    aggregates: pd.DataFrame  # scope (language or "all"), system, value, ci_low, ci_high, rank, average_rank
    aggregate_pairs: pd.DataFrame  # scope, a, b, diff, ci_low, ci_high, p_value, p_holm
    rank_intervals: pd.DataFrame  # scope, system, rank, rank_low, rank_high, p_first
    critical_difference: Optional[dict]
    aggregate_of: str
    notes: list = field(default_factory=list)

    def to_dict(self):
        from ...report.benchmark_report import benchmark_to_dict

        return benchmark_to_dict(self)

    def write(self, out_dir):
        from ...report.benchmark_report import write_benchmark_report

        return write_benchmark_report(self, out_dir)


def _interval(reps, observed, level):
    d = np.asarray(reps, dtype=np.float64)
    d = d[np.isfinite(d)]
    if d.size == 0 or not np.isfinite(observed):
        return np.nan, np.nan
    iv = confidence_interval("percentile", d, observed, level)
    return iv.low, iv.high


def analyze_benchmark(definition, n_jobs="auto", test_sets=None):
    """Score every test set and compute the benchmark's tables (see :class:`BenchmarkResult`)."""
    if test_sets is None:
        workdir = tempfile.mkdtemp(prefix="leaderboard-ci-benchmark-")
        try:
            shared = SharedSubmissions(os.path.join(workdir, "shared"), definition.names)
            test_sets = [
                score_test_set(t, definition, os.path.join(workdir, "%03d" % i), n_jobs, shared)
                for i, t in enumerate(definition.tasks)
            ]
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
    level = definition.confidence_level
    systems = tuple(OrderedDict.fromkeys(name for ts in test_sets for name in ts.names))
    b_values = set(ts.replicates.shape[0] for ts in test_sets)
    if len(b_values) != 1:
        raise ConfigError(
            "%s: the test sets use different numbers of resamples (%s); set n_resamples in the "
            "benchmark" % (definition.source, ", ".join(str(b) for b in sorted(b_values)))
        )
    b_values.pop()
    notes = []

    def aligned(ts, values):  # (.., m_ts) -> (.., M) with NaN for systems missing from the test set
        out = np.full(values.shape[:-1] + (len(systems),), np.nan)
        idx = [systems.index(n) for n in ts.names]
        out[..., idx] = values
        return out

    score_rows, gain_rows = [], []
    gain_full, gain_reps = {}, {}
    for ts in test_sets:
        for j, name in enumerate(ts.names):
            low, high = _interval(ts.replicates[:, j], ts.full[j], level)
            score_rows.append(
                OrderedDict(
                    [
                        ("task", ts.task.name),
                        ("language", ts.task.language),
                        ("system", name),
                        ("score", float(ts.full[j])),
                        ("ci_low", low),
                        ("ci_high", high),
                    ]
                )
            )
        notes += [
            "%s: %s" % (ts.label, n)
            for n in degenerate_notes(
                ts.metric.title,
                ts.metric.info.best,
                ts.names,
                [r["ci_low"] for r in score_rows[-len(ts.names) :]],
                [r["ci_high"] for r in score_rows[-len(ts.names) :]],
                n_items=ts.n_items,
            )
        ]
        if ts.baseline_full is None:
            continue
        spec = ts.metric
        r = ts.task.reference_point
        if r is None:
            r = reference_point(spec.info.best, spec.direction, ts.baseline_full)
        g_full = gain(ts.full, ts.baseline_full, r, spec.sign)
        g_reps = gain(ts.replicates, ts.baseline_replicates[:, None], r, spec.sign)
        gain_full[ts.label], gain_reps[ts.label] = aligned(ts, g_full), aligned(ts, g_reps)
        if ts.baseline_full == r:
            notes.append("%s: the baseline already reaches the reference point %g; no gain" % (ts.label, r))
        for j, name in enumerate(ts.names):
            low, high = _interval(g_reps[:, j], g_full[j], level)
            gain_rows.append(
                OrderedDict(
                    [
                        ("task", ts.task.name),
                        ("language", ts.task.language),
                        ("system", name),
                        ("gain", float(g_full[j])),
                        ("ci_low", low),
                        ("ci_high", high),
                        ("reference_point", r),
                        ("baseline", ts.baseline_full),
                    ]
                )
            )
        # the gain reaches +100 where the score reaches the reference point, the metric's best value
        rows = gain_rows[-len(ts.names) :]
        notes += [
            "%s: %s" % (ts.label, n)
            for n in degenerate_notes(
                "gain",
                100.0 if r == spec.info.best else None,
                ts.names,
                [row["ci_low"] for row in rows],
                [row["ci_high"] for row in rows],
                n_items=ts.n_items,
            )
        ]
    scores = pd.DataFrame(score_rows, columns=["task", "language", "system", "score", "ci_low", "ci_high"])
    gains = pd.DataFrame(
        gain_rows, columns=["task", "language", "system", "gain", "ci_low", "ci_high", "reference_point", "baseline"]
    )

    # Gaps between the languages of each task (first language listed minus second).
    gap_rows = []
    by_task = OrderedDict()
    for ts in test_sets:
        by_task.setdefault(ts.task.name, []).append(ts)
    for task, sets in by_task.items():
        if len(sets) < 2:
            continue
        first, second = sets[0], sets[1]
        use_gain = first.label in gain_full and second.label in gain_full
        if not use_gain and first.metric.name != second.metric.name:
            continue
        a_full = gain_full[first.label] if use_gain else aligned(first, first.full)
        a_reps = gain_reps[first.label] if use_gain else aligned(first, first.replicates)
        b_full = gain_full[second.label] if use_gain else aligned(second, second.full)
        b_reps = gain_reps[second.label] if use_gain else aligned(second, second.replicates)
        result = gap(a_full, a_reps, b_full, b_reps, level)
        for j, name in enumerate(systems):
            if not np.isfinite(result.gap[j]):
                continue
            gap_rows.append(
                OrderedDict(
                    [
                        ("task", task),
                        ("languages", "%s - %s" % (first.task.language, second.task.language)),
                        ("system", name),
                        ("gap", float(result.gap[j])),
                        ("ci_low", result.ci_low[j]),
                        ("ci_high", result.ci_high[j]),
                        ("p_value", result.p_value[j]),
                        ("of", "gain" if use_gain else "score"),
                    ]
                )
            )
    gaps = pd.DataFrame(gap_rows, columns=["task", "languages", "system", "gap", "ci_low", "ci_high", "p_value", "of"])

    # Aggregates: per language and over all test sets.
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
    sign = 1.0 if of == "gain" else test_sets[0].metric.sign
    scopes = OrderedDict()
    languages = list(OrderedDict.fromkeys(ts.task.language for ts in test_sets if ts.task.language is not None))
    for language in languages:
        scopes[language] = [ts for ts in test_sets if ts.task.language == language]
    scopes["all"] = list(test_sets)
    agg_rows, pair_rows, rank_rows = [], [], []
    for scope, sets in scopes.items():
        full_stack = np.stack([gain_full[ts.label] if of == "gain" else aligned(ts, ts.full) for ts in sets])
        rep_stack = np.stack(
            [gain_reps[ts.label] if of == "gain" else aligned(ts, ts.replicates) for ts in sets], axis=1
        )  # (B, T, M)
        weights = [ts.task.weight for ts in sets]
        agg_full = aggregate(full_stack, weights)
        agg_reps = aggregate(rep_stack, weights)
        present = np.isfinite(agg_full)
        mean_rank = np.full(len(systems), np.nan)
        if present.sum() >= 2:
            avg, _ = average_ranks(np.where(np.isfinite(full_stack), full_stack, -np.inf * sign)[:, present], sign)
            mean_rank[present] = avg
        summary = rank_summary(agg_full[present], agg_reps[:, present], sign, level)
        idx = np.flatnonzero(present)
        for k, j in enumerate(idx):
            low, high = _interval(agg_reps[:, j], agg_full[j], level)
            agg_rows.append(
                OrderedDict(
                    [
                        ("scope", scope),
                        ("system", systems[j]),
                        ("value", float(agg_full[j])),
                        ("ci_low", low),
                        ("ci_high", high),
                        ("rank", int(summary.rank[k])),
                        ("average_rank", float(mean_rank[j])),
                    ]
                )
            )
            rank_rows.append(
                OrderedDict(
                    [
                        ("scope", scope),
                        ("system", systems[j]),
                        ("rank", int(summary.rank[k])),
                        ("rank_low", int(summary.low[k])),
                        ("rank_high", int(summary.high[k])),
                        ("p_first", float(summary.p_first[k])),
                    ]
                )
            )
        if idx.size >= 2:
            order = sorted(range(idx.size), key=lambda k: (-sign * agg_full[idx[k]], systems[idx[k]]))
            pairs = ranked_pairs(order)
            stats = pair_statistics(agg_reps[:, idx], agg_full[idx], pairs, sign, "percentile", level)
            holm = adjust(stats.p_two_sided, "holm")
            for (a, c), d, lo, hi, p, ph in zip(
                pairs, stats.difference, stats.ci_low, stats.ci_high, stats.p_two_sided, holm
            ):
                pair_rows.append(
                    OrderedDict(
                        [
                            ("scope", scope),
                            ("a", systems[idx[a]]),
                            ("b", systems[idx[c]]),
                            ("diff", float(d)),
                            ("ci_low", float(lo)),
                            ("ci_high", float(hi)),
                            ("p_value", float(p)),
                            ("p_holm", float(ph)),
                        ]
                    )
                )
    # Rank intervals per test set as well.
    for ts in test_sets:
        summary = rank_summary(ts.full, ts.replicates, ts.metric.sign, level)
        for j, name in enumerate(ts.names):
            rank_rows.append(
                OrderedDict(
                    [
                        ("scope", ts.label),
                        ("system", name),
                        ("rank", int(summary.rank[j])),
                        ("rank_low", int(summary.low[j])),
                        ("rank_high", int(summary.high[j])),
                        ("p_first", float(summary.p_first[j])),
                    ]
                )
            )
    aggregates = pd.DataFrame(
        agg_rows, columns=["scope", "system", "value", "ci_low", "ci_high", "rank", "average_rank"]
    )
    aggregates = aggregates.sort_values(
        ["scope", "rank", "system"],
        key=lambda c: c.map({s: i for i, s in enumerate(scopes)}) if c.name == "scope" else c,
        kind="stable",
    ).reset_index(drop=True)
    cd = critical_difference(test_sets, systems, of, gain_full, definition.cd_test, definition.cd_alpha, sign)
    if cd is None:
        notes.append("the critical-difference diagram needs at least 4 test sets and 2 systems present in all")
    return BenchmarkResult(
        definition,
        test_sets,
        systems,
        scores,
        gains,
        gaps,
        aggregates,
        pd.DataFrame(pair_rows, columns=["scope", "a", "b", "diff", "ci_low", "ci_high", "p_value", "p_holm"]),
        pd.DataFrame(rank_rows, columns=["scope", "system", "rank", "rank_low", "rank_high", "p_first"]),
        cd,
        of,
        notes,
    )


def critical_difference(test_sets, systems, of, gain_full, test="nemenyi", alpha=0.05, sign=1.0):
    """Friedman test over the test sets, then Nemenyi's critical difference or Wilcoxon + Holm.

    Uses the systems present in every test set; None with fewer than 4 test sets or 2 systems.
    Returns ``{"systems", "average_ranks", "friedman_statistic", "friedman_p", "test", "alpha",
    "cd" (Nemenyi), "pairs" (Wilcoxon: a, b, p, p_holm), "cliques"}``.
    """
    from scipy import stats

    def values(ts):
        full = gain_full[ts.label] if of == "gain" else None
        if full is None:
            full = np.full(len(systems), np.nan)
            full[[systems.index(n) for n in ts.names]] = ts.full
        return full

    matrix = np.stack([values(ts) for ts in test_sets])  # (N, M)
    keep = np.all(np.isfinite(matrix), axis=0)
    n_sets, k = matrix.shape[0], int(keep.sum())
    if n_sets < 4 or k < 2:
        return None
    data = matrix[:, keep]
    names = [s for s, kept in zip(systems, keep) if kept]
    avg, _ = average_ranks(data, sign)
    if k >= 3:
        stat, p = stats.friedmanchisquare(*[data[:, j] for j in range(k)])
    else:
        stat, p = np.nan, np.nan
    out = OrderedDict(
        [
            ("systems", names),
            ("average_ranks", [float(a) for a in avg]),
            ("friedman_statistic", float(stat)),
            ("friedman_p", float(p)),
            ("test", test),
            ("alpha", alpha),
            ("n_test_sets", n_sets),
        ]
    )
    different = set()
    if test == "nemenyi":
        q = stats.studentized_range.ppf(1 - alpha, k, np.inf) / np.sqrt(2.0)
        cd = float(q * np.sqrt(k * (k + 1) / (6.0 * n_sets)))
        out["cd"] = cd
        for a in range(k):
            for c in range(a + 1, k):
                if abs(avg[a] - avg[c]) > cd:
                    different.add(frozenset((a, c)))
    else:
        pairs, pvals = [], []
        for a in range(k):
            for c in range(a + 1, k):
                diff = data[:, a] - data[:, c]
                p_ac = 1.0 if np.all(diff == 0) else float(stats.wilcoxon(data[:, a], data[:, c]).pvalue)
                pairs.append((a, c))
                pvals.append(p_ac)
        holm = adjust(np.array(pvals), "holm")
        out["pairs"] = [
            OrderedDict([("a", names[a]), ("b", names[c]), ("p", p_), ("p_holm", float(h))])
            for (a, c), p_, h in zip(pairs, pvals, holm)
        ]
        different = set(frozenset(pc) for pc, h in zip(pairs, holm) if h <= alpha)
    out["cliques"] = _cliques(avg, different)
    out["cliques"] = [[names[j] for j in clique] for clique in out["cliques"]]
    return out


def _cliques(avg, different):
    """Maximal groups of systems, contiguous in average rank, with no significant difference inside."""
    order = list(np.argsort(avg, kind="mergesort"))
    cliques = []
    for start in range(len(order)):
        stop = start
        while stop + 1 < len(order) and all(
            frozenset((order[i], order[stop + 1])) not in different for i in range(start, stop + 1)
        ):
            stop += 1
        if stop > start:
            members = order[start : stop + 1]
            if not any(set(members) <= set(c) for c in cliques):
                cliques.append(members)
    return cliques

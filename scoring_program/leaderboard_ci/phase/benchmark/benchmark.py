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

from ...core.systems import paired_scores
from ...scoring.config import BaselineSettings, load_config
from ...scoring.errors import ConfigError
from ...scoring.readers import read_baseline, read_gold
from ..analysis.systems import build_plan
from ..execution.runs import Execution
from ..ingestion.submissions import load_systems
from .critical_difference import critical_difference
from .definition import BenchmarkDefinition, TaskSpec, load_benchmark
from .execution import open_scoring
from .submissions import SharedSubmissions, task_systems
from .tables import (
    AGGREGATE_COLUMNS,
    PAIR_COLUMNS,
    RANK_COLUMNS,
    aggregate_setting,
    aggregate_tables,
    gain_table,
    gap_table,
    scopes_of,
    score_table,
    test_set_ranks,
)

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
    method: str = "percentile"  # the task's bootstrap.method
    jackknife: Optional[list] = None  # per system (leave-one-out scores, weights) of the metric; for bca

    @property
    def label(self):
        return self.task.label


def score_test_set(task, definition, workdir, n_jobs="auto", shared=None, scoring=None):
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
    bca = bootstrap.method == "bca"
    where = scoring.keywords() if scoring is not None else {"n_jobs": n_jobs}
    scores = paired_scores(plan, bootstrap.n_resamples, jackknife=bca, **where)
    full, reps = scores.full[:, 0], scores.replicates[:, :, 0]
    m = len(names)
    jackknife = [(jk[:, 0], weights) for jk, weights, _ in scores.jackknife[:m]] if bca else None
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
        bootstrap.method,
        jackknife,
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
    rank_intervals: pd.DataFrame  # scope, system, rank, rank_pct_low, rank_pct_high, p_first
    critical_difference: Optional[dict]
    aggregate_of: str
    notes: list = field(default_factory=list)

    def to_dict(self):
        # phase may import report only inside functions (tests/test_layering.py's LAZY_ONLY)
        from ...report.benchmark_report import benchmark_to_dict

        return benchmark_to_dict(self)

    def write(self, out_dir):
        # phase may import report only inside functions (tests/test_layering.py's LAZY_ONLY)
        from ...report.benchmark_report import write_benchmark_report

        return write_benchmark_report(self, out_dir)


def score_test_sets(definition, execution=None):
    """Every test set of ``definition`` scored (:func:`score_test_set`) where ``execution`` says.

    ``execution`` : :class:`~leaderboard_ci.phase.execution.runs.Execution`, default ``Execution()``.
    Files are unpacked in a temporary work folder, removed at the end.
    """
    workdir = tempfile.mkdtemp(prefix="leaderboard-ci-benchmark-")
    try:
        shared = SharedSubmissions(os.path.join(workdir, "shared"), definition.names)
        with open_scoring(execution or Execution()) as scoring:
            return [
                score_test_set(t, definition, os.path.join(workdir, "%03d" % i), shared=shared, scoring=scoring)
                for i, t in enumerate(definition.tasks)
            ]
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def check_resamples(definition, test_sets):
    """One sentence when the test sets were resampled a different number of times (the aggregates need one B)."""
    b_values = sorted(set(ts.replicates.shape[0] for ts in test_sets))
    if len(b_values) != 1:
        raise ConfigError(
            "%s: the test sets use different numbers of resamples (%s); set n_resamples in the "
            "benchmark" % (definition.source, ", ".join(str(b) for b in b_values))
        )


def _sorted_by_scope(rows, scopes):
    """The aggregate table, scopes in their order (languages, then "all"), best rank first."""
    frame = pd.DataFrame(rows, columns=AGGREGATE_COLUMNS)
    position = {s: i for i, s in enumerate(scopes)}
    return frame.sort_values(
        ["scope", "rank", "system"], key=lambda c: c.map(position) if c.name == "scope" else c, kind="stable"
    ).reset_index(drop=True)


def analyze_benchmark(definition, n_jobs="auto", test_sets=None, execution=None):
    """Score every test set and compute the benchmark's tables (see :class:`BenchmarkResult`).

    ``execution`` (:class:`~leaderboard_ci.phase.execution.runs.Execution`) says
    where the test sets are scored (threads, Dask); default ``Execution(n_jobs=n_jobs)``.
    ``test_sets``: already scored test sets (then nothing is read or scored).

    The steps: score the test sets, per-test-set scores and gains, the gaps
    between languages, the aggregates per language and overall (with their
    pairs and rank intervals), the rank intervals per test set, and the
    critical-difference diagram.  Intervals follow each task's
    ``bootstrap.method`` (:mod:`.tables`).
    """
    if test_sets is None:
        test_sets = score_test_sets(definition, execution or Execution(n_jobs=n_jobs))
    check_resamples(definition, test_sets)
    level = definition.confidence_level
    systems = tuple(OrderedDict.fromkeys(name for ts in test_sets for name in ts.names))
    scores, score_notes = score_table(test_sets, level)
    gains, gain_full, gain_reps, gain_notes = gain_table(test_sets, systems, level)
    notes = [n for ts in test_sets for n in score_notes[ts.label] + gain_notes.get(ts.label, [])]
    gaps = gap_table(test_sets, systems, gain_full, gain_reps, level)
    of, sign = aggregate_setting(definition, test_sets, gain_full)
    scopes = scopes_of(test_sets)
    agg_rows, pair_rows, rank_rows, scope_notes = aggregate_tables(
        scopes, systems, lambda ts: ts.task.weight, of, sign, gain_full, gain_reps, level
    )
    notes += scope_notes
    rank_rows += test_set_ranks(test_sets, level)
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
        _sorted_by_scope(agg_rows, scopes),
        pd.DataFrame(pair_rows, columns=PAIR_COLUMNS),
        pd.DataFrame(rank_rows, columns=RANK_COLUMNS),
        cd,
        of,
        notes,
    )

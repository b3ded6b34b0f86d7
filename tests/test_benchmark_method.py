"""A task's ``bootstrap.method`` is honoured in benchmarks: BCa and basic intervals, not always percentile.

The benchmark resamples each test set with its own seed; run with that seed,
the scoring program's own ``evaluate`` (the leaderboard path, a separate
code path from the benchmark's paired scoring) gives every system's interval
by the task's method.  The benchmark's score intervals must equal it.  The
basic interval is also re-derived by its formula from scikit-learn scores on
the same resamples.
"""

import os
import shutil
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import accuracy_score

from leaderboard_ci.core.resampling import counts_from_indices, replicate_indices
from leaderboard_ci.phase.benchmark.benchmark import analyze_benchmark, load_benchmark, seed_for_test_set
from leaderboard_ci.phase.benchmark.definition import DEFAULT_PROGRAM
from leaderboard_ci.phase.execution.runners import LocalRunner
from leaderboard_ci.phase.execution.runs import Execution
from leaderboard_ci.scoring.config import load_config
from leaderboard_ci.scoring.evaluation import evaluate
from leaderboard_ci.scoring.readers import read_gold, read_predictions

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "examples", "benchmark")
B = 199
METHODS = {"en": "basic", "es": "bca"}


@pytest.fixture(scope="module")
def wine(tmp_path_factory):
    """The sample benchmark's wine task, English asking basic intervals and Spanish BCa."""
    root = tmp_path_factory.mktemp("bench")
    for language, method in METHODS.items():
        src = os.path.join(EXAMPLE, language, "wine")
        dst = root / language / "wine"
        shutil.copytree(src, str(dst))
        config = dst / "reference_data" / "config.yaml"
        config.write_text(config.read_text().replace("bootstrap: {", "bootstrap: {method: %s, " % method))
    (root / "benchmark.yaml").write_text(
        "seed: 12345\ntasks:\n"
        + "".join(
            "  - {name: wine, language: %s, reference: %s/wine/reference_data, submissions: %s/wine/submissions,"
            " baselines: [baseline_majority.csv, baseline_uniform.csv]}\n" % (lang, lang, lang)
            for lang in METHODS
        )
    )
    definition = replace(load_benchmark(str(root / "benchmark.yaml")), n_resamples=B)
    return root, analyze_benchmark(definition, n_jobs=1)


@pytest.mark.parametrize("language", sorted(METHODS))
def test_score_intervals_follow_the_task_method(wine, language):
    root, result = wine
    reference = str(root / language / "wine" / "reference_data")
    config = load_config(DEFAULT_PROGRAM, reference)
    assert config.bootstrap.method == METHODS[language]
    bootstrap = replace(config.bootstrap, n_resamples=B, seed=seed_for_test_set(12345, "wine", language))
    config = replace(config, bootstrap=bootstrap)
    gold = read_gold(reference, config)
    rows = result.scores[result.scores.language == language].set_index("system")
    assert len(rows) == 6
    for name, row in rows.iterrows():
        path = os.path.join(str(root), language, "wine", "submissions", name + ".csv")
        leaderboard = evaluate(config, gold, read_predictions(path, config, gold)).scores[0]
        assert leaderboard.interval.method == METHODS[language]
        assert row.score == pytest.approx(leaderboard.score, abs=1e-12)
        assert (row.ci_low, row.ci_high) == pytest.approx(
            (leaderboard.interval.low, leaderboard.interval.high), abs=1e-12
        ), name


def test_basic_interval_equals_its_formula_on_scikit_learn_scores(wine):
    """Basic: ``(2θ - q(1 - α/2), 2θ - q(α/2))`` of accuracy_score over the same resample counts."""
    root, result = wine
    base = os.path.join(str(root), "en", "wine")
    y = pd.read_csv(os.path.join(base, "reference_data", "gold.csv")).iloc[:, 1].to_numpy()
    n = len(y)
    counts = counts_from_indices(replicate_indices(seed_for_test_set(12345, "wine", "en"), n, 0, B), n)
    rows = result.scores[result.scores.language == "en"].set_index("system")
    for name, row in rows.iterrows():
        pred = pd.read_csv(os.path.join(base, "submissions", name + ".csv")).iloc[:, 1].to_numpy()
        theta = accuracy_score(y, pred)
        reps = np.array([accuracy_score(y, pred, sample_weight=counts[b]) for b in range(B)])
        q_low, q_high = np.percentile(reps, [2.5, 97.5])
        assert (row.ci_low, row.ci_high) == pytest.approx((2 * theta - q_high, 2 * theta - q_low), abs=1e-12)


class _RecordingRunner(LocalRunner):
    """A runner that says it is not this process: the benchmark then sends it spans, as it would Dask."""

    in_process = False

    def __init__(self):
        self.spans = 0

    def run(self, function, calls):
        calls = list(calls)
        self.spans += len(calls)
        return super().run(function, calls)


def _same(a, b):
    for x, y in zip(a.test_sets, b.test_sets):
        assert np.array_equal(x.replicates, y.replicates) and np.array_equal(x.full, y.full)
        assert all(np.array_equal(p[0], q[0]) for p, q in zip(x.jackknife or [], y.jackknife or []))
    pd.testing.assert_frame_equal(a.scores, b.scores)
    pd.testing.assert_frame_equal(a.aggregates, b.aggregates)


def test_the_benchmark_runs_through_execution_with_the_same_numbers(wine):
    """Threads or an out-of-process runner (Dask's path: spans rebuilt from the plan's recipe) change nothing."""
    root, result = wine
    definition = replace(load_benchmark(str(root / "benchmark.yaml")), n_resamples=B)
    _same(result, analyze_benchmark(definition, execution=Execution(n_jobs=2)))
    runner = _RecordingRunner()
    _same(result, analyze_benchmark(definition, execution=Execution(runner=runner)))
    assert runner.spans >= 2  # both test sets went through the runner


@pytest.mark.slow
def test_the_benchmark_runs_on_a_local_dask_cluster(wine):
    pytest.importorskip("dask.distributed")
    root, result = wine
    definition = replace(load_benchmark(str(root / "benchmark.yaml")), n_resamples=B)
    _same(result, analyze_benchmark(definition, execution=Execution(dask="local", workers=1)))

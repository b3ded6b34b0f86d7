"""Timing of the benchmark analysis: 10 tasks x 2 languages x 50 systems, n = 2,000 items, B = 10,000.

    python3 benchmarks/benchmark_tasks.py [--tasks 10] [--systems 50] [--n 2000] [--resamples 10000]

Synthetic test sets (three-class labels, systems of accuracies 0.55-0.9, two baseline runs
each; macro-F1 on every test set) are scored by the paired engine exactly as score_test_set
does after reading files, then analysed by analyze_benchmark.  Prints the wall time of the
scoring, of the analysis and in total, and the peak RSS.  Target: under 60 s in total.
"""

import argparse
import os
import resource
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scoring_program"))

from leaderboard_ci.core.parallel import keep_freed_memory  # noqa: E402
from leaderboard_ci.core.systems import paired_scores  # noqa: E402
from leaderboard_ci.phase.analysis.systems import build_plan  # noqa: E402
from leaderboard_ci.phase.benchmark.benchmark import (  # noqa: E402
    BenchmarkDefinition,
    ScoredTestSet,
    TaskSpec,
    analyze_benchmark,
    seed_for_test_set,
)
from leaderboard_ci.scoring.config import parse_config  # noqa: E402
from leaderboard_ci.tasks.shared.base import GoldStandard  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=10)
    parser.add_argument("--systems", type=int, default=50)
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--resamples", type=int, default=10000)
    args = parser.parse_args(argv)
    keep_freed_memory()
    rng = np.random.default_rng(0)
    accuracy = rng.uniform(0.55, 0.9, args.systems)
    names = ["system_%02d" % j for j in range(args.systems)]
    tasks, test_sets = [], []
    started = time.time()
    for t in range(args.tasks):
        for language in ("en", "es"):
            task = TaskSpec("task_%02d" % t, language, "-", "-", ("b1", "b2"))
            tasks.append(task)
            seed = seed_for_test_set(12345, task.name, language)
            config = parse_config(
                {
                    "metric": "f1_macro",
                    "labels": ["a", "b", "c"],
                    "bootstrap": {"n_resamples": args.resamples, "seed": seed},
                }
            )
            gold = rng.integers(0, 3, args.n)
            preds = []
            for acc in list(accuracy) + [0.34, 0.4]:
                p = gold.copy()
                flip = rng.random(args.n) > acc + rng.normal(0, 0.02)
                p[flip] = rng.integers(0, 3, int(flip.sum()))
                preds.append(p)
            plan = build_plan(
                config, GoldStandard(values=gold, labels=("a", "b", "c")), preds, names + ["__b1", "__b2"]
            )
            scores = paired_scores(plan, args.resamples, n_jobs="auto")
            full, reps = scores.full[:, 0], scores.replicates[:, :, 0]
            m = args.systems
            test_sets.append(
                ScoredTestSet(
                    task,
                    config.official,
                    tuple(names),
                    full[:m],
                    reps[:, :m],
                    float(full[m:].mean()),
                    reps[:, m:].mean(axis=1),
                    args.n,
                    seed,
                )
            )
    scored = time.time()
    definition = BenchmarkDefinition(title="timing", tasks=tuple(tasks))
    result = analyze_benchmark(definition, test_sets=test_sets)
    done = time.time()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(
        "benchmark analysis: %d tasks x 2 languages x %d systems, n = %d, B = %d"
        % (args.tasks, args.systems, args.n, args.resamples)
    )
    print("  scoring the %d test sets: %.1f s" % (len(test_sets), scored - started))
    print("  gains, gaps, aggregates, ranks, CD: %.1f s" % (done - scored))
    print(
        "  total: %.1f s (target < 60 s): %s; peak RSS %.0f MB"
        % (done - started, "PASS" if done - started < 60 else "FAIL", peak)
    )
    print("  best on the aggregate: %s" % result.aggregates.iloc[0]["system"])
    return 0


if __name__ == "__main__":
    sys.exit(main())

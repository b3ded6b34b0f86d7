#!/usr/bin/env python3
"""cProfile one evaluate() call, with page faults and CPU time.

    python benchmarks/experiments/profile_evaluate.py --metric mae --n 10000 --B 2000 [--jobs 1] [--no-keep]

Imports scoring_program/leaderboard_ci and, like score.py, calls
``keep_freed_memory()`` first (``--no-keep`` skips it, to see the page faults
it saves).  Data: the benchmark's data sets (benchmarks/.cache/data, made by
datasets.py if missing).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import resource
import sys
import time

from _profiling import print_top

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)
ROOT = os.path.dirname(BENCH)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--metric", default="f1_macro")
    p.add_argument("--n", type=int, default=10000)
    p.add_argument("--B", type=int, default=2000)
    p.add_argument("--jobs", default="1")
    p.add_argument("--no-keep", action="store_true", help="do not call keep_freed_memory()")
    p.add_argument("--top", type=int, default=14)
    args = p.parse_args()
    sys.path.insert(0, os.path.join(ROOT, "scoring_program"))
    sys.path.insert(1, BENCH)
    from leaderboard_ci.core.parallel import keep_freed_memory

    kept = False if args.no_keep else keep_freed_memory()
    import datasets

    from leaderboard_ci.scoring.config import parse_config
    from leaderboard_ci.scoring.evaluation import evaluate
    from leaderboard_ci.tasks.shared.scorer import GoldStandard

    kind = "classification3" if args.metric in ("f1_macro", "accuracy") else "regression_diabetes"
    path, _ = datasets.ensure(kind, args.n)
    data = datasets.load(path)
    labels = ("0", "1", "2") if kind == "classification3" else None
    jobs = args.jobs if args.jobs == "auto" else int(args.jobs)
    config = parse_config({"metric": args.metric, "bootstrap": {"n_resamples": args.B, "n_jobs": jobs}})
    gold = GoldStandard(values=data["gold"], labels=labels)
    evaluate(
        parse_config({"metric": args.metric, "bootstrap": {"n_resamples": 64, "n_jobs": jobs}}), gold, data["pred"]
    )  # warm-up
    f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    c0, t0 = time.process_time(), time.perf_counter()
    prof = cProfile.Profile()
    prof.enable()
    evaluate(config, gold, data["pred"])
    prof.disable()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0
    draws = float(args.n) * args.B
    print(
        "%s n=%d B=%d n_jobs=%s %s: wall %.2f s (%.2f ns/draw), CPU %.2f s, %d minor page faults "
        "(%.0f per 10^4 resamples)"
        % (
            args.metric,
            args.n,
            args.B,
            args.jobs,
            "keep_freed_memory" if kept else "glibc defaults",
            wall,
            1e9 * wall / draws,
            cpu,
            faults,
            faults * 1e4 / args.B,
        )
    )
    print_top(prof, args.top)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Where the end-of-phase time goes: the stages of analyze().

    python benchmarks/experiments/profile_analysis.py --m 1000 --n 10000 --B 10000 [--jobs auto]
        [--cprofile]

Data: the benchmark's ``systems3`` set (the first m trained scikit-learn
models on the first n test items; benchmarks/.cache/data, made by
datasets.py if missing).  Like the end-of-phase command, it calls
``keep_freed_memory()`` first and passes the GoldStandard and coded
prediction arrays (built before timing).

Prints:

* the stages of one ``analyze()`` call (wall seconds): ``score_systems``
  (bootstrap replicates of all systems: one matrix product per block),
  ``pair_statistics`` (differences, CIs, p-values of all m(m-1)/2 pairs),
  ``corrections`` (statsmodels), ``letters``, ``indicators``, ``other``
  (pandas tables, ranking); CPU time / wall; peak RSS;
* ``--cprofile``: the top functions by internal time;
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
sys.path.insert(0, os.path.join(ROOT, "scoring_program"))
sys.path.insert(1, BENCH)

from leaderboard_ci.core.parallel import keep_freed_memory  # noqa: E402

KEPT = keep_freed_memory()

import datasets  # noqa: E402
import impls  # noqa: E402


def load(m, n):
    path, desc = datasets.ensure("systems3", n, m=m)
    print(desc)
    return impls._eop_inputs(datasets.load(path))


def run_analyze(gold, systems, B, jobs, profile=False):
    analysis = impls._instrument_analysis()
    impls._STAGES.clear()
    prof = cProfile.Profile() if profile else None
    c0, t0 = time.process_time(), time.perf_counter()
    if prof:
        prof.enable()
    result = analysis.analyze(
        gold,
        systems,
        metric="f1_macro",
        n_resamples=B,
        seed=impls.SEED,
        corrections=list(impls.CORRECTIONS),
        execution=analysis.Execution(n_jobs=jobs),
    )
    if prof:
        prof.disable()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    stages = dict(impls._STAGES)
    stages["other"] = wall - sum(stages.values())
    return result, wall, cpu, stages, prof


# ---------------------------------------------------------------------------
# Inside pair_statistics
# ---------------------------------------------------------------------------
def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--m", type=int, default=100)
    p.add_argument("--n", type=int, default=10000)
    p.add_argument("--B", type=int, default=10000)
    p.add_argument("--jobs", default="auto")
    p.add_argument("--cprofile", action="store_true")
    p.add_argument("--top", type=int, default=18)
    args = p.parse_args()
    jobs = args.jobs if args.jobs == "auto" else int(args.jobs)
    from leaderboard_ci.core.parallel import resolve_jobs

    print("load %.2f; keep_freed_memory: %s; threads: %d" % (os.getloadavg()[0], KEPT, resolve_jobs(jobs)))
    gold, systems, _ = load(args.m, args.n)
    run_analyze(gold, dict(list(systems.items())[:3]), 64, jobs)  # warm-up: imports (statsmodels, pandas)
    result, wall, cpu, stages, prof = run_analyze(gold, systems, args.B, jobs, profile=args.cprofile)
    print(
        "analyze m=%d n=%d B=%d n_jobs=%s: %.2f s wall, %.2f s CPU (CPU/wall %.2f), peak RSS %.0f MB"
        % (
            args.m,
            args.n,
            args.B,
            args.jobs,
            wall,
            cpu,
            cpu / wall,
            resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
        )
    )
    for k, v in sorted(stages.items(), key=lambda kv: -kv[1]):
        print("  %-16s %8.2f s  (%4.1f%%)" % (k, v, 100 * v / wall))
    if prof is not None:
        print_top(prof, args.top)


if __name__ == "__main__":
    main()

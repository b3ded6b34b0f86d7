"""Time and peak memory of the max-t step-down and the rank sets (no assertions).

python3 benchmarks/bench_simultaneous.py --m 100 --B 10000 --jobs 1
"""

import argparse
import os
import resource
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "scoring_program"))
from leaderboard_ci.core.pairs import pair_statistics, ranked_pairs  # noqa: E402
from leaderboard_ci.core.parallel import keep_freed_memory  # noqa: E402
from leaderboard_ci.core.simultaneous import maxt_stepdown, rank_sets  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--m", type=int, default=100)
    parser.add_argument("--B", type=int, default=10000)
    parser.add_argument("--jobs", default="1")
    parser.add_argument("--ranks", action="store_true", help="also the rank sets (m step-downs of m - 1 pairs)")
    parser.add_argument("--pairs-stats", action="store_true", help="also time pair_statistics for comparison")
    args = parser.parse_args(argv)
    keep_freed_memory()  # as the entry points do (fresh 32 MB chunks would be page-faulted in each time)
    jobs = args.jobs if args.jobs == "auto" else int(args.jobs)
    rng = np.random.default_rng(0)
    m, b = args.m, args.B
    quality = np.linspace(0.6, 0.8, m)
    common = rng.normal(0, 0.01, size=(b, 1))
    reps = quality + common + rng.normal(0, 0.01, size=(b, m))
    full = quality + rng.normal(0, 0.002, size=m)
    pairs = ranked_pairs(np.argsort(-full))
    if args.pairs_stats:
        t0 = time.perf_counter()
        pair_statistics(reps, full, pairs, 1, n_jobs=jobs)
        print("pair_statistics  m=%d B=%d P=%d: %.2f s" % (m, b, len(pairs), time.perf_counter() - t0))
    t0 = time.perf_counter()
    test = maxt_stepdown(reps, full, pairs, 1, 0.05, n_jobs=jobs)
    took = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(
        "maxt_stepdown    m=%d B=%d P=%d jobs=%s: %.2f s, %d steps, %d significant, c1 = %.3f, peak RSS %d MB "
        "(input %d MB)"
        % (
            m,
            b,
            len(pairs),
            args.jobs,
            took,
            test.steps,
            int(test.significant.sum()),
            test.critical_simultaneous,
            peak // 1024,
            reps.nbytes >> 20,
        )
    )
    if args.ranks:
        t0 = time.perf_counter()
        rank_sets(reps, full, 1, 0.05, family_test=test, pairs=pairs, n_jobs=jobs)
        print("rank_sets (reusing the family) : %.2f s" % (time.perf_counter() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())

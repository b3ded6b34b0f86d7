"""What clustering costs one submission: the item bootstrap and the cluster bootstrap side by side.

Issue 21's bound: ``bootstrap.cluster`` adds at most 20 % to one submission at n = 10**5
items with B = 10**4 resamples.  This script scores the same submission of the
n = 10**5 workload (``/work/golden/big/input`` by default: ``ref/gold.csv`` and
``res/predictions.csv``, f1_macro and accuracy) with the item bootstrap and with a
cluster column added to a copy of the gold (clusters of 1 to 20 items, QA-like,
about 9,500 clusters; ``--cluster-size K`` for clusters of exactly K items), alternating
the two so that the load of the machine hits both alike, and prints each time and
the ratio (median over ``--rounds``).

    python3 benchmarks/cluster_cost.py [--input DIR] [--rounds 3] [--resamples 10000] [--jobs 1]

The timed part is :func:`leaderboard_ci.scoring.evaluation.evaluate` (reading the files
is the same for both and is left out).  The machine may be shared: the ratio, not the
seconds, is the result.
"""

import argparse
import dataclasses
import os
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "scoring_program"))

from leaderboard_ci.scoring.config import load_config  # noqa: E402
from leaderboard_ci.scoring.evaluation import evaluate  # noqa: E402
from leaderboard_ci.scoring.readers import read_gold, read_predictions  # noqa: E402


def _clusters(n, size, seed=0):
    if size:
        return np.arange(n) // size
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 21, n)  # more than enough
    return np.repeat(np.arange(n), sizes)[:n]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--input", default="/work/golden/big/input")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--resamples", type=int, default=10000)
    parser.add_argument("--jobs", default="1")
    parser.add_argument("--cluster-size", type=int, default=0, help="0: 1 to 20 items per cluster")
    parser.add_argument("--strata", type=int, default=0, help="also time K strata (item i in stratum i %% K)")
    args = parser.parse_args(argv)
    ref = os.path.join(args.input, "ref")
    program = os.path.join(os.path.dirname(HERE), "scoring_program")
    config = load_config(program, ref)
    jobs = args.jobs if args.jobs == "auto" else int(args.jobs)
    bootstrap = dataclasses.replace(config.bootstrap, n_resamples=args.resamples, n_jobs=jobs)
    plain_config = dataclasses.replace(config, bootstrap=bootstrap)
    cluster_config = dataclasses.replace(config, bootstrap=dataclasses.replace(bootstrap, cluster="cluster"))
    gold = read_gold(ref, plain_config)
    res = os.path.join(args.input, "res")
    predictions = read_predictions(os.path.join(res, sorted(os.listdir(res))[0]), plain_config, gold)
    clustered = dataclasses.replace(gold, clusters=_clusters(gold.n, args.cluster_size))
    print(
        "n = %d items, %d clusters, B = %d, n_jobs = %s, %d rounds"
        % (gold.n, clustered.resampling().n_units, args.resamples, args.jobs, args.rounds)
    )
    runs = [("item", plain_config, gold), ("cluster", cluster_config, clustered)]
    if args.strata:
        strata_config = dataclasses.replace(config, bootstrap=dataclasses.replace(bootstrap, strata="stratum"))
        runs.append(("strata", strata_config, dataclasses.replace(gold, strata=np.arange(gold.n) % args.strata)))
    times = dict((name, []) for name, _, _ in runs)
    widths = {}
    for _ in range(args.rounds):
        for name, cfg, g in runs:
            started = time.perf_counter()
            result = evaluate(cfg, g, predictions)
            times[name].append(time.perf_counter() - started)
            widths[name] = result.official.interval.high - result.official.interval.low
    item, cluster = statistics.median(times["item"]), statistics.median(times["cluster"])
    print("item bootstrap     %.2f s   (CI width %.5f)" % (item, widths["item"]))
    print("cluster bootstrap  %.2f s   (CI width %.5f)" % (cluster, widths["cluster"]))
    print("ratio cluster / item: %.3f (issue 21's bound: 1.20)" % (cluster / item))
    if args.strata:
        strata = statistics.median(times["strata"])
        print("stratified (%d strata) %.2f s, ratio strata / item: %.3f" % (args.strata, strata, strata / item))
    return 0


if __name__ == "__main__":
    sys.exit(main())

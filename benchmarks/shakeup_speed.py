"""What the shake-up costs at 500 participants x 20 submissions (issue 35), beside the end of phase.

Each case runs in its own child process (interpreter start-up, imports and data generation are
excluded from the time; CPU = the child's user + system time over every thread; peak RSS = its
``ru_maxrss``), one after the other, with the 1-minute load average before and after:

``shakeup``
    :func:`leaderboard_ci.phase.shakeup.shakeup` in two-phase mode: 500 participants with 20
    public submissions each (10,000 runs scored on the public set, n = 10,000 items) and one
    private submission each (n = 10,000), macro-F1, B = 10,000: scoring, picking, the best-of-20
    optimism of every participant, gaps, both rank-set step-downs, Kendall and Spearman with
    their noise bands, the winner's curse.  ``--dask`` runs the same on a Dask LocalCluster of 2
    workers (blocks of 256 runs shipped to the workers; the cluster's start is in the time).
``eop``
    :func:`leaderboard_ci.phase.analysis.analyze` (the end of phase) on ``m`` of the same
    submissions (the first run of each participant, then the second...), macro-F1, B as given:
    what an organizer's ``end-of-phase --per-participant all`` runs on such a download.  At
    m = 10,000 it holds 50 million pairs (about 16 GB of pairs table alone at 320 bytes a row), so
    it is measured at smaller m and extrapolated with its measured growth in m (printed).

Inputs are in memory, encoded as the command's readers encode them (reading 10,000 files is the
same reader code for both commands and is not measured here; ``leaderboard-ci shakeup`` on the
example shows the whole command).  Synthetic data: 3 classes (priors 0.5/0.3/0.2), participant p
right with probability 0.55 + 0.35 p/499 on an item of average difficulty, items of shared
difficulty; a participant's 20 public submissions and its private one are equally good, each with
its own noise (so the best of 20 is picked by noise alone: the best-of-k optimism at work).

Usage::

    nice python benchmarks/shakeup_speed.py --case shakeup
    nice python benchmarks/shakeup_speed.py --case shakeup --dask
    nice python benchmarks/shakeup_speed.py --case eop --m 500 --B 10000
    nice python benchmarks/shakeup_speed.py --case eop --m 1000 --B 2000
    nice python benchmarks/shakeup_speed.py --case shakeup --participants 100 --program /work/main/scoring_program

``--program`` times another checkout's ``scoring_program`` (the same data, the same seed);
``--bias-resamples all`` measures the best-of-k optimism on all ``B`` replicates (every run of
every participant scored on all of them, as before the two-pass scoring).

Results are appended to ``benchmarks/results/shakeup_speed.jsonl`` and printed.  Not a test:
nothing here asserts a time.
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, os.pardir))
RESULTS = os.path.join(HERE, "results", "shakeup_speed.jsonl")

_CHILD = r"""
import json, os, resource, sys, time
sys.path.insert(0, sys.argv[1])
import numpy as np
from leaderboard_ci.core.parallel import keep_freed_memory
keep_freed_memory()
from scipy.stats import norm
from leaderboard_ci.tasks.shared.base import GoldStandard
case, participants, runs, n, B, m, dask = (sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]),
                                           int(sys.argv[6]), int(sys.argv[7]), sys.argv[8] == "1")
bias_kw = {} if sys.argv[9] == "" else {"bias_resamples": None if sys.argv[9] == "all" else int(sys.argv[9])}
rng = np.random.default_rng(35)
labels = ("0", "1", "2")

def test_set():
    gold = rng.choice(3, size=n, p=[0.5, 0.3, 0.2]).astype(np.intp)
    return gold, rng.normal(size=n)

def predict(gold, difficulty, ability):
    right = rng.random(n) < norm.cdf(ability - difficulty)
    return np.where(right, gold, (gold + rng.integers(1, 3, n)) % 3).astype(np.intp)

abilities = norm.ppf(0.55 + 0.35 * np.arange(participants) / max(1, participants - 1)) * np.sqrt(2)
pub_gold, pub_d = test_set()
priv_gold, priv_d = test_set()
public = {"team_%03d" % p: [predict(pub_gold, pub_d, abilities[p]) for _ in range(runs)]
          for p in range(participants)}
private = {"team_%03d" % p: [predict(priv_gold, priv_d, abilities[p])] for p in range(participants)}
gold_pub = GoldStandard(values=pub_gold, labels=labels)
gold_priv = GoldStandard(values=priv_gold, labels=labels)
rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
r0 = resource.getrusage(resource.RUSAGE_SELF)
out = {}
if case == "shakeup":
    from leaderboard_ci.phase.execution.runs import Execution
    from leaderboard_ci.phase.shakeup import shakeup
    from leaderboard_ci.scoring.config import config_from_options
    config = config_from_options("f1_macro", labels=list(labels), n_resamples=B, seed=12345)
    execution = Execution(dask="local", workers=2, n_jobs=1) if dask else Execution()
    result = shakeup(gold_pub, public, gold_priv, private, config=config, execution=execution, **bias_kw)
    out = {"participants": result.m, "flagged": int(result.participants["flagged"].sum()),
           "tau": result.competition["agreement"].tau.value,
           "best_of_k_mean": float(result.participants["best_of_k_bias"].mean())}
else:
    from leaderboard_ci.phase.analysis import analyze
    systems = {}
    for k in range(runs):
        for name, subs in public.items():
            if len(systems) < m:
                systems["%s (%d)" % (name, k + 1)] = subs[k]
    result = analyze(gold_pub, systems, metric="f1_macro", labels=list(labels), n_resamples=B, seed=12345)
    out = {"systems": len(systems), "pairs": int(len(result.official.pairs))}
wall = time.perf_counter() - t0
r1 = resource.getrusage(resource.RUSAGE_SELF)
children = resource.getrusage(resource.RUSAGE_CHILDREN)
out.update({"wall": wall, "cpu": (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime),
            "cpu_workers": children.ru_utime + children.ru_stime,
            "peak_rss_mb": r1.ru_maxrss / 1024.0, "rss_before_mb": rss0 / 1024.0})
print(json.dumps(out))
"""


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--case", choices=("shakeup", "eop"), required=True)
    parser.add_argument("--participants", type=int, default=500)
    parser.add_argument("--runs", type=int, default=20, help="public submissions per participant")
    parser.add_argument("--n", type=int, default=10000, help="items per set")
    parser.add_argument("--B", type=int, default=10000)
    parser.add_argument("--m", type=int, default=500, help="systems of the end of phase")
    parser.add_argument("--dask", action="store_true")
    parser.add_argument(
        "--program",
        default=os.path.join(ROOT, "scoring_program"),
        help="the scoring_program folder to time (e.g. a checkout of main's, to compare; default: this one)",
    )
    parser.add_argument(
        "--bias-resamples",
        default="",
        help="replicates of the best-of-k optimism ('all' or a number; default: the program's own default)",
    )
    args = parser.parse_args(argv)
    load_before = os.getloadavg()
    started = time.strftime("%Y-%m-%d %H:%M:%S")
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            _CHILD,
            os.path.abspath(args.program),
            args.case,
            str(args.participants),
            str(args.runs),
            str(args.n),
            str(args.B),
            str(args.m),
            "1" if args.dask else "0",
            args.bias_resamples,
        ],
        capture_output=True,
        text=True,
    )
    if proc.returncode:
        sys.stderr.write(proc.stderr)
        return proc.returncode
    row = json.loads(proc.stdout.strip().splitlines()[-1])
    row.update(
        {
            "case": args.case + ("-dask" if args.dask else ""),
            "participants": args.participants,
            "runs": args.runs,
            "n": args.n,
            "B": args.B,
            "m": args.m if args.case == "eop" else None,
            "program": os.path.abspath(args.program),
            "bias_resamples": args.bias_resamples or "default",
            "started": started,
            "load_before": [round(x, 2) for x in load_before],
            "load_after": [round(x, 2) for x in os.getloadavg()],
            "machine": platform.processor() or platform.machine(),
            "cpus": os.cpu_count(),
        }
    )
    os.makedirs(os.path.dirname(RESULTS), exist_ok=True)
    with open(RESULTS, "a") as handle:
        handle.write(json.dumps(row) + "\n")
    print(json.dumps(row, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

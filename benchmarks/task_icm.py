"""Soft labels (``task: soft_labels``): ICM-Soft with intervals against a PyEvALL loop on the same resamples.

A self-contained benchmark.  The data: n = 10,000 EXIST-2023-like items (six
annotators, YES/NO, the gold a share of annotators) and one system's soft
predictions; B = 10,000.

* **ours, per submission**: ``evaluate(config, gold, predictions)`` with
  ICM-Soft (the information content re-estimated in every replicate);
  ``n_jobs`` auto and 1.
* **PyEvALL loop**: per replicate, PyEvALL 0.2.11's ``ICMSoft`` on the data set
  whose items are repeated by their counts (our index rows, each copy its own
  id), as a peer would run it; the first ``--peer-b`` replicates, scaled to B.
  PyEvALL looks each gold item's prediction up in a data frame, so one
  evaluation is quadratic in n: ``--peer-n`` runs the peer on a smaller n and
  scales by ``(n / peer_n)^2`` as well (printed).

Wall time is the median of 3 runs; the machine may be shared (load average printed).  Run:

    python3 benchmarks/task_icm.py [--n 10000] [--b 10000] [--peer-b 1] [--peer-n 2000]
"""

import argparse
import copy
import logging
import os
import statistics
import sys
import time
import uuid

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "scoring_program"))

from leaderboard_ci.core.resampling import replicate_indices  # noqa: E402
from leaderboard_ci.scoring.config import parse_config  # noqa: E402
from leaderboard_ci.scoring.evaluation import evaluate  # noqa: E402
from leaderboard_ci.tasks.base import GoldStandard  # noqa: E402
from leaderboard_ci.tasks.soft_labels import TASK  # noqa: E402


def make_data(n, seed=1):
    rng = np.random.RandomState(seed)
    votes = rng.binomial(6, 0.35, size=n) / 6.0
    gold = np.stack([votes, 1.0 - votes], axis=1)
    yes = np.clip(votes + rng.normal(0, 0.2, n), 0, 1)
    return gold, np.stack([yes, 1.0 - yes], axis=1)


def pyevall_icm_soft(gold, predicted, row):
    import pandas as pd
    from pyevall.comparators.comparators import PyEvALLComparator
    from pyevall.metrics.metrics import ICMSoft
    from pyevall.utils.utils import PyEvALLUtils

    logging.disable(logging.CRITICAL)
    eid = str(uuid.uuid4())
    PyEvALLUtils.load_configuration(eid, hierarchy=None, log_level="ERROR")
    ids = ["%d#%d" % (i, k) for k, i in enumerate(row)]

    def frame(values):
        rows = [copy.copy({"YES": float(values[i, 0]), "NO": float(values[i, 1])}) for i in row]
        return pd.DataFrame({"test_case": "T", "id": ids, "value": rows})

    metric = ICMSoft(eid)
    if hasattr(pd.options, "future") and hasattr(pd.options.future, "infer_string"):
        with pd.option_context("future.infer_string", False):  # PyEvALL 0.2.11 was written for pandas 2
            metric.evaluate(PyEvALLComparator(frame(predicted), frame(gold), "T", eid))
    else:
        metric.evaluate(PyEvALLComparator(frame(predicted), frame(gold), "T", eid))
    return metric.result["average"]


def median_time(fn, repeats=3):
    times, cpu = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        fn()
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    print(
        "  (median wall %.2f s, median CPU %.2f s, load average %.1f)"
        % (statistics.median(times), statistics.median(cpu), os.getloadavg()[0])
    )
    return statistics.median(times), statistics.median(cpu)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=10000)
    parser.add_argument("--b", type=int, default=10000)
    parser.add_argument("--peer-b", type=int, default=1)
    parser.add_argument("--peer-n", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    gold, predicted = make_data(args.n)
    gold_std = GoldStandard(values=gold, labels=("YES", "NO"), task=TASK.NAME)

    def config(n_jobs):
        return parse_config(
            {
                "task": "soft_labels",
                "labels": ["YES", "NO"],
                "metric": "icm_soft",
                "bootstrap": {"n_resamples": args.b, "seed": 12345, "n_jobs": n_jobs},
            }
        )

    print("data: n = %d items, B = %d" % (args.n, args.b))
    rows = []
    for label, n_jobs in (("ours", "auto"), ("ours-1job", 1)):
        cfg = config(n_jobs)
        result = evaluate(cfg, gold_std, predicted)  # warm-up
        rows.append((label, median_time(lambda: evaluate(cfg, gold_std, predicted), args.repeats)))
    print("  ICM-Soft = %.4f %s" % (result.scores[0].score, result.scores[0].interval))
    try:
        import pyevall  # noqa: F401
    except ImportError:
        print("pyevall is not installed (pip install pyevall): no peer row")
        pyevall = None
    if pyevall is not None:
        peer_n = min(args.peer_n, args.n)
        g, p = make_data(peer_n, seed=2)
        idx = replicate_indices(12345, peer_n, 0, args.peer_b)
        scale = args.b / float(args.peer_b) * (args.n / float(peer_n)) ** 2
        med = median_time(lambda: [pyevall_icm_soft(g, p, row) for row in idx], repeats=1)
        rows.append(
            ("PyEvALL loop (n=%d, B=%d, scaled x%g)" % (peer_n, args.peer_b, scale), (scale * med[0], scale * med[1]))
        )
    ours = rows[1][1]  # one job: its CPU time is this process's
    print(
        "\nper submission, ICM-Soft, n = %d, B = %d (CPU: this process only; ratios against ours-1job)"
        % (args.n, args.b)
    )
    print("%-48s %12s %12s %10s %10s" % ("implementation", "wall s", "CPU s", "x wall", "x CPU"))
    for label, (wall, cpu) in rows:
        print("%-48s %12.2f %12.2f %10.1f %10.1f" % (label, wall, cpu, wall / ours[0], cpu / ours[1]))


if __name__ == "__main__":
    main()

"""Soft labels (``task: soft_labels``): ICM-Soft with intervals, ours against a PyEvALL loop on the same resamples.

A self-contained benchmark.  The data: n = 10,000 EXIST-2023-like items (six
annotators, YES/NO, the gold a share of annotators) and soft predictions;
B = 10,000 (the default of the configuration, per submission and per phase).

* **ours, per submission**: ``evaluate(config, gold, predictions)`` with
  ICM-Soft (the information content re-estimated in every replicate);
  ``n_jobs`` 1 and auto.
* **ours, end of phase**: ``analyze`` of ``--systems`` (50) systems on the same
  gold, the paired analysis the organizer runs at the end of a phase (the
  gold's part of each replicate computed once for all systems, one product for
  all their columns); ``n_jobs`` auto.  ``--unbatched K`` also times K
  systems batched and each on its own (the same analysis otherwise).
* **PyEvALL loop**: per replicate, PyEvALL 0.2.11's ``ICMSoft`` on the data set
  whose items are repeated by their counts (our index rows, each copy its own
  id), as a peer would run it, on ``--peer-b`` replicates at ``--peer-n`` items
  and at half that.  PyEvALL looks each gold item's prediction up in a data
  frame, so its time grows faster than n: the exponent measured between the two
  sizes (at least 1) scales it to n (printed), then linearly to B replicates
  (and to the phase's systems).

BLAS runs on one thread, as the scoring program sets it (``score.py``).  Wall
time is the median of ``--repeats`` runs; the machine may be shared: the load
average is printed with each figure.  Run:

    python3 benchmarks/task_icm.py [--n 10000] [--b 10000] [--systems 50] [--peer-n 1000] [--peer-b 3]
"""

import argparse
import copy
import logging
import math
import os
import statistics
import sys
import time
import uuid

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")  # as the scoring program does, before numpy is imported

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "scoring_program"))

from leaderboard_ci.core.resampling import replicate_indices  # noqa: E402
from leaderboard_ci.scoring.config import parse_config  # noqa: E402
from leaderboard_ci.scoring.evaluation import evaluate  # noqa: E402
from leaderboard_ci.tasks.shared.base import GoldStandard  # noqa: E402
from leaderboard_ci.tasks.soft_labels import TASK  # noqa: E402


def make_data(n, seed=1, noise=0.2):
    rng = np.random.RandomState(seed)
    votes = rng.binomial(6, 0.35, size=n) / 6.0
    gold = np.stack([votes, 1.0 - votes], axis=1)
    yes = np.clip(votes + rng.normal(0, noise, n), 0, 1)
    return gold, np.stack([yes, 1.0 - yes], axis=1)


def make_systems(n, count):
    """``count`` systems' predictions on the gold of ``make_data(n)`` (noise from 0.1 to 0.3)."""
    out = {}
    rng = np.random.RandomState(7)
    votes = make_data(n)[0][:, 0]
    for j in range(count):
        yes = np.clip(votes + rng.normal(0, 0.1 + 0.2 * j / max(1, count - 1), n), 0, 1)
        out["system_%02d" % j] = np.stack([yes, 1.0 - yes], axis=1)
    return out


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


def peer_seconds(n, b, seed=12345):
    """(wall, CPU) of PyEvALL's ICMSoft on ``b`` replicates of ``n`` items."""
    g, p = make_data(n, seed=2)
    idx = replicate_indices(seed, n, 0, b)
    start, start_cpu = time.perf_counter(), time.process_time()
    for row in idx:
        pyevall_icm_soft(g, p, row)
    return time.perf_counter() - start, time.process_time() - start_cpu


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=10000)
    parser.add_argument("--b", type=int, default=10000)
    parser.add_argument("--systems", type=int, default=50)
    parser.add_argument("--unbatched", type=int, default=0, help="also time the per-system path on this many systems")
    parser.add_argument("--peer-b", type=int, default=3)
    parser.add_argument("--peer-n", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    gold, predicted = make_data(args.n)
    gold_std = GoldStandard(values=gold, labels=("YES", "NO"), task=TASK.name)

    def config(n_jobs):
        return parse_config(
            {
                "task": "soft_labels",
                "labels": ["YES", "NO"],
                "metric": "icm_soft",
                "bootstrap": {"n_resamples": args.b, "seed": 12345, "n_jobs": n_jobs},
            }
        )

    print(
        "data: n = %d items, B = %d, %d CPUs, BLAS threads %s"
        % (args.n, args.b, os.cpu_count(), os.environ["OPENBLAS_NUM_THREADS"])
    )
    rows = []
    for label, n_jobs in (("ours, per submission, 1 job", 1), ("ours, per submission, n_jobs auto", "auto")):
        cfg = config(n_jobs)
        result = evaluate(cfg, gold_std, predicted)  # warm-up
        print(label)
        rows.append((label, median_time(lambda: evaluate(cfg, gold_std, predicted), args.repeats)))
    print("  ICM-Soft = %.4f %s" % (result.scores[0].score, result.scores[0].interval))
    per_submission = rows[0][1]

    from leaderboard_ci.phase import Execution, analyze
    from leaderboard_ci.tasks.soft_labels import icm_soft

    def phase(systems, batched=True):
        kwargs = dict(metric="icm_soft", labels=["YES", "NO"], task="soft_labels", n_resamples=args.b, seed=12345)
        original = icm_soft.SoftICMBatch.sums
        if not batched:  # each system on its own: the batch's sums replaced by a loop over its systems
            icm_soft.SoftICMBatch.sums = lambda self, w: [s.sums(w) for s in self.systems]
        try:
            return analyze(gold_std, systems, execution=Execution(n_jobs="auto"), **kwargs)
        finally:
            icm_soft.SoftICMBatch.sums = original

    systems = make_systems(args.n, args.systems)
    print("ours, end of phase, %d systems, n_jobs auto" % args.systems)
    rows.append(("ours, end of phase, %d systems" % args.systems, median_time(lambda: phase(systems), 1)))
    if args.unbatched:  # like for like: the same K systems, batched and each on its own
        few = dict(list(systems.items())[: args.unbatched])
        for label, batched in (("batched", True), ("per-system path", False)):
            print("ours, end of phase, %d systems, %s" % (args.unbatched, label))
            rows.append(
                (
                    "ours, end of phase, %d systems, %s" % (args.unbatched, label),
                    median_time(lambda: phase(few, batched), 1),
                )
            )
    try:
        import pyevall  # noqa: F401
    except ImportError:
        print("pyevall is not installed (pip install --no-deps pyevall): no peer row")
        pyevall = None
    if pyevall is not None:
        peer_n = min(args.peer_n, args.n)
        print("PyEvALL loop: %d replicates at n = %d and n = %d" % (args.peer_b, peer_n // 2, peer_n))
        small = peer_seconds(peer_n // 2, args.peer_b)
        large = peer_seconds(peer_n, args.peer_b)
        exponent = max(1.0, math.log(large[0] / small[0]) / math.log(2.0))  # at least linear in n
        scale = args.b / float(args.peer_b) * (args.n / float(peer_n)) ** exponent
        print(
            "  %.2f s at n = %d, %.2f s at n = %d: time ~ n^%.2f (>= 1); scaled by (B / %d) x (n / %d)^%.2f = x%.3g"
            % (small[0], peer_n // 2, large[0], peer_n, exponent, args.peer_b, peer_n, exponent, scale)
        )
        rows.append(("PyEvALL loop, per submission (scaled x%.3g)" % scale, (scale * large[0], scale * large[1])))
        rows.append(
            (
                "PyEvALL loop, end of phase (x%d systems)" % args.systems,
                (args.systems * scale * large[0], args.systems * scale * large[1]),
            )
        )
    print(
        "\nICM-Soft, n = %d, B = %d (CPU: this process; ratios against ours per submission, 1 job; load %.1f)"
        % (args.n, args.b, os.getloadavg()[0])
    )
    print("%-52s %12s %12s %10s %10s" % ("implementation", "wall s", "CPU s", "x wall", "x CPU"))
    for label, (wall, cpu) in rows:
        print(
            "%-52s %12.1f %12.1f %10.3g %10.3g" % (label, wall, cpu, wall / per_submission[0], cpu / per_submission[1])
        )


if __name__ == "__main__":
    main()

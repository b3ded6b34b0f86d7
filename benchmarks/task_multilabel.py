"""Multi-label timing: ours vs a scikit-learn loop over the same resamples (median of 3).

    python benchmarks/task_multilabel.py                 # n=10,000 items, K=20 labels, B=10,000, m=50
    python benchmarks/task_multilabel.py --quick         # a smoke run

* **per submission**: ``evaluate()`` (full sample + B replicates + intervals) of one system
  with the official metric macro-F1, and with all 12 fine-level metrics; against
  ``sklearn.metrics.f1_score(y, p, average="macro", sample_weight=counts)`` (and the same
  12 calls) on the same replicate rows (``replicate_indices``), timed on ``--peer-b``
  replicates and scaled to B.  The replicate counts are built inside the peer's timing
  too (it needs them as weights).
* **end of phase**: ``analyze()`` of m systems (macro-F1, all pairs, three corrections).

Data: gold with label cardinality ~2 (label frequencies 2 %..25 %), systems that flip
each cell with probability 5-25 %.  Not a test: nothing here is collected by pytest.
"""

import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "scoring_program"))

from leaderboard_ci.core.resampling import counts_from_indices, iter_index_blocks  # noqa: E402
from leaderboard_ci.scoring.config import parse_config  # noqa: E402
from leaderboard_ci.scoring.evaluation import evaluate  # noqa: E402
from leaderboard_ci.tasks.shared.base import GoldStandard  # noqa: E402

SEED = 12345
ALL = [
    "f1_macro",
    "f1_micro",
    "f1_weighted",
    "f1_samples",
    "precision_macro",
    "recall_macro",
    "jaccard_samples",
    "jaccard_macro",
    "jaccard_micro",
    "hamming_loss",
    "subset_accuracy",
    "precision_samples",
]


def data(n, k, m, seed=0):
    rng = np.random.default_rng(seed)
    freq = np.linspace(0.02, 0.25, k)
    y = (rng.random((n, k)) < freq).astype(np.uint8)
    systems = []
    for j in range(m):
        flip = rng.random((n, k)) < (0.05 + 0.2 * j / max(1, m - 1)) * np.where(y == 1, 1.0, 0.3)
        systems.append(np.where(flip, 1 - y, y).astype(np.uint8))
    return y, systems


def config(metrics, b):
    return parse_config(
        {
            "task": "multilabel",
            "metric": metrics[0],
            "extra_metrics": metrics[1:],
            "bootstrap": {"n_resamples": b, "seed": SEED},
        }
    )


def gold_of(y, cfg):
    return GoldStandard(
        values=y, labels=tuple("L%02d" % i for i in range(y.shape[1])), task="multilabel", settings=cfg.task_settings
    )


def ours(y, p, metrics, b):
    cfg = config(metrics, b)
    evaluate(cfg, gold_of(y, cfg), p)


def sklearn_loop(y, p, metrics, b):
    from sklearn import metrics as skm

    calls = []
    for name in metrics:
        if name == "hamming_loss":
            calls.append(lambda w: skm.hamming_loss(y, p, sample_weight=w))
        elif name == "subset_accuracy":
            calls.append(lambda w: skm.accuracy_score(y, p, sample_weight=w))
        else:
            base, average = name.rsplit("_", 1)
            fn = skm.jaccard_score if base == "jaccard" else getattr(skm, "%s_score" % base)
            calls.append(lambda w, fn=fn, average=average: fn(y, p, average=average, sample_weight=w, zero_division=0))
    for _, _, idx in iter_index_blocks(SEED, y.shape[0], 0, b):
        for counts in counts_from_indices(idx, y.shape[0]):
            for call in calls:
                call(counts)


def median_time(fn, repeats=3):
    """Median wall time of ``repeats`` runs, the runs, and the median CPU time (all threads)."""
    times, cpu = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        fn()
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return statistics.median(times), times, statistics.median(cpu)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=10000)
    parser.add_argument("--labels", type=int, default=20)
    parser.add_argument("--b", type=int, default=10000)
    parser.add_argument("--m", type=int, default=50)
    parser.add_argument("--peer-b", type=int, default=100, help="replicates the peer loop is timed on (scaled to B)")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--skip-phase", action="store_true")
    parser.add_argument("--no-peer", action="store_true")
    args = parser.parse_args(argv)
    if args.quick:
        args.n, args.b, args.m, args.peer_b = 2000, 500, 5, 20
    n, k, b = args.n, args.labels, args.b
    y, systems = data(n, k, max(2, args.m))
    import sklearn

    print(
        "multi-label, n=%d items, K=%d labels, B=%d; numpy %s, scikit-learn %s, %d CPUs, load average %s"
        % (n, k, b, np.__version__, sklearn.__version__, os.cpu_count(), " ".join("%.1f" % x for x in os.getloadavg()))
    )
    ours(y, systems[0], ["f1_macro"], 64)  # warm-up
    rows = []
    for label, metrics in (("macro-F1", ["f1_macro"]), ("12 metrics", ALL)):
        t_ours, runs, cpu = median_time(lambda: ours(y, systems[0], metrics, b))
        print(
            "per submission, %-10s  ours %.2f s wall (runs %s), %.2f s CPU"
            % (label, t_ours, ", ".join("%.2f" % r for r in runs), cpu)
        )
        if args.no_peer:
            continue
        t_peer, _, _ = median_time(lambda: sklearn_loop(y, systems[0], metrics, args.peer_b))
        t_peer_scaled = t_peer * b / args.peer_b
        rows.append((label, t_ours, t_peer_scaled, t_peer_scaled / t_ours))
        print(
            "    sklearn loop %.1f s (scaled from B=%d: %.2f s)   ratio %.0fx"
            % (t_peer_scaled, args.peer_b, t_peer, t_peer_scaled / t_ours)
        )
    if not args.skip_phase:
        import pandas  # noqa: F401  (import time out of the measurement)

        from leaderboard_ci.phase.analysis import analyze

        cfg = config(["f1_macro"], b)
        gold = gold_of(y, cfg)
        coded = dict(("system_%02d" % j, s) for j, s in enumerate(systems[: args.m]))
        start = time.perf_counter()
        analyze(gold, coded, config=cfg)
        print(
            "end of phase, m=%d systems, macro-F1, all pairs: analyze() %.1f s (one run)"
            % (args.m, time.perf_counter() - start)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

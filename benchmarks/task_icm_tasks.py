"""ICM and ICM-Norm of ``classification`` and ``multilabel`` against their tasks' usual metrics, side by side.

A self-contained benchmark.  The data: n = 10,000 items, EXIST-2022-task-2-like
(six classes) for classification and DIPROMATS-like (seven labels under four
coarse ones) for multi-label, one system each; B = 10,000; one job.

* **classification**: ``accuracy`` (the reference row), ``icm_norm`` flat (from
  the class counts the other metrics already sum) and ``icm_norm`` over a
  hierarchy (from the confusion matrix);
* **multilabel**: ``f1_macro`` (the reference row) and ``icm_norm`` flat and
  over the hierarchy (per-item integer coefficients, exact sums);
* **PyEvALL**: one ``ICMNorm`` evaluation (no replicate) on ``--peer-n`` items,
  scaled to B evaluations and, as PyEvALL's per-item look-up in a data frame is
  quadratic in n, by ``(n / peer_n)^2`` (printed).

``evaluate`` computes the full-sample score and the B replicates.  Times are the
median of ``--repeats`` runs (CPU of this process); the machine may be shared
(load average printed).  Run:

    python3 benchmarks/task_icm_tasks.py [--n 10000] [--b 10000] [--repeats 3] [--peer-n 1000]
"""

import argparse
import os
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "scoring_program"))
sys.path.insert(0, os.path.join(HERE, os.pardir, "tests"))

from leaderboard_ci.scoring.config import parse_config  # noqa: E402
from leaderboard_ci.scoring.evaluation import evaluate  # noqa: E402
from leaderboard_ci.tasks.shared.base import GoldStandard  # noqa: E402

CLASSES = ("non-sexist", "ideological", "stereotyping", "objectification", "sexual-violence", "misogyny")
CLASS_TREE = dict((c, "sexist") for c in CLASSES[1:])
LABELS = ("1a", "1b", "2a", "2b", "2c", "3a", "false")
LABEL_TREE = {"1a": "1", "1b": "1", "2a": "2", "2b": "2", "2c": "2", "3a": "3", "false": "false"}


def mono_data(n, seed=1):
    rng = np.random.RandomState(seed)
    gold = rng.choice(len(CLASSES), n, p=[0.5, 0.15, 0.15, 0.1, 0.06, 0.04])
    pred = np.where(rng.rand(n) < 0.6, gold, rng.randint(0, len(CLASSES), n))
    return gold.astype(np.intp), pred.astype(np.intp)


def multi_data(n, seed=2):
    rng = np.random.RandomState(seed)
    y = (rng.rand(n, len(LABELS)) < 0.2).astype(np.int64)
    p = np.where(rng.rand(n, len(LABELS)) < 0.8, y, 1 - y).astype(np.int64)
    return y, p


def config(task, metric, b, labels, hierarchy=None):
    raw = {"task": task, "labels": list(labels), "metric": metric, "bootstrap": {"n_resamples": b, "n_jobs": 1}}
    if hierarchy is not None:
        raw["hierarchy"] = hierarchy
    return parse_config(raw)


PYEVALL_SITE = os.path.expanduser("~/.cache/leaderboard-ci/pyevall-site")


def cpu_time(fn, repeats):
    times = []
    for _ in range(repeats):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return statistics.median(times)


def pyevall_icm_norm(gold, pred):
    from test_icm import pyevall

    ids = [str(i) for i in range(len(gold))]
    g = [(i, CLASSES[k]) for i, k in zip(ids, gold)]
    p = [(i, CLASSES[k]) for i, k in zip(ids, pred)]
    return pyevall("ICMNorm", g, p)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=10000)
    parser.add_argument("--b", type=int, default=10000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--peer-n", type=int, default=1000)
    args = parser.parse_args(argv)
    print("n = %d items, B = %d, one job; load average %.1f" % (args.n, args.b, os.getloadavg()[0]))
    gold, pred = mono_data(args.n)
    y, p = multi_data(args.n)
    setups = [
        ("classification", "accuracy", None, gold, pred),
        ("classification", "icm_norm", None, gold, pred),
        ("classification", "icm_norm", CLASS_TREE, gold, pred),
        ("multilabel", "f1_macro", None, y, p),
        ("multilabel", "icm_norm", None, y, p),
        ("multilabel", "icm_norm", LABEL_TREE, y, p),
    ]
    rows = []
    for task, metric, tree, g, s in setups:
        labels = CLASSES if task == "classification" else LABELS
        cfg = config(task, metric, args.b, labels, tree)
        gold_std = GoldStandard(values=g, labels=labels, task=task, settings=cfg.task_settings)
        result = evaluate(cfg, gold_std, s)  # warm-up
        cpu = cpu_time(lambda: evaluate(cfg, gold_std, s), args.repeats)
        label = "%s %s%s" % (task, metric, " (hierarchy)" if tree else "")
        rows.append((task, label, cpu, result.scores[0]))
    peer = None
    if os.path.isdir(PYEVALL_SITE) and PYEVALL_SITE not in sys.path:
        sys.path.append(PYEVALL_SITE)  # PyEvALL pins old packages: its own site, as the tests use it
    try:
        import pyevall  # noqa: F401

        g, s = mono_data(args.peer_n, seed=3)
        one = cpu_time(lambda: pyevall_icm_norm(g, s), 1)
        peer = one * args.b * (args.n / float(args.peer_n)) ** 2
    except ImportError:
        print("pyevall is not installed (nor in %s): no peer row" % PYEVALL_SITE)
    reference = {"classification": rows[0][2], "multilabel": rows[3][2]}
    print("\n%-44s %10s %14s %s" % ("metric (ours, per submission)", "CPU s", "x task's ref", "score [interval]"))
    for task, label, cpu, score in rows:
        print(
            "%-44s %10.2f %14.2f %.4f [%.4f, %.4f]"
            % (label, cpu, cpu / reference[task], score.score, score.interval.low, score.interval.high)
        )
    if peer is not None:
        print(
            "%-44s %10.0f %14.0f (one evaluation at n = %d x B x (n/%d)^2; x against classification icm_norm: %.0f)"
            % (
                "PyEvALL ICMNorm loop (scaled)",
                peer,
                peer / reference["classification"],
                args.peer_n,
                args.peer_n,
                peer / rows[1][2],
            )
        )


if __name__ == "__main__":
    main()

"""ICM-Soft over a label hierarchy: the cost of reducing PyEvALL's recursion, and of the replicates, beside flat.

A self-contained benchmark on EXIST-2023-like data (six annotators per item,
the gold a share of annotators; one system's soft predictions, some zeros):

* **reduction**: :func:`leaderboard_ci.tasks.soft_labels.icm_soft_tree.reduce_items`, every
  item's ``2 IC(P) - 3 IC(P u G)`` and ``IC(G)`` turned into signed terms,
  once per submission (task 2's tree: YES -> DIRECT, REPORTED, JUDGEMENTAL;
  NO; task 3's: YES -> five categories; NO);
* **plans**: the per-class expansion columns built from those terms;
* **sums**: the B replicates' ``(N, sum ICM, sum ICM(G, G))``;
* **flat**: the same data scored without the hierarchy (:class:`.icm_soft.SoftICM`), the peer.

CPU time (``time.process_time``), one process; the machine may be shared (load average printed).  Run:

    python3 benchmarks/task_icm_tree.py [--n 10000] [--b 1000]
"""

import argparse
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "scoring_program"))

from leaderboard_ci.core.resampling import replicate_indices  # noqa: E402
from leaderboard_ci.tasks.shared.icm import Tree  # noqa: E402
from leaderboard_ci.tasks.soft_labels.icm_soft import SoftICM  # noqa: E402
from leaderboard_ci.tasks.soft_labels.icm_soft_tree import reduce_items, tree_soft_icm  # noqa: E402

TASK2 = ("NO", "DIRECT", "REPORTED", "JUDGEMENTAL")
TASK3 = (
    "NO",
    "IDEOLOGICAL-INEQUALITY",
    "STEREOTYPING-DOMINANCE",
    "OBJECTIFICATION",
    "SEXUAL-VIOLENCE",
    "MISOGYNY-NON-SEXUAL-VIOLENCE",
)


def make_data(labels, multi, n, seed=1):
    rng = np.random.RandomState(seed)
    if multi:  # each annotator gives NO or one to three categories
        gold = rng.binomial(6, [0.5] + [0.2] * (len(labels) - 1), size=(n, len(labels))) / 6.0
    else:
        gold = rng.multinomial(6, [0.45, 0.25, 0.15, 0.15], size=n) / 6.0
    predicted = np.clip(gold + rng.normal(0, 0.2, gold.shape), 0, 1)
    predicted[rng.rand(*gold.shape) < 0.1] = 0.0
    return gold, predicted


def cpu(fn):
    start = time.process_time()
    out = fn()
    return out, time.process_time() - start


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=10000)
    parser.add_argument("--b", type=int, default=1000)
    args = parser.parse_args(argv)
    print("load average: %.1f %.1f %.1f (2 cores)" % os.getloadavg())
    weights = np.array([np.bincount(r, minlength=args.n) for r in replicate_indices(3, args.n, 0, args.b)], float)
    for name, labels, multi in (("task 2", TASK2, False), ("task 3", TASK3, True)):
        gold, predicted = make_data(labels, multi, args.n)
        tree = Tree(labels, [(label, "YES") for label in labels[1:]])
        _, t_reduce = cpu(lambda: reduce_items(tree, labels, gold, predicted))
        soft, t_build = cpu(lambda: tree_soft_icm(tree, labels, gold, predicted))
        _, t_sums = cpu(lambda: soft.sums(weights))
        flat, t_flat_build = cpu(lambda: SoftICM(gold, predicted))
        _, t_flat_sums = cpu(lambda: flat.sums(weights))
        slots = sum(len(plan.terms) for plan in soft.plans)
        print(
            "%s (n = %d, B = %d): reduction %.2f s; reduction + plans %.2f s; sums %.2f s (%d classes, %d term slots)"
            % (name, args.n, args.b, t_reduce, t_build, t_sums, len(soft.plans), slots)
        )
        print(
            "  flat: plans %.2f s, sums %.2f s; hierarchy / flat: plans x%.2f, sums x%.2f"
            % (t_flat_build, t_flat_sums, t_build / t_flat_build, t_sums / t_flat_sums)
        )


if __name__ == "__main__":
    main()

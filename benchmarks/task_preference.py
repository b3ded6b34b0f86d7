"""Preference task: the Bradley-Terry bootstrap, ours against FastChat's per-round logistic fit.

    python benchmarks/task_preference.py                          # 10^6 battles, 100 models, B = 1,000
    python benchmarks/task_preference.py --battles 100000 --models 30 --resamples 200

Data: ``--battles`` battles among ``--models`` models with strengths N(1000, 150) on the Elo
scale, pairs drawn uniformly, the winner by Bradley-Terry, 20 % ties (half of them both-bad).

Timed (one run each; the machine is shared, say so when quoting):

* **ours, cells**: ``cells_from_battles`` (the log aggregated into (pair, outcome) cells), then
  ``bootstrap_elo``: B multinomial resamples of the cell counts (``resample_cell_counts``) and a
  batched Newton fit of all replicates;
* **ours, task path**: what ``task: preference`` does per submission: core's documented resample
  stream over battles into the cells' ``CodeCounts`` (``compute_replicates``), then the same fits;
  run on ``--task-resamples`` replicates and scaled to B (drawing 10^9 battle indices is its cost);
* **FastChat, per round**: ``get_bootstrap_result(battles, compute_mle_elo, B)`` as LMArena ran it:
  each round resamples the battles' DataFrame (``sample(frac=1, replace=True)``), builds the
  pivot tables and fits scikit-learn's ``LogisticRegression(fit_intercept=False, penalty=None,
  tol=1e-6)`` with FastChat's sample weights; run on ``--rounds`` rounds and scaled to B.

Printed: each time, the ratios, and the largest gap between our full-log scores and FastChat's
definition fitted with scikit-learn's Newton solver (tol 1e-12).  Needs pandas and scikit-learn
(test-only dependencies of the project).
"""

import argparse
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "scoring_program"))
sys.path.insert(0, os.path.join(HERE, os.pardir, "tests"))

from leaderboard_ci.core.accumulators import CodeCounts  # noqa: E402
from leaderboard_ci.core.replicates import compute_replicates  # noqa: E402
from leaderboard_ci.tasks.preference import fit as pf  # noqa: E402


def make_battles(n_battles, n_models, seed=7):
    rng = np.random.default_rng(seed)
    strengths = rng.normal(1000.0, 150.0, n_models)
    a = rng.integers(0, n_models, n_battles)
    b = (a + rng.integers(1, n_models, n_battles)) % n_models
    d = strengths[a] - strengths[b]
    o = np.where(rng.random(n_battles) < 1.0 / (1.0 + 10.0 ** (-d / 400.0)), 0, 1)
    tied = rng.random(n_battles) < 0.2
    return a, b, np.where(tied, np.where(rng.random(n_battles) < 0.5, 2, 3), o)


def fastchat_rounds(a, b, o, rounds, seed=0):
    """``rounds`` rounds of FastChat's bootstrap: resample the DataFrame, pivot, fit (seconds per round)."""
    import pandas as pd
    from _fastchat_reference import mle_elo

    names = np.array(["model-%03d" % k for k in range(max(a.max(), b.max()) + 1)], dtype=object)
    df = pd.DataFrame({"model_a": names[a], "model_b": names[b], "winner": np.array(pf.OUTCOMES, dtype=object)[o]})
    np.random.seed(seed)
    start = time.perf_counter()
    for _ in range(rounds):
        sample = df.sample(frac=1.0, replace=True)
        mle_elo(sample["model_a"], sample["model_b"], sample["winner"])
    return (time.perf_counter() - start) / rounds, df


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--battles", type=int, default=1000000)
    parser.add_argument("--models", type=int, default=100)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--task-resamples", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    n, m, big_b = args.battles, args.models, args.resamples
    print(
        "%s battles among %d models, B = %s; load average %.1f"
        % (format(n, ","), m, format(big_b, ","), os.getloadavg()[0])
    )
    a, b, o = make_battles(n, m)

    start = time.perf_counter()
    cells = pf.cells_from_battles(a, b, o, m)
    t_cells = time.perf_counter() - start
    start = time.perf_counter()
    counts = pf.resample_cell_counts(12345, cells.counts, big_b)
    t_resample = time.perf_counter() - start
    start = time.perf_counter()
    full, _ = pf.fit_bradley_terry(cells)
    _, converged = pf.fit_bradley_terry(cells, counts, start=full)
    t_fit = time.perf_counter() - start
    ours = t_cells + t_resample + t_fit
    print(
        "ours, cells:       %7.2f s (aggregation %.2f s, %d cells; resampling %.2f s; fits %.2f s; %d of %d converged)"
        % (ours, t_cells, cells.n_cells, t_resample, t_fit, converged.sum(), big_b)
    )
    full = pf.elo_from_theta(full)

    start = time.perf_counter()
    accumulator = CodeCounts(cells.codes, cells.n_cells)
    stats = compute_replicates([accumulator], n, 12345, args.task_resamples)
    counts = np.asarray(stats[0] if isinstance(stats, (list, tuple)) else stats)
    pf.fit_bradley_terry(cells, counts.reshape(args.task_resamples, -1))
    t_task = (time.perf_counter() - start) * big_b / args.task_resamples
    print("ours, task path:   %7.2f s (%d replicates timed, scaled to B)" % (t_task, args.task_resamples))

    per_round, df = fastchat_rounds(a, b, o, args.rounds)
    t_fastchat = per_round * big_b
    print(
        "FastChat, per round: %7.2f s (%.2f s per round x %d rounds timed, scaled to B)"
        % (t_fastchat, per_round, args.rounds)
    )
    print(
        "ratio FastChat / ours (cells): %.0fx; FastChat / ours (task path): %.1fx"
        % (t_fastchat / ours, t_fastchat / t_task)
    )

    from _fastchat_reference import mle_elo

    reference = mle_elo(df["model_a"], df["model_b"], df["winner"], tol=1e-12, max_iter=10000, solver="newton-cg")
    gap = np.abs(full - np.array([reference["model-%03d" % k] for k in range(m)])).max()
    print("largest |ours - FastChat's definition| on the full log: %.2e Elo points" % gap)
    return 0


if __name__ == "__main__":
    sys.exit(main())

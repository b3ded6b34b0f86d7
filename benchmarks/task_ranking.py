"""Ranking task: ours against ranx on the same bootstrap resamples of queries (a self-contained benchmark).

    python benchmarks/task_ranking.py                 # 5,000 queries x 100 documents, B = 10,000
    python benchmarks/task_ranking.py --queries 500 --resamples 1000

Data: ``--queries`` queries, each with 100 retrieved documents (random scores,
no ties) and 30 judged documents (grades 0-3, about half of them retrieved).

Timed (median of 3, after one untimed warm-up; reading and encoding the run is
"parsing" and timed apart):

* **ours**: ``evaluate(config, gold, run)``: the full-sample scores and the
  B replicates of every metric, with CIs (``n_jobs`` auto and 1);
* **ranx-per-query + loop**: ranx's per-query values once
  (``evaluate(..., return_mean=False)``), then one weighted mean per resample
  in a Python loop over the same index rows (``replicate_indices``): the
  fastest way to bootstrap with ranx;
* **ranx-loop**: ``ranx.evaluate`` on each resample's qrels and run (the
  resampled queries renamed ``qid#copy``), i.e. what a user writes first; run
  on ``--loop-resamples`` resamples and scaled to B.

Both peers use the resample rows ours uses, and the script checks that the
replicate means agree to 1e-12 (ranx and trec_eval agree on tie-free runs).
Needs ``pip install ranx`` (a test-only dependency of the project).
"""

import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "scoring_program"))

from leaderboard_ci.core.resampling import replicate_indices  # noqa: E402
from leaderboard_ci.scoring.config import parse_config  # noqa: E402
from leaderboard_ci.scoring.evaluation import evaluate  # noqa: E402
from leaderboard_ci.tasks.ranking import metrics as ranking  # noqa: E402
from leaderboard_ci.tasks.shared.base import GoldStandard  # noqa: E402

METRICS = {"ndcg@10": "ndcg@10", "map": "map", "mrr": "mrr", "p@10": "precision@10", "recall@100": "recall@100"}


def make_data(n_queries, depth=100, judged=30, seed=7):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        qid = "q%05d" % q
        docs = ["d%04d" % d for d in rng.choice(5000, size=depth + judged // 2, replace=False)]
        retrieved = docs[:depth]
        scores = rng.random(depth)
        run[qid] = dict(zip(retrieved, scores.tolist()))
        pool = docs[depth // 2 : depth // 2 + judged // 2] + docs[depth:]
        grades = rng.choice(4, size=len(pool), p=[0.5, 0.3, 0.15, 0.05])
        grades[0] = max(grades[0], 1)
        qrels[qid] = dict((d, int(g)) for d, g in zip(pool, grades))
    return qrels, run


def timed(fn, repeats=3):
    """Median wall seconds of ``repeats`` runs after a warm-up, and the output; CPU seconds in ``CPU[-1]``."""
    fn()  # warm-up (ranx compiles with numba on first use)
    times, cpu = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        out = fn()
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    CPU.append(statistics.median(cpu))
    return statistics.median(times), out


CPU = []  # the median CPU seconds (all threads) of each timed() call, in order


def load():
    return " ".join("%.2f" % x for x in os.getloadavg())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queries", type=int, default=5000)
    parser.add_argument("--resamples", type=int, default=10000)
    parser.add_argument("--loop-resamples", type=int, default=10)
    parser.add_argument("--seed", type=int, default=12345)
    args = parser.parse_args(argv)
    from ranx import Qrels, Run
    from ranx import evaluate as ranx_evaluate

    n, b = args.queries, args.resamples
    qrels, run = make_data(n)
    start = time.perf_counter()
    gold_rows, _, coded = ranking.encode_values(list(qrels.items()), {"run": run})
    encode_seconds = time.perf_counter() - start
    gold = GoldStandard(values=gold_rows, ids=tuple(qrels), task="ranking")
    names = list(METRICS)
    print("ranking benchmark: %d queries x 100 documents, B = %d; encoding (parsing) %.2f s" % (n, b, encode_seconds))
    print("cores %d, load average before: %s" % (os.cpu_count(), load()))

    rows = []
    results = {}
    for label, metric_list, jobs in (
        ("ours (nDCG@10)", names[:1], "auto"),
        ("ours (5 metrics)", names, "auto"),
        ("ours (5 metrics, 1 job)", names, 1),
    ):
        config = parse_config(
            {
                "task": "ranking",
                "metric": metric_list[0],
                "extra_metrics": metric_list[1:],
                "bootstrap": {"n_resamples": b, "seed": args.seed, "n_jobs": jobs},
            }
        )
        seconds, result = timed(lambda: evaluate(config, gold, coded["run"]))
        results[label] = result
        rows.append((label, seconds))

    ranx_qrels, ranx_run = Qrels(qrels), Run(run)
    ranx_names = [METRICS[m] for m in names]

    def per_query_then_loop():
        values = ranx_evaluate(ranx_qrels, ranx_run, ranx_names, return_mean=False, make_comparable=True)
        order = [list(ranx_qrels.keys()).index(q) for q in qrels] if list(ranx_qrels.keys()) != list(qrels) else None
        table = np.column_stack([np.asarray(values[m])[order] if order else np.asarray(values[m]) for m in ranx_names])
        means = np.empty((b, len(ranx_names)))
        for r, idx in enumerate(replicate_indices(args.seed, n, 0, b)):
            means[r] = table[idx].mean(axis=0)
        return means

    seconds, means = timed(per_query_then_loop)
    rows.append(("ranx per-query + loop (5 metrics)", seconds))
    ours = results["ours (5 metrics)"]
    worst = max(float(np.max(np.abs(s.replicates - means[:, i]))) for i, s in enumerate(ours.scores))
    print("largest |ours - ranx| over %d replicates x 5 metrics: %.2e" % (b, worst))

    loop_b = min(args.loop_resamples, b)
    indices = replicate_indices(args.seed, n, 0, loop_b)
    qids = list(qrels)

    def naive_loop():
        out = []
        for idx in indices:
            rq, rr = {}, {}
            for copy, i in enumerate(idx):
                key = "%s#%d" % (qids[i], copy)
                rq[key] = qrels[qids[i]]
                rr[key] = run[qids[i]]
            out.append(ranx_evaluate(Qrels(rq), Run(rr), ranx_names, make_comparable=True))
        return out

    seconds, loop_out = timed(naive_loop, repeats=3)
    rows.append(("ranx loop (5 metrics), scaled from B=%d" % loop_b, seconds * b / loop_b))
    CPU[-1] *= b / loop_b
    worst_loop = max(
        abs(loop_out[r][METRICS[m]] - ours.scores[i].replicates[r]) for r in range(loop_b) for i, m in enumerate(names)
    )
    print("largest |ours - ranx loop| over %d replicates: %.2e" % (loop_b, worst_loop))

    reference = dict(rows)["ours (5 metrics)"]
    print()
    print("load average after: %s (wall times are inflated by other processes; CPU is all threads)" % load())
    print("| implementation | wall seconds | CPU seconds | ratio to ours (5 metrics), wall |")
    print("|---|---:|---:|---:|")
    for (label, seconds), cpu in zip(rows, CPU):
        print("| %s | %.2f | %.2f | %.1fx |" % (label, seconds, cpu, seconds / reference))
    return 0


if __name__ == "__main__":
    sys.exit(main())

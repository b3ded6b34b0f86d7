"""Extractive QA (``task: qa``): ours against a loop of the official SQuAD v1.1 formulas on the same resamples.

A self-contained benchmark.  The data: n = 10,000 questions with one to three
gold answers of one to six words and a system's answers; B = 10,000.

* **ours, per submission**: ``evaluate(config, gold, predictions)`` after
  normalization (``encode_values`` normalizes once, untimed, as the readers
  do): exact match and F1 with percentile CIs; ``n_jobs`` auto and 1.
* **official loop**: per replicate, the SQuAD v1.1 ``evaluate`` over the drawn
  questions (each repeated as often as drawn, our index rows), its
  normalization included, as a peer would run it; the first ``--peer-b``
  replicates, scaled to B.
* **ours, end of phase**: ``analyze()`` of 50 systems.

Wall time is the median of 3 runs.  Run:

    python3 benchmarks/task_qa.py [--n 10000] [--b 10000] [--systems 50] [--peer-b 20]
"""

import argparse
import os
import random
import re
import statistics
import string
import sys
import time
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "scoring_program"))

from leaderboard_ci.core.resampling import replicate_indices  # noqa: E402
from leaderboard_ci.phase.analysis import analyze  # noqa: E402
from leaderboard_ci.scoring.config import parse_config  # noqa: E402
from leaderboard_ci.scoring.evaluation import evaluate  # noqa: E402
from leaderboard_ci.tasks.qa import metrics as qa  # noqa: E402
from leaderboard_ci.tasks.shared.base import GoldStandard  # noqa: E402

WORDS = (
    "the a an river city born year Paris Nile 1998 state-of-the-art U.S. don't Lisbon prize award medal "
    "university of and in at"
).split()


def make_data(n, n_systems, seed=1):
    rng = random.Random(seed)
    gold = [
        [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 6))) for _ in range(rng.randint(1, 3))]
        for _ in range(n)
    ]
    systems = []
    for s in range(n_systems):
        r = random.Random(seed * 1000 + s)
        systems.append(
            [
                r.choice(g) if r.random() < 0.5 else " ".join(r.choice(WORDS) for _ in range(r.randint(1, 8)))
                for g in gold
            ]
        )
    return gold, systems


# The official formulas (evaluate-v1.1.py), the peer's per-replicate work.
def normalize_answer(s):
    s = "".join(ch for ch in s.lower() if ch not in set(string.punctuation))
    return " ".join(re.sub(r"\b(a|an|the)\b", " ", s).split())


def f1_score(prediction, truth):
    p, t = normalize_answer(prediction).split(), normalize_answer(truth).split()
    same = sum((Counter(p) & Counter(t)).values())
    if same == 0:
        return 0
    precision, recall = same / len(p), same / len(t)
    return 2 * precision * recall / (precision + recall)


def official(gold, pred, rows):
    for row in rows:
        em = f1 = 0.0
        for i in row:
            em += max(normalize_answer(pred[i]) == normalize_answer(t) for t in gold[i])
            f1 += max(f1_score(pred[i], t) for t in gold[i])
        yield 100.0 * em / len(row), 100.0 * f1 / len(row)


def median_time(fn, repeats=3):
    """Median wall time of ``repeats`` runs; also prints the median CPU time of this process
    (independent of other processes' load when the run uses one thread)."""
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
    return statistics.median(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=10000)
    parser.add_argument("--b", type=int, default=10000)
    parser.add_argument("--systems", type=int, default=50)
    parser.add_argument("--peer-b", type=int, default=20)
    args = parser.parse_args(argv)
    gold, systems = make_data(args.n, args.systems)

    def config(n_jobs):
        return parse_config(
            {
                "task": "qa",
                "metric": "f1",
                "extra_metrics": ["exact_match"],
                "bootstrap": {"n_resamples": args.b, "seed": 12345, "n_jobs": n_jobs},
            }
        )

    start = time.perf_counter()
    values, _, coded = qa.encode_values(gold, {"s0": systems[0]}, None, qa.QASettings())
    print(
        "data: n = %d questions, B = %d; normalization (untimed below): %.2f s"
        % (args.n, args.b, time.perf_counter() - start)
    )
    gold_std = GoldStandard(values=values, task="qa")
    rows = []
    for label, n_jobs in (("ours", "auto"), ("ours-1job", 1)):
        cfg = config(n_jobs)
        evaluate(cfg, gold_std, coded["s0"])  # warm-up
        rows.append((label, median_time(lambda: evaluate(cfg, gold_std, coded["s0"]))))
    idx = replicate_indices(12345, args.n, 0, args.peer_b)
    scale = args.b / float(args.peer_b)
    rows.append(
        (
            "official loop (B=%d, scaled x%g)" % (args.peer_b, scale),
            scale * median_time(lambda: list(official(gold, systems[0], idx))),
        )
    )
    ours = rows[0][1]
    print("\nper submission, n = %d, B = %d" % (args.n, args.b))
    print("%-40s %10s %10s" % ("implementation", "median s", "x ours"))
    for label, med in rows:
        print("%-40s %10.2f %10.1f" % (label, med, med / ours))
    if args.systems > 1:
        names = {"s%d" % i: s for i, s in enumerate(systems)}
        cfg = config("auto")
        start = time.perf_counter()
        values, _, coded = qa.encode_values(gold, names, None, qa.QASettings())
        encoding = time.perf_counter() - start
        gold_std = GoldStandard(values=values, task="qa")
        med = median_time(lambda: analyze(gold_std, coded, config=cfg), repeats=1)
        print(
            "\nend of phase, %d systems, n = %d, B = %d: analyze() %.1f s after normalization (%.1f s)"
            % (args.systems, args.n, args.b, med, encoding)
        )
        print(
            "an official loop would take about %.0f s: x%.0f"
            % (rows[-1][1] * args.systems, rows[-1][1] * args.systems / med)
        )


if __name__ == "__main__":
    main()

"""Sequence labelling (``task: sequence``): ours against a seqeval loop on the same resamples.

A self-contained benchmark (the registry in ``workloads.py`` has no tag-sequence
data sets yet).  The data: 10,000 sentences of 5 to 25 tokens (about 150,000
tokens), four entity types, IOB2 gold and a noisy system; B = 10,000.

* **ours, per submission**: ``evaluate(config, gold, predictions)`` after
  parsing (the encoding is done once, untimed, as the readers do it): entity
  precision/recall/F1 micro, macro and weighted and token accuracy, each with
  its percentile CI; ``n_jobs`` auto and 1.
* **seqeval loop**: per replicate, the drawn sentences (each repeated as often
  as it is drawn, our index rows) through ``seqeval.metrics.f1_score`` once
  (micro only: a fraction of what ours computes), run on the first
  ``--peer-b`` replicates and scaled to B.
* **ours, end of phase**: ``analyze()`` of 50 systems on the same resamples.

Wall time is the median of 3 runs (``time.perf_counter``).  Run:

    python3 benchmarks/task_sequence.py [--n 10000] [--b 10000] [--systems 50] [--peer-b 20]
"""

import argparse
import os
import random
import statistics
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "scoring_program"))

from leaderboard_ci.core.resampling import replicate_indices  # noqa: E402
from leaderboard_ci.phase.analysis import analyze  # noqa: E402
from leaderboard_ci.scoring.config import parse_config  # noqa: E402
from leaderboard_ci.scoring.evaluation import evaluate  # noqa: E402
from leaderboard_ci.tasks.sequence import metrics as sequence  # noqa: E402
from leaderboard_ci.tasks.shared.base import GoldStandard  # noqa: E402

TYPES = ("LOC", "MISC", "ORG", "PER")
METRICS = ["f1_micro", "f1_macro", "f1_weighted", "precision_micro", "recall_micro", "accuracy"]


def make_data(n, seed=1, n_systems=1, noise=0.1):
    rng = random.Random(seed)
    gold = []
    for _ in range(n):
        length = rng.randint(5, 25)
        tags, i = [], 0
        while i < length:
            if rng.random() < 0.15:
                size = min(length - i, rng.choice([1, 2, 2, 3]))
                t = rng.choice(TYPES)
                tags += ["B-" + t] + ["I-" + t] * (size - 1)
                i += size
            else:
                tags.append("O")
                i += 1
        gold.append(tags)
    systems = []
    for s in range(n_systems):
        r = random.Random(seed * 1000 + s)
        systems.append(
            [
                [
                    ("O" if r.random() < 0.4 else r.choice(("B-", "I-")) + r.choice(TYPES)) if r.random() < noise else t
                    for t in sentence
                ]
                for sentence in gold
            ]
        )
    return gold, systems


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
    return statistics.median(times), times


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=10000)
    parser.add_argument("--b", type=int, default=10000)
    parser.add_argument("--systems", type=int, default=50)
    parser.add_argument("--peer-b", type=int, default=20)
    args = parser.parse_args(argv)
    gold, systems = make_data(args.n, n_systems=args.systems)
    print("data: %d sentences, %d tokens, B = %d" % (len(gold), sum(len(s) for s in gold), args.b))

    def config(n_jobs):
        return parse_config(
            {
                "task": "sequence",
                "metric": METRICS[0],
                "extra_metrics": METRICS[1:],
                "bootstrap": {"n_resamples": args.b, "seed": 12345, "n_jobs": n_jobs},
            }
        )

    start = time.perf_counter()
    values, types, coded = sequence.encode_values(gold, {"s0": systems[0]}, None, sequence.SequenceSettings())
    parse_seconds = time.perf_counter() - start
    gold_std = GoldStandard(values=values, labels=types, task="sequence")
    print("encoding (parsing side, untimed below): %.2f s" % parse_seconds)
    rows = []
    for label, n_jobs in (("ours", "auto"), ("ours-1job", 1)):
        cfg = config(n_jobs)
        evaluate(cfg, gold_std, coded["s0"])  # warm-up
        med, times = median_time(lambda: evaluate(cfg, gold_std, coded["s0"]))
        rows.append((label, med, times))

    try:
        from seqeval.metrics import f1_score
    except ImportError:
        f1_score = None
    if f1_score is not None:
        idx = replicate_indices(12345, len(gold), 0, args.peer_b)
        pred = systems[0]

        def loop():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for row in idx:
                    f1_score([gold[i] for i in row], [pred[i] for i in row])

        med, times = median_time(loop)
        scale = args.b / float(args.peer_b)
        rows.append(("seqeval-loop (B=%d, scaled x%g)" % (args.peer_b, scale), med * scale, [t * scale for t in times]))
    ours = rows[0][1]
    print("\nper submission, n = %d sentences, B = %d" % (args.n, args.b))
    print("%-40s %10s %10s" % ("implementation", "median s", "x ours"))
    for label, med, _ in rows:
        print("%-40s %10.2f %10.1f" % (label, med, med / ours))

    if args.systems > 1:
        names = {"s%d" % i: s for i, s in enumerate(systems)}
        cfg = config("auto")
        start = time.perf_counter()
        values, types, coded = sequence.encode_values(gold, names, None, sequence.SequenceSettings())
        encoding = time.perf_counter() - start
        gold_std = GoldStandard(values=values, labels=types, task="sequence")
        med, times = median_time(lambda: analyze(gold_std, coded, config=cfg), repeats=1)
        print(
            "\nend of phase, %d systems, n = %d, B = %d: analyze() %.1f s after parsing (encoding the %d systems: "
            "%.1f s)" % (args.systems, args.n, args.b, med, args.systems, encoding)
        )
        if f1_score is not None:
            per_system = rows[-1][1]
            print(
                "a seqeval loop would take about %.0f s (%d x %.0f s): x%.0f"
                % (per_system * args.systems, args.systems, per_system, per_system * args.systems / med)
            )


if __name__ == "__main__":
    main()

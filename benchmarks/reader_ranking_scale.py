"""Time and peak memory of reading a large TREC run, in each Python environment given (a child process each).

    python benchmarks/reader_ranking_scale.py                       # 10^7 lines, this python
    python benchmarks/reader_ranking_scale.py --lines 1000000 \\
        --python ~/.cache/leaderboard-ci/py37/bin/python --python ~/.cache/leaderboard-ci/py312/bin/python

Writes (once, in ``--dir``) qrels of 10,000 queries and a run of ``--lines``
lines (``qid Q0 docid rank score tag``, about 20 bytes a line, about 1
in 50 documents judged, a few tied scores), then, in a fresh process per
environment, reads the run as the scoring program does
(``readers.read_predictions``) and prints the wall time, the CPU time (user +
system) and the peak resident memory (``ru_maxrss``, the whole process:
Python, numpy, the gold) of that process, and the ratios to the limits (10 s,
1 GB).  On a shared machine the wall time includes waiting for a core: the
CPU time is what the reading costs.
"""

import argparse
import os
import subprocess
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM = os.path.join(HERE, os.pardir, "scoring_program")
DEFAULT_DIR = "/tmp/leaderboard_ci_ranking_scale"

CHILD = textwrap.dedent(
    """
    import resource, sys, time
    sys.path.insert(0, %(program)r)
    from leaderboard_ci.scoring.config import parse_config
    from leaderboard_ci.scoring.readers import read_gold, read_predictions
    files = {"gold": "qrels.txt", "max_megabytes": 400}
    config = parse_config({"task": "ranking", "metric": "ndcg@10", "files": files})
    gold = read_gold(%(dir)r, config)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu0 = usage.ru_utime + usage.ru_stime
    run = read_predictions(%(run)r, config, gold)
    seconds = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu = usage.ru_utime + usage.ru_stime - cpu0
    print("%%.2f %%.2f %%d %%d" %% (seconds, cpu, usage.ru_maxrss // 1024, int(run["retrieved"].sum())))
    """
)


def write_files(folder, lines, queries=10000, seed=3):
    import numpy as np

    os.makedirs(folder, exist_ok=True)
    run_path = os.path.join(folder, "run_%d.txt" % lines)
    qrels_path = os.path.join(folder, "qrels.txt")
    if os.path.exists(run_path) and os.path.exists(qrels_path):
        return run_path
    rng = np.random.RandomState(seed)
    per_query = lines // queries
    with open(qrels_path, "w") as out:
        for q in range(queries):
            for d in rng.choice(per_query * 2, size=max(per_query // 50, 2), replace=False):
                out.write("%x 0 %x %d\n" % (q, d, rng.randint(0, 3) + 1))
    with open(run_path, "w") as out:
        for q in range(queries):
            docs = rng.permutation(per_query * 2)[:per_query]
            scores = np.round(rng.rand(per_query), 3)
            out.write("".join("%x Q0 %x %d %s r\n" % (q, d, k % 10, s) for k, (d, s) in enumerate(zip(docs, scores))))
    return run_path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=10**7)
    parser.add_argument("--dir", default="/tmp/leaderboard_ci_ranking_scale")
    parser.add_argument("--python", action="append", help="an interpreter to measure (repeatable)")
    args = parser.parse_args(argv)
    run_path = write_files(args.dir, args.lines)
    size = os.path.getsize(run_path) / 1e6
    print("run: %s (%d lines, %.0f MB)" % (run_path, args.lines, size))
    print("%-46s %8s %8s %9s %10s %9s" % ("python", "wall s", "CPU s", "peak MB", "CPU/10 s", "x 1 GB"))
    for python in args.python or [sys.executable]:
        code = CHILD % {"program": PROGRAM, "dir": args.dir, "run": run_path}
        out = subprocess.run([os.path.expanduser(python), "-c", code], capture_output=True, text=True)
        if out.returncode:
            print("%-50s failed: %s" % (python, out.stderr.strip().splitlines()[-1:]))
            continue
        seconds, cpu, peak, retrieved = out.stdout.split()
        print(
            "%-46s %8s %8s %9s %10.2f %9.2f" % (python[-46:], seconds, cpu, peak, float(cpu) / 10, int(peak) / 1000.0)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

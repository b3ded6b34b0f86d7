"""ICM-Soft over a label tree, one submission through the scoring program as the worker runs it (whole process).

The workload is EXIST 2023 task 3's shape: six annotators per item, each gives ``NO`` or one to three of
five sexism categories, one of them rare (1 % of the category votes); the gold is the share of annotators
giving each label (``hard_labels: multi``, every category under ``YES``), n = 10,000 items, B = 10,000,
``icm_soft_norm`` with ``icm_soft``.  One system's soft predictions (the gold plus noise, 10 % zeros).

Peers, in the same run, one fresh process each (``score.py input output`` as the metadata command runs it),
alternating, ``--repeats`` times:

Each run starts from a fresh copy of the program folder without ``__pycache__`` (Codabench's fresh container).

* **tree**: this tree's program with the hierarchy (the target: under 5 s wall);
* **flat**: the same data and program without the hierarchy;
* **base** (``--base DIR``, optional, repeatable: base, base2, ...): another checkout's ``scoring_program`` on the
  tree workload, e.g. ``git worktree add /tmp/base <commit>`` for the program before a change.

Printed: wall and CPU seconds of each run (CPU = user + system of the child, both threads), their medians,
the ratios to ``tree``, and the load average before and after (2 cores, shared: the wall times move with
it, the CPU times much less).  ``n_jobs`` is the program's default (``auto``); ``--jobs 1`` for one thread.

    python3 benchmarks/task_icm_tree.py [--n 10000] [--b 10000] [--repeats 3] [--base DIR [--base DIR2]] [--jobs auto]
"""

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM = os.path.join(HERE, os.pardir, "scoring_program")
LABELS = (
    "NO",
    "IDEOLOGICAL-INEQUALITY",
    "STEREOTYPING-DOMINANCE",
    "OBJECTIFICATION",
    "SEXUAL-VIOLENCE",
    "MISOGYNY-NON-SEXUAL-VIOLENCE",
)
#: Shares of the category votes; SEXUAL-VIOLENCE is the rare category.
CATEGORY_SHARES = (0.28, 0.28, 0.21, 0.02, 0.21)


def make_workload(folder, n, b, jobs, hierarchy, seed=7):
    """Write ``folder/input/{ref,res}``: the gold, one run and the config."""
    rng = np.random.RandomState(seed)
    categories = list(LABELS[1:])
    gold = np.zeros((n, len(LABELS)))
    for i in range(n):
        for _ in range(6):
            if rng.rand() < 0.5:
                gold[i, 0] += 1
            else:
                for label in rng.choice(categories, size=rng.randint(1, 4), replace=False, p=CATEGORY_SHARES):
                    gold[i, LABELS.index(label)] += 1
    gold /= 6.0
    predicted = np.clip(gold + rng.normal(0, 0.2, gold.shape), 0, 1)
    predicted[rng.rand(*gold.shape) < 0.1] = 0.0
    ids = ["%06d" % (300000 + i) for i in range(n)]
    ref, res = os.path.join(folder, "input", "ref"), os.path.join(folder, "input", "res")
    os.makedirs(ref)
    os.makedirs(res)

    def records(rows, digits):
        values = [dict((label, round(float(v), digits)) for label, v in zip(LABELS, row)) for row in rows]
        return json.dumps([{"test_case": "EXIST2023", "id": i, "value": v} for i, v in zip(ids, values)])

    with open(os.path.join(ref, "gold.json"), "w") as handle:
        handle.write(records(gold, 17))
    with open(os.path.join(res, "run.json"), "w") as handle:
        handle.write(records(predicted, 4))
    tree = "hierarchy: {%s}\n" % ", ".join('"%s": "YES"' % label for label in categories) if hierarchy else ""
    with open(os.path.join(ref, "config.yaml"), "w") as handle:
        handle.write(
            "task: soft_labels\nlabels: %s\n%shard_labels: multi\nhard_threshold: %r\n"
            "metric: icm_soft_norm\nextra_metrics: [icm_soft]\nfiles: {gold: gold.json, predictions: run.json}\n"
            "bootstrap: {n_resamples: %d, n_jobs: %s}\n" % (json.dumps(list(LABELS)), tree, 1 / 6.0, b, jobs)
        )


def run_once(program, folder):
    """``(wall s, CPU s)`` of one ``score.py input output`` in a fresh process.

    The program runs from a fresh copy without ``__pycache__`` (made before the clock starts), as in the
    worker's fresh container: every run compiles the modules it imports.
    """
    out = os.path.join(folder, "output")
    if os.path.isdir(out):
        for name in os.listdir(out):
            os.remove(os.path.join(out, name))
    fresh = os.path.join(folder, "program")
    if os.path.isdir(fresh):
        shutil.rmtree(fresh)
    shutil.copytree(program, fresh, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    program = fresh
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, os.path.join(program, "score.py"), os.path.join(folder, "input"), out],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        universal_newlines=True,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        raise SystemExit("%s failed: %s" % (program, done.stderr.strip()[-500:]))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=10000)
    parser.add_argument("--b", type=int, default=10000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--jobs", default="auto")
    parser.add_argument(
        "--base",
        action="append",
        default=[],
        help="another checkout's scoring_program folder (the tree workload); repeatable: base, base2, ...",
    )
    args = parser.parse_args(argv)
    print("load average before: %.1f %.1f %.1f (2 cores)" % os.getloadavg())
    work = tempfile.mkdtemp(prefix="icm_tree_bench_")
    folders = {"tree": os.path.join(work, "tree"), "flat": os.path.join(work, "flat")}
    make_workload(folders["tree"], args.n, args.b, args.jobs, hierarchy=True)
    make_workload(folders["flat"], args.n, args.b, args.jobs, hierarchy=False)
    peers = [("tree", PROGRAM, folders["tree"]), ("flat", PROGRAM, folders["flat"])]
    for k, base in enumerate(args.base):
        peers.append(("base" if k == 0 else "base%d" % (k + 1), os.path.abspath(base), folders["tree"]))
    times = dict((name, []) for name, _, _ in peers)
    for r in range(args.repeats):
        for name, program, folder in peers:
            wall, cpu = run_once(program, folder)
            times[name].append((wall, cpu))
            print("run %d %-5s wall %6.2f s  CPU %6.2f s  (load %.1f)" % (r + 1, name, wall, cpu, os.getloadavg()[0]))
    median = dict((name, np.median(np.array(values), axis=0)) for name, values in times.items())
    print("\nn = %d, B = %d, n_jobs %s, medians of %d runs:" % (args.n, args.b, args.jobs, args.repeats))
    for name, (wall, cpu) in median.items():
        print(
            "  %-5s wall %6.2f s  CPU %6.2f s   / tree: wall x%.2f, CPU x%.2f"
            % (name, wall, cpu, wall / median["tree"][0], cpu / median["tree"][1])
        )
    print("load average after: %.1f %.1f %.1f" % os.getloadavg())


if __name__ == "__main__":
    main()

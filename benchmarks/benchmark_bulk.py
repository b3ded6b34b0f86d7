"""Reading a benchmark's submissions: one Codabench multi-task bulk download vs per-task folders.

    python3 benchmarks/benchmark_bulk.py [--tasks 10] [--systems 50] [--n 2000] [--repeats 3]

The same predictions (10 tasks x 2 languages x 50 systems, n = 2,000 items per test set,
three-class labels) are written twice: as 20 folders of 50 CSV files (read by
``load_systems`` per test set, as a benchmark of per-task folders does) and as one
``bulk_submissions.zip`` of 50 participant zips with 20 files each, named as Codabench names
them (read by ``SharedSubmissions`` + ``task_systems``: unpacked once, each task its own
file).  Prints the median wall time of reading every test set's systems both ways (gold read
included, scoring excluded: that is the same) and their ratio.  Not a test; no target of its own
(the benchmark's whole analysis has the 60 s target of benchmark_tasks.py).
"""

import argparse
import io
import os
import shutil
import statistics
import sys
import tempfile
import time
import zipfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scoring_program"))

from leaderboard_ci.phase.benchmark.benchmark import TaskSpec  # noqa: E402
from leaderboard_ci.phase.benchmark.submissions import SharedSubmissions, task_systems  # noqa: E402
from leaderboard_ci.phase.ingestion.submissions import load_systems  # noqa: E402
from leaderboard_ci.scoring.config import load_config  # noqa: E402
from leaderboard_ci.scoring.readers import read_gold  # noqa: E402

PROGRAM = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scoring_program")


def _csv(ids, labels):
    return ("id,label\n" + "".join("%s,%s\n" % (i, l) for i, l in zip(ids, labels))).encode("ascii")


def build(root, n_tasks, n_systems, n):
    rng = np.random.default_rng(0)
    test_sets, per_system = [], {j: {} for j in range(n_systems)}
    for t in range(n_tasks):
        for language in ("en", "es"):
            name = "task_%02d" % t
            ref = os.path.join(root, "ref", name, language)
            folder = os.path.join(root, "folders", name, language)
            os.makedirs(ref)
            os.makedirs(folder)
            ids = ["%s-%s-%05d" % (name, language, i) for i in range(n)]
            gold = rng.choice(["a", "b", "c"], n)
            with open(os.path.join(ref, "gold.csv"), "wb") as handle:
                handle.write(_csv(ids, gold))
            with open(os.path.join(ref, "config.yaml"), "w") as handle:
                handle.write("metric: accuracy\nextra_metrics: []\n")
            for j in range(n_systems):
                pred = np.where(rng.random(n) < 0.7, gold, rng.choice(["a", "b", "c"], n))
                data = _csv(ids, pred)
                with open(os.path.join(folder, "system_%02d.csv" % j), "wb") as handle:
                    handle.write(data)
                per_system[j]["%s_%s.csv" % (name, language)] = data
            test_sets.append((name, language, ref, folder))
    bulk = os.path.join(root, "bulk_submissions.zip")
    with zipfile.ZipFile(bulk, "w", zipfile.ZIP_STORED) as z:
        for j, files in per_system.items():
            buffer = io.BytesIO()
            with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as inner:
                for file_name, data in files.items():
                    inner.writestr(file_name, data)
            z.writestr("%d_system_%02d_PhaseId7_2026-05-01_13-22_submission.zip" % (1000 + j, j), buffer.getvalue())
    return test_sets, bulk


def read_folders(test_sets, work):
    count = 0
    for name, language, ref, folder in test_sets:
        config = load_config(PROGRAM, ref)
        gold = read_gold(ref, config)
        coded, _, _ = load_systems(folder, config, gold, os.path.join(work, name + language), warnings_list=[])
        count += len(coded)
    return count


def read_bulk(test_sets, bulk, work):
    shared = SharedSubmissions(work)
    count = 0
    for name, language, ref, _ in test_sets:
        config = load_config(PROGRAM, ref)
        gold = read_gold(ref, config)
        task = TaskSpec(name, language, ref, bulk, file="%s_%s.csv" % (name, language), shared=True)
        coded, _ = task_systems(task, config, gold, shared)
        count += len(coded)
    return count


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=10)
    parser.add_argument("--systems", type=int, default=50)
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    root = tempfile.mkdtemp(prefix="benchmark-bulk-")
    try:
        test_sets, bulk = build(root, args.tasks, args.systems, args.n)
        times = {"per-task folders": [], "one bulk download": []}
        for r in range(args.repeats):
            for label, run in (
                ("per-task folders", lambda w: read_folders(test_sets, w)),
                ("one bulk download", lambda w: read_bulk(test_sets, bulk, w)),
            ):
                work = os.path.join(root, "work-%d-%s" % (r, label.split()[0]))
                started = time.perf_counter()
                count = run(work)
                times[label].append(time.perf_counter() - started)
                assert count == len(test_sets) * args.systems
                shutil.rmtree(work)
        print(
            "reading %d tasks x 2 languages x %d systems, n = %d (bulk zip %.1f MB), median of %d, load %s"
            % (
                args.tasks,
                args.systems,
                args.n,
                os.path.getsize(bulk) / 2**20,
                args.repeats,
                "%.2f %.2f %.2f" % os.getloadavg(),
            )
        )
        medians = {k: statistics.median(v) for k, v in times.items()}
        for label, value in medians.items():
            print("  %-18s %6.2f s  (runs: %s)" % (label, value, ", ".join("%.2f" % t for t in times[label])))
        print("  ratio bulk / folders: %.2f" % (medians["one bulk download"] / medians["per-task folders"]))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

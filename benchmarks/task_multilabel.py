"""Multi-label timing: our scoring program against a scikit-learn loop, whole processes, same run.

    python benchmarks/task_multilabel.py                 # n=10,000 items, K=20 labels, B=10,000, m=50
    python benchmarks/task_multilabel.py --quick         # a smoke run
    python benchmarks/peers.py multilabel                # the same, as the docs' inventory reruns it

* **ours, per submission**: ``score.py`` as the Codabench worker runs it (``python3 score.py input
  output`` on a fresh ``/app``-like tree: the gold and the predictions as CSV, ``config.yaml``),
  B = 10,000, with the official metric macro-F1, and with all 12 fine-level metrics; and the same
  at B = 1 (start-up, reading, the full sample: the part that does not grow with B), shown apart;
* **peer**: scikit-learn has no command line, so its Python API in a fresh process
  (``--peer-child``): the import of ``sklearn.metrics`` and the data timed apart, then
  ``f1_score(y, p, average="macro", sample_weight=counts)`` (and the other 11 calls) on our
  replicate rows (``replicate_indices``, counts built inside the timing), on ``--peer-b``
  replicates; the whole process is timed by the parent and the loop scaled to B (said so);
* **end of phase** (not a peer ratio): ``analyze()`` of m systems in this process (macro-F1, all
  pairs, three corrections).

Each process is reaped with ``os.wait4`` (wall, CPU of all threads, peak RSS), the load average
printed before and after; the table is appended to ``benchmarks/results/task_multilabel.txt``.
Data: gold with label cardinality ~2 (label frequencies 2 %..25 %), systems that flip each cell
with probability 5-25 %.  Not a test: nothing here is collected by pytest.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM = os.path.abspath(os.path.join(HERE, os.pardir, "scoring_program"))
RESULTS = os.path.join(HERE, "results", "task_multilabel.txt")
sys.path.insert(0, PROGRAM)
sys.path.insert(0, HERE)

from whole_process import format_row, ours_env, run_process  # noqa: E402

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
    from leaderboard_ci.scoring.config import parse_config

    return parse_config(
        {
            "task": "multilabel",
            "metric": metrics[0],
            "extra_metrics": metrics[1:],
            "bootstrap": {"n_resamples": b, "seed": SEED},
        }
    )


def gold_of(y, cfg):
    from leaderboard_ci.tasks.shared.base import GoldStandard

    return GoldStandard(
        values=y, labels=tuple("L%02d" % i for i in range(y.shape[1])), task="multilabel", settings=cfg.task_settings
    )


def sklearn_loop(y, p, metrics, b):
    from sklearn import metrics as skm

    from leaderboard_ci.core.resampling import counts_from_indices, iter_index_blocks

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


def write_tree(folder, y, p, metrics, b):
    """A worker's tree: ``input/ref`` (gold.csv, config.yaml), ``input/res`` (predictions.csv), ``output``."""
    ref, res, out = (
        os.path.join(folder, "input", "ref"),
        os.path.join(folder, "input", "res"),
        os.path.join(folder, "output"),
    )
    for path in (ref, res, out):
        os.makedirs(path, exist_ok=True)
    labels = ["L%02d" % i for i in range(y.shape[1])]
    for path, matrix in ((os.path.join(ref, "gold.csv"), y), (os.path.join(res, "predictions.csv"), p)):
        with open(path, "w", encoding="utf-8") as handle:
            handle.write("id,labels\n")
            for i, row in enumerate(matrix):
                handle.write("i%06d,%s\n" % (i, "|".join(labels[j] for j in np.flatnonzero(row))))
    config = {
        "task": "multilabel",
        "metric": metrics[0],
        "extra_metrics": metrics[1:],
        "labels": labels,
        "files": {"gold": "gold.csv", "gold_column": "labels"},
        "bootstrap": {"n_resamples": b, "seed": SEED},
    }
    with open(os.path.join(ref, "config.yaml"), "w", encoding="utf-8") as handle:
        json.dump(config, handle)  # JSON is YAML
    return [sys.executable, os.path.join(PROGRAM, "score.py"), os.path.join(folder, "input"), out]


def peer_child(args):
    """In a fresh process: import scikit-learn, make the data, run the loop on ``--peer-b`` replicates (JSON)."""
    t0, c0 = time.perf_counter(), time.process_time()
    import sklearn.metrics  # noqa: F401

    imports = (time.perf_counter() - t0, time.process_time() - c0)
    t1, c1 = time.perf_counter(), time.process_time()
    y, systems = data(args.n, args.labels, 1)
    made = (time.perf_counter() - t1, time.process_time() - c1)
    t2, c2 = time.perf_counter(), time.process_time()
    sklearn_loop(y, systems[0], ALL if args.peer_child == "all" else ["f1_macro"], args.peer_b)
    loop = (time.perf_counter() - t2, time.process_time() - c2)
    print(json.dumps({"imports": imports, "data": made, "loop": loop}))
    return 0


def scaled_peer(row, b, peer_b):
    """The peer's whole process with its loop scaled from ``peer_b`` replicates to ``b`` (wall, CPU)."""
    inner = json.loads(row["stdout_tail"].strip().splitlines()[-1])
    factor = b / float(peer_b)
    wall = row["wall"] + inner["loop"][0] * (factor - 1.0)
    cpu = row["cpu"] + inner["loop"][1] * (factor - 1.0)
    return wall, cpu, inner


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
    parser.add_argument("--peer-child", choices=("macro", "all"), help=argparse.SUPPRESS)
    parser.add_argument("--out", default=RESULTS, help="append the table here (default: %(default)s)")
    args = parser.parse_args(argv)
    if args.quick:
        args.n, args.b, args.m, args.peer_b = 2000, 500, 5, 20
    if args.peer_child:
        return peer_child(args)
    n, k, b = args.n, args.labels, args.b
    y, systems = data(n, k, max(2, args.m))
    # This process stays small until the children have run (numpy and the data: a child's peak RSS
    # from os.wait4 starts at its parent's RSS at fork); leaderboard_ci is imported for the phase only.
    lines = [
        "# %s UTC, python3 benchmarks/task_multilabel.py %s"
        % (time.strftime("%Y-%m-%d %H:%M", time.gmtime()), " ".join(sys.argv[1:] if argv is None else argv)),
        "multi-label, n=%d items, K=%d labels, B=%d; numpy %s, scikit-learn %s, %d CPUs, load average %s"
        % (n, k, b, np.__version__, _version("sklearn"), os.cpu_count(), " ".join("%.1f" % x for x in os.getloadavg())),
        "each row one whole process (os.wait4: wall, CPU of all threads, peak RSS); ratio = peer / ours (B = %d)" % b,
    ]
    _say(lines)
    table = ["| case | wall s | CPU s | peak MB | load | ratio wall / CPU |", "|---|---:|---:|---:|---|---:|"]
    work = tempfile.mkdtemp(prefix="task_multilabel_")
    try:
        for label, metrics, child in (("macro-F1", ["f1_macro"], "macro"), ("12 metrics", ALL, "all")):
            rows = {}
            for case, bb in (("ours, B = 1 (start-up, reading, full sample)", 1), ("ours", b)):
                folder = os.path.join(work, "%s-%d" % (child, bb))
                rows[bb] = run_process(
                    "%s, %s" % (label, case), write_tree(folder, y, systems[0], metrics, bb), ours_env()
                )
                _say([format_row(rows[bb])])
                table.append(_table_row(rows[bb]["label"], rows[bb]))
            if args.no_peer:
                continue
            command = [sys.executable, os.path.abspath(__file__), "--peer-child", child, "--n", str(n)]
            command += ["--labels", str(k), "--peer-b", str(args.peer_b)]
            peer = run_process("%s, scikit-learn loop, B = %d as run" % (label, args.peer_b), command, ours_env())
            _say([format_row(peer)])
            if peer["returncode"]:
                continue
            wall, cpu, inner = scaled_peer(peer, b, args.peer_b)
            ours = rows[b]
            _say(
                [
                    "    its import of sklearn.metrics %.2f s wall / %.2f s CPU, data %.2f / %.2f s, loop %.2f / %.2f s"
                    % tuple(inner["imports"] + inner["data"] + inner["loop"]),
                    "    scaled to B = %d (the loop x %g): %.0f s wall, %.0f s CPU; ratio to ours %.0fx wall, %.0fx CPU"
                    % (b, b / float(args.peer_b), wall, cpu, wall / ours["wall"], cpu / ours["cpu"]),
                ]
            )
            table.append(_table_row("%s, scikit-learn loop, B = %d as run" % (label, args.peer_b), peer))
            scaled = dict(peer, wall=wall, cpu=cpu)
            table.append(_table_row("%s, scikit-learn loop scaled to B = %d *" % (label, b), scaled, ours))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if not args.skip_phase:
        import pandas  # noqa: F401  (import time out of the measurement)

        from leaderboard_ci.phase.analysis import analyze

        cfg = config(["f1_macro"], b)
        gold = gold_of(y, cfg)
        coded = dict(("system_%02d" % j, s) for j, s in enumerate(systems[: args.m]))
        start, start_cpu = time.perf_counter(), time.process_time()
        analyze(gold, coded, config=cfg)
        _say(
            [
                "end of phase, m=%d systems, macro-F1, all pairs: analyze() in this process %.1f s wall, %.1f s CPU"
                " (one run; not a peer ratio)" % (args.m, time.perf_counter() - start, time.process_time() - start_cpu)
            ]
        )
    _say(table + ["load average after: %s" % " ".join("%.1f" % x for x in os.getloadavg()), ""])
    if args.out:
        with open(args.out, "a", encoding="utf-8") as handle:
            handle.write("\n".join(_OUTPUT) + "\n")
    return 0


_OUTPUT = []


def _version(module):
    """A module's version from a fresh interpreter (not imported here: see the RSS note in main)."""
    code = "import %s; print(%s.__version__)" % (module, module)
    return subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE, universal_newlines=True).stdout.strip()


def _say(lines):
    for line in lines:
        print(line, flush=True)
        _OUTPUT.append(line)


def _table_row(label, row, ours=None):
    ratio = "%.0fx / %.0fx" % (row["wall"] / ours["wall"], row["cpu"] / ours["cpu"]) if ours else ""
    return "| %s | %.2f | %.2f | %.0f | %.1f -> %.1f | %s |" % (
        label,
        row["wall"],
        row["cpu"],
        row["peak_rss_mb"],
        row["load_before"],
        row["load_after"],
        ratio,
    )


if __name__ == "__main__":
    sys.exit(main())

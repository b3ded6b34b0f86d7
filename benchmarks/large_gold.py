"""One submission against a 10^6-item gold, whole process through the metadata command, this checkout vs a base.

Each case (``cls``: 3 classes, f1_macro + accuracy; ``reg``: rmse + mae + pearson + r2) is a fresh
/app-like tree per side: ``program/`` (a copy of the side's ``scoring_program`` with the case's
``config.yaml``), ``input/ref`` (the gold), ``input/res`` (one submission), ``output/``; the command is
``python score.py input output`` run from ``program/`` (cwd), as Codabench runs it.  B = 1,000, seed
12345.  Rows give wall, CPU (user + system of the child, all threads), peak RSS and the 1-minute load
before/after; the two sides of a case run one after the other in the same run, and the scores.json
files of the two sides are compared byte for byte.

Usage::

    python3 benchmarks/large_gold.py --base /tmp/base-d93 [--python ~/.cache/leaderboard-ci/py37/bin/python]
        [--cases cls reg] [--n 1000000] [--repeat 1] [--jsonl benchmarks/results/large_gold.jsonl]

``--base`` is a checkout of the reference commit (``git -C /work/main worktree add --detach
/tmp/base-d93 d93cd98``).  The data are generated once into ``--data`` (default
``/tmp/large_gold_data``) with a fixed seed.
"""

import argparse
import filecmp
import os
import shutil
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from whole_process import append_jsonl, format_row, run_process  # noqa: E402

OURS = os.path.abspath(os.path.join(HERE, os.pardir))

CONFIGS = {
    "cls": "task: classification\nmetric: f1_macro\nextra_metrics: [accuracy]\n"
    "bootstrap: {n_resamples: 1000, seed: 12345, n_jobs: auto}\n",
    "reg": "task: regression\nmetric: rmse\nextra_metrics: [mae, pearson, r2]\nfiles: {gold_column: value}\n"
    "bootstrap: {n_resamples: 1000, seed: 12345, n_jobs: auto}\n",
}


def _write_table(path, header, ids, column):
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(header + "\n")
        handle.write("\n".join("%d,%s" % pair for pair in zip(ids.tolist(), column)))
        handle.write("\n")


def make_data(root, case, n):
    """Write ``gold.csv`` and ``predictions.csv`` of ``case`` at ``n`` items under ``root`` (once)."""
    folder = os.path.join(root, "%s_%d" % (case, n))
    if os.path.exists(os.path.join(folder, "done")):
        return folder
    os.makedirs(folder, exist_ok=True)
    rng = np.random.RandomState(41 if case == "cls" else 42)
    ids = np.arange(n)
    if case == "cls":
        labels = np.array(["neg", "neu", "pos"])
        y = rng.randint(3, size=n)
        p = np.where(rng.rand(n) < 0.8, y, rng.randint(3, size=n))
        _write_table(os.path.join(folder, "gold.csv"), "id,label", ids, labels[y].tolist())
        _write_table(os.path.join(folder, "predictions.csv"), "id,label", ids, labels[p].tolist())
    else:
        y = rng.normal(size=n)
        p = y + rng.normal(scale=0.5, size=n)
        _write_table(os.path.join(folder, "gold.csv"), "id,value", ids, ["%.5f" % v for v in y])
        _write_table(os.path.join(folder, "predictions.csv"), "id,value", ids, ["%.5f" % v for v in p])
    open(os.path.join(folder, "done"), "w").close()
    return folder


def make_tree(root, side, checkout, case, data):
    """A fresh /app-like tree for ``side``: program/, input/ref, input/res, output/."""
    app = os.path.join(root, "app_%s_%s" % (side, case))
    shutil.rmtree(app, ignore_errors=True)
    shutil.copytree(
        os.path.join(checkout, "scoring_program"),
        os.path.join(app, "program"),
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    with open(os.path.join(app, "program", "config.yaml"), "w", encoding="utf-8") as handle:
        handle.write(CONFIGS[case])
    for sub in ("input/ref", "input/res", "output"):
        os.makedirs(os.path.join(app, sub))
    for name, sub in (("gold.csv", "ref"), ("predictions.csv", "res")):
        shutil.copyfile(os.path.join(data, name), os.path.join(app, "input", sub, name))  # the program refuses links
    return app


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="checkout of the reference commit")
    parser.add_argument("--python", default=sys.executable, help="interpreter (e.g. the py37 image venv)")
    parser.add_argument("--cases", nargs="+", default=["cls", "reg"], choices=sorted(CONFIGS))
    parser.add_argument("--n", type=int, default=10**6)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--data", default="/tmp/large_gold_data")
    parser.add_argument("--jsonl", default=None)
    args = parser.parse_args(argv)
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    failures = 0
    for case in args.cases:
        data = make_data(args.data, case, args.n)
        for _repeat in range(args.repeat):
            rows = {}
            for side, checkout in (("base", os.path.abspath(args.base)), ("ours", OURS)):
                app = make_tree(args.data, side, checkout, case, data)
                command = [args.python, "score.py", "../input", "../output"]
                rows[side] = run_process(
                    "%s n=%d %s (%s)" % (case, args.n, side, os.path.basename(args.python)),
                    command,
                    env=env,
                    cwd=os.path.join(app, "program"),
                )
            same = filecmp.cmp(
                os.path.join(args.data, "app_base_%s" % case, "output", "scores.json"),
                os.path.join(args.data, "app_ours_%s" % case, "output", "scores.json"),
                shallow=False,
            )
            print(format_row(rows["base"]))
            print(format_row(rows["ours"], rows["base"]))
            print(
                "  CPU ratio base/ours %.2fx; scores.json identical: %s"
                % (rows["base"]["cpu"] / max(rows["ours"]["cpu"], 1e-9), same)
            )
            failures += int(not same) + int(bool(rows["base"]["returncode"] or rows["ours"]["returncode"]))
            if args.jsonl:
                append_jsonl(args.jsonl, rows.values(), case=case, n=args.n, python=args.python, identical=same)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

"""The forecasting coverage study of ``tests/test_forecasting_coverage.py``, one JSON line per test set.

    nice -n 15 python benchmarks/task_forecasting_coverage.py --series 2000 --out coverage2000.jsonl
    python benchmarks/task_forecasting_coverage.py --series 2000 --out coverage2000.jsonl --summary

The same population, seeds and intervals as the slow test (``coverage(n, 1000, contrast=True)``):
test set ``r`` is the ``r``-th draw of ``RandomState(7)``, its series-bootstrap interval comes from
the scoring program's own path with seed ``r`` and its point-bootstrap contrast from the ``12 n``
horizon points resampled as if independent.  Each finished test set appends one line (interval
bounds, whether each holds the estimand, CPU and wall seconds, load average), so a run cut off is
resumed where it stopped: the draws already written are simulated again (cheap) and skipped.
``--start K`` (and ``--stop L``) make another process take test sets ``K`` to ``L - 1`` (in its
own file; stop the first at ``K``); ``--summary --also FILE...`` prints the coverage of both, over the test sets of
all the files, with its Monte-Carlo standard error ``sqrt(p (1 - p) / R)``.
"""

import argparse
import json
import math
import os
import resource
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "scoring_program"))
sys.path.insert(0, os.path.join(ROOT, "tests"))

import numpy as np  # noqa: E402
import test_forecasting_coverage as study  # noqa: E402


def done_lines(path):
    """The test sets already written to ``path`` (a truncated last line is dropped)."""
    if not os.path.exists(path):
        return []
    rows = []
    with open(path) as handle:
        for line in handle:
            try:
                rows.append(json.loads(line))
            except ValueError:
                break
    return rows


def cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run(n, repetitions, out, seed=7, start=0, stop=None):
    rows = done_lines(out)
    truth = study.estimand()
    rng = np.random.RandomState(seed)
    with open(out, "a") as handle:
        for r in range(repetitions if stop is None else min(stop, repetitions)):
            y, f = study.simulate(rng, n)
            if r < start + len(rows):
                continue
            cpu, wall = cpu_seconds(), time.time()
            low, high = study.program_interval(y, f, seed=r)
            p_low, p_high = study.point_interval(y, f, seed=r)
            row = {
                "r": r,
                "n": n,
                "truth": truth,
                "low": float(low),
                "high": float(high),
                "covered": bool(low <= truth <= high),
                "point_low": float(p_low),
                "point_high": float(p_high),
                "point_covered": bool(p_low <= truth <= p_high),
                "cpu_s": round(cpu_seconds() - cpu, 3),
                "wall_s": round(time.time() - wall, 3),
                "load": [round(x, 2) for x in os.getloadavg()],
            }
            handle.write(json.dumps(row) + "\n")
            handle.flush()


def summary(paths):
    rows = dict((row["r"], row) for path in paths for row in done_lines(path))
    rows = [rows[r] for r in sorted(rows)]
    count = len(rows)
    if not count:
        return "no test set written yet"
    lines = []
    for key, name in (("covered", "series bootstrap"), ("point_covered", "point bootstrap")):
        p = sum(row[key] for row in rows) / count
        lines.append("%s: %.1f %% (MC SE %.1f)" % (name, 100 * p, 100 * math.sqrt(p * (1 - p) / count)))
    width = np.median([row["high"] - row["low"] for row in rows])
    p_width = np.median([row["point_high"] - row["point_low"] for row in rows])
    cpu = sum(row["cpu_s"] for row in rows)
    wall = sum(row["wall_s"] for row in rows)
    loads = [row["load"][0] for row in rows]
    return (
        "R = %d test sets of %d series; %s; median width %.3f (series) vs %.3f (points), ratio %.2f; "
        "CPU %.0f s, wall %.0f s, load %.1f-%.1f"
        % (count, rows[0]["n"], "; ".join(lines), width, p_width, width / p_width, cpu, wall, min(loads), max(loads))
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--series", type=int, default=2000)
    parser.add_argument("--repetitions", type=int, default=1000)
    parser.add_argument("--out", required=True, help="JSON lines file, appended to (resumes a cut-off run)")
    parser.add_argument("--start", type=int, default=0, help="the first test set (a second process takes the rest)")
    parser.add_argument("--stop", type=int, default=None, help="stop before this test set")
    parser.add_argument("--also", nargs="*", default=[], help="more files of the same study, for --summary")
    parser.add_argument("--summary", action="store_true", help="print the coverage so far and stop")
    args = parser.parse_args(argv)
    if not args.summary:
        run(args.series, args.repetitions, args.out, start=args.start, stop=args.stop)
    print(summary([args.out] + args.also))


if __name__ == "__main__":
    main()

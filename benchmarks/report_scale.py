#!/usr/bin/env python3
"""Writing the end-of-phase report of many systems: wall time and peak RSS of ``write_report``.

    PYTHONPATH=scoring_program python3 benchmarks/report_scale.py                 # m = 60, 500, 2000
    PYTHONPATH=scoring_program python3 benchmarks/report_scale.py --m 60,500 --full    # and top=None

Each case runs in its own child process: ``analyze()`` of m synthetic systems
(macro-F1 and accuracy, a baseline, n = 300 items, B = 200, untimed), then
``write_report(result, tmp)`` (top = 60, the default) timed; the child reports the wall time
and CPU time of the write, the RSS before it (the result in memory) and the
peak RSS during it (``VmHWM`` reset through ``/proc/self/clear_refs`` just
before), so the write's own peak is the difference.  ``--full`` also
runs ``top=None`` (every system on the page, the report as it was before
outputs at scale) for the ratio, where it finishes in ``--max-seconds``.
Not a test: nothing here is collected by pytest.
"""

import argparse
import gc
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "scoring_program"))

from leaderboard_ci.report.scale import DEFAULT_TOP  # noqa: E402


def synthetic_result(m, n=300, n_resamples=200, seed=0):
    """A PhaseResult of ``m`` systems from ``analyze()`` on seeded synthetic labels (3 classes).

    System ``i`` keeps the gold label with a probability rising from 0.40 to
    0.90 with ``i``; the last is a majority baseline.  Two targets
    (macro-F1, official, and accuracy), letters, gains over the baseline.
    The corrections' family is the comparisons with the winner and the
    decisions are Benjamini-Hochberg's, so that with B = 200 some systems are
    significantly worse than the winner and others are not.
    """
    import numpy as np

    from leaderboard_ci.phase.analysis import Execution, analyze

    rng = np.random.default_rng(seed)
    gold = rng.integers(0, 3, n)
    systems = {}
    for i in range(m - 1):
        pred = gold.copy()
        flip = rng.random(n) > 0.40 + 0.50 * i / max(m - 2, 1)
        pred[flip] = rng.integers(0, 3, int(flip.sum()))
        systems["team_%04d_run_%d" % (i, i % 3)] = pred
    systems["majority baseline"] = np.full(n, int(np.bincount(gold).argmax()))
    return analyze(
        [str(g) for g in gold],
        {k: [str(x) for x in v] for k, v in systems.items()},
        metric="f1_macro",
        extra_metrics=["accuracy"],
        baseline="majority baseline",
        n_resamples=n_resamples,
        family="vs_winner",
        primary="fdr_bh",
        execution=Execution(n_jobs=1),
    )


def _status_mb(field):
    """``VmRSS`` (now) or ``VmHWM`` (peak since the last reset) of this process, in MB (Linux)."""
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024.0
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _reset_peak():
    """Start VmHWM again from the current RSS (Linux >= 4.0: ``5`` to clear_refs)."""
    try:
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")
    except OSError:
        pass


def child(m, top, figures):
    from leaderboard_ci.report.files import write_report

    started = time.perf_counter()
    result = synthetic_result(m)
    analyse_s = time.perf_counter() - started
    gc.collect()
    before = _status_mb("VmRSS")
    _reset_peak()
    out = tempfile.mkdtemp(prefix="report-scale-")
    started, cpu = time.perf_counter(), time.process_time()
    written = write_report(result, out, top=top, figures=figures)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    after = _status_mb("VmHWM")
    size = sum(os.path.getsize(p) for p in written.values())
    html = os.path.getsize(written["report.html"])
    js = os.path.getsize(written["report.json"])
    print(
        json.dumps(
            {
                "m": m,
                "top": top,
                "figures": figures,
                "analyse_s": analyse_s,
                "write_s": seconds,
                "write_cpu_s": cpu,
                "rss_before_mb": before,
                "rss_peak_mb": after,
                "files": len(written),
                "bytes": size,
                "html_bytes": html,
                "json_bytes": js,
                "pairs_per_target": int(m * (m - 1) // 2),
            }
        )
    )


def run_case(m, top, figures, max_seconds):
    command = [
        sys.executable,
        os.path.abspath(__file__),
        "--child",
        str(m),
        "--top",
        str(top),
        "--figures",
        "1" if figures else "0",
    ]
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=max_seconds,
            env=dict(os.environ, PYTHONPATH=os.path.join(HERE, os.pardir, "scoring_program")),
        )
    except subprocess.TimeoutExpired:
        return {"m": m, "top": top, "figures": figures, "timeout": max_seconds}
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--m", default="60,500,2000", help="comma-separated numbers of systems")
    parser.add_argument("--full", action="store_true", help="also top=None (every system on the page)")
    parser.add_argument("--no-figures", action="store_true")
    parser.add_argument("--max-seconds", type=float, default=900.0, help="time limit of one case")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--top", default=str(DEFAULT_TOP), help=argparse.SUPPRESS)
    parser.add_argument("--figures", default="1", help=argparse.SUPPRESS)
    parser.add_argument("--out", help="write the rows as JSON to this file")
    args = parser.parse_args(argv)
    if args.child is not None:
        child(args.child, None if args.top == "None" else int(args.top), args.figures == "1")
        return 0
    print("load average: %.2f %.2f %.2f" % os.getloadavg())
    rows = []
    figures = not args.no_figures
    for m in [int(x) for x in args.m.split(",")]:
        tops = [DEFAULT_TOP] + ([None] if args.full else [])
        for top in tops:
            row = run_case(m, top, figures, args.max_seconds)
            rows.append(row)
            if "timeout" in row:
                print("m=%5d top=%-4s  did not finish in %.0f s" % (m, top, row["timeout"]))
                continue
            print(
                "m=%5d top=%-4s pairs/target=%9s  write %7.2f s (CPU %7.2f s)  peak RSS %6.0f MB (result in "
                "memory %6.0f MB, write +%5.0f MB)  report.html %6.1f MB  report.json %6.1f MB  all files %7.1f MB"
                % (
                    m,
                    top,
                    "{:,}".format(row["pairs_per_target"]),
                    row["write_s"],
                    row["write_cpu_s"],
                    row["rss_peak_mb"],
                    row["rss_before_mb"],
                    row["rss_peak_mb"] - row["rss_before_mb"],
                    row["html_bytes"] / 1e6,
                    row["json_bytes"] / 1e6,
                    row["bytes"] / 1e6,
                )
            )
    by = {(r["m"], r["top"]): r for r in rows if "timeout" not in r}
    for m in sorted({r["m"] for r in rows}):
        if (m, DEFAULT_TOP) in by and (m, None) in by:
            cut, uncut = by[(m, DEFAULT_TOP)], by[(m, None)]
            print(
                "m=%5d  top=None / top=%d: wall x%.1f, CPU x%.1f, write memory x%.1f"
                % (
                    m,
                    DEFAULT_TOP,
                    uncut["write_s"] / cut["write_s"],
                    uncut["write_cpu_s"] / cut["write_cpu_s"],
                    max(uncut["rss_peak_mb"] - uncut["rss_before_mb"], 1)
                    / max(cut["rss_peak_mb"] - cut["rss_before_mb"], 1),
                )
            )
    print("load average: %.2f %.2f %.2f" % os.getloadavg())
    if args.out:
        with open(args.out, "w") as handle:
            json.dump(rows, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

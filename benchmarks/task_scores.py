#!/usr/bin/env python3
"""Benchmark of the ``scores`` task: ROC-AUC with a bootstrap CI, ours against the peers, in one run.

    python3 benchmarks/task_scores.py                 # the issue's cases (slow peers scaled)
    python3 benchmarks/task_scores.py --quick         # a smoke run

Cases (issue 12): one submission, ROC-AUC, n = 10,000 and 100,000, B = 10,000;
the end of phase, 100 systems, n = 10,000, ROC-AUC, all pairs (``analyze()``).

    python3 benchmarks/task_scores.py --phase-only    # the end of phase alone, with its peers

End-of-phase peers, in the same run: ``ours-phase-cells``, our previous code path
(each system's replicates from a ``bincount`` of the drawn items' (tie group,
class) cells and three cumulative sums over them, the path average precision
still takes), at the same B (through ``analyze()``, so everything but the
replicates is common); ``sklearn-loop-phase``, ``roc_auc_score`` per system and
resample (our resamples, the replicates only), run at B = 20 and scaled
linearly.

Each case runs in a child process (``--child``), three times; the median wall time
and the child's peak RSS are printed with the ratio peer / ours.  Peers:

* ``scipy``: ``scipy.stats.bootstrap`` (paired, percentile) with a vectorized
  rank-based AUC (``scipy.stats.rankdata`` along the resample axis), ``batch``
  bounded to about 32 MB of ranks;
* ``sklearn-loop``: ``roc_auc_score`` on every resample (our resamples);
* ``compstats``: CompStats 0.1.15 ``StatisticSamples(statistic=roc_auc_score)``
  with our resamples, run in ``benchmarks/.venv-peers`` (``setup_peers.py``);
* ``confidenceinterval``: ``roc_auc_score(method="bootstrap_percentile")``.

The loop-based peers (every one but scipy) run at B' = B / 10 (at most 1,000) and
are scaled linearly to B (they are linear in B); they are marked ``*``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PROGRAM = os.path.join(ROOT, "scoring_program")
PEERS_PYTHON = os.path.join(HERE, ".venv-peers", "bin", "python")
SEED = 12345
SCALED = ("sklearn-loop", "compstats", "confidenceinterval")


def _data(n, seed=0):
    import numpy as np

    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(int)
    s = 1.0 / (1.0 + np.exp(-(rng.normal(size=n) + 1.2 * y)))
    return y, s


def _ours(n, b):
    import numpy as np

    from leaderboard_ci.scoring.config import parse_config
    from leaderboard_ci.scoring.evaluation import evaluate
    from leaderboard_ci.tasks.shared.base import GoldStandard

    y, s = _data(n)
    config = parse_config(
        {"task": "scores", "metric": "roc_auc", "labels": ["0", "1"], "bootstrap": {"n_resamples": b, "seed": SEED}}
    )
    gold = GoldStandard(values=np.asarray(y, dtype=np.intp), labels=("0", "1"), task="scores")
    start = time.perf_counter()
    result = evaluate(config, gold, s[:, None])
    elapsed = time.perf_counter() - start
    return elapsed, result.official.interval.low, result.official.interval.high


def _ours_f1(n, b):
    """Calibration: our macro-F1 on the same n and B (the README's reference workload)."""
    import numpy as np

    from leaderboard_ci.scoring.config import parse_config
    from leaderboard_ci.scoring.evaluation import evaluate
    from leaderboard_ci.tasks.shared.base import GoldStandard

    y, s = _data(n)
    config = parse_config({"metric": "f1_macro", "labels": ["0", "1"], "bootstrap": {"n_resamples": b, "seed": SEED}})
    gold = GoldStandard(values=np.asarray(y, dtype=np.intp), labels=("0", "1"), task="classification")
    start = time.perf_counter()
    result = evaluate(config, gold, (s > 0.5).astype(np.intp))
    return time.perf_counter() - start, result.official.interval.low, result.official.interval.high


def _ours_phase(m, n, b):
    from leaderboard_ci.phase.analysis import analyze

    y, systems = _phase_systems(m, n)
    start = time.perf_counter()
    analyze([str(v) for v in y], systems, metric="roc_auc", n_resamples=b, seed=SEED)
    return time.perf_counter() - start, None, None


def _phase_systems(m, n):
    import numpy as np

    y, s = _data(n)
    rng = np.random.default_rng(1)
    return y, dict(("s%03d" % j, s + rng.normal(0, 0.5 + j / 50.0, n)) for j in range(m))


def _ours_phase_cells(m, n, b):
    """The previous code path: every system's ROC-AUC from its own cell counts (``_cell_block``)."""
    from leaderboard_ci.tasks.scores.curves import BinaryCurve

    BinaryCurve.block = lambda self, indices, counts=None: self._cell_block(indices)
    return _ours_phase(m, n, b)


def _sklearn_loop_phase(m, n, b):
    from sklearn.metrics import roc_auc_score

    from leaderboard_ci.core.resampling import replicate_indices

    y, systems = _phase_systems(m, n)
    start = time.perf_counter()
    for idx in replicate_indices(SEED, n, 0, b):
        for s in systems.values():
            roc_auc_score(y[idx], s[idx])
    return time.perf_counter() - start, None, None


def _scipy(n, b):
    import numpy as np
    from scipy.stats import bootstrap, rankdata

    y, s = _data(n)

    def auc(yy, ss, axis=-1):
        ranks = rankdata(ss, axis=axis)
        p = yy.sum(axis=axis)
        q = yy.shape[axis] - p
        return ((ranks * yy).sum(axis=axis) - p * (p + 1) / 2.0) / (p * q)

    start = time.perf_counter()
    res = bootstrap(
        (y, s),
        auc,
        paired=True,
        vectorized=True,
        n_resamples=b,
        method="percentile",
        batch=max(1, (1 << 22) // n),
        random_state=np.random.default_rng(SEED),
    )
    return time.perf_counter() - start, res.confidence_interval.low, res.confidence_interval.high


def _sklearn_loop(n, b):
    import numpy as np
    from sklearn.metrics import roc_auc_score

    from leaderboard_ci.core.resampling import replicate_indices

    y, s = _data(n)
    start = time.perf_counter()
    values = np.array([roc_auc_score(y[idx], s[idx]) for idx in replicate_indices(SEED, n, 0, b)])
    return time.perf_counter() - start, np.percentile(values, 2.5), np.percentile(values, 97.5)


def _compstats(n, b):
    import numpy as np
    from CompStats import StatisticSamples
    from sklearn.metrics import roc_auc_score

    from leaderboard_ci.core.resampling import replicate_indices

    y, s = _data(n)
    start = time.perf_counter()
    samples = StatisticSamples(statistic=roc_auc_score, num_samples=b)
    samples._samples = replicate_indices(SEED, n, 0, b)
    values = samples(y, s)
    return time.perf_counter() - start, np.percentile(values, 2.5), np.percentile(values, 97.5)


def _confidenceinterval(n, b):
    import numpy as np
    from confidenceinterval import roc_auc_score

    y, s = _data(n)
    start = time.perf_counter()
    _, (low, high) = roc_auc_score(
        list(y), list(s), method="bootstrap_percentile", n_resamples=b, random_state=np.random.default_rng(SEED)
    )
    return time.perf_counter() - start, low, high


PHASE_IMPLS = {
    "ours-phase": _ours_phase,
    "ours-phase-cells": _ours_phase_cells,
    "sklearn-loop-phase": _sklearn_loop_phase,
}
IMPLS = {
    "ours": _ours,
    "ours-f1": _ours_f1,
    "scipy": _scipy,
    "sklearn-loop": _sklearn_loop,
    "compstats": _compstats,
    "confidenceinterval": _confidenceinterval,
}


def child(impl, m, n, b):
    sys.path.insert(0, PROGRAM)
    if impl in PHASE_IMPLS:
        seconds, low, high = PHASE_IMPLS[impl](m, n, b)
    else:
        seconds, low, high = IMPLS[impl](n, b)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    rss = usage.ru_maxrss / 1024.0
    cpu = usage.ru_utime + usage.ru_stime  # the whole child: imports and data included
    print(json.dumps({"seconds": seconds, "rss_mb": rss, "low": low, "high": high, "child_cpu": cpu}))


def _run(impl, m, n, b, repeats):
    python = PEERS_PYTHON if impl == "compstats" else sys.executable
    if impl == "compstats" and not os.path.exists(python):
        return None, "no benchmarks/.venv-peers (run setup_peers.py)"
    runs = []
    for _ in range(repeats):
        proc = subprocess.run(
            [python, os.path.abspath(__file__), "--child", impl, str(m), str(n), str(b)], capture_output=True, text=True
        )
        if proc.returncode != 0:
            return None, proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "failed"
        runs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    return {
        "seconds": statistics.median(r["seconds"] for r in runs),
        "rss_mb": max(r["rss_mb"] for r in runs),
        "note": "child CPU %.2f s (whole process), load %.1f"
        % (statistics.median(r["child_cpu"] for r in runs), _load()),
    }, None


def _load():
    return os.getloadavg()[0]


def make_parser():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--sizes", default=None, help="one-submission cases N:B[,N:B...] (default 10000:10000,100000:10000)"
    )
    parser.add_argument(
        "--phase",
        default=None,
        help="end-of-phase case M:N:B (default 100:10000:10000; with B "
        "below 10000 the time is also scaled to B = 10000)",
    )
    parser.add_argument("--scale-all", action="store_true", help="also run scipy at B' = B/10 and scale it")
    parser.add_argument("--phase-only", action="store_true", help="only the end-of-phase case and its peers")
    parser.add_argument("--no-phase", action="store_true", help="only the one-submission cases")
    parser.add_argument(
        "--cells-b",
        type=int,
        default=None,
        help="B of the previous-path peer (default: the case's B; scaled linearly to it)",
    )
    parser.add_argument(
        "--peers",
        default="scipy,sklearn-loop,compstats,confidenceinterval",
        help="one-submission peers to run (comma-separated; 'none' for ours alone)",
    )
    parser.add_argument("--child", nargs=4, metavar=("IMPL", "M", "N", "B"))
    return parser


def main(argv=None):
    parser = make_parser()
    args = parser.parse_args(argv)
    if args.child:
        impl, m, n, b = args.child
        return child(impl, int(m), int(n), int(b))
    cases = [(10000, 10000), (100000, 10000)] if not args.quick else [(10000, 1000)]
    if args.sizes:
        cases = [tuple(int(x) for x in part.split(":")) for part in args.sizes.split(",")]
    scaled = SCALED + (("scipy",) if args.scale_all else ())
    if args.phase_only:
        cases = []
    else:
        print(
            "ROC-AUC, one submission (evaluate(), B resamples; median of %d; ratio = peer / ours; * = run at "
            "B' = B/10 and scaled); load average %s" % (args.repeats, " ".join("%.2f" % x for x in os.getloadavg()))
        )
    for n, b in cases:
        one_submission(args, n, b, scaled)
    if args.no_phase:
        return 0
    return end_of_phase(args)


def one_submission(args, n, b, scaled):
    """Ours, the macro-F1 calibration and each peer on one (n, B) case, printed."""
    ours, why = _run("ours", 1, n, b, args.repeats)
    print(
        "n=%d B=%d  ours: %.3f s, peak RSS %.0f MB (%s)" % (n, b, ours["seconds"], ours["rss_mb"], ours["note"]),
        flush=True,
    )
    calibration, _ = _run("ours-f1", 1, n, b, args.repeats)
    if calibration is not None:
        print(
            "   (calibration: our macro-F1 on the same n, B: %.3f s; ROC-AUC costs %.1fx that; %s)"
            % (calibration["seconds"], ours["seconds"] / calibration["seconds"], calibration["note"]),
            flush=True,
        )
    for impl in [p for p in args.peers.split(",") if p and p != "none"]:
        bb = max(1, min(1000, b // 10)) if impl in scaled else b
        reps = 1 if impl in scaled else args.repeats
        peer, why = _run(impl, 1, n, bb, reps)
        if peer is None:
            print("   %-20s not run: %s" % (impl, why), flush=True)
            continue
        seconds = peer["seconds"] * b / bb
        print(
            "   %-20s %9.2f s%s  (%.1fx)  peak RSS %.0f MB (%s)"
            % (impl, seconds, "*" if bb != b else " ", seconds / ours["seconds"], peer["rss_mb"], peer["note"]),
            flush=True,
        )


def end_of_phase(args):
    """The end-of-phase case and its peers, printed; the exit code."""
    m, n, b = (100, 10000, 10000) if not args.quick else (10, 2000, 1000)
    if args.phase:
        m, n, b = (int(x) for x in args.phase.split(":"))
    phase, why = _run("ours-phase", m, n, b, args.repeats if args.phase_only else 1)
    if phase is None:
        print("end of phase: failed: %s" % why)
        return 1
    print(
        "End of phase, analyze(): m=%d systems, n=%d, B=%d, ROC-AUC, all pairs: %.2f s, peak RSS %.0f MB%s"
        % (
            m,
            n,
            b,
            phase["seconds"],
            phase["rss_mb"],
            " (about %.0f s at B = 10,000, scaled linearly)" % (phase["seconds"] * 10000.0 / b) if b < 10000 else "",
        ),
        flush=True,
    )
    for impl, bb in (("ours-phase-cells", min(b, args.cells_b or b)), ("sklearn-loop-phase", min(b, 20))):
        peer, why = _run(impl, m, n, bb, 1)
        if peer is None:
            print("   %-20s not run: %s" % (impl, why), flush=True)
            continue
        seconds = peer["seconds"] * b / bb
        print(
            "   %-20s %9.2f s%s  (%.1fx)  peak RSS %.0f MB"
            % (impl, seconds, "*" if bb != b else " ", seconds / phase["seconds"], peer["rss_mb"]),
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""What simultaneous inference costs (issue 20): the end of phase before and after, and max-t at m = 2,000.

Two measurements, each case in its own child process (interpreter start-up, imports and
data generation excluded from the time; peak RSS = the child's ``ru_maxrss``):

``--phase`` (default m = 100, n = 10^4, B = 10^4, all pairs)
    ``analyze(gold, systems, metric="f1_macro", n_resamples=B)`` with each version's
    default settings, on the same synthetic phase (3 classes, priors 0.5/0.3/0.2, system
    j right with probability 0.5 + 0.4 j/(m-1), else a uniform label): the code of
    ``--base`` (a worktree of today's main, e.g. ``git worktree add /tmp/base a0d15d1``)
    against this tree's, ALTERNATING (base, new, base, new, ...) so that a busy machine
    slows both alike.  Prints each run, the medians and the ratio new/base (target
    <= 1.5), and the time of the new code's max-t and rank-set stage alone.
``--maxt`` (default m = 2,000: 1,999,000 pairs, B = 10,000)
    :func:`leaderboard_ci.core.simultaneous.maxt_stepdown` alone over all pairs of
    synthetic replicates (normal, 20 groups of equal means so that the step-down takes
    several steps), ``n_jobs="auto"``: wall and CPU time, steps, peak RSS and the RSS
    before the call.

Usage::

    python benchmarks/simultaneous_cost.py --phase --base /tmp/base --repeats 3
    python benchmarks/simultaneous_cost.py --maxt --m 2000 --B 10000

Results are appended to ``benchmarks/results/simultaneous_cost.jsonl`` and printed.
Not a test: nothing here asserts a time.
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
NEW = os.path.abspath(os.path.join(HERE, os.pardir))
RESULTS = os.path.join(HERE, "results", "simultaneous_cost.jsonl")

_PHASE_CHILD = r"""
import json, os, resource, sys, time
sys.path.insert(0, sys.argv[1])
import numpy as np
from leaderboard_ci.core.parallel import keep_freed_memory
keep_freed_memory()
from leaderboard_ci.phase.analysis import analyze
m, n, B = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rng = np.random.default_rng(2020)
gold = rng.choice(3, size=n, p=[0.5, 0.3, 0.2])
systems = {}
for j in range(m):
    acc = 0.5 + 0.4 * j / max(1, m - 1)
    systems["system_%04d" % j] = np.where(rng.random(n) < acc, gold, rng.integers(0, 3, n))
gold_s = [str(g) for g in gold]
systems = {k: [str(x) for x in v] for k, v in systems.items()}
rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0, c0 = time.perf_counter(), time.process_time()
extra = sys.argv[5].split(",") if len(sys.argv) > 5 and sys.argv[5] else None
result = analyze(gold_s, systems, metric="f1_macro", extra_metrics=extra, n_resamples=B)
wall, cpu = time.perf_counter() - t0, time.process_time() - c0
target = result.official
print(json.dumps({"wall": wall, "cpu": cpu, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
                  "rss_before_mb": rss0 / 1024.0, "primary": str(result.signature.primary),
                  "pairs": int(len(target.pairs)), "tied_with_winner": len(target.tied_with_winner),
                  "columns": list(target.pairs.columns)}))
"""

_MAXT_CHILD = r"""
import json, os, resource, sys, time
sys.path.insert(0, sys.argv[1])
import numpy as np
from leaderboard_ci.core.parallel import keep_freed_memory
keep_freed_memory()
from leaderboard_ci.core.simultaneous import maxt_stepdown
m, B, jobs = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
rng = np.random.default_rng(7)
means = np.repeat(np.linspace(0.60, 0.80, 20), -(-m // 20))[:m]
common = rng.normal(0, 0.004, (B, 1))
reps = means[None, :] + common + rng.normal(0, 0.004, (B, m))
full = means + rng.normal(0, 0.002, m)
a, b = np.triu_indices(m, k=1)
pairs = np.stack([a, b], axis=1).astype(np.intp)
del a, b
rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0, c0 = time.perf_counter(), time.process_time()
fam = maxt_stepdown(reps, full, pairs, 1, 0.05, n_jobs=jobs if jobs == "auto" else int(jobs))
wall, cpu = time.perf_counter() - t0, time.process_time() - c0
print(json.dumps({"wall": wall, "cpu": cpu, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
                  "rss_before_mb": rss0 / 1024.0, "pairs": int(pairs.shape[0]), "steps": int(fam.steps),
                  "rejected": int(fam.significant.sum()), "critical_simultaneous": float(fam.critical_simultaneous),
                  "replicates_mb": reps.nbytes / 2.0 ** 20, "pairs_index_mb": pairs.nbytes / 2.0 ** 20}))
"""


def _child(code, args):
    out = subprocess.run([sys.executable, "-c", code] + [str(a) for a in args], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def _machine():
    info = {"python": platform.python_version(), "platform": platform.platform(), "cpus": os.cpu_count()}
    try:
        info["load_average"] = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        pass
    return info


def _commit(tree):
    try:
        return subprocess.run(
            ["git", "-C", tree, "rev-parse", "--short", "HEAD"], capture_output=True, text=True
        ).stdout.strip()
    except OSError:
        return None


def _median(values):
    values = sorted(values)
    k = len(values)
    return values[k // 2] if k % 2 else 0.5 * (values[k // 2 - 1] + values[k // 2])


def phase(args):
    base_prog = os.path.join(os.path.abspath(args.base), "scoring_program")
    new_prog = os.path.join(NEW, "scoring_program")
    runs = {"base": [], "new": []}
    for r in range(args.repeats):
        for label, prog in (("base", base_prog), ("new", new_prog)):
            row = _child(_PHASE_CHILD, [prog, args.m, args.n, args.B, args.extra])
            runs[label].append(row)
            print(
                "run %d %-4s wall %7.2f s  cpu %7.2f s  peak RSS %6.0f MB  primary %s  load %s"
                % (
                    r + 1,
                    label,
                    row["wall"],
                    row["cpu"],
                    row["peak_rss_mb"],
                    row["primary"],
                    _machine().get("load_average"),
                )
            )
            sys.stdout.flush()
    med = {k: _median([x["wall"] for x in v]) for k, v in runs.items()}
    cpu = {k: _median([x["cpu"] for x in v]) for k, v in runs.items()}
    rss = {k: max(x["peak_rss_mb"] for x in v) for k, v in runs.items()}
    ratio, cpu_ratio = med["new"] / med["base"], cpu["new"] / cpu["base"]
    print(
        "\nEnd of phase, m = %d, n = %d, B = %d, all %d pairs (median of %d alternating runs)"
        % (args.m, args.n, args.B, runs["new"][0]["pairs"], args.repeats)
    )
    print(
        "  main (%s): %.2f s wall, %.2f s CPU, peak RSS %.0f MB"
        % (_commit(args.base), med["base"], cpu["base"], rss["base"])
    )
    print("  new  (%s): %.2f s wall, %.2f s CPU, peak RSS %.0f MB" % (_commit(NEW), med["new"], cpu["new"], rss["new"]))
    print("  ratio new/main: %.2fx wall, %.2fx CPU (target <= 1.5x)" % (ratio, cpu_ratio))
    return {
        "kind": "phase",
        "m": args.m,
        "n": args.n,
        "B": args.B,
        "repeats": args.repeats,
        "base_commit": _commit(args.base),
        "new_commit": _commit(NEW),
        "runs": runs,
        "median_wall": med,
        "median_cpu": cpu,
        "peak_rss_mb": rss,
        "ratio_wall": ratio,
        "ratio_cpu": cpu_ratio,
    }


def maxt(args):
    row = _child(_MAXT_CHILD, [os.path.join(NEW, "scoring_program"), args.m, args.B, args.jobs])
    print(
        "maxt_stepdown, m = %d (%d pairs), B = %d, n_jobs=%s: %.1f s wall, %.1f s CPU, %d steps, "
        "peak RSS %.0f MB (%.0f MB before the call: replicates %.0f MB, pair index %.0f MB)"
        % (
            args.m,
            row["pairs"],
            args.B,
            args.jobs,
            row["wall"],
            row["cpu"],
            row["steps"],
            row["peak_rss_mb"],
            row["rss_before_mb"],
            row["replicates_mb"],
            row["pairs_index_mb"],
        )
    )
    return dict(row, kind="maxt", m=args.m, B=args.B, jobs=args.jobs, commit=_commit(NEW))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--phase", action="store_true", help="end of phase, main against this tree")
    parser.add_argument("--maxt", action="store_true", help="maxt_stepdown alone at large m")
    parser.add_argument("--base", default="/tmp/base", help="a worktree of the code to compare with")
    parser.add_argument("--m", type=int, default=None)
    parser.add_argument("--n", type=int, default=10000)
    parser.add_argument("--B", type=int, default=10000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--jobs", default="auto")
    parser.add_argument("--extra", default="", help="extra metrics, comma-separated (accuracy: McNemar's test too)")
    args = parser.parse_args(argv)
    if not (args.phase or args.maxt):
        args.phase = True
    os.makedirs(os.path.dirname(RESULTS), exist_ok=True)
    for flag, func, m in (("phase", phase, 100), ("maxt", maxt, 2000)):
        if getattr(args, flag):
            given = args.m
            args.m = m if given is None else given
            row = dict(func(args), machine=_machine(), date=time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()))
            args.m = given
            with open(RESULTS, "a") as handle:
                handle.write(json.dumps(row) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

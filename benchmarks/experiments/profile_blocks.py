#!/usr/bin/env python3
"""Where the per-submission time goes: stage timing of the bootstrap inner loop.

    python benchmarks/experiments/profile_blocks.py [--n 10000 100000] [--B 2000] [--loops 1]

For ``CodeCounts`` (macro-F1 over 3 classes: 9 confusion codes) it times, per
draw (one resampled item), each stage of the current code path
(``resampling.iter_index_blocks`` / ``iter_draw_chunks`` +
``CodeCounts.block`` / ``partial``), single-threaded, with the same buffers:

  random   generator.random(out=u)                        PCG64 -> 53-bit doubles (the definition)
  index    np.multiply(u, n, out=idx, casting="unsafe")   floor(u * n) in one pass
  take     np.take(codes_u8, idx, out=buf, mode="clip")
  count    several replicates per block (n < 2**17): add row offsets + bincount;
           one replicate per block (large n): per 32K-draw chunk, 9 x (equal + count_nonzero)

then ``compute_replicates`` (the whole loop) in fresh processes (glibc's
malloc state depends on the process's history), n_jobs = 1 and 2, with and
without ``keep_freed_memory()``: wall time, CPU time / wall (2.0 = both
threads busy) and minor page faults, and whether all four give identical
statistics.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scoring_program"))

from leaderboard_ci.core.replicates import DRAW_CHUNK  # noqa: E402
from leaderboard_ci.core.resampling import rows_per_block  # noqa: E402


def data(n):
    rng = np.random.default_rng([2024, n, 3])
    gold = rng.choice(3, size=n, p=[0.5, 0.3, 0.2])
    pred = np.where(rng.random(n) < 0.7, gold, (gold + rng.integers(1, 3, size=n)) % 3)
    return gold * 3 + pred


def stages(n, B, codes):
    small = codes.astype(np.uint8)
    rows = rows_per_block(n)
    chunked = rows == 1
    width = min(DRAW_CHUNK, n) if chunked else rows * n
    g = np.random.Generator(np.random.PCG64(12345))
    u = np.empty(width)
    idx = np.empty(width, dtype=np.intp)
    gathered = np.empty(width, dtype=np.uint8)
    wide = np.empty(width, dtype=np.intp)
    flags = np.empty(width, dtype=bool)
    t = dict.fromkeys(["random", "index", "take", "count"], 0.0)

    def one(size, r):
        a = time.perf_counter()
        g.random(out=u[:size])
        b = time.perf_counter()
        np.multiply(u[:size], n, out=idx[:size], casting="unsafe")
        c = time.perf_counter()
        np.take(small, idx[:size], out=gathered[:size], mode="clip")
        d = time.perf_counter()
        if chunked:
            for k in range(9):
                np.equal(gathered[:size], k, out=flags[:size])
                np.count_nonzero(flags[:size])
        else:
            shaped = gathered[:size].reshape(r, n)
            np.add(shaped, (np.arange(r, dtype=np.intp) * 9)[:, None], out=wide[:size].reshape(r, n))
            np.bincount(wide[:size], minlength=r * 9)
        e = time.perf_counter()
        for key, dt in zip(t, (b - a, c - b, d - c, e - d)):
            t[key] += dt

    if chunked:
        for _ in range(B):
            for j0 in range(0, n, width):
                one(min(width, n - j0), 1)
    else:
        for r0 in range(0, B, rows):
            r = min(rows, B - r0)
            one(r * n, r)
    return t, rows, chunked


def whole_loop(n, B, jobs, keep):
    """compute_replicates on one CodeCounts, in THIS (fresh) process: wall, CPU, page faults."""
    from leaderboard_ci.core.accumulators import CodeCounts
    from leaderboard_ci.core.parallel import keep_freed_memory
    from leaderboard_ci.core.replicates import compute_replicates

    kept = keep_freed_memory() if keep else False
    acc = CodeCounts(data(n), 9)
    f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    c0, t0 = time.process_time(), time.perf_counter()
    out = compute_replicates([acc], n, 12345, B, n_jobs=jobs)[0]
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0
    return {
        "wall": wall,
        "cpu": cpu,
        "faults": faults,
        "kept": kept,
        "checksum": int((out * np.arange(1, 10)).sum() % (1 << 61)),
        "load": os.getloadavg()[0],
    }


def fresh(n, B, jobs, keep):
    code = (
        "import json, sys; sys.path.insert(0, %r); import profile_blocks as p; "
        "print(json.dumps(p.whole_loop(%d, %d, %d, %r)))" % (HERE, n, B, jobs, keep)
    )
    out = subprocess.run(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, check=True, universal_newlines=True
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, nargs="+", default=[10000, 100000])
    p.add_argument("--B", type=int, default=2000)
    p.add_argument("--loops", type=int, default=1, help="fresh-process loop measurements per setting (min taken)")
    args = p.parse_args()
    print("machine 1-min load average at start: %.2f" % os.getloadavg()[0])
    for n in args.n:
        B = args.B
        draws = float(B) * n
        t, rows, chunked = stages(n, B, data(n))
        print(
            "n=%d B=%d (%s), stages as in the project, single thread, ns per draw:"
            % (
                n,
                B,
                "one replicate per block, %d-draw chunks" % min(DRAW_CHUNK, n)
                if chunked
                else "%d replicates per block" % rows,
            )
        )
        total = sum(t.values())
        for k, v in t.items():
            print("  %-7s %6.2f ns  (%4.1f%%)" % (k, 1e9 * v / draws, 100 * v / total))
        print("  %-7s %6.2f ns  -> %.1f s for B=10,000" % ("sum", 1e9 * total / draws, total / B * 10000))
        print("  compute_replicates in a fresh process (min of %d):" % args.loops)
        sums = set()
        for keep in (True, False):
            for jobs in (1, 2):
                best = min((fresh(n, B, jobs, keep) for _ in range(args.loops)), key=lambda r: r["wall"])
                sums.add(best["checksum"])
                print(
                    "    %-22s n_jobs=%d: %6.2f ns/draw wall (%5.1f s for B=10,000), CPU/wall %.2f, "
                    "%9d minor page faults per 10^4 resamples, load %.1f"
                    % (
                        "keep_freed_memory" if keep else "glibc defaults",
                        jobs,
                        1e9 * best["wall"] / draws,
                        best["wall"] / B * 10000,
                        best["cpu"] / best["wall"],
                        best["faults"] * 1e4 / B,
                        best["load"],
                    )
                )
        print("  identical statistics in all four runs: %s" % (len(sums) == 1))


if __name__ == "__main__":
    main()

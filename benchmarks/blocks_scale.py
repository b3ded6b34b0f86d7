"""A phase that outgrows one process: m systems x n items in blocks, under a memory budget (issue 16).

Writes a synthetic phase to disk once (``benchmarks/.cache/scale/``): a gold file of n
items with K classes and m submission files (``id,label``; accuracies spread from 0.5
to 0.9), then runs the end-of-phase analysis in blocks exactly as
``leaderboard-ci-end-of-phase --memory-limit`` does (planner, ingestion inside the block
tasks, pair stage in block pairs), without writing the report, and measures:

* wall time of each stage (plan, scoring of the blocks, pair stage + corrections);
* peak resident memory of every process (client and each Dask worker), polled every
  0.2 s with psutil, against the budget.

Usage::

    python benchmarks/blocks_scale.py --m 2000 --n 100000 --B 10000 --mode dask     # two workers
    python benchmarks/blocks_scale.py --m 2000 --n 100000 --B 10000 --mode threads  # one process

Results are appended to ``benchmarks/results/blocks_scale.jsonl`` and printed.
"""

import argparse
import json
import os
import platform
import sys
import threading
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "scoring_program"))


def make_phase(root, m, n, k, seed=2026):
    """The phase's reference folder and submissions folder (made once)."""
    ref, subs = os.path.join(root, "ref"), os.path.join(root, "submissions")
    done = os.path.join(root, ".done")
    if os.path.exists(done):
        return ref, subs
    os.makedirs(ref, exist_ok=True)
    os.makedirs(subs, exist_ok=True)
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    ids = np.char.add("item_", np.arange(n).astype(str))
    with open(os.path.join(ref, "gold.csv"), "w") as handle:
        handle.write("id,label\n")
        handle.write("\n".join(np.char.add(np.char.add(ids, ","), y.astype(str)).tolist()) + "\n")
    with open(os.path.join(ref, "config.yaml"), "w") as handle:
        handle.write("metric: f1_macro\nlabels: [%s]\n" % ", ".join('"%d"' % c for c in range(k)))
    for j in range(m):
        accuracy = 0.5 + 0.4 * j / max(1, m - 1)
        pred = np.where(rng.random(n) < accuracy, y, rng.integers(0, k, n))
        with open(os.path.join(subs, "system_%04d.csv" % j), "w") as handle:
            handle.write("id,label\n")
            handle.write("\n".join(np.char.add(np.char.add(ids, ","), pred.astype(str)).tolist()) + "\n")
    open(done, "w").close()
    return ref, subs


class PeakMemory:
    """Polls the RSS of this process and its children (Dask workers) and keeps each one's peak."""

    def __init__(self, interval=0.2):
        import psutil

        self.me = psutil.Process()
        self.interval = interval
        self.peaks = {}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._poll, daemon=True)

    def _poll(self):
        import psutil

        while not self.stop.is_set():
            for proc in [self.me] + self.me.children(recursive=True):
                try:
                    rss = proc.memory_info().rss
                    name = "client" if proc.pid == self.me.pid else "%s-%d" % (proc.name(), proc.pid)
                    self.peaks[name] = max(self.peaks.get(name, 0), rss)
                except psutil.Error:
                    pass
            time.sleep(self.interval)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--m", type=int, default=2000)
    parser.add_argument("--n", type=int, default=100000)
    parser.add_argument("--B", type=int, default=10000)
    parser.add_argument("--classes", type=int, default=5)
    parser.add_argument("--memory-limit", default="2GB")
    parser.add_argument("--mode", choices=("dask", "threads"), default="dask")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cache", default=os.path.join(HERE, ".cache", "scale"))
    args = parser.parse_args(argv)

    from leaderboard_ci.core.parallel import keep_freed_memory
    from leaderboard_ci.phase.analysis.blocked import SystemSource, analyze_blocks, plan_phase
    from leaderboard_ci.phase.execution.budget import format_bytes, parse_memory
    from leaderboard_ci.phase.execution.runners import DaskRunner, LocalRunner
    from leaderboard_ci.phase.ingestion.submissions import find_submissions
    from leaderboard_ci.scoring.config import load_config, parse_config
    from leaderboard_ci.scoring.readers import read_gold

    keep_freed_memory()
    root = os.path.join(args.cache, "m%d_n%d_k%d" % (args.m, args.n, args.classes))
    started = time.time()
    ref, subs = make_phase(root, args.m, args.n, args.classes)
    made = time.time() - started
    budget = parse_memory(args.memory_limit)
    program = os.path.join(HERE, os.pardir, "scoring_program")
    config = load_config(program, ref)
    config = parse_config(
        dict(
            metric="f1_macro",
            labels=[str(c) for c in range(args.classes)],
            bootstrap=dict(n_resamples=args.B, seed=12345),
        ),
        source="benchmark",
    )
    gold = read_gold(ref, config)
    import shutil

    from leaderboard_ci.phase.ingestion.safe_unzip import UnzipLimits

    shutil.rmtree(os.path.join(root, "work"), ignore_errors=True)
    entries, skipped = find_submissions(subs, os.path.join(root, "work"), limits=UnzipLimits(max_total_bytes=16 << 30))
    assert len(entries) == args.m and not skipped, (len(entries), skipped[:2])
    sources = [SystemSource(e.name, entry=e) for e in entries]
    times = {}
    with PeakMemory() as memory:
        t0 = time.time()
        runner = (
            DaskRunner("local", n_workers=args.workers, memory_limit=budget) if args.mode == "dask" else LocalRunner()
        )
        times["start_cluster"] = time.time() - t0
        try:
            t0 = time.time()
            threads = 1 if args.mode == "dask" else 2
            plan = plan_phase(
                config,
                gold,
                sources,
                workers=runner.workers,
                worker_budget=budget,
                client_budget=budget,
                in_process=args.mode != "dask",
                threads=threads,
            )
            times["plan"] = time.time() - t0
            print(plan.describe(), end="", flush=True)
            done = [0]
            t0 = time.time()

            def tick(k):
                done[0] += k
                if done[0] % 10 == 0 or done[0] == plan.blocks.n_tasks:
                    print("  %d/%d tasks, %.0f s" % (done[0], plan.blocks.n_tasks, time.time() - t0), flush=True)

            result = analyze_blocks(config, gold, sources, plan, runner, skipped=skipped, n_jobs=threads, progress=tick)
            times["analysis"] = time.time() - t0
        finally:
            runner.close()
    peaks = dict(sorted(memory.peaks.items()))
    record = dict(
        mode=args.mode,
        m=args.m,
        n=args.n,
        B=args.B,
        classes=args.classes,
        budget=budget,
        workers=runner.workers,
        blocks=plan.blocks.n_blocks,
        block_size=plan.blocks.block_size,
        estimated_worker_peak=plan.blocks.worker_peak,
        estimated_client_peak=plan.blocks.client_peak,
        per_system=plan.blocks.per_system,
        times=times,
        peaks=peaks,
        data_seconds=made,
        winner=result.official.winner,
        pairs=len(result.official.pairs),
        machine=platform.node(),
        load_before=os.getloadavg(),
    )
    print(json.dumps(record, indent=1))
    print("peak RSS: " + ", ".join("%s %s" % (k, format_bytes(v)) for k, v in peaks.items()))
    print("over budget: %s" % [k for k, v in peaks.items() if v > budget])
    out = os.path.join(HERE, "results", "blocks_scale.jsonl")
    with open(out, "a") as handle:
        handle.write(json.dumps(record) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

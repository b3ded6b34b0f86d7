"""``benchmark``: the analysis of a benchmark of several tasks and languages (see :mod:`.benchmark`).

leaderboard-ci benchmark benchmark.yaml --out OUT_DIR
python -m leaderboard_ci.phase.benchmark.cli benchmark.yaml --out OUT_DIR    # the same
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from ..._version import __version__
from ...console import entry_point
from ...core.parallel import MAX_JOBS, check_jobs, keep_freed_memory
from ...scoring.errors import ConfigError

__all__ = ["make_parser", "main"]


def make_parser():
    parser = argparse.ArgumentParser(
        prog="leaderboard-ci benchmark",
        description="Analyse a benchmark of several tasks (and languages): per-task and "
        "per-language tables with CIs, gains over baselines, gaps between languages with CIs, aggregates, "
        "rank intervals and a critical-difference diagram.",
    )
    parser.add_argument("definition", metavar="BENCHMARK_YAML", help="the benchmark definition (benchmark.yaml)")
    parser.add_argument("--out", required=True, metavar="OUT_DIR", help="where to write the report")
    parser.add_argument("--jobs", default="auto", metavar="N", help="threads (default: all cores)")
    parser.add_argument("--version", action="version", version="leaderboard-ci %s" % __version__)
    return parser


@entry_point
def main(argv=None, stdout=sys.stdout):
    """Entry point; 0 on success, 2 for the organizer's mistake (one line on stderr)."""
    from .benchmark import analyze_benchmark, load_benchmark

    args = make_parser().parse_args(argv)
    keep_freed_memory()
    started = time.time()
    try:
        try:
            jobs = check_jobs(args.jobs if args.jobs == "auto" else int(args.jobs))
        except ValueError:
            raise ConfigError("--jobs must be 'auto' or an integer from 1 to %d, got %r" % (MAX_JOBS, args.jobs))
        definition = load_benchmark(args.definition)
        stdout.write("Analysing %d test sets...\n" % len(definition.tasks))
        result = analyze_benchmark(definition, n_jobs=jobs)
        written = result.write(os.path.abspath(args.out))
    except ConfigError as exc:
        sys.stderr.write("error: %s\n" % exc.message)
        return 2
    top = result.aggregates[result.aggregates["scope"] == "all"].iloc[0]
    stdout.write(
        "Best on the aggregate (%s): %s (%.2f)\nReport: %s\nDone in %.1f s.\n"
        % (result.aggregate_of, top["system"], top["value"], written["benchmark.html"], time.time() - started)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

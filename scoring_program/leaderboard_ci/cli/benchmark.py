"""``leaderboard-ci benchmark``: the analysis of a benchmark of several tasks and languages.

leaderboard-ci benchmark benchmark.yaml --out OUT_DIR [--jobs N] [--dask ADDRESS [--workers N]]
python -m leaderboard_ci.cli.benchmark benchmark.yaml --out OUT_DIR    # the same

The analysis itself is :mod:`leaderboard_ci.phase.benchmark`.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from .._version import __version__
from ..phase.benchmark.benchmark import analyze_benchmark, load_benchmark
from .common import add_execution_arguments, execution_from_args, organizer_command

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
    add_execution_arguments(parser, blocks=False)  # a test set's systems are scored together: no blocks
    parser.add_argument("--version", action="version", version="leaderboard-ci %s" % __version__)
    return parser


@organizer_command
def main(argv=None, stdout=None):
    """Entry point; 0 on success, 2 for the organizer's mistake (one line on stderr)."""
    stdout = sys.stdout if stdout is None else stdout
    args = make_parser().parse_args(argv)
    started = time.time()
    execution = execution_from_args(args)
    definition = load_benchmark(args.definition)
    stdout.write("Analysing %d test sets...\n" % len(definition.tasks))
    result = analyze_benchmark(definition, execution=execution)
    written = result.write(os.path.abspath(args.out))
    top = result.aggregates[result.aggregates["scope"] == "all"].iloc[0]
    stdout.write(
        "Best on the aggregate (%s): %s (%.2f)\nReport: %s\nDone in %.1f s.\n"
        % (result.aggregate_of, top["system"], top["value"], written["benchmark.html"], time.time() - started)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""``leaderboard-ci``: one command for the organizer's whole workflow.

    leaderboard-ci init DIR --gold gold.csv --config config.yaml [--baseline baseline.csv] [--title ...]
    leaderboard-ci columns config.yaml [--gold gold.csv]
    leaderboard-ci bundle [DIR] [--out ZIP] [--check ZIP] [--static]
    leaderboard-ci score SUBMISSION.zip (--competition-dir DIR | --reference REF) [--keep TREE]
    leaderboard-ci end-of-phase --reference REF --submissions PATH --out OUT
    leaderboard-ci shakeup --public-reference DEV --public-submissions DEV.zip --reference REF --submissions S --out OUT
    leaderboard-ci compare task1/report.json task2/report.json --out cmp
    leaderboard-ci benchmark benchmark.yaml --out OUT
    leaderboard-ci demo [--out DIR]
    leaderboard-ci sample-competition [--bundle-dir DIR]
    leaderboard-ci plan [DIR] [--pilot FILE ...] [--assume KEY=VALUE,...] [--difference D] [--output OUT]

Each subcommand is ``make_parser()`` + ``run_*(args, out) -> exit code``; a mistake is
one sentence on the output and exit code 2 (1 for a submission's or a bundle's
problems), never a traceback.  ``python -m leaderboard_ci.cli`` runs the same
:func:`main` without the console script.  The other subcommands are modules of
:mod:`leaderboard_ci.cli` with their own ``main(argv)``, imported when they are run
(so that ``leaderboard-ci init`` does not load the analysis' pandas and SciPy).
"""

from __future__ import annotations

import argparse
import importlib
import sys

from .._version import __version__
from ..console import entry_point
from ..tools.scaffold import SetupError
from . import organizer, score

__all__ = ["main", "make_parser"]

#: Subcommands that hand their arguments to another module's ``main(argv)``.
_DELEGATED = {
    "end-of-phase": ("leaderboard_ci.cli.end_of_phase", "the end-of-phase analysis of all submissions"),
    "shakeup": (
        "leaderboard_ci.cli.shakeup",
        "public-to-private shake-up: gaps beyond noise, rank agreement against noise, best of k, winner's curse",
    ),
    "compare": ("leaderboard_ci.cli.compare", "competition indicators of several report.json side by side"),
    "benchmark": (
        "leaderboard_ci.cli.benchmark",
        "a benchmark of several tasks and languages: ODESIA tables, gaps, aggregates, ranks",
    ),
    "demo": ("leaderboard_ci.cli.demo", "score every sample submission as Codabench would and print the leaderboard"),
    "sample-competition": (
        "leaderboard_ci.cli.sample_competition",
        "rebuild the sample competition's data from scikit-learn's digits",
    ),
    "plan": (
        "leaderboard_ci.cli.plan",
        "test-set planning: the minimal detectable difference of the official metric, and the size needed",
    ),
}
#: The subcommands of this module's own parser, each ``run(args, out) -> exit code``.
_RUNNERS = {
    "init": organizer.run_init,
    "columns": organizer.run_columns,
    "bundle": organizer.run_bundle,
    "score": score.run_score,
}


def make_parser():
    parser = argparse.ArgumentParser(
        prog="leaderboard-ci",
        description=(
            "Bootstrap confidence intervals for Codabench/CodaLab leaderboards: scaffold a competition, "
            "build and check its bundle, score a submission as the worker does, analyse a phase."
        ),
    )
    parser.add_argument("--version", action="version", version="leaderboard-ci %s" % __version__)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    organizer.add_init_parser(sub)
    organizer.add_columns_parser(sub)
    organizer.add_bundle_parser(sub)
    score.add_score_parser(sub)

    for name, (_, help_text) in _DELEGATED.items():
        sub.add_parser(name, help=help_text + " (leaderboard-ci %s --help)" % name, add_help=False)
    return parser


@entry_point
def main(argv=None, out=None):
    """Run a subcommand; returns its exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    out = sys.stdout if out is None else out
    if argv and argv[0] in _DELEGATED:
        module = importlib.import_module(  # imported when run: each command loads only what it needs
            _DELEGATED[argv[0]][0]
        )
        return module.main(argv[1:])
    parser = make_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(out)
        return 2
    runner = _RUNNERS[args.command]
    try:
        return runner(args, out)
    except SetupError as exc:
        out.write("error: %s\n" % exc)
        return 2


if __name__ == "__main__":
    sys.exit(main())

"""``leaderboard-ci-compare`` (also ``leaderboard-ci compare``): several report.json side by side.

    leaderboard-ci-compare a/report.json b/report.json --out cmp --names A,B

The table is :func:`leaderboard_ci.report.compare.comparison_frame`; a bad report file
is one line on stderr and exit code 1, a usage error exit code 2.
"""

from __future__ import annotations

import argparse
import os
import sys

from ..console import entry_point
from ..report.compare import comparison_frame, default_name, write_comparison
from ..report.json_report import ReportFormatError, read_report

__all__ = ["make_parser", "main"]


def make_parser():
    """The command line of ``leaderboard-ci-compare`` (also ``leaderboard-ci compare``)."""
    parser = argparse.ArgumentParser(
        prog="leaderboard-ci-compare",
        description="Put the competition indicators of several report.json files side by side "
        "(CompStats Tables 7-11) and write them as CSV, Markdown and LaTeX.",
    )
    parser.add_argument("reports", nargs="+", metavar="REPORT", help="report.json files written by leaderboard-ci")
    parser.add_argument("--out", required=True, metavar="DIR", help="folder for comparison.csv/.md/.tex")
    parser.add_argument(
        "--names", metavar="A,B,...", help="comma-separated names, one per report (default: each report's folder name)"
    )
    parser.add_argument(
        "--official-only",
        action="store_true",
        help="one column per report: its official metric (default: every metric and group)",
    )
    parser.add_argument("--digits", type=int, default=4, help="decimals of |winner - median| (default 4)")
    return parser


@entry_point
def main(argv=None):
    """Run the comparison; returns the exit code (0 done, 1 a bad report file, 2 a usage error)."""
    parser = make_parser()
    args = parser.parse_args(argv)
    prog = parser.prog
    if args.names is not None:
        names = [n.strip() for n in args.names.split(",")]
        if len(names) != len(args.reports) or any(not n for n in names):
            count = len([n for n in names if n])
            print(
                "%s: error: --names gives %d name%s for %d report%s (one non-empty name per report)"
                % (prog, count, "" if count == 1 else "s", len(args.reports), "" if len(args.reports) == 1 else "s"),
                file=sys.stderr,
            )
            return 2
    else:
        names = [default_name(p) for p in args.reports]
    if os.path.exists(args.out) and not os.path.isdir(args.out):
        print("%s: error: --out %s is a file, not a folder" % (prog, args.out), file=sys.stderr)
        return 2
    reports = []
    for path in args.reports:
        try:
            reports.append(read_report(path))
        except ReportFormatError as exc:
            print("%s: error: %s" % (prog, exc), file=sys.stderr)
            return 1
    frame = comparison_frame(reports, names, official_only=args.official_only)
    written = write_comparison(frame, args.out, digits=args.digits)
    for path in written.values():
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())

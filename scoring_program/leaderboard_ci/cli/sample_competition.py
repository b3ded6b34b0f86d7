"""``leaderboard-ci sample-competition``: rebuild the sample competition's data.

The data are written by :mod:`leaderboard_ci.tools.sample_competition`.
"""

from __future__ import annotations

import argparse
import sys

from ..console import entry_point
from ..tools.sample_competition import BUNDLE_DIR, build

__all__ = ["make_parser", "main"]


def make_parser():
    parser = argparse.ArgumentParser(
        prog="leaderboard-ci sample-competition",
        description="Build the sample competition's data (reference data, sample "
        "submissions, public data, starting kit, logo) from "
        "scikit-learn's digits data set.",
    )
    parser.add_argument("--bundle-dir", default=BUNDLE_DIR, help="the competition folder (default: %(default)s)")
    return parser


@entry_point
def main(argv=None):
    args = make_parser().parse_args(argv)
    build(args.bundle_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())

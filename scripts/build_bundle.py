#!/usr/bin/env python3
"""Build and check a competition's uploadable bundle zip, from a checkout (``leaderboard-ci bundle``).

    python3 scripts/build_bundle.py                 # the sample competition -> dist/bundle.zip
    python3 scripts/build_bundle.py my_competition  # a folder written by leaderboard-ci init

Every option: ``python3 scripts/build_bundle.py --help``.
"""

import sys

import _checkout  # noqa: F401  (this checkout's scoring_program/ on sys.path)

from leaderboard_ci.cli.main import main

if __name__ == "__main__":
    sys.exit(main(["bundle"] + sys.argv[1:]))

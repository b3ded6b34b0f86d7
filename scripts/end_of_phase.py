#!/usr/bin/env python3
"""The end-of-phase analysis of all submissions, from a checkout (``leaderboard-ci-end-of-phase``).

    python3 scripts/end_of_phase.py --reference REF --submissions bulk_submissions.zip --out OUT

Every option: ``python3 scripts/end_of_phase.py --help``.
"""

import sys

import _checkout  # noqa: F401  (this checkout's scoring_program/ on sys.path)

from leaderboard_ci.cli.end_of_phase import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

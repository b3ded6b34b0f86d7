#!/usr/bin/env python3
"""End-of-phase analysis of all submissions (see leaderboard_ci/cli.py and the README).

    python scripts/end_of_phase.py --reference REF_DIR --submissions PATH --out OUT_DIR

Also installed as the ``leaderboard-ci-end-of-phase`` console script.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "scoring_program"))

from leaderboard_ci.phase.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())

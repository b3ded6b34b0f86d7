#!/usr/bin/env python3
"""Every ``leaderboard-ci`` subcommand from a checkout: init, columns, bundle, score, plan, shakeup, ...

python3 scripts/leaderboard-ci.py init my_competition --gold gold.csv --config config.yaml
python3 scripts/leaderboard-ci.py score submission.zip --competition-dir my_competition
"""

import sys

import _checkout  # noqa: F401  (this checkout's scoring_program/ on sys.path)

from leaderboard_ci.cli.main import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""Score one submission zip exactly as Codabench's worker would: ``leaderboard-ci score``.

    python scripts/score_submission.py my_submission.zip --competition-dir my_competition
    python scripts/score_submission.py sub.zip --reference dist/reference_data.zip --keep /tmp/run1

A shim for installs without the console script; see ``leaderboard_ci/tools/cli.py``.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "scoring_program"))

from leaderboard_ci.tools.cli import main as _cli  # noqa: E402


def main(argv=None, out=None):
    return _cli(["score"] + list(sys.argv[1:] if argv is None else argv), out=out)


if __name__ == "__main__":
    sys.exit(main())

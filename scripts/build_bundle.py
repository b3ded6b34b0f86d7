#!/usr/bin/env python3
"""Build and check a competition's Codabench bundle: ``leaderboard-ci bundle``.

    python scripts/build_bundle.py                        # the sample: dist/bundle.zip, then check it
    python scripts/build_bundle.py my_competition         # my_competition_bundle.zip, then check it
    python scripts/build_bundle.py --check dist/bundle.zip

A shim for installs without the console script; see ``leaderboard_ci/tools/cli.py``.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "scoring_program"))

from leaderboard_ci.tools.cli import main as _cli  # noqa: E402


def main(argv=None, out=None):
    return _cli(["bundle"] + list(sys.argv[1:] if argv is None else argv), out=out)


if __name__ == "__main__":
    sys.exit(main())

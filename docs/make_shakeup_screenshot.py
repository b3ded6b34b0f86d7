#!/usr/bin/env python3
"""Regenerate docs/shakeup.png: the shake-up page of the example (examples/shakeup/two_phases), headless Chromium.

    apt-get install -y chromium
    PYTHONPATH=scoring_program python3 docs/make_shakeup_screenshot.py

Runs ``leaderboard-ci shakeup`` on the two-phase layout of the example (B = 10,000, as shipped) and
photographs the top of ``shakeup.html`` at 1,280 pixels wide: the verdicts, the competition's table
and the public-against-private figure.
"""

import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "scoring_program"))

from screenshot import photograph  # noqa: E402  (docs/screenshot.py, beside this script)

from leaderboard_ci.cli.main import main as cli  # noqa: E402

EXAMPLE = os.path.join(HERE, os.pardir, "examples", "shakeup", "two_phases")
HEIGHT = 2300


def main():
    work = tempfile.mkdtemp(prefix="shakeup-shot-")
    out = os.path.join(work, "report")
    code = cli(
        [
            "shakeup",
            "--public-reference",
            os.path.join(EXAMPLE, "public_reference"),
            "--public-submissions",
            os.path.join(EXAMPLE, "public_submissions.zip"),
            "--reference",
            os.path.join(EXAMPLE, "private_reference"),
            "--submissions",
            os.path.join(EXAMPLE, "private_submissions.zip"),
            "--out",
            out,
        ]
    )
    if code:
        raise SystemExit(code)
    photograph(os.path.join(out, "shakeup.html"), os.path.join(HERE, "shakeup.png"), HEIGHT)


if __name__ == "__main__":
    main()

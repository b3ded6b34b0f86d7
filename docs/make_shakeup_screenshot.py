#!/usr/bin/env python3
"""Regenerate docs/shakeup.png: the shake-up page of the example (examples/shakeup/two_phases), headless Chromium.

    apt-get install -y chromium
    PYTHONPATH=scoring_program python3 docs/make_shakeup_screenshot.py

Runs ``leaderboard-ci shakeup`` on the two-phase layout of the example (B = 10,000, as shipped) and
photographs the top of ``shakeup.html`` at 1,280 pixels wide: the verdicts, the competition's table
and the public-against-private figure.
"""

import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "scoring_program"))

from leaderboard_ci.cli.main import main as cli  # noqa: E402

EXAMPLE = os.path.join(HERE, os.pardir, "examples", "shakeup", "two_phases")
HEIGHT = 2300


def main():
    from PIL import Image

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
    shot = os.path.join(work, "shot.png")
    subprocess.run(
        [
            "chromium",
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--hide-scrollbars",
            "--screenshot=%s" % shot,
            "--window-size=1280,%d" % (HEIGHT + 200),
            "file://%s" % os.path.join(out, "shakeup.html"),
        ],
        check=True,
        capture_output=True,
    )
    image = Image.open(shot).convert("RGB").crop((0, 0, 1280, HEIGHT))
    target = os.path.join(HERE, "shakeup.png")
    image.quantize(colors=256, method=Image.Quantize.MAXCOVERAGE, dither=Image.Dither.NONE).save(target, optimize=True)
    print("wrote %s" % target)


if __name__ == "__main__":
    main()

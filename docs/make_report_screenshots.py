#!/usr/bin/env python3
"""Regenerate docs/report_10_systems.png and docs/report_60_systems.png (headless Chromium).

    apt-get install -y chromium
    PYTHONPATH=scoring_program python3 docs/make_report_screenshots.py

Synthetic competitions with long system names, a broken run near 0, a majority baseline and two
groups (B = 2,000), written as a report and photographed at 1280 pixels wide: nothing may be cut off.
"""

import os
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "scoring_program"))

from screenshot import photograph  # noqa: E402  (docs/screenshot.py, beside this script)

from leaderboard_ci.phase.analysis import analyze  # noqa: E402

LONG = "a_rather_long_team_name_with_a_descriptive_run_label"
HEIGHTS = {10: 4400, 60: 6000}


def competition(m):
    rng = np.random.default_rng(m)
    n = 240
    gold = rng.integers(0, 3, n)

    def noisy(accuracy):
        pred = gold.copy()
        flip = rng.random(n) > accuracy
        pred[flip] = rng.integers(0, 3, int(flip.sum()))
        return pred

    systems = {"%s_%02d" % (LONG if i % 2 == 0 else "team%d" % i, i): noisy(0.55 + 0.3 * i / m) for i in range(m - 1)}
    systems["broken_run_of_%s" % LONG] = (gold + 1) % 3
    systems["majority baseline"] = np.zeros(n, dtype=int)
    groups = np.where(np.arange(n) % 2 == 0, "female", "male")
    return analyze(
        [str(g) for g in gold],
        {k: [str(x) for x in v] for k, v in systems.items()},
        metric="f1_macro",
        groups=list(groups),
        baseline="majority baseline",
        n_resamples=2000,
    )


def main():
    work = tempfile.mkdtemp(prefix="report-shots-")
    for m, height in HEIGHTS.items():
        out = os.path.join(work, "report%d" % m)
        competition(m).write(out)
        photograph(os.path.join(out, "report.html"), os.path.join(HERE, "report_%d_systems.png" % m), height)


if __name__ == "__main__":
    main()

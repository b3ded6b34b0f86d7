#!/usr/bin/env python3
"""Put the competition indicators of several report.json files side by side.

    python scripts/compare_competitions.py task1/report.json task2/report.json --out cmp --names T1,T2
    python scripts/compare_competitions.py */report.json --out cmp --official-only

Writes comparison.csv, comparison.md and comparison.tex in --out: one column
per competition, task or group; rows n, m, ties with the winner (none,
Bonferroni, Holm, BH), possible comparisons, non-significant pairs per
correction, |winner - median|, CV and PPI (CompStats Tables 7-11).  A missing
or invalid report file stops it with a one-line error and exit code 1.
"""
from __future__ import annotations

import os
import sys

PROGRAM_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scoring_program")
if PROGRAM_DIR not in sys.path:
    sys.path.insert(0, PROGRAM_DIR)

from leaderboard_ci.report.compare import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())

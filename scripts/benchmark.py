#!/usr/bin/env python3
"""Analyse a benchmark of several tasks and languages: python3 scripts/benchmark.py benchmark.yaml --out DIR"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scoring_program"))

from leaderboard_ci.phase.benchmark.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())

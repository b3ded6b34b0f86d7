#!/usr/bin/env python3
"""Run the full statistical validity suite and write the measured tables.

    python3 tests/statistical/run_full.py [extra pytest arguments]

runs, from the repository root,

    python3 -m pytest tests/statistical -m statistical --full-stats \\
        --stats-report tests/statistical/results -p no:cacheprovider -q -rfEs --durations=30

and leaves ``tests/statistical/results/latest.json`` (every measured number,
the settings, the machine, the load average, each test's outcome and time) and
``latest.md`` (the tables).  It takes 17 minutes on 2 quiet cores.
Environment: ``LEADERBOARD_CI_STAT_JOBS`` (worker processes, default 2),
``LEADERBOARD_CI_COMPSTATS_PYTHON`` (the CompStats 0.1.15 interpreter; default
``benchmarks/.venv-peers/bin/python``), ``LEADERBOARD_CI_STAT_CACHE`` (population
cache folder, ``off`` to rebuild).  The exit status is pytest's.
"""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def main(argv):
    command = [
        sys.executable,
        "-m",
        "pytest",
        "tests/statistical",
        "-m",
        "statistical",
        "--full-stats",
        "--stats-report",
        os.path.relpath(os.path.join(HERE, "results"), ROOT),
        "-p",
        "no:cacheprovider",
        "-q",
        "-rfEs",
        "--durations=30",
    ] + list(argv)
    print("+ " + " ".join(command), flush=True)
    return subprocess.call(command, cwd=ROOT)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

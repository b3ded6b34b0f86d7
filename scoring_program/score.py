#!/usr/bin/env python3
"""Codabench / CodaLab scoring program: the official metric with bootstrap CIs.

Run by the platform as ``python3 $program/score.py $input $output`` (see
metadata.yaml).  Settings are in config.yaml next to this file.  It needs only
Python >= 3.7, numpy and PyYAML, which every stock codalab-legacy image has.
"""

import os
import sys

# The program parallelizes over blocks of resamples with its own threads; a
# multithreaded BLAS would only slow its small matrix products down.  Set
# before numpy is imported; an explicit setting in the environment wins.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from leaderboard_ci.core.parallel import keep_freed_memory  # noqa: E402
from leaderboard_ci.scoring.codabench import main  # noqa: E402

if __name__ == "__main__":
    keep_freed_memory()
    sys.exit(main(program_dir=HERE))

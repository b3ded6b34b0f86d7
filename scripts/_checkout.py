"""Put this checkout's ``scoring_program/`` first on ``sys.path``: the scripts run without installing.

Every script here imports it first, then calls a command of :mod:`leaderboard_ci.cli` with the
arguments it was given.  The package then comes from this checkout (not from an installed copy),
so a script runs the code beside it.  It needs numpy and PyYAML (and, for the end of phase,
pandas, SciPy and statsmodels: ``pip install -r`` of setup.cfg's requirements, or ``pip install .``).
"""

import os
import sys

CHECKOUT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGRAM = os.path.join(CHECKOUT, "scoring_program")

if PROGRAM not in sys.path:
    sys.path.insert(0, PROGRAM)

"""Tests import the package from this checkout's scoring_program/, whatever else is installed.

An editable install of another checkout (or an installed wheel) would otherwise be imported
first, and the tests would exercise code other than the code under test.
"""

import os
import sys

_PROGRAM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scoring_program")
if sys.path[:1] != [_PROGRAM]:
    sys.path.insert(0, _PROGRAM)
for _name in [m for m in sys.modules if m == "leaderboard_ci" or m.startswith("leaderboard_ci.")]:
    if not os.path.abspath(getattr(sys.modules[_name], "__file__", "") or "").startswith(_PROGRAM):
        del sys.modules[_name]

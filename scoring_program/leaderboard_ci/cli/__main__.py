"""``python -m leaderboard_ci.cli``: the ``leaderboard-ci`` command without the console script."""

import sys

from .main import main

sys.exit(main())

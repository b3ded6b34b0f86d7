"""Codabench's limits on what a scoring program and a bundle may write.

Read in Codabench's models and serializers: ``Column.key`` and ``Column.title``
are ``CharField(max_length=36)``, ``Leaderboard.title`` 64 characters,
``SubmissionScore.score`` a ``DecimalField(max_digits=20, decimal_places=10)``.
"""

import re

__all__ = ["MAX_KEY_LENGTH", "MAX_TITLE_LENGTH", "MAX_LEADERBOARD_TITLE", "MAX_ABS_SCORE", "KEY_PATTERN"]

MAX_KEY_LENGTH = 36
MAX_TITLE_LENGTH = 36
MAX_LEADERBOARD_TITLE = 64
MAX_ABS_SCORE = 1e10
#: What this program allows in a score key (Codabench allows more; these survive every renderer).
KEY_PATTERN = re.compile(r"^[A-Za-z0-9_]+$")

"""The two kinds of user mistakes, kept apart from bugs.

A :class:`SubmissionError` is the participant's mistake: the scoring program prints
its message as one sentence on stderr and exits with code 1, with no traceback.
Its message must name the file (and line, where there is one) and what was
expected, and must never quote the gold standard.

A :class:`ConfigError` is the organizer's mistake (a bad ``config.yaml``, missing
or malformed gold data).  It is reported the same way but addressed to the
organizer, since participants cannot fix it.

Anything else that escapes is a bug in this package.
"""


class LeaderboardCIError(Exception):
    """Base class of the user-facing errors of this package."""

    audience = "user"

    def __init__(self, message):
        super(LeaderboardCIError, self).__init__(message)
        self.message = message

    def __str__(self):
        return self.message


class SubmissionError(LeaderboardCIError, ValueError):
    """A participant's submission cannot be scored; the message says why."""


class ConfigError(LeaderboardCIError, ValueError):
    """The organizer's configuration or reference data is wrong."""

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
    #: Set by :func:`data_not_header`: the file's first line is data where its header belongs.
    data_not_header = False

    def __init__(self, message):
        super(LeaderboardCIError, self).__init__(message)
        self.message = message

    def __str__(self):
        return self.message


class SubmissionError(LeaderboardCIError, ValueError):
    """A participant's submission cannot be scored; the message says why."""


class ConfigError(LeaderboardCIError, ValueError):
    """The organizer's configuration or reference data is wrong."""


def data_not_header(error):
    """``error`` marked as "the first line is data, not a header" (``error.data_not_header``), for its catcher.

    A caller that rewords a table's errors (``bootstrap.design_file``) keeps this one as it is,
    since it names the line; the marker tells it apart without matching the message's text.
    """
    error.data_not_header = True
    return error

"""What the commands share: the organizer's-mistake wrapper and the parsing of ``--jobs`` and ``--top``."""

from __future__ import annotations

import functools
import sys

from ..console import entry_point
from ..core.parallel import MAX_JOBS, check_jobs, keep_freed_memory
from ..scoring.errors import ConfigError

__all__ = ["organizer_command", "parse_jobs", "parse_top"]


def organizer_command(run):
    """Wrap ``run(argv) -> exit code`` as a command's ``main``.

    A :class:`~leaderboard_ci.scoring.errors.ConfigError` (the organizer's mistake) is one line on
    stderr and exit code 2, an interrupt (Ctrl-C) one line and 130; freed memory is given back to
    the system as the analysis goes (:func:`~leaderboard_ci.core.parallel.keep_freed_memory`); a
    closed standard output ends the command quietly (:func:`leaderboard_ci.console.entry_point`).
    """

    @entry_point
    @functools.wraps(run)
    def main(argv=None, *args, **kwargs):
        keep_freed_memory()
        try:
            return run(argv, *args, **kwargs)
        except ConfigError as exc:
            sys.stderr.write("error: %s\n" % exc.message)
            return 2
        except KeyboardInterrupt:
            sys.stderr.write("interrupted\n")
            return 130

    return main


def parse_jobs(text):
    """``--jobs``: 'auto' or a thread count, checked by the one check of thread counts."""
    try:
        return check_jobs(text if text == "auto" else int(text))
    except ValueError:
        raise ConfigError("--jobs must be 'auto' or an integer from 1 to %d, got %r" % (MAX_JOBS, text))


def parse_top(text):
    """``--top``: a positive integer, or 'all' (None: no cut)."""
    if text == "all":
        return None
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise ConfigError("--top must be a positive integer or 'all', got %r" % text)
    return value

"""What every command-line entry point shares: a reader that stops early (``| head -1``) ends it quietly.

When the program's standard output is a pipe and the reader exits (``head``,
``less`` quitting), the next write raises :class:`BrokenPipeError`; Python would
print a traceback, and another one while flushing at exit.  :func:`entry_point`
wraps a ``main`` so that it ends like ``cat`` does: no message, exit code 141
(128 + SIGPIPE, what a shell reports for a command killed by a closed pipe).  A
:class:`BrokenPipeError` that does not come from standard output (a socket, a
subprocess' pipe) is raised as before.

Standard library only: the scoring program, the end of phase, the report and the
organizer tools all import it.
"""

import functools
import os
import sys

__all__ = ["entry_point", "CLOSED_PIPE_EXIT"]

#: The exit code after the reader of standard output went away (a shell's code for SIGPIPE).
CLOSED_PIPE_EXIT = 141


def _stdout_closed():
    """Whether standard output is a pipe whose reader has gone (POLLERR on its write end)."""
    try:
        import select

        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(events & (select.POLLERR | select.POLLHUP) for _, events in poller.poll(0))
    except (AttributeError, ValueError, OSError):  # no poll (Windows) or no real file: trust the error
        return True


def _silence_stdout():
    """Point file descriptor 1 at the null device, so the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (AttributeError, ValueError, OSError):
        pass


def entry_point(main):
    """Wrap a command's ``main(argv=None, ...) -> int``: a closed standard output ends it with code 141, quietly."""

    @functools.wraps(main)
    def run(*args, **kwargs):
        try:
            try:
                code = main(*args, **kwargs)
            except SystemExit:  # argparse's --help and usage errors: what they printed is flushed here
                sys.stdout.flush()
                raise
            sys.stdout.flush()
            return code
        except BrokenPipeError:
            if not _stdout_closed():
                raise
            _silence_stdout()
            return CLOSED_PIPE_EXIT

    return run

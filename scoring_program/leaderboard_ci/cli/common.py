"""What the commands share: the organizer's-mistake wrapper, the Execution options, ``--jobs`` and ``--top``."""

from __future__ import annotations

import functools
import sys

from ..console import entry_point
from ..core.parallel import MAX_JOBS, check_jobs, keep_freed_memory
from ..phase.execution.budget import parse_memory
from ..phase.execution.runs import Execution
from ..scoring.errors import ConfigError

__all__ = [
    "organizer_command",
    "add_execution_arguments",
    "execution_from_args",
    "parse_jobs",
    "parse_top",
    "parse_count_or_all",
]


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


def parse_count_or_all(text, minimum, sentence):
    """An option's value: 'all' (None) or a whole number of at least ``minimum``; else ``sentence % text``."""
    if text == "all":
        return None
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < minimum:
        raise ConfigError(sentence % (text,))
    return value


def parse_top(text):
    """``--top``: a positive integer, or 'all' (None: no cut)."""
    return parse_count_or_all(text, 1, "--top must be a positive integer or 'all', got %r")


FIGURE_FILE_FORMATS = ("png", "pdf", "svg")


def add_figure_files_argument(parser, default="png,pdf"):
    """``--figure-files``: the formats of the figure files a report writes, or 'none'."""
    parser.add_argument(
        "--figure-files",
        default=default,
        metavar="FORMATS",
        help="formats of the figure files beside the page, comma-separated from %s, or 'none' (the page still "
        "shows its figures; drawing each file takes about as long as the page's own; default %s)"
        % (", ".join(FIGURE_FILE_FORMATS), default),
    )


def parse_figure_files(text):
    """``--figure-files``: a tuple of formats (empty for 'none'), or one sentence naming what is accepted."""
    if text.strip().lower() == "none":
        return ()
    formats = tuple(part.strip().lower() for part in text.split(","))
    wrong = [f for f in formats if f not in FIGURE_FILE_FORMATS]
    if not formats or wrong or len(set(formats)) != len(formats):
        raise ConfigError(
            "--figure-files must be 'none' or formats from %s separated by commas, each once, got %r"
            % (", ".join(FIGURE_FILE_FORMATS), text)
        )
    return formats


def add_execution_arguments(parser, blocks=True):
    """Add the :class:`~leaderboard_ci.phase.execution.runs.Execution` options: where the work runs, not what.

    ``--jobs``, ``--dask`` (an out-of-process runner: a scheduler address or ``local``) and
    ``--workers``; with ``blocks``, also ``--memory-limit``, ``--client-memory-limit`` and
    ``--block-size`` (the systems in blocks, for commands that split them). One set of names and
    help texts for ``end-of-phase``, ``benchmark`` and ``plan``; read back with :func:`execution_from_args`.
    """
    group = parser.add_argument_group("execution (where the work runs; the numbers never depend on it)")
    group.add_argument(
        "--jobs",
        default="auto",
        metavar="N",
        help="threads for the bootstrap (default: all cores); results are identical for any N",
    )
    group.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="run the analysis on a Dask cluster: a scheduler address (tcp://host:8786) or "
        "'local' for a LocalCluster (needs pip install .[dask])"
        + (
            "; the systems are split into blocks that fit each worker's memory, and each block's "
            "submissions are read on the worker that scores it"
            if blocks
            else "; each worker scores spans of the bootstrap replicates"
        ),
    )
    if blocks:
        group.add_argument(
            "--memory-limit",
            metavar="SIZE",
            help="memory budget per process (e.g. 2GB): the systems are scored in blocks that fit "
            "it, and the pairs in block pairs; the plan and its estimated peaks are printed "
            "first (default with --dask: the workers' own limit; else no blocks)",
        )
        group.add_argument(
            "--client-memory-limit",
            metavar="SIZE",
            help="the client's budget, for the plan's check (default: --memory-limit)",
        )
        group.add_argument(
            "--block-size", type=int, metavar="N", help="systems per block, instead of choosing it from --memory-limit"
        )
    group.add_argument("--workers", type=int, metavar="N", help="workers of --dask local (default: one per core)")
    return group


def execution_from_args(args):
    """The :class:`~leaderboard_ci.phase.execution.runs.Execution` that the command line's options ask for.

    On Dask each task runs one thread (``n_jobs=1``); a bad value is a
    :class:`~leaderboard_ci.scoring.errors.ConfigError` naming the option.
    """
    memory_limit = getattr(args, "memory_limit", None)
    client_limit = getattr(args, "client_memory_limit", None)
    budget = parse_memory(memory_limit) if memory_limit else None
    client_budget = parse_memory(client_limit, "--client-memory-limit") if client_limit else budget
    for option, value in (("--workers", args.workers), ("--block-size", getattr(args, "block_size", None))):
        if value is not None and value < 1:
            raise ConfigError("%s must be a positive integer, got %d" % (option, value))
    return Execution(
        n_jobs=1 if args.dask else parse_jobs(args.jobs),
        dask=args.dask,
        memory_limit=budget,
        client_memory_limit=client_budget,
        block_size=getattr(args, "block_size", None),
        workers=args.workers,
    )

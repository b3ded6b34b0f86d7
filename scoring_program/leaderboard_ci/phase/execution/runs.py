"""How an end-of-phase run executes: the :class:`Execution` settings.

The statistics (metric, resamples, tests, corrections) come from the
configuration; *where and how* the work runs comes from one frozen
:class:`Execution` passed beside them::

    analyze(gold, systems, metric="f1_macro", execution=Execution(n_jobs=4, memory_limit="2GB"))

Planning and runner set-up are written once, in
:func:`~leaderboard_ci.phase.analysis.blocked.open_run`, used by
:func:`~leaderboard_ci.phase.analysis.analyze` and by the ``end_of_phase``
command alike: every run is a plan of blocks on a runner
(:mod:`leaderboard_ci.phase.analysis.blocked`), and the in-memory run is the plan with
one block on the :class:`~leaderboard_ci.phase.execution.runners.LocalRunner`.  The
numbers never depend on the execution.  This package never imports
:mod:`leaderboard_ci.phase.analysis` (no import loop inside ``phase/``).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Callable, Optional, Union

from ...core.parallel import check_jobs
from .budget import parse_memory
from .runners import DaskRunner, LocalRunner

__all__ = ["Execution", "from_legacy", "LEGACY_KEYWORDS"]

#: ``analyze()``'s former execution keywords (deprecated): each maps to the :class:`Execution` field of that name
#: (``executor`` is gone: a Dask run is ``Execution(dask=...)``).
LEGACY_KEYWORDS = ("n_jobs", "progress", "executor", "memory_limit", "block_size", "runner")


@dataclass(frozen=True)
class Execution:
    """Where and how an end-of-phase run executes (never what it computes).

    Parameters
    ----------
    n_jobs : int or "auto"
        Threads in this process (for a run in blocks: threads inside each task; 1 on Dask workers).
    dask : str or ``dask.distributed.Client``, optional
        Run the blocks on a Dask cluster: a scheduler address (``tcp://host:8786``),
        ``"local"`` for a LocalCluster, or a connected Client (left open at the end).
    memory_limit : int or str, optional
        The budget per process (``"2GB"``): systems are scored in blocks that fit
        it (default with ``dask``: 75% of the workers' own limit).
    client_memory_limit : int or str, optional
        The client's budget, for the plan's check (default: ``memory_limit``).
    block_size : int, optional
        Systems per block, instead of choosing it from the budget.
    workers : int, optional
        Workers of ``dask="local"`` (default: one per core).
    progress : callable, optional
        Called as work finishes: in this process with the number of replicates scored
        (and 1 per block pair), on Dask with 1 per task; the total is the plan's
        ``progress_total`` (``B + 1`` for the in-memory run).
    runner : optional
        An already open runner (:class:`~leaderboard_ci.phase.execution.runners.LocalRunner` or
        ``DaskRunner``) to run the blocks on; left open at the end.
    """

    n_jobs: Union[int, str] = "auto"
    dask: object = None
    memory_limit: Union[int, str, None] = None
    client_memory_limit: Union[int, str, None] = None
    block_size: Optional[int] = None
    workers: Optional[int] = None
    progress: Optional[Callable] = None
    runner: object = None

    def __post_init__(self):
        try:
            check_jobs(self.n_jobs)
        except ValueError as exc:
            raise ValueError("Execution.n_jobs: %s" % exc)
        if self.block_size is not None and (isinstance(self.block_size, bool) or int(self.block_size) < 1):
            raise ValueError("Execution.block_size must be a positive integer, got %r" % (self.block_size,))
        if self.workers is not None and (isinstance(self.workers, bool) or int(self.workers) < 1):
            raise ValueError("Execution.workers must be a positive integer, got %r" % (self.workers,))

    def budgets(self):
        """``(worker budget, client budget)`` in bytes (None where not set)."""
        worker = parse_memory(self.memory_limit, "memory_limit") if self.memory_limit is not None else None
        client = (
            parse_memory(self.client_memory_limit, "client_memory_limit")
            if self.client_memory_limit is not None
            else worker
        )
        return worker, client

    def open_runner(self, worker_budget=None):
        """A new runner for this execution (the caller closes it), or the one given (not to be closed)."""
        if self.runner is not None:
            return self.runner
        if self.dask is not None:
            return DaskRunner(self.dask, n_workers=self.workers, memory_limit=worker_budget)
        return LocalRunner()


def from_legacy(execution, legacy):
    """An :class:`Execution` from ``analyze()``'s former keywords (with a DeprecationWarning), or ``execution``."""
    if not legacy:
        return execution if execution is not None else Execution()
    if "executor" in legacy:
        raise TypeError(
            "analyze(executor=...) is gone: run on Dask with execution=Execution(dask='local' or an "
            "address, workers=...)"
        )
    if execution is not None:
        raise TypeError("pass execution=Execution(...) or the keywords %s, not both" % ", ".join(sorted(legacy)))
    warnings.warn(
        "analyze(%s=...) is deprecated; pass execution=Execution(%s=...) (leaderboard_ci.phase.Execution)"
        % (sorted(legacy)[0], sorted(legacy)[0]),
        DeprecationWarning,
        stacklevel=3,
    )
    return Execution(**legacy)

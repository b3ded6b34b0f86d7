"""Where and how a run executes: the :class:`Execution` settings, the plan of blocks and the runners.

:mod:`.runs` (``Execution``, ``open_run``: planning and runner set-up, written once),
:mod:`.budget` (how many systems per block), :mod:`.blocked` (the run in blocks),
:mod:`.blocks` (one block's work, where it lives), :mod:`.runners` (this process or Dask),
:mod:`.worker_cache` (what a process keeps between tasks), :mod:`.distributed`
(replicate spans on Dask for :func:`~leaderboard_ci.phase.analysis.systems.score_systems`).
"""

from .runs import Execution

__all__ = ["Execution"]

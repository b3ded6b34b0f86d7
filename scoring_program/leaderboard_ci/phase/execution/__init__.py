"""Where and how a run executes: the :class:`Execution` settings, the block budget and the runners.

:mod:`.runs` (``Execution``), :mod:`.budget` (how many systems per block), :mod:`.runners` (this
process or Dask),
:mod:`.worker_cache` (what a process keeps between tasks), :mod:`.distributed`
(replicate spans on Dask for :func:`~leaderboard_ci.phase.analysis.systems.score_systems`).
The run in blocks that uses them (``open_run``, ``analyze_blocks``, one block's work) is in
:mod:`leaderboard_ci.phase.analysis.blocked` and :mod:`~leaderboard_ci.phase.analysis.blocks`:
this package never imports :mod:`leaderboard_ci.phase.analysis` (no import loop inside ``phase/``).
"""

from .runs import Execution

__all__ = ["Execution"]

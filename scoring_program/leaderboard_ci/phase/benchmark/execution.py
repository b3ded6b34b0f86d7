"""A benchmark's test sets scored where an :class:`~leaderboard_ci.phase.execution.runs.Execution` says.

The end of phase runs its blocks on the runner an ``Execution`` opens
(:func:`~leaderboard_ci.phase.execution.runs.open_run`); a benchmark scores
each test set's systems with :func:`~leaderboard_ci.core.systems.paired_scores`
on the same runner: in this process with ``Execution.n_jobs`` threads, or on
Dask (``Execution(dask=...)``, an open ``Execution.runner``), where each worker
rebuilds the plan once from its recipe and scores spans of replicates (the
end of phase's :func:`~leaderboard_ci.phase.execution.distributed.span_scores`).
The numbers never depend on the execution.  ``memory_limit``/``block_size``
(systems in blocks) are not applied: a test set's systems are scored together.
"""

from __future__ import annotations

from contextlib import contextmanager

from ...core.parallel import resolve_jobs
from ..execution.distributed import _token, span_scores

__all__ = ["ScoringRun", "open_scoring"]


class ScoringRun:
    """``paired_scores`` keywords for an open runner: ``n_jobs`` in process, an ``executor`` elsewhere."""

    def __init__(self, runner, n_jobs):
        self.runner = runner
        self.n_jobs = resolve_jobs(n_jobs) if runner.in_process else 1

    def executor(self, plan, spans):
        """``(b - a, m, T)`` replicate scores of each span, computed on the runner's workers."""
        payload = self.runner.share(plan.recipe)
        token = _token(plan.recipe)
        out = [None] * len(spans)
        for index, scores in self.runner.run(span_scores, [(payload, token, a, b) for a, b in spans]):
            out[index] = scores
        return out

    def keywords(self):
        """The execution keywords of :func:`~leaderboard_ci.core.systems.paired_scores`."""
        if self.runner.in_process:
            return {"n_jobs": self.n_jobs}
        return {"n_jobs": 1, "executor": self.executor}


@contextmanager
def open_scoring(execution):
    """Open the execution's runner (closed at the end unless it was given open); yields a :class:`ScoringRun`."""
    runner = execution.open_runner()
    try:
        yield ScoringRun(runner, execution.n_jobs)
    finally:
        if execution.runner is None:
            runner.close()

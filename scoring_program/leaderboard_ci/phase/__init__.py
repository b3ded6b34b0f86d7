"""The end-of-phase analysis, by job: ``ingestion`` (stored submissions), ``analysis`` (the paired
analysis and its results), ``execution`` (plans of blocks, runners, Dask), ``benchmark`` (several
tasks and test sets), and ``cli`` (the ``end_of_phase`` command).

Rule: modules here may import ``core``, ``tasks``, ``scoring``, pandas, SciPy, statsmodels, tqdm and
Dask, and ``report`` only inside functions (to write what they computed).
"""

__all__ = ["analyze", "Execution", "PhaseResult", "TargetAnalysis"]


def __getattr__(name):
    """``from leaderboard_ci.phase import analyze, Execution``: imported on first use (no work at import time)."""
    if name == "Execution":
        from .execution.runs import Execution

        return Execution
    if name in __all__:
        from .analysis import analysis

        return getattr(analysis, name)
    raise AttributeError("module %r has no attribute %r" % (__name__, name))

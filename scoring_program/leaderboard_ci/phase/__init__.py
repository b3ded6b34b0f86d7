"""The end-of-phase analysis: ingestion of stored submissions, paired analysis, corrections, CLI.

Rule: modules here may import ``core``, ``tasks``, ``scoring``, pandas, SciPy, statsmodels, tqdm and
Dask, and ``report`` only inside functions (to write what they computed).
"""

__all__ = ["analyze", "Execution", "PhaseResult", "TargetAnalysis"]


def __getattr__(name):
    """``from leaderboard_ci.phase import analyze, Execution``: imported on first use (no work at import time)."""
    if name in __all__:
        from . import analysis

        return getattr(analysis, name)
    raise AttributeError("module %r has no attribute %r" % (__name__, name))
